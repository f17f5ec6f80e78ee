#!/usr/bin/env python3
"""Thread and stack-frame commands against the agent under test, stock as the oracle.

    python3 integration/test_threads_frames.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

The ThreadsFrames fixture parks threads in known states (monitors owned at
known depths, a thread blocked on a monitor, a frame holding a local of every
type, a static frame, a native frame on top, a 5,000-frame recursion) and says
so on stdout. A raw JDWP client (stdlib sockets) then checks
ThreadReference.{Frames, FrameCount, OwnedMonitors, CurrentContendedMonitor,
OwnedMonitorsStackDepthInfo} and StackFrame.{GetValues, ThisObject} with their
exact reply tags and error codes. jdi/ThreadsFramesJdi.java checks the same
through com.sun.jdi and, on JDK 21+, virtual threads (skipped with a printed
message on older JDKs). No sleeps: every wait is a read with a timeout.
"""

from __future__ import annotations

import os
import time
import unittest

import harness
from jdwp_client import Client, Error, Method, ReferenceType, StackFrame, ThreadReference, ThreadStatus, i32

READ_TIMEOUT_S = 30
DEEP_FRAMES = 5000

# The monitor commands that need a suspended thread.
MONITOR_COMMANDS = (ThreadReference.OwnedMonitors, ThreadReference.CurrentContendedMonitor,
                    ThreadReference.OwnedMonitorsStackDepthInfo)


class ThreadsClient(Client):
    """The shared raw client plus the frame requests only this test needs."""

    def static_value(self, ref, field_id):
        return self.static_values(ref, [field_id])[0]

    def variables(self, ref, method):
        """Method.VariableTable -> {name: (slot, signature)}."""
        r = self.ok(Method.VariableTable, self.type_id(ref) + self.method_id(method))
        r.int()  # argCnt
        out = {}
        for _ in range(r.int()):
            r.long()  # codeIndex
            name, sig = r.string(), r.string()
            r.int()  # length
            out[name] = (r.int(), sig)
        return out

    def frames_body(self, thread, start, length):
        return self.object_id(thread) + i32(start) + i32(length)

    def get_values_body(self, thread, frame, slots):
        body = self.object_id(thread) + self.frame_id(frame) + i32(len(slots))
        for slot, tag in slots:
            body += i32(slot) + tag.encode()
        return body

    def get_values(self, thread, frame, slots):
        r = self.ok(StackFrame.GetValues, self.get_values_body(thread, frame, slots))
        return [r.value() for _ in range(r.int())]

    def this_object(self, thread, frame):
        r = self.ok(StackFrame.ThisObject, self.object_id(thread) + self.frame_id(frame))
        return r.value()

    def suspend(self, thread):
        self.ok(ThreadReference.Suspend, self.object_id(thread))

    def resume(self, thread):
        self.ok(ThreadReference.Resume, self.object_id(thread))


class ThreadsFrames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()
        cls.debuggee = harness.Debuggee(cls.cfg, "ThreadsFrames",
                                        options="transport=dt_socket,server=y,address=0,suspend=n")
        cls.debuggee.wait_for_output(r"(?m)^all-ready$", 60)
        cls.client = ThreadsClient(cls.debuggee.port, timeout=READ_TIMEOUT_S)
        c = cls.client
        cls.threads = c.threads_by_name()
        cls.klass = c.class_by_signature("LThreadsFrames;")
        cls.method_by_name = {method.name: method.id for method in c.methods(cls.klass)}
        fields = c.fields(cls.klass)
        cls.lock_a = c.static_value(cls.klass, fields["lockA"].id)[1]
        cls.lock_b = c.static_value(cls.klass, fields["lockB"].id)[1]

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.debuggee.kill()
        cls.debuggee.__exit__(None, None, None)

    def thread(self, name):
        self.assertIn(name, self.threads, f"threads: {sorted(self.threads)}")
        return self.threads[name]

    def suspended(self, name):
        """Context manager: the named thread suspended for the block."""
        test = self

        class _Suspended:
            def __enter__(self):
                self.tid = test.thread(name)
                test.client.suspend(self.tid)
                return self.tid

            def __exit__(self, *exc):
                test.client.resume(self.tid)
                return False

        return _Suspended()

    def frame_of(self, frames, method_name):
        mid = self.method_by_name[method_name]
        for depth, (fid, loc) in enumerate(frames):
            if loc[2] == mid:
                return depth, fid
        self.fail(f"no frame of {method_name}")

    # ---- monitors ----

    def test_owned_monitors_and_their_depths(self):
        c = self.client
        with self.suspended("tf-owner") as t:
            r = c.ok(ThreadReference.OwnedMonitors, c.object_id(t))
            owned = [r.value() for _ in range(r.int())]
            self.assertEqual(sorted(owned), sorted([("L", self.lock_a), ("L", self.lock_b)]))
            frames = c.frames(t)
            depth_a, _ = self.frame_of(frames, "holdA")
            depth_b, _ = self.frame_of(frames, "holdB")
            r = c.ok(ThreadReference.OwnedMonitorsStackDepthInfo, c.object_id(t))
            info = []
            for _ in range(r.int()):
                info.append((r.value(), r.int()))
            self.assertEqual(sorted(info, key=lambda x: x[1]),
                             sorted([(("L", self.lock_a), depth_a), (("L", self.lock_b), depth_b)], key=lambda x: x[1]))
            # Parked on a latch, not on a monitor.
            r = c.ok(ThreadReference.CurrentContendedMonitor, c.object_id(t))
            self.assertEqual(r.value(), ("L", 0))

    def test_contended_monitor_of_a_blocked_thread(self):
        c = self.client
        with self.suspended("tf-blocked") as t:
            r = c.ok(ThreadReference.Status, c.object_id(t))
            self.assertEqual(r.int(), ThreadStatus.MONITOR)
            r = c.ok(ThreadReference.CurrentContendedMonitor, c.object_id(t))
            self.assertEqual(r.value(), ("L", self.lock_a))
            r = c.ok(ThreadReference.OwnedMonitors, c.object_id(t))
            self.assertEqual(r.int(), 0)

    def test_monitor_commands_need_a_suspended_thread(self):
        c = self.client
        t = self.thread("tf-owner")
        for command in MONITOR_COMMANDS:
            self.assertEqual(c.error(command, c.object_id(t)), Error.THREAD_NOT_SUSPENDED, str(command))

    def test_monitor_commands_on_a_non_thread(self):
        c = self.client
        for command in MONITOR_COMMANDS:
            self.assertEqual(c.error(command, c.object_id(self.lock_a)), Error.INVALID_THREAD, str(command))

    # ---- frames and locals ----

    def test_locals_of_every_type_with_exact_tags(self):
        c = self.client
        with self.suspended("tf-locals") as t:
            frames = c.frames(t)
            _, fid = self.frame_of(frames, "localsFrame")
            slots = c.variables(self.klass, self.method_by_name["localsFrame"])
            prims = [("z", "Z", True), ("b", "B", -5), ("c", "C", "Q"), ("s", "S", -300), ("i", "I", 123456),
                     ("j", "J", 1 << 40), ("f", "F", 1.5), ("d", "D", -2.25)]
            got = c.get_values(t, fid, [(slots[n][0], tag) for n, tag, _ in prims])
            self.assertEqual(got, [(tag, v) for _, tag, v in prims])
            # Object slots asked as 'L' come back with their most specific tag.
            objects = ["str", "arr", "obj", "thr", "grp", "cls", "ldr", "nul", "self"]
            got = c.get_values(t, fid, [(slots[n][0], "L") for n in objects])
            tags = [tag for tag, _ in got]
            self.assertEqual(tags, ["s", "[", "L", "t", "g", "c", "l", "L", "L"])
            values = dict(zip(objects, (v for _, v in got)))
            self.assertEqual(values["nul"], 0)
            self.assertEqual(values["thr"], t)
            self.assertEqual(c.string_value(values["str"]), "hello")
            # The tag asked for does not change the reply's tag.
            self.assertEqual(c.get_values(t, fid, [(slots["str"][0], "s")])[0][0], "s")
            # A static frame has no this.
            self.assertEqual(c.this_object(t, fid), ("L", 0))
            _, instance_fid = self.frame_of(frames, "instanceFrame")
            this = c.this_object(t, instance_fid)
            self.assertEqual(this, ("L", values["self"]))
            self.assertEqual(c.get_values(t, instance_fid, [(0, "L")]), [this])

    def test_get_values_errors(self):
        c = self.client
        with self.suspended("tf-locals") as t:
            _, fid = self.frame_of(c.frames(t), "localsFrame")
            slots = c.variables(self.klass, self.method_by_name["localsFrame"])
            cases = {
                "slot out of range": ([(200, "I")], Error.INVALID_SLOT),
                "int slot read as object": ([(slots["i"][0], "L")], Error.TYPE_MISMATCH),
                "object slot read as int": ([(slots["str"][0], "I")], Error.TYPE_MISMATCH),
                "int slot read as long": ([(slots["i"][0], "J")], Error.TYPE_MISMATCH),
                "int slot read as float": ([(slots["i"][0], "F")], Error.TYPE_MISMATCH),
                "long slot read as double": ([(slots["j"][0], "D")], Error.TYPE_MISMATCH),
            }
            for what, (req, expected) in cases.items():
                self.assertEqual(c.error(StackFrame.GetValues, c.get_values_body(t, fid, req)), expected, what)

    def test_static_frame(self):
        c = self.client
        with self.suspended("tf-static") as t:
            _, fid = self.frame_of(c.frames(t), "staticFrame")
            slots = c.variables(self.klass, self.method_by_name["staticFrame"])
            self.assertEqual(c.get_values(t, fid, [(slots["x"][0], "I"), (slots["y"][0], "I")]),
                             [("I", 21), ("I", 42)])
            self.assertEqual(c.this_object(t, fid), ("L", 0))

    def test_native_frame_on_top(self):
        c = self.client
        with self.suspended("tf-sleeper") as t:
            frames = c.frames(t)
            top_fid, top_loc = frames[0]
            # The top frame is Thread.sleep (17) or Thread.sleep0 (21+): native, location -1.
            self.assertEqual(top_loc[3], -1)
            self.assertEqual(c.error(StackFrame.GetValues, c.get_values_body(t, top_fid, [(0, "J")])),
                             Error.OPAQUE_FRAME)
            self.assertEqual(c.this_object(t, top_fid), ("L", 0))
            # The Java frame under it still reads.
            _, fid = self.frame_of(frames, "sleeper")
            self.assertEqual(c.this_object(t, fid), ("L", 0))

    def test_frame_of_a_resumed_thread_is_invalid(self):
        c = self.client
        t = self.thread("tf-static")
        c.suspend(t)
        _, fid = self.frame_of(c.frames(t), "staticFrame")
        c.resume(t)
        body = c.get_values_body(t, fid, [(0, "I")])
        # Running: stock checks the suspension first (the spec would allow INVALID_FRAMEID too).
        self.assertEqual(c.error(StackFrame.GetValues, body), Error.THREAD_NOT_SUSPENDED)
        self.assertEqual(c.error(StackFrame.ThisObject, c.object_id(t) + c.frame_id(fid)), Error.THREAD_NOT_SUSPENDED)
        c.suspend(t)
        try:
            # Suspended again: the old frame ID stays invalid.
            self.assertEqual(c.error(StackFrame.GetValues, body), Error.INVALID_FRAMEID)
            self.assertEqual(c.error(StackFrame.ThisObject, c.object_id(t) + c.frame_id(fid)), Error.INVALID_FRAMEID)
        finally:
            c.resume(t)

    def test_frames_need_a_suspended_thread(self):
        c = self.client
        t = self.thread("tf-deep")
        self.assertEqual(c.error(ThreadReference.Frames, c.frames_body(t, 0, -1)), Error.THREAD_NOT_SUSPENDED)
        self.assertEqual(c.error(ThreadReference.FrameCount, c.object_id(t)), Error.THREAD_NOT_SUSPENDED)
        self.assertEqual(c.error(ThreadReference.Frames, c.frames_body(self.lock_a, 0, -1)), Error.INVALID_THREAD)
        self.assertEqual(c.error(ThreadReference.FrameCount, c.object_id(self.lock_a)), Error.INVALID_THREAD)

    def test_deep_stack_frames_ranges_and_values(self):
        c = self.client
        with self.suspended("tf-deep") as t:
            count = c.ok(ThreadReference.FrameCount, c.object_id(t)).int()
            self.assertGreater(count, DEEP_FRAMES)
            started = time.monotonic()
            frames = c.frames(t)
            frames_done = time.monotonic()
            deep_mid = self.method_by_name["deep"]
            deep = [(d, fid) for d, (fid, loc) in enumerate(frames) if loc[2] == deep_mid]
            values = []
            for _, fid in deep:
                values.extend(v for _, v in c.get_values(t, fid, [(0, "I")]))
            elapsed = time.monotonic() - started
            print(f"TIMING agent={self.cfg.agent} jdk{self.cfg.jdk_version}: Frames({count}) in "
                  f"{(frames_done - started) * 1000:.0f} ms; + {len(deep)} x GetValues: {elapsed * 1000:.0f} ms",
                  flush=True)
            self.assertEqual(len(frames), count)
            self.assertEqual(len(deep), DEEP_FRAMES)
            # deep(1) is the innermost frame, deep(5000) the outermost.
            self.assertEqual(values, list(range(1, DEEP_FRAMES + 1)))
            # Sub-ranges agree with the whole stack.
            part = c.frames(t, 100, 50)
            self.assertEqual([loc for _, loc in part], [loc for _, loc in frames[100:150]])
            self.assertEqual([loc for _, loc in c.frames(t, count - 3, -1)], [loc for _, loc in frames[-3:]])
            self.assertEqual(c.frames(t, count, -1), [])
            self.assertEqual(c.frames(t, 0, 0), [])
            errors = {
                "start -1": ((-1, 1), Error.INVALID_INDEX),
                "start past the end": ((count + 1, -1), Error.INVALID_INDEX),
                "start at the end, length 1": ((count, 1), Error.INVALID_INDEX),
                "length past the end": ((0, count + 1), Error.INVALID_LENGTH),
                "length -2": ((0, -2), Error.INVALID_LENGTH),
            }
            for what, ((start, length), expected) in errors.items():
                self.assertEqual(c.error(ThreadReference.Frames, c.frames_body(t, start, length)), expected, what)

    # ---- JDI, and virtual threads on JDK 21+ ----

    def run_jdi(self, args, jvm_options):
        jdi_classes = os.path.join(self.cfg.build_dir, "integration", "jdi-classes")
        options = "transport=dt_socket,server=y,address=0,suspend=n" + jvm_options
        with harness.Debuggee(self.cfg, "ThreadsFrames", args, options=options) as d:
            d.wait_for_output(r"(?m)^all-ready$", 60)
            rc, out, err = harness.run_java(self.cfg, ["-cp", jdi_classes], "ThreadsFramesJdi",
                                            [str(d.port)] + list(args), timeout=180)
        report = f"--- stdout:\n{out}\n--- stderr:\n{err}\n--- debuggee stderr:\n{d.stderr}"
        self.assertEqual(rc, 0, report)
        self.assertIn("RESULT ok", out, report)
        return out, report

    def test_jdi_platform_threads(self):
        out, report = self.run_jdi([], "")
        for line in ["CHECK owned-monitors=lockA,lockB", "CHECK owned-depths=holdA,holdB",
                     "CHECK contended=lockA", "CHECK locals=true,-5,Q,-300,123456,1099511627776,1.5,-2.25,"
                     "\"hello\",int[3],java.lang.StringBuilder,tf-locals,ThreadGroup,ThreadsFrames,ClassLoader,null",
                     "CHECK static-this=null", "CHECK instance-this=instance", "CHECK deep-frames=5000"]:
            self.assertIn(line, out, report)

    def virtual_or_skip(self):
        if self.cfg.jdk_version < 21:
            print(f"SKIPPED: virtual threads need JDK 21+ (this is JDK {self.cfg.jdk_version})", flush=True)
            self.skipTest("virtual threads need JDK 21+")

    def check_virtual(self, include):
        out, report = self.run_jdi(["virtual"], f",includevirtualthreads={include}")
        expected = [
            f"CHECK all-threads-has-virtual={'true' if include == 'y' else 'false'}",
            "CHECK vt-parked virtual=true group=VirtualThreads",
            "CHECK vt-parked frames-have=virtualFrame where=\"virtual\" token=77",
            "CHECK vt-parked suspend-count=1",
            "CHECK breakpoint thread=vt-runner virtual=true",
            "CHECK breakpoint frame0=virtualBreak k-is-int=true",
            "CHECK vm-suspend owner-suspended=true",
            "CHECK vm-resume done",
        ]
        for line in expected:
            self.assertIn(line, out, report)

    def test_virtual_threads_listed(self):
        self.virtual_or_skip()
        self.check_virtual("y")

    def test_virtual_threads_not_listed(self):
        self.virtual_or_skip()
        self.check_virtual("n")


if __name__ == "__main__":
    harness.main()
