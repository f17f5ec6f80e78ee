#!/usr/bin/env python3
"""Several debuggers on one JVM at once (issue 31, sessions=N), with raw clients.

    python3 integration/test_sessions.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

fixtures/Sessions.java loops two threads ("worker" in tick(), "other" in
tock()) until stdin closes. Two or three raw clients attach to the same port
at once and check the rules of docs/sessions.md one by one: each gets the
events of its own requests only, with its own request IDs; suspensions are
counted per session (a thread runs while no session holds it; a session's
resume releases only what it suspended; SuspendCount is the session's own,
Status says whether anyone holds the thread); steps are per session; object
IDs stay valid in one session whatever another disposes; probes are the
session's own; a session's end releases only its own; VMDeath goes to all;
the one debugger too many is refused after its handshake, the others undisturbed.

sessions= is jdwpx's own: against the stock agent the test has nothing to
compare and skips (the other integration tests check that without sessions=
nothing changed).

No sleeps: a thread that runs is seen by the counter it writes, read until
it changes, with a timeout.
"""

from __future__ import annotations

import array
import socket
import struct
import sys
import time
import unittest

import harness
from jdwp_client import (ArrayReference, ClassType, Client, Error, EventKind, EventRequest, Probe, ProbeKind,
                         Reader, ReferenceType, StackFrame, StepDepth, StepSize, StringReference, SuspendPolicy,
                         SuspendStatus, ThreadReference, VirtualMachine, error_name, handshake, i32, i64, reply_header)
from test_probes import set_body

SOURCE = "Sessions.java"
WAIT_S = 30
# A command answered while another session's streamed reply is parked: well
# within this (held behind it, it would wait for as long as that debugger reads nothing).
PROMPT_S = 5.0
# How long the flooding thread's count stays the same when the agent holds it back (it waits
# a second at a time there), and no longer when it runs.
HELD_S = 0.3
# The reply to GetValues of the whole of Sessions.big: header, tag, count, the ints.
BIG_REPLY = 11 + 1 + 4 + 4 * (8 << 20)


# Sessions.text: 24 MiB of ASCII, its reply streamed.
TEXT = b"0123456789abcdef" * (3 << 19)


def big_value(i: int) -> int:
    """Sessions.big[i]."""
    return i * 31 + 7


def big_bytes() -> bytes:
    """Sessions.big's ints on the wire (big-endian)."""
    values = array.array("i", range(7, 7 + 31 * (8 << 20), 31))
    if sys.byteorder == "little":
        values.byteswap()
    return values.tobytes()


def options(sessions: int) -> str:
    return f"transport=dt_socket,server=y,suspend=n,address=0,sessions={sessions}"


class SessionsTest(unittest.TestCase):
    SESSIONS = 3

    def setUp(self):
        self.cfg = harness.config()
        if self.cfg.agent != "ours":
            self.skipTest("sessions= is jdwpx's own option: the stock agent serves one debugger")
        self.proc = harness.Debuggee(self.cfg, "Sessions", options=options(self.SESSIONS), stdin=True)
        self.clients = []
        self.proc.wait_for_output(r"(?m)^ready$", WAIT_S)

    def tearDown(self):
        if not hasattr(self, "proc"):
            return
        for c in self.clients:
            c.close()
        self.proc.__exit__(None, None, None)
        if harness.test_failed(self):
            print(f"--- stdout (tail):\n{self.proc.stdout[-2000:]}\n--- stderr:\n{self.proc.stderr}")

    # -- helpers --

    def connect(self, look_up: bool = True) -> Client:
        """A client that, with `look_up`, is sent the fixture class's and the
        worker thread's IDs itself: IDs are counted per session, and one a
        session was never sent is freed when the sessions that were have gone."""
        c = Client(self.proc.port)
        self.clients.append(c)
        if not look_up:
            return c
        fixture = c.class_by_signature("LSessions;")
        worker = c.thread_named("worker")
        if not hasattr(self, "fixture"):
            self.fixture = fixture
            self.method_ids = {m.name: m.id for m in c.methods(self.fixture)}
            self.counter_field = c.fields(self.fixture)["counter"].id
            self.worker = worker
        self.assertEqual((fixture, worker), (self.fixture, self.worker))  # one ID per object, whoever asked
        return c

    def location(self, c: Client, method: str, marker: str) -> bytes:
        index = c.code_index(self.fixture, self.method_ids[method], harness.fixture_line(SOURCE, marker))
        return bytes([1]) + c.type_id(self.fixture) + c.method_id(self.method_ids[method]) + i64(index)

    def breakpoint(self, c: Client, method: str, marker: str, policy: int, count: int = 0) -> int:
        modifiers = bytes([7]) + self.location(c, method, marker)
        n = 1
        if count:
            modifiers = bytes([1]) + i32(count) + modifiers
            n = 2
        return c.ok(EventRequest.Set, bytes([EventKind.BREAKPOINT, policy]) + i32(n) + modifiers).int()

    def breakpoints_of_both(self, a: Client, b: Client, method: str, marker: str, policy: int) -> tuple:
        """The same breakpoint set by each, while A holds the worker: its next hit is both's."""
        a.ok(ThreadReference.Suspend, a.object_id(self.worker))
        ids = (self.breakpoint(a, method, marker, policy), self.breakpoint(b, method, marker, policy))
        a.ok(ThreadReference.Resume, a.object_id(self.worker))
        return ids

    def step(self, c: Client, thread: int, policy: int = SuspendPolicy.EVENT_THREAD) -> int:
        modifiers = bytes([10]) + c.object_id(thread) + i32(StepSize.LINE) + i32(StepDepth.OVER)
        return c.ok(EventRequest.Set, bytes([EventKind.SINGLE_STEP, policy]) + i32(1) + modifiers).int()

    def clear(self, c: Client, kind: int, request: int):
        c.ok(EventRequest.Clear, bytes([kind]) + i32(request))

    def next_event(self, c: Client) -> tuple:
        """(suspend policy, [(kind, request id, thread, line)]) of the client's next composite."""
        data = c.read_event()
        c.events = [kept for kept in c.events if kept is not data]  # read: no longer waiting
        r = Reader(data, c.sizes)
        policy = r.byte()
        events = []
        for _ in range(r.int()):
            kind, request = r.byte(), r.int()
            thread = line = None
            if kind in (EventKind.SINGLE_STEP, EventKind.BREAKPOINT):
                thread = r.id()
                _, type_id, method_id, index = r.location()
                line = self.line_of(c, method_id, index)
            events.append((kind, request, thread, line))
            if kind not in (EventKind.SINGLE_STEP, EventKind.BREAKPOINT):
                break  # no other kind is read further
        return policy, events

    def line_of(self, c: Client, method_id: int, index: int) -> int:
        table = c.line_table(self.fixture, method_id)
        return max(((code, line) for code, line in table if code <= index), default=(0, -1))[1]

    def suspend_count(self, c: Client, thread: int) -> int:
        return c.ok(ThreadReference.SuspendCount, c.object_id(thread)).int()

    def suspended(self, c: Client, thread: int) -> bool:
        r = c.ok(ThreadReference.Status, c.object_id(thread))
        r.int()  # thread status
        return (r.int() & SuspendStatus.SUSPEND_STATUS_SUSPENDED) != 0

    def counter(self, c: Client) -> int:
        return c.static_values(self.fixture, [self.counter_field])[0][1]

    def static(self, c: Client, name: str):
        return c.static_values(self.fixture, [c.fields(self.fixture)[name].id])[0][1]

    def wait_for_static(self, c: Client, name: str, value):
        deadline = time.monotonic() + WAIT_S
        while self.static(c, name) != value:
            if time.monotonic() > deadline:
                self.fail(f"{name} did not become {value} within {WAIT_S}s")

    def reply_to(self, c: Client, packet_id: int) -> Reader:
        """The reply to a command sent with send_command (events meanwhile are kept); it must succeed."""
        while True:
            packet = c.read_packet()
            if not packet.is_reply:
                c.keep_event(packet.data)
                continue
            self.assertEqual((packet.id, error_name(packet.kind)), (packet_id, error_name(Error.NONE)))
            return Reader(packet.data, c.sizes)

    def wait_until_running(self, c: Client):
        """The worker runs: its counter changes (read until it does, bounded)."""
        first = self.counter(c)
        deadline = time.monotonic() + WAIT_S
        while self.counter(c) == first:
            if time.monotonic() > deadline:
                self.fail(f"the worker did not run within {WAIT_S}s (counter stays {first})")

    def assert_no_event_came(self, c: Client):
        """A round trip, then nothing but replies came (an event sent before the
        reply would have been kept by the client)."""
        c.ok(VirtualMachine.Version)
        self.assertEqual(list(c.events), [], "an event came to a session that asked for none")

    # -- the rules --

    def test_each_session_gets_its_own_event_and_its_own_suspension(self):
        a, b = self.connect(), self.connect()
        bp_a, bp_b = self.breakpoints_of_both(a, b, "tick", "@tick-line", SuspendPolicy.EVENT_THREAD)
        self.assertNotEqual(bp_a, bp_b)
        line = harness.fixture_line(SOURCE, "@tick-line")
        self.assertEqual(self.next_event(a), (SuspendPolicy.EVENT_THREAD,
                                              [(EventKind.BREAKPOINT, bp_a, self.worker, line)]))
        self.assertEqual(self.next_event(b), (SuspendPolicy.EVENT_THREAD,
                                              [(EventKind.BREAKPOINT, bp_b, self.worker, line)]))
        self.assertEqual((self.suspend_count(a, self.worker), self.suspend_count(b, self.worker)), (1, 1))
        # A lets go: B still holds the thread, and both see it suspended.
        a.ok(ThreadReference.Resume, a.object_id(self.worker))
        self.assertEqual((self.suspend_count(a, self.worker), self.suspend_count(b, self.worker)), (0, 1))
        self.assertTrue(self.suspended(a, self.worker))
        self.assertTrue(self.suspended(b, self.worker))
        held = self.counter(a)
        # A's second resume finds nothing of its own to release.
        a.ok(ThreadReference.Resume, a.object_id(self.worker))
        self.assertEqual(self.suspend_count(b, self.worker), 1)
        self.assertEqual(self.counter(b), held)
        # Any session reads the frames of a thread someone holds.
        r = a.ok(ThreadReference.FrameCount, a.object_id(self.worker))
        self.assertGreaterEqual(r.int(), 2)
        # B lets go: the thread runs on to its next hit, which both get.
        b.ok(ThreadReference.Resume, b.object_id(self.worker))
        self.assertEqual(self.next_event(a)[1][0][:2], (EventKind.BREAKPOINT, bp_a))
        self.assertEqual(self.next_event(b)[1][0][:2], (EventKind.BREAKPOINT, bp_b))
        self.clear(a, EventKind.BREAKPOINT, bp_a)
        self.clear(b, EventKind.BREAKPOINT, bp_b)
        a.ok(ThreadReference.Resume, a.object_id(self.worker))
        b.ok(ThreadReference.Resume, b.object_id(self.worker))
        self.wait_until_running(a)

    def test_a_session_gets_no_event_of_another(self):
        a, b = self.connect(), self.connect()
        bp_a = self.breakpoint(a, "tick", "@tick-line", SuspendPolicy.NONE, count=1)
        self.assertEqual(self.next_event(a)[1][0][:2], (EventKind.BREAKPOINT, bp_a))
        self.assert_no_event_came(b)
        # B's own request: its event is B's alone.
        bp_b = self.breakpoint(b, "tock", "@tock-line", SuspendPolicy.NONE, count=1)
        self.assertEqual(self.next_event(b)[1][0][:2], (EventKind.BREAKPOINT, bp_b))
        self.assert_no_event_came(a)
        # A cannot clear B's request: B's next request of the same kind still reports.
        self.clear(a, EventKind.BREAKPOINT, bp_b)
        bp_b2 = self.breakpoint(b, "tock", "@tock-line", SuspendPolicy.NONE, count=1)
        self.clear(a, EventKind.BREAKPOINT, bp_b2)
        self.assertEqual(self.next_event(b)[1][0][:2], (EventKind.BREAKPOINT, bp_b2))

    def test_vm_suspension_is_counted_per_session(self):
        a, b = self.connect(), self.connect()
        a.ok(VirtualMachine.Suspend)
        held = self.counter(a)
        # B holds nothing: its VM resume releases nothing.
        b.ok(VirtualMachine.Resume)
        self.assertEqual((self.suspend_count(a, self.worker), self.suspend_count(b, self.worker)), (1, 0))
        self.assertTrue(self.suspended(b, self.worker))
        self.assertEqual(self.counter(b), held)
        # B's own suspension on top; A's resume leaves B's.
        b.ok(ThreadReference.Suspend, b.object_id(self.worker))
        a.ok(VirtualMachine.Resume)
        self.assertEqual((self.suspend_count(a, self.worker), self.suspend_count(b, self.worker)), (0, 1))
        self.assertEqual(self.counter(a), held)
        b.ok(ThreadReference.Resume, b.object_id(self.worker))
        self.wait_until_running(a)

    def test_a_sessions_end_releases_only_its_own(self):
        a, b, c = self.connect(), self.connect(), self.connect()
        a.ok(ThreadReference.Suspend, a.object_id(self.worker))
        b.ok(ThreadReference.Suspend, b.object_id(self.worker))
        bp_a = self.breakpoint(a, "tock", "@tock-line", SuspendPolicy.ALL)
        self.assertGreater(bp_a, 0)
        a.ok(VirtualMachine.Dispose)
        # A's breakpoint went with it: "other" runs on, and C sees no event.
        held = self.counter(b)
        self.assertEqual(self.suspend_count(b, self.worker), 1)
        self.assertTrue(self.suspended(c, self.worker))
        self.assertEqual(self.counter(c), held)
        self.assert_no_event_came(c)
        # A closed socket (a killed debugger) ends B the same way.
        b.close()
        self.clients.remove(b)
        self.wait_until_running(c)
        self.assertEqual(self.suspend_count(c, self.worker), 0)

    def test_the_debugger_too_many_is_refused_after_its_handshake(self):
        a, b, c = self.connect(), self.connect(), self.connect()
        with socket.create_connection(("127.0.0.1", self.proc.port), timeout=WAIT_S) as extra:
            handshake(extra)
            extra.settimeout(WAIT_S)
            self.assertEqual(extra.recv(1), b"", "the fourth debugger was not closed")
        self.proc.wait_for_output(r"sessions=3", WAIT_S, stream="stderr")
        for client in (a, b, c):
            self.assertGreater(len(client.ok(VirtualMachine.Version).string()), 0)
        # One leaves: the next is served.
        a.ok(VirtualMachine.Dispose)
        a.close()
        self.clients.remove(a)
        d = self.connect()
        self.assertGreater(len(d.ok(VirtualMachine.Version).string()), 0)

    def test_disposing_an_id_in_one_session_leaves_anothers(self):
        a, b = self.connect(), self.connect()
        worker_a = a.thread_named("worker")
        worker_b = b.thread_named("worker")
        self.assertEqual(worker_a, worker_b)  # one ID per object, whoever asked
        a.ok(VirtualMachine.DisposeObjects, i32(1) + a.object_id(worker_a) + i32(1_000_000))
        self.assertEqual(b.ok(ThreadReference.Name, b.object_id(worker_b)).string(), "worker")
        # Pinned by B, unpinned by A (which never pinned it), disposed by B, B gone: A's ID still valid.
        name_field = b.fields(self.fixture)["NAME"].id
        name_id = b.static_values(self.fixture, [name_field])[0][1]
        self.assertEqual(a.static_values(self.fixture, [name_field])[0][1], name_id)
        b.ok((9, 7), b.object_id(name_id))  # ObjectReference.DisableCollection
        a.ok((9, 8), a.object_id(name_id))  # ObjectReference.EnableCollection
        b.ok(VirtualMachine.DisposeObjects, i32(1) + b.object_id(name_id) + i32(1_000_000))
        b.ok(VirtualMachine.Dispose)
        self.assertEqual(a.ok((10, 1), a.object_id(name_id)).string(), "sessions")  # StringReference.Value

    def assert_invalid(self, c: Client, object_id: int):
        """The ID is freed: ObjectReference.ReferenceType answers INVALID_OBJECT."""
        self.assertEqual(error_name(c.error((9, 1), c.object_id(object_id))), error_name(Error.INVALID_OBJECT))

    def dispose(self, c: Client, object_id: int, count: int):
        c.ok(VirtualMachine.DisposeObjects, i32(1) + c.object_id(object_id) + i32(count))

    def test_an_id_is_freed_once_no_session_holds_it(self):
        a, b = self.connect(), self.connect()
        name_field = a.fields(self.fixture)["NAME"].id

        def name_id(c: Client) -> int:
            return c.static_values(self.fixture, [name_field])[0][1]

        def value(c: Client, string_id: int) -> str:
            return c.ok((10, 1), c.object_id(string_id)).string()  # StringReference.Value

        # Sent to both, disposed by both: freed, as with one debugger. A's count,
        # however big, takes off only what A was sent.
        shared = name_id(a)
        self.assertEqual(name_id(b), shared)
        self.dispose(a, shared, 1_000_000)
        self.assertEqual(value(b, shared), "sessions")
        self.dispose(b, shared, 1)
        self.assert_invalid(a, shared)
        # Sent to B alone: B's end frees it (IDs are shared, so A may name it meanwhile).
        b_only = name_id(b)
        self.assertNotEqual(b_only, shared)  # never reused
        self.assertEqual(value(a, b_only), "sessions")
        b.ok(VirtualMachine.Dispose)
        self.assert_invalid(a, b_only)
        # The first debugger's end: what another holds stays, what it alone was sent goes.
        c = self.connect()
        kept = name_id(a)
        self.assertEqual(name_id(c), kept)
        group = a.ok(ThreadReference.ThreadGroup, a.object_id(self.worker)).id()  # sent to A only
        self.assertEqual(c.ok((12, 1), c.object_id(group)).string(), "main")  # ThreadGroupReference.Name
        a.ok(VirtualMachine.Dispose)
        self.assertEqual(value(c, kept), "sessions")
        self.assert_invalid(c, group)
        # C alone now: its dispose frees, as with one debugger.
        self.dispose(c, kept, 1)
        self.assert_invalid(c, kept)

    def test_an_events_ids_are_counted_for_the_session_it_goes_to(self):
        # B looks nothing up: the worker's ID comes to it in its event alone.
        a, b = self.connect(), self.connect(look_up=False)
        bp = self.breakpoint(b, "tick", "@tick-line", SuspendPolicy.NONE, count=1)
        self.assertEqual(self.next_event(b)[1], [(EventKind.BREAKPOINT, bp, self.worker,
                                                  harness.fixture_line(SOURCE, "@tick-line"))])
        # A disposes the worker's ID: B was sent it in its event and still holds it.
        self.dispose(a, self.worker, 1_000_000)
        self.assertEqual(b.ok(ThreadReference.Name, b.object_id(self.worker)).string(), "worker")
        self.dispose(b, self.worker, 1)
        self.assert_invalid(b, self.worker)

    def test_probes_are_the_sessions_own(self):
        a, b = self.connect(), self.connect()
        r = a.ok(Probe.Set, set_body(ProbeKind.LOG, "Sessions:" + str(harness.fixture_line(SOURCE, "@tick-line")),
                                     "tick {i}", max_hits=1))
        probe = r.int()
        self.assertGreater(probe, 0)
        self.assertEqual(b.ok(Probe.List).int(), 0)
        self.assertEqual(b.error(Probe.Clear, i32(probe)), Error.INVALID_INDEX)
        self.assertEqual(a.ok(Probe.List).int(), 1)
        output = Reader(a.read_probe_output().data)
        self.assertEqual(output.int(), probe)
        output.long(), output.string(), output.string()  # time, thread, location
        self.assertRegex(output.string(), r"^tick \d+$")
        self.assertEqual(list(b.probe_output), [])

    def test_two_sessions_step_the_same_thread(self):
        a, b = self.connect(), self.connect()
        bp_a, bp_b = self.breakpoints_of_both(a, b, "tick", "@tick-line", SuspendPolicy.EVENT_THREAD)
        self.next_event(a)
        self.next_event(b)
        self.clear(a, EventKind.BREAKPOINT, bp_a)
        self.clear(b, EventKind.BREAKPOINT, bp_b)
        step_a = self.step(a, self.worker)
        step_b = self.step(b, self.worker)
        a.ok(ThreadReference.Resume, a.object_id(self.worker))
        b.ok(ThreadReference.Resume, b.object_id(self.worker))
        next_line = harness.fixture_line(SOURCE, "@tick-next")
        self.assertEqual(self.next_event(a)[1], [(EventKind.SINGLE_STEP, step_a, self.worker, next_line)])
        self.assertEqual(self.next_event(b)[1], [(EventKind.SINGLE_STEP, step_b, self.worker, next_line)])
        self.assertEqual((self.suspend_count(a, self.worker), self.suspend_count(b, self.worker)), (1, 1))
        # A steps on alone; B keeps the thread where it is until it resumes.
        self.clear(a, EventKind.SINGLE_STEP, step_a)
        step_a = self.step(a, self.worker)
        a.ok(ThreadReference.Resume, a.object_id(self.worker))
        self.assertEqual(self.suspend_count(b, self.worker), 1)
        self.clear(b, EventKind.SINGLE_STEP, step_b)
        b.ok(ThreadReference.Resume, b.object_id(self.worker))
        return_line = harness.fixture_line(SOURCE, "@tick-return")
        self.assertEqual(self.next_event(a)[1], [(EventKind.SINGLE_STEP, step_a, self.worker, return_line)])
        self.assert_no_event_came(b)
        self.clear(a, EventKind.SINGLE_STEP, step_a)
        a.ok(ThreadReference.Resume, a.object_id(self.worker))
        self.wait_until_running(b)

    def test_a_session_pops_frames_of_a_thread_another_also_holds(self):
        a, b = self.connect(), self.connect()
        bp_a, bp_b = self.breakpoints_of_both(a, b, "tick", "@tick-line", SuspendPolicy.EVENT_THREAD)
        self.next_event(a)
        self.next_event(b)
        before = b.frames(self.worker)
        held = self.counter(a)
        # A pops tick() (the thread runs to its next bytecode for that), as it would alone.
        a.ok(StackFrame.PopFrames, a.object_id(self.worker) + a.frame_id(before[0][0]))
        # B's hold stands: the thread is suspended where the pop left it, B reads the new top frame.
        self.assertEqual((self.suspend_count(a, self.worker), self.suspend_count(b, self.worker)), (1, 1))
        self.assertTrue(self.suspended(b, self.worker))
        after = b.frames(self.worker)
        self.assertEqual([location for _, location in after], [location for _, location in before[1:]])
        self.assertEqual(self.counter(b), held)
        # A lets go, B still holds it; once B lets go too, the call runs again and stops at both breakpoints.
        a.ok(ThreadReference.Resume, a.object_id(self.worker))
        self.assertEqual(b.frames(self.worker)[0][1], after[0][1])
        b.ok(ThreadReference.Resume, b.object_id(self.worker))
        line = harness.fixture_line(SOURCE, "@tick-line")
        self.assertEqual(self.next_event(a)[1], [(EventKind.BREAKPOINT, bp_a, self.worker, line)])
        self.assertEqual(self.next_event(b)[1], [(EventKind.BREAKPOINT, bp_b, self.worker, line)])
        self.clear(a, EventKind.BREAKPOINT, bp_a)
        self.clear(b, EventKind.BREAKPOINT, bp_b)
        a.ok(ThreadReference.Resume, a.object_id(self.worker))
        b.ok(ThreadReference.Resume, b.object_id(self.worker))
        self.wait_until_running(a)

    def test_a_resume_all_invoke_resumes_only_what_its_session_holds(self):
        a, b = self.connect(), self.connect()
        other = a.thread_named("other")
        bp_a = self.breakpoint(a, "tick", "@tick-line", SuspendPolicy.EVENT_THREAD)
        self.next_event(a)
        self.clear(a, EventKind.BREAKPOINT, bp_a)
        # A holds the worker by its event and "other" by command; B holds the VM on top.
        a.ok(ThreadReference.Suspend, a.object_id(other))
        b.ok(VirtualMachine.Suspend)

        def counts():
            return [self.suspend_count(c, t) for c in (a, b) for t in (self.worker, other)]

        self.assertEqual(counts(), [1, 1, 1, 1])
        others = self.static(b, "others")
        # A calls hold() on the worker without INVOKE_SINGLE_THREADED: its resume lets go of
        # A's suspensions only; B's hold on the worker is lent to the call, on "other" it stands.
        body = (a.type_id(self.fixture) + a.object_id(self.worker) + a.method_id(self.method_ids["hold"])
                + i32(0) + i32(0))
        invoke = a.send_command(ClassType.InvokeMethod, body)
        self.wait_for_static(b, "entered", 1)
        self.assertTrue(self.suspended(b, other))
        self.assertEqual([self.suspend_count(b, t) for t in (self.worker, other)], [1, 1])
        self.assertEqual(self.static(b, "others"), others)
        released = b.fields(self.fixture)["released"].id
        b.ok(ClassType.SetValues, b.type_id(self.fixture) + i32(1) + b.field_id(released) + b"\x01")
        r = self.reply_to(a, invoke)
        self.assertEqual((r.value(), r.byte(), r.id()), (("I", 1), ord("L"), 0))  # returned 1, no exception
        # Every thread suspended again for A (as stock, whatever each was before), B's as they were.
        self.assertEqual(counts(), [1, 1, 1, 1])
        counter = self.counter(b)
        self.assertEqual(self.static(b, "others"), others)
        a.ok(VirtualMachine.Resume)
        self.assertEqual(counts(), [0, 0, 1, 1])
        self.assertEqual((self.counter(a), self.static(a, "others")), (counter, others))
        b.ok(VirtualMachine.Resume)
        self.wait_until_running(a)

    def test_a_session_killed_mid_invoke_leaves_the_thread_to_the_other(self):
        a, b = self.connect(), self.connect()
        self.breakpoints_of_both(a, b, "tick", "@tick-line", SuspendPolicy.EVENT_THREAD)
        self.next_event(a)
        self.next_event(b)
        # A calls pause(500) on the worker (single-threaded) and is killed while it runs.
        pause = self.method_ids["pause"]
        body = (a.type_id(self.fixture) + a.object_id(self.worker) + a.method_id(pause) + i32(1) + b"I" + i32(500)
                + i32(1))  # INVOKE_SINGLE_THREADED
        a.send_command((3, 3), body)  # ClassType.InvokeMethod
        a.close()
        self.clients.remove(a)
        # B's hold outlives the call: once it is over the worker is suspended again, by B alone.
        deadline = time.monotonic() + WAIT_S
        while not self.suspended(b, self.worker):
            if time.monotonic() > deadline:
                self.fail("the worker was not suspended again after A's call")
        self.assertEqual(self.suspend_count(b, self.worker), 1)
        held = self.counter(b)
        frames = b.ok(ThreadReference.FrameCount, b.object_id(self.worker)).int()
        self.assertGreaterEqual(frames, 2)
        self.assertEqual(self.counter(b), held)
        b.ok(ThreadReference.Resume, b.object_id(self.worker))
        # B's breakpoint still stops the worker at its next hit; then B lets it go.
        self.assertEqual(self.next_event(b)[1][0][0], EventKind.BREAKPOINT)
        self.assertEqual(self.suspend_count(b, self.worker), 1)

    def test_a_session_killed_mid_command_disturbs_no_other(self):
        a, b = self.connect(), self.connect()
        bp_b = self.breakpoint(b, "tock", "@tock-line", SuspendPolicy.NONE, count=1)
        # A suspends the worker and sends a burst of commands, then is gone before their replies.
        burst = a.command_packet(ThreadReference.Suspend, a.object_id(self.worker))[0]
        for _ in range(50):
            burst += a.command_packet(VirtualMachine.AllClasses)[0]
        a.sock.sendall(burst)
        a.close()
        self.clients.remove(a)
        # The commands are run or dropped; A's suspension goes with it; B is served throughout.
        self.assertEqual(self.next_event(b)[1][0][:2], (EventKind.BREAKPOINT, bp_b))
        self.wait_until_running(b)
        self.assertEqual(self.suspend_count(b, self.worker), 0)
        self.assertGreater(len(b.ok(VirtualMachine.Version).string()), 0)

    def test_a_session_killed_mid_streamed_reply_disturbs_no_other(self):
        a, b = self.connect(), self.connect()
        big = self.static(a, "big")
        bp_b = self.breakpoint(b, "tock", "@tock-line", SuspendPolicy.NONE, count=1)
        whole = ArrayReference.GetValues, i32(0) + i32(-1)
        # A asks for the whole array and reads only the start of its reply: the agent
        # makes the rest as A reads (streamed_reply.h), so the reply is in the middle.
        packet_id = a.send_command(whole[0], a.object_id(big) + whole[1])
        self.assertEqual(bytes(a.recv_exact(11)), reply_header(BIG_REPLY, packet_id))
        a.recv_exact(1 << 16)
        version = b.send_command(VirtualMachine.Version)
        a.close()
        self.clients.remove(a)
        # B's command, sent before A was gone, is answered; its event comes.
        self.assertGreater(len(self.reply_to(b, version).string()), 0)
        self.assertEqual(self.next_event(b)[1][0][:2], (EventKind.BREAKPOINT, bp_b))
        # The stream ended with A: a new session reads the array whole.
        c = self.connect()
        r = c.ok(whole[0], c.object_id(self.static(c, "big")) + whole[1])
        self.assertEqual((chr(r.byte()), r.int()), ("I", 8 << 20))
        self.assertEqual(len(r.take(4 * (8 << 20))), 4 * (8 << 20))

    def start_big_reply(self, a: Client, big: int) -> tuple:
        """A asks for the whole of `big` (32 MB, streamed) and reads its header and a
        little more, then stops reading -> (packet id, the bytes of the body read)."""
        packet_id = a.send_command(ArrayReference.GetValues, a.object_id(big) + i32(0) + i32(-1))
        self.assertEqual(bytes(a.recv_exact(11)), reply_header(BIG_REPLY, packet_id))
        return packet_id, bytes(a.recv_exact(1 << 16))

    def answered_promptly(self, b: Client, big: int, rounds: int = 5):
        """B's commands, each answered well within PROMPT_S (a command thread held
        by another session's reply would answer none), with the right values."""
        for i in range(rounds):
            first = 1000 * i + 3
            start = time.monotonic()
            r = b.ok(ArrayReference.GetValues, b.object_id(big) + i32(first) + i32(4))
            self.assertEqual((chr(r.byte()), r.int()), ("I", 4))
            self.assertEqual([r.int() for _ in range(4)], [big_value(first + k) for k in range(4)])
            self.assertGreater(len(b.ok(VirtualMachine.Version).string()), 0)
            self.assertLess(time.monotonic() - start, PROMPT_S, f"round {i}")

    def test_a_session_that_stops_reading_a_streamed_reply_holds_back_no_other(self):
        a, b = self.connect(), self.connect()
        big = self.static(a, "big")
        packet_id, start = self.start_big_reply(a, big)
        # A's next command waits behind its reply, as if A were alone.
        version_a = a.send_command(VirtualMachine.Version)
        # Far below what a command thread held by A would show: B would wait for ever.
        b.sock.settimeout(PROMPT_S)
        self.answered_promptly(b, big)
        # A reads on: the whole reply, every value right; then its next reply.
        rest = a.recv_exact(BIG_REPLY - 11 - len(start))
        body = start + bytes(rest)
        self.assertEqual((chr(body[0]), int.from_bytes(body[1:5], "big")), ("I", 8 << 20))
        self.assertEqual(body[5:], big_bytes())
        self.assertGreater(len(self.reply_to(a, version_a).string()), 0)
        self.assertGreater(len(a.ok(VirtualMachine.Version).string()), 0)

    def test_a_session_that_stops_reading_a_streamed_string_holds_back_no_other(self):
        a, b = self.connect(), self.connect()
        text = self.static(a, "text")
        big = self.static(b, "big")
        packet_id = a.send_command(StringReference.Value, a.object_id(text))
        length = 11 + 4 + len(TEXT)
        self.assertEqual(bytes(a.recv_exact(11)), reply_header(length, packet_id))
        start = bytes(a.recv_exact(1 << 16))
        b.sock.settimeout(PROMPT_S)
        self.answered_promptly(b, big, rounds=3)
        # The string's parts are read on from where they stopped (a global
        # reference of the reply's own: the command's local frame is long gone).
        body = start + bytes(a.recv_exact(length - 11 - len(start)))
        self.assertEqual(int.from_bytes(body[:4], "big"), len(TEXT))
        self.assertEqual(body[4:], TEXT)
        self.assertGreater(len(a.ok(VirtualMachine.Version).string()), 0)

    def test_a_session_killed_while_its_streamed_reply_is_parked_disturbs_no_other(self):
        a, b = self.connect(), self.connect()
        big = self.static(a, "big")
        self.assertEqual(self.static(b, "big"), big)  # B is sent the ID too (IDs are counted per session)
        self.start_big_reply(a, big)
        # Commands queued behind the parked reply, never answered: A goes.
        for _ in range(3):
            a.send_command(ArrayReference.GetValues, a.object_id(big) + i32(0) + i32(-1))
        b.sock.settimeout(PROMPT_S)
        self.answered_promptly(b, big, rounds=2)
        a.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # a reset, as a kill
        a.close()
        self.clients.remove(a)
        self.answered_promptly(b, big, rounds=2)
        # A's slot is free again (sessions=3: B and two more), and the VM runs on.
        c, d = self.connect(), self.connect()
        r = c.ok(ArrayReference.GetValues, c.object_id(self.static(c, "big")) + i32(0) + i32(-1))
        self.assertEqual((chr(r.byte()), r.int()), ("I", 8 << 20))
        self.assertEqual(bytes(r.take(4 * (8 << 20))), big_bytes())
        self.wait_until_running(d)

    def test_a_session_that_reads_no_events_holds_back_no_others_events(self):
        """A floods its own connection with SUSPEND_NONE events and reads none of them; once
        its connection and its share of the agent's queue are full (the flooding thread is held
        back), B's breakpoint events still come at once, each; then A gets all of its own."""
        a, b = self.connect(), self.connect()
        modifiers = bytes([7]) + self.location(a, "drop", "@drop-line")
        a.ok(EventRequest.Set, bytes([EventKind.BREAKPOINT, SuspendPolicy.NONE]) + i32(1) + modifiers)
        fields = b.fields(self.fixture)
        b.ok(ClassType.SetValues, b.type_id(self.fixture) + i32(1) + b.field_id(fields["flood"].id) + b"\x01")
        # A's events pile up unread until the agent holds the flooding thread back: its count,
        # read again and again, stays the same for HELD_S (it counts thousands a second when it runs).
        deadline = time.monotonic() + 2 * WAIT_S
        floods, since = self.static(b, "floods"), time.monotonic()
        while floods == 0 or time.monotonic() - since < HELD_S:
            if time.monotonic() > deadline:
                self.fail(f"the flooding thread was not held back within {2 * WAIT_S}s (floods {floods})")
            now = self.static(b, "floods")
            if now != floods:
                floods, since = now, time.monotonic()
        tock = self.breakpoint(b, "tock", "@tock-line", SuspendPolicy.EVENT_THREAD)
        other = b.thread_named("other")
        b.sock.settimeout(PROMPT_S)
        for n in range(5):
            try:
                policy, events = self.next_event(b)
            except socket.timeout:
                self.fail(f"B's event {n + 1} did not come within {PROMPT_S}s while A reads nothing")
            self.assertEqual((policy, [(kind, request) for kind, request, _, _ in events]),
                             (SuspendPolicy.EVENT_THREAD, [(EventKind.BREAKPOINT, tock)]))
            b.ok(ThreadReference.Resume, b.object_id(other))
        b.sock.settimeout(WAIT_S)
        self.clear(b, EventKind.BREAKPOINT, tock)
        b.ok(ClassType.SetValues, b.type_id(self.fixture) + i32(1) + b.field_id(fields["flood"].id) + b"\x00")
        # A reads at last: one event for every call the flooding thread made, none lost.
        calls, events = self.static(b, "floods"), 0
        while events < calls:
            packet = a.read_packet()
            self.assertFalse(packet.is_reply, "A sent no command")
            events += 1
        self.assertEqual(events, calls)

    def test_vm_death_goes_to_every_session(self):
        a, b = self.connect(), self.connect()
        self.proc.proc.stdin.close()
        for c in (a, b):
            policy, events = self.next_event(c)
            self.assertEqual(events[-1][:2], (EventKind.VM_DEATH, 0))
        self.assertEqual(self.proc.wait(WAIT_S), 0)


if __name__ == "__main__":
    harness.main()
