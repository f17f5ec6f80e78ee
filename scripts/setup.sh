#!/usr/bin/env bash
# Installs everything jdwpx needs on Debian 12 (bookworm). Idempotent: apt is
# skipped when every package is already installed. Run as root or via sudo.
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ clang libclang-rt-14-dev
  libasio-dev libspdlog-dev libfmt-dev libexpected-dev libprotobuf-dev protobuf-compiler
  googletest libgtest-dev libgmock-dev
  openjdk-17-jdk-headless libeclipse-jdt-debug-java libeclipse-osgi-java
  python3 git
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  if [[ "$status" != "install ok installed" ]]; then
    missing+=("$pkg")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#PACKAGES[@]} packages already installed"
  exit 0
fi

if [[ $(id -u) -eq 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null; then
  as_root=(sudo)
else
  echo "setup: missing packages (${missing[*]}) and not root; rerun as root" >&2
  exit 1
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update
"${as_root[@]}" apt-get install -y --no-install-recommends "${missing[@]}"
