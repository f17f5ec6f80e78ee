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
import socket
import struct
import time
import unittest

import harness

READ_TIMEOUT_S = 30
HANDSHAKE = b"JDWP-Handshake"
DEEP_FRAMES = 5000

# Error codes (jdwp-layouts.md).
NONE = 0
INVALID_THREAD = 10
THREAD_NOT_SUSPENDED = 13
INVALID_OBJECT = 20
INVALID_FRAMEID = 30
OPAQUE_FRAME = 32
TYPE_MISMATCH = 34
INVALID_SLOT = 35
INVALID_INDEX = 503
INVALID_LENGTH = 504

# Thread status
MONITOR = 3
ACC_STATIC = 0x0008
ACC_NATIVE = 0x0100


class Reader:
    def __init__(self, data: bytes, sizes: dict):
        self.data, self.pos, self.sizes = data, 0, sizes

    def take(self, n):
        if self.pos + n > len(self.data):
            raise AssertionError(f"reply too short: {n} bytes at {self.pos} of {len(self.data)}")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def byte(self):
        return self.take(1)[0]

    def int(self):
        return struct.unpack(">i", self.take(4))[0]

    def long(self):
        return struct.unpack(">q", self.take(8))[0]

    def id(self, kind="object"):
        return int.from_bytes(self.take(self.sizes[kind]), "big")

    def string(self):
        return self.take(self.int()).decode("utf-8")

    def location(self):
        return (self.byte(), self.id("reftype"), self.id("method"), self.long())

    def value(self, tag=None):
        """(tag, python value); object values are their IDs."""
        tag = chr(self.byte()) if tag is None else tag
        if tag in "Z":
            return tag, self.byte() != 0
        if tag == "B":
            return tag, struct.unpack(">b", self.take(1))[0]
        if tag == "C":
            return tag, chr(struct.unpack(">H", self.take(2))[0])
        if tag == "S":
            return tag, struct.unpack(">h", self.take(2))[0]
        if tag == "I":
            return tag, self.int()
        if tag == "J":
            return tag, self.long()
        if tag == "F":
            return tag, struct.unpack(">f", self.take(4))[0]
        if tag == "D":
            return tag, struct.unpack(">d", self.take(8))[0]
        if tag == "V":
            return tag, None
        return tag, self.id()


class JdwpError(Exception):
    def __init__(self, code):
        super().__init__(f"JDWP error {code}")
        self.code = code


class Client:
    """A raw JDWP client; events sent meanwhile are kept in .events."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT_S)
        self.sock.sendall(HANDSHAKE)
        self.sock.settimeout(READ_TIMEOUT_S)
        self.buf = b""
        self.next_id = 1
        self.events = []
        if self._read(len(HANDSHAKE)) != HANDSHAKE:
            raise AssertionError("bad handshake")
        self.sizes = {"object": 8, "method": 8, "field": 8, "reftype": 8, "frame": 8}
        r = self.ok(1, 7)
        self.sizes = {"field": r.int(), "method": r.int(), "object": r.int(), "reftype": r.int(), "frame": r.int()}

    def close(self):
        self.sock.close()

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise AssertionError("connection closed")
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def enc_id(self, value, kind="object"):
        return value.to_bytes(self.sizes[kind], "big")

    def command(self, cmd_set, cmd, body=b""):
        """(error code, Reader of the reply data)."""
        pid = self.next_id
        self.next_id += 1
        self.sock.sendall(struct.pack(">IIBBB", 11 + len(body), pid, 0, cmd_set, cmd) + body)
        while True:
            length, rid, flags = struct.unpack(">IIB", self._read(9))
            rest = self._read(length - 9)
            if flags & 0x80 and rid == pid:
                err = struct.unpack(">H", rest[:2])[0]
                return err, Reader(rest[2:], self.sizes)
            if not flags & 0x80:
                self.events.append(rest)

    def ok(self, cmd_set, cmd, body=b""):
        err, r = self.command(cmd_set, cmd, body)
        if err != NONE:
            raise JdwpError(err)
        return r

    def error(self, cmd_set, cmd, body=b""):
        return self.command(cmd_set, cmd, body)[0]

    # ---- conveniences ----
    def threads_by_name(self):
        r = self.ok(1, 4)
        out = {}
        for _ in range(r.int()):
            tid = r.id()
            err, nr = self.command(11, 1, self.enc_id(tid))
            if err == NONE:
                out[nr.string()] = tid
        return out

    def class_id(self, signature):
        r = self.ok(1, 2, struct.pack(">I", len(signature)) + signature.encode())
        n = r.int()
        if n != 1:
            raise AssertionError(f"{n} classes for {signature}")
        r.byte()
        return r.id("reftype")

    def methods(self, ref):
        r = self.ok(2, 5, self.enc_id(ref, "reftype"))
        out = {}
        for _ in range(r.int()):
            mid = r.id("method")
            name, sig, mods = r.string(), r.string(), r.int()
            out[mid] = (name, sig, mods)
        return out

    def fields(self, ref):
        r = self.ok(2, 4, self.enc_id(ref, "reftype"))
        out = {}
        for _ in range(r.int()):
            fid = r.id("field")
            name, _sig, _mods = r.string(), r.string(), r.int()
            out[name] = fid
        return out

    def static_value(self, ref, field_id):
        r = self.ok(2, 6, self.enc_id(ref, "reftype") + struct.pack(">i", 1) + self.enc_id(field_id, "field"))
        r.int()
        return r.value()

    def variables(self, ref, method):
        r = self.ok(6, 2, self.enc_id(ref, "reftype") + self.enc_id(method, "method"))
        r.int()
        out = {}
        for _ in range(r.int()):
            r.long()
            name, sig = r.string(), r.string()
            r.int()
            out[name] = (r.int(), sig)
        return out

    def frames_body(self, thread, start, length):
        return self.enc_id(thread) + struct.pack(">ii", start, length)

    def frames(self, thread, start=0, length=-1):
        r = self.ok(11, 6, self.frames_body(thread, start, length))
        return [(r.id("frame"), r.location()) for _ in range(r.int())]

    def get_values_body(self, thread, frame, slots):
        body = self.enc_id(thread) + self.enc_id(frame, "frame") + struct.pack(">i", len(slots))
        for slot, tag in slots:
            body += struct.pack(">iB", slot, ord(tag))
        return body

    def get_values(self, thread, frame, slots):
        r = self.ok(16, 1, self.get_values_body(thread, frame, slots))
        return [r.value() for _ in range(r.int())]

    def this_object(self, thread, frame):
        r = self.ok(16, 3, self.enc_id(thread) + self.enc_id(frame, "frame"))
        return r.value()

    def suspend(self, thread):
        self.ok(11, 2, self.enc_id(thread))

    def resume(self, thread):
        self.ok(11, 3, self.enc_id(thread))

    def string_value(self, sid):
        return self.ok(10, 1, self.enc_id(sid)).string()


class ThreadsFrames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()
        cls.debuggee = harness.Debuggee(cls.cfg, "ThreadsFrames",
                                        options="transport=dt_socket,server=y,address=0,suspend=n")
        cls.debuggee.wait_for_output(r"(?m)^all-ready$", 60)
        cls.client = Client(cls.debuggee.port)
        c = cls.client
        cls.threads = c.threads_by_name()
        cls.klass = c.class_id("LThreadsFrames;")
        cls.methods = c.methods(cls.klass)
        cls.method_by_name = {v[0]: k for k, v in cls.methods.items()}
        fields = c.fields(cls.klass)
        cls.lock_a = c.static_value(cls.klass, fields["lockA"])[1]
        cls.lock_b = c.static_value(cls.klass, fields["lockB"])[1]

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
            r = c.ok(11, 8, c.enc_id(t))
            owned = [r.value() for _ in range(r.int())]
            self.assertEqual(sorted(owned), sorted([("L", self.lock_a), ("L", self.lock_b)]))
            frames = c.frames(t)
            depth_a, _ = self.frame_of(frames, "holdA")
            depth_b, _ = self.frame_of(frames, "holdB")
            r = c.ok(11, 13, c.enc_id(t))
            info = []
            for _ in range(r.int()):
                info.append((r.value(), r.int()))
            self.assertEqual(sorted(info, key=lambda x: x[1]),
                             sorted([(("L", self.lock_a), depth_a), (("L", self.lock_b), depth_b)], key=lambda x: x[1]))
            # Parked on a latch, not on a monitor.
            r = c.ok(11, 9, c.enc_id(t))
            self.assertEqual(r.value(), ("L", 0))

    def test_contended_monitor_of_a_blocked_thread(self):
        c = self.client
        with self.suspended("tf-blocked") as t:
            r = c.ok(11, 4, c.enc_id(t))
            self.assertEqual(r.int(), MONITOR)
            r = c.ok(11, 9, c.enc_id(t))
            self.assertEqual(r.value(), ("L", self.lock_a))
            r = c.ok(11, 8, c.enc_id(t))
            self.assertEqual(r.int(), 0)

    def test_monitor_commands_need_a_suspended_thread(self):
        c = self.client
        t = self.thread("tf-owner")
        for cmd in (8, 9, 13):
            self.assertEqual(c.error(11, cmd, c.enc_id(t)), THREAD_NOT_SUSPENDED, f"command 11/{cmd}")

    def test_monitor_commands_on_a_non_thread(self):
        c = self.client
        for cmd in (8, 9, 13):
            self.assertEqual(c.error(11, cmd, c.enc_id(self.lock_a)), INVALID_THREAD, f"command 11/{cmd}")

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
                "slot out of range": ([(200, "I")], INVALID_SLOT),
                "int slot read as object": ([(slots["i"][0], "L")], TYPE_MISMATCH),
                "object slot read as int": ([(slots["str"][0], "I")], TYPE_MISMATCH),
                "int slot read as long": ([(slots["i"][0], "J")], TYPE_MISMATCH),
                "int slot read as float": ([(slots["i"][0], "F")], TYPE_MISMATCH),
                "long slot read as double": ([(slots["j"][0], "D")], TYPE_MISMATCH),
            }
            for what, (req, expected) in cases.items():
                self.assertEqual(c.error(16, 1, c.get_values_body(t, fid, req)), expected, what)

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
            self.assertEqual(c.error(16, 1, c.get_values_body(t, top_fid, [(0, "J")])), OPAQUE_FRAME)
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
        self.assertEqual(c.error(16, 1, body), THREAD_NOT_SUSPENDED)
        self.assertEqual(c.error(16, 3, c.enc_id(t) + c.enc_id(fid, "frame")), THREAD_NOT_SUSPENDED)
        c.suspend(t)
        try:
            # Suspended again: the old frame ID stays invalid.
            self.assertEqual(c.error(16, 1, body), INVALID_FRAMEID)
            self.assertEqual(c.error(16, 3, c.enc_id(t) + c.enc_id(fid, "frame")), INVALID_FRAMEID)
        finally:
            c.resume(t)

    def test_frames_need_a_suspended_thread(self):
        c = self.client
        t = self.thread("tf-deep")
        self.assertEqual(c.error(11, 6, c.frames_body(t, 0, -1)), THREAD_NOT_SUSPENDED)
        self.assertEqual(c.error(11, 7, c.enc_id(t)), THREAD_NOT_SUSPENDED)
        self.assertEqual(c.error(11, 6, c.frames_body(self.lock_a, 0, -1)), INVALID_THREAD)
        self.assertEqual(c.error(11, 7, c.enc_id(self.lock_a)), INVALID_THREAD)

    def test_deep_stack_frames_ranges_and_values(self):
        c = self.client
        with self.suspended("tf-deep") as t:
            count = c.ok(11, 7, c.enc_id(t)).int()
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
                "start -1": ((-1, 1), INVALID_INDEX),
                "start past the end": ((count + 1, -1), INVALID_INDEX),
                "start at the end, length 1": ((count, 1), INVALID_INDEX),
                "length past the end": ((0, count + 1), INVALID_LENGTH),
                "length -2": ((0, -2), INVALID_LENGTH),
            }
            for what, ((start, length), expected) in errors.items():
                self.assertEqual(c.error(11, 6, c.frames_body(t, start, length)), expected, what)

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
