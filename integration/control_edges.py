"""Cases run by jdi/ControlEdgesJdi.java over fixtures/ControlEdges.java, through the
JDK's JDI and through Eclipse's (eclipse/ControlEdgesEclipse.java); stock is the oracle.

Not a test module: the tests that use it are filed under their features
(test_events: field watches, ClassUnload between sessions; test_method_events:
a native method's entry while stepping; test_frames_control: a step request
after PopFrames). ControlEdgesCase is their base:

    class FieldWatchesThroughJdi(control_edges.ControlEdgesCase):
        def test_...(self):
            self.run_scenario("watch", ["watch a=3 b=20", "done"])

run_scenario(scenario, expected_output) runs `ControlEdges <scenario>` (suspend=y)
once per client, the driver to its end, and compares what the debuggee printed;
drive(client, scenario, port, *extra) runs the driver alone and checks its
"SCENARIO <scenario> PASS" and exit code 0. On failure, tearDown prints every
driver's and debuggee's output.
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


class ControlEdgesCase(unittest.TestCase):
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

    def class_unload_between_sessions(self, client):
        """Scenario unload: a first session makes a ClassUnload request and
        detaches; a class is loaded while no debugger is attached; the second
        session's ClassUnload request reports it unloaded."""
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
