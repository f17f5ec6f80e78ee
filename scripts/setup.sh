#!/usr/bin/env bash
# Installs everything jdwpx needs on Debian 12 (bookworm). Idempotent: apt is
# skipped when every package is already installed. Run as root or via sudo.
set -euo pipefail

# dpkg-dev (dpkg-shlibdeps) and file make the Debian package (cmake/package.cmake).
PACKAGES=(
  cmake ninja-build g++ clang libclang-rt-14-dev
  libasio-dev libspdlog-dev libfmt-dev libexpected-dev libprotobuf-dev protobuf-compiler libcli11-dev
  googletest libgtest-dev libgmock-dev
  openjdk-17-jdk-headless libeclipse-jdt-debug-java libeclipse-osgi-java
  python3 git
  dpkg-dev file
)
# The container tests (integration/containers/): rootful podman with runc (crun refuses
# a mixed cgroup v1/v2 host), netavark and aardvark-dns (containers find each other by
# name), and debootstrap for the base image and the Debian 11 root. The Dockerfile's
# build stage needs none of them (JDWPX_SETUP_NO_CONTAINERS=1), nor lintian, which
# checks the Debian package (integration.package).
if [[ "${JDWPX_SETUP_NO_CONTAINERS:-}" != 1 ]]; then
  PACKAGES+=(podman runc netavark aardvark-dns iptables debootstrap lintian)
fi
# The agent is built against bullseye's glibc 2.31 (cmake/glibc_floor.cmake): its
# sysroot is unpacked from bullseye's packages by make-sysroot.sh, below.
SYSROOT=/opt/jdwpx-sysroot/bullseye
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)) && [[ -f "$SYSROOT/.jdwpx-sysroot" ]]; then
  echo "setup: all ${#PACKAGES[@]} packages already installed, sysroot in $SYSROOT"
  exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null; then
  as_root=(sudo)
else
  echo "setup: missing packages (${missing[*]}) or sysroot ($SYSROOT) and not root; rerun as root" >&2
  exit 1
fi

if ((${#missing[@]} > 0)); then
  echo "setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update
  "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi
"${as_root[@]}" "$here/make-sysroot.sh" "$SYSROOT"
