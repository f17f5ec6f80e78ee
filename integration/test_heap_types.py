#!/usr/bin/env python3
"""Heap, module and type queries against the HeapTypes fixture, for our agent and stock.

    python3 integration/test_heap_types.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

The fixture builds a known heap (1,000,000 Leaf objects, 3 Holders, unreachable
Garbage, one Target with three known referrers, a self-referring object) and
10,000 generated classes, prints "HeapTypes ready" and waits. The debuggee runs
with suspend=n; each test attaches once it is ready:

- JdiHeapTypes drives JDI (integration/jdi/HeapTypesJdi.java) and asserts the
  facts it prints: InstanceCounts, Instances, ReferringObjects, modules,
  SetDefaultStratum, ConstantPool, ClassFileVersion, VisibleClasses, IsObsolete,
  Bytecodes, SourceDebugExtension and the capabilities JDI sees.
- RawHeapTypes speaks JDWP directly for what JDI hides or checks on its own
  side: error codes (negative limits, bad and non-module IDs), NestedTypes
  (JDI computes it from AllClasses), VisibleClasses of the bootstrap loader
  (ID 0), the raw CapabilitiesNew booleans, duplicate types in InstanceCounts.

Both agents must pass the same assertions, except where stock breaks the JDWP
spec: there the spec is asserted for ours and stock's answer is pinned (marked
"spec:"). Timings (InstanceCounts on 1M objects, AllClasses on 10k classes) are
printed for the report, not asserted.
"""

from __future__ import annotations

import os
import re
import socket
import struct
import time
import unittest

import harness

READ_TIMEOUT_S = 60
READY_TIMEOUT_S = 120
LEAVES = 1_000_000
GENERATED = 10_000
SERVER_OPTIONS = "transport=dt_socket,server=y,address=0,suspend=n"
NEVER_ISSUED_ID = 0x7EADBEEFCAFE1234
SDE_TEXT = "SMAP\nGenSde.java\nJava\n*S Java\n*F\n1 GenSde.java\n*L\n1#1:1\n*E\n"

NONE = 0
INVALID_OBJECT = 20
INVALID_CLASS = 21
INVALID_MODULE = 42
ABSENT_INFORMATION = 101
ILLEGAL_ARGUMENT = 103
INVALID_CLASS_LOADER = 507

TAG_OBJECT = ord("L")
TAG_ARRAY = ord("[")
TAG_CLASS = 1
TAG_INTERFACE = 2

VM_CLASSES_BY_SIGNATURE = (1, 2)
VM_ALL_CLASSES = (1, 3)
VM_CAPABILITIES_NEW = (1, 17)
VM_SET_DEFAULT_STRATUM = (1, 19)
VM_ALL_CLASSES_WITH_GENERIC = (1, 20)
VM_INSTANCE_COUNTS = (1, 21)
VM_ALL_MODULES = (1, 22)
RT_SIGNATURE = (2, 1)
RT_CLASS_LOADER = (2, 2)
RT_FIELDS = (2, 4)
RT_METHODS = (2, 5)
RT_GET_VALUES = (2, 6)
RT_NESTED_TYPES = (2, 8)
RT_SOURCE_DEBUG_EXTENSION = (2, 12)
RT_INSTANCES = (2, 16)
RT_CLASS_FILE_VERSION = (2, 17)
RT_CONSTANT_POOL = (2, 18)
RT_MODULE = (2, 19)
METHOD_BYTECODES = (6, 3)
METHOD_IS_OBSOLETE = (6, 4)
OR_GET_VALUES = (9, 2)
OR_REFERRING_OBJECTS = (9, 10)
CLR_VISIBLE_CLASSES = (14, 1)
MR_NAME = (18, 1)
MR_CLASS_LOADER = (18, 2)


def start_fixture(test: unittest.TestCase) -> harness.Debuggee:
    cfg = harness.config()
    debuggee = harness.Debuggee(cfg, "HeapTypes", args=(str(LEAVES), str(GENERATED)), options=SERVER_OPTIONS,
                                jvm_args=("-Xmx1g",))
    test.addCleanup(debuggee.__exit__, None, None, None)
    debuggee.wait_for_output(r"HeapTypes ready leaves=\d+ generated=\d+", READY_TIMEOUT_S)
    return debuggee


class JdiHeapTypes(unittest.TestCase):
    def test_jdi_answers(self):
        cfg = harness.config()
        jdi_classes = os.path.join(cfg.build_dir, "integration", "jdi-classes")
        debuggee = start_fixture(self)
        rc, out, err = harness.run_java(cfg, ["-cp", jdi_classes], "HeapTypesJdi", [str(debuggee.port)], timeout=240)
        report = f"--- stdout:\n{out}\n--- stderr:\n{err}\n--- debuggee:\n{debuggee.stdout}{debuggee.stderr}"
        self.assertEqual(rc, 0, report)
        self.assertIn("RESULT ok", out, report)
        facts = {}
        for line in out.splitlines():
            m = re.match(r"(CAP \S+|TIME \S+|[A-Z_0-9]+(?: \w+)?) (.*)$", line)
            if m:
                facts[m.group(1)] = m.group(2)
        for key in sorted(k for k in facts if k.startswith("TIME ")):
            print(f"{cfg.agent} {key} {facts[key]} ms")

        def fact(key):
            self.assertIn(key, facts, report)
            return facts[key]

        for cap in ("canGetInstanceInfo", "canGetConstantPool", "canGetModuleInfo", "canGetClassFileVersion",
                    "canGetSourceDebugExtension", "canGetBytecodes", "canGetSyntheticAttribute",
                    "canRequestVMDeathEvent", "canUseInstanceFilters"):
            self.assertEqual(fact(f"CAP {cap}"), "true", cap)

        self.assertGreaterEqual(int(fact("ALL_CLASSES")), GENERATED + 1)
        # InstanceCounts: reachable objects only (5000 Garbage objects were dropped).
        self.assertEqual(fact("COUNT1 leaf"), str(LEAVES))
        self.assertEqual(fact("COUNT3"), f"{LEAVES},3,0")
        self.assertEqual(fact("COUNT_ALL leaf"), str(LEAVES))
        self.assertEqual(fact("COUNT_ALL holder"), "3")
        # Instances: maxInstances caps the reply; 0 = all.
        self.assertEqual(fact("INSTANCES leaf10"), "10 [HeapTypes$Leaf]")
        self.assertEqual(fact("INSTANCES holderAll"), "3")
        self.assertEqual(fact("INSTANCES holder2"), "2")
        self.assertEqual(fact("INSTANCES garbage"), "0")
        # ReferringObjects: exactly refA, refB and arrayRef (not the static roots).
        self.assertEqual(fact("REFERRERS count"), "3")
        self.assertEqual(fact("REFERRERS expected"), "true")
        self.assertEqual(fact("REFERRERS limited"), "2 true")
        self.assertEqual(fact("REFERRERS self"), "true")
        # Modules: java.base is named and has the bootstrap loader; the fixture is
        # in the app loader's unnamed module (JDI turns the wire's "" into null).
        self.assertEqual(fact("MODULE base"), "true")
        self.assertEqual(fact("MODULE baseLoader"), "null")
        self.assertEqual(fact("MODULE stringIsBase"), "true")
        self.assertEqual(fact("MODULE fixtureName"), "null")
        self.assertEqual(fact("MODULE fixtureLoaderIsApp"), "true")
        self.assertEqual(fact("STRATUM"), "Java")
        self.assertGreater(int(fact("CP count")), 1)
        self.assertGreater(int(fact("CP bytes")), 0)
        # Compiled with --release 17: class file 61.0; arrays have none (JDI: 0).
        self.assertEqual(fact("VERSION"), "61.0")
        self.assertEqual(fact("VERSION array"), "0.0")
        self.assertEqual(fact("VERSION generated"), "61.0")
        self.assertEqual(fact("VISIBLE fixture"), "true true")
        self.assertEqual(fact("VISIBLE generated"), "false")
        self.assertEqual(fact("VISIBLE genLoader"), "true")
        self.assertEqual(fact("OBSOLETE main"), "false")
        self.assertEqual(fact("BYTECODES main"), "true")
        self.assertEqual(fact("BYTECODES native"), "true 0")
        self.assertEqual(fact("SDE fixture"), "absent")
        self.assertEqual(fact("SDE generated"), SDE_TEXT.replace("\n", "|"))


class Reader:
    def __init__(self, data: bytes):
        self.data = data
        self.pos = 0

    def take(self, n: int) -> bytes:
        if self.pos + n > len(self.data):
            raise AssertionError(f"reply too short: need {n} at {self.pos} of {len(self.data)}")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def byte(self) -> int:
        return self.take(1)[0]

    def boolean(self) -> bool:
        return self.byte() != 0

    def int(self) -> int:
        return struct.unpack(">i", self.take(4))[0]

    def long(self) -> int:
        return struct.unpack(">q", self.take(8))[0]

    def id(self) -> int:  # both agents use 8-byte IDs (checked by IDSizes in connect)
        return struct.unpack(">Q", self.take(8))[0]

    def string(self) -> str:
        return self.take(self.int()).decode("utf-8")

    def value(self) -> tuple:
        tag = self.byte()
        if tag in (ord("L"), ord("["), ord("s"), ord("t"), ord("g"), ord("l"), ord("c")):
            return tag, self.id()
        sizes = {ord("B"): 1, ord("Z"): 1, ord("C"): 2, ord("S"): 2, ord("I"): 4, ord("F"): 4, ord("J"): 8,
                 ord("D"): 8, ord("V"): 0}
        return tag, self.take(sizes[tag])


def i32(v: int) -> bytes:
    return struct.pack(">i", v)


def oid(v: int) -> bytes:
    return struct.pack(">Q", v)


def jstr(text: str) -> bytes:
    data = text.encode("utf-8")
    return i32(len(data)) + data


class JdwpClient:
    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=READ_TIMEOUT_S)
        self.sock.sendall(b"JDWP-Handshake")
        self._exact(14)
        self.next_id = 1
        sizes = self.ok((1, 7))
        if [sizes.int() for _ in range(5)] != [8] * 5:
            raise AssertionError("IDSizes: this test expects 8-byte IDs")

    def close(self):
        self.sock.close()

    def _exact(self, n: int) -> bytes:
        buf = b""
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise AssertionError("connection closed")
            buf += chunk
        return buf

    def command(self, cmd: tuple, data: bytes = b"") -> tuple:
        """(error code, Reader of the reply data); events in between are skipped."""
        packet_id = self.next_id
        self.next_id += 1
        self.sock.sendall(struct.pack(">IIBBB", 11 + len(data), packet_id, 0, cmd[0], cmd[1]) + data)
        while True:
            length, pid, flags = struct.unpack(">IIB", self._exact(9))
            rest = self._exact(length - 9)
            if flags & 0x80 and pid == packet_id:
                error = struct.unpack(">H", rest[:2])[0]
                return error, Reader(rest[2:])

    def ok(self, cmd: tuple, data: bytes = b"") -> Reader:
        error, reader = self.command(cmd, data)
        if error != NONE:
            raise AssertionError(f"command {cmd} failed with error {error}")
        return reader

    def error(self, cmd: tuple, data: bytes = b"") -> int:
        return self.command(cmd, data)[0]

    def type_id(self, signature: str) -> int:
        r = self.ok(VM_CLASSES_BY_SIGNATURE, jstr(signature))
        n = r.int()
        if n != 1:
            raise AssertionError(f"{n} types with signature {signature}")
        r.byte()
        return r.id()

    def signature(self, type_id: int) -> str:
        return self.ok(RT_SIGNATURE, oid(type_id)).string()

    def field_id(self, type_id: int, name: str) -> int:
        r = self.ok(RT_FIELDS, oid(type_id))
        for _ in range(r.int()):
            fid, fname, _sig, _mods = r.id(), r.string(), r.string(), r.int()
            if fname == name:
                return fid
        raise AssertionError(f"no field {name}")

    def method_id(self, type_id: int, name: str) -> int:
        r = self.ok(RT_METHODS, oid(type_id))
        for _ in range(r.int()):
            mid, mname, _sig, _mods = r.id(), r.string(), r.string(), r.int()
            if mname == name:
                return mid
        raise AssertionError(f"no method {name}")

    def static_object(self, type_id: int, name: str) -> int:
        r = self.ok(RT_GET_VALUES, oid(type_id) + i32(1) + oid(self.field_id(type_id, name)))
        assert r.int() == 1
        return r.value()[1]

    def object_field(self, obj: int, type_id: int, name: str) -> int:
        r = self.ok(OR_GET_VALUES, oid(obj) + i32(1) + oid(self.field_id(type_id, name)))
        assert r.int() == 1
        return r.value()[1]

    def tagged_list(self, r: Reader) -> list:
        return [(r.byte(), r.id()) for _ in range(r.int())]

    def counts(self, type_ids: list) -> list:
        r = self.ok(VM_INSTANCE_COUNTS, i32(len(type_ids)) + b"".join(oid(t) for t in type_ids))
        return [r.long() for _ in range(r.int())]


class RawHeapTypes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()

    def setUp(self):
        self.debuggee = start_fixture(self)
        self.c = JdwpClient(self.debuggee.port)
        self.addCleanup(self.c.close)
        self.main = self.c.type_id("LHeapTypes;")
        self.leaf = self.c.type_id("LHeapTypes$Leaf;")
        self.holder = self.c.type_id("LHeapTypes$Holder;")

    def test_instance_counts(self):
        c = self.c
        start = time.monotonic()
        self.assertEqual(c.counts([self.leaf]), [LEAVES])
        print(f"{self.cfg.agent} raw InstanceCounts(1 class, 1M objects) {(time.monotonic() - start) * 1000:.0f} ms")
        self.assertEqual(c.counts([]), [])
        # An ID that names no type counts 0, in place; the others keep their order.
        self.assertEqual(c.counts([self.holder, NEVER_ISSUED_ID, self.leaf]), [3, 0, LEAVES])
        # One HeapTypes exists: the outer instance of the Inner object.
        self.assertEqual(c.counts([self.holder, self.main]), [3, 1])
        garbage = c.type_id("LHeapTypes$Garbage;")
        not_a_type = c.static_object(self.main, "arrayRef")
        self.assertEqual(c.counts([garbage, not_a_type, self.holder]), [0, 0, 3])
        if self.cfg.agent == "stock":
            # spec: "counts in input order" -- each listed type gets its count.
            # Stock tags each class with its last index, so a repeated type
            # reports 0 at its earlier places; pinned here.
            self.assertEqual(c.counts([self.holder, self.holder]), [0, 3])
        else:
            self.assertEqual(c.counts([self.holder, self.holder]), [3, 3])

    def test_instances(self):
        c = self.c
        r = c.ok(RT_INSTANCES, oid(self.leaf) + i32(10))
        ten = c.tagged_list(r)
        self.assertEqual(len(ten), 10)
        self.assertEqual({tag for tag, _ in ten}, {TAG_OBJECT})
        self.assertEqual(len({obj for _, obj in ten}), 10)
        self.assertEqual(c.signature(self._type_of(ten[0][1])), "LHeapTypes$Leaf;")
        self.assertEqual(len(c.tagged_list(c.ok(RT_INSTANCES, oid(self.holder) + i32(0)))), 3)
        self.assertEqual(len(c.tagged_list(c.ok(RT_INSTANCES, oid(self.holder) + i32(5)))), 3)
        leaf_array = c.type_id("[LHeapTypes$Leaf;")
        self.assertEqual(c.tagged_list(c.ok(RT_INSTANCES, oid(leaf_array) + i32(0)))[0][0], TAG_ARRAY)
        self.assertEqual(c.error(RT_INSTANCES, oid(self.holder) + i32(-1)), ILLEGAL_ARGUMENT)
        self.assertEqual(c.error(RT_INSTANCES, oid(NEVER_ISSUED_ID) + i32(1)), INVALID_OBJECT)

    def _type_of(self, obj: int) -> int:
        r = self.c.ok((9, 1), oid(obj))
        r.byte()
        return r.id()

    def test_referring_objects(self):
        c = self.c
        ref_a = c.static_object(self.main, "refA")
        ref_b = c.static_object(self.main, "refB")
        array_ref = c.static_object(self.main, "arrayRef")
        ref_type = c.type_id("LHeapTypes$Ref;")
        target = c.object_field(ref_a, ref_type, "field")
        referrers = c.tagged_list(c.ok(OR_REFERRING_OBJECTS, oid(target) + i32(0)))
        self.assertEqual(sorted(referrers), sorted([(TAG_OBJECT, ref_a), (TAG_OBJECT, ref_b), (TAG_ARRAY, array_ref)]))
        limited = c.tagged_list(c.ok(OR_REFERRING_OBJECTS, oid(target) + i32(2)))
        self.assertEqual(len(limited), 2)
        self.assertTrue(set(limited) <= set(referrers))
        self_ref = c.static_object(self.main, "selfRef")
        self.assertIn((TAG_OBJECT, self_ref), c.tagged_list(c.ok(OR_REFERRING_OBJECTS, oid(self_ref) + i32(0))))
        self.assertEqual(c.error(OR_REFERRING_OBJECTS, oid(target) + i32(-1)), ILLEGAL_ARGUMENT)
        self.assertEqual(c.error(OR_REFERRING_OBJECTS, oid(NEVER_ISSUED_ID) + i32(0)), INVALID_OBJECT)

    def test_modules(self):
        c = self.c
        r = c.ok(VM_ALL_MODULES)
        modules = [r.id() for _ in range(r.int())]
        names = {c.ok(MR_NAME, oid(m)).string(): m for m in modules}
        self.assertIn("java.base", names)
        self.assertEqual(c.ok(MR_CLASS_LOADER, oid(names["java.base"])).id(), 0)
        string_module = c.ok(RT_MODULE, oid(c.type_id("Ljava/lang/String;"))).id()
        self.assertEqual(string_module, names["java.base"])
        fixture_module = c.ok(RT_MODULE, oid(self.main)).id()
        self.assertIn(fixture_module, modules)
        self.assertNotEqual(fixture_module, names["java.base"])
        self.assertEqual(c.ok(MR_NAME, oid(fixture_module)).string(), "")  # unnamed
        app_loader = c.ok(RT_CLASS_LOADER, oid(self.main)).id()
        self.assertNotEqual(app_loader, 0)
        self.assertEqual(c.ok(MR_CLASS_LOADER, oid(fixture_module)).id(), app_loader)
        self.assertEqual(c.error(MR_NAME, oid(NEVER_ISSUED_ID)), INVALID_MODULE)
        self.assertEqual(c.error(MR_CLASS_LOADER, oid(NEVER_ISSUED_ID)), INVALID_MODULE)
        if self.cfg.agent == "ours":
            # spec: a moduleID that is not a module is INVALID_MODULE. Stock calls
            # Module.getName on whatever object it is given (undefined in JNI), so
            # this is asserted for ours only.
            self.assertEqual(c.error(MR_NAME, oid(self.main)), INVALID_MODULE)
            self.assertEqual(c.error(MR_CLASS_LOADER, oid(app_loader)), INVALID_MODULE)
            self.assertEqual(c.error(MR_NAME, oid(0)), INVALID_MODULE)

    def test_nested_types(self):
        c = self.c

        def nested(type_id):
            r = c.ok(RT_NESTED_TYPES, oid(type_id))
            return {(tag, c.signature(t)) for tag, t in ((r.byte(), r.id()) for _ in range(r.int()))}

        # Directly nested only: the local class 1Local yes, the anonymous class
        # HeapTypes$1 and the doubly nested Leaf$Deep no.
        expected = {(TAG_CLASS, f"LHeapTypes${n};") for n in
                    ("Leaf", "Inner", "Holder", "Garbage", "Target", "Ref", "SelfRef", "GenLoader", "1Local")}
        expected.add((TAG_INTERFACE, "LHeapTypes$NestedIface;"))
        self.assertEqual(nested(self.main), expected)
        self.assertEqual(nested(self.leaf), {(TAG_CLASS, "LHeapTypes$Leaf$Deep;")})
        self.assertEqual(nested(self.holder), set())
        self.assertEqual(c.error(RT_NESTED_TYPES, oid(NEVER_ISSUED_ID)), INVALID_OBJECT)

    def test_class_file_version_constant_pool_sde(self):
        c = self.c
        r = c.ok(RT_CLASS_FILE_VERSION, oid(self.main))
        self.assertEqual((r.int(), r.int()), (61, 0))
        leaf_array = c.type_id("[LHeapTypes$Leaf;")
        self.assertEqual(c.error(RT_CLASS_FILE_VERSION, oid(leaf_array)), ABSENT_INFORMATION)
        r = c.ok(RT_CONSTANT_POOL, oid(self.main))
        count, data = r.int(), r.take(r.int())
        self.assertGreater(count, 10)
        self.assertGreater(len(data), count)
        # GenSde's pool as written by the fixture: 5 entries (count 6), the first
        # the Utf8 "GenSde".
        gen_sde = c.type_id("LGenSde;")
        r = c.ok(RT_CONSTANT_POOL, oid(gen_sde))
        count, data = r.int(), r.take(r.int())
        self.assertEqual(count, 6)
        self.assertEqual(data[:9], b"\x01\x00\x06GenSde")
        self.assertEqual(c.error(RT_CONSTANT_POOL, oid(leaf_array)), ABSENT_INFORMATION)
        self.assertEqual(c.error(RT_SOURCE_DEBUG_EXTENSION, oid(self.main)), ABSENT_INFORMATION)
        self.assertEqual(c.ok(RT_SOURCE_DEBUG_EXTENSION, oid(gen_sde)).string(), SDE_TEXT)

    def test_visible_classes(self):
        c = self.c
        app_loader = c.ok(RT_CLASS_LOADER, oid(self.main)).id()
        r = c.ok(CLR_VISIBLE_CLASSES, oid(app_loader))
        visible = {t for _, t in ((r.byte(), r.id()) for _ in range(r.int()))}
        self.assertIn(self.main, visible)
        self.assertIn(self.leaf, visible)
        self.assertNotIn(c.type_id("LGen00042;"), visible)
        # ID 0: the bootstrap loader.
        r = c.ok(CLR_VISIBLE_CLASSES, oid(0))
        boot = {t for _, t in ((r.byte(), r.id()) for _ in range(r.int()))}
        self.assertIn(c.type_id("Ljava/lang/String;"), boot)
        self.assertNotIn(self.main, boot)
        self.assertEqual(c.error(CLR_VISIBLE_CLASSES, oid(self.c.static_object(self.main, "refA"))),
                         INVALID_CLASS_LOADER)

    def test_methods_stratum_and_capabilities(self):
        c = self.c
        main_method = c.method_id(self.main, "main")
        self.assertFalse(c.ok(METHOD_IS_OBSOLETE, oid(self.main) + oid(main_method)).boolean())
        r = c.ok(METHOD_BYTECODES, oid(self.main) + oid(main_method))
        self.assertGreater(r.int(), 0)
        obj = c.type_id("Ljava/lang/Object;")
        r = c.ok(METHOD_BYTECODES, oid(obj) + oid(c.method_id(obj, "hashCode")))  # native
        self.assertEqual(r.int(), 0)
        c.ok(VM_SET_DEFAULT_STRATUM, jstr("Java"))
        c.ok(VM_SET_DEFAULT_STRATUM, jstr(""))
        r = c.ok(VM_CAPABILITIES_NEW)
        caps = [r.boolean() for _ in range(32)]
        named = {3: "canGetBytecodes", 4: "canGetSyntheticAttribute", 12: "canUseInstanceFilters",
                 13: "canGetSourceDebugExtension", 14: "canRequestVMDeathEvent", 15: "canSetDefaultStratum",
                 16: "canGetInstanceInfo", 20: "canGetConstantPool"}
        for index, name in named.items():
            self.assertTrue(caps[index - 1], name)
        for index in [9, 10, 19] + list(range(22, 33)):
            self.assertFalse(caps[index - 1], f"capability {index}")
        print(f"{self.cfg.agent} CapabilitiesNew {''.join('1' if b else '0' for b in caps)}")

    def test_all_classes_timing(self):
        c = self.c
        for cmd, name in ((VM_ALL_CLASSES, "AllClasses"), (VM_ALL_CLASSES_WITH_GENERIC, "AllClassesWithGeneric")):
            times = []
            for _ in range(4):
                start = time.monotonic()
                r = c.ok(cmd)
                times.append(time.monotonic() - start)
            self.assertGreater(r.int(), GENERATED)
            # The first call also assigns the IDs.
            print(f"{self.cfg.agent} raw {name} (>{GENERATED} classes): first {times[0] * 1000:.0f} ms, "
                  f"then best {min(times[1:]) * 1000:.0f} ms")
        start = time.monotonic()
        self.assertEqual(c.type_id("LGen09999;"), c.type_id("LGen09999;"))
        print(f"{self.cfg.agent} raw ClassesBySignature x2 {(time.monotonic() - start) * 1000:.0f} ms")


if __name__ == "__main__":
    harness.main()
