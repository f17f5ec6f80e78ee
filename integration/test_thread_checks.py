#!/usr/bin/env python3
"""Which error a command answers for a thread that is not alive (ended, or never
started), for a running thread never suspended, and a few other error codes,
against the JDK's own agent (the oracle) on JDK 17 and 25.

Stock checks a thread argument in a fixed order per command: the ID (unknown:
INVALID_OBJECT; not a thread: INVALID_THREAD), then
  - Frames, FrameCount, the monitor commands and every StackFrame command: the
    suspension first (THREAD_NOT_SUSPENDED), then life (INVALID_THREAD);
  - Interrupt, Stop and a SINGLE_STEP request: life only (INVALID_THREAD);
  - ForceEarlyReturn: life, then the suspension;
  - Name, Status, ThreadGroup, SuspendCount, IsVirtual, Suspend, Resume and a
    ThreadOnly filter: nothing more (they work on any thread).
Suspending a thread that is not alive succeeds and counts (SuspendCount 1, yet
Status never says suspended), so the commands needing a suspended thread then
answer INVALID_THREAD. jdwpx keeps that order in one place
(backend/context.h, ThreadNeeds).

Fixture: fixtures/ThreadChecks.java (server=y,suspend=n): static fields name
an ended thread, a never started one, a running one (tc-runner, never
suspended by the debugger), an interface and a Throwable.
"""

from __future__ import annotations

import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from jdwp_client import (HEADER_SIZE, Client, ClassType, ConnectionClosed, Error, EventKind, EventRequest,  # noqa: E402
                         ObjectReference, StackFrame, ThreadReference, VirtualMachine, command_header, error_name,
                         i32, i64)

OPTIONS = "transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0"
LISTENING = r"Listening for transport dt_socket at address: (\d+)\n"
TIMEOUT_S = 30
NEVER_ISSUED_ID = 0x7EADBEEFCAFE1234
E = Error
TNS, IT = E.THREAD_NOT_SUSPENDED, E.INVALID_THREAD

# Command -> stock's answer for a thread that is not alive, never suspended / suspended once.
NOT_ALIVE = {
    "Name": (E.NONE, E.NONE),
    "Status": (E.NONE, E.NONE),
    "ThreadGroup": (E.NONE, E.NONE),
    "SuspendCount": (E.NONE, E.NONE),
    "Frames": (TNS, IT),
    "FrameCount": (TNS, IT),
    "OwnedMonitors": (TNS, IT),
    "CurrentContendedMonitor": (TNS, IT),
    "OwnedMonitorsStackDepthInfo": (TNS, IT),
    "ForceEarlyReturn": (IT, IT),
    "Interrupt": (IT, IT),
    "Stop": (IT, IT),
    # spec: with the thread suspended, stock answers NONE to GetValues and
    # SetValues of no slots with frame ID 0, an ID never issued (its frame IDs
    # carry a generation that is 0 for a thread it only met through Suspend), and
    # it makes no JVMTI call that would find the thread dead. jdwpx answers
    # INVALID_THREAD, as stock does for ThisObject (and for any slot).
    "StackFrame.GetValues": (TNS, IT),
    "StackFrame.SetValues": (TNS, IT),
    "StackFrame.ThisObject": (TNS, IT),
    # Stock drops the connection for PopFrames on a suspended thread that is not
    # alive (not checked against it); jdwpx answers INVALID_THREAD.
    "StackFrame.PopFrames": (TNS, IT),
    "EventRequest.Set SINGLE_STEP": (IT, IT),
    "EventRequest.Set BREAKPOINT ThreadOnly": (E.NONE, E.NONE),
}
SPEC_OVER_STOCK = {"StackFrame.GetValues", "StackFrame.SetValues"}  # suspended column only
STOCK_DROPS_CONNECTION = {"StackFrame.PopFrames"}  # suspended column only


class ThreadChecksTest(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        self.proc = harness.Debuggee(self.cfg, "ThreadChecks", options=OPTIONS)
        self.proc.wait_for_output(r"ready", TIMEOUT_S)
        self.c = Client(self.proc.port, timeout=TIMEOUT_S)
        self.fixture = self.c.class_by_signature("LThreadChecks;")
        fields = self.c.fields(self.fixture)
        names = ("ended", "unstarted", "runner", "problem")
        values = self.c.static_values(self.fixture, [fields[n].id for n in names])
        self.ids = {n: v[1] for n, v in zip(names, values)}

    def tearDown(self):
        self.c.close()
        self.proc.__exit__(None, None, None)
        if harness.test_failed(self):
            print(f"--- debuggee stdout:\n{self.proc.stdout}\n--- stderr:\n{self.proc.stderr}")

    def commands(self, thread: int) -> dict:
        """name -> (command, data) for every command above, on `thread`."""
        c = self.c
        t = c.object_id(thread)
        frame0 = c.frame_id(0)
        run = c.method_named(self.fixture, "run")
        location = bytes([1]) + c.type_id(self.fixture) + c.method_id(run) + i64(0)
        return {
            "Name": (ThreadReference.Name, t),
            "Status": (ThreadReference.Status, t),
            "ThreadGroup": (ThreadReference.ThreadGroup, t),
            "SuspendCount": (ThreadReference.SuspendCount, t),
            "Frames": (ThreadReference.Frames, t + i32(0) + i32(-1)),
            "FrameCount": (ThreadReference.FrameCount, t),
            "OwnedMonitors": (ThreadReference.OwnedMonitors, t),
            "CurrentContendedMonitor": (ThreadReference.CurrentContendedMonitor, t),
            "OwnedMonitorsStackDepthInfo": (ThreadReference.OwnedMonitorsStackDepthInfo, t),
            "ForceEarlyReturn": (ThreadReference.ForceEarlyReturn, t + b"V"),
            "Interrupt": (ThreadReference.Interrupt, t),
            "Stop": (ThreadReference.Stop, t + c.object_id(self.ids["problem"])),
            "StackFrame.GetValues": (StackFrame.GetValues, t + frame0 + i32(0)),
            "StackFrame.SetValues": (StackFrame.SetValues, t + frame0 + i32(0)),
            "StackFrame.ThisObject": (StackFrame.ThisObject, t + frame0),
            "StackFrame.PopFrames": (StackFrame.PopFrames, t + frame0),
            "EventRequest.Set SINGLE_STEP": (EventRequest.Set, bytes([EventKind.SINGLE_STEP, 2]) + i32(1)
                                             + bytes([10]) + t + i32(1) + i32(1)),
            "EventRequest.Set BREAKPOINT ThreadOnly": (EventRequest.Set, bytes([EventKind.BREAKPOINT, 0]) + i32(2)
                                                       + bytes([3]) + t + bytes([7]) + location),
        }

    def answers(self, thread: int, suspended: bool) -> dict:
        """name -> error of every command (a request set is cleared again)."""
        got = {}
        for name, (command, data) in self.commands(thread).items():
            if suspended and name in STOCK_DROPS_CONNECTION and self.cfg.agent == "stock":
                continue
            error, r = self.c.command(command, data)
            got[name] = Error(error)
            if error == E.NONE and name.startswith("EventRequest.Set"):
                kind = EventKind.SINGLE_STEP if "SINGLE_STEP" in name else EventKind.BREAKPOINT
                self.c.ok(EventRequest.Clear, bytes([kind]) + i32(r.int()))
        return got

    def check_not_alive(self, which: str, status: int):
        thread = self.ids[which]
        c = self.c
        for column, suspended in ((0, False), (1, True)):
            if suspended:
                c.ok(ThreadReference.Suspend, c.object_id(thread))
            got = self.answers(thread, suspended)
            expected = {name: answers[column] for name, answers in NOT_ALIVE.items() if name in got}
            if suspended and self.cfg.agent == "stock":
                for name in SPEC_OVER_STOCK:
                    expected[name] = E.NONE
            self.assertEqual({n: error_name(e) for n, e in got.items()},
                             {n: error_name(e) for n, e in expected.items()}, f"{which}, suspended={suspended}")
            self.assertEqual(c.ok(ThreadReference.SuspendCount, c.object_id(thread)).int(), column)
            r = c.ok(ThreadReference.Status, c.object_id(thread))
            self.assertEqual((r.int(), r.int()), (status, 0))  # never reported suspended
        c.ok(ThreadReference.Resume, c.object_id(thread))
        self.assertEqual(c.ok(ThreadReference.SuspendCount, c.object_id(thread)).int(), 0)
        if self.cfg.jdk_version >= 19:
            self.assertFalse(c.ok(ThreadReference.IsVirtual, c.object_id(thread)).boolean())
        else:  # a command of JDK 19+: unknown to stock's agent of JDK 17
            self.assertEqual(error_name(c.error(ThreadReference.IsVirtual, c.object_id(thread))),
                             error_name(E.NOT_IMPLEMENTED))

    def test_an_ended_thread(self):
        self.check_not_alive("ended", 0)  # ZOMBIE

    def test_a_thread_never_started(self):
        self.check_not_alive("unstarted", -1)  # stock's "not started", which JDI reads as such

    def test_a_running_thread_never_suspended(self):
        c = self.c
        t = c.object_id(self.ids["runner"])
        for command, data in ((StackFrame.GetValues, t + c.frame_id(0) + i32(0)),
                              (StackFrame.SetValues, t + c.frame_id(0) + i32(0)),
                              (StackFrame.ThisObject, t + c.frame_id(0)),
                              (StackFrame.PopFrames, t + c.frame_id(0)),
                              (ThreadReference.Frames, t + i32(0) + i32(-1)),
                              (ThreadReference.FrameCount, t),
                              (ThreadReference.OwnedMonitorsStackDepthInfo, t),
                              (ThreadReference.ForceEarlyReturn, t + b"V")):
            self.assertEqual(error_name(c.error(command, data)), error_name(TNS), str(command))

    def test_superclass_of_an_interface_is_none(self):
        shape = self.c.class_by_signature("LThreadChecks$Shape;")
        r = self.c.ok(ClassType.Superclass, self.c.type_id(shape))
        self.assertEqual(r.id("referenceType"), 0)

    def test_instance_counts_with_a_negative_count(self):
        self.assertEqual(error_name(self.c.error(VirtualMachine.InstanceCounts, i32(-1))),
                         error_name(E.ILLEGAL_ARGUMENT))

    def test_is_collected_of_ids_the_table_does_not_hold(self):
        c = self.c
        r = c.ok(ObjectReference.IsCollected, c.object_id(NEVER_ISSUED_ID))
        self.assertTrue(r.boolean())
        text = c.create_string("disposed")
        c.ok(VirtualMachine.DisposeObjects, i32(1) + c.object_id(text) + i32(1))
        self.assertTrue(c.ok(ObjectReference.IsCollected, c.object_id(text)).boolean())
        # Other commands still refuse such IDs; and ID 0 is no object at all.
        self.assertEqual(error_name(c.error(ObjectReference.ReferenceType, c.object_id(text))),
                         error_name(E.INVALID_OBJECT))
        self.assertEqual(error_name(c.error(ObjectReference.IsCollected, c.object_id(0))),
                         error_name(E.INVALID_OBJECT))

    def test_a_packet_with_flags_neither_command_nor_reply_ends_the_connection(self):
        # As stock: logged, the connection closed, the VM runs on and the agent listens again.
        self.c.sock.sendall(command_header(HEADER_SIZE, 77, VirtualMachine.Version, flags=0x40))
        with self.assertRaises((ConnectionClosed, ConnectionResetError)):
            while True:
                packet = self.c.read_packet()
                self.assertFalse(packet.is_reply, f"a reply to a packet with flags 0x40: {packet}")
        self.proc.wait_for_output(r"ERROR: Received jdwpPacket with flags != 0x0 \(actual=0x40\) "
                                  r"when a jdwpCmdPacket was expected\.\n", TIMEOUT_S, stream="stderr")
        m = self.proc.wait_for_output(r"(?s)" + LISTENING + r".*?" + LISTENING, TIMEOUT_S)
        c = Client(int(m.group(2)), timeout=TIMEOUT_S)
        self.addCleanup(c.close)
        c.ok(VirtualMachine.Version)
        self.assertIsNone(self.proc.returncode)


if __name__ == "__main__":
    harness.main()
