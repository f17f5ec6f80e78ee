#!/usr/bin/env python3
"""Options for orchestrators (issue 12, item 5), all jdwpx extensions:
handshaketimeout=, TCP keepalive on the session socket, suspendtimeout=,
onbindfail=continue, addressfile=.

    python3 integration/test_orchestrators.py --agent {ours,stock} --agent-lib PATH --jdk JAVA_HOME \
        --classes DIR --build-dir BUILD [unittest args]

With stock, each test checks what stock does with the option absent (the
behaviour ours keeps by default) and that stock refuses the option; the rest is
ours only. No sleeps: every wait is on output, a socket or a file, with a timeout.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import jdwp_client  # noqa: E402
from jdwp_client import VirtualMachine  # noqa: E402

BASE = "transport=dt_socket,server=y"


def syntax_error(options: str) -> str:
    return f"ERROR: JDWP option syntax error: -agentlib:jdwp={options}"


class OrchestratorTest(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        self.tmp = tempfile.mkdtemp(prefix="jdwpx-orch-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def debuggee(self, options, args=("0", "60000")):
        d = harness.Debuggee(self.cfg, "Hello", list(args), options=options)
        self.addCleanup(d.__exit__, None, None, None)
        return d

    def run_hello(self, options, args=()):
        return harness.run_java(self.cfg, [harness.agent_arg(self.cfg, options)], "Hello", list(args))

    def test_stock_refuses_our_options(self):
        if self.cfg.agent != "stock":
            self.skipTest("stock's answer")
        for extra in ("handshaketimeout=5000", "suspendtimeout=5000", "onbindfail=continue",
                      "addressfile=/tmp/x", "unixroot=y"):
            options = f"{BASE},suspend=n,address=0,{extra}"
            rc, out, err = self.run_hello(options)
            self.assertNotEqual(rc, 0, extra)
            self.assertIn(syntax_error(options), err)

    def test_bad_values_are_refused_at_load(self):
        if self.cfg.agent != "ours":
            self.skipTest("jdwpx extension")
        ms = "a number of milliseconds (1 to 86400000)"
        cases = {
            "handshaketimeout=2s": f"handshaketimeout=2s: {ms}",
            "suspendtimeout=-1": f"suspendtimeout=-1: {ms}",
            "onbindfail=retry": "onbindfail=retry: must be abort or continue",
            "unixroot=1": "unixroot=1: must be y or n",
        }
        for extra, detail in cases.items():
            options = f"{BASE},suspend=y,address=0,{extra}"
            rc, out, err = self.run_hello(options)
            self.assertEqual(rc, 1, extra)
            # Stock's line (what stock prints for any option it does not know), then ours.
            self.assertEqual(err.splitlines()[:2], [
                syntax_error(options), f"jdwpx: {detail} (in {harness.agent_arg(self.cfg, options)})"], err)
            self.assertNotIn("hello from fixture", out)

    def test_handshake_timeout_and_keepalive(self):
        """A peer that sends no handshake is dropped after handshaketimeout=; the
        next debugger attaches; its socket has keepalive (30 s idle, every 10 s)."""
        ours = self.cfg.agent == "ours"
        d = self.debuggee(f"{BASE},suspend=n,address=0" + (",handshaketimeout=300" if ours else ""))
        port = d.port
        d.wait_for_output("hello from fixture")
        if ours:
            silent = socket.create_connection(("127.0.0.1", port), timeout=30)
            started = time.monotonic()
            self.assertEqual(silent.recv(100), b"")  # closed by the agent
            self.assertLess(time.monotonic() - started, 8)  # well before the 10 s default
            d.wait_for_output(r"timeout during handshake", stream="stderr")
            silent.close()
        c = jdwp_client.Client(port)
        self.assertIn("Java Debug Wire Protocol", c.ok(VirtualMachine.Version).string())
        local_port = c.sock.getsockname()[1]
        # The agent's end of the connection. Its timer shows keepalive once nothing
        # is left unacknowledged (a retransmission timer shows "on" meanwhile).
        for _ in range(200):
            ss = subprocess.run(["ss", "-tnoH", "state", "established", f"( dport = :{local_port} )"],
                                capture_output=True, text=True, timeout=30)
            self.assertIn(f":{local_port}", ss.stdout, ss.stdout + ss.stderr)
            if "timer:(on," not in ss.stdout:
                break
        if ours:
            self.assertRegex(ss.stdout, r"timer:\(keepalive,")
        else:
            self.assertNotIn("keepalive", ss.stdout)  # stock sets none
        c.close()

    def test_suspend_timeout_runs_on_and_keeps_listening(self):
        if self.cfg.agent != "ours":
            self.skipTest("jdwpx extension (stock waits forever with suspend=y)")
        d = self.debuggee(f"{BASE},suspend=y,address=0,suspendtimeout=5500")
        port = d.port
        first = d.wait_for_output(r"jdwpx: waiting for a debugger on 127\.0\.0\.1:(\d+) \(suspend=y, suspendtimeout=5500 ms\)",
                                  stream="stderr")
        self.assertEqual(int(first.group(1)), port)
        self.assertNotIn("hello from fixture", d.stdout)  # still suspended
        d.wait_for_output(rf"jdwpx: no debugger attached within 5500 ms: the program runs on, still listening on "
                          rf"127\.0\.0\.1:{port}", timeout=30, stream="stderr")
        d.wait_for_output("hello from fixture")
        # One line at once and one every 5 s: two in 5.5 s.
        self.assertEqual(d.stderr.count("waiting for a debugger"), 2, d.stderr)
        c = jdwp_client.Client(port)  # a debugger may still come, the VM is not suspended
        self.assertIn("Java Debug Wire Protocol", c.ok(VirtualMachine.Version).string())
        c.close()

    def test_onbindfail(self):
        taken = socket.socket()
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        self.addCleanup(taken.close)
        port = taken.getsockname()[1]
        options = f"{BASE},suspend=n,address=127.0.0.1:{port}"
        rc, out, err = self.run_hello(options)
        # Stock's abort, which ours keeps without the option.
        self.assertEqual(rc, 2, err)
        self.assertIn("Address already in use", err)
        self.assertNotIn("hello from fixture", out)
        if self.cfg.agent != "ours":
            return
        rc, out, err = self.run_hello(options + ",onbindfail=continue")
        self.assertEqual(rc, 0, err)
        self.assertIn("hello from fixture", out)
        lines = [l for l in err.splitlines() if l and "Picked up" not in l]
        self.assertEqual(lines, [f"jdwpx: cannot listen on 127.0.0.1:{port} (bind failed: Address already in use); "
                                 f"onbindfail=continue: the program runs without debugging"], err)
        rc, out, err = self.run_hello(options + ",onbindfail=abort")
        self.assertEqual(rc, 2, err)

    def test_address_file(self):
        if self.cfg.agent != "ours":
            self.skipTest("jdwpx extension")
        d = self.debuggee(f"{BASE},suspend=n,address=0,addressfile={self.tmp}/jdwp.%p")
        port = d.port
        d.wait_for_output("hello from fixture")
        path = os.path.join(self.tmp, f"jdwp.{d.proc.pid}")
        with open(path) as f:  # written before the Listening line
            self.assertEqual(f.read(), f"{port}\n")
        self.assertEqual(os.listdir(self.tmp), [f"jdwp.{d.proc.pid}"])  # no temporary left
        d.proc.send_signal(signal.SIGTERM)
        d.wait(30)
        self.assertFalse(os.path.exists(path), "addressfile outlived the JVM")
        # An unwritable place: one line, the program runs.
        rc, out, err = self.run_hello(f"{BASE},suspend=n,address=0,addressfile=/nonexistent-jdwpx/a")
        self.assertEqual(rc, 0, err)
        self.assertIn("jdwpx: addressfile=/nonexistent-jdwpx/a not written: /nonexistent-jdwpx/a.tmp.", err)


if __name__ == "__main__":
    harness.main()
