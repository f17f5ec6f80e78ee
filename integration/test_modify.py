#!/usr/bin/env python3
"""Value modification over raw JDWP, against the JDK's own agent as the oracle.

    python3 integration/test_modify.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

InvokeFixture is stopped at @bp-invoke (see test_invoke.py). The client sets
instance fields of every type (ObjectReference.SetValues), statics
(ClassType.SetValues, final ones included), array elements of every type with
the index/length edges (ArrayReference.SetValues), creates arrays
(ArrayType.NewInstance) and strings (VirtualMachine.CreateString), reads every
value back, then lets the fixture print what the VM itself sees. Bad input:
unknown object IDs, fields of other types, objects of the wrong class, and a bad
pair in the middle of each SetValues (what stock writes before and at it).

No sleeps: every wait is a read with a timeout.
"""

from __future__ import annotations

import struct
import unittest

import harness
from jdwp_client import (PRIMITIVE_FORMATS, ArrayReference, ArrayType, ClassType, Error, Method, ObjectReference,
                         Reader, StackFrame, StringReference, VirtualMachine, i32, jdwp_string, tagged, untagged)
from test_invoke import InvokeSession, ename


class Modify(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()
        cls.s = InvokeSession(cls)
        cls.c = cls.s.client
        cls.instance = cls.s.static("instance")[1]

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def set_fields(self, obj: int, pairs) -> int:
        """ObjectReference.SetValues of [(field name, tag, value)] -> error code."""
        c = self.c
        body = c.object_id(obj) + i32(len(pairs))
        for name, tag, value in pairs:
            body += c.field_id(self.s.fields[name].id) + untagged(tag, value)
        return c.error(ObjectReference.SetValues, body)

    def set_statics(self, pairs, type_id=None, field_ids=None) -> int:
        c = self.c
        body = c.type_id(self.s.fixture if type_id is None else type_id) + i32(len(pairs))
        for name, tag, value in pairs:
            field = field_ids[name] if field_ids else self.s.fields[name].id
            body += c.field_id(field) + untagged(tag, value)
        return c.error(ClassType.SetValues, body)

    def get_fields(self, obj: int, names):
        return self.c.object_values(obj, [self.s.fields[n].id for n in names])

    def set_array(self, array: int, first: int, tag: str, values) -> int:
        body = self.c.object_id(array) + i32(first) + i32(len(values))
        body += b"".join(untagged(tag, v) for v in values)
        return self.c.error(ArrayReference.SetValues, body)

    def get_array(self, array: int):
        r = self.c.ok(ArrayReference.GetValues, self.c.object_id(array) + i32(0) + i32(-1))
        tag = chr(r.byte())
        n = r.int()
        if tag in PRIMITIVE_FORMATS:
            return [r.value(tag)[1] for _ in range(n)]
        return [r.value() for _ in range(n)]

    def test_instance_fields_of_every_type(self):
        text = self.c.create_string("set by the debugger")
        number = self.s.static("staticStr")[1]  # any object: a String for `obj`
        pairs = [("z", "Z", True), ("b", "B", -5), ("c", "C", 0x263A), ("s", "S", -300), ("i", "I", 123456),
                 ("j", "J", -2**40), ("f", "F", 1.5), ("d", "D", -0.125), ("str", "L", text), ("obj", "L", number)]
        self.assertEqual(ename(self.set_fields(self.instance, pairs)), "NONE")
        got = self.get_fields(self.instance, [p[0] for p in pairs])
        self.assertEqual(got[:8], [("Z", True), ("B", -5), ("C", "\u263a"), ("S", -300), ("I", 123456),
                                   ("J", -2**40), ("F", 1.5), ("D", -0.125)])
        self.assertEqual(got[8], ("s", text))
        self.assertEqual(got[9], ("s", number))
        # null into a reference field.
        self.assertEqual(ename(self.set_fields(self.instance, [("obj", "L", 0)])), "NONE")
        self.assertEqual(self.get_fields(self.instance, ["obj"]), [("L", 0)])

    def test_field_errors(self):
        c = self.c
        self.assertEqual(ename(self.set_fields(self.instance, [("obj", "L", 0xdead00)])), "INVALID_OBJECT")
        self.assertEqual(ename(self.set_fields(0xdead00, [("i", "I", 1)])), "INVALID_OBJECT")
        # A field of another class.
        base = self.s.static("base")[1]
        self.assertEqual(ename(self.set_fields(base, [("i", "I", 1)])), "INVALID_FIELDID")

    def test_unknown_field_id(self):
        # Stock takes a fieldID it never handed out for a jfieldID and crashes the
        # VM (SIGSEGV in JvmtiEnvBase::get_field_descriptor); ours checks its table.
        if self.cfg.agent == "stock":
            self.skipTest("stock crashes the VM (see the comment)")
        c = self.c
        self.assertEqual(ename(c.error(ObjectReference.SetValues, c.object_id(self.instance) + i32(1)
                                       + c.field_id(0xbad) + i32(0))), "INVALID_FIELDID")
        self.assertEqual(ename(c.error(ClassType.SetValues, c.type_id(self.s.fixture) + i32(1)
                                       + c.field_id(0xbad) + i32(0))), "INVALID_FIELDID")

    def test_static_errors_stock_does_not_check(self):
        # Stock sets an instance field through ClassType.SetValues with
        # SetStatic<Type>Field and crashes the VM; ours answers INVALID_FIELDID.
        if self.cfg.agent == "stock":
            self.skipTest("stock crashes the VM (see the comment)")
        self.assertEqual(ename(self.set_statics([("i", "I", 1)])), "INVALID_FIELDID")
        self.assertEqual(ename(self.set_statics([("staticStr", "L", self.instance)])), "TYPE_MISMATCH")

    def test_field_type_checked(self):
        # JNI stores any object in any reference field; stock passes the value
        # on unchecked (a String in a Number field: a corrupt heap). The spec
        # requires a widening reference conversion; ours answers TYPE_MISMATCH.
        if self.cfg.agent == "stock":
            self.skipTest("stock stores objects of any class (see the comment)")
        text = self.c.create_string("not a number")
        self.assertEqual(ename(self.set_fields(self.instance, [("num", "L", text)])), "TYPE_MISMATCH")
        self.assertEqual(ename(self.set_fields(self.instance, [("task", "L", text)])), "TYPE_MISMATCH")
        self.assertEqual(ename(self.set_fields(self.instance, [("objects", "L", self.s.static("strs")[1])])), "NONE")
        self.assertEqual(ename(self.set_fields(self.instance, [("objects", "L", self.s.static("is")[1])])),
                         "TYPE_MISMATCH")

    def test_statics(self):
        text = self.c.create_string("static by the debugger")
        self.assertEqual(ename(self.set_statics([("staticInt", "I", -77), ("staticStr", "L", text)])), "NONE")
        self.assertEqual(self.s.static("staticInt"), ("I", -77))
        self.assertEqual(self.s.static("staticStr"), ("s", text))
        # As stock: a final static is set too (JDI refuses on its side).
        self.assertEqual(ename(self.set_statics([("FINAL_STATIC", "I", 41)])), "NONE")
        self.assertEqual(self.s.static("FINAL_STATIC"), ("I", 41))
        # An unknown class; an object that is not a class.
        self.assertEqual(ename(self.c.error(ClassType.SetValues, self.c.type_id(0xdead00) + i32(0))), "INVALID_OBJECT")
        self.assertEqual(ename(self.c.error(ClassType.SetValues, self.c.type_id(self.instance) + i32(0))),
                         "INVALID_CLASS")

    def test_arrays_of_every_type(self):
        cases = [("zs", "Z", [True, False, True]), ("bs", "B", [-1, 2, -3]), ("cs", "C", [65, 0x263A, 0]),
                 ("ss", "S", [-1, 300, -300]), ("is", "I", [7, -8, 2**31 - 1]), ("js", "J", [2**62, -1, 0]),
                 ("fs", "F", [0.5, -1.25, 3.0]), ("ds", "D", [1e300, -2.5, 0.0])]
        for name, tag, values in cases:
            with self.subTest(array=name):
                array = self.s.static(name)[1]
                self.assertEqual(ename(self.set_array(array, 1, tag, values)), "NONE")
                got = self.get_array(array)
                if tag == "C":
                    values = [chr(v) for v in values]
                self.assertEqual(got[1:], values)
        strs = self.s.static("strs")[1]
        texts = [self.c.create_string(t) for t in ("a", "b")]
        self.assertEqual(ename(self.set_array(strs, 2, "L", texts)), "NONE")
        self.assertEqual(self.get_array(strs)[2:], [("s", texts[0]), ("s", texts[1])])
        objs = self.s.static("objs")[1]
        self.assertEqual(ename(self.set_array(objs, 0, "L", [texts[0], self.s.static("is")[1], 0])), "NONE")
        self.assertEqual(self.get_array(objs)[:3], [("s", texts[0]), ("[", self.s.static("is")[1]), ("L", 0)])
        matrix = self.s.static("matrix")[1]
        self.assertEqual(ename(self.set_array(matrix, 1, "L", [self.s.static("is")[1]])), "NONE")

    def test_array_edges(self):
        ints = self.s.static("is")[1]
        empty = self.s.static("empty")[1]
        cases = [(ints, -1, [1], "INVALID_INDEX"), (ints, 4, [1], "INVALID_INDEX"), (ints, 4, [], "INVALID_INDEX"),
                 (ints, 3, [1, 2], "INVALID_LENGTH"), (ints, 3, [1], "NONE"), (ints, 0, [], "NONE"),
                 (empty, 0, [], "INVALID_INDEX")]
        for array, first, values, expected in cases:
            with self.subTest(first=first, count=len(values), empty=array == empty):
                self.assertEqual(ename(self.set_array(array, first, "I", values)), expected)
        self.assertEqual(ename(self.set_array(0xdead00, 0, "I", [1])), "INVALID_OBJECT")
        self.assertEqual(ename(self.set_array(self.instance, 0, "I", [1])), "INVALID_ARRAY")
        # An unknown object ID as an element.
        self.assertEqual(ename(self.set_array(self.s.static("objs")[1], 0, "L", [0xdead00])), "INVALID_OBJECT")

    def test_array_element_type_checked(self):
        strs = self.s.static("strs")[1]
        nums = self.s.static("nums")[1]
        expected = "TYPE_MISMATCH"
        self.assertEqual(ename(self.set_array(strs, 0, "L", [self.instance])), expected)
        self.assertEqual(ename(self.set_array(nums, 0, "L", [self.c.create_string("x")])), expected)

    # A bad pair in the middle of a SetValues: stock reads and writes pair by
    # pair, so the pairs before the bad one stay written, the ones after are not;
    # a pair whose object ID is unknown gets null written first (stock reads the
    # ID as null and stores it before answering INVALID_OBJECT). A body cut short
    # answers INTERNAL after the whole pairs before the cut.

    def test_bad_pair_in_the_middle_of_object_fields(self):
        c, s = self.c, self.s
        other = s.static("other")[1]
        other_type = c.class_by_signature("LInvokeFixture$Other;")
        of = c.fields(other_type)
        # A field of InvokeFixture is not one of Other's.
        body = (c.object_id(other) + i32(3) + c.field_id(of["value"].id) + untagged("I", 111)
                + c.field_id(self.s.fields["task"].id) + untagged("L", 0) + c.field_id(of["second"].id) + untagged("I", 222))
        self.assertEqual(ename(c.error(ObjectReference.SetValues, body)), "INVALID_FIELDID")
        self.assertEqual(c.object_values(other, [of["value"].id, of["second"].id]), [("I", 111), ("I", 3)])
        text = c.create_string("kept?")
        self.assertEqual(ename(self.set_fields(self.instance, [("obj", "L", text)])), "NONE")
        self.assertEqual(ename(self.set_fields(self.instance, [("i", "I", 112), ("obj", "L", 0xdead00),
                                                                ("j", "J", 223)])), "INVALID_OBJECT")
        self.assertEqual(self.get_fields(self.instance, ["i", "obj", "j"])[:2], [("I", 112), ("L", 0)])
        self.assertNotEqual(self.get_fields(self.instance, ["j"]), [("J", 223)])
        # Three pairs announced, two sent.
        f = self.s.fields
        body = (c.object_id(self.instance) + i32(3) + c.field_id(f["i"].id) + untagged("I", 114)
                + c.field_id(f["j"].id) + untagged("J", 225))
        self.assertEqual(ename(c.error(ObjectReference.SetValues, body)), "INTERNAL")
        self.assertEqual(self.get_fields(self.instance, ["i", "j"]), [("I", 114), ("J", 225)])

    def test_bad_pair_in_the_middle_of_object_fields_stock_does_not_check(self):
        # Stock crashes on an unknown field ID and stores objects of any class
        # (see test_unknown_field_id, test_field_type_checked); ours stops at them.
        if self.cfg.agent == "stock":
            self.skipTest("stock crashes or stores the object unchecked (see the comment)")
        c = self.c
        f = self.s.fields
        body = (c.object_id(self.instance) + i32(3) + c.field_id(f["i"].id) + untagged("I", 115)
                + c.field_id(0xbad) + untagged("I", 5) + c.field_id(f["j"].id) + untagged("J", 226))
        self.assertEqual(ename(c.error(ObjectReference.SetValues, body)), "INVALID_FIELDID")
        self.assertEqual(self.get_fields(self.instance, ["i"]), [("I", 115)])
        self.assertNotEqual(self.get_fields(self.instance, ["j"]), [("J", 226)])
        text = c.create_string("not a number")
        self.assertEqual(ename(self.set_fields(self.instance, [("i", "I", 116), ("num", "L", text),
                                                                ("j", "J", 227)])), "TYPE_MISMATCH")
        self.assertEqual(self.get_fields(self.instance, ["i"]), [("I", 116)])
        self.assertNotEqual(self.get_fields(self.instance, ["j"]), [("J", 227)])

    def test_bad_pair_in_the_middle_of_statics(self):
        c = self.c
        original = self.s.static("staticStr")[1]
        self.addCleanup(self.set_statics, [("staticStr", "L", original)])
        self.assertEqual(ename(self.set_statics([("staticInt", "I", 13), ("staticStr", "L", 0xdead00),
                                                 ("FINAL_STATIC", "I", 14)])), "INVALID_OBJECT")
        self.assertEqual([self.s.static(n) for n in ("staticInt", "staticStr", "FINAL_STATIC")],
                         [("I", 13), ("L", 0), ("I", 42)])
        f = self.s.fields
        body = (c.type_id(self.s.fixture) + i32(3) + c.field_id(f["staticInt"].id) + untagged("I", 15)
                + c.field_id(f["FINAL_STATIC"].id) + untagged("I", 16))
        self.assertEqual(ename(c.error(ClassType.SetValues, body)), "INTERNAL")
        self.assertEqual([self.s.static(n) for n in ("staticInt", "FINAL_STATIC")], [("I", 15), ("I", 16)])
        self.assertEqual(ename(self.set_statics([("FINAL_STATIC", "I", 42)])), "NONE")

    def test_bad_pair_in_the_middle_of_statics_stock_does_not_check(self):
        # Stock writes a static of an unrelated class (Other.count) through
        # ClassType.SetValues on InvokeFixture and answers NONE; the spec wants
        # fields of the class or its supertypes. Ours writes the pair before it,
        # then answers INVALID_FIELDID.
        if self.cfg.agent == "stock":
            self.skipTest("stock writes the other class's static (see the comment)")
        c = self.c
        other_type = c.class_by_signature("LInvokeFixture$Other;")
        count = c.fields(other_type)["count"].id
        body = (c.type_id(self.s.fixture) + i32(3) + c.field_id(self.s.fields["staticInt"].id) + untagged("I", 17)
                + c.field_id(count) + untagged("I", 99) + c.field_id(self.s.fields["FINAL_STATIC"].id) + untagged("I", 18))
        self.assertEqual(ename(c.error(ClassType.SetValues, body)), "INVALID_FIELDID")
        self.assertEqual(self.s.static("staticInt"), ("I", 17))
        self.assertEqual(self.s.static("FINAL_STATIC"), ("I", 42))
        self.assertEqual(c.static_values(other_type, [count]), [("I", 1)])

    def test_bad_element_in_the_middle_of_an_array(self):
        c = self.c
        objs = self.s.static("objs")[1]
        a, b, d = (c.create_string(t) for t in ("a", "b", "d"))
        self.assertEqual(ename(self.set_array(objs, 0, "L", [d, d, d, d])), "NONE")
        # As stock: from an unknown ID on, every element of the range becomes null.
        self.assertEqual(ename(self.set_array(objs, 0, "L", [a, 0xdead00, b])), "INVALID_OBJECT")
        self.assertEqual(self.get_array(objs), [("s", a), ("L", 0), ("L", 0), ("s", d)])
        # The VM refuses a wrong element (ArrayStoreException): the ones before stay.
        strs = self.s.static("strs")[1]
        self.assertEqual(ename(self.set_array(strs, 0, "L", [d, d, d, d])), "NONE")
        self.assertEqual(ename(self.set_array(strs, 0, "L", [a, self.instance, b])), "TYPE_MISMATCH")
        self.assertEqual(self.get_array(strs), [("s", a), ("s", d), ("s", d), ("s", d)])
        # Cut short: the whole elements before the cut are stored; for objects the
        # rest of the range becomes null, as stock.
        self.assertEqual(ename(c.error(ArrayReference.SetValues, c.object_id(objs) + i32(0) + i32(3)
                                       + c.object_id(b) + c.object_id(a))), "INTERNAL")
        self.assertEqual(self.get_array(objs), [("s", b), ("s", a), ("L", 0), ("s", d)])
        bytes_ = self.s.static("bs")[1]
        self.assertEqual(ename(self.set_array(bytes_, 0, "B", [0, 0, 0, 0])), "NONE")
        self.assertEqual(ename(c.error(ArrayReference.SetValues, c.object_id(bytes_) + i32(1) + i32(3)
                                       + bytes([7, 8]))), "INTERNAL")
        self.assertEqual(self.get_array(bytes_), [0, 7, 8, 0])
        # The range is checked before any value is read.
        self.assertEqual(ename(c.error(ArrayReference.SetValues, c.object_id(bytes_) + i32(0) + i32(100)
                                       + bytes([9, 9]))), "INVALID_LENGTH")
        self.assertEqual(self.get_array(bytes_), [0, 7, 8, 0])

    def main_frame(self):
        """main's frame (under stopHere) and the slots of its locals args, worker, round."""
        c = self.c
        r = c.ok(Method.VariableTable, c.type_id(self.s.fixture) + c.method_id(self.s.method("main")))
        r.int()  # argCnt
        slots = {}
        for _ in range(r.int()):
            r.long()
            name, _signature = r.string(), r.string()
            r.int()
            slots[name] = r.int()
        return c.frames(self.s.main)[1][0], slots["args"], slots["worker"], slots["round"]

    def frame_values(self, frame, slots):
        c = self.c
        body = c.object_id(self.s.main) + c.frame_id(frame) + i32(len(slots))
        for slot, tag in slots:
            body += i32(slot) + tag.encode()
        r = c.ok(StackFrame.GetValues, body)
        return [r.value() for _ in range(r.int())]

    def set_locals(self, frame, slots) -> str:
        c = self.c
        body = c.object_id(self.s.main) + c.frame_id(frame) + i32(len(slots))
        for slot, tag, value in slots:
            body += i32(slot) + tagged(tag, value)
        return ename(c.error(StackFrame.SetValues, body))

    def test_bad_slot_in_the_middle_of_a_frame(self):
        frame, args, worker, round_ = self.main_frame()
        thread = self.frame_values(frame, [(worker, "L")])[0]
        self.assertEqual(thread[0], "t")
        # An int into the Thread slot: JVMTI's TYPE_MISMATCH; round is written, args not.
        self.assertEqual(self.set_locals(frame, [(round_, "I", 77), (worker, "I", 5), (args, "L", 0)]),
                         "TYPE_MISMATCH")
        self.assertEqual(self.frame_values(frame, [(worker, "L"), (round_, "I")]), [thread, ("I", 77)])
        self.assertNotEqual(self.frame_values(frame, [(args, "L")])[0][1], 0, "args is not written")

    def test_unknown_object_in_the_middle_of_a_frame(self):
        # As stock: the slot of an unknown object ID gets null, then INVALID_OBJECT;
        # the slots before it are written, those after it are not.
        frame, args, worker, round_ = self.main_frame()
        self.assertEqual(self.set_locals(frame, [(round_, "I", 78), (worker, "t", 0xdead00), (args, "L", 0)]),
                         "INVALID_OBJECT")
        self.assertEqual(self.frame_values(frame, [(worker, "L"), (round_, "I")]), [("L", 0), ("I", 78)])
        self.assertNotEqual(self.frame_values(frame, [(args, "L")])[0][1], 0, "args is not written")

    def test_new_arrays(self):
        c = self.c
        for signature, tag, length in (("[I", "I", 5), ("[Ljava/lang/String;", "L", 3), ("[[I", "L", 2),
                                       ("[D", "D", 0)):
            with self.subTest(signature=signature):
                type_id = c.class_by_signature(signature)
                r = c.ok(ArrayType.NewInstance, c.type_id(type_id) + i32(length))
                self.assertEqual(chr(r.byte()), "[")
                array = r.id()
                self.assertEqual(c.ok(ArrayReference.Length, c.object_id(array)).int(), length)
                r = c.ok(ObjectReference.ReferenceType, c.object_id(array))
                r.byte()
                self.assertEqual(c.signature(r.id("referenceType")), signature)
        self.assertEqual(ename(c.error(ArrayType.NewInstance, c.type_id(0xdead00) + i32(1))), "INVALID_OBJECT")
        # Stock reads the second character of any type's signature as the
        # component (LInvokeFixture; -> an int[]); ours answers INVALID_ARRAY as the spec lists.
        if self.cfg.agent != "stock":
            self.assertEqual(ename(c.error(ArrayType.NewInstance, c.type_id(self.s.fixture) + i32(1))),
                             "INVALID_ARRAY")

    def test_create_string(self):
        for text in ("", "plain", "h\u00e9llo \u263a", "nul\x00inside", "\U0001F600 astral"):
            with self.subTest(text=text):
                sid = self.c.create_string(text)
                r = self.c.ok(ObjectReference.ReferenceType, self.c.object_id(sid))
                r.byte()
                self.assertEqual(self.c.signature(r.id("referenceType")), "Ljava/lang/String;")
                self.assertEqual(self.s.string(sid), text)

    def test_zz_the_vm_sees_the_values(self):
        # Runs last (name order): the fixture prints its fields and ends.
        text = self.c.create_string("final text")
        self.assertEqual(ename(self.set_fields(self.instance, [("i", "I", 999), ("str", "L", text),
                                                                ("d", "D", 2.5)])), "NONE")
        self.assertEqual(ename(self.set_statics([("staticInt", "I", 31337)])), "NONE")
        ints = self.s.static("is")[1]
        self.assertEqual(ename(self.set_array(ints, 0, "I", [11, 22, 33, 44])), "NONE")
        self.s.clear_breakpoint(self.s.bp_request)
        self.s.release()
        self.c.ok(VirtualMachine.Resume)
        m = self.s.debuggee.wait_for_output(r"(?m)^after .*$", 60)
        line = m.group(0)
        self.assertIn(" i=999 ", line)
        self.assertIn(" d=2.5 ", line)
        self.assertIn(" str=final text ", line)
        self.assertIn(" staticInt=31337 ", line)
        m = self.s.debuggee.wait_for_output(r"(?m)^arrays .*$", 60)
        self.assertIn("is=[11, 22, 33, 44]", m.group(0))
        self.s.debuggee.wait_for_output(r"(?m)^done$", 60)


if __name__ == "__main__":
    harness.main()
