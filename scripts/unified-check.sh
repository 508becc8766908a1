#!/usr/bin/env bash
# Fails when the host's builds ask for different features of a shared
# dependency: the lean server (`make demo`), the full one (`make run`) and the
# workspace's tests (`make test`) must resolve every crate they share alike, or
# cargo compiles that crate and everything above it (wasmtime, cranelift) once
# per build. Names each crate that drifted and the features each build wants;
# add the union to crates/unify/Cargo.toml, or to crates/unify-build/Cargo.toml
# for a crate of the proc macros' and build scripts' side. Resolves only
# (cargo tree): no compile.
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
resolved() {
  $CARGO tree "$@" --no-dedupe --prefix none --format '{p}|{f}' \
    | sed -e 's/ (\*)$//' -e 's/ (proc-macro)//' | grep -v '(/' | sort -u
}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
resolved -p gleaner -e normal,build > "$dir/run"
resolved -p gleaner -e normal,build --no-default-features > "$dir/demo"
resolved --workspace -e normal,build,dev > "$dir/test"
python3 - "$dir" <<'PY'
import sys
def load(path):
    found = {}
    for line in open(path):
        package, _, features = line.strip().partition("|")
        found.setdefault(package, set()).add(features or "(none)")
    return found
d = sys.argv[1]
run = load(f"{d}/run")
drift = []
for name in ("demo", "test"):
    other = load(f"{d}/{name}")
    for package in sorted(set(run) & set(other)):
        if run[package] != other[package]:
            drift.append(f"  {package}\n    make run:  {sorted(run[package])}\n    make {name}: {sorted(other[package])}")
if drift:
    print("these crates are resolved with different features in different builds, so each is compiled more than once;")
    print("add the union of their features to crates/unify/Cargo.toml (the server's side),")
    print("or to crates/unify-build/Cargo.toml (a crate of the proc macros and build scripts):")
    print("\n".join(drift))
    sys.exit(1)
print(f"one feature set per shared crate across make run, make demo and make test ({len(run)} crates)")
PY
