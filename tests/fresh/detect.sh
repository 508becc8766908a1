#!/usr/bin/env bash
# The native-tools detection on a simulated fresh machine. In a private mount
# namespace (run it under `unshare --mount`), every folder llvm installs its
# libraries in holds only `libclang-cpp.so.14` (the C++ API Debian's base
# images ship, which bindgen cannot load), `cmake` is hidden, and `apt-get` is
# a shim that records what it is asked. Then `make native-tools` runs, and
# the packages it asked for are printed, one line per apt-get call.
#
#   unshare --mount --propagation private tests/fresh/detect.sh SCENARIO
#
# SCENARIO: `bare` (no cmake, only libclang-cpp), `complete` (nothing hidden:
# the machine's own state, which must have every tool), or `no-cmake`
# (libclang present, cmake hidden).
set -euo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
scenario=${1:?usage: detect.sh bare|complete|no-cmake}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# cmake disappears from PATH: the commands run with a PATH of one folder of
# links to every command on the real PATH but cmake.
hide_cmake() {
  local d f
  mkdir -p "$work/path"
  IFS=: read -ra dirs <<<"$PATH"
  for d in "${dirs[@]}"; do
    for f in "$d"/*; do
      [[ ${f##*/} == cmake || -e $work/path/${f##*/} ]] && continue
      ln -s "$f" "$work/path/${f##*/}"
    done
  done
  PATH="$work/path"
}

# Every libclang clang-sys could load disappears: each llvm lib folder is
# replaced by one holding only libclang-cpp (links into it dangle then), and a
# real libclang file anywhere else is covered by /dev/null, which no loader
# takes for a library.
only_libclang_cpp() {
  local d f
  shopt -s nullglob
  for d in /usr/lib/llvm-*/lib; do
    mount -t tmpfs tmpfs "$d"
    : >"$d/libclang-cpp.so.14"
  done
  for d in /usr/local/llvm*/lib* /usr/local/lib*/*/* /usr/local/lib*/* /usr/local/lib* \
    /usr/lib*/*/* /usr/lib*/* /usr/lib*; do
    [[ -d $d ]] || continue
    for f in "$d"/libclang.so "$d"/libclang-*.so "$d"/libclang.so.* "$d"/libclang-*.so.*; do
      [[ ${f##*/} == *-cpp.* ]] && continue
      [[ -f $f && ! -L $f ]] && mount --bind /dev/null "$f"
    done
  done
  shopt -u nullglob
}

mkdir -p "$work/bin"
cat >"$work/bin/apt-get" <<SHIM
#!/bin/sh
echo "\$*" >>"$work/apt-get.log"
SHIM
chmod +x "$work/bin/apt-get"
: >"$work/apt-get.log"

case $scenario in
  bare) hide_cmake; only_libclang_cpp ;;
  no-cmake) hide_cmake ;;
  complete) ;;
  *) echo "detect.sh: unknown scenario $scenario" >&2; exit 2 ;;
esac

unset LIBCLANG_PATH LLVM_CONFIG_PATH
# The Makefile's own recipe, with apt-get being the shim; a failure after the
# shim "installed" is expected (nothing was really installed).
PATH="$work/bin:$PATH" make -s -C "$repo" native-tools >"$work/make.log" 2>&1 || true
grep -E '(^| )install ' "$work/apt-get.log" | sed -E 's/.*install( -[^ ]+)* //' || true
