#!/usr/bin/env bash
# Fetches the translated package descriptions of Debian 12 (bookworm, main)
# from Debian's archive (the Debian Description Translation Project) into
# $1 (default target/langid/ddtp), with an apt state of its own, so the
# system's apt lists are left as they are.
set -euo pipefail
dir=${1:-target/langid/ddtp}
mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/txt"
languages="en,de,fr,es,it,pt,pt_BR,nl,ja,zh_CN,ru,pl,sv,tr,ko"
cat > "$dir/sources.list" <<LIST
deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian bookworm main
LIST
apt-get update -qq \
  -o Dir::Etc::SourceList="$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null \
  -o Dir::State::Lists="$dir/lists" -o Dir::Cache="$dir/cache" \
  -o Acquire::Languages="$languages"
for f in "$dir"/lists/*_dists_bookworm_main_i18n_Translation-*; do
  name=$(basename "$f"); name=${name##*Translation-}; name=${name%%.*}; name=${name//%5f/_}
  /usr/lib/apt/apt-helper cat-file "$f" > "$dir/txt/Translation-$name"
done
ls "$dir/txt"
