#!/usr/bin/env python3
"""JVM exit with the agent loaded: spawn -> exit of a small program, with no agent, the
stock agent and ours, alternating runs, medians (issue 13, "Exit and start-up").

    python3 bench/exit_time.py --agent-lib build/backend/libjdwpx.so [--jdk HOME] [--runs N]

Scenarios (each: no agent, stock, ours):
  no debugger         server=y,suspend=n; nobody attaches; main prints and returns.
  after a debugger    server=y,suspend=n; a raw JDWP client (integration/jdwp_client.py)
                      attaches, sends IDSizes and VirtualMachine.Version, disposes;
                      then main returns. Timed from
                      the line that lets main return to the exit (the attach is not
                      the point).
  server=n refused    server=n,suspend=y at a closed port: the agent fails at VMInit
                      and the VM exits (rc 2) without running main; "no agent" runs
                      main.
HotSpot's exit waits up to ~300 ms for Java threads in native code
(VM_Exit::wait_for_threads_in_native_to_block); an agent thread idle in native code
costs that on every JVM run. The "over none" columns are the agent's cost.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
from jdwp_client import Client, VirtualMachine  # noqa: E402

TARGET = """
public class ExitTarget {
  public static void main(String[] args) throws Exception {
    System.out.println("ready");
    System.out.flush();
    if (args.length > 0) System.in.read();  // "wait": until the bench says so
  }
}
"""


def options(scenario: str, port: int) -> str:
    if scenario == "server=n refused":
        return f"transport=dt_socket,server=n,suspend=y,address=127.0.0.1:{port}"
    return "transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0"


def attach_and_dispose(port: int):
    c = Client(port, timeout=30)  # handshake and IDSizes, as every debugger starts
    try:
        c.ok(VirtualMachine.Version)
        c.ok(VirtualMachine.Dispose)
    finally:
        c.close()


def run_once(java: str, classes: str, agent: str, agent_lib: str, scenario: str, closed_port: int) -> float:
    argv = [java, "-Xshare:auto"]
    if agent != "none":
        opts = options(scenario, closed_port)
        argv.append(f"-agentlib:jdwp={opts}" if agent == "stock" else f"-agentpath:{agent_lib}={opts}")
    argv += ["-cp", classes, "ExitTarget"]
    waits = scenario == "after a debugger"
    if waits:
        argv.append("wait")
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if waits:
        port = None
        while True:
            line = proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{agent}: ended early")
            if line.startswith("Listening for transport dt_socket at address: "):
                port = int(line.rsplit(" ", 1)[1])
            if line.strip() == "ready":
                break
        if agent != "none":
            attach_and_dispose(port)
        start = time.perf_counter()
        proc.stdin.write("\n")
        proc.stdin.flush()
    proc.communicate(timeout=60)
    return (time.perf_counter() - start) * 1000


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--agent-lib", required=True)
    parser.add_argument("--jdk", default=os.environ.get("JDWPX_JDK17_HOME", "/usr/lib/jvm/java-17-openjdk-amd64"))
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    java = os.path.join(args.jdk, "bin", "java")
    agent_lib = os.path.abspath(args.agent_lib)
    with tempfile.TemporaryDirectory(prefix="jdwpx-exit-bench-") as classes:
        with open(os.path.join(classes, "ExitTarget.java"), "w", encoding="utf-8") as f:
            f.write(TARGET)
        subprocess.run([os.path.join(args.jdk, "bin", "javac"), "-d", classes, os.path.join(classes, "ExitTarget.java")],
                       check=True)
        closed = socket.socket()
        closed.bind(("127.0.0.1", 0))  # bound, never listening: connect is refused at once
        closed_port = closed.getsockname()[1]
        print(f"JVM exit: {java}, {args.runs} alternating runs each, medians (ms)")
        print(f"{'scenario':20} {'none':>8} {'stock':>8} {'ours':>8} {'stock-none':>11} {'ours-none':>10}")
        for scenario in ("no debugger", "after a debugger", "server=n refused"):
            samples = {agent: [] for agent in ("none", "stock", "ours")}
            for _ in range(args.runs):
                for agent in samples:
                    samples[agent].append(run_once(java, classes, agent, agent_lib, scenario, closed_port))
            m = {agent: statistics.median(v) for agent, v in samples.items()}
            print(f"{scenario:20} {m['none']:8.1f} {m['stock']:8.1f} {m['ours']:8.1f} "
                  f"{m['stock'] - m['none']:+11.1f} {m['ours'] - m['none']:+10.1f}", flush=True)
        closed.close()


if __name__ == "__main__":
    sys.exit(main())
