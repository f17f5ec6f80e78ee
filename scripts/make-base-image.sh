#!/usr/bin/env bash
# Makes the base image the Dockerfile starts FROM, docker.io/library/debian:bookworm-slim,
# from Debian's packages, for machines that reach Debian's archive but no container
# registry: `debootstrap --variant=minbase bookworm`, then `podman import`. Nothing is
# done when podman already has the image.
#
#   scripts/make-base-image.sh [<root-cache-dir>]
#
# <root-cache-dir> keeps the bookworm root's tarball, so that a removed image is made
# again without a download. podman reads CONTAINERS_CONF as usual.
set -euo pipefail

image=docker.io/library/debian:bookworm-slim
if podman image exists "$image"; then
  echo "base image: $image is there"
  exit 0
fi
cache=${1:-$(mktemp -d)}
mkdir -p "$cache"
tarball="$cache/bookworm-minbase.tar"
if [[ ! -f "$tarball" ]]; then
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  source "$here/lib/debian-mirror.sh"
  root="$cache/bookworm-root.$$"
  rm -rf "$root"
  debootstrap --variant=minbase bookworm "$root" "$(debian_mirror)" > "$cache/debootstrap.log" 2>&1 ||
    { tail -n 20 "$cache/debootstrap.log" >&2; rm -rf "$root"; exit 1; }
  # What the official slim image also leaves out: apt's lists and caches.
  rm -rf "$root"/var/lib/apt/lists/* "$root"/var/cache/apt/*.bin "$root"/var/cache/apt/archives/*.deb
  tar -C "$root" --numeric-owner -cf "$tarball.tmp" .
  mv "$tarball.tmp" "$tarball"
  rm -rf "$root"
fi
podman import --change 'CMD ["bash"]' "$tarball" "$image" > /dev/null
echo "base image: made $image from Debian's packages (debootstrap --variant=minbase bookworm)"
