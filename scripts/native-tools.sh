#!/usr/bin/env bash
# Checks for the native tools the server's build loads, and installs the
# missing ones from Debian's archive.
#
#   scripts/native-tools.sh            check, then install what is missing
#   scripts/native-tools.sh --check    only print the missing Debian packages
#
# Each check looks for what the build step really uses, not for a package:
# - cmake: BoringSSL's build (btls-sys) runs the `cmake` command;
# - a C++ compiler: cmake and the cc crate compile BoringSSL's C++ with
#   $CXX, else `c++` (g++ or clang++ provide it);
# - git: btls-sys runs `git init` and `git apply` on BoringSSL's sources to
#   patch them;
# - libclang: bindgen (btls-sys's bindings) loads the C library libclang at
#   run time through clang-sys, which looks in $LIBCLANG_PATH, in
#   `llvm-config --prefix`, then in /usr/local/llvm*/lib*, /usr/local/lib*
#   and /usr/lib* (two levels down) for `libclang.so`, `libclang-*.so`,
#   `libclang.so.*` or `libclang-*.so.*`, and never takes `libclang-cpp`,
#   the C++ API that Debian's base images often ship on their own.
set -euo pipefail

check_only=false
[[ ${1:-} == --check ]] && check_only=true

# True when directory $1 holds a file that clang-sys would load: a regular
# file, or a link to one (a dangling link or a device is no library).
libclang_in() {
  local dir=$1 f name
  [[ -d $dir ]] || return 1
  for f in "$dir"/libclang.so "$dir"/libclang-*.so "$dir"/libclang.so.* "$dir"/libclang-*.so.*; do
    name=${f##*/}
    [[ $name == *-cpp.* ]] && continue
    [[ -f $f ]] && return 0
  done
  return 1
}

has_libclang() {
  local dir
  if [[ -n ${LIBCLANG_PATH:-} ]]; then
    if [[ -f $LIBCLANG_PATH ]]; then return 0; fi
    libclang_in "$LIBCLANG_PATH" && return 0
  fi
  if command -v "${LLVM_CONFIG_PATH:-llvm-config}" >/dev/null 2>&1; then
    local prefix
    prefix=$("${LLVM_CONFIG_PATH:-llvm-config}" --prefix 2>/dev/null || true)
    for dir in "$prefix/bin" "$prefix/lib" "$prefix/lib64"; do
      libclang_in "$dir" && return 0
    done
  fi
  shopt -s nullglob
  for dir in /usr/local/llvm*/lib* /usr/local/lib*/*/* /usr/local/lib*/* /usr/local/lib* \
    /usr/lib*/*/* /usr/lib*/* /usr/lib*; do
    libclang_in "$dir" && { shopt -u nullglob; return 0; }
  done
  shopt -u nullglob
  return 1
}

has_cxx() {
  if [[ -n ${CXX:-} ]]; then command -v "${CXX%% *}" >/dev/null 2>&1; return; fi
  command -v c++ >/dev/null 2>&1
}

need=()
command -v cmake >/dev/null 2>&1 || need+=(cmake)
has_cxx || need+=(g++)
command -v git >/dev/null 2>&1 || need+=(git)
has_libclang || need+=(libclang-dev)

if $check_only; then
  echo "${need[*]}"
  exit 0
fi
[[ ${#need[@]} -eq 0 ]] && exit 0

echo "native tools: installing ${need[*]} (Debian's packages) to build BoringSSL and its bindings"
sudo=()
[[ $(id -u) -eq 0 ]] || sudo=(sudo)
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
left=$("$0" --check)
if [[ -n $left ]]; then
  echo "native tools: still missing after the install: $left; install them by hand, or set LIBCLANG_PATH to the folder holding libclang.so" >&2
  exit 1
fi
