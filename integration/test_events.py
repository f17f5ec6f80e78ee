#!/usr/bin/env python3
"""Every JDWP event kind and modifier, raw JDWP, against ours and the JDK's agent.

    python3 integration/test_events.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

Each case starts EventsFixture with one scenario (suspend=y), waits for the
fixture class to be prepared (everything suspended), sets its requests, resumes
and collects every composite until VMDeath, resuming after each suspending one.
The assertions are what stock does on JDK 17 (the oracle): kinds, lines,
values, counts and the grouping of co-located events into one composite.
ThroughJdi runs jdi/EventsJdi.java (method and field events; then monitor,
exception and ClassUnload events and the modifiers, in phases) with the JDK's
JDI and, through eclipse/EventsEclipse.java, with Eclipse's. EventsThroughJdiEdges
runs two cases of jdi/ControlEdgesJdi.java through both JDIs (control_edges.py):
watches on the first fields of two classes, and the ClassUnload of a class loaded
between two sessions. EVENTS_DEBUG=1 prints every composite as it comes.
"""

from __future__ import annotations

import os
import socket
import time
import unittest

import control_edges
import harness
from jdwp_client import (ClassType, Client, Error, EventKind, EventRequest, InvokeOptions, ModKind, ModuleReference,
                         Reader, ReferenceType, StackFrame, StringReference, SuspendPolicy, ThreadReference, TypeTag,
                         VirtualMachine, i32, i64, jdwp_string)

READ_TIMEOUT_S = 30
FIXTURE = "EventsFixture"
SRC = "EventsFixture.java"



def line(marker: str) -> int:
    return harness.fixture_line(SRC, "// @" + marker)


class Session:
    """A fixture (EventsFixture unless told) running `scenario`, stopped at the
    fixture's ClassPrepare."""

    def __init__(self, test, scenario: str, fixture: str = FIXTURE, source: str = SRC):
        self.source = source
        self.debuggee = harness.Debuggee(test.cfg, fixture, args=[scenario])
        try:
            self.c = Client(self.debuggee.port, timeout=READ_TIMEOUT_S)
            self.c.wait_for_vm_start()
            self.c.events.clear()
            prepare = self.set(EventKind.CLASS_PREPARE, SuspendPolicy.ALL, self.class_match(fixture))
            self.c.ok(VirtualMachine.Resume)
            composite = self.c.read_event()
            events = self.parse(composite)[1]
            assert events[0]["kind"] == EventKind.CLASS_PREPARE, events
            self.fixture = events[0]["type"]
            self.main_thread = events[0]["thread"]
            self.clear(EventKind.CLASS_PREPARE, prepare)
            self.c.events.clear()
            self.fields = self.c.fields(self.fixture)
            self.methods = {m.id: m.name for m in self.c.methods(self.fixture)}
            self.method_ids = {m.name: m.id for m in self.c.methods(self.fixture)}
            self.line_tables = {}
        except BaseException:
            self.debuggee.__exit__(None, None, None)
            raise

    def close(self):
        try:
            self.c.close()
        finally:
            self.debuggee.__exit__(None, None, None)

    # -- requests --

    def class_match(self, pattern: str) -> bytes:
        return bytes([ModKind.ClassMatch]) + jdwp_string(pattern)

    def class_only(self, type_id: int) -> bytes:
        return bytes([ModKind.ClassOnly]) + self.c.type_id(type_id)

    def field_only(self, type_id: int, field_id: int) -> bytes:
        return bytes([ModKind.FieldOnly]) + self.c.type_id(type_id) + self.c.field_id(field_id)

    def thread_only(self, thread: int) -> bytes:
        return bytes([ModKind.ThreadOnly]) + self.c.object_id(thread)

    def location_only(self, method_id: int, index: int, type_id: int | None = None) -> bytes:
        return (bytes([ModKind.LocationOnly, TypeTag.CLASS]) + self.c.type_id(type_id or self.fixture)
                + self.c.method_id(method_id) + i64(index))

    def set_request(self, kind: int, policy: int, *modifiers: bytes) -> tuple:
        data = bytes([kind, policy]) + i32(len(modifiers)) + b"".join(modifiers)
        return self.c.command(EventRequest.Set, data)

    def set(self, kind: int, policy: int, *modifiers: bytes) -> int:
        error, r = self.set_request(kind, policy, *modifiers)
        assert error == Error.NONE, f"EventRequest.Set kind {kind} failed: {error}"
        return r.int()

    def clear(self, kind: int, request_id: int):
        self.c.ok(EventRequest.Clear, bytes([kind]) + i32(request_id))

    def breakpoint_at(self, method: str, marker: str, policy: int = SuspendPolicy.ALL) -> int:
        method_id = self.method_ids[method]
        index = self.index_of_line(method_id, harness.fixture_line(self.source, "// @" + marker))
        return self.set(EventKind.BREAKPOINT, policy, self.location_only(method_id, index))

    # -- lines --

    def line_table(self, method_id: int) -> list:
        if method_id not in self.line_tables:
            self.line_tables[method_id] = sorted(self.c.line_table(self.fixture, method_id))
        return self.line_tables[method_id]

    def line_of(self, location: tuple) -> int:
        _, _, method_id, index = location
        if method_id not in self.methods:
            return -1
        found = -1
        for start, number in self.line_table(method_id):
            if start <= index:
                found = number
        return found

    def index_of_line(self, method_id: int, number: int) -> int:
        return min(start for start, n in self.line_table(method_id) if n == number)

    # -- events --

    def parse(self, data: bytes) -> tuple:
        r = Reader(data, self.c.sizes)
        policy = r.byte()
        events = []
        for _ in range(r.int()):
            kind = r.byte()
            e = {"kind": kind, "request": r.int()}
            if kind in (EventKind.SINGLE_STEP, EventKind.BREAKPOINT, EventKind.METHOD_ENTRY, EventKind.METHOD_EXIT,
                        EventKind.METHOD_EXIT_WITH_RETURN_VALUE):
                e["thread"], e["location"] = r.id(), r.location()
                if kind == EventKind.METHOD_EXIT_WITH_RETURN_VALUE:
                    e["value"] = r.value()
            elif kind in (EventKind.MONITOR_CONTENDED_ENTER, EventKind.MONITOR_CONTENDED_ENTERED,
                          EventKind.MONITOR_WAIT, EventKind.MONITOR_WAITED):
                e["thread"], e["object"], e["location"] = r.id(), r.value(), r.location()
                if kind == EventKind.MONITOR_WAIT:
                    e["timeout"] = r.long()
                elif kind == EventKind.MONITOR_WAITED:
                    e["timed_out"] = r.boolean()
            elif kind in (EventKind.FIELD_ACCESS, EventKind.FIELD_MODIFICATION):
                e["thread"], e["location"] = r.id(), r.location()
                e["tag"], e["type"], e["field"] = r.byte(), r.id("referenceType"), r.id("field")
                e["object"] = r.value()
                if kind == EventKind.FIELD_MODIFICATION:
                    e["value"] = r.value()
            elif kind == EventKind.CLASS_PREPARE:
                e["thread"], e["tag"], e["type"] = r.id(), r.byte(), r.id("referenceType")
                e["signature"], e["status"] = r.string(), r.int()
            elif kind == EventKind.CLASS_UNLOAD:
                e["signature"] = r.string()
            elif kind == EventKind.VM_DEATH:
                pass
            else:
                raise AssertionError(f"unexpected event kind {kind}")
            if "location" in e:
                e["line"] = self.line_of(e["location"])
                e["method"] = self.methods.get(e["location"][2])
            events.append(e)
        assert r.at_end(), "bytes left after the composite"
        return policy, events

    # Events that came while the requests were being set (a running thread's):
    # dropped here; a subclass whose requests meet running threads keeps them.
    keeps_earlier_events = False

    def run(self, on_event=None) -> list:
        """Resumes and collects [(policy, [event...])] until VMDeath, calling
        on_event(policy, events) for each composite; resumes after a suspending one."""
        composites = []
        # Events of policy NONE are parsed while the VM runs on, maybe to its end:
        # read every line table while the VM is still there.
        for method_id in self.methods:
            self.line_table(method_id)
        if not self.keeps_earlier_events:
            self.c.events.clear()
        self.c.ok(VirtualMachine.Resume)
        while True:
            # Events that came while a reply was awaited come first.
            policy, events = self.parse(self.c.read_event())
            if os.environ.get("EVENTS_DEBUG"):
                print(policy, events, flush=True)
            if any(e["kind"] == EventKind.VM_DEATH for e in events):
                return composites
            composites.append((policy, events))
            if on_event:
                on_event(policy, events)
            if policy != SuspendPolicy.NONE:
                self.c.ok(VirtualMachine.Resume)


class EventsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()

    def session(self, scenario: str) -> Session:
        s = Session(self, scenario)
        self.addCleanup(s.close)
        return s

    # ---- method entry / exit ----

    def test_method_entry_and_exit_with_return_values(self):
        s = self.session("methods")
        entry = s.set(EventKind.METHOD_ENTRY, SuspendPolicy.NONE, s.class_match(FIXTURE), s.thread_only(s.main_thread))
        exit_plain = s.set(EventKind.METHOD_EXIT, SuspendPolicy.NONE, s.class_only(s.fixture))
        exit_value = s.set(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SuspendPolicy.EVENT_THREAD, s.class_match(FIXTURE))
        strings = {}

        def read_strings(policy, events):
            for e in events:
                if e["kind"] == EventKind.METHOD_EXIT_WITH_RETURN_VALUE and e["value"][0] == "s":
                    strings[e["method"]] = s.c.string_value(e["value"][1])

        composites = s.run(read_strings)
        entries = [e["method"] for _, events in composites for e in events if e["kind"] == EventKind.METHOD_ENTRY]
        # The class is prepared before its initializer runs: <clinit> and main are entered too.
        self.assertEqual(entries, ["<clinit>", "main", "methods", "<init>", "twice", "greet", "big", "thrower"])
        for _, events in composites:
            for e in events:
                if e["kind"] == EventKind.METHOD_ENTRY:
                    self.assertEqual(e["request"], entry)
                    self.assertEqual(e["thread"], s.main_thread)
                    self.assertEqual(e["location"][3], 0, e)
        # One composite per exit, plain exit and exit-with-value together, the
        # newer request first (as stock). thrower() ends by an exception: no exit.
        exits = [[(e["kind"], e["request"], e["method"]) for e in events] for _, events in composites
                 if any(e["kind"] in (EventKind.METHOD_EXIT, EventKind.METHOD_EXIT_WITH_RETURN_VALUE) for e in events)]
        names = ["<clinit>", "<init>", "twice", "greet", "big", "methods", "main"]
        self.assertEqual(exits, [[(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, exit_value, n),
                                  (EventKind.METHOD_EXIT, exit_plain, n)] for n in names])
        values = {e["method"]: e["value"] for _, events in composites for e in events
                  if e["kind"] == EventKind.METHOD_EXIT_WITH_RETURN_VALUE}
        self.assertEqual(values["twice"], ("I", 42))
        self.assertEqual(values["big"], ("J", 1 << 40))
        self.assertEqual(values["<init>"], ("V", None))
        self.assertEqual(values["methods"], ("V", None))
        self.assertEqual(values["greet"][0], "s")
        self.assertEqual(strings["greet"], "hi bob")
        # The exit location is the return instruction: on the method's return line.
        twice_exit = [e for _, events in composites for e in events
                      if e["kind"] == EventKind.METHOD_EXIT and e["method"] == "twice"][0]
        self.assertEqual(twice_exit["line"], line("return-twice"))
        self.assertEqual(twice_exit["request"], exit_plain)

    # ---- field watches ----

    def test_field_access_and_modification(self):
        s = self.session("fields")
        value_id = s.fields["value"].id
        counter_id = s.fields["counter"].id
        name_id = s.fields["name"].id
        access = s.set(EventKind.FIELD_ACCESS, SuspendPolicy.NONE, s.field_only(s.fixture, value_id))
        modify_value = s.set(EventKind.FIELD_MODIFICATION, SuspendPolicy.NONE, s.field_only(s.fixture, value_id))
        modify_counter = s.set(EventKind.FIELD_MODIFICATION, SuspendPolicy.NONE, s.field_only(s.fixture, counter_id))
        modify_name = s.set(EventKind.FIELD_MODIFICATION, SuspendPolicy.EVENT_THREAD, s.field_only(s.fixture, name_id))
        # A second request on the same field, cleared again: the watch stays for the first.
        extra = s.set(EventKind.FIELD_ACCESS, SuspendPolicy.NONE, s.field_only(s.fixture, value_id))
        s.clear(EventKind.FIELD_ACCESS, extra)
        strings = {}

        def read_name(policy, events):
            for e in events:
                if e["kind"] == EventKind.FIELD_MODIFICATION and e["value"][0] == "s":
                    strings[e["field"]] = s.c.string_value(e["value"][1])

        composites = s.run(read_name)
        flat = [e for _, events in composites for e in events]
        # Field initializers in <init> write value and name too.
        got = [(e["kind"], e["request"], e["method"], e["line"]) for e in flat]
        self.assertEqual(got, [
            (EventKind.FIELD_MODIFICATION, modify_value, "<init>", s.line_of(flat[0]["location"])),
            (EventKind.FIELD_MODIFICATION, modify_name, "<init>", s.line_of(flat[1]["location"])),
            (EventKind.FIELD_ACCESS, access, "touch", line("touch-value")),
            (EventKind.FIELD_MODIFICATION, modify_value, "touch", line("touch-value")),
            (EventKind.FIELD_MODIFICATION, modify_counter, "touch", line("touch-counter")),
            (EventKind.FIELD_MODIFICATION, modify_name, "touch", line("touch-name")),
        ])
        instance = flat[2]["object"]
        self.assertEqual(instance[0], "L")
        self.assertNotEqual(instance[1], 0)
        self.assertEqual(flat[3]["object"], instance)
        self.assertEqual(flat[3]["value"], ("I", 6))
        self.assertEqual(flat[0]["value"], ("I", 1))
        self.assertEqual(flat[4]["object"][1], 0)  # static: no object
        self.assertEqual(flat[4]["value"], ("I", 7))
        self.assertEqual(flat[5]["value"][0], "s")
        self.assertEqual(strings[name_id], "b")
        for e in flat:
            self.assertEqual(e["type"], s.fixture)
            self.assertEqual(e["tag"], 1)
            self.assertEqual(e["thread"], s.main_thread)

    def test_field_watch_bad_input(self):
        s = self.session("fields")
        value_id = s.fields["value"].id
        # No FieldOnly: refused. Stock answers INTERNAL (113), an error the spec
        # keeps for agent faults; ours names the bad request: ILLEGAL_ARGUMENT.
        self.assertEqual(s.set_request(EventKind.FIELD_ACCESS, SuspendPolicy.NONE)[0],
                         113 if self.cfg.agent == "stock" else Error.ILLEGAL_ARGUMENT)
        self.assertEqual(s.set_request(EventKind.FIELD_ACCESS, SuspendPolicy.NONE,
                                       s.field_only(s.fixture, 0x7EADBEEF))[0],
                         Error.INVALID_FIELDID)
        self.assertEqual(s.set_request(EventKind.FIELD_MODIFICATION, SuspendPolicy.NONE,
                                       s.field_only(0x7EADBEEF, value_id))[0],
                         Error.INVALID_OBJECT)
        self.assertEqual(s.set_request(EventKind.METHOD_ENTRY, SuspendPolicy.NONE, s.class_only(0x7EADBEEF))[0],
                         Error.INVALID_OBJECT)
        # spec: Count 0 is INVALID_COUNT; stock's own INVALID_COUNT goes through its
        # JVMTI error mapping and comes out as INTERNAL (113).
        self.assertEqual(s.set_request(EventKind.METHOD_ENTRY, SuspendPolicy.NONE, bytes([ModKind.Count]) + i32(0))[0],
                         113 if self.cfg.agent == "stock" else Error.INVALID_COUNT)
        # A field of another class named with this class.
        string_type = s.c.class_by_signature("Ljava/lang/String;")
        hash_id = s.c.fields(string_type)["hash"].id
        # Accepted by both (JVMTI does not check the class); it never matches.
        error, r = s.set_request(EventKind.FIELD_ACCESS, SuspendPolicy.NONE, s.field_only(s.fixture, hash_id))
        self.assertEqual(error, Error.NONE)
        s.clear(EventKind.FIELD_ACCESS, r.int())
        # Nothing was left behind by the failures: the run reports nothing.
        self.assertEqual(s.run(), [])

    # ---- monitors ----

    def test_monitor_events(self):
        s = self.session("monitors")
        wait = s.set(EventKind.MONITOR_WAIT, SuspendPolicy.NONE, s.thread_only(s.main_thread))
        waited = s.set(EventKind.MONITOR_WAITED, SuspendPolicy.NONE, s.thread_only(s.main_thread))
        enter = s.set(EventKind.MONITOR_CONTENDED_ENTER, SuspendPolicy.NONE, s.class_match(FIXTURE))
        entered = s.set(EventKind.MONITOR_CONTENDED_ENTERED, SuspendPolicy.NONE, s.class_match(FIXTURE))
        composites = s.run()
        flat = [e for _, events in composites for e in events]
        lock = flat[0]["object"]
        self.assertEqual(lock[0], "L")
        # contender.join() waits on the Thread object when the contender has not
        # ended yet: then a second wait/waited pair.
        joins = [e for e in flat if e["object"] != lock]
        if joins:
            self.assertEqual([(e["kind"], e["object"][0]) for e in joins],
                             [(EventKind.MONITOR_WAIT, "t"), (EventKind.MONITOR_WAITED, "t")])
            self.assertEqual(joins[0]["timeout"], 0)
            self.assertFalse(joins[1]["timed_out"])
        on_lock = [e for e in flat if e["object"] == lock]
        expected = [(EventKind.MONITOR_WAIT, wait), (EventKind.MONITOR_WAITED, waited),
                    (EventKind.MONITOR_CONTENDED_ENTER, enter),
                    (EventKind.MONITOR_CONTENDED_ENTERED, entered)]
        self.assertEqual([(e["kind"], e["request"]) for e in on_lock], expected, on_lock)
        self.assertEqual(flat[0]["timeout"], 5)
        self.assertTrue(flat[1]["timed_out"])
        # Inside Object.wait, a native method: its location index is -1.
        for e in flat[:2]:
            self.assertEqual(e["location"][3], -1)
            self.assertEqual(e["thread"], s.main_thread)
        for e in on_lock[2:]:
            self.assertEqual(e["thread"], on_lock[2]["thread"])
            self.assertNotEqual(e["thread"], s.main_thread)
            # Both agents: the top frame's location, which javac puts on the block's first line.
            self.assertEqual((e["method"], e["line"]), ("lambda$monitors$0", line("contended-at")))

    # ---- co-located events ----

    def test_breakpoint_on_first_line_with_method_entry_is_one_composite(self):
        s = self.session("first")
        entry = s.set(EventKind.METHOD_ENTRY, SuspendPolicy.NONE, s.class_match(FIXTURE))
        bp = s.breakpoint_at("first", "first-line")
        composites = s.run()
        kinds = [[(e["kind"], e["request"], e["method"]) for e in events] for _, events in composites]
        self.assertEqual(kinds, [
            [(EventKind.METHOD_ENTRY, entry, "<clinit>")],
            [(EventKind.METHOD_ENTRY, entry, "main")],
            [(EventKind.METHOD_ENTRY, entry, "first"), (EventKind.BREAKPOINT, bp, "first")],
        ])
        self.assertEqual(composites[2][0], SuspendPolicy.ALL)

    def test_step_landing_on_breakpoint_is_one_composite(self):
        s = self.session("first")
        bp1 = s.breakpoint_at("first", "first-line")
        bp2 = s.breakpoint_at("first", "second-line")
        step = []

        def step_over(policy, events):
            if events[0]["kind"] == EventKind.BREAKPOINT and events[0]["request"] == bp1:
                step.append(s.set(EventKind.SINGLE_STEP, SuspendPolicy.ALL,
                                  bytes([ModKind.Step]) + s.c.object_id(events[0]["thread"]) + i32(1) + i32(1)))
            elif events[0]["kind"] == EventKind.SINGLE_STEP:
                s.clear(EventKind.SINGLE_STEP, step[0])

        composites = s.run(step_over)
        kinds = [[(e["kind"], e["request"], e["line"]) for e in events] for _, events in composites]
        self.assertEqual(kinds, [
            [(EventKind.BREAKPOINT, bp1, line("first-line"))],
            [(EventKind.SINGLE_STEP, step[0], line("second-line")), (EventKind.BREAKPOINT, bp2, line("second-line"))],
        ])

    def test_step_into_with_method_entry(self):
        s = self.session("first")
        bp = s.breakpoint_at("main", "call-first")
        step = []

        def step_into(policy, events):
            if events[-1]["kind"] == EventKind.BREAKPOINT and events[-1]["request"] == bp:
                s.set(EventKind.METHOD_ENTRY, SuspendPolicy.NONE, s.class_match(FIXTURE))
                step.append(s.set(EventKind.SINGLE_STEP, SuspendPolicy.ALL,
                                  bytes([ModKind.Step]) + s.c.object_id(events[0]["thread"]) + i32(1) + i32(0)))
            elif any(e["kind"] == EventKind.SINGLE_STEP for e in events):
                s.clear(EventKind.SINGLE_STEP, step[0])

        composites = s.run(step_into)
        got = [[(e["kind"], e["method"], e["line"]) for e in events] for _, events in composites]
        self.assertEqual(got, [
            [(EventKind.BREAKPOINT, "main", line("call-first"))],
            [(EventKind.METHOD_ENTRY, "first", line("first-line")),
             (EventKind.SINGLE_STEP, "first", line("first-line"))],
        ])
        self.assertEqual(composites[1][0], SuspendPolicy.ALL)

    def test_instance_only_on_method_events(self):
        s = self.session("methods")
        holder = {}

        def on_event(policy, events):
            e = events[0]
            if e["kind"] == EventKind.METHOD_EXIT and e["method"] == "<init>":
                # `this` of the constructed object, from the suspended frame.
                frame = s.c.frames(e["thread"], 0, 1)[0][0]
                this = s.c.ok(StackFrame.ThisObject, s.c.object_id(e["thread"]) + s.c.frame_id(frame)).value()
                only = bytes([ModKind.InstanceOnly]) + s.c.object_id(this[1])
                holder["entry"] = s.set(EventKind.METHOD_ENTRY, SuspendPolicy.NONE, only, s.class_match(FIXTURE))
                holder["exit"] = s.set(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SuspendPolicy.NONE, only,
                                       s.class_match(FIXTURE))

        first_exits = s.set(EventKind.METHOD_EXIT, SuspendPolicy.ALL, s.class_match(FIXTURE),
                            bytes([ModKind.Count]) + i32(2))  # <clinit> skipped, <init> reported
        composites = s.run(on_event)
        got = [(e["kind"], e["method"], e.get("value")) for _, events in composites for e in events
               if e["request"] != first_exits]
        self.assertEqual([e["request"] for _, events in composites for e in events][0], first_exits)
        # As stock: static methods have no instance and pass an InstanceOnly filter.
        self.assertEqual(got, [
            (EventKind.METHOD_ENTRY, "twice", None), (EventKind.METHOD_EXIT_WITH_RETURN_VALUE, "twice", ("I", 42)),
            (EventKind.METHOD_ENTRY, "greet", None),
            (EventKind.METHOD_EXIT_WITH_RETURN_VALUE, "greet", ("s", got[3][2][1])),
            (EventKind.METHOD_ENTRY, "big", None), (EventKind.METHOD_EXIT_WITH_RETURN_VALUE, "big", ("J", 1 << 40)),
            (EventKind.METHOD_ENTRY, "thrower", None),
            (EventKind.METHOD_EXIT_WITH_RETURN_VALUE, "methods", ("V", None)),
            (EventKind.METHOD_EXIT_WITH_RETURN_VALUE, "main", ("V", None)),
        ])

    def test_class_unload(self):
        s = self.session("unload")
        unload = s.set(EventKind.CLASS_UNLOAD, SuspendPolicy.NONE, s.class_match("EventsUnload*"))
        excluded = s.set(EventKind.CLASS_UNLOAD, SuspendPolicy.NONE,
                         bytes([ModKind.ClassExclude]) + jdwp_string("EventsUnload*"))
        # Both agents learn of the unload from the GC's ObjectFree, which the VM
        # posts later, on its service thread, and report it from a Java thread's
        # next event: main may run to its end first. So main stops where Helper is
        # prepared (after the collection) and, until the unload has come, calls
        # System.gc() for the test: each call's MethodEntry is such a next event.
        helper = s.set(EventKind.CLASS_PREPARE, SuspendPolicy.ALL, s.class_match("EventsFixture$Helper"))
        gc_calls = []

        def unloaded() -> bool:
            return any(e["kind"] == EventKind.CLASS_UNLOAD and e["signature"] == "LEventsUnloadable;"
                       for data in s.c.events for e in s.parse(data)[1])

        def call_gc_until_unloaded(policy, events):
            if not any(e["kind"] == EventKind.CLASS_PREPARE and e["request"] == helper for e in events):
                return
            system = s.c.class_by_signature("Ljava/lang/System;")
            gc = s.c.method_named(system, "gc", "()V")
            thread = events[0]["thread"]
            entry = s.set(EventKind.METHOD_ENTRY, SuspendPolicy.NONE, s.class_only(system), s.thread_only(thread))
            deadline = time.monotonic() + READ_TIMEOUT_S
            while not unloaded() and time.monotonic() < deadline:
                r = s.c.ok(ClassType.InvokeMethod, s.c.type_id(system) + s.c.object_id(thread) + s.c.method_id(gc)
                           + i32(0) + i32(InvokeOptions.INVOKE_SINGLE_THREADED))
                gc_calls.append((r.value(), r.value()))
            s.clear(EventKind.METHOD_ENTRY, entry)

        composites = s.run(call_gc_until_unloaded)
        s.debuggee.wait_for_output(r"unloaded=true", 20)  # VMDeath may come before the pipe is read
        self.assertEqual(gc_calls, [(("V", None), ("L", 0))] * len(gc_calls))  # each returned, threw nothing
        unloads = [(e["request"], e["signature"]) for _, events in composites for e in events
                   if e["kind"] == EventKind.CLASS_UNLOAD]
        self.assertEqual([u for u in unloads if u[1] == "LEventsUnloadable;"], [(unload, "LEventsUnloadable;")])
        self.assertNotIn(excluded, [r for r, sig in unloads if sig == "LEventsUnloadable;"])

    def test_capabilities(self):
        s = self.session("first")
        r = s.c.ok(VirtualMachine.CapabilitiesNew)
        caps = [r.boolean() for _ in range(32)]
        # canWatchFieldModification, canWatchFieldAccess, canRequestMonitorEvents,
        # canUseSourceNameFilters: stock (JDK 17) says false for the last, though it filters.
        self.assertEqual([caps[0], caps[1], caps[16], caps[18]], [True, True, True, False])
        s.run()

    def test_breakpoints_in_code_the_agent_runs_are_not_reported(self):
        # The agent's command thread runs Java code for some commands (Version
        # reads System.getProperty, ModuleReference.Name calls Module.getName).
        # A SUSPEND_ALL breakpoint there, as an IDE user debugging the JDK may
        # set, must neither be reported for the agent's thread nor suspend
        # anything: stock reports no event in its own threads (but ClassPrepare).
        s = self.session("first")
        c = s.c
        targets = (("Ljava/lang/System;", "getProperty", "(Ljava/lang/String;)Ljava/lang/String;"),
                   ("Ljava/lang/Module;", "getName", "()Ljava/lang/String;"))
        requests = []
        for signature, name, method_signature in targets:
            type_id = c.class_by_signature(signature)
            method_id = c.method_named(type_id, name, method_signature)
            requests.append(s.set(EventKind.BREAKPOINT, SuspendPolicy.ALL, s.location_only(method_id, 0, type_id)))
        c.events.clear()
        r = c.ok(VirtualMachine.Version)
        r.string()
        self.assertEqual((r.int(), r.int()), (self.cfg.jdk_version, 0))
        module = c.ok(ReferenceType.Module, c.type_id(c.class_by_signature("Ljava/lang/String;"))).id()
        self.assertEqual(c.ok(ModuleReference.Name, c.object_id(module)).string(), "java.base")
        c.ok(VirtualMachine.Version)
        self.assertEqual(c.events, [], "an event came from the agent's own thread")
        for request in requests:
            s.clear(EventKind.BREAKPOINT, request)
        s.run()

    def test_breakpoint_on_return_and_method_exit_are_separate(self):
        s = self.session("twice")
        exit_request = s.set(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SuspendPolicy.ALL, s.class_match(FIXTURE))
        bp = s.breakpoint_at("twice", "return-twice")
        composites = s.run()
        got = [[(e["kind"], e["request"], e["method"], e["line"]) for e in events] for _, events in composites]
        self.assertEqual([g[0][:3] for g in got], [
            (EventKind.METHOD_EXIT_WITH_RETURN_VALUE, exit_request, "<clinit>"),
            (EventKind.METHOD_EXIT_WITH_RETURN_VALUE, exit_request, "<init>"),
            (EventKind.BREAKPOINT, bp, "twice"),
            (EventKind.METHOD_EXIT_WITH_RETURN_VALUE, exit_request, "twice"),
            (EventKind.METHOD_EXIT_WITH_RETURN_VALUE, exit_request, "main"),
        ])
        self.assertEqual([len(g) for g in got], [1] * 5)
        self.assertEqual(got[2][0][3], line("return-twice"))
        self.assertEqual(got[3][0][3], line("return-twice"))
        twice_exits = [events for _, events in composites if events[0]["method"] == "twice"
                       and events[0]["kind"] == EventKind.METHOD_EXIT_WITH_RETURN_VALUE]
        self.assertEqual(len(twice_exits), 1)
        self.assertEqual(twice_exits[0][0]["value"], ("I", 8))

    def test_several_requests_at_one_place_come_newest_first(self):
        # Several requests matching one event: one composite, newest request
        # first, as stock lists them (breakpoints at one location, class prepares).
        s = self.session("twice")
        bps = [s.breakpoint_at("twice", "return-twice") for _ in range(3)]
        composites = s.run()
        at_return = [[e["request"] for e in events] for _, events in composites
                     if events and events[0]["kind"] == EventKind.BREAKPOINT]
        self.assertEqual(at_return, [list(reversed(bps))])

        s = self.session("helper")
        prepares = [s.set(EventKind.CLASS_PREPARE, SuspendPolicy.NONE,
                          s.class_match("EventsFixture$Helper")) for _ in range(2)]
        composites = s.run()
        helper = [[e["request"] for e in events] for _, events in composites
                  if events and events[0].get("signature") == "LEventsFixture$Helper;"]
        self.assertEqual(helper, [list(reversed(prepares))])

    # ---- SourceNameMatch, Conditional ----

    def test_source_name_match_filters_class_prepare(self):
        s = self.session("helper")
        by_source = s.set(EventKind.CLASS_PREPARE, SuspendPolicy.NONE,
                          bytes([ModKind.SourceNameMatch]) + jdwp_string("*Fixture.java"))
        other = s.set(EventKind.CLASS_PREPARE, SuspendPolicy.NONE,
                      bytes([ModKind.SourceNameMatch]) + jdwp_string("Nothing*"))
        composites = s.run()
        prepared = [(e["request"], e["signature"]) for _, events in composites for e in events]
        self.assertIn((by_source, "LEventsFixture$Helper;"), prepared)
        self.assertTrue(all(r == by_source for r, _ in prepared), prepared)
        self.assertNotIn(other, [r for r, _ in prepared])

    def test_source_name_match_only_for_class_prepare_and_conditional(self):
        s = self.session("helper")
        error = s.set_request(EventKind.METHOD_ENTRY, SuspendPolicy.NONE,
                              bytes([ModKind.SourceNameMatch]) + jdwp_string("*.java"))[0]
        self.assertEqual(error, Error.ILLEGAL_ARGUMENT)
        # Conditional is reserved by the spec: stock accepts it and filters nothing.
        cond = s.set(EventKind.METHOD_ENTRY, SuspendPolicy.NONE, bytes([ModKind.Conditional]) + i32(5),
                     s.class_match("EventsFixture$Helper"))
        composites = s.run()
        self.assertEqual([(e["kind"], e["request"]) for _, events in composites for e in events],
                         [(EventKind.METHOD_ENTRY, cond)])


JDI_EXPECTED = [
    "ENTRY <clinit>", "EXIT <clinit> void line=4", "ENTRY main", "ENTRY methods", "ENTRY <init>",
    "MOD value 1 in <init> thread=main", "EXIT <init> void line=6", "ENTRY twice", "EXIT twice 42 line=9",
    "ENTRY greet", 'EXIT greet "hi bob" line=13', "ENTRY big", "EXIT big 1099511627776 line=17", "ENTRY thrower",
    "EXIT methods void line=46", "EXIT main void line=110",
]


PHASE_LINE_KINDS = ("PHASE", "WAIT", "WAITED", "CONTEND", "CONTENDED", "EXCEPTION", "BREAKPOINT", "ENTERED", "UNLOAD",
                    "UNEXPECTED")


class ThroughJdi(unittest.TestCase):
    """Events through the JDK's JDI and Eclipse's: method and field events
    (scenario "methods"), and monitor, exception, ClassUnload events and the
    modifiers in the phases of scenario "jdi" (see EventsJdi.Phases)."""

    def drive(self, scenario: str, eclipse: bool) -> tuple:
        cfg = harness.config()
        classpath, main = harness.jdi_driver(self, cfg, "eclipse" if eclipse else "jdk", "EventsJdi", "EventsEclipse")
        with harness.Debuggee(cfg, FIXTURE, args=[scenario]) as debuggee:
            rc, out, err = harness.run_java(cfg, ["-cp", os.pathsep.join(classpath)], main,
                                            [str(debuggee.port), scenario], timeout=120)
            report = f"--- stdout:\n{out}\n--- stderr:\n{err}\n--- debuggee:\n{debuggee.stdout}{debuggee.stderr}"
            if os.environ.get("EVENTS_DEBUG"):
                print(report, flush=True)
            self.assertEqual(rc, 0, report)
            return out, debuggee.stdout, report

    def check_methods(self, eclipse: bool):
        out, _, report = self.drive("methods", eclipse)
        self.assertIn("CAPS watch=true monitors=true returns=true", out, report)
        got = [l for l in out.splitlines() if l.split(" ")[0] in ("ENTRY", "EXIT", "MOD")]
        expected = [e.replace("line=46", f"line={line('methods-end')}").replace(
            "line=110", f"line={line('main-end')}") for e in JDI_EXPECTED]
        self.assertEqual(got, expected, report)

    def test_jdk_jdi(self):
        self.check_methods(eclipse=False)

    def test_eclipse_jdi(self):
        self.check_methods(eclipse=True)

    def check_phases(self, eclipse: bool):
        out, debuggee_out, report = self.drive("jdi", eclipse)
        self.assertIn("unloaded=true", debuggee_out, report)
        got = [l for l in out.splitlines() if l.split(" ")[0] in PHASE_LINE_KINDS]
        # contender.join() waits on the Thread object when the contender has not
        # ended yet (main's wait requests are filtered by thread, not by monitor).
        joins = [l for l in got if "monitor=java.lang.Thread" in l]
        if joins:
            self.assertEqual(joins, ["WAIT wait thread=main monitor=java.lang.Thread timeout=0",
                                     "WAITED waited thread=main monitor=java.lang.Thread timedout=false"], report)
        got = [l for l in got if l not in joins]
        contended = line("contended-at")
        expected = [
            # SUSPEND_ALL stops the bystander (Reference Handler) too.
            "PHASE monitors bystander-suspended=true",
            "WAIT wait thread=main monitor=lock timeout=5",
            "WAITED waited thread=main monitor=lock timedout=true",
            # SUSPEND_EVENT_THREAD: the contender is suspended, main (holding the lock, then joining) is not.
            f"CONTEND enter thread=contender monitor=lock line={contended} suspended=true main-suspended=false",
            f"CONTENDED entered thread=contender monitor=lock line={contended}",
            "PHASE exceptions bystander-suspended=true",
            # Boom requested caught-only: Boom and its subclass SubBoom when caught; the
            # catch location is the catch clause's line.
            f"EXCEPTION boom-caught EventsFixture$Boom thread=main line={line('throw-boom')} "
            f"catch={line('catch-boom')}",
            f"EXCEPTION boom-caught EventsFixture$SubBoom thread=main line={line('throw-subboom')} "
            f"catch={line('catch-subboom')}",
            # Count 2: the second of three Ticks only.
            f"EXCEPTION tick-count2 EventsFixture$Tick n=2 thread=main line={line('throw-tick')} "
            f"catch={line('catch-tick')}",
            # SubBoom requested uncaught-only: the one ending thread "dying", no catch location.
            f"EXCEPTION subboom-uncaught EventsFixture$SubBoom thread=dying line={line('throw-uncaught')} catch=null",
            "PHASE modifiers bystander-suspended=true",
            # InstanceOnly on the breakpoint: a.poke() twice, not b.poke(); entry and
            # breakpoint at the method's first line share a composite, entry first.
            "ENTERED entry-main EventsFixture.poke thread=main",
            f"BREAKPOINT poke-chosen poke value=10 line={line('poke')} suspended=true bystander-suspended=false",
            "ENTERED entry-main EventsFixture.poke thread=main",
            "ENTERED entry-main EventsFixture.poke thread=main",
            f"BREAKPOINT poke-chosen poke value=10 line={line('poke')} suspended=true bystander-suspended=false",
            "ENTERED entry-main EventsFixture.marks thread=main",
            f"BREAKPOINT mark-thread marks line={line('mark-thread')} suspended=true bystander-suspended=false",
            f"BREAKPOINT mark-none marks line={line('mark-none')} suspended=false bystander-suspended=false",
            # ThreadOnly main: not the worker's lambda and work().
            "ENTERED entry-main EventsFixture.work thread=main",
            # "EventsFixture$*" minus "*$Helper", "EventsFixture$Oth*" and lambda proxies.
            "ENTERED entry-nested EventsFixture$Third.trip thread=main",
            "ENTERED entry-main EventsFixture.phase thread=main",
            "ENTERED entry-main EventsFixture.phaseReached thread=main",
            "PHASE unload bystander-suspended=true",
            # Not to the request excluding "EventsUnload*"; reported before the next event.
            "UNLOAD unload EventsUnloadable",
            "PHASE end bystander-suspended=true",
        ]
        if eclipse:
            # Eclipse's JDI cannot decode MonitorWait/MonitorWaited (see EventsJdi.Phases).
            self.assertIn("SKIPPED monitor-wait", out, report)
            expected = [l for l in expected if l.split(" ")[0] not in ("WAIT", "WAITED")]
        self.assertEqual(got, expected, report)
        self.assertIn("RESULT ok", out, report)

    def test_jdk_jdi_phases(self):
        self.check_phases(eclipse=False)

    def test_eclipse_jdi_phases(self):
        self.check_phases(eclipse=True)


class EventsThroughJdiEdges(control_edges.ControlEdgesCase):
    """Field watches and ClassUnload through both JDIs (ControlEdgesJdi over ControlEdges)."""

    def test_watches_on_first_fields_of_two_classes(self):
        # A.a and B.b are each the first instance field of their class (same
        # offset, same jfieldID in HotSpot): each watch reports its own field only.
        self.run_scenario("watch", ["watch a=3 b=20", "done"])

    def test_class_unload_of_a_class_loaded_between_sessions(self):
        for client in control_edges.CLIENTS:
            with self.subTest(client=client):
                self.class_unload_between_sessions(client)

    def test_class_unload_of_a_class_loaded_after_a_suspend_timeout(self):
        # With suspend=y jdwpx tags the loaded classes before the Listening line
        # and keeps ClassPrepare on while it waits; when suspendtimeout= runs out
        # ClassPrepare goes off, so a class loaded then is tagged at the first
        # debugger's handshake, and its unload is reported.
        if self.cfg.agent != "ours":
            self.skipTest("jdwpx extension (suspendtimeout=)")
        options = "transport=dt_socket,server=y,suspend=y,suspendtimeout=500,address=127.0.0.1:0"
        with harness.Debuggee(self.cfg, "ControlEdges", args=["unload"], options=options) as debuggee:
            try:
                debuggee.wait_for_output(r"no debugger attached within 500 ms", 30, stream="stderr")
                control = int(debuggee.wait_for_output(r"(?m)^control (\d+)$", 30).group(1))
                with socket.create_connection(("127.0.0.1", control), timeout=10) as s:
                    s.sendall(b"\1")
                debuggee.wait_for_output(r"(?m)^loaded ControlEdgesUnloadable$", 30)
                self.drive("jdk", "unload-second", debuggee.port, control)
                debuggee.wait_for_output(r"(?m)^unloaded=true$", 30)
                self.assertEqual(debuggee.wait(30), 0)
            finally:
                self.reports.append(f"--- debuggee stdout:\n{debuggee.stdout}\n--- stderr:\n{debuggee.stderr}")


if __name__ == "__main__":
    harness.main()
