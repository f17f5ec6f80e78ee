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
- RawUnloading (fixture Unloading, not HeapTypes) checks that no ID is reused in
  a session: a class is unloaded while the VM runs, its old reference type ID
  then fails, and the class loaded again under the same name gets a new ID; an
  object ID disposed with DisposeObjects is not handed out again either.

Both agents must pass the same assertions, except where stock breaks the JDWP
spec: there the spec is asserted for ours and stock's answer is pinned (marked
"spec:"). Timings (InstanceCounts on 1M objects, AllClasses on 10k classes) are
printed for the report, not asserted.
"""

from __future__ import annotations

import os
import re
import socket
import time
import unittest

import harness
from jdwp_client import (ClassLoaderReference, Client, Error, Method, ModuleReference, ObjectReference,
                         Reader, ReferenceType, Tag, TypeTag, VirtualMachine, error_name, i32, jdwp_string)

READ_TIMEOUT_S = 60
READY_TIMEOUT_S = 120
UNLOAD_TIMEOUT_S = 120
LEAVES = 1_000_000
GENERATED = 10_000
SERVER_OPTIONS = "transport=dt_socket,server=y,address=0,suspend=n"
NEVER_ISSUED_ID = 0x7EADBEEFCAFE1234
SDE_TEXT = "SMAP\nGenSde.java\nJava\n*S Java\n*F\n1 GenSde.java\n*L\n1#1:1\n*E\n"



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


class HeapClient(Client):
    """The shared raw client plus the reads only this test needs."""

    def static_object(self, type_id: int, name: str) -> int:
        """The object ID held by a static field."""
        values = self.static_values(type_id, [self.fields(type_id)[name].id])
        assert len(values) == 1
        return values[0][1]

    def object_field(self, obj: int, type_id: int, name: str) -> int:
        """The object ID held by an instance field of `obj` (declared in `type_id`)."""
        values = self.object_values(obj, [self.fields(type_id)[name].id])
        assert len(values) == 1
        return values[0][1]

    def counts(self, type_ids: list) -> list:
        r = self.ok(VirtualMachine.InstanceCounts, i32(len(type_ids)) + self.ids(type_ids, "referenceType"))
        return [r.long() for _ in range(r.int())]


def tagged_ids(r: Reader, kind: str = "object") -> list:
    """A counted list of (tag byte, ID), as Instances, ReferringObjects and VisibleClasses reply."""
    return [(r.byte(), r.id(kind)) for _ in range(r.int())]


class RawHeapTypes(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()

    def setUp(self):
        self.debuggee = start_fixture(self)
        self.c = HeapClient(self.debuggee.port, timeout=READ_TIMEOUT_S)
        self.addCleanup(self.c.close)
        self.main = self.c.class_by_signature("LHeapTypes;")
        self.leaf = self.c.class_by_signature("LHeapTypes$Leaf;")
        self.holder = self.c.class_by_signature("LHeapTypes$Holder;")

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
        garbage = c.class_by_signature("LHeapTypes$Garbage;")
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
        r = c.ok(ReferenceType.Instances, c.type_id(self.leaf) + i32(10))
        ten = tagged_ids(r)
        self.assertEqual(len(ten), 10)
        self.assertEqual({tag for tag, _ in ten}, {Tag.OBJECT})
        self.assertEqual(len({obj for _, obj in ten}), 10)
        self.assertEqual(c.signature(self._type_of(ten[0][1])), "LHeapTypes$Leaf;")
        self.assertEqual(len(tagged_ids(c.ok(ReferenceType.Instances, c.type_id(self.holder) + i32(0)))), 3)
        self.assertEqual(len(tagged_ids(c.ok(ReferenceType.Instances, c.type_id(self.holder) + i32(5)))), 3)
        leaf_array = c.class_by_signature("[LHeapTypes$Leaf;")
        self.assertEqual(tagged_ids(c.ok(ReferenceType.Instances, c.type_id(leaf_array) + i32(0)))[0][0], Tag.ARRAY)
        self.assertEqual(c.error(ReferenceType.Instances, c.type_id(self.holder) + i32(-1)), Error.ILLEGAL_ARGUMENT)
        self.assertEqual(c.error(ReferenceType.Instances, c.type_id(NEVER_ISSUED_ID) + i32(1)), Error.INVALID_OBJECT)

    def _type_of(self, obj: int) -> int:
        r = self.c.ok(ObjectReference.ReferenceType, self.c.object_id(obj))
        r.byte()
        return r.id("referenceType")

    def test_referring_objects(self):
        c = self.c
        ref_a = c.static_object(self.main, "refA")
        ref_b = c.static_object(self.main, "refB")
        array_ref = c.static_object(self.main, "arrayRef")
        ref_type = c.class_by_signature("LHeapTypes$Ref;")
        target = c.object_field(ref_a, ref_type, "field")

        def request(obj: int, max_referrers: int) -> bytes:
            return c.object_id(obj) + i32(max_referrers)

        referrers = tagged_ids(c.ok(ObjectReference.ReferringObjects, request(target, 0)))
        self.assertEqual(sorted(referrers), sorted([(Tag.OBJECT, ref_a), (Tag.OBJECT, ref_b), (Tag.ARRAY, array_ref)]))
        limited = tagged_ids(c.ok(ObjectReference.ReferringObjects, request(target, 2)))
        self.assertEqual(len(limited), 2)
        self.assertTrue(set(limited) <= set(referrers))
        self_ref = c.static_object(self.main, "selfRef")
        self.assertIn((Tag.OBJECT, self_ref), tagged_ids(c.ok(ObjectReference.ReferringObjects, request(self_ref, 0))))
        self.assertEqual(c.error(ObjectReference.ReferringObjects, request(target, -1)), Error.ILLEGAL_ARGUMENT)
        self.assertEqual(c.error(ObjectReference.ReferringObjects, request(NEVER_ISSUED_ID, 0)), Error.INVALID_OBJECT)

    def test_modules(self):
        c = self.c
        r = c.ok(VirtualMachine.AllModules)
        modules = [r.id() for _ in range(r.int())]
        names = {c.ok(ModuleReference.Name, c.object_id(m)).string(): m for m in modules}
        self.assertIn("java.base", names)
        self.assertEqual(c.ok(ModuleReference.ClassLoader, c.object_id(names["java.base"])).id(), 0)
        string_module = c.ok(ReferenceType.Module, c.type_id(c.class_by_signature("Ljava/lang/String;"))).id()
        self.assertEqual(string_module, names["java.base"])
        fixture_module = c.ok(ReferenceType.Module, c.type_id(self.main)).id()
        self.assertIn(fixture_module, modules)
        self.assertNotEqual(fixture_module, names["java.base"])
        self.assertEqual(c.ok(ModuleReference.Name, c.object_id(fixture_module)).string(), "")  # unnamed
        app_loader = c.ok(ReferenceType.ClassLoader, c.type_id(self.main)).id()
        self.assertNotEqual(app_loader, 0)
        self.assertEqual(c.ok(ModuleReference.ClassLoader, c.object_id(fixture_module)).id(), app_loader)
        self.assertEqual(c.error(ModuleReference.Name, c.object_id(NEVER_ISSUED_ID)), Error.INVALID_MODULE)
        self.assertEqual(c.error(ModuleReference.ClassLoader, c.object_id(NEVER_ISSUED_ID)), Error.INVALID_MODULE)
        if self.cfg.agent == "ours":
            # spec: a moduleID that is not a module is INVALID_MODULE. Stock calls
            # Module.getName on whatever object it is given (undefined in JNI), so
            # this is asserted for ours only.
            self.assertEqual(c.error(ModuleReference.Name, c.object_id(self.main)), Error.INVALID_MODULE)
            self.assertEqual(c.error(ModuleReference.ClassLoader, c.object_id(app_loader)), Error.INVALID_MODULE)
            self.assertEqual(c.error(ModuleReference.Name, c.object_id(0)), Error.INVALID_MODULE)

    def test_nested_types(self):
        c = self.c

        def nested(type_id):
            r = c.ok(ReferenceType.NestedTypes, c.type_id(type_id))
            return {(tag, c.signature(t)) for tag, t in tagged_ids(r, "referenceType")}

        # Directly nested only: the local class 1Local yes, the anonymous class
        # HeapTypes$1 and the doubly nested Leaf$Deep no.
        expected = {(TypeTag.CLASS, f"LHeapTypes${n};") for n in
                    ("Leaf", "Inner", "Holder", "Garbage", "Target", "Ref", "SelfRef", "GenLoader", "1Local")}
        expected.add((TypeTag.INTERFACE, "LHeapTypes$NestedIface;"))
        self.assertEqual(nested(self.main), expected)
        self.assertEqual(nested(self.leaf), {(TypeTag.CLASS, "LHeapTypes$Leaf$Deep;")})
        self.assertEqual(nested(self.holder), set())
        self.assertEqual(c.error(ReferenceType.NestedTypes, c.type_id(NEVER_ISSUED_ID)), Error.INVALID_OBJECT)

    def test_class_file_version_constant_pool_sde(self):
        c = self.c
        r = c.ok(ReferenceType.ClassFileVersion, c.type_id(self.main))
        self.assertEqual((r.int(), r.int()), (61, 0))
        leaf_array = c.class_by_signature("[LHeapTypes$Leaf;")
        self.assertEqual(c.error(ReferenceType.ClassFileVersion, c.type_id(leaf_array)), Error.ABSENT_INFORMATION)
        r = c.ok(ReferenceType.ConstantPool, c.type_id(self.main))
        count, data = r.int(), r.raw(r.int())
        self.assertGreater(count, 10)
        self.assertGreater(len(data), count)
        # GenSde's pool as written by the fixture: 5 entries (count 6), the first
        # the Utf8 "GenSde".
        gen_sde = c.class_by_signature("LGenSde;")
        r = c.ok(ReferenceType.ConstantPool, c.type_id(gen_sde))
        count, data = r.int(), r.raw(r.int())
        self.assertEqual(count, 6)
        self.assertEqual(data[:9], b"\x01\x00\x06GenSde")
        self.assertEqual(c.error(ReferenceType.ConstantPool, c.type_id(leaf_array)), Error.ABSENT_INFORMATION)
        self.assertEqual(c.error(ReferenceType.SourceDebugExtension, c.type_id(self.main)), Error.ABSENT_INFORMATION)
        self.assertEqual(c.ok(ReferenceType.SourceDebugExtension, c.type_id(gen_sde)).string(), SDE_TEXT)

    def test_visible_classes(self):
        c = self.c
        app_loader = c.ok(ReferenceType.ClassLoader, c.type_id(self.main)).id()
        r = c.ok(ClassLoaderReference.VisibleClasses, c.object_id(app_loader))
        visible = {t for _, t in tagged_ids(r, "referenceType")}
        self.assertIn(self.main, visible)
        self.assertIn(self.leaf, visible)
        self.assertNotIn(c.class_by_signature("LGen00042;"), visible)
        # ID 0: the bootstrap loader.
        r = c.ok(ClassLoaderReference.VisibleClasses, c.object_id(0))
        boot = {t for _, t in tagged_ids(r, "referenceType")}
        self.assertIn(c.class_by_signature("Ljava/lang/String;"), boot)
        self.assertNotIn(self.main, boot)
        not_a_loader = c.static_object(self.main, "refA")
        self.assertEqual(c.error(ClassLoaderReference.VisibleClasses, c.object_id(not_a_loader)),
                         Error.INVALID_CLASS_LOADER)

    def test_methods_stratum_and_capabilities(self):
        c = self.c
        main_method = c.method_named(self.main, "main")
        self.assertFalse(c.ok(Method.IsObsolete, c.type_id(self.main) + c.method_id(main_method)).boolean())
        r = c.ok(Method.Bytecodes, c.type_id(self.main) + c.method_id(main_method))
        self.assertGreater(r.int(), 0)
        obj = c.class_by_signature("Ljava/lang/Object;")
        r = c.ok(Method.Bytecodes, c.type_id(obj) + c.method_id(c.method_named(obj, "hashCode")))  # native
        self.assertEqual(r.int(), 0)
        c.ok(VirtualMachine.SetDefaultStratum, jdwp_string("Java"))
        c.ok(VirtualMachine.SetDefaultStratum, jdwp_string(""))
        r = c.ok(VirtualMachine.CapabilitiesNew)
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
        for cmd, name in ((VirtualMachine.AllClasses, "AllClasses"),
                          (VirtualMachine.AllClassesWithGeneric, "AllClassesWithGeneric")):
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
        self.assertEqual(c.class_by_signature("LGen09999;"), c.class_by_signature("LGen09999;"))
        print(f"{self.cfg.agent} raw ClassesBySignature x2 {(time.monotonic() - start) * 1000:.0f} ms")


class RawUnloading(unittest.TestCase):
    """IDs are never reused within a session (the issue's rule), with the same
    assertions for both agents; stock's answers are the oracle."""

    def setUp(self):
        self.cfg = harness.config()
        # The fixture connects here; each byte sent moves it one step on.
        listener = socket.create_server(("127.0.0.1", 0))
        self.addCleanup(listener.close)
        listener.settimeout(1)  # short, to notice a fixture that died before connecting
        # -Xlog:class+unload: the JVM's own word that the class went, not just its mirror.
        self.debuggee = harness.Debuggee(self.cfg, "Unloading", args=(str(listener.getsockname()[1]),),
                                         options=SERVER_OPTIONS, jvm_args=("-Xlog:class+unload=info",))
        self.addCleanup(self.debuggee.__exit__, None, None, None)
        self.control = self.accept_control(listener)
        self.addCleanup(self.control.close)
        self.debuggee.wait_for_output(r"(?m)^Unloading loaded$", READY_TIMEOUT_S)
        self.c = HeapClient(self.debuggee.port, timeout=READ_TIMEOUT_S)
        self.addCleanup(self.c.close)
        self.fixture = self.c.class_by_signature("LUnloading;")

    def accept_control(self, listener: socket.socket) -> socket.socket:
        deadline = time.monotonic() + READY_TIMEOUT_S
        while self.debuggee.returncode is None and time.monotonic() < deadline:
            try:
                return listener.accept()[0]
            except socket.timeout:
                continue
        raise AssertionError(f"the fixture did not connect (rc={self.debuggee.returncode})\n--- stdout:\n"
                             f"{self.debuggee.stdout}\n--- stderr:\n{self.debuggee.stderr}")

    def next_step(self):
        self.control.sendall(b"s")

    def loaded_unloadables(self) -> list:
        r = self.c.ok(VirtualMachine.ClassesBySignature, jdwp_string("LUnloadable;"))
        return [(r.byte(), r.id("referenceType"), r.int()) for _ in range(r.int())]

    def test_type_id_is_not_reused_after_unloading(self):
        c = self.c
        old = c.class_by_signature("LUnloadable;")
        self.assertEqual(c.signature(old), "LUnloadable;")
        self.assertEqual(c.fields(old), {})

        self.next_step()
        self.debuggee.wait_for_output(r"(?m)^Unloading unloaded gcs=\d+$", UNLOAD_TIMEOUT_S)
        # Logged during the GC that cleared the weak reference, so already there.
        self.debuggee.wait_for_output(r"unloading class Unloadable ", 5)
        signature_error = c.error(ReferenceType.Signature, c.type_id(old))
        fields_error = c.error(ReferenceType.Fields, c.type_id(old))
        print(f"{self.cfg.agent} old type ID after unloading: Signature {error_name(signature_error)}, "
              f"Fields {error_name(fields_error)}")
        # Stock's answer: the ID names a collected object.
        self.assertEqual(signature_error, Error.INVALID_OBJECT)
        self.assertEqual(fields_error, Error.INVALID_OBJECT)
        self.assertEqual(self.loaded_unloadables(), [])

        self.next_step()
        self.debuggee.wait_for_output(r"(?m)^Unloading reloaded$", READY_TIMEOUT_S)
        new = c.class_by_signature("LUnloadable;")
        self.assertNotEqual(new, old, "a reloaded class must not get the unloaded class's ID")
        self.assertEqual(c.signature(new), "LUnloadable;")
        self.assertEqual(c.fields(new), {})
        # The reload does not bring the old ID back.
        self.assertEqual(c.error(ReferenceType.Signature, c.type_id(old)), signature_error)

    def test_disposed_object_id_is_not_reused(self):
        c = self.c
        first = c.static_object(self.fixture, "token")
        self.assertNotEqual(first, 0)
        # Sent once, so a count of 1 takes it to 0 and the ID is dropped.
        c.ok(VirtualMachine.DisposeObjects, i32(1) + c.object_id(first) + i32(1))
        self.assertEqual(c.error(ObjectReference.ReferenceType, c.object_id(first)), Error.INVALID_OBJECT)
        second = c.static_object(self.fixture, "token")
        self.assertNotEqual(second, first, "the same object after DisposeObjects gets a new ID")
        r = c.ok(ObjectReference.ReferenceType, c.object_id(second))
        self.assertEqual((r.byte(), c.signature(r.id("referenceType"))), (TypeTag.CLASS, "Ljava/lang/Object;"))


if __name__ == "__main__":
    harness.main()
