#!/usr/bin/env bash
# The fresh-machine check: a clean clone of this repository's HEAD builds and
# serves the demo in a new container of Debian bookworm that has nothing on it
# but a C compiler, make, curl and the C++ half of libclang (libclang-cpp14,
# which Debian's base images ship and which bindgen cannot use): whatever else
# the build needs, the Makefile must install. The container uses this
# machine's rustup toolchain (mounted read-only) with an empty cargo home of
# its own, so every crate comes from the registry, and this machine's CA
# bundle (read-only), so it trusts the network the way the machine does (a
# network that inspects TLS has its own root there).
#
#   scripts/fresh-check.sh            (make fresh-check)
#
# Prints the time from the start of `make demo` to its first reviews (the demo
# builds no BoringSSL, so it installs no native tool), then runs `make
# native-tools` and builds BoringSSL and its bindings (btls-sys), which the full
# server needs, and prints that time too; writes both, with the logs, to
# target/fresh/. Needs podman and mmdebstrap
# (`make fresh-check` installs them on Debian) and root.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$repo/target/fresh
base=localhost/gleaner-fresh:bookworm
name=gleaner-fresh-$$
mkdir -p "$work"

for tool in podman mmdebstrap git; do
  command -v "$tool" >/dev/null || {
    echo "fresh-check: $tool is missing; run make fresh-check, which installs podman and mmdebstrap" >&2
    exit 1
  }
done
rustup_home=${RUSTUP_HOME:-$HOME/.rustup}
cargo_bin=$(dirname "$(command -v cargo)")
[[ -d $rustup_home/toolchains ]] || {
  echo "fresh-check: no rustup toolchains under $rustup_home; install Rust with rustup (or set RUSTUP_HOME)" >&2
  exit 1
}
ca_bundle=${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}
[[ -f $ca_bundle ]] || {
  echo "fresh-check: no CA bundle at $ca_bundle; install ca-certificates (or set SSL_CERT_FILE)" >&2
  exit 1
}
export CONTAINERS_CONF=${CONTAINERS_CONF:-$repo/deploy/image/containers.conf}

if ! podman image exists "$base"; then
  echo "fresh-check: assembling a bookworm base with mmdebstrap"
  # minbase + what a developer's machine has before the Makefile runs: a C
  # compiler (rustc links with it), make, curl (this check's probe) and
  # libclang-cpp14 (the trap: a libclang that is not the one bindgen loads).
  mmdebstrap --quiet --variant=minbase \
    --include=ca-certificates,curl,make,gcc,libc6-dev,libclang-cpp14 \
    bookworm "$work/base.tar" http://deb.debian.org/debian
  podman import --quiet "$work/base.tar" "$base" >/dev/null
  rm -f "$work/base.tar"
fi

# A clean clone of HEAD (what CI and a new user get), and an empty cargo home.
rm -rf "$work/src" "$work/cargo-home"
# The cold build in the container needs about 6 GiB; say so before starting
# rather than failing half-way with "No space left on device".
free_kib=$(df --output=avail -k "$work" | tail -n 1)
if (( free_kib < 8 * 1024 * 1024 )); then
  echo "fresh-check: $(( free_kib / 1024 / 1024 )) GiB free under $work, the cold build needs 8 GiB; free space (for example cargo clean, or remove target/release/incremental) and run make fresh-check again" >&2
  exit 1
fi
git clone --quiet --no-local "$repo" "$work/src"
mkdir -p "$work/cargo-home"
port=$((20000 + RANDOM % 20000))

cleanup() { podman rm --force --time 5 "$name" >/dev/null 2>&1 || true; }
trap cleanup EXIT

# Inside: `make demo` in the background (it builds, then serves); the probe
# asks the README's fetch until reviews come back, then prints the seconds.
inner=$(cat <<'INNER'
set -uo pipefail
start=$(date +%s)
cd /src
make demo >/src/target-demo.log 2>&1 &
demo=$!
while kill -0 "$demo" 2>/dev/null; do
  answer=$(curl -s --max-time 10 "http://127.0.0.1:$PORT/customer-feedback-hub/reviews" \
    -H 'content-type: application/json' \
    -d '{"query":"https://www.trustpilot.com/review/www.bhphotovideo.com","reviews_to_fetch":2}' || true)
  if [[ $answer == *'"all_reviews":[{'* ]]; then
    echo "fresh-check: first demo reviews after $(( $(date +%s) - start )) s"
    kill "$demo"; wait "$demo" 2>/dev/null
    # The full server's extra build step: what make installs must be what
    # BoringSSL's build (CMake, C++) and its bindings (bindgen, libclang) load.
    start=$(date +%s)
    if make native-tools >/src/target-tls.log 2>&1 &&
      cargo build --release -p btls-sys >>/src/target-tls.log 2>&1; then
      echo "fresh-check: make native-tools, then BoringSSL and its bindings (btls-sys) built in $(( $(date +%s) - start )) s"
      exit 0
    fi
    echo "fresh-check: BoringSSL (btls-sys) did not build after make native-tools; the log's end:" >&2
    tail -n 40 /src/target-tls.log >&2
    exit 1
  fi
  sleep 2
done
echo "fresh-check: make demo ended without serving reviews; its log's end:" >&2
tail -n 40 /src/target-demo.log >&2
exit 1
INNER
)

echo "fresh-check: building and serving the demo in a clean container (cold build; this takes minutes)"
started=$(date +%s)
set +e
podman run --rm --name "$name" --network host \
  --volume "$work/src:/src" \
  --volume "$rustup_home:/opt/rustup:ro" \
  --volume "$cargo_bin:/opt/rustup-bin:ro" \
  --volume "$work/cargo-home:/opt/cargo" \
  --volume "$ca_bundle:/etc/ssl/certs/ca-certificates.crt:ro" \
  --env RUSTUP_HOME=/opt/rustup --env CARGO_HOME=/opt/cargo \
  --env PATH=/opt/rustup-bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env GLEANER_ADDR="127.0.0.1:$port" --env PORT="$port" \
  --env CARGO_TERM_PROGRESS_WHEN=never \
  "$base" bash -c "$inner" 2>&1 | tee "$work/report.txt"
status=${PIPESTATUS[0]}
set -e
cp "$work/src/target-demo.log" "$work/demo.log" 2>/dev/null || true
cp "$work/src/target-tls.log" "$work/tls.log" 2>/dev/null || true
# The clone and its cold target take gigabytes; the logs above are what stays.
rm -rf "$work/src" "$work/cargo-home"
echo "fresh-check: the container ran $(( $(date +%s) - started )) s in all; log in target/fresh/demo.log" | tee -a "$work/report.txt"
exit "$status"
