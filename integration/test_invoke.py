#!/usr/bin/env python3
"""Method invocation over raw JDWP, against the JDK's own agent as the oracle.

    python3 integration/test_invoke.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

InvokeFixture (suspend=n) prints "ready" with its "worker" thread spinning; the
client sets a SUSPEND_ALL breakpoint at @bp-invoke and waits for it, then
invokes on the main thread: ObjectReference.InvokeMethod, ClassType.InvokeMethod,
ClassType.NewInstance, InterfaceType.InvokeMethod; return values of every type;
exceptions; INVOKE_SINGLE_THREADED and INVOKE_NONVIRTUAL; other threads resumed
for the call (or not) and suspended again with their counts; a breakpoint hit
inside the invoked method, and a SUSPEND_NONE event there sent before the reply;
the thread suspended in the VM after single-threaded calls (PopFrames right
after); commands answered during a call; the thread-state
and argument errors (an object of a same-named class from another class
loader included); a disconnect in the middle of a call. The JDI halves
(jdi/InvokeJdi.java, eclipse/InvokeEclipse.java) run the common cases through
both JDI implementations.

No sleeps: every wait is a read with a timeout.
"""

from __future__ import annotations

import os
import re
import socket
import time
import unittest

import harness
from jdwp_client import (ArrayReference, ClassObjectReference, ClassType, Client, Error, EventKind, EventRequest,
                         InterfaceType, InvokeOptions, ModKind, ObjectReference, Reader, ReferenceType, StackFrame,
                         StringReference, SuspendPolicy, ThreadReference, TypeTag, VirtualMachine, i32, i64,
                         jdwp_string, tagged, untagged)

READ_TIMEOUT_S = 60
FIXTURE = "InvokeFixture.java"


def ename(code: int) -> str:
    """An error code's name, as the tests compare them."""
    return Error(code).name if code in Error._value2member_map_ else str(code)


class InvokeSession:
    """InvokeFixture started, attached, stopped at @bp-invoke by a SUSPEND_ALL breakpoint."""

    def __init__(self, test, options="transport=dt_socket,server=y,address=0,suspend=n"):
        self.debuggee = harness.Debuggee(test.cfg, "InvokeFixture", options=options)
        try:
            port = self.debuggee.port
            self.debuggee.wait_for_output(r"(?m)^ready$", 60)
            self.client = Client(port, timeout=READ_TIMEOUT_S)
            c = self.client
            self.fixture = c.class_by_signature("LInvokeFixture;")
            self.fields = c.fields(self.fixture)
            self.methods = {(m.name, m.signature): m.id for m in c.methods(self.fixture)}
            self.by_name = {}
            for m in c.methods(self.fixture):
                self.by_name.setdefault(m.name, m.id)
            self.bp_request = self.set_breakpoint(self.fixture, "stopHere",
                                                  harness.fixture_line(FIXTURE, "// @bp-invoke"))
            self.thread = self.wait_breakpoint(self.bp_request)
            self.main = self.thread
            self.worker = c.thread_named("worker")
        except BaseException:
            self.debuggee.__exit__(None, None, None)
            raise

    def close(self):
        try:
            self.client.close()
        finally:
            self.debuggee.__exit__(None, None, None)

    # -- breakpoints --

    def set_breakpoint(self, type_id: int, method: str, line: int, policy: int = SuspendPolicy.ALL) -> int:
        c = self.client
        method_id = self.method(method, type_id)
        location = (bytes([TypeTag.CLASS]) + c.type_id(type_id) + c.method_id(method_id)
                    + i64(c.code_index(type_id, method_id, line)))
        r = c.ok(EventRequest.Set,
                 bytes([EventKind.BREAKPOINT, policy]) + i32(1) + bytes([ModKind.LocationOnly]) + location)
        return r.int()

    def clear_breakpoint(self, request: int):
        self.client.ok(EventRequest.Clear, bytes([EventKind.BREAKPOINT]) + i32(request))

    def wait_breakpoint(self, request: int) -> int:
        """Reads events until the breakpoint of `request` comes -> its thread."""
        while True:
            for data in self.client.events:
                thread = self._breakpoint_thread(data, request)
                if thread is not None:
                    self.client.events.remove(data)
                    return thread
            self.client.read_event()

    def _breakpoint_thread(self, data, request):
        r = Reader(data, self.client.sizes)
        r.byte()
        for _ in range(r.int()):
            kind = r.byte()
            if kind != EventKind.BREAKPOINT:
                return None
            req, thread = r.int(), r.id()
            r.location()
            if req == request:
                return thread
        return None

    def method(self, name: str, type_id: int | None = None, signature: str | None = None) -> int:
        if type_id is None or type_id == self.fixture:
            if signature:
                return self.methods[(name, signature)]
            return self.by_name[name]
        return self.client.method_named(type_id, name, signature)

    def static(self, name: str):
        return self.client.static_values(self.fixture, [self.fields[name].id])[0]

    # -- invocation --

    def invoke_static(self, name, args=(), options=0, thread=None, type_id=None, signature=None):
        """ClassType.InvokeMethod -> (error, return (tag, value), exception (tag, id))."""
        c = self.client
        type_id = self.fixture if type_id is None else type_id
        data = (c.type_id(type_id) + c.object_id(self.thread if thread is None else thread)
                + c.method_id(self.method(name, type_id, signature)) + i32(len(args)) + b"".join(args) + i32(options))
        return self._invoke_reply(ClassType.InvokeMethod, data)

    def invoke_instance(self, obj, name, args=(), options=0, type_id=None, signature=None, method_id=None):
        c = self.client
        type_id = self.fixture if type_id is None else type_id
        method_id = self.method(name, type_id, signature) if method_id is None else method_id
        data = (c.object_id(obj) + c.object_id(self.thread) + c.type_id(type_id) + c.method_id(method_id)
                + i32(len(args)) + b"".join(args) + i32(options))
        return self._invoke_reply(ObjectReference.InvokeMethod, data)

    def _invoke_reply(self, command, data):
        error, r = self.client.command(command, data)
        if error != Error.NONE:
            return error, None, None
        value = r.value()
        exception = (chr(r.byte()), r.id())
        return error, value, exception

    def release(self):
        """Lets main run to its end once resumed (sets `released`)."""
        field = self.fields["released"].id
        self.client.ok(ClassType.SetValues, self.client.type_id(self.fixture) + i32(1)
                       + self.client.field_id(field) + b"\x01")

    def string(self, string_id: int) -> str:
        return self.client.string_value(string_id)


class Invoke(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()
        cls.s = InvokeSession(cls)
        cls.c = cls.s.client

    @classmethod
    def tearDownClass(cls):
        cls.s.close()

    def ok(self, result):
        error, value, exception = result
        self.assertEqual(ename(error), "NONE")
        self.assertEqual(exception[1], 0, "no exception expected")
        return value

    def test_return_values_of_every_type(self):
        s = self.s
        self.assertEqual(self.ok(s.invoke_static("retZ", [tagged("Z", False)])), ("Z", True))
        self.assertEqual(self.ok(s.invoke_static("retB", [tagged("B", -128)])), ("B", -127))
        self.assertEqual(self.ok(s.invoke_static("retC", [tagged("C", ord("a"))])), ("C", "b"))
        self.assertEqual(self.ok(s.invoke_static("retS", [tagged("S", 32000)])), ("S", 32001))
        self.assertEqual(self.ok(s.invoke_static("retI", [tagged("I", 2**31 - 1)])), ("I", -2**31))
        self.assertEqual(self.ok(s.invoke_static("retJ", [tagged("J", 2**40)])), ("J", 2**40 + 1))
        self.assertEqual(self.ok(s.invoke_static("retF", [tagged("F", 1.25)])), ("F", 2.5))
        self.assertEqual(self.ok(s.invoke_static("retD", [tagged("D", -3.5)])), ("D", -7.0))
        text = self.c.create_string("abc")
        tag, sid = self.ok(s.invoke_static("retString", [tagged("L", text), tagged("I", 5)]))
        self.assertEqual(tag, "s")
        self.assertEqual(s.string(sid), "abc5")
        tag, aid = self.ok(s.invoke_static("retArray", [tagged("I", 4)]))
        self.assertEqual(tag, "[")
        r = self.c.ok(ArrayReference.GetValues, self.c.object_id(aid) + i32(0) + i32(-1))
        self.assertEqual(chr(r.byte()), "I")
        self.assertEqual([r.int() for _ in range(r.int())], [0, 1, 4, 9])
        tag, oid = self.ok(s.invoke_static("retObject"))
        self.assertEqual(tag, "L")
        r = self.c.ok(ObjectReference.ReferenceType, self.c.object_id(oid))
        r.byte()
        self.assertEqual(self.c.signature(r.id("referenceType")), "LInvokeFixture$Point;")
        self.assertEqual(self.ok(s.invoke_static("retNull")), ("L", 0))
        self.assertEqual(self.ok(s.invoke_static("retVoid")), ("V", None))
        self.assertEqual(self.ok(s.invoke_static("secret"))[0], "s")

    def test_exception_is_returned(self):
        error, value, exception = self.s.invoke_static("thrower", [tagged("I", 7)])
        self.assertEqual(error, Error.NONE)
        self.assertEqual(value, ("I", 0))
        self.assertEqual(exception[0], "L")
        self.assertNotEqual(exception[1], 0)
        r = self.c.ok(ObjectReference.ReferenceType, self.c.object_id(exception[1]))
        r.byte()
        self.assertEqual(self.c.signature(r.id("referenceType")), "Ljava/lang/IllegalArgumentException;")
        # A constructor that throws: the new object is null.
        self.s.invoke_static("retObject")  # loads Point
        point = self.c.class_by_signature("LInvokeFixture$Point;")
        error, r = self.c.command(ClassType.NewInstance, self.c.type_id(point) + self.c.object_id(self.s.thread)
                                  + self.c.method_id(self.s.method("<init>", point, "(Ljava/lang/String;)V"))
                                  + i32(1) + tagged("L", self.c.create_string("x")) + i32(0))
        self.assertEqual(error, Error.NONE)
        self.assertEqual((chr(r.byte()), r.id()), ("L", 0))
        tag, exc = chr(r.byte()), r.id()
        self.assertEqual(tag, "L")
        self.assertNotEqual(exc, 0)

    def test_new_instance(self):
        c, s = self.c, self.s
        s.invoke_static("retObject")  # loads Point
        point = c.class_by_signature("LInvokeFixture$Point;")
        error, r = c.command(ClassType.NewInstance, c.type_id(point) + c.object_id(s.thread)
                             + c.method_id(s.method("<init>", point, "(II)V"))
                             + i32(2) + tagged("I", 3) + tagged("I", 4) + i32(0))
        self.assertEqual(ename(error), "NONE")
        tag, obj = chr(r.byte()), r.id()
        self.assertEqual(tag, "L")
        self.assertEqual((chr(r.byte()), r.id()), ("L", 0))
        fields = c.fields(point)
        self.assertEqual(c.object_values(obj, [fields["x"].id, fields["y"].id]), [("I", 3), ("I", 4)])
        tag, text = self.ok(s.invoke_instance(obj, "toString", type_id=point, signature="()Ljava/lang/String;"))
        self.assertEqual(s.string(text), "Point(3,4)")

    def test_instance_virtual_and_nonvirtual(self):
        s, c = self.s, self.c
        derived = s.static("derived")[1]
        base_type = c.class_by_signature("LInvokeFixture$Base;")
        who = s.method("who", base_type)
        _, v = self.ok(s.invoke_instance(derived, "who", type_id=base_type, method_id=who))
        self.assertEqual(s.string(v), "Derived.who")
        _, v = self.ok(s.invoke_instance(derived, "who", type_id=base_type, method_id=who,
                                         options=InvokeOptions.INVOKE_NONVIRTUAL))
        self.assertEqual(s.string(v), "Base.who")
        instance = s.static("instance")[1]
        self.assertEqual(self.ok(s.invoke_instance(instance, "sum",
                                                   [tagged("I", 1), tagged("J", 2), tagged("D", 3.0)])),
                         ("I", 9))

    def test_interface_static_and_default_methods(self):
        s, c = self.s, self.c
        greeter = c.class_by_signature("LInvokeFixture$Greeter;")
        data = (c.type_id(greeter) + c.object_id(s.thread) + c.method_id(s.method("hello", greeter))
                + i32(1) + tagged("L", c.create_string("you")) + i32(0))
        error, r = c.command(InterfaceType.InvokeMethod, data)
        self.assertEqual(ename(error), "NONE")
        tag, v = r.value()
        self.assertEqual(s.string(v), "hello you")
        # A default method: through ObjectReference.InvokeMethod on an implementing object.
        derived = s.static("derived")[1]
        _, v = self.ok(s.invoke_instance(derived, "greet", type_id=greeter))
        self.assertEqual(s.string(v), "greet derived")

    def test_argument_errors(self):
        s = self.s
        self.assertEqual(ename(s.invoke_static("retString", [tagged("L", 0xdead00), tagged("I", 1)])[0]),
                         "INVALID_OBJECT")
        # describe(Object, Number): a String is an Object, an Integer a Number.
        text = self.c.create_string("t")
        _, v = self.ok(s.invoke_static("describe", [tagged("L", text), tagged("L", self.int_object(5))]))
        self.assertEqual(s.string(v), "t/5")

    def test_argument_errors_stock_does_not_check(self):
        # Stock hands these to JNI unchecked: a wrong argument count crashes the VM
        # (SIGSEGV in jni_invoke_static), a long for an int or an object of the
        # wrong class is passed through as is (undefined behaviour). The spec asks
        # for exact primitive types and widening reference conversions; ours checks.
        if self.cfg.agent == "stock":
            self.skipTest("stock crashes or passes the bad arguments on (see the comment)")
        s = self.s
        self.assertEqual(ename(s.invoke_static("retI", [])[0]), "ILLEGAL_ARGUMENT")
        self.assertEqual(ename(s.invoke_static("retI", [tagged("I", 1), tagged("I", 2)])[0]), "ILLEGAL_ARGUMENT")
        self.assertEqual(ename(s.invoke_static("retI", [tagged("J", 1)])[0]), "TYPE_MISMATCH")
        self.assertEqual(ename(s.invoke_static("retString", [tagged("I", 1), tagged("I", 1)])[0]), "TYPE_MISMATCH")
        instance = s.static("instance")[1]
        self.assertEqual(ename(s.invoke_static("retString", [tagged("L", instance), tagged("I", 1)])[0]),
                         "TYPE_MISMATCH")
        self.assertEqual(ename(s.invoke_static("describe", [tagged("L", 0), tagged("L", instance)])[0]),
                         "TYPE_MISMATCH")

    def test_argument_of_a_same_named_class_from_another_loader(self):
        # Holder.take(Payload) and Payload are defined by loader A; another Payload
        # by loader B (InvokeFixture.main). The JVM resolves a parameter type in
        # the declaring class's loader: B's Payload is another type. Stock passes
        # it to JNI unchecked and the method runs with it ("foreign"); the spec
        # wants argument values assignment-compatible, so ours answers
        # TYPE_MISMATCH. Likewise for a static field of that type (SetValues).
        s, c = self.s, self.c
        tag, holder_class = s.static("loadedHolder")
        self.assertEqual(tag, "c")
        r = c.ok(ClassObjectReference.ReflectedType, c.object_id(holder_class))
        r.byte()
        holder = r.id("referenceType")
        own, foreign = s.static("ownPayload")[1], s.static("foreignPayload")[1]
        _, v = self.ok(s.invoke_static("take", [tagged("L", own)], type_id=holder))
        self.assertEqual(s.string(v), "own")
        last = c.fields(holder)["last"].id
        set_last = lambda payload: c.error(ClassType.SetValues, c.type_id(holder) + i32(1) + c.field_id(last)
                                           + untagged("L", payload))
        self.assertEqual(ename(set_last(own)), "NONE")
        self.assertEqual(c.static_values(holder, [last]), [("L", own)])
        error, value, _ = s.invoke_static("take", [tagged("L", foreign)], type_id=holder)
        # Holder.lonely(Lonely): loader A never loaded a Lonely, and does not
        # delegate to B, so B's Lonely cannot be the one A would resolve.
        lonely_error, lonely_value, _ = s.invoke_static("lonely", [tagged("L", s.static("foreignLonely")[1])],
                                                        type_id=holder)
        if self.cfg.agent == "stock":
            self.assertEqual((ename(error), s.string(value[1])), ("NONE", "foreign"))
            self.assertEqual((ename(lonely_error), s.string(lonely_value[1])), ("NONE", "lonely"))
            return
        self.assertEqual(ename(error), "TYPE_MISMATCH")
        self.assertEqual(ename(lonely_error), "TYPE_MISMATCH")
        self.assertEqual(ename(set_last(foreign)), "TYPE_MISMATCH")
        self.assertEqual(c.static_values(holder, [last]), [("L", own)])

    def test_method_errors(self):
        s, c = self.s, self.c
        base = c.class_by_signature("LInvokeFixture$Base;")
        data = (c.type_id(base) + c.object_id(s.thread) + c.method_id(s.method("retI")) + i32(1) + tagged("I", 1)
                + i32(0))
        self.assertEqual(ename(c.error(ClassType.InvokeMethod, data)), "INVALID_METHODID")
        # As stock: InterfaceType.InvokeMethod on a class's static method, and
        # ClassType.InvokeMethod on an interface's, are called.
        data = (c.type_id(s.fixture) + c.object_id(s.thread) + c.method_id(s.method("retI")) + i32(1)
                + tagged("I", 1) + i32(0))
        error, r = c.command(InterfaceType.InvokeMethod, data)
        self.assertEqual((ename(error), r.value()), ("NONE", ("I", 2)))
        greeter = c.class_by_signature("LInvokeFixture$Greeter;")
        data = (c.type_id(greeter) + c.object_id(s.thread) + c.method_id(s.method("hello", greeter)) + i32(1)
                + tagged("L", 0) + i32(0))
        error, r = c.command(ClassType.InvokeMethod, data)
        self.assertEqual(ename(error), "NONE")
        self.assertEqual(s.string(r.value()[1]), "hello null")

    def test_method_errors_stock_does_not_check(self):
        # Stock calls these through JNI unchecked: an instance method through
        # ClassType.InvokeMethod and a default method through
        # InterfaceType.InvokeMethod crash the VM; a static method as a
        # constructor, or a method on an object of another class, is undefined
        # behaviour that happened to return. Ours answers INVALID_METHODID.
        if self.cfg.agent == "stock":
            self.skipTest("stock crashes or calls the wrong method (see the comment)")
        s, c = self.s, self.c
        data = (c.type_id(s.fixture) + c.object_id(s.thread) + c.method_id(s.method("instanceName")) + i32(0) + i32(0))
        self.assertEqual(ename(c.error(ClassType.InvokeMethod, data)), "INVALID_METHODID")
        greeter = c.class_by_signature("LInvokeFixture$Greeter;")
        data = (c.type_id(greeter) + c.object_id(s.thread) + c.method_id(s.method("greet", greeter)) + i32(0) + i32(0))
        self.assertEqual(ename(c.error(InterfaceType.InvokeMethod, data)), "INVALID_METHODID")
        s.invoke_static("retObject")  # loads Point
        point = c.class_by_signature("LInvokeFixture$Point;")
        data = (c.type_id(point) + c.object_id(s.thread) + c.method_id(s.method("retI")) + i32(1) + tagged("I", 1)
                + i32(0))
        self.assertEqual(ename(c.error(ClassType.NewInstance, data)), "INVALID_METHODID")
        base = c.class_by_signature("LInvokeFixture$Base;")
        self.assertEqual(ename(s.invoke_instance(s.static("instance")[1], "who", type_id=base)[0]),
                         "INVALID_METHODID")

    def int_object(self, value: int) -> int:
        integer = self.c.class_by_signature("Ljava/lang/Integer;")
        return self.ok(self.s.invoke_static("valueOf", [tagged("I", value)], type_id=integer,
                                            signature="(I)Ljava/lang/Integer;"))[1]

    def test_thread_errors(self):
        s, c = self.s, self.c
        # The worker is suspended by the SUSPEND_ALL event, but did not report it.
        self.assertEqual(ename(s.invoke_static("retI", [tagged("I", 1)], thread=s.worker)[0]),
                         "INVALID_THREAD")
        # Not a thread.
        self.assertEqual(ename(s.invoke_static("retI", [tagged("I", 1)], thread=s.static("instance")[1])[0]),
                         "INVALID_THREAD")
        self.assertEqual(ename(s.invoke_static("retI", [tagged("I", 1)], thread=0xdead00)[0]), "INVALID_OBJECT")

    def test_other_threads_resumed_then_suspended(self):
        s, c = self.s, self.c
        counts = lambda: (c.ok(ThreadReference.SuspendCount, c.object_id(s.worker)).int(),
                          c.ok(ThreadReference.SuspendCount, c.object_id(s.main)).int())
        self.assertEqual(counts(), (1, 1))
        _, v = self.ok(s.invoke_static("waitForSpins", [tagged("J", 1000)]))
        self.assertEqual(s.string(v), "advanced")
        self.assertEqual(counts(), (1, 1))
        # Single-threaded: the worker stays suspended through the call.
        before = self.ok(s.invoke_static("spinsSeen", options=InvokeOptions.INVOKE_SINGLE_THREADED))[1]
        after = self.ok(s.invoke_static("spinsSeen", options=InvokeOptions.INVOKE_SINGLE_THREADED))[1]
        self.assertEqual(before, after)
        self.assertEqual(counts(), (1, 1))
        # A thread suspended twice stays suspended through a call that resumes the others.
        c.ok(ThreadReference.Suspend, c.object_id(s.worker))
        before = self.ok(s.invoke_static("spinsSeen"))[1]
        after = self.ok(s.invoke_static("spinsSeen"))[1]
        self.assertEqual(before, after)
        self.assertEqual(counts(), (2, 1))
        c.ok(ThreadReference.Resume, c.object_id(s.worker))
        self.assertEqual(counts(), (1, 1))

    def invoke_commands(self):
        """(name, command, data without the options) of each invoke command, calling a method of InvokeFixture."""
        s, c = self.s, self.c
        s.invoke_static("retObject")  # loads Point
        point = c.class_by_signature("LInvokeFixture$Point;")
        greeter = c.class_by_signature("LInvokeFixture$Greeter;")
        thread = c.object_id(s.thread)
        return [
            ("ClassType.InvokeMethod", ClassType.InvokeMethod,
             c.type_id(s.fixture) + thread + c.method_id(s.method("retVoid")) + i32(0)),
            ("ClassType.NewInstance", ClassType.NewInstance,
             c.type_id(point) + thread + c.method_id(s.method("<init>", point, "(II)V")) + i32(2) + tagged("I", 1)
             + tagged("I", 2)),
            ("ObjectReference.InvokeMethod", ObjectReference.InvokeMethod,
             c.object_id(s.static("instance")[1]) + thread + c.type_id(s.fixture)
             + c.method_id(s.method("instanceName")) + i32(0)),
            ("InterfaceType.InvokeMethod", InterfaceType.InvokeMethod,
             c.type_id(greeter) + thread + c.method_id(s.method("hello", greeter)) + i32(1) + tagged("L", 0)),
        ]

    def test_invoke_waits_while_the_thread_is_suspended_again(self):
        # As stock and the spec: an invoke starts with a resume that acts exactly
        # like ThreadReference.Resume (single-threaded) or VirtualMachine.Resume.
        # A thread stopped by an event and suspended again (count 2) runs the
        # call, and the reply comes, only once that suspension is resumed too.
        s, c = self.s, self.c
        count = lambda t: c.ok(ThreadReference.SuspendCount, c.object_id(t)).int()
        calls = lambda: s.static("calls")[1]
        for name, command, data in self.invoke_commands():
            for options in (0, InvokeOptions.INVOKE_SINGLE_THREADED):
                with self.subTest(command=name, options=options):
                    self.assertEqual((count(s.main), count(s.worker)), (1, 1))
                    c.ok(ThreadReference.Suspend, c.object_id(s.main))
                    calls_before = calls()
                    pid = c.send_command(command, data + i32(options))
                    # Answered while the invoke waits (Client.command fails on any other reply).
                    self.assertEqual(count(s.main), 1)
                    self.assertEqual(count(s.worker), 1 if options else 0)
                    self.assertEqual(calls(), calls_before, "the call has not run")
                    resume = c.send_command(ThreadReference.Resume, c.object_id(s.main))
                    replies = {}
                    while len(replies) < 2:
                        p = c.read_packet()
                        if p.is_reply:
                            replies[p.id] = p
                        else:
                            c.keep_event(p.data)
                    self.assertEqual(ename(replies[resume].kind), "NONE")
                    self.assertEqual(ename(replies[pid].kind), "NONE")
                    r = Reader(replies[pid].data, c.sizes)
                    if command == ClassType.NewInstance:
                        self.assertEqual(chr(r.byte()), "L")
                        self.assertNotEqual(r.id(), 0)
                    else:
                        r.value()
                    self.assertEqual((chr(r.byte()), r.id()), ("L", 0), "no exception")
                    if command == ClassType.InvokeMethod:
                        self.assertEqual(calls(), calls_before + 1)
                    # The call's own suspension is back; the extra one was resumed.
                    self.assertEqual((count(s.main), count(s.worker)), (1, 1))

    def test_every_thread_suspended_after_a_call_that_resumed_all(self):
        # The spec and stock: after an invoke without INVOKE_SINGLE_THREADED every
        # thread is suspended, whatever its state before the call.
        s, c = self.s, self.c
        count = lambda t: c.ok(ThreadReference.SuspendCount, c.object_id(t)).int()
        commands = self.invoke_commands()
        c.ok(ThreadReference.Resume, c.object_id(s.worker))
        self.assertEqual((count(s.main), count(s.worker)), (1, 0))
        for name, command, data in commands:
            with self.subTest(command=name):
                error, _ = c.command(command, data + i32(InvokeOptions.INVOKE_SINGLE_THREADED))
                self.assertEqual(ename(error), "NONE")
                self.assertEqual((count(s.main), count(s.worker)), (1, 0))
                error, _ = c.command(command, data + i32(0))
                self.assertEqual(ename(error), "NONE")
                self.assertEqual((count(s.main), count(s.worker)), (1, 1))
                c.ok(ThreadReference.Resume, c.object_id(s.worker))
        c.ok(ThreadReference.Suspend, c.object_id(s.worker))
        self.assertEqual((count(s.main), count(s.worker)), (1, 1))

    def test_commands_during_invoke_and_second_invoke(self):
        s, c = self.s, self.c
        method = s.method("sleepMs")
        data = (c.type_id(s.fixture) + c.object_id(s.thread) + c.method_id(method) + i32(1) + tagged("J", 1500)
                + i32(0))
        first = c.send_command(ClassType.InvokeMethod, data)
        # Answered while the call runs: a read, and a second invoke on the same thread.
        version = c.send_command(VirtualMachine.Version)
        second = c.send_command(ClassType.InvokeMethod, data)
        replies = {}
        while len(replies) < 3:
            p = c.read_packet()
            if p.is_reply:
                replies[p.id] = p
        order = [pid for pid in replies]
        self.assertEqual(ename(replies[version].kind), "NONE")
        # As stock: a thread already invoking is not one "suspended by an event" (not ALREADY_INVOKING).
        self.assertEqual(ename(replies[second].kind), "INVALID_THREAD")
        self.assertEqual(ename(replies[first].kind), "NONE")
        self.assertEqual(order[-1], first, "the invoke's reply comes last")
        r = Reader(replies[first].data, c.sizes)
        self.assertEqual(s.string(r.value()[1]), "slept")

    def test_breakpoint_inside_invoked_method(self):
        for options in (0, InvokeOptions.INVOKE_SINGLE_THREADED):
            with self.subTest(options=options):
                self.breakpoint_inside_invoked_method(options)

    def breakpoint_inside_invoked_method(self, options):
        s, c = self.s, self.c
        request = s.set_breakpoint(s.fixture, "breakInside", harness.fixture_line(FIXTURE, "// @bp-inside"),
                                   policy=SuspendPolicy.EVENT_THREAD)
        try:
            data = (c.type_id(s.fixture) + c.object_id(s.thread) + c.method_id(s.method("breakInside"))
                    + i32(1) + tagged("I", 5) + i32(options))
            pid = c.send_command(ClassType.InvokeMethod, data)
            reply = None
            hit = None
            resume_id = None
            resumed = False
            while reply is None or not resumed:
                p = c.read_packet()
                if p.is_reply:
                    # The invoke's reply and the Resume's may come in either order.
                    self.assertIn(p.id, (pid, resume_id))
                    if p.id == pid:
                        reply = p
                    else:
                        self.assertEqual(ename(p.kind), "NONE")
                        resumed = True
                else:
                    c.keep_event(p.data)
                    if hit is None:
                        hit = s._breakpoint_thread(p.data, request)
                        if hit is not None:
                            self.assertEqual(hit, s.thread)
                            # The thread stops in the invoked method; resuming it finishes the call.
                            frames = c.frames(s.thread)
                            self.assertGreaterEqual(len(frames), 2)
                            resume_id = c.send_command(ThreadReference.Resume, c.object_id(s.thread))
            self.assertIsNotNone(hit, "the breakpoint inside the invoked method was reported")
            self.assertEqual(ename(reply.kind), "NONE")
            self.assertEqual(Reader(reply.data, c.sizes).value(), ("I", 15))
            # Suspended again at @bp-invoke with its count as before, and ready for another call.
            self.assertEqual(c.ok(ThreadReference.SuspendCount, c.object_id(s.thread)).int(), 1)
            self.assertEqual(self.ok(s.invoke_static("retI", [tagged("I", 1)], options=options)), ("I", 2))
            self.assertEqual(c.frames(s.thread)[0][1][2], s.method("stopHere"))
        finally:
            s.clear_breakpoint(request)

    def test_event_of_the_invoking_thread_comes_before_the_reply(self):
        # A SUSPEND_NONE event inside the invoked method goes out before the
        # invoke's reply, as stock sends both from one queue.
        s, c = self.s, self.c
        request = s.set_breakpoint(s.fixture, "breakInside", harness.fixture_line(FIXTURE, "// @bp-inside"),
                                   policy=0)
        try:
            for options in (0, InvokeOptions.INVOKE_SINGLE_THREADED):
                with self.subTest(options=options):
                    for n in range(5):
                        data = (c.type_id(s.fixture) + c.object_id(s.thread) + c.method_id(s.method("breakInside"))
                                + i32(1) + tagged("I", n) + i32(options))
                        pid = c.send_command(ClassType.InvokeMethod, data)
                        hit = None
                        while True:
                            p = c.read_packet()
                            if not p.is_reply:
                                hit = hit if hit is not None else s._breakpoint_thread(p.data, request)
                                if hit is None:
                                    c.keep_event(p.data)
                                continue
                            self.assertEqual(p.id, pid)
                            break
                        self.assertEqual(hit, s.thread, "the event came before the reply")
                        self.assertEqual(ename(p.kind), "NONE")
                        self.assertEqual(Reader(p.data, c.sizes).value(), ("I", n * 3))
        finally:
            s.clear_breakpoint(request)


class InvokeThroughJdi(unittest.TestCase):
    """The common cases through the JDK's JDI and Eclipse's (jdi/InvokeJdi.java)."""

    def setUp(self):
        self.cfg = harness.config()

    def run_client(self, client):
        classpath, main = harness.jdi_driver(self, self.cfg, client, "InvokeJdi", "InvokeEclipse")
        line = harness.fixture_line(FIXTURE, "// @bp-invoke")
        with harness.Debuggee(self.cfg, "InvokeFixture",
                              options="transport=dt_socket,server=y,address=0,suspend=n") as debuggee:
            port = debuggee.port
            debuggee.wait_for_output(r"(?m)^ready$", 60)
            rc, out, err = harness.run_java(self.cfg, ["-cp", os.pathsep.join(classpath)], main,
                                            [str(port), str(line)], timeout=120)
            report = f"--- driver stdout:\n{out}\n--- driver stderr:\n{err}\n--- debuggee:\n{debuggee.stdout}{debuggee.stderr}"
            scenarios = re.findall(r"(?m)^SCENARIO (\S+) (PASS|FAIL)(?: (.*))?$", out)
            self.assertGreaterEqual(len(scenarios), 10, report)
            for name, verdict, detail in scenarios:
                with self.subTest(scenario=f"{client}:{name}"):
                    self.assertEqual(verdict, "PASS", f"{client}:{name}: {detail}")
            self.assertEqual(rc, 0, report)
            debuggee.wait_for_output(r"(?m)^done$", 60)
            line_after = debuggee.wait_for_output(r"(?m)^after .*$", 5).group(0)
            self.assertIn(" i=-5 ", line_after)
            self.assertIn(" str=jdi text ", line_after)
            self.assertIn(" staticInt=4321 ", line_after)

    def test_jdk_jdi(self):
        self.run_client("jdk")

    def test_eclipse_jdi(self):
        self.run_client("eclipse")


# What JDI gives for each (invoker, method) pair of jdi/InterfaceInvokeJdi.java under stock.
INTERFACE_MATRIX = {
    ('ClassType(Impl)', 'Impl.<init>'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Impl.aTop'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Impl.dTop'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Impl.sImpl'): '=Impl.sImpl',
    ('ClassType(Impl)', 'Plain.sPlain'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Sub.dOver'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Sub.dSub'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Sub.pSub'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Sub.sSub'): 'InternalException(23)',
    ('ClassType(Impl)', 'Top.<clinit>'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Top.aTop'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Top.dOver'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Top.dTop'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Top.pTop'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Top.psTop'): 'InternalException(23)',
    ('ClassType(Impl)', 'Top.sTop'): 'InternalException(23)',
    ('ClassType(Impl)', 'Top.viaPrivate'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Impl.<init>'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Impl.aTop'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Impl.dTop'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Impl.sImpl'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Plain.sPlain'): '=Plain.sPlain',
    ('ClassType(Plain)', 'Sub.dOver'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Sub.dSub'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Sub.pSub'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Sub.sSub'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.<clinit>'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.aTop'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.dOver'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.dTop'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.pTop'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.psTop'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.sTop'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.viaPrivate'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Impl.<init>'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Impl.aTop'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Impl.dTop'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Impl.sImpl'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Plain.sPlain'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Sub.dOver'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Sub.dSub'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Sub.pSub'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Sub.sSub'): '=Sub.sSub',
    ('InterfaceType(Sub)', 'Top.<clinit>'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Top.aTop'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Top.dOver'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Top.dTop'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Top.pTop'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Top.psTop'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Top.sTop'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Top.viaPrivate'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Impl.<init>'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Impl.aTop'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Impl.dTop'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Impl.sImpl'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Plain.sPlain'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Sub.dOver'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Sub.dSub'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Sub.pSub'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Sub.sSub'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Top.<clinit>'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Top.aTop'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Top.dOver'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Top.dTop'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Top.pTop'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Top.psTop'): '=Top.psTop',
    ('InterfaceType(Top)', 'Top.sTop'): '=Top.sTop',
    ('InterfaceType(Top)', 'Top.viaPrivate'): 'IllegalArgumentException',
    ('Object(Impl)', 'Impl.<init>'): 'IllegalArgumentException',
    ('Object(Impl)', 'Impl.aTop'): '=Impl.aTop',
    ('Object(Impl)', 'Impl.dTop'): '=Impl.dTop',
    ('Object(Impl)', 'Impl.sImpl'): '=Impl.sImpl',
    ('Object(Impl)', 'Plain.sPlain'): 'IllegalArgumentException',
    ('Object(Impl)', 'Sub.dOver'): '=Sub.dOver',
    ('Object(Impl)', 'Sub.dSub'): '=Sub.dSub',
    ('Object(Impl)', 'Sub.pSub'): '=Sub.pSub',
    ('Object(Impl)', 'Sub.sSub'): 'InternalException(23)',
    ('Object(Impl)', 'Top.<clinit>'): 'IllegalArgumentException',
    ('Object(Impl)', 'Top.aTop'): '=Impl.aTop',
    ('Object(Impl)', 'Top.dOver'): '=Sub.dOver',
    ('Object(Impl)', 'Top.dTop'): '=Impl.dTop',
    ('Object(Impl)', 'Top.pTop'): '=Top.pTop',
    ('Object(Impl)', 'Top.psTop'): 'InternalException(23)',
    ('Object(Impl)', 'Top.sTop'): 'InternalException(23)',
    ('Object(Impl)', 'Top.viaPrivate'): '=Top.pTop+Top.psTop',
    ('Object(Impl),nonvirtual', 'Impl.<init>'): 'IllegalArgumentException',
    ('Object(Impl),nonvirtual', 'Impl.aTop'): '=Impl.aTop',
    ('Object(Impl),nonvirtual', 'Impl.dTop'): '=Impl.dTop',
    ('Object(Impl),nonvirtual', 'Impl.sImpl'): '=Impl.sImpl',
    ('Object(Impl),nonvirtual', 'Plain.sPlain'): 'IllegalArgumentException',
    ('Object(Impl),nonvirtual', 'Sub.dOver'): '=Sub.dOver',
    ('Object(Impl),nonvirtual', 'Sub.dSub'): '=Sub.dSub',
    ('Object(Impl),nonvirtual', 'Sub.pSub'): '=Sub.pSub',
    ('Object(Impl),nonvirtual', 'Sub.sSub'): 'InternalException(23)',
    ('Object(Impl),nonvirtual', 'Top.<clinit>'): 'IllegalArgumentException',
    ('Object(Impl),nonvirtual', 'Top.aTop'): 'IllegalArgumentException',
    ('Object(Impl),nonvirtual', 'Top.dOver'): '=Top.dOver',
    ('Object(Impl),nonvirtual', 'Top.dTop'): '=Top.dTop',
    ('Object(Impl),nonvirtual', 'Top.pTop'): '=Top.pTop',
    ('Object(Impl),nonvirtual', 'Top.psTop'): 'InternalException(23)',
    ('Object(Impl),nonvirtual', 'Top.sTop'): 'InternalException(23)',
    ('Object(Impl),nonvirtual', 'Top.viaPrivate'): '=Top.pTop+Top.psTop',
}

# The same through Eclipse's JDI, which sends InterfaceType.InvokeMethod for an
# interface's instance methods too: stock calls them with no receiver (the
# default and private ones that ignore `this` return, the abstract Top.aTop
# kills the VM, so the rest of stock's table is VMDisconnectedException). The
# spec's InterfaceType.InvokeMethod invokes static methods only: ours refuses
# them (INVALID_METHODID, which Eclipse's JDI throws as IllegalArgumentException).
# Every other pair is what stock gives before it dies.
INTERFACE_MATRIX_ECLIPSE = {
    ('ClassType(Impl)', 'Impl.<init>'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Impl.aTop'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Impl.dTop'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Impl.sImpl'): '=Impl.sImpl',
    ('ClassType(Impl)', 'Plain.sPlain'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Sub.dOver'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Sub.dSub'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Sub.pSub'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Sub.sSub'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Top.<clinit>'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Top.aTop'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Top.dOver'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Top.dTop'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Top.pTop'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Top.psTop'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Top.sTop'): 'IllegalArgumentException',
    ('ClassType(Impl)', 'Top.viaPrivate'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Impl.<init>'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Impl.aTop'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Impl.dTop'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Impl.sImpl'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Plain.sPlain'): '=Plain.sPlain',
    ('ClassType(Plain)', 'Sub.dOver'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Sub.dSub'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Sub.pSub'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Sub.sSub'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.<clinit>'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.aTop'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.dOver'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.dTop'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.pTop'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.psTop'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.sTop'): 'IllegalArgumentException',
    ('ClassType(Plain)', 'Top.viaPrivate'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Impl.<init>'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Impl.aTop'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Impl.dTop'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Impl.sImpl'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Plain.sPlain'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Sub.dOver'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Sub.dSub'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Sub.pSub'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Sub.sSub'): '=Sub.sSub',
    ('InterfaceType(Sub)', 'Top.<clinit>'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Top.aTop'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Top.dOver'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Top.dTop'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Top.pTop'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Top.psTop'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Top.sTop'): 'IllegalArgumentException',
    ('InterfaceType(Sub)', 'Top.viaPrivate'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Impl.<init>'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Impl.aTop'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Impl.dTop'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Impl.sImpl'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Plain.sPlain'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Sub.dOver'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Sub.dSub'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Sub.pSub'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Sub.sSub'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Top.<clinit>'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Top.aTop'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Top.dOver'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Top.dTop'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Top.pTop'): 'IllegalArgumentException',
    ('InterfaceType(Top)', 'Top.psTop'): '=Top.psTop',
    ('InterfaceType(Top)', 'Top.sTop'): '=Top.sTop',
    ('InterfaceType(Top)', 'Top.viaPrivate'): 'IllegalArgumentException',
    ('Object(Impl)', 'Impl.<init>'): 'IllegalArgumentException',
    ('Object(Impl)', 'Impl.aTop'): '=Impl.aTop',
    ('Object(Impl)', 'Impl.dTop'): '=Impl.dTop',
    ('Object(Impl)', 'Impl.sImpl'): '=Impl.sImpl',
    ('Object(Impl)', 'Plain.sPlain'): 'IllegalArgumentException',
    ('Object(Impl)', 'Sub.dOver'): '=Sub.dOver',
    ('Object(Impl)', 'Sub.dSub'): '=Sub.dSub',
    ('Object(Impl)', 'Sub.pSub'): '=Sub.pSub',
    ('Object(Impl)', 'Sub.sSub'): '=Sub.sSub',
    ('Object(Impl)', 'Top.<clinit>'): 'IllegalArgumentException',
    ('Object(Impl)', 'Top.aTop'): '=Impl.aTop',
    ('Object(Impl)', 'Top.dOver'): '=Sub.dOver',
    ('Object(Impl)', 'Top.dTop'): '=Impl.dTop',
    ('Object(Impl)', 'Top.pTop'): '=Top.pTop',
    ('Object(Impl)', 'Top.psTop'): '=Top.psTop',
    ('Object(Impl)', 'Top.sTop'): '=Top.sTop',
    ('Object(Impl)', 'Top.viaPrivate'): '=Top.pTop+Top.psTop',
    ('Object(Impl),nonvirtual', 'Impl.<init>'): 'IllegalArgumentException',
    ('Object(Impl),nonvirtual', 'Impl.aTop'): '=Impl.aTop',
    ('Object(Impl),nonvirtual', 'Impl.dTop'): '=Impl.dTop',
    ('Object(Impl),nonvirtual', 'Impl.sImpl'): '=Impl.sImpl',
    ('Object(Impl),nonvirtual', 'Plain.sPlain'): 'IllegalArgumentException',
    ('Object(Impl),nonvirtual', 'Sub.dOver'): '=Sub.dOver',
    ('Object(Impl),nonvirtual', 'Sub.dSub'): '=Sub.dSub',
    ('Object(Impl),nonvirtual', 'Sub.pSub'): '=Sub.pSub',
    ('Object(Impl),nonvirtual', 'Sub.sSub'): '=Sub.sSub',
    ('Object(Impl),nonvirtual', 'Top.<clinit>'): 'IllegalArgumentException',
    ('Object(Impl),nonvirtual', 'Top.aTop'): 'IllegalArgumentException',
    ('Object(Impl),nonvirtual', 'Top.dOver'): '=Top.dOver',
    ('Object(Impl),nonvirtual', 'Top.dTop'): '=Top.dTop',
    ('Object(Impl),nonvirtual', 'Top.pTop'): '=Top.pTop',
    ('Object(Impl),nonvirtual', 'Top.psTop'): '=Top.psTop',
    ('Object(Impl),nonvirtual', 'Top.sTop'): '=Top.sTop',
    ('Object(Impl),nonvirtual', 'Top.viaPrivate'): '=Top.pTop+Top.psTop',
}


class InterfaceMethodsThroughJdi(unittest.TestCase):
    """Static, default, private and abstract methods of an interface and a
    sub-interface through InterfaceType, ClassType and ObjectReference.invokeMethod
    (jdi/InterfaceInvokeJdi.java): every pair as stock answers it."""

    def test_jdk_jdi(self):
        self.run_client("jdk")

    def test_eclipse_jdi(self):
        if harness.config().agent == "stock":
            self.skipTest("stock kills the VM here (see INTERFACE_MATRIX_ECLIPSE)")
        self.run_client("eclipse")

    def run_client(self, client):
        cfg = harness.config()
        classpath, main = harness.jdi_driver(self, cfg, client, "InterfaceInvokeJdi", "InterfaceInvokeEclipse")
        line = harness.fixture_line("InterfaceInvoke.java", "// @bp-interface")
        with harness.Debuggee(cfg, "InterfaceInvoke",
                              options="transport=dt_socket,server=y,address=0,suspend=n") as debuggee:
            debuggee.wait_for_output(r"(?m)^ready ", 60)
            rc, out, err = harness.run_java(cfg, ["-cp", os.pathsep.join(classpath)], main,
                                            [str(debuggee.port), str(line)], timeout=120)
            report = f"--- driver stdout:\n{out}\n--- driver stderr:\n{err}\n--- debuggee:\n{debuggee.stdout}{debuggee.stderr}"
            got = {(invoker, method): outcome
                   for invoker, method, outcome in re.findall(r"(?m)^CASE (\S+) (\S+) (\S+)$", out)}
            if os.environ.get("JDWPX_DUMP_MATRIX"):
                print("\n".join(f"    ({i!r}, {m!r}): {o!r}," for (i, m), o in sorted(got.items())))
            self.assertIn("RESULT ok", out, report)
            matrix = INTERFACE_MATRIX if client == "jdk" else INTERFACE_MATRIX_ECLIPSE
            for key, expected in matrix.items():
                with self.subTest(invoker=key[0], method=key[1]):
                    self.assertEqual(got.get(key), expected)
            self.assertEqual(sorted(got), sorted(matrix), "the same pairs")
            self.assertEqual(rc, 0, report)
            debuggee.wait_for_output(r"(?m)^done$", 60)


class InvokeWithItsOwnSession(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()

    def test_another_threads_suspend_all_event_stops_the_invoking_thread(self):
        # As stock: while main runs an invoked method, the worker's SUSPEND_ALL
        # breakpoint suspends every thread, main (in the invoked code) included.
        s = InvokeSession(self)
        try:
            c = s.client
            s.clear_breakpoint(s.bp_request)
            worker_loop = [m for m in c.methods(s.fixture) if m.name.startswith("lambda$main")][0].id
            first_index = c.line_table(s.fixture, worker_loop)[0][0]
            location = bytes([1]) + c.type_id(s.fixture) + c.method_id(worker_loop) + i64(first_index)
            data = (c.type_id(s.fixture) + c.object_id(s.thread) + c.method_id(s.method("busyUntilReleased"))
                    + i32(0) + i32(0))
            invoke = c.send_command(ClassType.InvokeMethod, data)
            busy = lambda: s.static("busy")[1]
            # The call runs (Client.command fails on its reply, which cannot come yet).
            deadline = time.monotonic() + READ_TIMEOUT_S
            while busy() == 0:
                self.assertLess(time.monotonic(), deadline, "the invoked method never ran")
            request = c.ok(EventRequest.Set, bytes([EventKind.BREAKPOINT, SuspendPolicy.ALL]) + i32(1)
                           + bytes([ModKind.LocationOnly]) + location).int()
            self.assertEqual(s.wait_breakpoint(request), s.worker)
            first = busy()
            for _ in range(20):
                c.ok(VirtualMachine.AllThreads)
            self.assertEqual(busy(), first, "the invoking thread ran on under a SUSPEND_ALL event")
            s.clear_breakpoint(request)
            s.release()
            c.send_command(VirtualMachine.Resume)
            replies = set()
            while invoke not in replies:
                p = c.read_packet()
                if p.is_reply:
                    self.assertEqual(ename(p.kind), "NONE")
                    replies.add(p.id)
        finally:
            s.close()

    def test_thread_suspended_in_full_after_single_threaded_invokes(self):
        # A single-threaded call ends with its thread suspended as before it, in
        # the VM too: PopFrames (which JVMTI allows only on a suspended thread)
        # works right after a run of calls; resumed, the thread calls stopHere again.
        s = InvokeSession(self)
        try:
            c = s.client
            counts = lambda: tuple(c.ok(ThreadReference.SuspendCount, c.object_id(t)).int() for t in (s.main, s.worker))
            for n in range(3):
                self.assertEqual(self.ok_value(s.invoke_static("retI", [tagged("I", n)],
                                                               options=InvokeOptions.INVOKE_SINGLE_THREADED)),
                                 ("I", n + 1))
            frames = c.frames(s.thread)
            self.assertEqual(frames[0][1][2], s.method("stopHere"))
            c.ok(StackFrame.PopFrames, c.object_id(s.thread) + c.frame_id(frames[0][0]))
            self.assertEqual(counts(), (1, 1))
            popped = c.frames(s.thread)
            self.assertEqual(len(popped), len(frames) - 1)
            self.assertEqual(popped[0][1][2], s.method("main"))
            c.ok(ThreadReference.Resume, c.object_id(s.thread))
            # main calls stopHere again: the breakpoint (SUSPEND_ALL) stops it there.
            self.assertEqual(s.wait_breakpoint(s.bp_request), s.thread)
            self.assertEqual(counts(), (1, 2))
            self.assertEqual(self.ok_value(s.invoke_static("retI", [tagged("I", 7)],
                                                           options=InvokeOptions.INVOKE_SINGLE_THREADED)),
                             ("I", 8))
            self.assertEqual(c.frames(s.thread)[0][1][2], s.method("stopHere"))
        finally:
            s.close()

    def ok_value(self, result):
        error, value, exception = result
        self.assertEqual(ename(error), "NONE")
        self.assertEqual(exception[1], 0, "no exception expected")
        return value


class InvokeDisconnect(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()

    def test_disconnect_during_invoke_leaves_the_vm_running(self):
        for options in (0, InvokeOptions.INVOKE_SINGLE_THREADED):
            with self.subTest(options=options):
                s = InvokeSession(self)
                try:
                    c = s.client
                    s.clear_breakpoint(s.bp_request)
                    s.release()
                    data = (c.type_id(s.fixture) + c.object_id(s.thread) + c.method_id(s.method("sleepMs")) + i32(1)
                            + tagged("J", 1000) + i32(options))
                    c.send_command(ClassType.InvokeMethod, data)
                    c.sock.shutdown(socket.SHUT_RDWR)
                    c.close()
                    # The call completes, the session's end resumes everything, and main runs to its end.
                    s.debuggee.wait_for_output(r"(?m)^done$", 60)
                    self.assertEqual(s.debuggee.wait(30), 0)
                finally:
                    s.debuggee.__exit__(None, None, None)


if __name__ == "__main__":
    harness.main()
