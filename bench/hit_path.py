#!/usr/bin/env python3
"""What a breakpoint hit costs inside the agent, and how it grows with the requests set elsewhere.

    python3 bench/hit_path.py --agent ours=build/backend/libjdwpx.so [--agent before=OTHER.so ...]
                              [--jdk HOME] [--others 0,100,1000] [--rounds 12] [--calls 200000]

The debuggee (bench/HitLoop.java) calls a small method `hot` in timed rounds. A raw JDWP
client sets, with SUSPEND_NONE:
  - K breakpoint requests at another method's first instruction, never reached (the
    requests a debugger holds elsewhere: an IDE's other breakpoints);
  - one breakpoint at `hot`'s first line with a Count of 2^31-1, so every call is a full
    hit through the agent (JVMTI callback, request lookup, filters) but none is reported:
    no event is sent, no thread waits, and the time per call is the agent's hit path
    plus JVMTI's breakpoint dispatch.
Each round prints its nanoseconds per call; the median of the rounds after the first
third (warm-up) is the figure. Every agent given, and the JDK's own one, runs each K in
turn, alternating, --runs times; the table gives the medians and each over stock.
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "integration"))
from jdwp_client import Client, EventKind, EventRequest, ModKind, SuspendPolicy, TypeTag, i32  # noqa: E402

NEVER = 2**31 - 1  # a Count no loop reaches


def compile_debuggee(jdk: str, out: str) -> None:
    subprocess.run([os.path.join(jdk, "bin", "javac"), "-g", "-d", out, os.path.join(HERE, "HitLoop.java")],
                   check=True)


def location(c: Client, type_id: int, method_id: int, index: int) -> bytes:
    return bytes([TypeTag.CLASS]) + c.type_id(type_id) + c.method_id(method_id) + index.to_bytes(8, "big")


def breakpoint_request(c: Client, loc: bytes, count: int | None) -> bytes:
    modifiers = []
    if count is not None:
        modifiers.append(bytes([ModKind.Count]) + i32(count))
    modifiers.append(bytes([ModKind.LocationOnly]) + loc)
    return bytes([EventKind.BREAKPOINT, SuspendPolicy.NONE]) + i32(len(modifiers)) + b"".join(modifiers)


def one_run(jdk: str, classes: str, agent_option: str, others: int, rounds: int, calls: int) -> float:
    """Median ns per call of hot() with a never-reporting breakpoint in it and `others` elsewhere."""
    cmd = [os.path.join(jdk, "bin", "java"), agent_option + "=transport=dt_socket,server=y,suspend=n,address=0",
           "-cp", classes, "HitLoop", str(rounds), str(calls)]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        port = None
        for line in proc.stdout:
            m = re.search(r"Listening for transport dt_socket at address: (\d+)", line)
            if m:
                port = int(m.group(1))
            if line.strip() == "ready":
                break
        if port is None:
            raise RuntimeError(f"no listening line from {cmd}")
        c = Client(port, timeout=60)
        hit_loop = c.class_by_signature("LHitLoop;")
        hot = c.method_named(hit_loop, "hot")
        cold = c.method_named(hit_loop, "cold")
        cold_at = location(c, hit_loop, cold, c.line_table(hit_loop, cold)[0][0])
        for _ in range(others):
            c.ok(EventRequest.Set, breakpoint_request(c, cold_at, None))
        hot_at = location(c, hit_loop, hot, c.line_table(hit_loop, hot)[0][0])
        c.ok(EventRequest.Set, breakpoint_request(c, hot_at, NEVER))
        proc.stdin.write("go\n")
        proc.stdin.flush()
        times = []
        for line in proc.stdout:
            if line.startswith("round "):
                times.append(float(line.split()[1]))
        proc.wait(timeout=120)
        c.close()
        if len(times) != rounds:
            raise RuntimeError(f"{len(times)} rounds of {rounds}")
        return statistics.median(times[rounds // 3:])
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--agent", action="append", default=[], metavar="NAME=LIB",
                    help="an agent library to measure (repeatable); the JDK's own agent is always measured")
    ap.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    ap.add_argument("--others", default="0,100,1000", help="requests set elsewhere, comma-separated")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--calls", type=int, default=200_000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()

    agents = [("stock", "-agentlib:jdwp")]
    for spec in args.agent:
        name, _, lib = spec.partition("=")
        if not lib or not os.path.exists(lib):
            ap.error(f"--agent {spec}: expected NAME=PATH of an existing library")
        agents.append((name, "-agentpath:" + os.path.abspath(lib)))
    others = [int(k) for k in args.others.split(",")]

    classes = tempfile.mkdtemp(prefix="hit_path.")
    try:
        compile_debuggee(args.jdk, classes)
        results: dict[tuple[str, int], list[float]] = {}
        for _ in range(args.runs):
            for k in others:
                for name, option in agents:
                    results.setdefault((name, k), []).append(
                        one_run(args.jdk, classes, option, k, args.rounds, args.calls))
    finally:
        shutil.rmtree(classes, ignore_errors=True)

    names = [name for name, _ in agents]
    print(f"ns per breakpoint hit (never reported), JDK {args.jdk}, median of {args.runs} runs")
    print("| requests elsewhere | " + " | ".join(names) + " | " +
          " | ".join(f"{n} / stock" for n in names[1:]) + " |")
    print("|---" * (1 + 2 * len(names) - 1) + "|")
    for k in others:
        med = {n: statistics.median(results[(n, k)]) for n in names}
        cells = [f"{med[n]:.0f}" for n in names] + [f"{med[n] / med['stock']:.2f}x" for n in names[1:]]
        print(f"| {k} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
