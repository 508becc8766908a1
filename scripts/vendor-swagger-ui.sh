#!/usr/bin/env bash
# Vendors Swagger UI (the npm package swagger-ui-dist) into host/assets/docs/swagger-ui,
# where host/src/api/docs.rs embeds it in the server binary for GET /docs.
#
#   scripts/vendor-swagger-ui.sh            # the version in host/assets/docs/swagger-ui/VERSION
#   scripts/vendor-swagger-ui.sh 5.36.0     # another version (then run the docs tests
#                                           # and `make test-browser`)
#
# The files are copied unchanged from the package, with its licence and notice,
# and SHA256SUMS records them, so `--check` can prove the copy is the package's.
set -euo pipefail
cd "$(dirname "$0")/.."

DEST=host/assets/docs/swagger-ui
FILES=(swagger-ui-bundle.js swagger-ui.css favicon-32x32.png LICENSE NOTICE)

if [[ "${1:-}" == "--check" ]]; then
    (cd "$DEST" && sha256sum --quiet -c SHA256SUMS) && echo "swagger-ui $(cat "$DEST/VERSION"): files match SHA256SUMS"
    exit
fi

VERSION="${1:-$(cat "$DEST/VERSION")}"
command -v npm >/dev/null || { echo "npm is needed to fetch swagger-ui-dist from the npm registry" >&2; exit 2; }
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

(cd "$WORK" && npm pack --silent "swagger-ui-dist@$VERSION" >/dev/null)
tar -xzf "$WORK"/swagger-ui-dist-*.tgz -C "$WORK"
mkdir -p "$DEST"
for f in "${FILES[@]}"; do
    test -f "$WORK/package/$f" || { echo "swagger-ui-dist@$VERSION has no $f; update FILES and docs.rs" >&2; exit 1; }
    cp "$WORK/package/$f" "$DEST/$f"
done
echo "$VERSION" > "$DEST/VERSION"
(cd "$DEST" && sha256sum "${FILES[@]}" > SHA256SUMS)
echo "vendored swagger-ui-dist@$VERSION into $DEST:"
(cd "$DEST" && du -b "${FILES[@]}")
