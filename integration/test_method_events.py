#!/usr/bin/env python3
"""Method events filtered to classes, as an IDE's method breakpoint asks for them.

    python3 integration/test_method_events.py --agent {ours,stock} --agent-lib PATH \\
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

MethodEntry, MethodExit and MethodExitWithReturnValue requests with ClassMatch
or ClassOnly filters, over fixtures/MethodEvents.java, raw JDWP (test_events'
Session). Each test lists the events in the order they came and compares them
with what the JDWP spec and stock give: a branch back to a method's first
instruction is no entry; a frame running when the request is made reports its
exit but no entry; subclasses and interfaces under ClassOnly; a class loaded
after the request; a class with a native method; recursion; an exit by an
exception reports nothing; a redefinition in the middle changes nothing. The
same expectations hold for ours and stock, on every JDK. MethodEntryWhileStepping
runs jdi/ControlEdgesJdi.java's "sleep" through both JDIs (control_edges.py): a
native method's entry reported while a step is active.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import time
import unittest

import control_edges
import harness
from jdwp_client import ClassType, EventKind, StackFrame, SuspendPolicy, ThreadReference, VirtualMachine, i32
from test_events import Session

FIXTURE = "MethodEvents"
SOURCE = "MethodEvents.java"
WAIT_S = 30
KIND_NAMES = {EventKind.METHOD_ENTRY: "E", EventKind.METHOD_EXIT: "X", EventKind.METHOD_EXIT_WITH_RETURN_VALUE: "V"}


class MethodEventsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()

    def session(self, scenario: str) -> Session:
        self.nested = {}  # type ID -> {method ID: "Simple.name"} of nested classes
        s = Session(self, scenario, fixture=FIXTURE, source=SOURCE)
        self.addCleanup(s.close)
        return s

    def describe(self, s: Session, events) -> list:
        """'E name', 'X name' or 'V name=value' per method event; the declaring
        type's simple name is added for nested classes."""
        out = []
        for e in events:
            if e["kind"] not in KIND_NAMES:
                continue
            type_id, method_id = e["location"][1], e["location"][2]
            name = s.methods.get(method_id)
            if name is None:
                # Read while the VM waits: the tests' requests on nested classes suspend.
                if type_id not in self.nested:
                    simple = s.c.signature(type_id)[1:-1].split("$")[-1]
                    self.nested[type_id] = {m.id: f"{simple}.{m.name}" for m in s.c.methods(type_id)}
                name = self.nested[type_id].get(method_id, "?")
            text = f"{KIND_NAMES[e['kind']]} {name}"
            if e["kind"] == EventKind.METHOD_EXIT_WITH_RETURN_VALUE and e["value"][0] in "IJZ":
                text += f"={e['value'][1]}"
            out.append(text)
        return out

    def collect(self, s: Session, on_event=None) -> list:
        """Runs to VMDeath; the method events as describe() puts them."""
        got = []

        def each(policy, events):
            got.extend(self.describe(s, events))
            if on_event:
                on_event(policy, events)

        s.run(each)
        return got

    def test_calls(self):
        s = self.session("calls")
        s.set(EventKind.METHOD_ENTRY, SuspendPolicy.NONE, s.class_match(FIXTURE))
        s.set(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SuspendPolicy.EVENT_THREAD, s.class_match(FIXTURE))
        self.assertEqual(self.collect(s), [
            "E main", "E calls",
            "E leaf", "V leaf=2",
            "E <init>", "V <init>", "E twice", "E leaf", "V leaf=3", "V twice=6",
            "E recurse", "E recurse", "E recurse", "E recurse",
            "V recurse=0", "V recurse=1", "V recurse=2", "V recurse=3",
            # throwsOut ends by an exception: no exit.
            "E catches", "E throwsOut", "V catches=-1",
            # Loops whose head is the first instruction: one entry each.
            "E doWhileAtStart", "V doWhileAtStart=0",
            "E forEverAtStart", "V forEverAtStart",
            "V calls", "V main",
        ])

    def test_calls_with_a_redefinition_in_the_middle(self):
        # The class redefined with its own bytes at the first entry of leaf: the
        # events go on as before.
        s = self.session("calls")
        with open(os.path.join(self.cfg.classes_dir, f"{FIXTURE}.class"), "rb") as f:
            class_bytes = f.read()
        entry = s.set(EventKind.METHOD_ENTRY, SuspendPolicy.ALL, s.class_match(FIXTURE))
        s.set(EventKind.METHOD_EXIT, SuspendPolicy.NONE, s.class_match(FIXTURE))
        redefined = []

        def redefine_at_leaf(policy, events):
            if not redefined and any(e["request"] == entry and s.methods.get(e["location"][2]) == "leaf"
                                     for e in events):
                body = i32(1) + s.c.type_id(s.fixture) + i32(len(class_bytes)) + class_bytes
                s.c.ok(VirtualMachine.RedefineClasses, body)
                redefined.append(True)

        got = self.collect(s, redefine_at_leaf)
        self.assertEqual(redefined, [True])
        self.assertEqual(got, [
            "E main", "E calls", "E leaf", "X leaf", "E <init>", "X <init>", "E twice", "E leaf", "X leaf", "X twice",
            "E recurse", "E recurse", "E recurse", "E recurse", "X recurse", "X recurse", "X recurse", "X recurse",
            "E catches", "E throwsOut", "X catches", "E doWhileAtStart", "X doWhileAtStart",
            "E forEverAtStart", "X forEverAtStart", "X calls", "X main",
        ])

    def test_frames_running_when_the_request_is_made(self):
        self.check_frames_running(vm_suspended=True)

    def test_frames_running_when_the_request_is_made_with_the_vm_running(self):
        self.check_frames_running(vm_suspended=False)

    def check_frames_running(self, vm_suspended: bool):
        # waitInside loops at its first instruction; the requests come while it
        # runs: its exit is reported (and inside's, main's), no entry of it.
        s = self.session("inside")
        for method_id in s.methods:
            s.line_table(method_id)
        state = s.fields["state"].id
        s.c.ok(VirtualMachine.Resume)
        deadline = time.monotonic() + WAIT_S
        while s.c.static_values(s.fixture, [state])[0][1] != 1:
            self.assertLess(time.monotonic(), deadline, "waitInside did not start")
        if vm_suspended:
            s.c.ok(VirtualMachine.Suspend)
        s.set(EventKind.METHOD_ENTRY, SuspendPolicy.NONE, s.class_match(FIXTURE))
        s.set(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SuspendPolicy.NONE, s.class_match(FIXTURE))
        s.c.events.clear()
        s.c.ok(ClassType.SetValues, s.c.type_id(s.fixture) + i32(1) + s.c.field_id(state) + i32(2))
        if vm_suspended:
            s.c.ok(VirtualMachine.Resume)
        self.assertEqual(self.collect_to_the_end(s), ["V waitInside", "E leaf", "V leaf=8", "V inside", "V main"])

    def test_class_filter_over_a_hierarchy(self):
        # ClassOnly(Base) matches methods declared in Base and Derived; ClassOnly
        # (Greeter) those of Greeter (its default method) and of its implementors.
        s = self.session("hierarchy")
        prepared = s.set(EventKind.CLASS_PREPARE, SuspendPolicy.ALL, s.class_match(f"{FIXTURE}$Base"))
        requests = {}

        def on_prepare(policy, events):
            if events[0]["kind"] == EventKind.CLASS_PREPARE and events[0]["request"] == prepared:
                base = s.c.class_by_signature(f"L{FIXTURE}$Base;")
                greeter = s.c.class_by_signature(f"L{FIXTURE}$Greeter;")
                requests[s.set(EventKind.METHOD_ENTRY, SuspendPolicy.ALL, s.class_only(base))] = "base"
                requests[s.set(EventKind.METHOD_EXIT, SuspendPolicy.ALL, s.class_only(base))] = "base"
                requests[s.set(EventKind.METHOD_ENTRY, SuspendPolicy.ALL, s.class_only(greeter))] = "greeter"

        got = []

        def record(policy, events):
            on_prepare(policy, events)
            for e, text in zip([e for e in events if e["kind"] in KIND_NAMES], self.describe(s, events)):
                got.append(f"{requests[e['request']]}: {text}")

        s.run(record)
        self.assertEqual(got, [
            # new Derived(): Derived.<init> calls Base.<init>.
            "greeter: E Derived.<init>", "base: E Derived.<init>",
            "greeter: E Base.<init>", "base: E Base.<init>", "base: X Base.<init>", "base: X Derived.<init>",
            # greet() is Greeter's: only the Greeter request; it calls Derived.name.
            "greeter: E Greeter.greet",
            "greeter: E Derived.name", "base: E Derived.name", "base: X Derived.name",
            "greeter: E Base.size", "base: E Base.size", "base: X Base.size",
            "greeter: E Base.<init>", "base: E Base.<init>", "base: X Base.<init>",
            "greeter: E Base.name", "base: E Base.name", "base: X Base.name",
        ])

    def test_a_class_loaded_after_the_request(self):
        s = self.session("late")
        s.set(EventKind.METHOD_ENTRY, SuspendPolicy.ALL, s.class_match(f"{FIXTURE}$*"))
        s.set(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SuspendPolicy.ALL, s.class_match(f"{FIXTURE}$*"))
        self.assertEqual(self.collect(s), ["E Late.late", "V Late.late=6", "E Late.late", "V Late.late=12"])

    def test_a_class_with_a_native_method(self):
        s = self.session("native")
        s.set(EventKind.METHOD_ENTRY, SuspendPolicy.EVENT_THREAD, s.class_match(f"{FIXTURE}$WithNative"))
        s.set(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SuspendPolicy.ALL, s.class_match(f"{FIXTURE}$WithNative"))
        self.assertEqual(self.collect(s), [
            "E WithNative.plain", "V WithNative.plain=4", "E WithNative.plain", "V WithNative.plain=5"])

    def test_pop_frames_of_a_frame_whose_first_line_is_a_loop(self):
        # A breakpoint on popMe's first line (its loop's head, where the entry
        # hook is too). At its first hit the frame is popped: the call runs
        # again, a new entry; the loop going round later is none.
        s = self.session("pop")
        s.set(EventKind.METHOD_ENTRY, SuspendPolicy.NONE, s.class_match(FIXTURE))
        s.set(EventKind.METHOD_EXIT, SuspendPolicy.NONE, s.class_match(FIXTURE))
        s.breakpoint_at("popMe", "pop-loop")
        popped = []

        def pop_once(policy, events):
            if not popped and any(e["kind"] == EventKind.BREAKPOINT for e in events):
                thread = events[-1]["thread"]
                frame = s.c.frames(thread, 0, 1)[0][0]
                s.c.ok(StackFrame.PopFrames, s.c.object_id(thread) + s.c.frame_id(frame))
                popped.append(True)

        got = []

        def record(policy, events):
            got.append(" ".join(f"B {s.methods[e['location'][2]]}" if e["kind"] == EventKind.BREAKPOINT else text
                                for e, text in zip(events, self.describe_all(s, events))))
            pop_once(policy, events)

        s.run(record)
        self.assertEqual(popped, [True])
        self.assertEqual(got, ["E main", "E pop", "E popMe B popMe", "E popMe B popMe", "B popMe",
                               "X popMe", "X pop", "X main"])

    def test_several_threads_at_once(self):
        s = self.session("concurrent")
        s.set(EventKind.METHOD_ENTRY, SuspendPolicy.EVENT_THREAD, s.class_match(FIXTURE))
        s.set(EventKind.METHOD_EXIT, SuspendPolicy.NONE, s.class_match(FIXTURE))
        counts = {}

        def count(policy, events):
            for e in events:
                name = s.methods.get(e["location"][2], "?")
                key = (e["thread"], KIND_NAMES[e["kind"]], "lambda" if name.startswith("lambda$") else name)
                counts[key] = counts.get(key, 0) + 1

        # Each SUSPEND_EVENT_THREAD set resumes its own thread only (Session.run's
        # VirtualMachine.Resume would resume the other callers' too).
        for method_id in s.methods:
            s.line_table(method_id)
        s.c.events.clear()
        s.c.ok(VirtualMachine.Resume)
        while True:
            if not s.c.events:
                s.c.read_event()
            policy, events = s.parse(s.c.events.pop(0))
            if any(e["kind"] == EventKind.VM_DEATH for e in events):
                break
            count(policy, events)
            if policy == SuspendPolicy.EVENT_THREAD:
                s.c.ok(ThreadReference.Resume, s.c.object_id(events[0]["thread"]))
        per_thread = {}
        for (thread, kind, name), n in counts.items():
            per_thread.setdefault(thread, {})[f"{kind} {name}"] = n
        callers = [v for v in per_thread.values() if "E lambda" in v]
        self.assertEqual(len(callers), 4, per_thread)
        for caller in callers:
            self.assertEqual(caller, {"E lambda": 1, "X lambda": 1, "E leaf": 50, "X leaf": 50})

    def test_invoke_of_a_hooked_method(self):
        # Stopped at a breakpoint, the debugger calls leaf(41): its entry and exit
        # are reported during the call, which returns 42.
        s = self.session("invoke")
        bp = s.breakpoint_at("invokeHere", "invoke-here")
        result = []

        def invoke(policy, events):
            if result or not any(e["kind"] == EventKind.BREAKPOINT and e["request"] == bp for e in events):
                return
            s.set(EventKind.METHOD_ENTRY, SuspendPolicy.NONE, s.class_match(FIXTURE))
            s.set(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SuspendPolicy.NONE, s.class_match(FIXTURE))
            thread = events[0]["thread"]
            body = (s.c.type_id(s.fixture) + s.c.object_id(thread) + s.c.method_id(s.method_ids["leaf"]) + i32(1)
                    + b"I" + i32(41) + i32(1))  # INVOKE_SINGLE_THREADED
            r = s.c.ok(ClassType.InvokeMethod, body)
            result.append(r.value())

        got = self.collect(s, invoke)
        self.assertEqual(result, [("I", 42)])
        self.assertEqual(got, ["E leaf", "V leaf=42", "V invokeHere", "V main"])

    def test_a_virtual_thread(self):
        if self.cfg.jdk_version < 21:
            print(f"SKIPPED: virtual threads need JDK 21+ (this is JDK {self.cfg.jdk_version})", flush=True)
            self.skipTest("virtual threads need JDK 21+")
        s = self.session("virtual")
        s.set(EventKind.METHOD_ENTRY, SuspendPolicy.NONE, s.class_match(FIXTURE))
        s.set(EventKind.METHOD_EXIT_WITH_RETURN_VALUE, SuspendPolicy.NONE, s.class_match(FIXTURE))
        got = [g.split("$")[0] if g.startswith(("E lambda", "V lambda")) else g for g in self.collect(s)]
        self.assertEqual(got, ["E main", "E virtual", "E lambda", "E leaf", "V leaf=11", "E leaf", "V leaf=21",
                               "V lambda", "V virtual", "V main"])

    # -- a nested class, stopped in by a breakpoint --

    def stop_in(self, s: Session, nested: str, method: str, marker: str):
        """Resumes until `nested` is prepared, sets a SUSPEND_ALL breakpoint at the
        marked line of its `method`, resumes until the breakpoint: (type, thread,
        breakpoint request), the VM suspended."""
        s.set(EventKind.CLASS_PREPARE, SuspendPolicy.ALL, s.class_match(f"{FIXTURE}${nested}"))
        s.c.events.clear()
        s.c.ok(VirtualMachine.Resume)
        self.next_set(s, EventKind.CLASS_PREPARE)
        type_id = s.c.class_by_signature(f"L{FIXTURE}${nested};")
        method_id = s.c.method_named(type_id, method)
        index = s.c.code_index(type_id, method_id, harness.fixture_line(SOURCE, f"// @{marker}"))
        bp = s.set(EventKind.BREAKPOINT, SuspendPolicy.ALL, s.location_only(method_id, index, type_id))
        s.c.ok(VirtualMachine.Resume)
        events = self.next_set(s, EventKind.BREAKPOINT)
        return type_id, events[0]["thread"], bp

    def next_set(self, s: Session, kind: int) -> list:
        """The events of the next set holding an event of `kind`; others are resumed past."""
        while True:
            if not s.c.events:
                s.c.read_event()
            policy, events = s.parse(s.c.events.pop(0))
            if any(e["kind"] == kind for e in events):
                return events
            self.assertFalse(any(e["kind"] == EventKind.VM_DEATH for e in events),
                             f"the VM ended before event kind {kind}")
            if policy != SuspendPolicy.NONE:
                s.c.ok(VirtualMachine.Resume)

    def collect_to_the_end(self, s: Session) -> list:
        """The method events from now to VMDeath (suspending sets resumed)."""
        got = []
        while True:
            if not s.c.events:
                s.c.read_event()
            policy, events = s.parse(s.c.events.pop(0))
            if any(e["kind"] == EventKind.VM_DEATH for e in events):
                return got
            got.extend(self.describe(s, events))
            if policy != SuspendPolicy.NONE:
                s.c.ok(VirtualMachine.Resume)

    def test_a_method_breakpoint_switched_off_and_on_around_a_looping_method(self):
        # Stopped in Handler.poll (a loop at its start), method requests on
        # Handler come and go; poll returns; then they come again while the
        # thread waits outside it: every later call of poll is an entry and an exit.
        s = self.session("toggle")
        for method_id in s.methods:
            s.line_table(method_id)
        _, _, bp = self.stop_in(s, "Handler", "poll", "toggle-tick")
        handler = f"{FIXTURE}$Handler"
        requests = [(EventKind.METHOD_ENTRY, s.set(EventKind.METHOD_ENTRY, SuspendPolicy.ALL, s.class_match(handler))),
                    (EventKind.METHOD_EXIT, s.set(EventKind.METHOD_EXIT, SuspendPolicy.ALL, s.class_match(handler)))]
        for kind, request in requests:
            s.clear(kind, request)
        s.clear(EventKind.BREAKPOINT, bp)
        s.c.events.clear()
        s.c.ok(VirtualMachine.Resume)
        spinning = s.fields["spinning"].id
        deadline = time.monotonic() + WAIT_S
        while not s.c.static_values(s.fixture, [spinning])[0][1]:
            self.assertLess(time.monotonic(), deadline, "toggle did not get past its first poll")
        s.set(EventKind.METHOD_ENTRY, SuspendPolicy.ALL, s.class_match(handler))
        s.set(EventKind.METHOD_EXIT, SuspendPolicy.ALL, s.class_match(handler))
        s.c.ok(ClassType.SetValues, s.c.type_id(s.fixture) + i32(1) + s.c.field_id(s.fields["state"].id) + i32(2))
        one_call = ["E Handler.poll", "E Handler.tick", "X Handler.tick", "E Handler.tick", "X Handler.tick",
                    "X Handler.poll"]
        self.assertEqual(self.collect_to_the_end(s), one_call * 2)

    def test_a_redefinition_that_changes_a_running_method(self):
        # Stopped in Body.work's loop, Body is redefined with another body: the
        # running frame goes on in the old code and its exit is reported (its
        # method is obsolete); the next call runs the new code.
        s = self.session("hotswap")
        for method_id in s.methods:
            s.line_table(method_id)
        body = f"{FIXTURE}$Body"
        s.set(EventKind.METHOD_ENTRY, SuspendPolicy.ALL, s.class_match(body))
        s.set(EventKind.METHOD_EXIT, SuspendPolicy.ALL, s.class_match(body))
        type_id, _, bp = self.stop_in(s, "Body", "work", "body-change")
        changed = self.compile_variant("sink += 1;  // @body-change", "sink += 2;  // @body-change")
        with open(os.path.join(changed, f"{FIXTURE}$Body.class"), "rb") as f:
            class_bytes = f.read()
        s.c.ok(VirtualMachine.RedefineClasses, i32(1) + s.c.type_id(type_id) + i32(len(class_bytes)) + class_bytes)
        s.clear(EventKind.BREAKPOINT, bp)
        s.c.events.clear()
        s.c.ok(VirtualMachine.Resume)
        got = self.collect_to_the_end(s)
        self.assertEqual(got, ["X ?", "E Body.work", "X Body.work"])  # the obsolete method: no name
        s.debuggee.wait_for_output(r"method-events: done", WAIT_S)

    def compile_variant(self, old: str, new: str) -> str:
        """The fixture compiled with `old` replaced by `new` (same lines): its folder."""
        folder = tempfile.mkdtemp(prefix="method-events-")
        self.addCleanup(shutil.rmtree, folder, True)
        with open(os.path.join(harness.FIXTURES_SRC, SOURCE), encoding="utf-8") as f:
            text = f.read()
        self.assertEqual(text.count(old), 1)
        src = os.path.join(folder, SOURCE)
        with open(src, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new))
        subprocess.run([self.cfg.javac, "-g", "--release", "17", "-d", folder, src], check=True)
        return folder

    def describe_all(self, s: Session, events) -> list:
        """describe() of each method event, None for the others, in order."""
        texts = iter(self.describe(s, events))
        return [next(texts) if e["kind"] in KIND_NAMES else None for e in events]


class MethodEntryWhileStepping(control_edges.ControlEdgesCase):
    """Through both JDIs (ControlEdgesJdi over ControlEdges)."""

    def test_native_sleep_entry_is_reported_while_sleeping(self):
        # A MethodEntry request on java.lang.Thread while stepping over
        # Thread.sleep(300) reports the native sleep on entry (its frame on top),
        # not once it has returned.
        self.run_scenario("sleep", ["slept 2", "done"])


if __name__ == "__main__":
    harness.main()
