#!/usr/bin/env python3
"""Objects, arrays and strings over raw JDWP, byte for byte against the JDK's own agent.

    python3 integration/test_objects.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

The ObjectsFixture debuggee (suspend=n) builds its values, prints "ready" while
its main thread owns a monitor twice with one waiter, and blocks there. A raw
client (stdlib sockets) then suspends the VM and reads: every array element
type, the index/length edges of ArrayReference.GetValues, strings with NUL,
supplementary characters and unpaired surrogates, MonitorInfo, and the huge
cases (1M Object[], 10M long[], 50M-char strings, also in modified UTF-8 with
mutf8=y) with the debuggee's peak RSS growth and the time of each reply printed
for comparison; debuggers that leave in the middle of a huge reply, and the
next one served (the last through JDI: jdi/HugeStringsJdi.java). The JDI half
(jdi/ObjectsJdi.java) checks the same values through com.sun.jdi, plus object
collection. Every expectation is the stock agent's behaviour on JDK 17.

No sleeps: every wait is a read with a timeout.
"""

from __future__ import annotations

import hashlib
import os
import re
import struct
import time
import unittest

import harness
from jdwp_client import (HEADER_SIZE, ArrayReference, Client, Error, ObjectReference, Reader, StringReference,
                         VirtualMachine, i32, parse_header)

READ_TIMEOUT_S = 120
PRIMITIVE_FORMATS = {"Z": ">?", "B": ">b", "C": ">H", "S": ">h", "I": ">i", "J": ">q", "F": ">I", "D": ">Q"}
PRIMITIVE_SIZES = {"Z": 1, "B": 1, "C": 2, "S": 2, "I": 4, "J": 8, "F": 4, "D": 8}
ACC_STATIC = 0x0008


class ObjectsClient(Client):
    """The shared raw client plus the reads only this test needs."""

    def all_static_values(self, class_id: int) -> dict:
        """Every static field of a class: name -> (tag, value)."""
        statics = [(name, field.id) for name, field in self.fields(class_id).items() if field.mod_bits & ACC_STATIC]
        values = self.static_values(class_id, [field_id for _, field_id in statics])
        if len(values) != len(statics):
            raise AssertionError("GetValues count")
        return {name: value for (name, _), value in zip(statics, values)}

    def region_error(self, array: int, first: int, length: int) -> int:
        """The error code of ArrayReference.GetValues."""
        return self.error(ArrayReference.GetValues, self.object_id(array) + i32(first) + i32(length))

    def array_region(self, array: int, first: int, length: int):
        """-> (region tag, [values]): primitives decoded, objects as (tag, id)."""
        r = self.ok(ArrayReference.GetValues, self.object_id(array) + i32(first) + i32(length))
        return decode_region(r)

    def string_bytes(self, string_id: int) -> bytes:
        r = self.ok(StringReference.Value, self.object_id(string_id))
        data = r.raw_string()
        assert r.at_end()
        return data


def decode_region(r: Reader):
    tag = chr(r.byte())
    count = r.int()
    if tag in PRIMITIVE_FORMATS:
        size = PRIMITIVE_SIZES[tag]
        fmt = ">" + str(count) + PRIMITIVE_FORMATS[tag][1]
        values = list(struct.unpack(fmt, r.take(size * count)))
    else:
        values = []
        for _ in range(count):
            values.append((chr(r.byte()), r.id()))
    if not r.at_end():
        raise AssertionError("bytes after the array region")
    return tag, values


def f32_bits(x: float) -> int:
    return struct.unpack(">I", struct.pack(">f", x))[0]


def f64_bits(x: float) -> int:
    return struct.unpack(">Q", struct.pack(">d", x))[0]


def stock_utf8(text_utf16: str) -> bytes:
    """What the JDK's agent sends for a Java string (its default, mutf8=n): the
    JVM's modified UTF-8 converted to standard UTF-8, i.e. NUL as one 0 byte, a
    surrogate pair as one 4-byte sequence, an unpaired surrogate as the 3-byte
    sequence of its code unit."""
    return text_utf16.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass") \
        .encode("utf-8", "surrogatepass")


def vm_hwm_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise AssertionError("no VmHWM")


def vm_rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


def reset_peak_rss(pid: int):
    """Makes VmHWM restart from the current RSS (Linux 4.0+)."""
    with open(f"/proc/{pid}/clear_refs", "w", encoding="ascii") as f:
        f.write("5")


BLOCK_OPTIONS = "transport=dt_socket,server=y,address=0,suspend=n"


class FixtureSession:
    """ObjectsFixture started with `args`, attached once it is ready, VM suspended."""

    def __init__(self, test, args, options=BLOCK_OPTIONS, jvm_args=()):
        self.debuggee = harness.Debuggee(test.cfg, "ObjectsFixture", args=args, options=options, jvm_args=jvm_args)
        try:
            port = self.debuggee.port
            self.debuggee.wait_for_output(r"(?m)^ready$", 180)
            self.client = ObjectsClient(port, timeout=READ_TIMEOUT_S)
            self.client.ok(VirtualMachine.Suspend)
            self.fixture = self.client.class_by_signature("LObjectsFixture;")
            self.statics = self.client.all_static_values(self.fixture)
        except BaseException:
            self.debuggee.__exit__(None, None, None)
            raise

    def id(self, name: str) -> int:
        return self.statics[name][1]

    def close(self):
        try:
            self.client.close()
        finally:
            self.debuggee.__exit__(None, None, None)


class ObjectValues(unittest.TestCase):
    """Small values: every element type, edges, strings, monitors."""

    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()
        cls.s = FixtureSession(cls, ["block"])
        cls.c = cls.s.client

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def test_every_primitive_element_type(self):
        expected = {
            "booleans": ("Z", [True, False, True]),
            "bytes": ("B", [-128, 0, 127, -1]),
            "chars": ("C", [0x61, 0xE9, 0x20AC, 0xFFFF, 0]),
            "shorts": ("S", [-32768, 0, 32767, -2]),
            "ints": ("I", [-2**31, -1, 0, 1, 2**31 - 1]),
            "longs": ("J", [-2**63, -1, 0, 1, 2**63 - 1]),
            "floats": ("F", [f32_bits(x) for x in (-1.5, 0.0, -0.0, 3.4028234663852886e38, float("inf"))]
                       + [0x7FC00000]),
            "doubles": ("D", [f64_bits(x) for x in (-1.5, 0.0, -0.0, 5e-324, float("-inf"))]
                        + [0x7FF8000000000000]),
        }
        for name, want in expected.items():
            with self.subTest(name):
                self.assertEqual(self.c.array_region(self.s.id(name), 0, -1), want)
                length = self.c.ok(ArrayReference.Length, self.c.object_id(self.s.id(name))).int()
                self.assertEqual(length, len(want[1]))

    def test_object_arrays_tag_each_element(self):
        tag, values = self.c.array_region(self.s.id("mixed"), 0, -1)
        self.assertEqual(tag, "L")
        self.assertEqual([t for t, _ in values], ["s", "t", "g", "l", "c", "[", "L", "L"])
        self.assertEqual(values[-1][1], 0, "null element")
        self.assertEqual(values[1][1], self.c.thread_named("main"))
        self.assertEqual(self.c.string_bytes(values[0][1]), b"text")
        # A subclass's instance after its superclass's has the same tag; any
        # other class after an Object or after another class gets its own.
        tag, values = self.c.array_region(self.s.id("runs"), 0, -1)
        self.assertEqual((tag, "".join(t for t, _ in values)), ("L", "LLttsLLLggllcc[[[[[L"))
        self.assertEqual(values[2][1], self.c.thread_named("main"))
        self.assertEqual(len({v for _, v in values}), len(values), "one ID per element, each its own")
        tag, values = self.c.array_region(self.s.id("strings"), 0, -1)
        self.assertEqual((tag, [t for t, _ in values]), ("L", ["s", "L", "s"]))
        self.assertEqual([self.c.string_bytes(values[0][1]), values[1][1], self.c.string_bytes(values[2][1])],
                         [b"alpha", 0, b"gamma"])
        tag, values = self.c.array_region(self.s.id("nested"), 0, -1)
        self.assertEqual((tag, [t for t, _ in values]), ("[", ["[", "L", "["]))
        self.assertEqual(self.c.array_region(values[0][1], 0, -1), ("I", [1, 2]))
        # One ID per object: the same element read twice has the same ID.
        self.assertEqual(self.c.array_region(self.s.id("nested"), 0, 1)[1][0], values[0])

    def test_get_values_index_and_length_edges(self):
        ints = self.s.id("ints")  # 5 elements
        cases = [
            ((4, 1), Error.NONE), ((0, 5), Error.NONE), ((2, -1), Error.NONE), ((4, -1), Error.NONE),
            ((0, 0), Error.NONE),
            ((5, 0), Error.INVALID_INDEX), ((5, -1), Error.INVALID_INDEX), ((6, 0), Error.INVALID_INDEX),
            ((-1, 0), Error.INVALID_INDEX), ((-1, -1), Error.INVALID_INDEX),
            ((4, 2), Error.INVALID_LENGTH), ((0, 6), Error.INVALID_LENGTH), ((0, -2), Error.INVALID_LENGTH),
        ]
        for (first, length), want in cases:
            with self.subTest(first=first, length=length):
                self.assertEqual(self.c.region_error(ints, first, length), want)
        self.assertEqual(self.c.array_region(ints, 2, -1), ("I", [0, 1, 2**31 - 1]))
        self.assertEqual(self.c.array_region(ints, 1, 0), ("I", []))
        # An empty array has no valid first index, not even with length 0.
        for first, length in [(0, 0), (0, -1), (0, 1)]:
            with self.subTest(empty=(first, length)):
                self.assertEqual(self.c.region_error(self.s.id("empty"), first, length), Error.INVALID_INDEX)
        if self.cfg.agent == "ours":
            # spec: stock crashes the VM here (first + length overflows its int).
            self.assertEqual(self.c.region_error(ints, 1, 0x7FFFFFFF), Error.INVALID_LENGTH)

    def test_wrong_kinds_of_object(self):
        special, ints = self.s.id("special"), self.s.id("ints")
        self.assertEqual(self.c.region_error(special, 0, 1), Error.INVALID_ARRAY)
        self.assertEqual(self.c.error(ArrayReference.Length, self.c.object_id(special)), Error.INVALID_ARRAY)
        self.assertEqual(self.c.error(StringReference.Value, self.c.object_id(ints)), Error.INVALID_STRING)
        self.assertEqual(self.c.error(ObjectReference.MonitorInfo, self.c.object_id(0)), Error.INVALID_OBJECT)
        self.assertEqual(self.c.error(ObjectReference.MonitorInfo, self.c.object_id(0x7EADBEEFCAFE1234)),
                         Error.INVALID_OBJECT)

    def test_string_value_errors(self):
        # Found before a byte of the reply is made (a huge one is streamed):
        # an ID the agent never gave out or has released is INVALID_OBJECT,
        # an object that is no string INVALID_STRING (stock's codes).
        string_id = self.c.ok(VirtualMachine.CreateString, i32(3) + b"abc").id()
        self.assertEqual(self.c.string_bytes(string_id), b"abc")
        self.c.ok(VirtualMachine.DisposeObjects, i32(1) + self.c.object_id(string_id) + i32(1))
        cases = [(string_id, Error.INVALID_OBJECT), (0x7EADBEEFCAFE1234, Error.INVALID_OBJECT),
                 (self.s.id("ints"), Error.INVALID_STRING), (self.s.id("strings"), Error.INVALID_STRING), (self.c.thread_named("main"), Error.INVALID_STRING)]
        for object_id, want in cases:
            with self.subTest(object_id=object_id):
                self.assertEqual(self.c.error(StringReference.Value, self.c.object_id(object_id)), want)

    def test_string_bytes_match_stock_encoding(self):
        # Standard UTF-8 (stock's default, mutf8=n): NUL is one 0 byte, a pair one
        # 4-byte sequence, an unpaired surrogate the 3-byte sequence of its unit.
        self.assertEqual(
            self.c.string_bytes(self.s.id("special")),
            b"a\x00b\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80x\xed\xa0\x80y\xed\xb0\x80z\xf0\x9f\x98\x80")
        self.assertEqual(self.c.string_bytes(self.s.id("lonelyHighAtEnd")), b"end\xed\xa0\x80")
        self.assertEqual(stock_utf8("a\0b\u00e9\u20ac\ud83d\ude00x\ud800y\udc00z\ud83d\ude00"),
                         self.c.string_bytes(self.s.id("special")))

    def test_monitor_info_owner_entry_count_and_waiter(self):
        r = self.c.ok(ObjectReference.MonitorInfo, self.c.object_id(self.s.id("lock")))
        owner, entry_count = r.id(), r.int()
        waiters = [r.id() for _ in range(r.int())]
        self.assertTrue(r.at_end())
        self.assertEqual(owner, self.c.thread_named("main"))
        self.assertEqual(entry_count, 2)
        self.assertEqual(waiters, [self.c.thread_named("objects-waiter")])
        # An object nobody locks: no owner, no waiters.
        r = self.c.ok(ObjectReference.MonitorInfo, self.c.object_id(self.s.id("ints")))
        self.assertEqual((r.id(), r.int(), r.int()), (0, 0, 0))


class HugeValues(unittest.TestCase):
    """Any size: each answered in one reply (stock: see the Object[] case)."""

    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()
        cls.s = FixtureSession(cls, ["huge", "block"], jvm_args=["-Xmx2g"])
        cls.c = cls.s.client
        cls.pid = cls.s.debuggee.proc.pid

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def measure(self, what: str, reply_bytes: int, fn, ours_limit_factor: float, per_new_id_bytes: int = 0,
                new_ids: int = 0, slack_mib: int = 48):
        """Runs fn; prints time and the debuggee's peak RSS growth; for our agent
        asserts the growth stays under ours_limit_factor x the reply, plus what the
        new IDs may cost (our table + the JVM's tag and weak reference), + slack_mib."""
        rss_before = vm_rss_kib(self.pid)
        reset_peak_rss(self.pid)
        start = time.monotonic()
        result = fn()
        elapsed = time.monotonic() - start
        growth_mib = (vm_hwm_kib(self.pid) - rss_before) / 1024
        print(f"\nMEASURE agent={self.cfg.agent} jdk{self.cfg.jdk_version} {what}: {elapsed:.2f} s, "
              f"peak RSS growth {growth_mib:.0f} MiB for a {reply_bytes / 2**20:.0f} MiB reply", flush=True)
        if self.cfg.agent == "ours":
            limit = (ours_limit_factor * reply_bytes + per_new_id_bytes * new_ids) / 2**20 + slack_mib
            self.assertLess(growth_mib, limit, f"{what}: peak RSS growth over {limit:.0f} MiB")
        return result

    def test_long_array_of_10m_in_one_request(self):
        n = 10_000_000
        tag, values = self.measure("long[10M] GetValues", 5 + 8 * n,
                                   lambda: self.c.array_region(self.s.id("hugeLongs"), 0, -1), 2.5)
        self.assertEqual(tag, "J")
        self.assertEqual(len(values), n)
        for i in (0, 1, n // 2, n - 1):
            self.assertEqual(values[i], i * 3_000_000_007 - 5, f"element {i}")
        self.assertEqual(self.c.array_region(self.s.id("hugeLongs"), n - 2, -1)[1], [values[-2], values[-1]])

    def test_object_array_of_1m(self):
        n = 1_000_000
        array = self.s.id("hugeObjects")

        def fetch():
            if self.cfg.agent == "stock":
                # Stock dies on one request this big (FATAL ERROR: PushLocalFrame
                # for 1M references), so it is asked in slices.
                out = []
                for first in range(0, n, 20_000):
                    tag, part = self.c.array_region(array, first, 20_000)
                    out += part
                return tag, out
            return self.c.array_region(array, 0, -1)

        # Today about 140 bytes per new ID: ~60 in the JVM (JVMTI tag, JNI weak
        # reference), the rest our table's hash node and bucket.
        tag, values = self.measure("Object[1M] GetValues", 5 + 9 * n, fetch, 2.5, per_new_id_bytes=160, new_ids=n)
        self.assertEqual(tag, "L")
        self.assertEqual(len(values), n)
        self.assertEqual({t for t, _ in values}, {"s"})
        self.assertEqual(len({i for _, i in values}), n, "one distinct ID per object")
        for i in (0, n // 2, n - 1):
            self.assertEqual(self.c.string_bytes(values[i][1]), f"e{i}".encode(), f"element {i}")
        # The IDs go back: DisposeObjects with each count of 1.
        request = i32(n) + b"".join(self.c.object_id(object_id) + i32(1) for _, object_id in values)
        self.c.ok(VirtualMachine.DisposeObjects, request)

    def test_streamed_reply_is_byte_for_byte_the_whole_ones(self):
        """Our agent streams a region from 1 MiB on (makes it while it is sent);
        its bytes are those of the same region asked in slices small enough to
        be built whole (under 1 MiB each)."""
        def whole_and_sliced(array: int, n: int, slice_length: int):
            whole = self.c.ok(ArrayReference.GetValues, self.c.object_id(array) + i32(0) + i32(-1)).data
            items = []
            for first in range(0, n, slice_length):
                length = min(slice_length, n - first)
                part = self.c.ok(ArrayReference.GetValues, self.c.object_id(array) + i32(first) + i32(length)).data
                self.assertEqual(part[:5], whole[:1] + struct.pack(">i", length))
                items.append(part[5:])
            return whole, whole[:1] + struct.pack(">i", n) + b"".join(items)

        whole, sliced = whole_and_sliced(self.s.id("hugeLongs"), 10_000_000, 100_000)
        self.assertEqual(len(whole), 5 + 8 * 10_000_000)
        self.assertTrue(whole == sliced, "long[10M] whole differs from its slices")
        if self.cfg.agent == "ours":
            # Stock dies on Object[1M] in one request (test_object_array_of_1m).
            whole, sliced = whole_and_sliced(self.s.id("hugeObjects"), 1_000_000, 100_000)
            self.assertEqual(len(whole), 5 + 9 * 1_000_000)
            self.assertTrue(whole == sliced, "Object[1M] whole differs from its slices")

    def check_huge_string(self, name: str, expected_length: int, expected_sha256: str):
        # Ours streams it (made while it is sent): the agent holds about 1.3 MiB
        # of it (transport::kPartsWindow + a part), never the whole 50 MB.
        data = self.measure(f"{name} StringReference.Value", expected_length,
                            lambda: self.c.string_bytes(self.s.id(name)), 0, slack_mib=16)
        self.assertEqual(len(data), expected_length)
        self.assertEqual(hashlib.sha256(data).hexdigest(), expected_sha256)
        return data

    def test_string_of_50m_latin1_chars(self):
        data = self.check_huge_string("hugeLatin1", 50_000_001, huge_string_sha256(True))
        self.assertEqual(data[25_000_000], 0, "NUL is one 0 byte")
        self.assertEqual(data[-2:], b"\xc3\xbf")

    def test_string_of_50m_chars_with_supplementary_nul_and_bmp(self):
        data = self.check_huge_string("hugeUnicode", 50_250_002, huge_string_sha256(False))
        self.assertEqual(data[:10], b"\xf0\x9f\x98\x80\x00\xe2\x82\xac\xc3\xa9")
        self.assertEqual(data[-4:], b"\xf0\x9f\x98\x80")


class HugeStringsInModifiedUtf8(unittest.TestCase):
    """mutf8=y: a 50M-char string with NUL, pairs and 2- and 3-byte characters
    comes as the JVM's modified UTF-8 (NUL as C0 80, a pair as two 3-byte
    surrogates), byte for byte as stock sends it; ours streams it."""

    def test_string_of_50m_chars_in_modified_utf8(self):
        self.cfg = harness.config()
        s = FixtureSession(self, ["hugestrings", "block"], options=BLOCK_OPTIONS + ",mutf8=y", jvm_args=["-Xmx1g"])
        try:
            standard = expected_huge_string(50_000_000, False)
            # In this string every 0 byte is a NUL and every 4-byte sequence U+1F600.
            expected = standard.replace(b"\x00", b"\xc0\x80").replace(b"\xf0\x9f\x98\x80", b"\xed\xa0\xbd\xed\xb8\x80")
            data = s.client.string_bytes(s.id("hugeUnicode"))
            self.assertEqual(len(data), len(expected))
            self.assertTrue(data == expected, "hugeUnicode in modified UTF-8 differs")
            self.assertEqual(data[:13], b"\xed\xa0\xbd\xed\xb8\x80\xc0\x80\xe2\x82\xac\xc3\xa9")
            self.assertEqual(s.client.string_bytes(s.id("hugeLatin1"))[24_999_999:25_000_003], b"l\xc0\x80n")
        finally:
            s.close()


class DebuggerLeavingMidReply(unittest.TestCase):
    """A debugger that goes while an 80 MB reply is on its way: the VM runs on,
    and the next debugger is served, huge replies included; that one goes in
    the middle of a 50 MB string, and the next (JDI) reads the huge strings."""

    def test_next_debugger_is_served(self):
        self.cfg = harness.config()
        s = FixtureSession(self, ["huge", "block"], jvm_args=["-Xmx2g"])
        try:
            listening = s.debuggee.wait_for_output(harness.LISTENING_RE)
            c = s.client
            n = 10_000_000
            c.send_command(ArrayReference.GetValues, c.object_id(s.id("hugeLongs")) + i32(0) + i32(-1))
            length, _, flags, error = parse_header(c.recv_exact(HEADER_SIZE))
            self.assertEqual((length, flags, error), (11 + 5 + 8 * n, 0x80, Error.NONE))
            c.recv_exact(1 << 20)  # some of it, then away
            c.close()
            # Ours listens again on the same port, stock on a new one: the next Listening line.
            again = s.debuggee._out.wait_for(harness.LISTENING_RE, listening.end(), 60)
            self.assertIsNotNone(again, f"not listening again\n{s.debuggee.stdout}\n{s.debuggee.stderr}")
            s.client = ObjectsClient(int(again.group(1)), timeout=READ_TIMEOUT_S)
            s.client.ok(VirtualMachine.Suspend)
            statics = s.client.all_static_values(s.client.class_by_signature("LObjectsFixture;"))
            self.assertEqual(s.client.array_region(statics["ints"][1], 0, -1),
                             ("I", [-2**31, -1, 0, 1, 2**31 - 1]))
            tag, values = s.client.array_region(statics["hugeLongs"][1], 0, -1)
            self.assertEqual((tag, len(values)), ("J", n))
            for i in (0, n // 2, n - 1):
                self.assertEqual(values[i], i * 3_000_000_007 - 5, f"element {i}")
            # The second goes in the middle of a string.
            c = s.client
            c.send_command(StringReference.Value, c.object_id(statics["hugeUnicode"][1]))
            length, _, flags, error = parse_header(c.recv_exact(HEADER_SIZE))
            self.assertEqual((length, flags, error), (11 + 4 + 50_250_002, 0x80, Error.NONE))
            self.assertEqual(bytes(c.recv_exact(14)), b"\x02\xfe\xc1\x12\xf0\x9f\x98\x80\x00\xe2\x82\xac\xc3\xa9")
            c.recv_exact(1 << 20)
            c.close()
            third = s.debuggee._out.wait_for(harness.LISTENING_RE, again.end(), 60)
            self.assertIsNotNone(third, f"not listening a third time\n{s.debuggee.stdout}\n{s.debuggee.stderr}")
            # The third, through JDI: StringReference.value() of each huge string.
            jdi_classes = os.path.join(self.cfg.build_dir, "integration", "jdi-classes")
            rc, out, err = harness.run_java(self.cfg, ["-Xmx1g", "-cp", jdi_classes], "HugeStringsJdi",
                                            [third.group(1), f"hugeUnicode:{huge_string_sha256(False)}",
                                             f"hugeLatin1:{huge_string_sha256(True)}"], timeout=180)
            report = f"--- stdout:\n{out}\n--- stderr:\n{err}\n--- debuggee:\n{s.debuggee.stdout}{s.debuggee.stderr}"
            self.assertEqual(rc, 0, report)
            self.assertIn("RESULT ok", out, report)
            self.assertEqual(out.count("CHECK "), 2, report)
            self.assertIsNone(s.debuggee.returncode, "the VM runs on")
        finally:
            s.close()


def huge_string_sha256(latin1: bool) -> str:
    """SHA-256 of the fixture's 50M-char string in standard UTF-8 (the JDI driver's check)."""
    return hashlib.sha256(expected_huge_string(50_000_000, latin1)).hexdigest()


def expected_huge_string(length: int, latin1: bool) -> bytes:
    """ObjectsFixture.hugeString() as stock's UTF-8."""
    letters = bytearray((ord("a") + i % 26) for i in range(26))
    chars = bytearray(letters * (length // 26 + 1))[:length]
    if latin1:
        text = chars.decode("ascii")
        text = text[:length // 2] + "\0" + text[length // 2 + 1:length - 1] + "\u00ff"
        return text.encode("utf-8")
    parts = []
    block = "\U0001F600\0\u20ac\u00e9"
    i = 0
    text = chars.decode("ascii")
    while i + 5 < length:
        parts.append(block)
        end = min(i + 1000, length)
        parts.append(text[i + 5:end])
        i += 1000
    joined = "".join(parts)
    # The fixture replaces the last two units with a pair.
    joined_units = joined.encode("utf-16-le", "surrogatepass")
    joined_units = joined_units[:2 * (length - 2)] + "\U0001F600".encode("utf-16-le")
    return stock_utf8(joined_units.decode("utf-16-le", "surrogatepass"))


class ObjectTableSize(unittest.TestCase):
    """Our agent only: the ID table's size, logged at debug level, returns to its
    baseline after DisposeObjects and to zero when the debugger goes."""

    def setUp(self):
        self.cfg = harness.config()
        if self.cfg.agent != "ours":
            self.skipTest("the table size log is ours (loglevel=debug)")

    def test_table_returns_to_baseline(self):
        s = FixtureSession(self, ["block"], options=BLOCK_OPTIONS + ",loglevel=debug")
        try:
            n = 20_000
            tag, values = s.client.array_region(s.id("fresh"), 0, -1)
            self.assertEqual((tag, len(values)), ("L", n))
            s.client.ok(VirtualMachine.DisposeObjects,
                        i32(n) + b"".join(s.client.object_id(i) + i32(1) for _, i in values))
            released = re.compile(r"object table: released id (\d+), (\d+) ids left")
            # IDs are released in request order: the last one's line ends the batch.
            s.debuggee.wait_for_output(rf"released id {values[-1][1]}, \d+ ids left", 30, "stderr")
            lines = released.findall(s.debuggee.stderr)
            self.assertEqual(len(lines), n, "one release line per disposed ID")
            sizes = [int(left) for _, left in lines]
            baseline = sizes[0] + 1 - n
            self.assertEqual(sizes[-1], baseline)
            self.assertEqual({int(i) for i, _ in lines}, {i for _, i in values})
            # The same objects again get fresh IDs: IDs are never reused.
            again = s.client.array_region(s.id("fresh"), 0, 3)[1]
            self.assertTrue(all(i > max(v for _, v in values) for _, i in again), again)
            s.client.close()
            m = s.debuggee.wait_for_output(r"object table: reset, (\d+) ids dropped, (\d+) ids left", 30, "stderr")
            self.assertEqual(int(m.group(2)), 0)
            self.assertGreaterEqual(int(m.group(1)), baseline + 3)
        finally:
            s.close()


class ObjectsThroughJdi(unittest.TestCase):
    def test_values_monitor_and_collection(self):
        cfg = harness.config()
        jdi_classes = os.path.join(cfg.build_dir, "integration", "jdi-classes")
        line = harness.fixture_line("ObjectsFixture.java", "// @bp-pause")
        with harness.Debuggee(cfg, "ObjectsFixture") as debuggee:
            rc, out, err = harness.run_java(cfg, ["-cp", jdi_classes], "ObjectsJdi",
                                            [str(debuggee.port), str(line)], timeout=120)
            report = f"--- stdout:\n{out}\n--- stderr:\n{err}\n--- debuggee:\n{debuggee.stdout}{debuggee.stderr}"
            self.assertEqual(rc, 0, report)
            self.assertIn("RESULT ok", out, report)
            self.assertEqual(debuggee.wait(60), 0, report)
            # What the fixture itself saw: pinned across System.gc(), then collected.
            self.assertIn("after-drop pinned-alive=true", debuggee.stdout)
            self.assertIn("after-enable collected=true", debuggee.stdout)


if __name__ == "__main__":
    harness.main()
