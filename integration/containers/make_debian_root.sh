#!/usr/bin/env bash
# Makes (or reuses) a Debian root with the release's own OpenJDK 17: bullseye (Debian 11)
# for test_bullseye.py and test_install_into_jdk.py, bookworm (Debian 12) for
# test_user_story.py. `debootstrap --variant=minbase <suite>`, then apt-get in a chroot
# (with a /proc of its own, in a private mount namespace: nothing stays mounted).
#
#   integration/containers/make_debian_root.sh <suite> <dir>
#
# Exit status 3: debootstrap or Debian's archive is not available here (the test skips).
set -euo pipefail

[[ $# -eq 2 && ( $1 == bullseye || $1 == bookworm ) ]] || { echo "usage: $0 bullseye|bookworm <dir>" >&2; exit 2; }
suite=$1 root=$2
stamp="$root/.jdwpx-$suite-jdk"
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
if ! debootstrap --variant=minbase "$suite" "$staging" "$mirror" > "$log" 2>&1; then
  tail -n 5 "$log" >&2
  rm -rf "$staging"
  if grep -qiE "Failed getting release file|Couldn't download|resolve|unreachable" "$log"; then exit 3; fi
  exit 1
fi
# bullseye's openjdk-17 came after its release: it is in the security and updates suites
# (and bookworm's newest is there too).
cat > "$staging/etc/apt/sources.list" <<SOURCES
deb $mirror $suite main
deb $mirror $suite-updates main
deb ${mirror%/debian}/debian-security $suite-security main
SOURCES
unshare --mount --fork -- sh -c '
  set -e
  mount -t proc proc "$1/proc"
  chroot "$1" apt-get update -q
  DEBIAN_FRONTEND=noninteractive chroot "$1" apt-get install -y -q --no-install-recommends openjdk-17-jdk-headless
  chroot "$1" apt-get clean
' sh "$staging" >> "$log" 2>&1 || { tail -n 20 "$log" >&2; rm -rf "$staging"; exit 1; }
touch "$staging/.jdwpx-$suite-jdk"
rm -rf "$root"
mv "$staging" "$root"
