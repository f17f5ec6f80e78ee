#!/usr/bin/env python3
"""Regressions found by review, through the JDK's JDI and Eclipse's, stock as the oracle.

    python3 integration/test_control_edges.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

One debuggee (fixtures/ControlEdges.java) per scenario and client, driven by
jdi/ControlEdgesJdi.java (through the JDK's JDI, and through Eclipse's by
eclipse/ControlEdgesEclipse.java), which checks what it sees and prints a verdict:
  - watch: ModificationWatchpoint requests on A.a and B.b, each the first
    instance field of its class (same offset, same jfieldID in HotSpot), each
    report exactly their own field's modifications;
  - sleep: a MethodEntry request on java.lang.Thread while stepping over
    Thread.sleep(300) reports the native sleep on entry (its frame on top),
    not once it has returned;
  - pop: a LINE/OVER step request without a count filter stays active after
    PopFrames at its first event (three more steps on the expected lines);
  - unload: a class loaded while no debugger was attached (after a first
    session made a ClassUnload request and detached) is reported unloaded to
    the second session's ClassUnload request.
"""

from __future__ import annotations

import os
import socket
import unittest

import harness

SOURCE = os.path.join(harness.FIXTURES_SRC, "ControlEdges.java")
LISTENING = r"Listening for transport dt_socket at address: (\d+)\n"
DRIVER_TIMEOUT_S = 60
CLIENTS = ("jdk", "eclipse")  # whose JDI drives the debuggee


class ControlEdges(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        self.reports = []

    def tearDown(self):
        if harness.test_failed(self):
            print("\n".join(self.reports))

    def drive(self, client, scenario, port, *extra):
        classpath, main = harness.jdi_driver(self, self.cfg, client, "ControlEdgesJdi", "ControlEdgesEclipse")
        rc, out, err = harness.run_java(self.cfg, ["-cp", os.pathsep.join(classpath)], main,
                                        [scenario, str(port), SOURCE, *map(str, extra)], timeout=DRIVER_TIMEOUT_S)
        self.reports.append(f"--- {client} driver {scenario} (rc={rc}) stdout:\n{out}\n--- stderr:\n{err}")
        for line in out.splitlines():
            if line.startswith("DETAIL "):
                print(f"  {client} {scenario}: {line[len('DETAIL '):]}", flush=True)
        self.assertIn(f"SCENARIO {scenario} PASS", out)
        self.assertEqual(rc, 0)
        return out

    def run_scenario(self, scenario, expected_output):
        for client in CLIENTS:
            with self.subTest(client=client):
                self.run_scenario_with(client, scenario, expected_output)

    def run_scenario_with(self, client, scenario, expected_output):
        with harness.Debuggee(self.cfg, "ControlEdges", args=[scenario]) as debuggee:
            self.reports.append("(debuggee output below)")
            try:
                self.drive(client, scenario, debuggee.port)
                self.assertEqual(debuggee.wait(30), 0)
            finally:
                self.reports.append(f"--- debuggee stdout:\n{debuggee.stdout}\n--- stderr:\n{debuggee.stderr}")
            printed = [line for line in debuggee.stdout.splitlines() if not line.startswith("Listening")]
            self.assertEqual(printed, expected_output)

    def test_watches_on_first_fields_of_two_classes(self):
        self.run_scenario("watch", ["watch a=3 b=20", "done"])

    def test_native_sleep_entry_is_reported_while_sleeping(self):
        self.run_scenario("sleep", ["slept 2", "done"])

    def test_step_request_survives_pop_frames(self):
        # popped(1) = 3 runs twice (the pop re-runs the call), popped(2) = 5.
        self.run_scenario("pop", ["pop r=8", "done"])

    def test_class_unload_of_a_class_loaded_between_sessions(self):
        for client in CLIENTS:
            with self.subTest(client=client):
                self.class_unload_between_sessions(client)

    def class_unload_between_sessions(self, client):
        options = "transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0"
        with harness.Debuggee(self.cfg, "ControlEdges", args=["unload"], options=options) as debuggee:
            try:
                control = int(debuggee.wait_for_output(r"(?m)^control (\d+)$", 30).group(1))
                self.drive(client, "unload-first", debuggee.port)
                # The agent listens again once the first session is over (stock on a
                # new port, jdwpx on the same); only then is the class loaded.
                second_port = int(debuggee.wait_for_output(rf"(?s){LISTENING}.*?{LISTENING}", 30).group(2))
                with socket.create_connection(("127.0.0.1", control), timeout=10) as s:
                    s.sendall(b"\1")
                debuggee.wait_for_output(r"(?m)^loaded ControlEdgesUnloadable$", 30)
                self.drive(client, "unload-second", second_port, control)
                debuggee.wait_for_output(r"(?m)^unloaded=true$", 30)
                self.assertEqual(debuggee.wait(30), 0)
            finally:
                self.reports.append(f"--- debuggee stdout:\n{debuggee.stdout}\n--- stderr:\n{debuggee.stderr}")


if __name__ == "__main__":
    harness.main()
