#!/usr/bin/env bash
# Builds the JDWP packet fuzzer with clang in a build dir of its own and runs it
# for a bounded time from a small seed corpus (registered with ctest as jdwp.fuzz).
#   usage: run_fuzz.sh <repo> <build-dir> [seconds]
set -euo pipefail

repo=${1:?repo}
build=${2:?build dir}
seconds=${3:-60}

cxx=$(command -v clang++ || command -v clang++-14 || true)
if [[ -z "$cxx" ]]; then
  echo "run_fuzz.sh: clang++ not found" >&2
  exit 1
fi

cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DJDWPX_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >"$build.configure.log" 2>&1 || { cat "$build.configure.log" >&2; exit 1; }
ninja -C "$build" jdwp_packet_fuzzer trace_record_fuzzer

# Seeds: a few well-formed packets of the shapes that matter most.
corpus="$build/fuzz-corpus"
mkdir -p "$corpus"
seed() { printf "$2" >"$corpus/seed-$1"; }
# VirtualMachine.Version command
seed version '\x00\x00\x00\x0b\x00\x00\x00\x01\x00\x01\x01'
# ThreadReference.Frames thread=0x1a start=0 length=-1
seed frames '\x00\x00\x00\x1b\x00\x00\x00\x07\x00\x0b\x06\x00\x00\x00\x00\x00\x00\x00\x1a\x00\x00\x00\x00\xff\xff\xff\xff'
# EventRequest.Set BREAKPOINT ALL [Count 1, LocationOnly, ClassMatch "a.*"]
seed set '\x00\x00\x00\x38\x00\x00\x00\x02\x00\x0f\x01\x02\x02\x00\x00\x00\x03\x01\x00\x00\x00\x01\x07\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x04\x05\x00\x00\x00\x03a.*'
# Event.Composite ALL [VMDeath 0]
seed composite '\x00\x00\x00\x15\x00\x00\x00\x03\x00\x40\x64\x02\x00\x00\x00\x01\x63\x00\x00\x00\x00'
# Reply NONE for id 0x0b06 (ThreadReference.Frames): one frame
seed reply '\x00\x00\x00\x30\x00\x00\x0b\x06\x80\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x05\x01\x00\x00\x00\x00\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00\x04'
# ArrayReference.GetValues reply body alone (object region with mixed tags)
seed region 'L\x00\x00\x00\x02s\x00\x00\x00\x00\x00\x00\x00\x01[\x00\x00\x00\x00\x00\x00\x00\x02'

"$build/jdwp/jdwp_packet_fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -max_len=4096 -print_final_stats=1 -artifact_prefix="$build/" "$corpus"

# Trace records (what jdwpx-trace reads from a file), a third of the time.
# Seeds: a session (ATTACHED, peer, number, handshake) and a reply packet record.
trace_corpus="$build/trace-fuzz-corpus"
mkdir -p "$trace_corpus"
printf '\x08\x01\x1a\x17\x08\x01\x12\x0e127.0.0.1:5005\x20\x01\x28\x90\x4e' >"$trace_corpus/seed-session"
printf '\x08\x05\x22\x12\x08\x02\x10\x07\x18\x01\x20\x0b\x28\x06\x38\x1f\x40\xa0\x8d\x06\x50\x2a' >"$trace_corpus/seed-packet"
exec "$build/trace/trace_record_fuzzer" -max_total_time="$(( (seconds + 2) / 3 ))" -timeout=10 -rss_limit_mb=2048 \
  -max_len=4096 -print_final_stats=1 -artifact_prefix="$build/trace-" "$trace_corpus"
