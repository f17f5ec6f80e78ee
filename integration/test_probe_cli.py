#!/usr/bin/env python3
"""jdwpx-probe end to end: one command line against several real JVMs at once.

    python3 integration/test_probe_cli.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

Two fixtures/ProbeTarget JVMs run the agent under test and a third always runs
the JDK's own agent: the tool must set its probe on the jdwpx ones, name the
stock one on stderr without ever sending it a Probe command (stock aborts the
JVM on command sets >= 128: the stock JVM must still be running afterwards),
print each hit as a JSON line and a summary per target, end at --max or at
Ctrl-C, and leave every JVM free for a normal debugger. Against stock (every
target stock) the tool names each target and exits 1, and the JVMs run on.

No sleeps: the test feeds the programs one round at a time until the tool has
printed what it waits for, each wait bounded.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import threading
import time
import unittest

import harness
from jdwp_client import Client, Probe, VirtualMachine

LINE = harness.fixture_line("ProbeTarget.java", "@probe-line")
OPTIONS = "transport=dt_socket,server=y,suspend=n,address=0"
TOOL_TIMEOUT_S = 60
LISTENING = r"Listening for transport dt_socket at address: (\d+)"


class Program:
    """A ProbeTarget JVM fed rounds on stdin."""

    def __init__(self, cfg, stock: bool):
        java = os.path.join(cfg.jdk, "bin", "java")
        agent = f"-agentlib:jdwp={OPTIONS}" if stock or cfg.agent == "stock" else f"-agentpath:{cfg.agent_lib}={OPTIONS}"
        self.proc = harness.Debuggee(cfg, "ProbeTarget", options=None, jvm_args=[agent], java=java, stdin=True)
        self.proc.__enter__()
        self.proc.wait_for_output(r"(?m)^ready$")
        self.rounds = 0

    @property
    def port(self) -> int:
        return self.proc.port

    def listening_port(self, announcements: int) -> int:
        """The port of the agent's `announcements`-th Listening line: with address=0
        both agents listen on a new port after each debugger leaves."""
        self.proc.wait_for_output(rf"(?s)(?:.*?{LISTENING}){{{announcements}}}")
        return int(re.findall(LISTENING, self.proc.stdout)[announcements - 1])

    def round(self):
        self.rounds += 1
        self.proc.proc.stdin.write(b"round 1\n")
        self.proc.proc.stdin.flush()
        self.proc.wait_for_output(rf"(?m)^round {self.rounds} ")

    def close(self):
        self.proc.__exit__(None, None, None)


class ProbeCli(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        self.tool = os.path.join(self.cfg.build_dir, "tools", "jdwpx-probe")
        self.ours = [Program(self.cfg, stock=False) for _ in range(2)]
        self.stock = Program(self.cfg, stock=True)
        for p in self.ours + [self.stock]:
            self.addCleanup(p.close)

    def start_tool(self, *args) -> subprocess.Popen:
        targets = []
        for p in self.ours + [self.stock]:
            targets += ["--connect", f"127.0.0.1:{p.port}"]
        proc = subprocess.Popen([self.tool, *targets, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        def stop():
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
            proc.stdout.close()
            proc.stderr.close()
        self.addCleanup(stop)
        return proc

    def feed_until_exit(self, tool: subprocess.Popen) -> tuple[str, str]:
        """Runs rounds on the jdwpx programs until the tool ends (bounded)."""
        out: list[str] = []
        reader = threading.Thread(target=lambda: out.append(tool.stdout.read()))
        reader.start()
        deadline = time.monotonic() + TOOL_TIMEOUT_S
        while tool.poll() is None and time.monotonic() < deadline:
            for p in self.ours:
                p.round()
        if tool.poll() is None:
            tool.kill()
            self.fail(f"jdwpx-probe did not end within {TOOL_TIMEOUT_S}s")
        reader.join(10)
        return "".join(out), tool.stderr.read()

    def assert_free_for_a_debugger(self, program: Program):
        client = Client(program.listening_port(2))  # the tool was the first debugger
        try:
            self.assertTrue(client.ok(VirtualMachine.Version).string())
            if self.cfg.agent == "ours" and program is not self.stock:
                self.assertEqual(client.ok(Probe.List).int(), 0)
        finally:
            client.close()
        program.round()

    def test_log_on_several_jvms_with_one_stock_then_every_jvm_runs_on(self):
        tool = self.start_tool("log", f"ProbeTarget:{LINE}", "i={i} label={label}", "--max", "2",
                               "--format", "json", "--budget", "50")
        stdout, stderr = self.feed_until_exit(tool)
        self.assertEqual(tool.returncode, 1, stderr)  # a target was not jdwpx
        stock_target = f"127.0.0.1:{self.stock.port}"
        self.assertIn(f"{stock_target}: not a jdwpx agent", stderr)
        if self.cfg.agent == "stock":
            for p in self.ours:
                self.assertIn(f"127.0.0.1:{p.port}: not a jdwpx agent", stderr)
            self.assertEqual(stdout.strip(), "")
        else:
            lines = [json.loads(line) for line in stdout.splitlines()]
            for p in self.ours:
                target = f"127.0.0.1:{p.port}"
                logs = [line for line in lines if line["kind"] == "log" and line["target"] == target]
                self.assertEqual(len(logs), 2, stdout)
                for log in logs:
                    self.assertEqual((log["thread"], log["location"]), ("main", f"ProbeTarget.work:{LINE}"))
                    self.assertRegex(log["message"], r"^i=(\d+) label=item-\1$")
                    self.assertIsInstance(log["probe"], int)
                    self.assertRegex(log["time"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
                [summary] = [line for line in lines if line["kind"] == "summary" and line["target"] == target]
                self.assertEqual((summary["matched"], summary["suppressed"]), (2, 0))
                self.assertGreaterEqual(summary["hits"], 2)
            self.assertFalse([line for line in lines if line["target"] == stock_target], stdout)
        for p in self.ours + [self.stock]:
            self.assert_free_for_a_debugger(p)

    def test_ctrl_c_ends_the_run_clears_the_probes_and_prints_the_summaries(self):
        if self.cfg.agent == "stock":
            self.skipTest("no probes on stock: covered by the test above")
        tool = self.start_tool("log", f"ProbeTarget:{LINE}", "{i}", "--format", "json", "--budget", "50")
        # The first line shows the probes are set; then Ctrl-C.
        first = None
        deadline = time.monotonic() + TOOL_TIMEOUT_S
        lines: list[str] = []

        def read():
            for line in tool.stdout:
                lines.append(line)
        reader = threading.Thread(target=read)
        reader.start()
        while not lines and time.monotonic() < deadline and tool.poll() is None:
            self.ours[0].round()
        self.assertTrue(lines, "no output before the deadline")
        tool.send_signal(signal.SIGINT)
        self.assertEqual(tool.wait(TOOL_TIMEOUT_S), 1)  # the stock target failed
        reader.join(10)
        summaries = [json.loads(line) for line in lines if json.loads(line)["kind"] == "summary"]
        self.assertEqual(sorted(s["target"] for s in summaries),
                         sorted(f"127.0.0.1:{p.port}" for p in self.ours))
        for p in self.ours:
            self.assert_free_for_a_debugger(p)


if __name__ == "__main__":
    harness.main()
