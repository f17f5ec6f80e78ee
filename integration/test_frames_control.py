#!/usr/bin/env python3
"""Frame and thread control: StackFrame.SetValues and PopFrames,
ThreadReference.ForceEarlyReturn, Stop and Interrupt, stock as the oracle.

    python3 integration/test_frames_control.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

The scenarios are written once against com.sun.jdi (jdi/FramesControlJdi.java)
and run by the JDK's JDI and by Eclipse's (eclipse/FramesControlEclipse.java),
each against its own FramesControl debuggee. The driver checks what it reads
back (the frame and line after a pop, the suspend count); this test checks the
driver's verdicts and what the program printed: the overwritten locals, the
forced return values, the exception the debugger threw, the interruption, and
the popped calls run again (three entries into the leaf). StepAfterPopFrames
runs jdi/ControlEdgesJdi.java's "pop" through both JDIs (control_edges.py): a
step request stays active after PopFrames.
"""

from __future__ import annotations

import os
import unittest

import control_edges
import harness
from jdwp_client import Client, Error, StackFrame, SuspendPolicy, ThreadReference, i32
from test_events import Session


SCENARIOS = ("set-values", "early-int", "early-long", "early-object", "early-void", "pop-top-frame",
             "pop-two-frames", "pop-reentered", "pop-native-caller", "stop", "interrupt")

EXPECTED_OUTPUT = [
    "locals true 11 b 12 13 14 15.5 16.5 y",
    "earlyInt 42",
    "earlyLong 99",
    "earlyObject forced",
    "earlyVoid 0",
    # popMiddle(1) -> popLeaf(2) = 20, + 1; the pops came before the leaf's increment (at its breakpoint).
    "pop result=21 leafEntries=1",
    "reflected 7",
    "caught stopped by debugger",
    "interrupted",
    "done",
]


class FramesControl(unittest.TestCase):
    def run_client(self, client):
        cfg = harness.config()
        classpath, main = harness.jdi_driver(self, cfg, client, "FramesControlJdi", "FramesControlEclipse")
        source = os.path.join(harness.FIXTURES_SRC, "FramesControl.java")
        with harness.Debuggee(cfg, "FramesControl") as debuggee:
            rc, out, err = harness.run_java(cfg, ["-cp", os.pathsep.join(classpath)], main,
                                            [str(debuggee.port), source, str(cfg.jdk_version)], timeout=120)
            debuggee_rc = debuggee.wait(30)
            report = (f"--- {client} driver stdout:\n{out}\n--- driver stderr:\n{err}\n"
                      f"--- debuggee stdout:\n{debuggee.stdout}\n--- debuggee stderr:\n{debuggee.stderr}")
            self.assertIn("RESULT ok", out, report)
            for name in SCENARIOS:
                with self.subTest(client=client, scenario=name):
                    if f"SCENARIO {name} SKIP" in out:
                        continue
                    self.assertIn(f"SCENARIO {name} PASS", out, report)
            self.assertNotIn(" FAIL ", out, report)
            printed = [line for line in debuggee.stdout.splitlines() if not line.startswith("Listening")]
            self.assertEqual(printed, EXPECTED_OUTPUT, report)
            self.assertEqual(debuggee_rc, 0, report)

    def test_jdk_jdi(self):
        self.run_client("jdk")

    def test_eclipse_jdi(self):
        self.run_client("eclipse")


class FramesControlErrors(unittest.TestCase):
    """The errors JDI checks away on its side, sent raw (ThreadsFrames' parked threads)."""

    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()
        cls.debuggee = harness.Debuggee(cls.cfg, "ThreadsFrames",
                                        options="transport=dt_socket,server=y,address=0,suspend=n")
        cls.debuggee.wait_for_output(r"(?m)^all-ready$", 60)
        cls.client = Client(cls.debuggee.port, timeout=30)
        cls.threads = cls.client.threads_by_name()

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.debuggee.kill()
        cls.debuggee.__exit__(None, None, None)

    def assertError(self, expected, command, body):
        code = self.client.error(command, body)
        self.assertEqual(Error(code), expected, f"{command}")

    def suspend(self, name):
        c = self.client
        t = self.threads[name]
        c.ok(ThreadReference.Suspend, c.object_id(t))
        self.addCleanup(lambda: c.ok(ThreadReference.Resume, c.object_id(t)))
        return t

    def test_not_suspended(self):
        c = self.client
        t = self.threads["tf-static"]
        self.assertError(Error.THREAD_NOT_SUSPENDED, ThreadReference.ForceEarlyReturn, c.object_id(t) + b"V")
        # A frame ID of an earlier suspension is stale once the thread runs.
        c.ok(ThreadReference.Suspend, c.object_id(t))
        frame = c.frames(t)[0][0]
        c.ok(ThreadReference.Resume, c.object_id(t))
        for command, body in ((StackFrame.PopFrames, b""), (StackFrame.SetValues, i32(0))):
            self.assertError(Error.THREAD_NOT_SUSPENDED, command, c.object_id(t) + c.frame_id(frame) + body)

    def test_native_top_frame(self):
        c = self.client
        t = self.suspend("tf-locals")  # parked: Unsafe.park (native) on top
        self.assertError(Error.OPAQUE_FRAME, ThreadReference.ForceEarlyReturn, c.object_id(t) + b"V")
        frame = c.frames(t)[0][0]
        self.assertError(Error.OPAQUE_FRAME, StackFrame.PopFrames, c.object_id(t) + c.frame_id(frame))

    def test_set_value_of_the_wrong_type(self):
        c = self.client
        t = self.suspend("tf-locals")
        frames = c.frames(t)
        method = c.method_named(c.class_by_signature("LThreadsFrames;"), "localsFrame")
        depth = next(i for i, (_, loc) in enumerate(frames) if loc[2] == method)
        frame = frames[depth][0]
        # Slot 0 is `self` (an Object): an int does not go there, nor a long.
        self.assertError(Error.TYPE_MISMATCH, StackFrame.SetValues,
                         c.object_id(t) + c.frame_id(frame) + i32(1) + i32(0) + b"I" + i32(7))
        self.assertError(Error.TYPE_MISMATCH, StackFrame.SetValues,
                         c.object_id(t) + c.frame_id(frame) + i32(1) + i32(0) + b"J" + bytes(8))
        self.assertError(Error.INVALID_SLOT, StackFrame.SetValues,
                         c.object_id(t) + c.frame_id(frame) + i32(1) + i32(999) + b"I" + i32(7))

    def test_stop_with_what_is_no_throwable(self):
        c = self.client
        t = self.suspend("tf-static")
        text = c.create_string("not a throwable")
        if self.cfg.agent == "ours":
            # The spec: the object must be a Throwable (errors: INVALID_OBJECT). Stock breaks it:
            # it answers NONE and the thread is thrown a String; not sent to stock for that reason.
            self.assertError(Error.INVALID_OBJECT, ThreadReference.Stop, c.object_id(t) + c.object_id(text))
        # A null throwable: JVMTI's NULL_POINTER, passed on by both.
        self.assertError(Error.NULL_POINTER, ThreadReference.Stop, c.object_id(t) + c.object_id(0))
        self.assertError(Error.INVALID_THREAD, ThreadReference.Interrupt, c.object_id(text))

    def test_capabilities(self):
        r = self.client.ok((1, 17))
        caps = [r.boolean() for _ in range(32)]
        # canRedefineClasses, canAddMethod, canUnrestrictedlyRedefineClasses, canPopFrames, ..., canForceEarlyReturn
        self.assertEqual((caps[7], caps[8], caps[9], caps[10]), (True, False, False, True))
        self.assertTrue(caps[20])


class VirtualThreadFrames(unittest.TestCase):
    """PopFrames and ForceEarlyReturn on a virtual thread suspended at a breakpoint
    (JDK 21+; the JVMTI spec guarantees both there), raw, against ours and stock."""

    def setUp(self):
        self.cfg = harness.config()

    def test_pop_and_early_return(self):
        cfg = self.cfg
        if cfg.jdk_version < 21:
            print(f"SKIPPED: virtual threads need JDK 21+ (this is JDK {cfg.jdk_version})", flush=True)
            self.skipTest("virtual threads need JDK 21+")
        s = Session(self, "", fixture="VirtualFrames", source="VirtualFrames.java")
        self.addCleanup(s.close)
        leaf = s.breakpoint_at("leaf", "vf-leaf", policy=SuspendPolicy.EVENT_THREAD)
        early = s.breakpoint_at("early", "vf-early", policy=SuspendPolicy.EVENT_THREAD)
        done = []

        def on_event(policy, events):
            e = events[0]
            thread = e["thread"]
            self.assertTrue(s.c.ok(ThreadReference.IsVirtual, s.c.object_id(thread)).boolean())
            if e["request"] == leaf and "pop" not in done:
                frame = s.c.frames(thread, 0, 1)[0][0]
                s.c.ok(StackFrame.PopFrames, s.c.object_id(thread) + s.c.frame_id(frame))
                done.append("pop")
            elif e["request"] == early:
                s.c.ok(ThreadReference.ForceEarlyReturn, s.c.object_id(thread) + b"I" + i32(42))
                done.append("early")

        composites = s.run(on_event)
        self.assertEqual(done, ["pop", "early"])
        self.assertEqual([events[0]["request"] for _, events in composites], [leaf, leaf, early])
        s.debuggee.wait_for_output(r"virtual: leaf=40 entries=1 early=42", 30)
        self.assertEqual(s.debuggee.wait(30), 0)


class StepAfterPopFrames(control_edges.ControlEdgesCase):
    """Through both JDIs (ControlEdgesJdi over ControlEdges)."""

    def test_step_request_survives_pop_frames(self):
        # A LINE/OVER step request without a Count filter stays active after
        # PopFrames at its first event: three more steps on the expected lines.
        # popped(1) = 3 runs twice (the pop re-runs the call), popped(2) = 5.
        self.run_scenario("pop", ["pop r=8", "done"])


if __name__ == "__main__":
    harness.main()
