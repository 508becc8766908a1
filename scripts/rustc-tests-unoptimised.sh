#!/usr/bin/env bash
# The workspace's rustc wrapper (.cargo/config.toml): a test harness of a
# workspace member (`rustc --test`: a crate's unit tests or an integration-test
# binary) compiles at opt-level 0, everything else exactly as Cargo asks.
# Cargo's profiles set one opt-level per package, so without this the server
# library's unit tests would compile the whole library optimised a second time.
# The decision depends only on rustc's arguments, so Cargo's fingerprints stay
# true to what was built.
set -euo pipefail
rustc=$1
shift
for arg in "$@"; do
  if [[ $arg == --test ]]; then
    args=()
    for a in "$@"; do
      [[ $a == opt-level=* ]] && a=opt-level=0
      args+=("$a")
    done
    exec "$rustc" "${args[@]}"
  fi
done
exec "$rustc" "$@"
