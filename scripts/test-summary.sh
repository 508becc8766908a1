#!/usr/bin/env bash
# Adds up cargo test's `test result:` lines in LOG into one line:
# `N passed, N failed, N ignored`. Exits non-zero when a test failed or when
# no test ran at all.
#
#   scripts/test-summary.sh LOG
set -euo pipefail
awk '/^test result:/ {p+=$4; f+=$6; i+=$8; n++}
  END {
    printf "%d passed, %d failed, %d ignored\n", p, f, i
    if (n == 0 || p == 0) { print "no test ran" > "/dev/stderr"; exit 1 }
    if (f > 0) exit 1
  }' "$1"
