#!/usr/bin/env bash
# The project's one test command: install dependencies (scripts/setup.sh test), build,
# run every test.
# Usage: scripts/test.sh [extra ctest arguments, e.g. -R integration.jdb]
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build="$repo/build"

"$repo/scripts/setup.sh" test

cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" --parallel 2

cd "$build"
# Two cores: two tests at a time; the integration tests mostly wait on JVMs.
# Every test passes the first time: a race in a test is fixed in the test.
ctest --output-on-failure -j 2 --timeout 600 "$@"
