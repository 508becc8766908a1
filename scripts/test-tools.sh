#!/usr/bin/env bash
# Installs, from Debian's archive, each named tool that is missing. Each check
# looks for the program the tests run, where they look for it.
#
#   scripts/test-tools.sh TOOL...     e.g. chromium nats-server squid
set -euo pipefail

# The Debian package that provides TOOL.
package() {
  case $1 in
    chromium) echo chromium ;;
    nats-server) echo nats-server ;;
    squid) echo squid ;;
    microsocks) echo microsocks ;;
    openssl) echo openssl ;;
    podman) echo podman ;;
    mmdebstrap) echo mmdebstrap ;;
    runc) echo runc ;;
    docker) echo docker.io ;;
    *) echo "test-tools: no package known for $1" >&2; exit 2 ;;
  esac
}

# Whether TOOL is here: on the PATH, or in /usr/sbin (squid), or under the
# names the tests also accept (chromium-browser).
present() {
  command -v "$1" >/dev/null 2>&1 && return 0
  [[ -x /usr/sbin/$1 ]] && return 0
  [[ $1 == chromium ]] && command -v chromium-browser >/dev/null 2>&1 && return 0
  return 1
}

need=()
for tool in "$@"; do
  present "$tool" || need+=("$(package "$tool")")
done
[[ ${#need[@]} -eq 0 ]] && exit 0

echo "test tools: installing ${need[*]} (Debian's packages)"
sudo=()
[[ $(id -u) -eq 0 ]] || sudo=(sudo)
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
for tool in "$@"; do
  present "$tool" || { echo "test tools: $tool is still missing after installing ${need[*]}" >&2; exit 1; }
done
