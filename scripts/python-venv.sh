#!/usr/bin/env bash
# Usage: scripts/python-venv.sh VENV REQUIREMENTS MODULE
# Makes the virtual environment VENV hold exactly the pinned REQUIREMENTS
# (from PyPI), rebuilding it when they change or when MODULE, what the tests
# load from it, does not import. Prints nothing when it is ready already.
set -euo pipefail
venv="$1" requirements="$2" module="$3"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [[ "$(cat "$stamp" 2>/dev/null)" == "$want" ]] && "$venv/bin/python3" -c "import $module" 2>/dev/null; then
    exit 0
fi
command -v python3 >/dev/null || { echo "python3 is missing: apt-get install -y python3 python3-venv" >&2; exit 2; }
echo "installing $requirements into $venv"
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
"$venv/bin/python3" -c "import $module" || { echo "$module does not import from $venv after the install" >&2; exit 1; }
echo "$want" > "$stamp"
