#!/usr/bin/env python3
"""Malformed and hostile JDWP input, byte for byte against the JDK's own agent.

    python3 integration/test_bad_input.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

A raw JDWP client (stdlib sockets, no JDI) sends commands with wrong or bogus
IDs, truncated bodies, unknown command sets, broken packet headers and
mid-packet disconnects to the Hello fixture started with server=y,suspend=y,
address=0. Each case asserts the exact reply error code and then that the VM
still answers VirtualMachine.Version. The stock agent is the oracle: every
expectation below is what it does on JDK 17 and 25, except where it breaks the
JDWP spec (marked "spec:"), where the spec is asserted instead.

No sleeps: every read has a socket timeout; the only deliberate waits are the
short windows that check a connection stays open with nothing sent back.
"""

from __future__ import annotations

import re
import shutil
import socket
import struct
import tempfile
import time
import unittest

import harness

READ_TIMEOUT_S = 10
# How long a connection must stay silent and open to count as "still waiting
# for the rest of the packet".
QUIET_WINDOW_S = 1.0
# Stock announces its new listening address within milliseconds.
ANNOUNCE_TIMEOUT_S = 5
HANDSHAKE = b"JDWP-Handshake"
HEADER_SIZE = 11
REPLY_FLAG = 0x80
LISTENING = "Listening for transport dt_socket at address: "
# Never handed out by either agent: stock counts objects up from 1.
NEVER_ISSUED_ID = 0x7EADBEEFCAFE1234
ACC_STATIC = 0x0008

# Error codes (jdwp-layouts.md, Error constants).
NONE = 0
INVALID_THREAD = 10
INVALID_THREAD_GROUP = 11
THREAD_NOT_SUSPENDED = 13
INVALID_OBJECT = 20
INVALID_CLASS = 21
INVALID_METHODID = 23
INVALID_FIELDID = 25
INVALID_FRAMEID = 30
TYPE_MISMATCH = 34
INVALID_SLOT = 35
INVALID_MODULE = 42
NOT_IMPLEMENTED = 99
INVALID_EVENT_TYPE = 102
INTERNAL = 113
INVALID_TAG = 500
INVALID_INDEX = 503
INVALID_LENGTH = 504
INVALID_STRING = 506
INVALID_CLASS_LOADER = 507
INVALID_ARRAY = 508

# (command set, command)
VM_VERSION = (1, 1)
VM_CLASSES_BY_SIGNATURE = (1, 2)
VM_ALL_THREADS = (1, 4)
VM_DISPOSE = (1, 6)
VM_ID_SIZES = (1, 7)
VM_RESUME = (1, 9)
VM_CREATE_STRING = (1, 11)
VM_DISPOSE_OBJECTS = (1, 14)
RT_SIGNATURE = (2, 1)
RT_CLASS_LOADER = (2, 2)
RT_FIELDS = (2, 4)
RT_METHODS = (2, 5)
RT_GET_VALUES = (2, 6)
RT_MODULE = (2, 19)
METHOD_LINE_TABLE = (6, 1)
OR_REFERENCE_TYPE = (9, 1)
OR_GET_VALUES = (9, 2)
SR_VALUE = (10, 1)
TR_NAME = (11, 1)
TR_SUSPEND = (11, 2)
TR_RESUME = (11, 3)
TR_FRAMES = (11, 6)
TR_FRAME_COUNT = (11, 7)
TGR_NAME = (12, 1)
TGR_PARENT = (12, 2)
TGR_CHILDREN = (12, 3)
AR_LENGTH = (13, 1)
AR_GET_VALUES = (13, 2)
CLR_VISIBLE_CLASSES = (14, 1)
ER_SET = (15, 1)
SF_GET_VALUES = (16, 1)
COR_REFLECTED_TYPE = (17, 1)
MR_NAME = (18, 1)
MR_CLASS_LOADER = (18, 2)
EVENT_COMPOSITE = (64, 100)


class ConnectionClosed(Exception):
    pass


class Reader:
    """Decodes reply data front to back."""

    def __init__(self, data: bytes, sizes: dict):
        self._data = data
        self._pos = 0
        self._sizes = sizes

    def _take(self, n: int) -> bytes:
        if self._pos + n > len(self._data):
            raise AssertionError(f"reply too short: need {n} bytes at {self._pos} of {len(self._data)}")
        chunk = self._data[self._pos:self._pos + n]
        self._pos += n
        return chunk

    def byte(self) -> int:
        return self._take(1)[0]

    def int(self) -> int:
        return struct.unpack(">i", self._take(4))[0]

    def long(self) -> int:
        return struct.unpack(">q", self._take(8))[0]

    def id(self, kind: str) -> int:
        return int.from_bytes(self._take(self._sizes[kind]), "big")

    def string(self) -> str:
        return self._take(self.int()).decode("utf-8")

    def location(self) -> tuple:
        return self.byte(), self.id("referenceType"), self.id("method"), self.long()


class JdwpClient:
    """One debugger connection: handshake, numbered commands, replies matched by id.

    Event.Composite packets the VM sends meanwhile are kept in .events."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT_S)
        self.sock.settimeout(READ_TIMEOUT_S)
        self._next_id = 1
        self.events = []
        # HotSpot uses 8 for every ID; IDSizes replaces this right after the handshake.
        self.sizes = dict.fromkeys(("field", "method", "object", "referenceType", "frame"), 8)
        self.sock.sendall(HANDSHAKE)
        answer = self.recv_exact(len(HANDSHAKE))
        if answer != HANDSHAKE:
            raise AssertionError(f"bad handshake answer {answer!r}")
        r = self.reply_reader(*VM_ID_SIZES)
        self.sizes = {k: r.int() for k in ("field", "method", "object", "referenceType", "frame")}

    def close(self):
        self.sock.close()

    def recv_exact(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionClosed(f"EOF after {len(buf)} of {n} bytes")
            buf += chunk
        return buf

    def read_packet(self):
        """-> (id, flags, (set, cmd) or error code, data)."""
        header = self.recv_exact(HEADER_SIZE)
        length, packet_id, flags = struct.unpack(">IIB", header[:9])
        if length < HEADER_SIZE:
            raise AssertionError(f"VM sent a packet with length {length}")
        data = self.recv_exact(length - HEADER_SIZE)
        if flags & REPLY_FLAG:
            return packet_id, flags, struct.unpack(">H", header[9:])[0], data
        return packet_id, flags, (header[9], header[10]), data

    def send_command(self, command_set: int, command: int, data: bytes = b"") -> int:
        packet_id = self._next_id
        self._next_id += 1
        self.sock.sendall(struct.pack(">IIBBB", HEADER_SIZE + len(data), packet_id, 0, command_set, command) + data)
        return packet_id

    def command(self, command_set: int, command: int, data: bytes = b"") -> tuple:
        """-> (error code, reply data)."""
        packet_id = self.send_command(command_set, command, data)
        while True:
            reply_id, flags, kind, body = self.read_packet()
            if flags & REPLY_FLAG:
                if reply_id != packet_id:
                    raise AssertionError(f"reply id {reply_id}, expected {packet_id}")
                return kind, body
            if kind != EVENT_COMPOSITE:
                raise AssertionError(f"VM sent unexpected command {kind}")
            self.events.append(body)

    def wait_for_vm_start(self):
        """Reads until the VMStart event has come (as JDI does before resuming):
        the start's suspension is in force once it is sent."""
        def is_vm_start(body):
            return len(body) > 5 and body[5] == 90
        while not any(is_vm_start(b) for b in self.events):
            _, flags, kind, body = self.read_packet()
            if flags & REPLY_FLAG or kind != EVENT_COMPOSITE:
                raise AssertionError(f"VM sent {kind} before VMStart")
            self.events.append(body)

    def reply_reader(self, command_set: int, command: int, data: bytes = b"") -> Reader:
        """Sends a command that must succeed; -> a Reader over its reply."""
        error, body = self.command(command_set, command, data)
        if error != NONE:
            raise AssertionError(f"command {command_set}/{command} failed with error {error}")
        return Reader(body, self.sizes)

    # Encoders sized by IDSizes.
    def object_id(self, value: int) -> bytes:
        return _id_bytes(value, self.sizes["object"])

    def type_id(self, value: int) -> bytes:
        return _id_bytes(value, self.sizes["referenceType"])

    def method_id(self, value: int) -> bytes:
        return _id_bytes(value, self.sizes["method"])

    def field_id(self, value: int) -> bytes:
        return _id_bytes(value, self.sizes["field"])

    def frame_id(self, value: int) -> bytes:
        return _id_bytes(value, self.sizes["frame"])

    # Small queries the cases need.
    def create_string(self, text: str) -> int:
        return self.reply_reader(*VM_CREATE_STRING, jdwp_string(text)).id("object")

    def thread_named(self, name: str) -> int:
        r = self.reply_reader(*VM_ALL_THREADS)
        threads = [r.id("object") for _ in range(r.int())]
        for thread in threads:
            if self.reply_reader(*TR_NAME, self.object_id(thread)).string() == name:
                return thread
        raise AssertionError(f"no thread named {name!r} among {threads}")

    def class_by_signature(self, signature: str) -> int:
        r = self.reply_reader(*VM_CLASSES_BY_SIGNATURE, jdwp_string(signature))
        if r.int() != 1:
            raise AssertionError(f"{signature} is not loaded exactly once")
        r.byte()  # refTypeTag
        return r.id("referenceType")

    def fields(self, type_id: int) -> dict:
        """ReferenceType.Fields -> {name: (fieldID, signature, modBits)}."""
        r = self.reply_reader(*RT_FIELDS, self.type_id(type_id))
        declared = {}
        for _ in range(r.int()):
            field, name, signature, mod_bits = r.id("field"), r.string(), r.string(), r.int()
            declared[name] = (field, signature, mod_bits)
        return declared

    def method_named(self, type_id: int, name: str, signature: str) -> int:
        r = self.reply_reader(*RT_METHODS, self.type_id(type_id))
        for _ in range(r.int()):
            method, method_name, method_signature, _ = r.id("method"), r.string(), r.string(), r.int()
            if (method_name, method_signature) == (name, signature):
                return method
        raise AssertionError(f"no method {name}{signature} in type {type_id}")

    def wait_closed_without_reply(self):
        """Reads until EOF; only Event.Composite packets may come first."""
        try:
            while True:
                _, flags, kind, _ = self.read_packet()
                if flags & REPLY_FLAG or kind != EVENT_COMPOSITE:
                    raise AssertionError(f"agent answered a broken packet ({kind}) instead of closing")
        except (ConnectionClosed, ConnectionResetError):
            return
        except socket.timeout:
            raise AssertionError(f"agent kept the connection open for {READ_TIMEOUT_S}s") from None

    def assert_no_reply(self, window_s: float):
        """Nothing but events for window_s seconds; the agent may close the connection."""
        try:
            self.assert_open_and_silent(window_s)
        except AssertionError as e:
            if "closed" not in str(e) and "EOF" not in str(e):
                raise

    def assert_open_and_silent(self, window_s: float):
        """Nothing but events for window_s seconds and no EOF: the agent still waits for bytes."""
        deadline = time.monotonic() + window_s
        try:
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    return
                self.sock.settimeout(remaining)
                _, flags, kind, _ = self.read_packet()
                if flags & REPLY_FLAG or kind != EVENT_COMPOSITE:
                    raise AssertionError(f"agent sent {kind} while it should wait for the packet body")
        except socket.timeout:
            return
        except (ConnectionClosed, ConnectionResetError) as e:
            raise AssertionError(f"agent closed the connection ({e}); stock waits for the packet body") from None
        finally:
            self.sock.settimeout(READ_TIMEOUT_S)


def _id_bytes(value: int, size: int) -> bytes:
    return (value & ((1 << (8 * size)) - 1)).to_bytes(size, "big")


def i32(value: int) -> bytes:
    return struct.pack(">i", value)


def jdwp_string(text: str) -> bytes:
    data = text.encode("utf-8")
    return i32(len(data)) + data


def raw_header(length: int, command_set: int = 1, command: int = 1, packet_id: int = 1000) -> bytes:
    """A command packet header whose length field is whatever the case needs (unsigned 32 bits)."""
    return struct.pack(">IIBBB", length & 0xFFFFFFFF, packet_id, 0, command_set, command)


def listening_regex(occurrence: int) -> str:
    """Matches the occurrence-th "Listening ..." line (1-based); group 1 = its port."""
    earlier = rf"(?:{re.escape(LISTENING)}\d+.*?){{{occurrence - 1}}}"
    return rf"(?s){earlier}{re.escape(LISTENING)}(\d+)"


class BadInputTest(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        self.debuggee = None
        self.sessions = 1  # "Listening" lines seen so far

    def tearDown(self):
        if self.debuggee is not None:
            self.debuggee.kill()
            if harness.test_failed(self):
                print(f"--- debuggee stdout:\n{self.debuggee.stdout}\n--- debuggee stderr:\n{self.debuggee.stderr}")
            self.debuggee.__exit__(None, None, None)

    def launch(self, jvm_args=()) -> JdwpClient:
        if self.debuggee is not None:  # a case that needs a fresh VM
            self.debuggee.kill()
            self.debuggee.__exit__(None, None, None)
            self.sessions = 1
        # Hello prints a line, then sleeps long enough to outlive the test.
        self.debuggee = harness.Debuggee(self.cfg, "Hello", args=("0", "600000"), jvm_args=jvm_args)
        client = JdwpClient(self.debuggee.port)
        self.addCleanup(client.close)
        client.wait_for_vm_start()
        return client

    def reattach(self) -> JdwpClient:
        """After the agent dropped a debugger: it listens again and announces the
        address again (stock with address=0 picks a new port), and a new
        debugger attaches there."""
        self.sessions += 1
        try:
            announced = self.debuggee.wait_for_output(listening_regex(self.sessions), ANNOUNCE_TIMEOUT_S)
        except AssertionError:
            raise AssertionError(
                f"agent did not print '{LISTENING}<port>' again after the debugger went (stock does, with a"
                f" new port for address=0)\n--- debuggee stdout:\n{self.debuggee.stdout}") from None
        port = int(announced.group(1))
        client = JdwpClient(port)
        self.addCleanup(client.close)
        self.assert_alive(client)
        return client

    def assert_alive(self, client: JdwpClient):
        self.assertIsNone(self.debuggee.returncode, "debuggee exited")
        r = client.reply_reader(*VM_VERSION)
        self.assertTrue(r.string(), "empty Version description")
        self.assertGreaterEqual(r.int(), 1)  # jdwpMajor

    def assert_error(self, client: JdwpClient, expected: int, command: tuple, data: bytes = b"", what: str = ""):
        error, _ = client.command(*command, data)  # error replies may carry data (stock does): ignored
        self.assertEqual(error, expected, f"{what or command}: error {error}, expected {expected}")
        self.assert_alive(client)

    def test_command_errors_with_vm_suspended_at_start(self):
        c = self.launch()
        self.assert_alive(c)
        main = c.thread_named("main")
        string = c.create_string("bad input")
        string_class = c.class_by_signature("Ljava/lang/String;")

        self.assert_error(c, NOT_IMPLEMENTED, (99, 1), what="unknown command set 99")
        self.assert_error(c, NOT_IMPLEMENTED, (1, 99), what="unknown command VirtualMachine 99")
        self.assert_error(c, NOT_IMPLEMENTED, (11, 99), what="unknown command ThreadReference 99")
        self.assert_error(c, INVALID_OBJECT, OR_REFERENCE_TYPE, c.object_id(NEVER_ISSUED_ID),
                          "ObjectReference.ReferenceType of an ID never handed out")
        self.assert_error(c, INVALID_THREAD, TR_NAME, c.object_id(string), "String as threadID")
        self.assert_error(c, INVALID_CLASS, RT_SIGNATURE, c.type_id(string), "String as classID")
        self.assert_error(c, INVALID_STRING, SR_VALUE, c.object_id(main), "thread as stringID")
        self.assert_error(c, INVALID_ARRAY, AR_LENGTH, c.object_id(main), "thread as arrayID")
        self.assert_error(c, INVALID_THREAD_GROUP, TGR_NAME, c.object_id(main), "thread as threadGroupID")
        # fieldID 0: stock dies on other made-up values (it hands them to JNI).
        self.assert_error(c, INVALID_FIELDID, RT_GET_VALUES,
                          c.type_id(string_class) + i32(1) + c.field_id(0), "ReferenceType.GetValues fieldID 0")
        self.assert_error(c, INVALID_EVENT_TYPE, ER_SET, bytes([77, 0]) + i32(0), "EventRequest.Set eventKind 77")
        self.assert_error(c, INVALID_EVENT_TYPE, ER_SET, bytes([0, 0]) + i32(0), "EventRequest.Set eventKind 0")
        self.assert_error(c, NONE, VM_DISPOSE_OBJECTS, i32(1) + c.object_id(NEVER_ISSUED_ID) + i32(1),
                          "DisposeObjects of an ID never handed out")
        # The real objects are still good after all that.
        self.assertEqual(c.reply_reader(*SR_VALUE, c.object_id(string)).string(), "bad input")
        self.assertEqual(c.reply_reader(*TR_NAME, c.object_id(main)).string(), "main")

    def test_truncated_body(self):
        c = self.launch()
        main = c.thread_named("main")
        # The spec names no error for a body shorter than its layout; stock answers INTERNAL.
        self.assert_error(c, INTERNAL, TR_NAME, b"\0\0\0", "ThreadReference.Name with 3 data bytes")
        self.assert_error(c, INTERNAL, TR_FRAMES, c.object_id(main) + b"\0\0",
                          "ThreadReference.Frames cut inside startFrame")
        self.assertEqual(c.reply_reader(*TR_NAME, c.object_id(main)).string(), "main")

    def test_bogus_method_id(self):
        # Stock aborts the VM here: no core file in the source tree.
        c = self.launch(jvm_args=("-XX:-CreateCoredumpOnCrash",))
        string_class = c.class_by_signature("Ljava/lang/String;")
        line_table_of_bogus_method = c.type_id(string_class) + c.method_id(0)
        if self.cfg.agent == "stock":
            # spec: Method.LineTable lists INVALID_METHODID. Stock (JDK 17 and 25)
            # instead aborts the whole VM; that is pinned here so the day it is
            # fixed shows up. Our agent must give the spec's answer (below).
            c.send_command(*METHOD_LINE_TABLE, line_table_of_bogus_method)
            c.wait_closed_without_reply()
            self.assertNotEqual(self.debuggee.wait(READ_TIMEOUT_S), 0)
            self.assertIn("JVMTI_ERROR_INVALID_METHODID", self.debuggee.stdout + self.debuggee.stderr)
            return
        self.assert_error(c, INVALID_METHODID, METHOD_LINE_TABLE, line_table_of_bogus_method,
                          "Method.LineTable methodID 0")
        # Values stock cannot survive (it dereferences them); ours must check them.
        self.assert_error(c, INVALID_METHODID, METHOD_LINE_TABLE,
                          c.type_id(string_class) + c.method_id(NEVER_ISSUED_ID), "Method.LineTable made-up methodID")
        self.assert_error(c, INVALID_FIELDID, RT_GET_VALUES,
                          c.type_id(string_class) + i32(1) + c.field_id(NEVER_ISSUED_ID),
                          "ReferenceType.GetValues made-up fieldID")

    def test_frames_and_suspension(self):
        c = self.launch()
        main = c.thread_named("main")
        self.assertEqual(c.command(*VM_RESUME)[0], NONE)
        # From here main is running (printing, then sleeping), not suspended by us.
        self.debuggee.wait_for_output("hello from fixture", READ_TIMEOUT_S)
        main_id = c.object_id(main)
        self.assert_error(c, THREAD_NOT_SUSPENDED, TR_FRAMES, main_id + i32(0) + i32(-1),
                          "Frames of a running thread")

        self.assertEqual(c.command(*TR_SUSPEND, main_id)[0], NONE)
        count = c.reply_reader(*TR_FRAME_COUNT, main_id).int()
        self.assertGreater(count, 0)
        r = c.reply_reader(*TR_FRAMES, main_id + i32(0) + i32(-1))
        self.assertEqual(r.int(), count)
        frames = []
        for _ in range(count):
            frames.append(r.id("frame"))
            r.location()
        main_frame = frames[-1]

        # Stock: start one past the last frame is an empty list, further out INVALID_INDEX.
        r = c.reply_reader(*TR_FRAMES, main_id + i32(count) + i32(-1))
        self.assertEqual(r.int(), 0)
        self.assert_error(c, INVALID_INDEX, TR_FRAMES, main_id + i32(count + 100) + i32(1), "startFrame past the stack")
        self.assert_error(c, INVALID_INDEX, TR_FRAMES, main_id + i32(-1) + i32(1), "startFrame -1")
        self.assert_error(c, INVALID_LENGTH, TR_FRAMES, main_id + i32(0) + i32(-2), "length -2")
        self.assert_error(c, INVALID_LENGTH, TR_FRAMES, main_id + i32(0) + i32(count + 1), "length past the stack")

        self.assert_error(c, INVALID_FRAMEID, SF_GET_VALUES, main_id + c.frame_id(NEVER_ISSUED_ID) + i32(0),
                          "StackFrame.GetValues with a made-up frameID")
        self.assert_error(c, NONE, SF_GET_VALUES, main_id + c.frame_id(main_frame) + i32(0),
                          "StackFrame.GetValues of a live frame, no slots")
        # Frame IDs die when their thread resumes, even if it is suspended again.
        self.assertEqual(c.command(*TR_RESUME, main_id)[0], NONE)
        self.assertEqual(c.command(*TR_SUSPEND, main_id)[0], NONE)
        self.assert_error(c, INVALID_FRAMEID, SF_GET_VALUES, main_id + c.frame_id(main_frame) + i32(0),
                          "StackFrame.GetValues with a frameID from before resume")
        self.assertEqual(c.command(*TR_RESUME, main_id)[0], NONE)
        self.assert_error(c, THREAD_NOT_SUSPENDED, TR_FRAMES, main_id + i32(0) + i32(-1),
                          "Frames after the thread was resumed")

    def suspend_main_while_it_sleeps(self, c: JdwpClient) -> tuple:
        """Resumes the VM, waits for Hello's line and suspends main inside
        Thread.sleep -> (main's threadID bytes, frameID of Hello.main)."""
        main_id = c.object_id(c.thread_named("main"))
        self.assertEqual(c.command(*VM_RESUME)[0], NONE)
        self.debuggee.wait_for_output("hello from fixture", READ_TIMEOUT_S)
        self.assertEqual(c.command(*TR_SUSPEND, main_id)[0], NONE)
        r = c.reply_reader(*TR_FRAMES, main_id + i32(0) + i32(-1))
        frames = []
        for _ in range(r.int()):
            frames.append(r.id("frame"))
            r.location()
        return main_id, frames[-1]

    def test_ids_of_the_wrong_kind(self):
        c = self.launch()
        main = c.thread_named("main")
        string = c.create_string("not a container")
        string_class = c.class_by_signature("Ljava/lang/String;")
        module = c.reply_reader(*RT_MODULE, c.type_id(string_class)).id("object")

        self.assert_error(c, INVALID_CLASS, RT_SIGNATURE, c.type_id(main), "thread as classID")
        self.assert_error(c, INVALID_CLASS, RT_SIGNATURE, c.type_id(module), "module as classID")
        self.assert_error(c, INVALID_THREAD, TR_NAME, c.object_id(string_class), "classID as threadID")
        self.assert_error(c, INVALID_THREAD, TR_FRAMES, c.object_id(string_class) + i32(0) + i32(-1),
                          "classID as threadID, Frames")
        self.assert_error(c, INVALID_THREAD, TR_NAME, c.object_id(module), "module as threadID")
        self.assert_error(c, INVALID_ARRAY, AR_GET_VALUES, c.object_id(string) + i32(0) + i32(0),
                          "String to ArrayReference.GetValues")
        self.assert_error(c, INVALID_STRING, SR_VALUE, c.object_id(string_class), "class object as stringID")
        self.assert_error(c, INVALID_CLASS_LOADER, CLR_VISIBLE_CLASSES, c.object_id(main), "thread as classLoaderID")
        self.assert_error(c, INVALID_CLASS_LOADER, CLR_VISIBLE_CLASSES, c.object_id(module), "module as classLoaderID")
        self.assert_error(c, INVALID_THREAD_GROUP, TGR_PARENT, c.object_id(main), "thread to ThreadGroup.Parent")
        self.assert_error(c, INVALID_THREAD_GROUP, TGR_CHILDREN, c.object_id(main), "thread to ThreadGroup.Children")
        self.assert_error(c, INVALID_MODULE, MR_NAME, c.object_id(NEVER_ISSUED_ID), "moduleID never handed out")
        self.assert_error(c, INVALID_MODULE, MR_CLASS_LOADER, c.object_id(NEVER_ISSUED_ID),
                          "moduleID never handed out, ClassLoader")
        if self.cfg.agent == "stock":
            # spec: ModuleReference lists INVALID_MODULE. Stock checks only that
            # the ID is known and calls Module.getName/getClassLoader on whatever
            # object it names (a thread answers ""). Pinned; ours must say INVALID_MODULE.
            for command in (MR_NAME, MR_CLASS_LOADER):
                self.assert_error(c, NONE, command, c.object_id(main), f"thread to ModuleReference {command}")
        else:
            self.assert_error(c, INVALID_MODULE, MR_NAME, c.object_id(main), "thread as moduleID")
            self.assert_error(c, INVALID_MODULE, MR_CLASS_LOADER, c.object_id(main), "thread as moduleID, ClassLoader")
        # The real ones still work.
        self.assertEqual(c.reply_reader(*MR_NAME, c.object_id(module)).string(), "java.base")
        self.assertEqual(c.reply_reader(*SR_VALUE, c.object_id(string)).string(), "not a container")

    def test_members_of_another_class(self):
        c = self.launch()
        string = c.create_string("members")
        string_class = c.class_by_signature("Ljava/lang/String;")
        integer_class = c.class_by_signature("Ljava/lang/Integer;")
        thread_class = c.class_by_signature("Ljava/lang/Thread;")

        # A static field of another class: stock does not check where it is
        # declared and answers with that field's value (HotSpot's static field
        # IDs name their class), and so do we.
        min_value = c.fields(integer_class)["MIN_VALUE"][0]
        r = c.reply_reader(*RT_GET_VALUES, c.type_id(string_class) + i32(1) + c.field_id(min_value))
        self.assertEqual(r.int(), 1)
        self.assertEqual((r.byte(), r.int()), (ord("I"), -2**31))

        # An instance field of another class that lies outside the object's
        # layout (Thread.name is far past String's few fields): INVALID_FIELDID.
        # (HotSpot's instance field IDs are offsets, so a foreign field at an
        # offset the object also has reads the object's own field, in stock
        # and through JVMTI alike; not pinned.)
        thread_name = c.fields(thread_class)["name"][0]
        self.assert_error(c, INVALID_FIELDID, OR_GET_VALUES, c.object_id(string) + i32(1) + c.field_id(thread_name),
                          "ObjectReference.GetValues of a String with Thread.name")

        # Method.LineTable does not check refType against the method: the
        # method's own table comes back.
        int_value = c.method_named(integer_class, "intValue", "()I")
        own = c.command(*METHOD_LINE_TABLE, c.type_id(integer_class) + c.method_id(int_value))
        self.assertEqual(own[0], NONE)
        foreign = c.command(*METHOD_LINE_TABLE, c.type_id(string_class) + c.method_id(int_value))
        self.assertEqual(foreign, own, "LineTable of Integer.intValue asked through String")
        self.assert_alive(c)

    def test_members_and_objects_stock_does_not_check(self):
        # spec: each of these has a spec error, but stock hands the IDs to JNI
        # unchecked and the VM dies (SIGSEGV; pinned so the day it is fixed
        # shows up). Ours must give the spec's answer and stay up.
        error_files = tempfile.mkdtemp(prefix="jdwpx-bad-input-")
        self.addCleanup(shutil.rmtree, error_files, True)
        jvm_args = ("-XX:-CreateCoredumpOnCrash", f"-XX:ErrorFile={error_files}/hs_err_%p.log")

        def cases(c: JdwpClient):
            string_class = c.class_by_signature("Ljava/lang/String;")
            integer_class = c.class_by_signature("Ljava/lang/Integer;")
            string = c.create_string("unchecked")
            hash_field = c.fields(string_class)["hash"][0]
            min_value = c.fields(integer_class)["MIN_VALUE"][0]
            return [
                ("ReferenceType.GetValues with an instance field", INVALID_FIELDID, RT_GET_VALUES,
                 c.type_id(string_class) + i32(1) + c.field_id(hash_field)),
                # Stock reads through this one at random: it sometimes answers
                # NONE and sometimes dies, so for stock it is not sent.
                ("ObjectReference.GetValues with another class's static field", INVALID_FIELDID, OR_GET_VALUES,
                 c.object_id(string) + i32(1) + c.field_id(min_value)),
                # The spec lists only INVALID_OBJECT for ReflectedType.
                ("ClassObjectReference.ReflectedType of a String", INVALID_OBJECT, COR_REFLECTED_TYPE,
                 c.object_id(string)),
            ]

        if self.cfg.agent != "stock":
            c = self.launch(jvm_args)
            for what, expected, command, data in cases(c):
                self.assert_error(c, expected, command, data, what)
            return
        for index in (0, 2):
            c = self.launch(jvm_args)
            what, _, command, data = cases(c)[index]
            with self.subTest(what):
                c.send_command(*command, data)
                c.wait_closed_without_reply()
                self.assertNotEqual(self.debuggee.wait(READ_TIMEOUT_S), 0, what)

    def test_frame_slots_and_array_ranges(self):
        c = self.launch()
        main_id, frame = self.suspend_main_while_it_sleeps(c)

        def slots(*pairs) -> bytes:
            return main_id + c.frame_id(frame) + i32(len(pairs)) + b"".join(i32(n) + tag.encode() for n, tag in pairs)

        # Hello.main's locals (javac -g): 0 args String[2], 1 exitCode int 0,
        # 2-3 sleepMillis long 600000.
        r = c.reply_reader(*SF_GET_VALUES, slots((0, "["), (1, "I"), (2, "J")))
        self.assertEqual(r.int(), 3)
        self.assertEqual(r.byte(), ord("["))
        args = r.id("object")
        self.assertEqual((r.byte(), r.int()), (ord("I"), 0))
        self.assertEqual((r.byte(), r.long()), (ord("J"), 600000))

        for slot in (4, 99, -1):
            self.assert_error(c, INVALID_SLOT, SF_GET_VALUES, slots((slot, "I")), f"slot {slot}")
        for slot, tag in ((0, "I"), (1, "L"), (1, "J"), (1, "F"), (2, "I")):
            self.assert_error(c, TYPE_MISMATCH, SF_GET_VALUES, slots((slot, tag)), f"slot {slot} read as {tag}")
        self.assert_error(c, INVALID_TAG, SF_GET_VALUES, slots((1, "X")), "tag X")
        # An int slot read with a narrower int tag is answered (JVMTI reads the int).
        r = c.reply_reader(*SF_GET_VALUES, slots((1, "Z")))
        self.assertEqual((r.int(), r.byte(), r.byte()), (1, ord("Z"), 0))

        args_id = c.object_id(args)
        self.assertEqual(c.reply_reader(*AR_LENGTH, args_id).int(), 2)
        for first, length in ((2, 0), (2, 1), (-1, 1)):
            self.assert_error(c, INVALID_INDEX, AR_GET_VALUES, args_id + i32(first) + i32(length),
                              f"args[{first}, length {length}]")
        for first, length in ((0, 3), (1, 2), (0, -2)):
            self.assert_error(c, INVALID_LENGTH, AR_GET_VALUES, args_id + i32(first) + i32(length),
                              f"args[{first}, length {length}]")
        # Length -1: to the end.
        r = c.reply_reader(*AR_GET_VALUES, args_id + i32(1) + i32(-1))
        self.assertEqual((r.byte(), r.int(), r.byte()), (ord("L"), 1, ord("s")))
        self.assertEqual(c.reply_reader(*SR_VALUE, c.object_id(r.id("object"))).string(), "600000")
        self.assert_error(c, INVALID_STRING, SR_VALUE, args_id, "String[] as stringID")

    def test_length_below_header_size_drops_the_connection(self):
        c = self.launch()
        for length in (HEADER_SIZE - 1, 0):
            c.sock.sendall(raw_header(length))
            c.wait_closed_without_reply()
            c = self.reattach()

    def test_version_reports_the_running_jvm(self):
        # Not bad input, but the same raw client: Version carries java.version
        # and java.vm.name of the debuggee, and JDWP major = JDK feature release.
        rc, _, err = harness.run_java(self.cfg, ["-XshowSettings:properties"], "-version", timeout=60)
        props = dict(re.findall(r"(?m)^\s+(java\.version|java\.vm\.name) = (.*)$", err))
        c = self.launch()
        r = c.reply_reader(*VM_VERSION)
        description, major, minor, vm_version, vm_name = r.string(), r.int(), r.int(), r.string(), r.string()
        self.assertEqual(vm_version, props["java.version"], description)
        self.assertEqual(vm_name, props["java.vm.name"])
        self.assertEqual((major, minor), (self.cfg.jdk_version, 0))

    def test_huge_length_is_never_answered(self):
        # A length of 2 GB is never answered, and a command sent after it is not
        # taken as a command; when the connection ends the agent listens again.
        # Deliberate difference: stock reads the length as a plain size and
        # waits for that many bytes; jdwpx refuses lengths over 64 MiB and closes
        # the connection at once (no buffer of the claimed size, no stalled
        # session). Both are "no reply, VM alive, next debugger served".
        c = self.launch()
        for length in (0x7FFFFFFF, 0x80000000):
            c.sock.sendall(raw_header(length))
            c.send_command(*VM_VERSION)
            c.assert_no_reply(QUIET_WINDOW_S)
            c.close()
            c = self.reattach()

    def test_disconnect_in_the_middle_of_a_packet(self):
        c = self.launch()
        main = c.thread_named("main")
        cuts = {
            "inside the header": raw_header(HEADER_SIZE)[:8],
            "inside the body": raw_header(HEADER_SIZE + c.sizes["object"], *TR_NAME) + c.object_id(main)[:2],
        }
        for partial in cuts.values():
            c.sock.sendall(partial)
            c.close()
            c = self.reattach()

    def test_dispose_then_a_new_session(self):
        c = self.launch()
        # Many IDs first, so the ones checked later are beyond anything the new
        # session hands out before asking (stock restarts its count at 1).
        for n in range(64):
            c.create_string(f"filler {n}")
        old_string = c.create_string("old session")
        self.assertEqual(c.command(*VM_DISPOSE)[0], NONE)
        c.wait_closed_without_reply()

        c = self.reattach()
        self.assert_error(c, INVALID_OBJECT, SR_VALUE, c.object_id(old_string), "old session's String")
        self.assert_error(c, INVALID_OBJECT, OR_REFERENCE_TYPE, c.object_id(old_string),
                          "old session's String, ReferenceType")
        # The new session works normally.
        self.assertEqual(c.reply_reader(*SR_VALUE, c.object_id(c.create_string("new session"))).string(),
                         "new session")


if __name__ == "__main__":
    harness.main()
