#!/usr/bin/env bash
# The fresh-machine check: a clean clone of this repository's HEAD, in a new
# container of Debian bookworm that has nothing on it but a C compiler, make,
# curl and the C++ half of libclang (libclang-cpp14, which Debian's base
# images ship and which bindgen cannot use): whatever else the build needs,
# the Makefile must install. The container uses this machine's rustup
# toolchain (mounted read-only) with an empty cargo home of its own, so every
# crate comes from the registry, and this machine's CA bundle (read-only), so
# it trusts the network the way the machine does (a network that inspects TLS
# has its own root there).
#
#   scripts/fresh-check.sh            (make fresh-check)        the install path
#   scripts/fresh-check.sh --demo     (make fresh-check-demo)   the whole demo
#
# The install path (what CI runs): `make native-tools` for the lean server
# (it installs nothing), then `cargo check` of every crate in the lean
# server's tree whose build script compiles or finds native code (the direct
# dependents of cc, cmake, bindgen and pkg-config: SQLite, jemalloc, zstd,
# ring, wasmtime's fiber; not those that depend on another of them), with
# nothing installed; then `make native-tools`
# for the full server and a build of BoringSSL and its bindings (btls-sys:
# CMake, C++, bindgen, libclang). A missing or wrong install step fails here;
# what this mode skips is the pure Rust crates, which need no tool.
#
# --demo: `make demo` from the cold clone until the README's fetch returns
# reviews (a full release build; about half an hour on two cores), then the
# same BoringSSL step. Prints the time to the first reviews.
#
# Both print their times and write them, with the logs, to target/fresh/.
# Needs podman and mmdebstrap (`make fresh-check` installs them on Debian)
# and root.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=install
case "${1:-}" in
  "") ;;
  --demo) mode=demo ;;
  *) echo "usage: scripts/fresh-check.sh [--demo]" >&2; exit 2 ;;
esac
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

# The full server's extra step, shared by both modes: what make installs must
# be what BoringSSL's build (CMake, C++) and its bindings (bindgen, libclang)
# load.
tls_step=$(cat <<'TLS'
tls_start=$(date +%s)
if make native-tools >/src/target-tls.log 2>&1 &&
  cargo build --release -p btls-sys >>/src/target-tls.log 2>&1; then
  echo "fresh-check: make native-tools, then BoringSSL and its bindings (btls-sys) built in $(( $(date +%s) - tls_start )) s"
  exit 0
fi
echo "fresh-check: BoringSSL (btls-sys) did not build after make native-tools; the log's end:" >&2
tail -n 40 /src/target-tls.log >&2
exit 1
TLS
)

# The install path: the lean server's build scripts with nothing installed.
install_inner=$(cat <<'INNER'
set -uo pipefail
start=$(date +%s)
cd /src
packages=()
for p in $NATIVE_CRATES; do packages+=(-p "$p"); done
if make native-tools HOST_FEATURES=--no-default-features >/src/target-demo.log 2>&1 &&
  cargo check --release "${packages[@]}" >>/src/target-demo.log 2>&1; then
  echo "fresh-check: the lean server's native build scripts ($NATIVE_CRATES) ran in $(( $(date +%s) - start )) s, with nothing installed"
else
  echo "fresh-check: the lean server did not build with nothing installed; its log's end:" >&2
  tail -n 40 /src/target-demo.log >&2
  exit 1
fi
INNER
)

# The demo: `make demo` in the background (it builds, then serves); the probe
# asks the README's fetch until reviews come back, then prints the seconds.
demo_inner=$(cat <<'INNER'
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
    break
  fi
  sleep 2
done
if [[ ${answer:-} != *'"all_reviews":[{'* ]]; then
  echo "fresh-check: make demo ended without serving reviews; its log's end:" >&2
  tail -n 40 /src/target-demo.log >&2
  exit 1
fi
INNER
)

# The container runs at this script's priority. Its processes sit in a cgroup
# of their own, which competes with the caller's processes as an equal
# whatever their nice values; so a niced check (`nice -n 19 make
# fresh-check`, as CI runs it) puts its container in a cgroup marked idle
# (cpu.idle), made beside the others when missing, which gets only the CPU
# nothing else wants.
niceness=$(nice)
cgroup_args=()
if (( niceness > 0 )); then
  for idle in /sys/fs/cgroup/cpu/gleaner-idle /sys/fs/cgroup/gleaner-idle; do
    [[ -d ${idle%/*} ]] || continue
    if [[ $idle == /sys/fs/cgroup/gleaner-idle ]]; then
      [[ $(stat -fc %T /sys/fs/cgroup) == cgroup2fs ]] || continue
    fi
    if mkdir -p "$idle" 2>/dev/null && echo 1 >"$idle/cpu.idle" 2>/dev/null; then
      cgroup_args=(--cgroup-parent=/gleaner-idle)
      break
    fi
  done
  (( ${#cgroup_args[@]} )) ||
    echo "fresh-check: no idle cgroup could be made here; the container competes for CPU as an equal" >&2
fi
if [[ $mode == demo ]]; then
  inner="$demo_inner
$tls_step"
  echo "fresh-check: building and serving the demo in a clean container (cold build; this takes minutes)"
else
  inner="$install_inner
$tls_step"
  echo "fresh-check: the install path in a clean container (build scripts of the lean server, then BoringSSL; this takes minutes)"
fi
# The crates whose build scripts compile or look for native code: the direct
# dependents of the build tools' crates in the lean server's tree (features as
# the server resolves them: `cargo check -p` of a dependency in this workspace
# unifies its features the same way). Of the dependents of one tool, a crate
# that depends on another of them is left out: the other's build step already
# runs that tool on this machine, and checking the crate would check its whole
# tree (wasmtime, beside its fiber crate: Cranelift and wasmtime's macros, 310
# of the 670 CPU-seconds this step took on two cores). `make fresh-check-demo`
# builds everything.
tree() {
  cargo tree --offline -p gleaner --no-default-features -e normal,build --prefix none -f '{p}' "$@" 2>/dev/null |
    awk '{print $1 "@" substr($2, 2)}' | sort -u
}
native_crates=$(for tool in cc cmake bindgen pkg-config; do
  dependents=$(tree -i "$tool" --depth 1 | grep -vE "^$tool@" || true)
  # Every crate that depends on one of them, apart from that one itself.
  covered=$(for other in $dependents; do tree -i "$other" | grep -vxF "$other"; done)
  for crate in $dependents; do
    grep -qxF "$crate" <<<"$covered" || echo "$crate"
  done
done | sort -u | tr '\n' ' ')
[[ -n $native_crates ]] || {
  echo "fresh-check: cargo tree found no crate with a native build step; run cargo fetch first" >&2
  exit 1
}
started=$(date +%s)
set +e
podman run --rm --name "$name" --network host "${cgroup_args[@]}" \
  --volume "$work/src:/src" \
  --volume "$rustup_home:/opt/rustup:ro" \
  --volume "$cargo_bin:/opt/rustup-bin:ro" \
  --volume "$work/cargo-home:/opt/cargo" \
  --volume "$ca_bundle:/etc/ssl/certs/ca-certificates.crt:ro" \
  --env RUSTUP_HOME=/opt/rustup --env CARGO_HOME=/opt/cargo \
  --env PATH=/opt/rustup-bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env GLEANER_ADDR="127.0.0.1:$port" --env PORT="$port" \
  --env CARGO_TERM_PROGRESS_WHEN=never --env NATIVE_CRATES="$native_crates" \
  "$base" bash -c "$inner" 2>&1 | tee "$work/report.txt"
status=${PIPESTATUS[0]}
set -e
cp "$work/src/target-demo.log" "$work/demo.log" 2>/dev/null || true
cp "$work/src/target-tls.log" "$work/tls.log" 2>/dev/null || true
# The clone and its cold target take gigabytes; the logs above are what stays.
rm -rf "$work/src" "$work/cargo-home"
echo "fresh-check: the container ran $(( $(date +%s) - started )) s in all; log in target/fresh/demo.log" | tee -a "$work/report.txt"
exit "$status"
