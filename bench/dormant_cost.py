#!/usr/bin/env python3
"""Cost of a loaded agent that nobody is attached to (issue 13 item 2, issue 15 "dormant").

    python3 bench/dormant_cost.py --agent-lib build/backend/libjdwpx.so [--jdk HOME] [--runs N]
                                  [--only WORKLOAD,...] [--instructions]

Each workload (bench/DormantWork.java) runs in a fresh JVM, warmed up once at a fifth of
its size, then 5 times, and measures itself in-process: the process's CPU time (all
threads) per run (the mean of the 5), which a machine shared with other work disturbs far
less than the wall-clock time (printed below each row). JVM start and exit are
exit_time.py's business.

  threads     start + join 5,000 platform threads, one after the other
  vthreads    start 100,000 virtual threads, then join them (JDK 21+; skipped otherwise)
  classes     define, link and initialize 3,000 classes
  exceptions  throw and catch 20,000 exceptions, 8 frames deep

Configurations, alternating run by run; medians; each over "none" (no agent):

  none again                no agent either: how far two identical columns part on this
                            machine (the noise floor of the run)
  ours server=y,suspend=n   listening, no debugger ever attaches
  ours onjcmd=y dormant     onjcmd=y: no port until jcmd starts it
  stock server=y,suspend=n  the JDK's libjdwp, listening, no debugger

--instructions counts instead of timing: each configuration runs under valgrind's callgrind
at two sizes, and the difference, divided by the units of work between them, is the
user-space instructions per thread, class or exception, outside the JIT compilers' threads
(whose work depends on when a method turns hot, and is printed on its own line for the
larger run). The count does not depend on the machine's load, where the CPU time can swing
by 10% between two identical JVMs on a busy 2-core VM; "none again" shows the scatter that
is left (how much runs interpreted, when the GC runs). The kernel's share (thread creation
is mostly kernel) is not in it. Needs valgrind; takes minutes per workload. Not for
vthreads: there ours read 1.39x none in one run and 0.78x in the next, and two runs without
any agent 7,151 and 9,029 instructions per virtual thread even with one carrier (how much
runs interpreted or compiled depends on when the JIT finishes), so that row is left to the
timing.

Goal (issue 13): threads, vthreads, classes <= 1.05x none for ours. The exceptions row is
reported, not a goal: the capabilities an agent can only get at load time
(can_generate_exception_events, can_access_local_variables, ...) stay in force for the
VM's life, and HotSpot's compiled code throws more slowly while they are (docs/performance.md,
"What a loaded agent costs").
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from multiprocessing.pool import ThreadPool

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = {"threads": 5_000, "vthreads": 100_000, "classes": 3_000, "exceptions": 20_000}
GOALS = {"threads": 1.05, "vthreads": 1.05, "classes": 1.05}
LISTEN = "transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0,quiet=y"
CONFIGS = {
    "none": None,
    "none again": None,
    "ours server=y,suspend=n": ("ours", LISTEN),
    "ours onjcmd=y dormant": ("ours", "transport=dt_socket,server=y,address=127.0.0.1:0,onjcmd=y"),
    "stock server=y,suspend=n": ("stock", LISTEN),
}


def jdk_feature(java: str) -> int:
    out = subprocess.run([java, "-XshowSettings:properties", "-version"], capture_output=True, text=True).stderr
    for line in out.splitlines():
        if line.strip().startswith("java.specification.version"):
            return int(line.split("=")[1].strip())
    raise RuntimeError(f"cannot read the version of {java}")


def java_argv(java: str, classes: str, agent_lib: str, config, workload: str, size: int) -> list[str]:
    argv = [java, "-Xshare:auto"]
    if config:
        agent, opts = config
        argv.append(f"-agentlib:jdwp={opts}" if agent == "stock" else f"-agentpath:{agent_lib}={opts}")
    return argv + ["-cp", classes, "DormantWork", workload, str(size)]


def run_once(java: str, classes: str, agent_lib: str, config, workload: str) -> tuple[float, float]:
    argv = java_argv(java, classes, agent_lib, config, workload, WORKLOADS[workload])
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            _, wall, cpu = line.split()
            return int(wall) / 1e6, int(cpu) / 1e6
    raise RuntimeError(f"{' '.join(argv)}: rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}")


def cell(ms: float, none: float) -> str:
    return f"{ms:.1f} ({ms / none:.2f}x)"


# Sizes of the two callgrind runs: big enough that the difference is the work, small enough
# that a run under valgrind takes well under a minute on the 2-core machine.
COUNT_SIZES = {"threads": (200, 1200), "classes": (600, 3_000), "exceptions": (1_000, 4_000)}
COMPILER_LOOP = "CompileBroker::compiler_thread_loop"


def units_of_work(size: int) -> int:
    """DormantWork's warm-up (a fifth) and its timed rounds."""
    return max(1, size // 5) + 5 * size


def count_instructions(argv: list[str], out: str) -> tuple[int, int]:
    """(instructions outside the JIT compiler threads, instructions in them) of one JVM run."""
    proc = subprocess.run(["valgrind", "--tool=callgrind", "-q", "--smc-check=all-non-file",
                           f"--callgrind-out-file={out}"] + argv, capture_output=True, text=True, timeout=1800)
    if proc.returncode != 0 or "RESULT " not in proc.stdout:
        raise RuntimeError(f"valgrind {' '.join(argv)}: rc={proc.returncode}\n{proc.stdout}\n{proc.stderr[-2000:]}")
    annotated = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                               capture_output=True, text=True, check=True).stdout
    total = compilers = None
    for line in annotated.splitlines():
        m = re.match(r"\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(.*)", line)
        if not m:
            continue
        if total is None and "PROGRAM TOTALS" in m.group(2):
            total = int(m.group(1).replace(",", ""))
        elif compilers is None and COMPILER_LOOP in m.group(2):
            compilers = int(m.group(1).replace(",", ""))
    if total is None:
        raise RuntimeError(f"no totals in callgrind_annotate's output for {out}")
    if compilers is None:
        # A libjvm without its symbols: the JIT's work would be counted in, unsaid.
        raise RuntimeError(f"no {COMPILER_LOOP} in {out}: is libjvm.so stripped?")
    return total - compilers, compilers


def count_workload(java: str, classes: str, agent_lib: str, workload: str, names: list[str], scratch: str):
    small, large = COUNT_SIZES[workload]
    units = units_of_work(large) - units_of_work(small)
    per_unit, jit = {}, {}
    # The two sizes of a configuration side by side: valgrind runs a JVM on one core.
    with ThreadPool(2) as pool:
        for c in names:
            (small_outside, _), (large_outside, large_jit) = pool.map(
                lambda size: count_instructions(java_argv(java, classes, agent_lib, CONFIGS[c], workload, size),
                                                os.path.join(scratch, f"{workload}.{size}.callgrind")),
                (small, large))
            per_unit[c] = (large_outside - small_outside) / units
            jit[c] = large_jit
    cells = " ".join(f"{per_unit[n]:15,.0f} ({per_unit[n] / per_unit['none']:.3f}x)" for n in names[1:])
    print(f"{workload:11} {per_unit['none']:12,.0f} {cells}", flush=True)
    print(f"{'  JIT (M)':11} {jit['none'] / 1e6:12,.0f} " +
          " ".join(f"{jit[n] / 1e6:24,.0f}" for n in names[1:]), flush=True)


def count_all(java: str, classes: str, agent_lib: str, workloads: list[str], feature: int):
    if not shutil.which("valgrind") or not shutil.which("callgrind_annotate"):
        sys.exit("--instructions needs valgrind (apt-get install valgrind)")
    names = list(CONFIGS)
    print(f"agent loaded, nobody attached: {java} (JDK {feature}), callgrind, user-space instructions per "
          f"unit of work outside the JIT compilers (sizes: {COUNT_SIZES}), ratio over none; "
          f"'JIT (M)': the compilers' instructions in the larger run")
    print(f"{'workload':11} {'none':>12} " + " ".join(f"{n:>24}" for n in names[1:]))
    with tempfile.TemporaryDirectory(prefix="jdwpx-dormant-callgrind-") as scratch:
        for workload in workloads:
            count_workload(java, classes, agent_lib, workload, names, scratch)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--agent-lib", required=True)
    parser.add_argument("--jdk", default=os.environ.get("JDWPX_JDK17_HOME", "/usr/lib/jvm/java-17-openjdk-amd64"))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--only", default="", help="comma-separated workloads")
    parser.add_argument("--instructions", action="store_true",
                        help="count user-space instructions per unit of work under callgrind instead of timing")
    args = parser.parse_args()
    java = os.path.join(args.jdk, "bin", "java")
    agent_lib = os.path.abspath(args.agent_lib)
    feature = jdk_feature(java)
    workloads = [w for w in WORKLOADS if not args.only or w in args.only.split(",")]
    with tempfile.TemporaryDirectory(prefix="jdwpx-dormant-bench-") as classes:
        # DormantWork's class workload uses BenchTarget's class-file generator.
        sources = [os.path.join(HERE, name) for name in ("DormantWork.java", "BenchTarget.java")]
        subprocess.run([os.path.join(args.jdk, "bin", "javac"), "-d", classes] + sources, check=True)
        if feature < 21 and "vthreads" in workloads:
            print(f"vthreads skipped: virtual threads need JDK 21+ (this is JDK {feature}; "
                  f"try --jdk /usr/lib/jvm/temurin-25-jdk-amd64)", flush=True)
            workloads.remove("vthreads")
        if args.instructions and "vthreads" in workloads:
            print("vthreads skipped: their instruction count is not repeatable (see the top of this file)")
            workloads.remove("vthreads")
        if not workloads:
            return "no workload left to run"
        if args.instructions:
            return count_all(java, classes, agent_lib, workloads, feature)
        print(f"agent loaded, nobody attached: {java} (JDK {feature}), {args.runs} alternating runs, "
              f"medians of the process's CPU time (ms; wall-clock time below), ratio over none")
        names = [c for c in CONFIGS if c != "none"]
        print(f"{'workload':11} {'none':>8} " + " ".join(f"{n:>26}" for n in names) + "  goal")
        for workload in workloads:
            samples = {c: [] for c in CONFIGS}
            for _ in range(args.runs):
                for c, config in CONFIGS.items():
                    samples[c].append(run_once(java, classes, agent_lib, config, workload))
            m = {c: statistics.median(cpu for _, cpu in v) for c, v in samples.items()}
            wall = {c: statistics.median(w for w, _ in v) for c, v in samples.items()}
            cells = " ".join(f"{cell(m[n], m['none']):>26}" for n in names)
            goal = GOALS.get(workload)
            verdict = ""
            if goal:
                ours = [m[n] / m["none"] for n in names if n.startswith("ours")]
                verdict = f"<= {goal:.2f}x: " + ("met" if max(ours) <= goal else "NOT met")
            else:
                verdict = "reported"
            print(f"{workload:11} {m['none']:8.1f} {cells}  {verdict}", flush=True)
            print(f"{'  wall':11} {wall['none']:8.1f} " +
                  " ".join(f"{cell(wall[n], wall['none']):>26}" for n in names), flush=True)


if __name__ == "__main__":
    sys.exit(main())
