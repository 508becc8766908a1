#!/usr/bin/env bash
# Builds the container image without a Docker daemon or a registry: the base
# (Debian bookworm, what the Dockerfile's debian:bookworm-slim is) assembled
# by mmdebstrap from Debian's archive, and the image built by podman (buildah)
# from the same Dockerfile, its builder stage replaced by the server and
# plugins this machine built (target/release/gleaner, target/plugins, as
# `make plugins` stages them). Prints the image's size.
#
#   deploy/image/build-local.sh [IMAGE]      (default gleaner:latest)
#
# Needs podman and mmdebstrap (`make image-local` installs them on Debian).
set -euo pipefail
cd "$(dirname "$0")/../.."
image=${1:-gleaner:latest}
base=localhost/gleaner-base:bookworm-libstdcxx
work=target/image
mkdir -p "$work"

for tool in podman mmdebstrap; do
  command -v "$tool" >/dev/null || {
    echo "$tool is missing: install it (Debian: apt-get install podman mmdebstrap), or run make image-local" >&2
    exit 1
  }
done
[[ -x target/release/gleaner && -d target/plugins ]] || {
  echo "target/release/gleaner or target/plugins is missing: run make plugins first" >&2
  exit 1
}

# In a container without systemd (CI, a sandbox): no default ulimits to raise,
# cgroups by the file system. See deploy/image/containers.conf.
export CONTAINERS_CONF=${CONTAINERS_CONF:-$PWD/deploy/image/containers.conf}

if ! podman image exists "$base"; then
  echo "image: assembling the Debian bookworm base with mmdebstrap"
  # essential + passwd (the Dockerfile adds a user) + libstdc++6 (BoringSSL,
  # which browser requests go out with, is C++), without documentation.
  mmdebstrap --quiet --variant=essential --include=passwd,libstdc++6 \
    --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/man/*' \
    --dpkgopt='path-exclude=/usr/share/info/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' \
    bookworm "$work/base.tar" http://deb.debian.org/debian
  podman import --quiet "$work/base.tar" "$base" >/dev/null
  rm -f "$work/base.tar"
fi

# The build context: what the prebuilt stage and the runtime stage copy.
context=$(mktemp -d "$work/context.XXXXXX")
trap 'rm -rf "$context"' EXIT
cp target/release/gleaner "$context/gleaner"
cp -r target/plugins "$context/plugins"
mkdir -p "$context/deploy"
cp deploy/healthcheck.sh "$context/deploy/healthcheck.sh"

echo "image: building $image with podman"
podman build --quiet --isolation=chroot --format docker \
  --build-arg BASE="$base" --build-arg ARTIFACTS=prebuilt \
  --file Dockerfile --tag "$image" "$context" >/dev/null
# Each build leaves untagged images behind: the builder stage's layers and the
# image the tag named before. Removing untagged images keeps repeated builds
# from filling the disk (a full disk fails the build half-way through). Set
# GLEANER_IMAGE_KEEP_UNTAGGED=1 to keep them, as a layer cache.
if [[ -z ${GLEANER_IMAGE_KEEP_UNTAGGED:-} ]]; then
  podman image prune --force >/dev/null
fi
size=$(podman image inspect --format '{{.Size}}' "$image")
echo "image: $image built, $((size / 1024 / 1024)) MiB ($size bytes)"
