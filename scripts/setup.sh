#!/usr/bin/env bash
# Installs what jdwpx needs on Debian 12 (bookworm), by profile:
#
#   scripts/setup.sh [demo|test|containers]...     (no profile: test)
#
#   demo        what scripts/demo.sh needs: the build dependencies (compiler, CMake,
#               libraries, OpenJDK 17 with javac and jdb, python3). Nothing else.
#   test        what scripts/test.sh needs: demo, plus Eclipse's JDI jars, clang for
#               the fuzzer, git, the Debian package's tools (dpkg-dev, file, lintian),
#               the glibc 2.31 sysroot in /opt (make-sysroot.sh), and containers.
#   containers  the container tests (integration/containers/): podman and its helpers.
#
# Idempotent: apt runs only when a package is missing, and an existing sysroot is kept.
# Run as root, or as a user who may use sudo (the script then uses it).
# JDWPX_SETUP_NO_CONTAINERS=1 leaves containers and lintian out of test (the Dockerfile's
# build stage runs it so).
set -euo pipefail

# The build dependencies: configuring and building every target needs these, and the
# demo needs nothing more. New build dependencies go here.
BUILD_PACKAGES=(
  cmake ninja-build g++
  libasio-dev libspdlog-dev libfmt-dev libexpected-dev libprotobuf-dev protobuf-compiler nlohmann-json3-dev libcli11-dev
  googletest libgtest-dev libgmock-dev
  openjdk-17-jdk-headless
  python3
)
# The tests' extras: clang and its runtime build the decoder fuzzer; Eclipse's JDI is
# the second JDI the integration tests drive; git names the version and the package's
# date; dpkg-dev (dpkg-shlibdeps) and file make the Debian package (cmake/package.cmake).
TEST_PACKAGES=(
  clang libclang-rt-14-dev
  libeclipse-jdt-debug-java libeclipse-osgi-java
  git
  dpkg-dev file
)
# lintian checks the Debian package (integration.package).
PACKAGE_CHECK_PACKAGES=(lintian)
# The container tests: rootful podman with runc (crun refuses a mixed cgroup v1/v2 host),
# netavark and aardvark-dns (containers find each other by name), and debootstrap for
# the base image and the Debian 11 root, and catatonit (the pause process of the pod
# that `podman kube play` makes, in an image podman builds locally). Installing podman
# also enables its systemd units.
CONTAINER_PACKAGES=(podman runc netavark aardvark-dns iptables catatonit debootstrap)

# The agent is built against bullseye's glibc 2.31 (cmake/glibc_floor.cmake): its
# sysroot is unpacked from bullseye's packages by make-sysroot.sh (test profile only;
# without it the demo's agent is linked against this machine's glibc).
SYSROOT=/opt/jdwpx-sysroot/bullseye
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

profiles=("$@")
((${#profiles[@]} > 0)) || profiles=(test)
packages=()
want_sysroot=0
for profile in "${profiles[@]}"; do
  case "$profile" in
    demo) packages+=("${BUILD_PACKAGES[@]}") ;;
    test)
      packages+=("${BUILD_PACKAGES[@]}" "${TEST_PACKAGES[@]}")
      want_sysroot=1
      if [[ "${JDWPX_SETUP_NO_CONTAINERS:-}" != 1 ]]; then
        packages+=("${PACKAGE_CHECK_PACKAGES[@]}" "${CONTAINER_PACKAGES[@]}")
      fi
      ;;
    containers) packages+=("${CONTAINER_PACKAGES[@]}") ;;
    *) echo "setup: unknown profile '$profile' (demo, test or containers)" >&2; exit 2 ;;
  esac
done
mapfile -t packages < <(printf '%s\n' "${packages[@]}" | sort -u)

missing=()
for pkg in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done
need_sysroot=0
if ((want_sysroot)) && [[ ! -f "$SYSROOT/.jdwpx-sysroot" ]]; then
  need_sysroot=1
fi

if ((${#missing[@]} == 0 && need_sysroot == 0)); then
  sysroot_note=""
  ((want_sysroot)) && sysroot_note=", sysroot in $SYSROOT"
  echo "setup (${profiles[*]}): all ${#packages[@]} packages already installed$sysroot_note"
  exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null; then
  as_root=(sudo)
else
  echo "setup: missing packages (${missing[*]:-none}) or sysroot ($SYSROOT) and not root; rerun as root" >&2
  exit 1
fi

if ((${#missing[@]} > 0)); then
  echo "setup (${profiles[*]}): installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update
  "${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
fi
if ((need_sysroot)); then
  "${as_root[@]}" "$here/make-sysroot.sh" "$SYSROOT"
fi
