#!/usr/bin/env bash
# Creates plugins/NAME from the template of KIND (source or processor).
# Usage: plugins/templates/new-plugin.sh NAME KIND
set -euo pipefail
name=${1:-}; kind=${2:-}
here=$(cd "$(dirname "$0")" && pwd)
if [[ ! "$name" =~ ^[a-z][a-z0-9-]*$ ]]; then
  echo "NAME must be lower-case letters, digits and '-', starting with a letter (got '$name')" >&2; exit 2
fi
if [[ "$kind" != source && "$kind" != processor ]]; then
  echo "KIND must be source or processor (got '$kind')" >&2; exit 2
fi
dest="$here/../$name"
if [[ -e "$dest" ]]; then echo "plugins/$name already exists" >&2; exit 2; fi
cp -r "$here/$kind" "$dest"
find "$dest" -type f -exec sed -i "s/__NAME__/$name/g" {} +
echo "created plugins/$name ($kind):"
echo "  manifest.toml       name, route, allowlist, request fields"
echo "  src/lib.rs          the plugin"
echo "  tests/replay.toml   replay test cases (tests/*.har answers the upstream requests)"
echo "next: make plugins && make test-plugin NAME=$name"
