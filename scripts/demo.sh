#!/usr/bin/env bash
# Builds jdwpx and debugs a sample program with jdb through it:
# java -agentpath:build/backend/libjdwpx.so=transport=dt_socket,server=y,address=0,suspend=y JdbFixture
# Usage: scripts/demo.sh [--stock]   (--stock: the same session with the JDK's own agent)
# Installs only what it needs first (scripts/setup.sh demo): as root, or with sudo.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$repo/build"
jdk=/usr/lib/jvm/java-17-openjdk-amd64
agent=ours
[[ "${1:-}" == "--stock" ]] && agent=stock

"$repo/scripts/setup.sh" demo
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --parallel 2 --target jdwpx integration_fixtures

exec python3 "$repo/integration/demo_jdb.py" --agent "$agent" \
  --agent-lib "$build/backend/libjdwpx.so" --jdk "$jdk" \
  --classes "$build/integration/classes" --build-dir "$build"
