#!/usr/bin/env bash
# Benchmarks our agent against the JDK's stock JDWP agent (same JDK) and prints
# one table with both figures and ours/stock.
#
#   run.sh [--agent-lib PATH|stock] [--jdk HOME] [--quick] [--classes DIR] [--only TEXT]
#          [--calls N] [--vthread-jdk HOME]
#
#   --agent-lib  our libjdwpx.so (loaded with -agentpath); "stock" runs the stock
#                agent in both columns, to check the ratio plumbing. Without it
#                only the stock column is measured.
#   --jdk        JDK whose java runs the debuggees (and whose libjdwp is "stock");
#                default $JDWPX_JDK17_HOME or /usr/lib/jvm/java-17-openjdk-amd64.
#   --quick      tiny iteration counts (smoke test); the inspection data keeps
#                its full size.
#   --classes    directory with Bench.class, BenchTarget.class and the rest of the
#                bench (the build's <build>/bench); without it they are compiled
#                into a temp dir.
#   --only       run only the scenarios whose name contains TEXT
#                (e.g. "stack walk", "values", "AllClasses"), or any of
#                several TEXTs separated by commas ("invoke,step rate").
#   --vthread-jdk  a JDK 21+ for the virtual-thread row of "many threads" (both agents
#                run on it, includevirtualthreads=y); default: --jdk if it is 21+, else
#                $JDWPX_JDK25_HOME or /usr/lib/jvm/temurin-25-jdk-amd64 if present;
#                without one the row is skipped with a message.
#   --calls      rounds of the "method events" and "expired requests" workloads (default 100000
#                with --quick, 1000000 without; a multiple of 20).
#
# Scenarios (the --only names), each in a fresh debuggee per agent and run:
#   attach                               launch -> listening line, attach -> first breakpoint
#   re-attach                            JDI's attach() alone (SocketAttach: connect, handshake,
#                                        IDSizes, JDI's two EventRequest.Set): "attach (first)"
#                                        on a fresh target (suspend=y) once it listens, and
#                                        "re-attach after dispose" once it listens again after
#                                        each of 20 sessions (5 with --quick; the "sessions"
#                                        session: a breakpoint, a step, an invoke, dispose):
#                                        the first attach's median over the runs, and the
#                                        median over the runs of each run's re-attach median
#   round trip                           ObjectReference.IsCollected latency (JDI)
#   round trip raw, pipelined burst      at a thread stopped in an instance method (raw JDWP):
#                                        ThreadReference.SuspendCount latency, and a burst
#                                        of 100 read commands an IDE sends at a stop (frames,
#                                        locals, this, its fields, a string...) sent back to
#                                        back, then every reply read: time per burst
#   breakpoint rate SUSPEND_EVENT_THREAD breakpoint hits + resume per second
#   breakpoint rate SUSPEND_ALL          the same with SUSPEND_ALL
#   breakpoint rate raw SUSPEND_EVENT_THREAD, breakpoint rate raw SUSPEND_ALL
#                                        the same loops with a bare JDWP client instead of
#                                        JDI (ThreadReference.Resume / VirtualMachine.Resume):
#                                        the agents' own turn, without JDI's share
#   trace overhead                       breakpoint rate (SUSPEND_EVENT_THREAD) of our agent
#                                        with trace=<file> on over off (goal >= 0.9); n/a for stock
#   step rate OVER                       StepRequest LINE/OVER per second
#   step rate INTO                       LINE/INTO with java.*, jdk.*, sun.* excluded
#   method events                        run time of a call workload (3 calls a round
#                                        outside BenchTarget$Watched, 20 into it) with
#                                        MethodEntry+MethodExit filtered to Watched, and
#                                        without requests; with/without per agent.
#                                        "n/a (NOT_IMPLEMENTED)" where an agent refuses.
#   expired requests                     run time of a round of --calls calls, after a first
#                                        round in which a request with a Count of 1 fired
#                                        (Breakpoint, MethodEntry with a class filter,
#                                        ModificationWatchpoint; or none), left in place
#   class prepare                        run time of loading 3,000 generated classes
#                                        without requests, with ClassPrepare SUSPEND_NONE,
#                                        with ClassPrepare SUSPEND_ALL (each set resumed;
#                                        row: cost per event over no requests), and with
#                                        one filtered by ClassMatch LoadGen15*
#   class prepare raw                    the SUSPEND_ALL loop with a bare JDWP client (each
#                                        event answered by VirtualMachine.Resume): time per
#                                        class from the first event to the last, load included
#   invoke                               InvokeMethod toString() per second at a
#                                        SUSPEND_ALL breakpoint, single-threaded and not
#   sessions                             1,000 debugger sessions in a row (50 with --quick)
#                                        on one target, each with a breakpoint, a step and
#                                        an invoke, then dispose: median time per session
#                                        and the debuggee's RSS growth over them
#   many threads                         100 / 1,000 / 4,000 parked platform threads (and 10,000
#                                        parked virtual threads on JDK 21+) stopped by a
#                                        SUSPEND_ALL breakpoint; per stop, as an IDE:
#                                        VirtualMachine.Resume + Suspend, AllThreads, then
#                                        Status and FrameCount of every thread (per thread);
#                                        medians of 5 stops; --quick: 100 and 1,000 only.
#                                        Rows "N over 100": per-thread cost growth (goal <= 1.2)
#   AllClasses                           class scans (raw JDWP), 10k+ classes loaded before the
#                                        first debugger (suspend=n): 1st session's first AllClasses,
#                                        its later calls, a ClassesBySignature; then a 2nd session:
#                                        ClassesBySignature per call, first AllClasses, first
#                                        AllClassesWithGeneric (each right after the handshake)
#   Object[] values, long[] values, string value, stack walk,
#   InstanceCounts                       inspection commands over big data (raw JDWP)
#   DisposeObjects                       VirtualMachine.DisposeObjects as JDI sends it when its
#                                        mirrors are collected (batches of 50, a round trip
#                                        each) of 100k and of 1M IDs (read from an Object[],
#                                        each counted once), per disposed ID; the growth from
#                                        100k to 1M; 1M in batches of 10,000 (the agent's own
#                                        cost, fewer round trips). The disposed IDs must then be
#                                        INVALID_OBJECT.
#   probes                               jdwpx's probes (issue 30; ProbeScenarios.java): a hot
#                                        line's hits/s under a probe --if `i < 0` (never true)
#                                        against a JDI client that stops, reads i, tests and
#                                        resumes at a SUSPEND_EVENT_THREAD breakpoint (stock);
#                                        ns per hit: no probe, --if `false`, --if `i < 0`; log
#                                        lines/s of a probe `{i} {label}` (budget and rate lifted)
#                                        against a JDI logpoint; the loop's throughput loss under
#                                        a log probe at the default budget against stock's JDI
#                                        breakpoint deleted at its first hit (10 s runs, 2 s with
#                                        --quick, between runs without; the loop in 1 s calls,
#                                        then in 10 ms calls); ours only: a second thread's rate during a probe
#                                        over without, and a 20-frame snapshot's pause of the
#                                        hitting thread. Goals in the rows' names. Probe
#                                        commands go only to an agent whose Version names jdwpx.
# --quick: 1 run each, small counts (the whole run takes a few minutes on a quiet
# machine); full: several runs each, medians.
#
# The driver itself always runs on JDK 17 ($JDWPX_DRIVER_JDK overrides), which
# has jdk.jdi in its default image.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jdk17="${JDWPX_JDK17_HOME:-/usr/lib/jvm/java-17-openjdk-amd64}"
driver_jdk="${JDWPX_DRIVER_JDK:-$jdk17}"
debuggee_jdk="$jdk17"
agent_lib=""
vthread_jdk=""
classes=""
extra=()

usage() {
  sed -n '2,/^set -euo/{/^#/p}' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
}

while [[ $# -gt 0 ]]; do
  case "$1" in
    --agent-lib) [[ $# -ge 2 ]] || usage; agent_lib="$2"; shift 2 ;;
    --jdk)       [[ $# -ge 2 ]] || usage; debuggee_jdk="$2"; shift 2 ;;
    --classes)   [[ $# -ge 2 ]] || usage; classes="$2"; shift 2 ;;
    --quick)     extra+=(--quick); shift ;;
    --only)      [[ $# -ge 2 ]] || usage; extra+=(--only "$2"); shift 2 ;;
    --calls)     [[ $# -ge 2 ]] || usage; extra+=(--calls "$2"); shift 2 ;;
    --vthread-jdk) [[ $# -ge 2 ]] || usage; vthread_jdk="$2"; shift 2 ;;
    -h|--help)   usage ;;
    *) echo "run.sh: unknown argument $1" >&2; usage ;;
  esac
done

if [[ ! -x "$debuggee_jdk/bin/java" ]]; then
  echo "run.sh: no java under --jdk $debuggee_jdk" >&2
  exit 2
fi

if [[ -z "$classes" ]]; then
  classes="$(mktemp -d)"
  trap 'rm -rf "$classes"' EXIT
  # Every bench/*.java (the driver's files, BenchTarget and the other tools) and the
  # raw JDWP client it shares with the integration drivers.
  "$driver_jdk/bin/javac" --release 17 -g -d "$classes" "$here"/*.java "$here/../integration/jdi/Jdwp.java"
fi

# The feature version of a JDK home (its release file), or 0.
feature_of() {
  local v
  v="$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$1/release" 2>/dev/null)"
  echo "${v:-0}"
}
if [[ -z "$vthread_jdk" ]]; then
  for candidate in "$debuggee_jdk" "${JDWPX_JDK25_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64; do
    if [[ -n "$candidate" && -x "$candidate/bin/java" && "$(feature_of "$candidate")" -ge 21 ]]; then
      vthread_jdk="$candidate"
      break
    fi
  done
fi
if [[ -n "$vthread_jdk" ]]; then
  extra+=(--vthread-java "$vthread_jdk/bin/java")
fi

ours=none
if [[ -n "$agent_lib" ]]; then
  ours="$agent_lib"
  if [[ "$agent_lib" != stock && ! -f "$agent_lib" ]]; then
    # Still run: the ours column reports the JVM's own complaint as n/a.
    echo "run.sh: warning: $agent_lib does not exist" >&2
  fi
fi

exec "$driver_jdk/bin/java" -cp "$classes" Bench \
  --source "$here/BenchTarget.java" --classes "$classes" \
  --java "$debuggee_jdk/bin/java" --ours "$ours" "${extra[@]}"
