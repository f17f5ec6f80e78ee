#!/usr/bin/env bash
# Builds the expression fuzzer with clang in a build dir of its own and runs it
# for a bounded time from the seed corpus (registered with ctest as expr.fuzz).
#   usage: run_fuzz.sh <repo> <build-dir> [seconds]
set -euo pipefail

repo=${1:?repo}
build=${2:?build dir}
seconds=${3:-30}

cxx=$(command -v clang++ || command -v clang++-14 || true)
if [[ -z "$cxx" ]]; then
  echo "run_fuzz.sh: clang++ not found" >&2
  exit 1
fi

cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DJDWPX_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build.configure.log" 2>&1 || { cat "$build.configure.log" >&2; exit 1; }
ninja -C "$build" expr_fuzzer

# libFuzzer adds what it finds to the first directory: a copy keeps the seeds clean.
corpus="$build/expr-fuzz-corpus"
mkdir -p "$corpus"
cp "$repo"/expr/fuzz/corpus/* "$corpus/"
exec "$build/expr/expr_fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=4200 -print_final_stats=1 -artifact_prefix="$build/" "$corpus"
