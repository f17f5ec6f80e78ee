#!/usr/bin/env bash
# Makes the Debian 11 (bullseye) sysroot that the shipped agent is built against:
# bullseye's glibc 2.31 headers and libraries, its kernel headers and its libgcc_s,
# unpacked from bullseye's packages (nothing else: the C++ headers and static
# libstdc++ stay the host's g++ 12, see cmake/glibc_floor.cmake). Building against it
# binds every glibc symbol at a version <= 2.31, so the library loads into Debian 11+,
# Ubuntu 20.04+, UBI 9 and Amazon Linux 2023 JDK images.
#
#   scripts/make-sysroot.sh <dir>     idempotent: an existing complete sysroot is kept
#
# Uses the machine's own apt (its mirror, its archive keyring) with a private
# state directory: the machine's package lists and installed packages are untouched.
set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 <dir>" >&2; exit 2; }
root=$1
stamp="$root/.jdwpx-sysroot"
packages=(libc6 libc6-dev linux-libc-dev libgcc-s1 libcrypt1 libcrypt-dev)
if [[ -f "$stamp" ]]; then
  echo "sysroot: $root is there ($(head -n1 "$stamp"))"
  exit 0
fi

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib/debian-mirror.sh"
mirror=$(debian_mirror)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/parts" "$work/debs"
echo "deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bullseye main" > "$work/sources.list"
: > "$work/status"
apt_opts=(-o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=$work/parts"
          -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o "Dir::State::Status=$work/status"
          -o "APT::Architecture=amd64" -o "APT::Architectures=amd64" -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root" -q)
apt-get "${apt_opts[@]}" update >/dev/null
(cd "$work/debs" && apt-get "${apt_opts[@]}" download "${packages[@]}" >/dev/null)

staging="$root.tmp.$$"
rm -rf "$staging"
mkdir -p "$staging"
for deb in "$work"/debs/*.deb; do
  dpkg-deb -x "$deb" "$staging"
done
# Absolute symlinks (libpthread.so -> /lib/x86_64-linux-gnu/libpthread.so.0) would
# point at the host's glibc: make them relative, inside the sysroot.
while IFS= read -r link; do
  target=$(readlink "$link")
  if [[ "$target" == /* ]]; then
    ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$staging$target")" "$link"
  fi
done < <(find "$staging" -type l)
# usrmerge-style paths ld and gcc look in (bullseye's libc6 puts libraries in /lib).
[[ -e "$staging/lib64" ]] || ln -s lib "$staging/lib64"
glibc=$(dpkg-deb -f "$work"/debs/libc6_*.deb Version)
printf 'bullseye glibc %s\n%s\n' "$glibc" "$(cd "$work/debs" && ls)" > "$staging/.jdwpx-sysroot"
rm -rf "$root"
mkdir -p "$(dirname "$root")"
mv "$staging" "$root"
echo "sysroot: made $root (bullseye glibc $glibc)"
