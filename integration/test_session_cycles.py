#!/usr/bin/env python3
"""Sessions one after another on one running program (server=y,suspend=n).

Each session is a new debugger that knows nothing of the ones before, so an ID
the agent kept from an earlier session (a location's class, a method's
declaring type) or a close meant for the previous connection shows up here.

- through JDI (jdi/SessionCyclesJdi.java): 20 sessions of attach,
  classesByName, a breakpoint, its hit, frame(0).visibleVariableByName("n"),
  allThreads(), dispose(). Once failed on the second session under jdwpx:
  the breakpoint's location carried the class ID cached in the first session,
  whose ID table the end of that session had reset (INVALID_OBJECT from
  ReferenceType.MethodsWithGeneric, ObjectCollectedException in JDI).
- through a raw client (jdwp_client.py): sessions back to back with requests
  set and events in flight (MethodEntry and field modification events on every
  tick, a SUSPEND_ALL breakpoint), each ended a different way (Dispose with the
  thread stopped, Dispose after resuming, going away without a word); the
  next session must attach, find the VM running, and get replies and events of
  its own only. Once the next connection was now and then closed by jdwpx: the
  previous session's Dispose closed whichever connection was attached when its
  teardown finished, and a connection accepted before the previous one was seen
  closed was refused.
"""

from __future__ import annotations

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import fixture_line  # noqa: E402
from jdwp_client import (Client, ConnectionClosed, EventKind, EventRequest, ModKind, SuspendPolicy,  # noqa: E402
                         ThreadReference, TypeTag, VirtualMachine, i32, i64)

OPTIONS = "transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0"
LISTENING = r"Listening for transport dt_socket at address: (\d+)\n"
SOURCE = "SessionCycles.java"
CYCLE_TIMEOUT_S = 60
JDI_CYCLES = 20
RAW_CYCLES = 60


class SessionCyclesTest(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        self.proc = harness.Debuggee(self.cfg, "SessionCycles", options=OPTIONS)
        self.proc.wait_for_output(r"ticking\n", CYCLE_TIMEOUT_S)
        self.driver = None
        self.ports = []  # of the Listening lines read so far
        self.listening_end = 0

    def tearDown(self):
        if self.driver:
            self.driver.__exit__(None, None, None)
        self.proc.__exit__(None, None, None)
        if harness.test_failed(self):
            print(f"--- debuggee stderr:\n{self.proc.stderr}")
            if self.driver:
                print(f"--- driver stdout:\n{self.driver.stdout}\n--- driver stderr:\n{self.driver.stderr}")

    def listening_port(self, session: int) -> int:
        """The port of the Listening line of session number `session` (from 1): stock
        listens on a new port after each session, jdwpx on the same one."""
        while len(self.ports) < session:
            m = self.proc._out.wait_for(LISTENING, self.listening_end, CYCLE_TIMEOUT_S)
            self.assertIsNotNone(m, f"no Listening line for session {len(self.ports) + 1}")
            self.ports.append(int(m.group(1)))
            self.listening_end = m.end()
        return self.ports[session - 1]

    def run_jdi_cycles(self, cycles: int, mode: str):
        classpath = os.path.join(self.cfg.build_dir, "integration", "jdi-classes")
        self.driver = harness._Process([self.cfg.java, "-cp", classpath, "SessionCyclesJdi",
                                        os.path.join(harness.FIXTURES_SRC, SOURCE), mode], stdin=True)
        for cycle in range(cycles):
            port = self.listening_port(cycle + 1)
            self.driver.proc.stdin.write(f"{port}\n".encode())
            self.driver.proc.stdin.flush()
            m = self.driver._out.wait_for(rf"CYCLE {cycle} (.*)\n", 0, CYCLE_TIMEOUT_S)
            self.assertIsNotNone(m, f"cycle {cycle}: no result within {CYCLE_TIMEOUT_S}s")
            self.assertEqual(m.group(1), "ok", f"cycle {cycle}")
        self.driver.proc.stdin.close()
        self.assertEqual(self.driver.wait(CYCLE_TIMEOUT_S), 0)
        self.assertIsNone(self.proc.returncode, "the debuggee ended")

    def test_twenty_jdi_sessions_with_a_breakpoint_and_a_local(self):
        self.run_jdi_cycles(JDI_CYCLES, "basic")

    def test_jdi_sessions_with_a_breakpoint_a_step_and_an_invoke(self):
        self.run_jdi_cycles(5, "soak")

    # -- raw sessions --

    def raw_session(self, c: Client, cycle: int):
        """Sets requests that keep events coming, waits for the breakpoint's stop."""
        fixture = c.class_by_signature("LSessionCycles;")
        tick = c.method_named(fixture, "tick")
        index = c.code_index(fixture, tick, fixture_line(SOURCE, "// @bp-tick"))
        class_only = bytes([ModKind.ClassOnly]) + c.type_id(fixture)
        c.ok(EventRequest.Set, bytes([EventKind.METHOD_ENTRY, SuspendPolicy.NONE]) + i32(1) + class_only)
        ticks = c.fields(fixture)["ticks"].id
        c.ok(EventRequest.Set, bytes([EventKind.FIELD_MODIFICATION, SuspendPolicy.NONE]) + i32(1)
             + bytes([ModKind.FieldOnly]) + c.type_id(fixture) + c.field_id(ticks))
        location = bytes([TypeTag.CLASS]) + c.type_id(fixture) + c.method_id(tick) + i64(index)
        bp = c.ok(EventRequest.Set, bytes([EventKind.BREAKPOINT, SuspendPolicy.ALL]) + i32(1)
                  + bytes([ModKind.LocationOnly]) + location).int()
        while True:
            # The breakpoint's set is the only SUSPEND_ALL one (with the MethodEntry
            # at the same place in it).
            data = c.events.pop(0) if c.events else c.read_event()
            if data[0] == SuspendPolicy.ALL:
                break
        if cycle % 3 == 1:
            # Ended while running with events flowing. The breakpoint goes first:
            # stock now and then leaves main suspended (count 1 in the next
            # session) when a SUSPEND_ALL hit races its Dispose (once in 600
            # sessions, JDK 17); test_session_end covers that race for jdwpx.
            c.ok(EventRequest.Clear, bytes([EventKind.BREAKPOINT]) + i32(bp))
            c.ok(VirtualMachine.Resume)

    def check_fresh_session(self, c: Client):
        """A new session: the VM runs (nothing suspended) and the first reply is its own."""
        main = c.thread_named("main")
        self.assertEqual(c.ok(ThreadReference.SuspendCount, c.object_id(main)).int(), 0)

    def end_raw_session(self, c: Client, cycle: int, next_port):
        """Ends c (Dispose, or going away every third cycle); the next session's client."""
        if cycle % 3 == 2:
            c.close()
            return Client(next_port(), timeout=CYCLE_TIMEOUT_S)
        dispose = c.send_command(VirtualMachine.Dispose)
        if self.cfg.agent == "ours":
            # jdwpx listens again on the same port, so a debugger may connect
            # while this session is still being torn down (stock listens again
            # elsewhere, later): it must be served once this one has ended.
            following = Client(self.proc.port, timeout=CYCLE_TIMEOUT_S)
        replies = set()
        try:
            while True:
                packet = c.read_packet()
                if packet.is_reply:
                    replies.add(packet.id)
        except ConnectionClosed:
            pass
        c.close()
        self.assertEqual(replies, {dispose})
        return following if self.cfg.agent == "ours" else Client(next_port(), timeout=CYCLE_TIMEOUT_S)

    def test_raw_sessions_back_to_back_with_events_in_flight(self):
        session = 1
        c = Client(self.listening_port(session), timeout=CYCLE_TIMEOUT_S)

        def next_port():
            nonlocal session
            session += 1
            return self.listening_port(session)

        for cycle in range(RAW_CYCLES):
            try:
                self.check_fresh_session(c)
                self.raw_session(c, cycle)
                c = self.end_raw_session(c, cycle, next_port)
            except (ConnectionClosed, ConnectionResetError, AssertionError) as e:
                raise AssertionError(f"cycle {cycle}: {e}") from e
        self.check_fresh_session(c)
        c.close()
        self.assertIsNone(self.proc.returncode, "the debuggee ended")


if __name__ == "__main__":
    harness.main()
