#!/usr/bin/env python3
"""EventRequest.Set as stock answers it and what its requests report, raw JDWP,
against ours and the JDK's agent (the oracle), on EventRequests.java.

    python3 integration/test_event_requests.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

Each case starts the fixture with one scenario (suspend=y), stops at the
breakpoint in ready() (where the objects to filter on exist), sets its requests
and runs to VMDeath, collecting every composite (test_events.Session.run).
  - every filter on every monitor event: stock matches the class filters of
    MonitorWait/Waited against the monitor's class, of the contended ones
    against the class of the code (eventHandler.c), and InstanceOnly against
    the top frame's `this`, native frames included (GetLocalInstance);
  - InstanceOnly on native methods: the receiver of a native frame;
  - requests for a running thread: stock suspends it for a step's start;
  - every event kind and every modifier per kind, as stock accepts or refuses;
  - requests whose Count is used up release what they hold in the VM: the
    method they stopped in gets compiled (-Xbatch -XX:+PrintCompilation).
EVENTS_DEBUG=1 prints every composite.
"""

from __future__ import annotations

import os
import unittest

import harness
from jdwp_client import (Client, ClassType, Error, EventKind, EventRequest, ModKind, StackFrame, SuspendPolicy,
                         VirtualMachine, i32, jdwp_string)
from test_events import READ_TIMEOUT_S
from test_events import Session as EventsSession

FIXTURE = "EventRequests"
SRC = "EventRequests.java"


def line(marker: str) -> int:
    return harness.fixture_line(SRC, "// @" + marker)


class Session(EventsSession):
    """EventRequests running `scenario`, stopped at the breakpoint in ready()
    (policy `ready_policy`); `statics` holds the fixture's static values by name."""

    def __init__(self, test, scenario: str, jvm_args=(), ready_policy: int = SuspendPolicy.ALL):
        self.source = SRC
        self.debuggee = harness.Debuggee(test.cfg, FIXTURE, args=[scenario], jvm_args=jvm_args)
        try:
            self.c = Client(self.debuggee.port, timeout=READ_TIMEOUT_S)
            self.c.wait_for_vm_start()
            self.c.events.clear()
            prepare = self.set(EventKind.CLASS_PREPARE, SuspendPolicy.ALL, self.class_match(FIXTURE))
            events = self.parse(self.resume_and_read_event())[1]
            assert events[0]["kind"] == EventKind.CLASS_PREPARE, events
            self.fixture = events[0]["type"]
            self.main_thread = events[0]["thread"]
            self.clear(EventKind.CLASS_PREPARE, prepare)
            self.fields = self.c.fields(self.fixture)
            self.methods = {m.id: m.name for m in self.c.methods(self.fixture)}
            self.method_ids = {m.name: m.id for m in self.c.methods(self.fixture)}
            self.line_tables = {}
            ready = self.breakpoint_at("ready", "ready", ready_policy)
            self.c.events.clear()
            events = self.parse(self.resume_and_read_event())[1]
            assert [e["kind"] for e in events] == [EventKind.BREAKPOINT], events
            self.clear(EventKind.BREAKPOINT, ready)
            self.c.events.clear()
            names = [n for n in ("lock", "owner", "mine", "other", "runner") if n in self.fields]
            values = self.c.static_values(self.fixture, [self.fields[n].id for n in names])
            self.statics = {n: v[1] for n, v in zip(names, values)}
        except BaseException:
            self.debuggee.__exit__(None, None, None)
            raise

    def resume_and_read_event(self) -> bytearray:
        """VirtualMachine.Resume, then the next event. The event may come before
        the Resume's reply (the resumed thread is quick): the client keeps it in
        .events while it waits for the reply, and read_event returns it first."""
        self.c.ok(VirtualMachine.Resume)
        return self.c.read_event()

    keeps_earlier_events = True  # a running thread's events come first

    def instance_only(self, object_id: int) -> bytes:
        return bytes([ModKind.InstanceOnly]) + self.c.object_id(object_id)

    def class_exclude(self, pattern: str) -> bytes:
        return bytes([ModKind.ClassExclude]) + jdwp_string(pattern)

    def count(self, n: int) -> bytes:
        return bytes([ModKind.Count]) + i32(n)

    def step(self, thread: int, size: int = 1, depth: int = 1) -> bytes:
        return bytes([ModKind.Step]) + self.c.object_id(thread) + i32(size) + i32(depth)

    def set_static(self, name: str, tag_and_value: bytes):
        field = self.fields[name].id
        self.c.ok(ClassType.SetValues, self.c.type_id(self.fixture) + i32(1) + self.c.field_id(field) + tag_and_value)


class EventRequestsTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()

    def setUp(self):
        self.sessions = []

    def tearDown(self):
        if harness.test_failed(self):
            for s in self.sessions:
                print(f"\n--- debuggee stdout:\n{s.debuggee.stdout[-4000:]}\n--- stderr:\n{s.debuggee.stderr[-4000:]}")

    def session(self, scenario: str, **kwargs) -> Session:
        s = Session(self, scenario, **kwargs)
        self.addCleanup(s.close)
        self.sessions.append(s)
        return s

    # ---- monitor events: every class filter, InstanceOnly and ThreadOnly ----

    def test_monitor_event_filters(self):
        s = self.session("monitors")
        lock, owner = s.statics["lock"], s.statics["owner"]
        lock_type = s.c.class_by_signature("LEventRequests$Lock;")
        object_type = s.c.class_by_signature("Ljava/lang/Object;")
        filters = {
            "only-lock": s.class_only(lock_type),
            "only-object": s.class_only(object_type),
            "only-code": s.class_only(s.fixture),
            "match-exact": s.class_match("EventRequests$Lock"),
            "match-star-first": s.class_match("*$Lock"),
            "match-star-last": s.class_match("EventRequests$L*"),
            "match-code": s.class_match("EventRequests"),
            "exclude-lock": s.class_exclude("EventRequests$Lock"),
            "exclude-code": s.class_exclude("EventRequests"),
            "instance-lock": s.instance_only(lock),
            "instance-owner": s.instance_only(owner),
            "thread-main": s.thread_only(s.main_thread),
        }
        kinds = (EventKind.MONITOR_WAIT, EventKind.MONITOR_WAITED, EventKind.MONITOR_CONTENDED_ENTER,
                 EventKind.MONITOR_CONTENDED_ENTERED)
        names = {}
        for kind in kinds:
            for name, modifier in filters.items():
                names[s.set(kind, SuspendPolicy.NONE, modifier)] = name
        composites = s.run()
        got = {kind: [] for kind in kinds}
        for _, events in composites:
            for e in events:
                # Other monitors (contender.join() on the Thread, the JDK's own
                # threads) are left out: only the lock's events are looked at.
                if e["object"] == ("L", lock):
                    got[e["kind"]].append(names[e["request"]])
        # Wait/Waited: the class filters see the monitor's class (EventRequests$Lock),
        # InstanceOnly the `this` of the top frame, the native Object.wait: the lock.
        on_monitor = ["only-lock", "only-object", "match-exact", "match-star-first", "match-star-last",
                      "exclude-code", "instance-lock", "thread-main"]
        # Contended: the class of the code (EventRequests.contend, on `owner`), in the contender.
        on_code = ["only-object", "only-code", "match-code", "exclude-lock", "instance-owner"]
        expected = {EventKind.MONITOR_WAIT: on_monitor, EventKind.MONITOR_WAITED: on_monitor,
                    EventKind.MONITOR_CONTENDED_ENTER: on_code, EventKind.MONITOR_CONTENDED_ENTERED: on_code}
        # Newest request first within a composite: compare as sets, then the counts.
        self.assertEqual({k: sorted(v) for k, v in got.items()}, {k: sorted(v) for k, v in expected.items()})
        contended = [e for _, events in composites for e in events
                     if e["kind"] == EventKind.MONITOR_CONTENDED_ENTER and e["object"] == ("L", lock)]
        self.assertEqual({(e["method"], e["line"]) for e in contended}, {("contend", line("contended-at"))})

    # ---- InstanceOnly and native frames ----

    def test_instance_only_sees_the_receiver_of_native_methods(self):
        s = self.session("natives")
        mine = s.statics["mine"]
        object_type = s.c.class_by_signature("Ljava/lang/Object;")
        object_methods = {m.id: m.name for m in s.c.methods(object_type)}
        entry = s.set(EventKind.METHOD_ENTRY, SuspendPolicy.NONE, s.instance_only(mine),
                      s.class_match("java.lang.Object"),
                      s.thread_only(s.main_thread))
        composites = s.run()
        got = [object_methods.get(e["location"][2]) for _, events in composites for e in events
               if e["request"] == entry]
        # other.hashCode() and other.getClass() (native, another receiver) and
        # other.equals() are not reported; the same calls on `mine` are.
        self.assertEqual(got, ["hashCode", "equals", "getClass"])
        for _, events in composites:
            for e in events:
                if object_methods.get(e["location"][2]) in ("hashCode", "getClass"):
                    self.assertEqual(e["location"][3], -1, e)  # a native method's entry: index -1

    # ---- requests for a thread that runs ----

    def test_step_method_entry_and_breakpoint_for_a_running_thread(self):
        # The ready() breakpoint suspends main alone: runner spins, never suspended.
        s = self.session("running", ready_policy=SuspendPolicy.EVENT_THREAD)
        runner = s.statics["runner"]
        spin = s.method_ids["spin"]
        entry = s.set(EventKind.METHOD_ENTRY, SuspendPolicy.NONE, s.thread_only(runner), s.class_match(FIXTURE))
        error, r = s.set_request(EventKind.SINGLE_STEP, SuspendPolicy.ALL, s.step(runner))
        self.assertEqual(error, Error.NONE)  # stock suspends the thread for the step's start
        step = r.int()
        bp = s.set(EventKind.BREAKPOINT, SuspendPolicy.ALL, s.location_only(spin, s.index_of_line(spin, line("spin"))),
                   s.thread_only(runner))
        finish = s.breakpoint_at("finish", "finish")
        ended = {}

        def on_event(policy, events):
            if any(e["request"] == step for e in events):
                ended.setdefault("step", events)
                s.clear(EventKind.SINGLE_STEP, step)
                s.clear(EventKind.BREAKPOINT, bp)
                s.clear(EventKind.METHOD_ENTRY, entry)
                s.set_static("stop", bytes([1]))  # untagged boolean true
            elif any(e["request"] == finish for e in events):
                # runner has ended: a step for it is refused as stock does.
                ended["dead"] = s.set_request(EventKind.SINGLE_STEP, SuspendPolicy.ALL, s.step(runner))[0]

        s.run(on_event)
        self.assertIn("step", ended)
        stepped = [e for e in ended["step"] if e["kind"] == EventKind.SINGLE_STEP]
        self.assertEqual(len(stepped), 1)
        self.assertEqual(stepped[0]["thread"], runner)
        # Wherever runner was when the step began: spin's return (its closing brace) too,
        # where the stock agent on JDK 25 once ended it.
        self.assertIn(stepped[0]["line"], (line("spin"), line("spin-next"), line("spin-end"), line("runner-loop"),
                                              line("runner-call")))
        self.assertEqual(ended["dead"], Error.INVALID_THREAD)

    # ---- every event kind, and every modifier per kind ----

    def test_every_event_kind_as_stock(self):
        s = self.session("kinds")
        internal = 113  # stock's answer to a request it cannot install (see below)
        bad_request = internal if self.cfg.agent == "stock" else Error.ILLEGAL_ARGUMENT
        expected = {
            0: Error.INVALID_EVENT_TYPE,
            EventKind.SINGLE_STEP: Error.NONE,  # without a Step modifier: accepted, never reports
            # Without LocationOnly / FieldOnly stock answers INTERNAL, an error the
            # spec keeps for agent faults; ours names the bad request.
            EventKind.BREAKPOINT: bad_request,
            3: Error.INVALID_EVENT_TYPE,  # FRAME_POP: stock has no handler for it
            4: Error.NONE,  # EXCEPTION
            5: Error.INVALID_EVENT_TYPE,  # USER_DEFINED
            6: Error.NONE, 7: Error.NONE, 8: Error.NONE, 9: Error.NONE,  # THREAD_START/DEATH, CLASS_PREPARE/UNLOAD
            10: Error.INVALID_EVENT_TYPE,  # CLASS_LOAD
            11: Error.INVALID_EVENT_TYPE,
            20: bad_request, 21: bad_request,  # FIELD_ACCESS/MODIFICATION without FieldOnly
            30: Error.INVALID_EVENT_TYPE,  # EXCEPTION_CATCH
            40: Error.NONE, 41: Error.NONE, 42: Error.NONE,
            43: Error.NONE, 44: Error.NONE, 45: Error.NONE, 46: Error.NONE,
            47: Error.INVALID_EVENT_TYPE,
            EventKind.VM_START: Error.NONE,  # the VM has started: accepted, nothing reported
            99: Error.NONE,  # VM_DEATH
            100: Error.INVALID_EVENT_TYPE,  # VM_DISCONNECTED is JDI's own, never requested
            255: Error.INVALID_EVENT_TYPE,
        }
        got = {}
        ids = []
        for kind in expected:
            error, r = s.set_request(kind, SuspendPolicy.NONE)
            got[kind] = error
            if error == Error.NONE:
                ids.append(r.int())
                s.clear(kind, ids[-1])
        self.assertEqual(got, expected)
        # VM_START with filters (stock does not even read them); its ID is a new one.
        error, r = s.set_request(EventKind.VM_START, SuspendPolicy.ALL, s.count(1), s.thread_only(s.main_thread))
        self.assertEqual(error, Error.NONE)
        vm_start = r.int()
        self.assertNotIn(vm_start, ids)
        composites = s.run()
        # Nothing was left behind, and no second VMStart comes.
        self.assertEqual(composites, [])

    def test_every_modifier_on_every_kind_as_stock(self):
        s = self.session("kinds")
        ready = s.method_ids["ready"]
        counter = s.fields["counter"].id
        M, K = ModKind, EventKind
        modifiers = {
            M.Count: s.count(5),
            M.Conditional: bytes([M.Conditional]) + i32(1),
            M.ThreadOnly: s.thread_only(s.main_thread),
            M.ClassOnly: s.class_only(s.fixture),
            M.ClassMatch: s.class_match("Nothing"),
            M.ClassExclude: s.class_exclude("Nothing"),
            M.LocationOnly: s.location_only(ready, 0),
            # Any exception, caught and uncaught.
            M.ExceptionOnly: bytes([M.ExceptionOnly]) + s.c.type_id(0) + bytes([1, 1]),
            M.FieldOnly: s.field_only(s.fixture, counter),
            M.Step: s.step(s.main_thread),
            M.InstanceOnly: s.instance_only(s.main_thread),
            M.SourceNameMatch: bytes([M.SourceNameMatch]) + jdwp_string("Nothing.java"),
            M.PlatformThreadsOnly: bytes([M.PlatformThreadsOnly]),  # JDWP 21
        }
        # What a request of the kind cannot do without.
        base = {K.BREAKPOINT: [s.location_only(ready, 0)], K.FIELD_ACCESS: [s.field_only(s.fixture, counter)],
                K.FIELD_MODIFICATION: [s.field_only(s.fixture, counter)]}
        thread_kinds, field_kinds = (K.THREAD_START, K.THREAD_DEATH), (K.FIELD_ACCESS, K.FIELD_MODIFICATION)
        allowed = {
            M.ThreadOnly: lambda k: k != K.CLASS_UNLOAD,
            M.ClassOnly: lambda k: k not in thread_kinds and k != K.CLASS_UNLOAD,
            M.ClassMatch: lambda k: k not in thread_kinds,
            M.ClassExclude: lambda k: k not in thread_kinds,
            M.LocationOnly: lambda k: k in (K.BREAKPOINT, K.SINGLE_STEP, K.EXCEPTION) + field_kinds,
            M.ExceptionOnly: lambda k: k == K.EXCEPTION,
            M.FieldOnly: lambda k: k in field_kinds,
            M.Step: lambda k: k == K.SINGLE_STEP,
            M.SourceNameMatch: lambda k: k == K.CLASS_PREPARE,
            M.PlatformThreadsOnly: lambda k: self.cfg.jdk_version >= 21 and k in thread_kinds,
        }
        got, expected = {}, {}
        for kind in (K.SINGLE_STEP, K.BREAKPOINT, K.EXCEPTION, K.THREAD_START, K.THREAD_DEATH, K.CLASS_PREPARE,
                     K.CLASS_UNLOAD, K.FIELD_ACCESS, K.FIELD_MODIFICATION, K.METHOD_ENTRY, K.METHOD_EXIT,
                     K.METHOD_EXIT_WITH_RETURN_VALUE, K.MONITOR_CONTENDED_ENTER, K.MONITOR_CONTENDED_ENTERED,
                     K.MONITOR_WAIT, K.MONITOR_WAITED, K.VM_DEATH):
            for select, modifier in modifiers.items():
                error, r = s.set_request(kind, SuspendPolicy.NONE, *base.get(kind, []), modifier)
                got[(kind, select)] = error
                expected[(kind, select)] = Error.NONE if allowed.get(select, lambda k: True)(kind) \
                    else Error.ILLEGAL_ARGUMENT
                if error == Error.NONE:
                    s.clear(kind, r.int())
        self.assertEqual({k: v for k, v in got.items() if v != expected[k]}, {})
        s.run()

    # ---- requests whose Count ran out ----

    def expiry_session(self):
        # -Xbatch: a method is compiled when its counters say so, the caller
        # waiting; -XX:+PrintCompilation names it on stdout. A method with a
        # breakpoint is never compiled, and a thread with method or field
        # events enabled runs interpreted (and compiles nothing).
        return self.session("expiry", jvm_args=["-Xbatch", "-XX:+PrintCompilation"])

    def assert_compiled(self, s):
        s.debuggee.wait_for_output(r"expiry sum=5000050000", 20)  # VMDeath may come before the pipe is read
        self.assertRegex(s.debuggee.stdout, r"EventRequests::tiny \(")

    def test_expired_breakpoints_leave_the_method_compiled(self):
        s = self.expiry_session()
        tiny = s.method_ids["tiny"]
        at_tiny = s.location_only(tiny, s.index_of_line(tiny, line("tiny")))
        once = s.set(EventKind.BREAKPOINT, SuspendPolicy.ALL, at_tiny, s.count(1))
        third = s.set(EventKind.BREAKPOINT, SuspendPolicy.ALL, s.count(3),
                      at_tiny)  # the same place: the JVMTI breakpoint is shared
        after = s.breakpoint_at("expiry", "after-loop")  # another request, never expiring
        value = s.fields["value"].id
        seen = []

        def on_event(policy, events):
            for e in events:
                seen.append((e["request"], s.c.static_values(s.fixture, [value])[0][1]))
            if any(e["request"] == third for e in events):
                s.clear(EventKind.BREAKPOINT, once)  # expired: already gone, no error

        s.run(on_event)
        # tiny(0) (value still 0), tiny(2) (value 1), then after the loop (value 99999).
        self.assertEqual(seen, [(once, 0), (third, 1), (after, 99999)])
        self.assert_compiled(s)

    def test_expired_method_entry_leaves_the_method_compiled(self):
        # Filtered to a class (ours serves it with a breakpoint at each method's
        # start), and filtered to the thread only (the VM's MethodEntry events).
        for name, filters in (("class", lambda s: [s.class_match(FIXTURE)]),
                              ("thread", lambda s: [s.thread_only(s.main_thread)])):
            with self.subTest(filter=name):
                s = self.expiry_session()
                entry = s.set(EventKind.METHOD_ENTRY, SuspendPolicy.ALL, *filters(s), s.count(1))
                composites = s.run()
                got = [(e["request"], e["method"]) for _, events in composites for e in events]
                self.assertEqual(got, [(entry, "tiny")])
                self.assert_compiled(s)

    def test_expired_modification_watch_leaves_the_method_compiled(self):
        s = self.expiry_session()
        watch = s.set(EventKind.FIELD_MODIFICATION, SuspendPolicy.ALL, s.field_only(s.fixture, s.fields["value"].id),
                      s.count(1))
        composites = s.run()
        got = [(e["request"], e["method"], e["value"]) for _, events in composites for e in events]
        self.assertEqual(got, [(watch, "tiny", ("I", 0))])
        self.assert_compiled(s)

    def test_expired_line_step_leaves_the_method_compiled(self):
        s = self.expiry_session()
        step = s.set(EventKind.SINGLE_STEP, SuspendPolicy.ALL, s.step(s.main_thread), s.count(1))
        composites = s.run()
        got = [(e["request"], e["method"]) for _, events in composites for e in events]
        self.assertEqual(got, [(step, "ready")])  # the next line of ready(): its end
        self.assert_compiled(s)

    # ---- a step after a step: what a debugger stepping line by line sends at each
    # step event (Clear, maybe something else, Set, Resume). Ours leaves the
    # thread's single stepping on while it waits at the event (single_step_modes.h):
    # the next step must go on from there, and a thread resumed without one must
    # meet no further step and run at full speed (tiny() gets compiled; ours only,
    # see run_step_chain).

    def run_step_chain(self, policy: int, between) -> list:
        """Steps over twice from the breakpoint in ready() (the first with a Count
        of 1, the second cleared at its event), calling between(s, thread) at the
        first step's event before the second step is set; then the thread runs
        with no step. Returns [(request, method)] of every event."""
        s = self.expiry_session()
        steps = [s.set(EventKind.SINGLE_STEP, policy, s.step(s.main_thread), s.count(1))]
        got = []

        def on_event(_, events):
            got.extend((e["request"], e.get("method")) for e in events)
            if events[0]["request"] == steps[0]:
                s.clear(EventKind.SINGLE_STEP, steps[0])  # expired: already gone
                depth = between(s, events[0]["thread"])
                steps.append(s.set(EventKind.SINGLE_STEP, policy, s.step(s.main_thread, depth=depth)))
            elif events[0]["request"] == steps[-1]:
                s.clear(EventKind.SINGLE_STEP, steps[-1])

        s.run(on_event)
        if self.cfg.agent == "ours":
            self.assert_compiled(s)
        else:
            # Stock keeps the thread interpreted: the FramePop it asks for on the
            # frame a step starts in (expiry(), which runs on) stays pending, and
            # JVMTI interprets a thread with one. The events are stock's all the same.
            s.debuggee.wait_for_output(r"expiry sum=5000050000", 20)
        return [(steps.index(r) if r in steps else r, m) for r, m in got]

    def test_steps_in_a_row_then_no_step_leave_the_method_compiled(self):
        for name, policy in (("event-thread", SuspendPolicy.EVENT_THREAD), ("all", SuspendPolicy.ALL)):
            with self.subTest(policy=name):
                got = self.run_step_chain(policy, lambda s, thread: 1)
                # ready()'s end, then over its return into expiry().
                self.assertEqual(got, [(0, "ready"), (1, "expiry")])

    def test_look_at_the_stop_between_two_steps(self):
        def read_frames(s, thread):
            # Not a stepping command: what the ended step left on goes off, and the next step turns it on.
            self.assertEqual([f[1][2] for f in s.c.frames(thread, 0, 2)],
                             [s.method_ids["ready"], s.method_ids["expiry"]])
            return 1

        got = self.run_step_chain(SuspendPolicy.EVENT_THREAD, read_frames)
        self.assertEqual(got, [(0, "ready"), (1, "expiry")])

    def test_step_out_after_a_step(self):
        got = self.run_step_chain(SuspendPolicy.EVENT_THREAD, lambda s, thread: 2)
        self.assertEqual(got, [(0, "ready"), (1, "expiry")])

    def test_invoke_between_two_steps(self):
        def invoke_tiny(s, thread):
            r = s.c.ok(ClassType.InvokeMethod, s.c.type_id(s.fixture) + s.c.object_id(thread) +
                       s.c.method_id(s.method_ids["tiny"]) + i32(1) + b"I" + i32(41) + i32(1))
            self.assertEqual(r.value(), ("I", 42))
            self.assertEqual(r.value(), ("L", 0))  # no exception
            return 1

        # No step event from the invoked code (the ended step's), and the next
        # step goes on from where the thread waits.
        got = self.run_step_chain(SuspendPolicy.EVENT_THREAD, invoke_tiny)
        self.assertEqual(got, [(0, "ready"), (1, "expiry")])

    def test_pop_frames_between_two_steps(self):
        def pop_ready(s, thread):
            frame = s.c.frames(thread, 0, 1)[0][0]
            s.c.ok(StackFrame.PopFrames, s.c.object_id(thread) + s.c.encode_id(frame, "frame"))
            return 1

        # ready() popped: the thread is back at its call in expiry(), and steps over it.
        got = self.run_step_chain(SuspendPolicy.EVENT_THREAD, pop_ready)
        self.assertEqual(got, [(0, "ready"), (1, "expiry")])


if __name__ == "__main__":
    harness.main()
