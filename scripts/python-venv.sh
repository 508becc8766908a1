#!/usr/bin/env bash
# Usage: scripts/python-venv.sh NAME REQUIREMENTS MODULE
#        scripts/python-venv.sh --dir NAME
# Makes the virtual environment NAME hold exactly the pinned REQUIREMENTS
# (from PyPI), rebuilding it when they change or when MODULE, what the tests
# load from it, does not import. Prints nothing when it is ready already.
# `--dir NAME` prints where NAME lives.
#
# The environments live outside any checkout, in $GLEANER_VENV_HOME (default
# ~/.cache/gleaner/venvs), like the tools the Makefile installs with apt: a new
# clone reuses what an earlier one installed, and the checks above still decide
# whether it is what the tests load.
set -euo pipefail
home="${GLEANER_VENV_HOME:-${XDG_CACHE_HOME:-$HOME/.cache}/gleaner/venvs}"
if [[ "${1:-}" == --dir ]]; then
    echo "$home/$2"
    exit 0
fi
[[ $# -eq 3 ]] || { echo "usage: scripts/python-venv.sh NAME REQUIREMENTS MODULE | --dir NAME" >&2; exit 2; }
venv="$home/$1" requirements="$2" module="$3"
stamp="$venv/.requirements.sha256"
want="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [[ "$(cat "$stamp" 2>/dev/null)" == "$want" ]] && "$venv/bin/python3" -c "import $module" 2>/dev/null; then
    exit 0
fi
command -v python3 >/dev/null || { echo "python3 is missing: apt-get install -y python3 python3-venv" >&2; exit 2; }
echo "installing $requirements into $venv"
rm -rf "$venv"
mkdir -p "$home"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
"$venv/bin/python3" -c "import $module" || { echo "$module does not import from $venv after the install" >&2; exit 1; }
echo "$want" > "$stamp"
