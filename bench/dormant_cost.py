#!/usr/bin/env python3
"""Cost of a loaded agent that nobody is attached to (issue 13 item 2, issue 15 "dormant").

    python3 bench/dormant_cost.py --agent-lib build/backend/libjdwpx.so [--jdk HOME] [--runs N]
                                  [--only WORKLOAD,...]

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

  ours server=y,suspend=n   listening, no debugger ever attaches
  ours onjcmd=y dormant     onjcmd=y: no port until jcmd starts it
  stock server=y,suspend=n  the JDK's libjdwp, listening, no debugger

Goal (issue 13): threads, vthreads, classes <= 1.05x none for ours. The exceptions row is
reported, not a goal: the capabilities an agent can only get at load time
(can_generate_exception_events, can_access_local_variables, ...) stay in force for the
VM's life, and HotSpot's compiled code throws more slowly while they are (README,
"What a loaded agent costs").
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = {"threads": 5_000, "vthreads": 100_000, "classes": 3_000, "exceptions": 20_000}
GOALS = {"threads": 1.05, "vthreads": 1.05, "classes": 1.05}
LISTEN = "transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0,quiet=y"
CONFIGS = {
    "none": None,
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


def run_once(java: str, classes: str, agent_lib: str, config, workload: str) -> tuple[float, float]:
    argv = [java, "-Xshare:auto"]
    if config:
        agent, opts = config
        argv.append(f"-agentlib:jdwp={opts}" if agent == "stock" else f"-agentpath:{agent_lib}={opts}")
    argv += ["-cp", classes, "DormantWork", workload, str(WORKLOADS[workload])]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=300)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            _, wall, cpu = line.split()
            return int(wall) / 1e6, int(cpu) / 1e6
    raise RuntimeError(f"{' '.join(argv)}: rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}")


def cell(ms: float, none: float) -> str:
    return f"{ms:.1f} ({ms / none:.2f}x)"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--agent-lib", required=True)
    parser.add_argument("--jdk", default=os.environ.get("JDWPX_JDK17_HOME", "/usr/lib/jvm/java-17-openjdk-amd64"))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--only", default="", help="comma-separated workloads")
    args = parser.parse_args()
    java = os.path.join(args.jdk, "bin", "java")
    agent_lib = os.path.abspath(args.agent_lib)
    feature = jdk_feature(java)
    workloads = [w for w in WORKLOADS if not args.only or w in args.only.split(",")]
    with tempfile.TemporaryDirectory(prefix="jdwpx-dormant-bench-") as classes:
        # DormantWork's class workload uses BenchTarget's class-file generator.
        sources = [os.path.join(HERE, name) for name in ("DormantWork.java", "BenchTarget.java")]
        subprocess.run([os.path.join(args.jdk, "bin", "javac"), "-d", classes] + sources, check=True)
        print(f"agent loaded, nobody attached: {java} (JDK {feature}), {args.runs} alternating runs, "
              f"medians of the process's CPU time (ms; wall-clock time below), ratio over none")
        names = [c for c in CONFIGS if c != "none"]
        print(f"{'workload':11} {'none':>8} " + " ".join(f"{n:>26}" for n in names) + "  goal")
        for workload in workloads:
            if workload == "vthreads" and feature < 21:
                print(f"{workload:11} skipped: virtual threads need JDK 21+ (this is JDK {feature}; "
                      f"try --jdk /usr/lib/jvm/temurin-25-jdk-amd64)", flush=True)
                continue
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
