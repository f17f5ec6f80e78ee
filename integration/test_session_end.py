#!/usr/bin/env python3
"""Session end: Dispose and disconnect at any moment leave the VM running and clean.

Each scenario runs fixtures/SessionEnd.java (main prints "tick N", a "worker"
thread prints "work N", forever) with server=y,suspend=n, puts the VM in some
state through a raw JDWP client (jdwp_client.py), ends the session, and then
checks, against our agent and the JDK's own:
  - the program runs on: both threads print further progress;
  - a second debugger attaches (on the port of the second Listening line) and
    finds a clean state: suspend counts 0, and no event of the old session
    comes (an old SUSPEND_ALL breakpoint or step would also stop the progress).

The scenarios JDI can express also run with the session driven and ended by a
JDI debugger, jdi/SessionEndJdi.java, through the JDK's JDI and through
Eclipse's (eclipse/SessionEndEclipse.java): it ends with VirtualMachine.dispose()
or by going away (its process halts); the same raw second debugger then checks.
HoldEvents, which JDI does not expose, stays raw only.
"""

from __future__ import annotations

import os
import re
import socket
import struct
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from harness import fixture_line  # noqa: E402
from jdwp_client import (Client, ConnectionClosed, EventKind, EventRequest, StepDepth, StepSize,  # noqa: E402
                         SuspendPolicy, ThreadReference, ThreadStatus, ClassType, Reader, VirtualMachine, i32, i64)

OPTIONS = "transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0"
LISTENING = r"Listening for transport dt_socket at address: (\d+)\n"
SOURCE = "SessionEnd.java"

PROGRESS_TIMEOUT_S = 20
DRIVER_TIMEOUT_S = 60
# A debugger that reads nothing for STALL_S: the VM may grow by less than
# STALL_GROWTH_LIMIT_MB (ours: about 24), and by less than
# STALL_LATE_GROWTH_LIMIT_MB in the stall's second half.
STALL_S = 4
STALL_GROWTH_LIMIT_MB = 48
STALL_LATE_GROWTH_LIMIT_MB = 8
CLIENTS = ("jdk", "eclipse")  # whose JDI drives the first session
# SessionEndJdi scenario: what the raw test of the same state is called.
JDI_SCENARIOS = {
    "bp-dispose": "dispose_while_stopped_at_a_breakpoint",
    "bp-disconnect": "disconnect_while_stopped_at_a_breakpoint",
    "nested-dispose": "dispose_with_nested_thread_and_vm_suspensions",
    "nested-event-disconnect": "disconnect_with_nested_suspensions_and_an_event_suspension",
    "step-dispose": "dispose_during_a_step",
    "step-pending-disconnect": "disconnect_with_a_step_pending",
    "in-flight-dispose": "dispose_with_events_in_flight",
    "invoke-dispose": "dispose_during_an_invocation",
    "spin-dispose": "dispose_right_after_vm_suspend_with_threads_in_callbacks",
}
# Sessions in a row for spin-dispose through JDI (the raw test does 5).
JDI_SPIN_ROUNDS = 2


class SessionEndTest(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        self.proc = harness.Debuggee(self.cfg, "SessionEnd", options=OPTIONS)
        self.clients = []
        self.sessions = 1

    def tearDown(self):
        for c in self.clients:
            c.close()
        self.proc.__exit__(None, None, None)
        if harness.test_failed(self):
            print(f"--- stdout (tail):\n{self.proc.stdout[-2000:]}\n--- stderr:\n{self.proc.stderr}")

    # -- helpers --

    def connect(self, port: int) -> Client:
        c = Client(port)
        self.clients.append(c)
        return c

    def first_client(self) -> Client:
        port = self.proc.port
        self.proc.wait_for_output(r"(?m)^work 1$", PROGRESS_TIMEOUT_S)  # SessionEnd loaded, both threads going
        c = self.connect(port)
        self.fixture = c.class_by_signature("LSessionEnd;")
        self.method_ids = {m.name: m.id for m in c.methods(self.fixture)}
        return c

    def progress(self, what: str) -> int:
        found = re.findall(rf"(?m)^{what} (\d+)$", self.proc.stdout)
        return int(found[-1]) if found else -1

    def wait_for_progress(self, steps: int = 3):
        """Both threads print `steps` more lines from now on."""
        for what in ("tick", "work"):
            target = self.progress(what) + steps
            self.proc.wait_for_output(rf"(?m)^{what} {target}$", PROGRESS_TIMEOUT_S)

    def index_of_line(self, c: Client, method: str, marker: str) -> int:
        return c.code_index(self.fixture, self.method_ids[method], fixture_line(SOURCE, marker))

    def set_breakpoint(self, c: Client, method: str, marker: str, policy: int = SuspendPolicy.ALL) -> int:
        location = (bytes([1]) + c.type_id(self.fixture) + c.method_id(self.method_ids[method])
                    + i64(self.index_of_line(c, method, marker)))
        modifiers = bytes([7]) + location
        return c.ok(EventRequest.Set, bytes([EventKind.BREAKPOINT, policy]) + i32(1) + modifiers).int()

    def set_step(self, c: Client, thread: int) -> int:
        modifiers = bytes([10]) + c.object_id(thread) + i32(StepSize.LINE) + i32(StepDepth.OVER)
        return c.ok(EventRequest.Set, bytes([EventKind.SINGLE_STEP, SuspendPolicy.ALL]) + i32(1) + modifiers).int()

    def next_event(self, c: Client) -> tuple:
        """(suspend policy, [(kind, request id, thread or None)]) of the next composite."""
        if c.events:
            data = c.events.pop(0)
        else:
            data = c.read_event()
            c.events.pop()  # read_event keeps what it returns
        r = Reader(data, c.sizes)
        policy = r.byte()
        events = []
        for _ in range(r.int()):
            kind, request = r.byte(), r.int()
            thread = None
            if kind in (EventKind.SINGLE_STEP, EventKind.BREAKPOINT):
                thread = r.id()
                r.location()
            events.append((kind, request, thread))
            if kind not in (EventKind.SINGLE_STEP, EventKind.BREAKPOINT):
                break  # the tests read no other kind further
        return policy, events

    def suspend_count(self, c: Client, thread: int) -> int:
        return c.ok(ThreadReference.SuspendCount, c.object_id(thread)).int()

    def end_with_dispose(self, c: Client):
        c.ok(VirtualMachine.Dispose)
        # The agent closes the connection after the reply. Events already on
        # their way may come first (stock sends a SUSPEND_NONE breakpoint's
        # event after the reply now and then); no other reply may.
        with self.assertRaises(ConnectionClosed):
            while True:
                packet = c.read_packet()
                self.assertFalse(packet.is_reply, f"a reply after Dispose's: {packet}")

    def end_with_disconnect(self, c: Client):
        c.sock.shutdown(socket.SHUT_RDWR)
        c.close()
        self.clients.remove(c)

    def listening_port(self) -> int:
        """The port of the Listening line for session number self.sessions (from 1)."""
        m = self.proc.wait_for_output(r"(?s)" + rf"{LISTENING}.*?" * (self.sessions - 1) + LISTENING,
                                      PROGRESS_TIMEOUT_S)
        return int(m.groups()[-1])

    def second_debugger_sees_a_clean_vm(self):
        """The program runs on; a new debugger finds counts 0 and no old event."""
        self.wait_for_progress()
        # The agent listens again and says so (stock on a new port, jdwpx on the same).
        self.sessions += 1
        c = self.connect(self.listening_port())
        threads = c.threads_by_name()
        for name in ("main", "worker"):
            self.assertEqual(self.suspend_count(c, threads[name]), 0, name)
        self.wait_for_progress()
        c.ok(VirtualMachine.Version)  # any event sent before this reply is in c.events now
        self.assertEqual(c.events, [])
        # And it works from there: its own breakpoint stops the worker once.
        self.fixture = c.class_by_signature("LSessionEnd;")
        self.method_ids = {m.name: m.id for m in c.methods(self.fixture)}
        request = self.set_breakpoint(c, "work", "// @bp-work", policy=1)  # EVENT_THREAD
        policy, events = self.next_event(c)
        self.assertEqual((policy, events), (1, [(EventKind.BREAKPOINT, request, threads["worker"])]))
        self.assertEqual(self.suspend_count(c, threads["worker"]), 1)
        self.assertEqual(self.suspend_count(c, threads["main"]), 0)
        c.ok(EventRequest.Clear, bytes([EventKind.BREAKPOINT]) + i32(request))
        c.ok(ThreadReference.Resume, c.object_id(threads["worker"]))
        self.wait_for_progress()
        return c

    # -- scenarios --

    def stopped_at_breakpoint(self) -> tuple:
        c = self.first_client()
        request = self.set_breakpoint(c, "tick", "// @bp-tick")
        policy, events = self.next_event(c)
        self.assertEqual(policy, SuspendPolicy.ALL)
        self.assertEqual(events[0][:2], (EventKind.BREAKPOINT, request))
        return c, events[0][2]

    def test_dispose_while_stopped_at_a_breakpoint(self):
        c, main = self.stopped_at_breakpoint()
        self.assertEqual(self.suspend_count(c, main), 1)
        self.end_with_dispose(c)
        self.second_debugger_sees_a_clean_vm()

    def test_disconnect_while_stopped_at_a_breakpoint(self):
        c, _ = self.stopped_at_breakpoint()
        self.end_with_disconnect(c)
        self.second_debugger_sees_a_clean_vm()

    def test_dispose_with_nested_thread_and_vm_suspensions(self):
        c = self.first_client()
        worker = c.thread_named("worker")
        for _ in range(3):
            c.ok(ThreadReference.Suspend, c.object_id(worker))
        for _ in range(2):
            c.ok(VirtualMachine.Suspend)
        self.assertEqual(self.suspend_count(c, worker), 5)
        self.assertEqual(self.suspend_count(c, c.thread_named("main")), 2)
        self.end_with_dispose(c)
        self.second_debugger_sees_a_clean_vm()

    def test_disconnect_with_nested_suspensions_and_an_event_suspension(self):
        c, main = self.stopped_at_breakpoint()
        c.ok(ThreadReference.Suspend, c.object_id(main))
        c.ok(VirtualMachine.Suspend)
        self.assertEqual(self.suspend_count(c, main), 3)
        self.end_with_disconnect(c)
        self.second_debugger_sees_a_clean_vm()

    def test_dispose_during_a_step(self):
        c, main = self.stopped_at_breakpoint()
        c.ok(EventRequest.ClearAllBreakpoints)
        step = self.set_step(c, main)
        c.ok(VirtualMachine.Resume)
        policy, events = self.next_event(c)
        self.assertEqual((policy, events[0][:2]), (SuspendPolicy.ALL, (EventKind.SINGLE_STEP, step)))
        # Stopped by the step, with the step request still set: end here.
        self.end_with_dispose(c)
        self.second_debugger_sees_a_clean_vm()

    def test_disconnect_with_a_step_pending(self):
        c, main = self.stopped_at_breakpoint()
        self.set_step(c, main)  # never resumed into: the step must not survive the session
        self.end_with_disconnect(c)
        self.second_debugger_sees_a_clean_vm()

    def test_dispose_with_events_held(self):
        c = self.first_client()
        c.ok(VirtualMachine.HoldEvents)
        self.set_breakpoint(c, "work", "// @bp-work", policy=SuspendPolicy.NONE)
        self.wait_for_progress()  # several held breakpoint events meanwhile
        c.ok(VirtualMachine.Version)
        self.assertEqual(c.events, [])
        self.end_with_dispose(c)
        self.second_debugger_sees_a_clean_vm()

    def test_dispose_with_events_in_flight(self):
        # Breakpoints on both threads, every hit suspending all, and the session
        # ends without reading one event: queued or half-applied suspensions of
        # the old session must not stop anything afterwards.
        if self.cfg.agent == "stock":
            # Stock breaks the spec here (Dispose resumes the VM), one run in many on a
            # loaded machine: a SUSPEND_ALL hit in flight suspended every thread after
            # the dispose, and nothing resumed them (the full suite, 2026-11-29: the
            # second debugger saw no thread move for 20 s). The test stays on the spec.
            self.skipTest("stock may leave the VM suspended when a SUSPEND_ALL event races Dispose")
        c = self.first_client()
        self.set_breakpoint(c, "tick", "// @bp-tick")
        self.set_breakpoint(c, "work", "// @bp-work")
        self.end_with_dispose(c)
        self.second_debugger_sees_a_clean_vm()

    # Once hung ours ~1 run in 4: VirtualMachine.Suspend JVMTI-suspended the
    # spinner just before its breakpoint callback counted itself in, and the
    # suspension took effect inside the callback with EventManager's lock held
    # (fixed in ThreadControl::EnterCallback).
    def test_dispose_right_after_vm_suspend_with_threads_in_callbacks(self):
        # The spinner is nearly always inside a breakpoint callback: its
        # suspension is deferred to the callback's end, which may come after the
        # session ended. Several sessions in a row to meet that window.
        c = self.first_client()
        for _ in range(5):
            self.set_breakpoint(c, "spin", "// @bp-spin", policy=SuspendPolicy.NONE)
            c.ok(VirtualMachine.Suspend)
            self.end_with_dispose(c)
            c = self.second_debugger_sees_a_clean_vm()
            spinner = c.thread_named("spinner")
            self.assertEqual(self.suspend_count(c, spinner), 0)
            self.proc.wait_for_output(rf"(?m)^spin {self.progress('spin') + 2}$", PROGRESS_TIMEOUT_S)

    def test_disconnect_with_a_suspending_event_held(self):
        c = self.first_client()
        worker = c.thread_named("worker")
        c.ok(VirtualMachine.HoldEvents)
        self.set_breakpoint(c, "work", "// @bp-work", policy=1)  # EVENT_THREAD
        # The worker (every 20 ms) meets its breakpoint while main ticks on; its
        # event is held, and, as stock, so is the suspension: the worker waits in
        # the agent with a count of 0. It must run on after the session.
        target = self.progress("tick") + 5
        self.proc.wait_for_output(rf"(?m)^tick {target}$", PROGRESS_TIMEOUT_S)
        self.assertEqual(self.suspend_count(c, worker), 0)
        self.assertEqual(c.events, [])
        # Released: the event comes, its suspension with it.
        c.ok(VirtualMachine.ReleaseEvents)
        policy, events = self.next_event(c)
        self.assertEqual((policy, events[0][0], events[0][2]), (1, EventKind.BREAKPOINT, worker))
        self.assertEqual(self.suspend_count(c, worker), 1)
        c.ok(VirtualMachine.HoldEvents)  # and the session ends while held again
        self.end_with_disconnect(c)
        self.second_debugger_sees_a_clean_vm()

    def test_dispose_during_an_invocation(self):
        c, main = self.stopped_at_breakpoint()
        slow = self.method_ids["slow"]
        invoke = c.send_command(ClassType.InvokeMethod, c.type_id(self.fixture) + c.object_id(main)
                                + c.method_id(slow) + i32(1) + b"I" + i32(1000) + i32(0))
        dispose = c.send_command(VirtualMachine.Dispose)
        replies = set()
        try:
            while dispose not in replies:
                packet = c.read_packet()
                if packet.is_reply:
                    replies.add(packet.id)
        except ConnectionClosed:
            pass
        self.assertIn(dispose, replies)
        self.assertLessEqual(replies, {invoke, dispose})
        self.proc.wait_for_output(r"slow done\n", PROGRESS_TIMEOUT_S)
        self.second_debugger_sees_a_clean_vm()

    def test_vm_death_is_sent_before_the_connection_closes(self):
        self.proc.__exit__(None, None, None)
        self.proc = harness.Debuggee(self.cfg, "SessionEnd", args=["5"],
                                     options=OPTIONS.replace("suspend=n", "suspend=y"))
        c = self.connect(self.proc.port)
        c.wait_for_vm_start()
        c.events.clear()
        c.ok(VirtualMachine.Resume)
        kinds = []
        try:
            while True:
                _, events = self.next_event(c)
                kinds += [kind for kind, _, _ in events]
        except ConnectionClosed:
            pass
        self.assertEqual(kinds[-1:], [EventKind.VM_DEATH])
        self.assertEqual(self.proc.wait(30), 0)
        self.assertIn("main done", self.proc.stdout)

    def test_vm_exits_during_a_storm_of_events(self):
        self.storm_until_the_vm_exits(SuspendPolicy.NONE)

    def test_vm_exits_during_a_storm_of_suspending_events(self):
        self.storm_until_the_vm_exits(SuspendPolicy.EVENT_THREAD)

    def storm_until_the_vm_exits(self, policy: int):
        # A breakpoint in the spinner's loop: events as fast as the agent reports
        # them (and the debugger resumes them, for SUSPEND_EVENT_THREAD), while main
        # ends the program. Every event reported goes out, then VMDeath, then the
        # connection closes; the VM exits on time with its own code.
        c = self.first_client()
        c.ok(VirtualMachine.Suspend)
        bp = self.set_breakpoint(c, "spin", "// @bp-spin", policy=policy)
        fields = c.fields(self.fixture)
        ticks = c.static_values(self.fixture, [fields["ticks"].id])[0][1]
        # 15 ticks of 20 ms: a storm long enough to count on a loaded machine.
        c.ok(ClassType.SetValues, c.type_id(self.fixture) + i32(1) + c.field_id(fields["limit"].id) + i32(ticks + 15))
        c.events.clear()
        c.ok(VirtualMachine.Resume)
        hits, last, closed = 0, None, False
        # Until the connection closes, and then the events read meanwhile (VMDeath
        # comes while the last Resume waits for a reply the exiting VM may never send).
        while c.events or not closed:
            if not c.events:
                try:
                    c.read_event()  # kept in c.events
                except (ConnectionClosed, ConnectionResetError):  # stock may reset it
                    closed = True
                continue
            _, events = self.next_event(c)
            for kind, request, thread in events:
                hits += kind == EventKind.BREAKPOINT and request == bp
                last = kind
                if kind == EventKind.BREAKPOINT and policy == SuspendPolicy.EVENT_THREAD and not closed:
                    try:
                        # VM_DEAD once VMDeath is on its way; THREAD_NOT_SUSPENDED: never.
                        self.assertIn(c.error(ThreadReference.Resume, c.object_id(thread)), (0, 112))
                    except (ConnectionClosed, ConnectionResetError):  # stock may reset it
                        closed = True
        self.assertEqual(last, EventKind.VM_DEATH, f"{hits} hits")
        # Stock now and then sends none of the storm before VMDeath (1 run in 24, JDK 25,
        # SUSPEND_NONE; usually thousands): the storm is checked on ours. A bound well
        # below the usual count: at load 6-7 on 2 cores, 5 ticks once gave only 28 hits.
        if self.cfg.agent == "ours":
            self.assertGreater(hits, 20)
        self.assertEqual(self.proc.wait(30), 0)
        self.assertIn("main done", self.proc.stdout)

    def test_a_debugger_that_stops_reading_leaves_the_vm_bounded(self):
        # A SUSPEND_NONE breakpoint in the spinner's loop, and a debugger that then
        # reads nothing (a hung IDE, a stalled tunnel): what the VM keeps of the
        # unread events is bounded, as stock's is (it holds the event threads back
        # beyond 50 KB; ours beyond 4 MB queued in the agent and 4 MB in the
        # transport). Without a bound ours grew by some 20 MB a second here. Then
        # the debugger reads again: the breakpoint's events come, and it disposes.
        c = self.first_client()
        c.ok(VirtualMachine.Suspend)
        bp = self.set_breakpoint(c, "spin", "// @bp-spin", policy=SuspendPolicy.NONE)
        rss_before = self.rss_mb()
        c.ok(VirtualMachine.Resume)
        # Reading nothing for a while is the scenario: watch the memory meanwhile.
        samples, start = [], time.monotonic()
        while time.monotonic() - start < STALL_S and (not samples or samples[-1][1] < STALL_GROWTH_LIMIT_MB):
            samples.append((time.monotonic() - start, self.rss_mb() - rss_before))
            time.sleep(0.1)
        grown = max(growth for _, growth in samples)
        self.assertLess(grown, STALL_GROWTH_LIMIT_MB, "RSS growth (MB) while the debugger read nothing")
        # Bounded, not merely slow: in the stall's last half it grows by little more.
        half = [growth for at, growth in samples if at >= STALL_S / 2]
        self.assertLess(max(half) - min(half), STALL_LATE_GROWTH_LIMIT_MB, f"growth (MB): {samples}")
        for _ in range(1000):
            _, events = self.next_event(c)
            self.assertEqual([(kind, request) for kind, request, _ in events], [(EventKind.BREAKPOINT, bp)])
        c.events.clear()
        self.end_with_dispose(c)
        self.wait_for_progress()

    def rss_mb(self) -> float:
        with open(f"/proc/{self.proc.proc.pid}/status") as status:
            return next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) / 1024

    def test_dispose_is_answered_although_the_vm_then_exits_at_once(self):
        # Dispose resumes the VM, whose main then ends at once: the reply, sent
        # before, is written before the process ends (JDI's dispose() waits for it).
        self.proc.__exit__(None, None, None)
        for attempt in range(10):
            with self.subTest(attempt=attempt):
                self.proc = harness.Debuggee(self.cfg, "SessionEnd", args=["0"],
                                             options=OPTIONS.replace("suspend=n", "suspend=y"))
                c = self.connect(self.proc.port)
                c.wait_for_vm_start()
                self.end_with_dispose(c)
                self.assertEqual(self.proc.wait(30), 0)
                self.assertIn("main done", self.proc.stdout)
                self.proc.__exit__(None, None, None)

    def test_a_suspend_all_vm_death_request_holds_the_vm_until_resumed(self):
        # As stock: the requested VMDeath and the automatic one (request 0) come in
        # one set with the request's policy, and the dying VM, suspended, waits
        # for the debugger (what JDI's VMDeathRequest is for).
        self.proc.__exit__(None, None, None)
        self.proc = harness.Debuggee(self.cfg, "SessionEnd", args=["5"],
                                     options=OPTIONS.replace("suspend=n", "suspend=y"))
        c = self.connect(self.proc.port)
        c.wait_for_vm_start()
        request = c.ok(EventRequest.Set, bytes([EventKind.VM_DEATH, SuspendPolicy.ALL]) + i32(0)).int()
        c.events.clear()
        c.ok(VirtualMachine.Resume)
        while True:
            data = c.events.pop(0) if c.events else c.read_event()
            if data[5] == EventKind.VM_DEATH:
                break
        r = Reader(data, c.sizes)
        policy = r.byte()
        events = [(r.byte(), r.int()) for _ in range(r.int())]
        self.assertEqual((policy, events),
                         (SuspendPolicy.ALL, [(EventKind.VM_DEATH, request), (EventKind.VM_DEATH, 0)]))
        r = c.ok(VirtualMachine.AllThreads)
        for thread in [r.id() for _ in range(r.int())]:
            if c.ok(ThreadReference.Status, c.object_id(thread)).int() != ThreadStatus.ZOMBIE:
                name = c.ok(ThreadReference.Name, c.object_id(thread)).string()
                self.assertEqual(self.suspend_count(c, thread), 1, name)
        self.assertIsNone(self.proc.returncode, "the VM ended before the debugger resumed it")
        c.ok(VirtualMachine.Resume)
        self.assertEqual(self.proc.wait(30), 0)
        self.assertIn("main done", self.proc.stdout)

    # -- the same through JDI clients --

    def drive(self, client: str, scenario: str, port: int) -> str:
        """Runs SessionEndJdi through client's JDI; its output once it passed."""
        classpath, main = harness.jdi_driver(self, self.cfg, client, "SessionEndJdi", "SessionEndEclipse")
        args = [scenario, str(port), os.path.join(harness.FIXTURES_SRC, SOURCE), client]
        handshake_timeouts = self.proc.stderr.count("timeout during handshake")
        rc, out, err = harness.run_java(self.cfg, ["-cp", os.pathsep.join(classpath)], main, args,
                                        timeout=DRIVER_TIMEOUT_S)
        if (rc != 0 and "ClosedConnectionException" in out
                and self.proc.stderr.count("timeout during handshake") > handshake_timeouts):
            # Both agents give a debugger 2 s for its handshake (stock's limit, jdwpx's
            # default): on a loaded machine Eclipse's client was slower. The agent
            # listens on; once more.
            print(f"  {client} {scenario}: stock timed the handshake out; attaching again", flush=True)
            rc, out, err = harness.run_java(self.cfg, ["-cp", os.pathsep.join(classpath)], main, args,
                                            timeout=DRIVER_TIMEOUT_S)
        report = f"--- {client} driver {scenario} (rc={rc}) stdout:\n{out}\n--- stderr:\n{err}"
        for line in out.splitlines():
            if line.startswith("DETAIL "):
                print(f"  {client} {scenario}: {line[len('DETAIL '):]}", flush=True)
            elif line.startswith("SKIP "):
                print(f"  {client}: {line}", flush=True)
        self.assertIn("RESULT ok", out, report)
        self.assertEqual(rc, 0, report)
        return out

    def end_through_jdi(self, client: str, scenario: str):
        self.proc.wait_for_output(r"(?m)^work 1$", PROGRESS_TIMEOUT_S)
        for round_number in range(JDI_SPIN_ROUNDS if scenario == "spin-dispose" else 1):
            if round_number:
                self.end_with_dispose(c)  # the checking session ends before the next round
                self.sessions += 1
            self.drive(client, scenario, self.listening_port())
            if scenario == "invoke-dispose":
                self.proc.wait_for_output(r"slow done\n", PROGRESS_TIMEOUT_S)
            c = self.second_debugger_sees_a_clean_vm()
            if scenario == "spin-dispose":
                self.assertEqual(self.suspend_count(c, c.thread_named("spinner")), 0)
                self.proc.wait_for_output(rf"(?m)^spin {self.progress('spin') + 2}$", PROGRESS_TIMEOUT_S)

    def vm_death_through_jdi(self, client: str, scenario: str):
        self.proc.__exit__(None, None, None)
        self.proc = harness.Debuggee(self.cfg, "SessionEnd", args=["5"],
                                     options=OPTIONS.replace("suspend=n", "suspend=y"))
        self.drive(client, scenario, self.proc.port)
        self.assertEqual(self.proc.wait(30), 0)
        self.assertIn("main done", self.proc.stdout)


def _add_jdi_tests():
    def scenario_test(client, scenario):
        return lambda self: self.end_through_jdi(client, scenario)

    def death_test(client, scenario):
        return lambda self: self.vm_death_through_jdi(client, scenario)

    for client in CLIENTS:
        for scenario, name in JDI_SCENARIOS.items():
            setattr(SessionEndTest, f"test_{name}_through_{client}_jdi", scenario_test(client, scenario))
        setattr(SessionEndTest, f"test_vm_death_is_sent_before_the_connection_closes_through_{client}_jdi",
                death_test(client, "vm-death"))
        setattr(SessionEndTest, f"test_a_suspend_all_vm_death_request_is_reported_with_its_policy_through_{client}_jdi",
                death_test(client, "vm-death-requested"))


_add_jdi_tests()


if __name__ == "__main__":
    harness.main()
