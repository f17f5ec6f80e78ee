#!/usr/bin/env python3
"""Reads of a suspended frame are never served stale, against the JDK's own agent as the oracle.

    python3 integration/test_frame_reads.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

jdwpx keeps what StackFrame.GetValues and ThisObject read of a suspended
thread for the rest of that suspension (backend/threads/frame_reads.h). FrameReads
stops at @bp-reads (a SUSPEND_EVENT_THREAD breakpoint); each case reads the
frame, changes it or lets the thread run, and reads again: a repeated read
gives the same bytes; after SetValues the new values; after PopFrames the
caller's locals in the new top frame; after a Resume in which the thread
changed a local, the new value; after an invoke, stale frame IDs and the same
locals; after the debugger disposed of an object's ID, a live ID again.

No sleeps: every wait is a read with a timeout.
"""

from __future__ import annotations

import struct
import unittest

import harness
from jdwp_client import (ClassType, Client, Error, EventKind, EventRequest, InvokeOptions, ModKind, ObjectReference,
                         Reader, StackFrame, StringReference, SuspendPolicy, ThreadReference, VirtualMachine, i32, i64)

READ_TIMEOUT_S = 60
FIXTURE = "FrameReads.java"
# visit(int arg, String text): 0 this, 1 arg, 2 text, 3 counter (long), 5 self; loop(): 1 round.
VISIT_SLOTS = [(1, b"I"), (2, b"L"), (3, b"J"), (5, b"L"), (0, b"L")]


class FrameReads(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()
        cls.debuggee = harness.Debuggee(cls.cfg, "FrameReads",
                                        options="transport=dt_socket,server=y,address=0,suspend=n")
        try:
            cls.debuggee.wait_for_output(r"(?m)^ready$", 60)
            cls.c = Client(cls.debuggee.port, timeout=READ_TIMEOUT_S)
            c = cls.c
            cls.fixture = c.class_by_signature("LFrameReads;")
            cls.fields = c.fields(cls.fixture)
            cls.visit = c.method_named(cls.fixture, "visit")
            cls.bump = c.method_named(cls.fixture, "bump")
            line = harness.fixture_line(FIXTURE, "// @bp-reads")
            index = c.code_index(cls.fixture, cls.visit, line)
            location = bytes([1]) + c.type_id(cls.fixture) + c.method_id(cls.visit) + i64(index)
            cls.request = c.ok(EventRequest.Set, bytes([EventKind.BREAKPOINT, SuspendPolicy.EVENT_THREAD]) + i32(1)
                               + bytes([ModKind.LocationOnly]) + location).int()
            cls.thread = cls.wait_breakpoint()
        except BaseException:
            cls.debuggee.__exit__(None, None, None)
            raise

    @classmethod
    def tearDownClass(cls):
        try:
            cls.c.close()
        finally:
            cls.debuggee.__exit__(None, None, None)

    @classmethod
    def wait_breakpoint(cls) -> int:
        """Reads events until our breakpoint comes -> its thread."""
        while True:
            for data in list(cls.c.events):
                r = Reader(data, cls.c.sizes)
                r.byte()
                for _ in range(r.int()):
                    if r.byte() != EventKind.BREAKPOINT:
                        break
                    request, thread = r.int(), r.id()
                    r.location()
                    if request == cls.request:
                        cls.c.events.remove(data)
                        return thread
            cls.c.read_event()

    # -- helpers --

    def next_stop(self):
        """Lets the thread run to the breakpoint's next hit (visit of the next round)."""
        self.c.ok(ThreadReference.Resume, self.c.object_id(self.thread))
        self.assertEqual(self.wait_breakpoint(), self.thread)

    def top(self, method=None):
        """The frame ID at depth 0, checked to be in `method` (visit by default)."""
        frame, location = self.c.frames(self.thread, 0, 1)[0]
        self.assertEqual(location[2], self.visit if method is None else method)
        return frame

    def get_raw(self, frame, slots) -> bytes:
        c = self.c
        body = c.object_id(self.thread) + c.frame_id(frame) + i32(len(slots))
        body += b"".join(i32(slot) + tag for slot, tag in slots)
        return bytes(c.ok(StackFrame.GetValues, body).data)

    def get(self, frame, slots) -> list:
        r = self.c.ok(StackFrame.GetValues, self.c.object_id(self.thread) + self.c.frame_id(frame) + i32(len(slots))
                      + b"".join(i32(slot) + tag for slot, tag in slots))
        return [r.value() for _ in range(r.int())]

    def this_raw(self, frame) -> bytes:
        return bytes(self.c.ok(StackFrame.ThisObject, self.c.object_id(self.thread) + self.c.frame_id(frame)).data)

    def visit_locals(self, frame) -> dict:
        values = self.get(frame, VISIT_SLOTS)
        return {"arg": values[0][1], "text": values[1][1], "counter": values[2][1], "self": values[3][1],
                "this": values[4][1]}

    def static_bool(self, name, value: bool):
        self.c.ok(ClassType.SetValues, self.c.type_id(self.fixture) + i32(1) + self.c.field_id(self.fields[name].id)
                  + bytes([1 if value else 0]))

    # -- cases --

    def test_repeated_reads_are_the_same_bytes(self):
        frame = self.top()
        first = self.get_raw(frame, VISIT_SLOTS)
        self.assertEqual(self.get_raw(frame, VISIT_SLOTS), first)
        self.assertEqual(self.get_raw(frame, list(reversed(VISIT_SLOTS)))[4:],
                         b"".join(reversed(self.split_values(first))))
        this = self.this_raw(frame)
        self.assertEqual(self.this_raw(frame), this)
        v = self.visit_locals(frame)
        self.assertEqual(this, b"L" + self.c.object_id(v["this"]))
        self.assertEqual(v["self"], v["this"])
        self.assertEqual(v["counter"], v["arg"] * 10)
        self.assertEqual(self.c.string_value(v["text"]), f"text-{(v['arg'] - 1) // 3}")

    def split_values(self, reply: bytes) -> list:
        """GetValues reply bytes -> each value's bytes."""
        out, at = [], 4
        for _ in range(struct.unpack(">i", reply[:4])[0]):
            size = {ord("I"): 4, ord("J"): 8}.get(reply[at], self.c.sizes["object"])
            out.append(reply[at:at + 1 + size])
            at += 1 + size
        return out

    def test_set_values_then_get_values(self):
        c = self.c
        frame = self.top()
        before = self.visit_locals(frame)
        text = c.create_string("set by the debugger")
        c.ok(StackFrame.SetValues, c.object_id(self.thread) + c.frame_id(frame) + i32(2)
             + i32(3) + b"J" + struct.pack(">q", 777) + i32(2) + b"L" + c.object_id(text))
        after = self.visit_locals(frame)
        self.assertEqual(after["counter"], 777)
        self.assertEqual(after["text"], text)
        self.assertEqual(c.string_value(after["text"]), "set by the debugger")
        self.assertEqual(after["arg"], before["arg"])
        # The frame ID is still good (the thread did not run) and `this` is unchanged.
        self.assertEqual(self.this_raw(frame), b"L" + c.object_id(before["this"]))
        self.next_stop()

    def test_pop_frames_then_get_values_of_the_new_top(self):
        c = self.c
        frame = self.top()
        visit = self.visit_locals(frame)
        caller, location = self.c.frames(self.thread, 1, 1)[0]
        loop = location[2]
        round_ = self.get(caller, [(1, b"I")])[0][1]
        self.assertEqual(visit["arg"], round_ * 3 + 1)
        c.ok(StackFrame.PopFrames, c.object_id(self.thread) + c.frame_id(frame))
        new_top = self.top(loop)
        # Slot 1 of the new top frame is loop's `round`, not visit's `arg` of the same depth before.
        self.assertEqual(self.get(new_top, [(1, b"I")]), [("I", round_)])
        self.assertEqual(Error(c.error(StackFrame.GetValues, c.object_id(self.thread) + c.frame_id(frame)
                                       + i32(1) + i32(1) + b"I")), Error.INVALID_FRAMEID)
        # visit runs again with the same round.
        self.next_stop()
        self.assertEqual(self.visit_locals(self.top())["arg"], visit["arg"])

    def test_resume_change_suspend_then_get_values(self):
        c = self.c
        frame = self.top()
        counter = self.visit_locals(frame)["counter"]
        self.assertEqual(self.visit_locals(frame)["counter"], counter)
        self.static_bool("spinning", True)
        try:
            # The thread spins in visit, counting; each Resume + Suspend lets it run a little.
            for _ in range(1000):
                c.ok(ThreadReference.Resume, c.object_id(self.thread))
                c.ok(ThreadReference.Suspend, c.object_id(self.thread))
                now = self.top()
                self.assertNotEqual(now, frame)
                self.assertEqual(Error(c.error(StackFrame.GetValues, c.object_id(self.thread) + c.frame_id(frame)
                                               + i32(1) + i32(3) + b"J")), Error.INVALID_FRAMEID)
                value = self.visit_locals(now)["counter"]
                if value != counter:
                    break
                frame = now
            self.assertGreater(value, counter, "the spinning thread's counter, read again after it ran")
            self.assertEqual(self.visit_locals(now)["counter"], value)
        finally:
            self.static_bool("spinning", False)
        # The last Suspend is the only one left: its Resume lets the thread on to the next hit.
        self.next_stop()

    def test_invoke_then_get_values(self):
        c = self.c
        frame = self.top()
        before = self.visit_locals(frame)
        this = self.this_raw(frame)
        r = c.ok(ClassType.InvokeMethod, c.type_id(self.fixture) + c.object_id(self.thread) + c.method_id(self.bump)
                 + i32(0) + i32(InvokeOptions.INVOKE_SINGLE_THREADED))
        self.assertEqual(r.value(), ("V", None))
        # The thread ran the call: its frame IDs are stale, its locals as they were.
        self.assertEqual(Error(c.error(StackFrame.GetValues, c.object_id(self.thread) + c.frame_id(frame)
                                       + i32(1) + i32(1) + b"I")), Error.INVALID_FRAMEID)
        now = self.top()
        self.assertEqual(self.visit_locals(now), before)
        self.assertEqual(self.this_raw(now), this)

    def test_disposed_id_read_again(self):
        c = self.c
        self.next_stop()  # a fresh `text`, whose ID this session has sent once
        frame = self.top()
        text = self.get(frame, [(2, b"L")])[0][1]
        expected = c.string_value(text)
        c.ok(VirtualMachine.DisposeObjects, i32(1) + c.object_id(text) + i32(1))
        self.assertEqual(Error(c.error(StringReference.Value, c.object_id(text))), Error.INVALID_OBJECT)
        again = self.get(frame, [(2, b"L")])[0][1]
        self.assertNotEqual(again, text)
        self.assertEqual(c.string_value(again), expected)
        self.assertEqual(self.get(frame, [(2, b"L")])[0][1], again)
        # ThisObject too: dispose of `this` (once per time it was sent) and read it again.
        self_id = struct.unpack(">Q", self.this_raw(frame)[1:])[0]
        for _ in range(100):
            c.ok(VirtualMachine.DisposeObjects, i32(1) + c.object_id(self_id) + i32(1))
            if c.error(ObjectReference.ReferenceType, c.object_id(self_id)) == Error.INVALID_OBJECT:
                break
        self.assertEqual(Error(c.error(ObjectReference.ReferenceType, c.object_id(self_id))), Error.INVALID_OBJECT)
        fresh = struct.unpack(">Q", self.this_raw(frame)[1:])[0]
        self.assertNotEqual(fresh, self_id)
        c.ok(ObjectReference.ReferenceType, c.object_id(fresh))


if __name__ == "__main__":
    harness.main()
