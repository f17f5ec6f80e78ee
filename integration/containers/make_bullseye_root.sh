#!/usr/bin/env bash
# Makes (or reuses) a Debian 11 (bullseye) root with bullseye's own OpenJDK 17, for
# test_bullseye.py: `debootstrap --variant=minbase bullseye`, then apt-get in a chroot
# (with a /proc of its own, in a private mount namespace: nothing stays mounted).
#
#   integration/containers/make_bullseye_root.sh <dir>
#
# Exit status 3: debootstrap or Debian's archive is not available here (the test skips).
set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 <dir>" >&2; exit 2; }
root=$1
stamp="$root/.jdwpx-bullseye-jdk"
if [[ -f "$stamp" ]]; then
  exit 0
fi
command -v debootstrap >/dev/null || { echo "debootstrap is not installed (scripts/setup.sh installs it)" >&2; exit 3; }
repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$repo/scripts/lib/debian-mirror.sh"
mirror=$(debian_mirror) || exit 3
staging="$root.tmp"
rm -rf "$staging"
log="$root.log"
if ! debootstrap --variant=minbase bullseye "$staging" "$mirror" > "$log" 2>&1; then
  tail -n 5 "$log" >&2
  rm -rf "$staging"
  if grep -qiE "Failed getting release file|Couldn't download|resolve|unreachable" "$log"; then exit 3; fi
  exit 1
fi
# bullseye's openjdk-17 came after its release: it is in the security and updates suites.
cat > "$staging/etc/apt/sources.list" <<SOURCES
deb $mirror bullseye main
deb $mirror bullseye-updates main
deb ${mirror%/debian}/debian-security bullseye-security main
SOURCES
unshare --mount --fork -- sh -c '
  set -e
  mount -t proc proc "$1/proc"
  chroot "$1" apt-get update -q
  DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get install -y -q --no-install-recommends openjdk-17-jdk-headless
  chroot "$1" apt-get clean
' sh "$staging" >> "$log" 2>&1 || { tail -n 20 "$log" >&2; rm -rf "$staging"; exit 1; }
touch "$staging/.jdwpx-bullseye-jdk"
rm -rf "$root"
mv "$staging" "$root"
