#!/usr/bin/env python3
"""Probes (issue 30): logpoints, conditions and snapshots that jdwpx evaluates
inside the VM, through the vendor Probe command set (128) with a raw client.

    python3 integration/test_probes.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

fixtures/ProbeTarget.java runs rounds of a method with locals, fields, strings
and collections when told on stdin; the test sets probes at its marked lines
and reads what the agent sends: each log line's exact message, snapshots'
frames and values, notices (evaluation errors, a deferred probe armed, a probe
done or paused by its CPU budget), List's counters. The stock agent has no
probes: against it the test checks that the set answers NOT_IMPLEMENTED and
the VM goes on (that is how jdwpx-probe tells a JVM without jdwpx).

No sleeps: every read has a timeout, and the program prints a line after each
round, so the test knows that the probe's hits are all behind it.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import unittest

import harness
from jdwp_client import (Client, Error, EventKind, EventRequest, ModKind, NoticeKind, Probe, ProbeKind, ProbeState,
                         Reader, SuspendPolicy, TypeTag, VirtualMachine, i32, i64, jdwp_string)

LINE = harness.fixture_line("ProbeTarget.java", "@probe-line")
HOT = harness.fixture_line("ProbeTarget.java", "@hot-line")
LATER = harness.fixture_line("ProbeTarget.java", "@later-line")
OPTIONS = "transport=dt_socket,server=y,suspend=n,address=0"


# Half a core: a loaded test machine's safepoints and cold first hits must not
# pause a probe whose test is not about the budget (wall-clock time is charged).
LIFTED_BUDGET_PPM = 500_000


def set_body(kind, location, template="", condition="", max_hits=0, max_frames=0, max_depth=0, rate=0,
             budget_ppm=LIFTED_BUDGET_PPM) -> bytes:
    return (bytes([kind]) + jdwp_string(location) + jdwp_string(template) + jdwp_string(condition) +
            i32(max_hits) + i32(max_frames) + i32(max_depth) + i32(rate) + i32(budget_ppm))


def parse_log(data) -> dict:
    r = Reader(data)
    return {"probe": r.int(), "time": r.long(), "thread": r.string(), "location": r.string(), "message": r.string()}


def parse_notice(data) -> dict:
    r = Reader(data)
    return {"probe": r.int(), "kind": NoticeKind(r.byte()), "message": r.string()}


def parse_snapshot(data) -> dict:
    r = Reader(data)
    snap = {"probe": r.int(), "time": r.long(), "thread": r.string(), "location": r.string(), "frames": []}
    for _ in range(r.int()):
        frame = {"class": r.string(), "method": r.string(), "line": r.int(), "values": []}
        for _ in range(r.int()):
            depth, kind = r.byte(), chr(r.byte())
            frame["values"].append({"depth": depth, "kind": kind, "name": r.string(), "type": r.string(),
                                    "text": r.string(), "length": r.int()})
        snap["frames"].append(frame)
    return snap


class ProbeConnection:
    """A raw client that sets probes and reads their output."""

    def __init__(self, port: int):
        self.client = Client(port)

    def set(self, *args, **kwargs) -> tuple[int, str, int]:
        r = self.client.ok(Probe.Set, set_body(*args, **kwargs))
        return r.int(), r.string(), r.int()

    def set_ok(self, *args, **kwargs) -> int:
        probe, problem, places = self.set(*args, **kwargs)
        if probe == 0:
            raise AssertionError(f"probe refused: {problem}")
        return probe

    def clear(self, probe_id: int = 0) -> int:
        return self.client.ok(Probe.Clear, i32(probe_id)).int()

    def list(self) -> list[dict]:
        r = self.client.ok(Probe.List)
        probes = []
        for _ in range(r.int()):
            probes.append({"probe": r.int(), "kind": r.byte(), "state": ProbeState(r.byte()),
                           "location": r.string(), "template": r.string(), "condition": r.string(),
                           "places": r.int(), "hits": r.long(), "matched": r.long(), "suppressed": r.long()})
        return probes

    def next_output(self):
        packet = self.client.read_probe_output()
        kind = packet.kind
        if kind == Probe.Log.key:
            return "log", parse_log(packet.data)
        if kind == Probe.Notice.key:
            return "notice", parse_notice(packet.data)
        return "snapshot", parse_snapshot(packet.data)

    def logs(self, n: int) -> list[dict]:
        """The next n log lines (notices in between fail the test)."""
        out = []
        while len(out) < n:
            kind, body = self.next_output()
            if kind != "log":
                raise AssertionError(f"expected a log line, got {kind}: {body}")
            out.append(body)
        return out

    def next_notice(self) -> dict:
        kind, body = self.next_output()
        if kind != "notice":
            raise AssertionError(f"expected a notice, got {kind}: {body}")
        return body

    def close(self):
        self.client.close()


class Probes(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        self.app = harness.Debuggee(self.cfg, "ProbeTarget", options=OPTIONS, stdin=True)
        self.app.__enter__()
        self.addCleanup(self.app.__exit__, None, None, None)
        self.app.wait_for_output(r"(?m)^ready$")
        self.conn = ProbeConnection(self.app.port)
        self.addCleanup(self.conn.close)
        self.rounds = 0

    def tell(self, line: str):
        self.app.proc.stdin.write((line + "\n").encode())
        self.app.proc.stdin.flush()

    def round(self, n: int) -> str:
        """Runs n calls of work() and waits until the program says the round is done."""
        self.rounds += 1
        self.tell(f"round {n}")
        return self.app.wait_for_output(rf"(?m)^round {self.rounds} (-?\d+)$").group(0)

    def breakpoint_request(self, method: str, line: int | None = None) -> int:
        """A SUSPEND_NONE breakpoint request in ProbeTarget.`method` at `line` (its first
        instruction when None), set by the probe connection's client -> its ID."""
        c = self.conn.client
        klass = c.class_by_signature("LProbeTarget;")
        method_id = c.method_named(klass, method)
        index = 0 if line is None else c.code_index(klass, method_id, line)
        at = bytes([ModKind.LocationOnly, TypeTag.CLASS]) + c.type_id(klass) + c.method_id(method_id) + i64(index)
        return c.ok(EventRequest.Set, bytes([EventKind.BREAKPOINT, SuspendPolicy.NONE]) + i32(1) + at).int()

    def next_breakpoint_request(self) -> int:
        """The next event, which must be a breakpoint's -> its request ID."""
        # suspendPolicy, count, then the first event's kind and request ID.
        event = self.conn.client.read_event()
        self.assertEqual(event[5], EventKind.BREAKPOINT)
        return int.from_bytes(event[6:10], "big")

    def skip_on_stock(self):
        if self.cfg.agent == "stock":
            self.skipTest("probes are jdwpx's own; on stock only NOT_IMPLEMENTED is checked")

    # -- stock --

    def test_version_names_jdwpx_so_that_a_client_never_sends_stock_a_vendor_command(self):
        # Stock aborts the JVM (SIGABRT) on any command of set 128 and up: its
        # dispatcher indexes its table with a signed byte (seen on JDK 17 and
        # 25). So this test never sends stock a Probe command: a client tells
        # jdwpx by the last line of VirtualMachine.Version's description.
        description = self.conn.client.ok(VirtualMachine.Version).string()
        marker = "\njdwpx: probes (command set 128)"
        if self.cfg.agent == "stock":
            self.assertNotIn("jdwpx", description)
        else:
            self.assertTrue(description.endswith(marker), description)
            self.assertTrue(description.startswith("Java Debug Wire Protocol (Reference Implementation) version "))
        self.round(1)

    # -- log probes --

    def test_log_probe_formats_locals_fields_and_calls_at_each_hit(self):
        self.skip_on_stock()
        template = ("i={i} label={label} total={total} ratio={ratio} name={name} n={items.size()} "
                    "sq={squares[2]} len={squares.length} same={self == self.self}")
        probe = self.conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{LINE}", template)
        self.round(3)
        lines = self.conn.logs(3)
        self.assertEqual([line["message"] for line in lines], [
            "i=0 label=item-0 total=0 ratio=0.0 name=orders n=1 sq=4 len=4 same=true",
            "i=1 label=item-1 total=3 ratio=0.25 name=orders n=2 sq=4 len=4 same=true",
            "i=2 label=item-2 total=6 ratio=0.5 name=orders n=3 sq=4 len=4 same=true",
        ])
        for line in lines:
            self.assertEqual(line["probe"], probe)
            self.assertEqual(line["thread"], "main")
            self.assertEqual(line["location"], f"ProbeTarget.work:{LINE}")
        self.assertEqual(self.conn.clear(probe), 1)
        self.assertEqual(self.conn.list(), [])

    def test_condition_false_costs_no_output_and_list_counts_hits_and_matches(self):
        self.skip_on_stock()
        probe = self.conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{LINE}", "odd {i}",
                                 condition='i % 2 == 1 && label.startsWith("item-")')
        self.round(4)
        self.assertEqual([line["message"] for line in self.conn.logs(2)], ["odd 1", "odd 3"])
        [info] = self.conn.list()
        self.assertEqual((info["probe"], info["state"], info["hits"], info["matched"], info["suppressed"]),
                         (probe, ProbeState.ARMED, 4, 2, 0))
        self.assertEqual(info["condition"], 'i % 2 == 1 && label.startsWith("item-")')
        self.assertEqual(len(self.conn.client.probe_output), 0)

    def test_method_entry_and_source_file_locations(self):
        self.skip_on_stock()
        entry = self.conn.set_ok(ProbeKind.LOG, "ProbeTarget.work", "enter {i}")
        by_file = self.conn.set_ok(ProbeKind.LOG, f"ProbeTarget.java:{LINE}", "line {i}")
        self.round(1)
        got = sorted((line["probe"], line["message"]) for line in self.conn.logs(2))
        self.assertEqual(got, sorted([(entry, "enter 0"), (by_file, "line 0")]))

    def test_static_fields_by_bare_and_qualified_name_in_a_static_method(self):
        self.skip_on_stock()
        self.conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{HOT}", "{k} {rounds} {ProbeTarget.rounds}", max_hits=1)
        self.tell("hot 3")
        self.app.wait_for_output(r"(?m)^hot \d+ -?\d+$")
        self.assertEqual(self.conn.logs(1)[0]["message"], "0 0 0")

    def test_an_evaluation_error_reads_error_in_the_line_and_sends_one_notice(self):
        self.skip_on_stock()
        probe = self.conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{LINE}", "{i}:{nothing.name}")
        self.round(2)
        outputs = [self.conn.next_output() for _ in range(3)]
        logs = [body["message"] for kind, body in outputs if kind == "log"]
        notices = [body for kind, body in outputs if kind == "notice"]
        self.assertEqual(len(logs), 2)
        for n, message in enumerate(logs):
            self.assertRegex(message, rf"^{n}:<error: .*null.*>$")
        self.assertEqual(len(notices), 1)
        self.assertEqual((notices[0]["probe"], notices[0]["kind"]), (probe, NoticeKind.EVALUATION_ERROR))
        self.assertIn("nothing", notices[0]["message"])

    def test_max_hits_ends_the_probe_with_a_notice(self):
        self.skip_on_stock()
        probe = self.conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{LINE}", "{i}", max_hits=2)
        self.round(5)
        self.assertEqual([line["message"] for line in self.conn.logs(2)], ["0", "1"])
        notice = self.conn.next_notice()
        self.assertEqual((notice["probe"], notice["kind"], notice["message"]), (probe, NoticeKind.DONE, "after 2 hits"))
        [info] = self.conn.list()
        self.assertEqual((info["state"], info["matched"], info["places"]), (ProbeState.DONE, 2, 0))

    # -- refused probes: nothing is set --

    def test_refused_expressions_name_the_part_and_set_nothing(self):
        self.skip_on_stock()
        refused = {
            "work(1) > 0": "work(1)",
            "new ProbeTarget() != null": "new",
            "(i = 3) > 0": "=",
            "i++ > 0": "++",
            "nosuch > 0": "nosuch",
            "name.hashCode() > 0": "hashCode",
            "i": "boolean",
        }
        for condition, part in refused.items():
            with self.subTest(condition=condition):
                probe, problem, places = self.conn.set(ProbeKind.LOG, f"ProbeTarget:{LINE}", "x",
                                                       condition=condition)
                self.assertEqual((probe, places), (0, 0), problem)
                self.assertIn(part, problem)
        probe, problem, _ = self.conn.set(ProbeKind.LOG, f"ProbeTarget:{LINE}", "{label.nosuch}")
        self.assertEqual(probe, 0)
        self.assertIn("nosuch", problem)
        self.assertEqual(self.conn.list(), [])
        self.round(2)
        self.assertEqual(len(self.conn.client.probe_output), 0)

    def test_refused_locations_say_why(self):
        self.skip_on_stock()
        cases = {
            "ProbeTarget:1": "no code at line 1",
            "ProbeTarget.nosuch": "no method nosuch",
            "bogus": "expected Class:line",
            "ProbeTarget:abc": "positive number",
        }
        for location, why in cases.items():
            with self.subTest(location=location):
                probe, problem, _ = self.conn.set(ProbeKind.LOG, location, "x")
                self.assertEqual(probe, 0)
                self.assertIn(why, problem)

    # -- classes that come later --

    def test_a_probe_on_a_class_not_loaded_yet_is_armed_when_it_is_prepared(self):
        self.skip_on_stock()
        probe, problem, places = self.conn.set(ProbeKind.LOG, f"ProbeLater:{LATER}", "x={x} doubled={doubled}")
        self.assertEqual((problem, places), ("", 0))
        self.assertEqual(self.conn.list()[0]["state"], ProbeState.DEFERRED)
        self.tell("load")
        self.app.wait_for_output(r"(?m)^later 42$")
        notice = self.conn.next_notice()
        self.assertEqual((notice["probe"], notice["kind"]), (probe, NoticeKind.ARMED), notice["message"])
        [line] = self.conn.logs(1)
        self.assertEqual(line["message"], "x=21 doubled=42")
        self.assertEqual(self.conn.list()[0]["state"], ProbeState.ARMED)

    def test_a_redefined_class_gets_its_probes_again(self):
        self.skip_on_stock()
        probe = self.conn.set_ok(ProbeKind.LOG, f"ProbeLater:{LATER}", "doubled={doubled}")
        self.tell("load")
        self.app.wait_for_output(r"(?m)^later 42$")
        self.assertEqual(self.conn.next_notice()["kind"], NoticeKind.ARMED)
        self.assertEqual(self.conn.logs(1)[0]["message"], "doubled=42")
        # The same lines, new code: x * 3.
        with tempfile.TemporaryDirectory(prefix="probes-") as folder:
            with open(os.path.join(harness.FIXTURES_SRC, "ProbeTarget.java"), encoding="utf-8") as f:
                source = f.read().replace("int doubled = x * 2;", "int doubled = x * 3;")
            path = os.path.join(folder, "ProbeTarget.java")
            with open(path, "w", encoding="utf-8") as f:
                f.write(source)
            subprocess.run([self.cfg.javac, "-g", "--release", "17", "-d", folder, path], check=True)
            with open(os.path.join(folder, "ProbeLater.class"), "rb") as f:
                classfile = f.read()
        client = self.conn.client
        later = client.class_by_signature("LProbeLater;")
        client.ok(VirtualMachine.RedefineClasses, i32(1) + client.type_id(later) + i32(len(classfile)) + classfile)
        notice = self.conn.next_notice()
        self.assertEqual((notice["probe"], notice["kind"]), (probe, NoticeKind.ARMED), notice["message"])
        self.assertIn("redefinition", notice["message"])
        self.tell("load")
        self.app.wait_for_output(r"(?m)^later 63$")
        self.assertEqual(self.conn.logs(1)[0]["message"], "doubled=63")

    # -- snapshots --

    def test_snapshot_captures_frames_locals_and_this(self):
        self.skip_on_stock()
        probe = self.conn.set_ok(ProbeKind.SNAPSHOT, f"ProbeTarget:{LINE}", max_frames=5)
        self.round(2)
        kind, snap = self.conn.next_output()
        self.assertEqual(kind, "snapshot")
        self.assertEqual((snap["probe"], snap["thread"], snap["location"]), (probe, "main", f"ProbeTarget.work:{LINE}"))
        self.assertEqual([(f["class"], f["method"]) for f in snap["frames"]],
                         [("ProbeTarget", "work"), ("ProbeTarget", "main")])
        top = snap["frames"][0]
        self.assertEqual(top["line"], LINE)
        roots = {v["name"]: v for v in top["values"] if v["depth"] == 0}
        self.assertEqual({name: (v["kind"], v["text"]) for name, v in roots.items() if name != "this"}, {
            "i": ("I", "0"), "total": ("I", "0"), "label": ("s", "item-0"), "ratio": ("I", "0.0")})
        self.assertEqual(roots["this"]["kind"], "L")
        this_at = top["values"].index(roots["this"])
        fields = {v["name"]: v for v in top["values"][this_at + 1:] if v["depth"] == 1}
        self.assertEqual((fields["name"]["kind"], fields["name"]["text"]), ("s", "orders"))
        self.assertEqual((fields["squares"]["kind"], fields["squares"]["length"]), ("[", 4))
        self.assertEqual(fields["self"]["kind"], "@")  # a cycle back to `this`
        self.assertEqual(fields["nothing"]["kind"], "N")
        notice = self.conn.next_notice()
        self.assertEqual((notice["probe"], notice["kind"]), (probe, NoticeKind.DONE))

    # -- the budget --

    def test_a_probe_over_its_cpu_budget_is_paused_and_the_program_runs_on(self):
        self.skip_on_stock()
        probe = self.conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{HOT}", "{k}", condition="k < 0", budget_ppm=1)
        self.tell("hot 3000000")
        self.app.wait_for_output(r"(?m)^hot \d+ -?\d+$")
        notice = self.conn.next_notice()
        self.assertEqual((notice["probe"], notice["kind"]), (probe, NoticeKind.PAUSED))
        [info] = self.conn.list()
        self.assertEqual((info["state"], info["places"], info["matched"]), (ProbeState.PAUSED, 0, 0))
        self.assertLess(info["hits"], 3000000)
        self.assertGreater(info["hits"], 0)

    def test_a_client_that_reads_nothing_never_holds_the_program_back(self):
        """A probe's client that stops reading (a stalled `kubectl exec`, say): once its
        connection is backlogged, the probe's lines are dropped and counted as suppressed;
        the hitting thread is never made to wait for the client."""
        self.skip_on_stock()
        hits = 2_000_000  # some 100 MB of lines: far beyond the socket buffers and the agent's window
        probe = self.conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{HOT}", "{k} {acc}", rate=1_000_000,
                                 budget_ppm=64_000_000)
        self.tell(f"hot {hits}")
        # Held back, each hit beyond the window would wait up to a second.
        self.app.wait_for_output(r"(?m)^hot \d+ -?\d+$", 60)
        [info] = self.conn.list()  # reads what was sent meanwhile, then the reply
        self.assertEqual((info["probe"], info["state"], info["hits"], info["matched"]),
                         (probe, ProbeState.ARMED, hits, hits))
        self.assertGreater(info["suppressed"], 0)
        self.assertLess(info["suppressed"], hits)

    def test_a_probe_and_a_breakpoint_request_at_one_line_both_see_every_hit(self):
        # The breakpoint callback skips the requests' matching where only
        # probes are (event_callbacks.cc): not where a request is too.
        self.skip_on_stock()
        request = self.breakpoint_request("work", LINE)
        probe = self.conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{LINE}", "{i}")
        self.round(3)
        self.assertEqual([line["message"] for line in self.conn.logs(3)], ["0", "1", "2"])
        for _ in range(3):
            self.assertEqual(self.next_breakpoint_request(), request)
        self.assertEqual(self.conn.list()[0]["probe"], probe)

    def test_a_debuggers_breakpoint_at_the_callers_first_instruction_outlives_the_probe_taken_out(self):
        # A probe taken out has its callers' compiled code discarded with a
        # breakpoint of the agent's own, set and cleared at their first
        # instruction (backend/probes/caller_sample.h): never where a debugger has one.
        self.skip_on_stock()
        request = self.breakpoint_request("outer")
        probe = self.conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{HOT}", "{k}", condition="k < 0", budget_ppm=1)
        self.tell("outer 3000000")
        self.app.wait_for_output(r"(?m)^outer -?\d+$")
        notice = self.conn.next_notice()
        self.assertEqual((notice["probe"], notice["kind"]), (probe, NoticeKind.PAUSED))
        [info] = self.conn.list()
        self.assertEqual((info["state"], info["places"]), (ProbeState.PAUSED, 0))

        self.assertEqual(self.next_breakpoint_request(), request)
        self.tell("outer 10")
        self.assertEqual(self.next_breakpoint_request(), request)

    # -- the session's end --

    def test_a_closed_connection_clears_its_probes_and_a_debugger_attaches_normally(self):
        self.skip_on_stock()
        self.conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{LINE}", "{i}")
        self.conn.close()
        # The next connection is served once the previous one's end is done.
        again = ProbeConnection(self.app.port)
        self.addCleanup(again.close)
        self.assertEqual(again.list(), [])
        self.round(2)
        again.client.ok(VirtualMachine.Version)
        self.assertEqual(len(again.client.probe_output), 0)

    # -- the trace --

    def test_probe_output_is_in_the_trace_summary(self):
        self.skip_on_stock()
        with tempfile.TemporaryDirectory(prefix="probes-trace-") as folder:
            trace = os.path.join(folder, "probes.jdwpxtrace")
            with harness.Debuggee(self.cfg, "ProbeTarget", options=f"{OPTIONS},trace={trace}", stdin=True) as app:
                app.wait_for_output(r"(?m)^ready$")
                conn = ProbeConnection(app.port)
                conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{LINE}", "{i}")
                app.proc.stdin.write(b"round 2\n")
                app.proc.stdin.flush()
                app.wait_for_output(r"(?m)^round 1 ")
                conn.logs(2)
                conn.close()
                app.proc.stdin.write(b"quit\n")
                app.proc.stdin.flush()
                self.assertEqual(app.wait(30), 0)
            summary = subprocess.run([os.path.join(self.cfg.build_dir, "tools", "jdwpx-trace"), "summary", trace],
                                     check=True, capture_output=True, text=True).stdout
        self.assertRegex(summary, r"Probe\.Set +1 ")
        self.assertRegex(summary, r"probe output \(never suspends\):\n  Probe\.Log +2 ")

    # -- virtual threads --

    def test_a_probe_in_a_virtual_thread(self):
        self.skip_on_stock()
        if self.cfg.jdk_version < 21:
            self.skipTest("virtual threads need JDK 21+")
        self.conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{LINE}", "{i} {label}")
        self.tell("vthread")
        self.app.wait_for_output(r"(?m)^vthread done$")
        [line] = self.conn.logs(1)
        self.assertEqual((line["message"], line["thread"]), ("-1 item--1", ""))



class ProbesWhileTheCollectorMoves(unittest.TestCase):
    """A probe reads a hit's locals straight from the interpreter's frame once
    they have agreed with the JVM's own walk (hotspot/interpreter_frame.h); an
    object local is handed to JNI by the address of its slot. Under a small
    heap, every collector that moves objects moves them between hits, so each
    line must still name the very values of its own call."""

    COLLECTORS = ["-XX:+UseSerialGC", "-XX:+UseParallelGC", "-XX:+UseG1GC", "-XX:+UseZGC", "-XX:+UseShenandoahGC"]
    ROUNDS, CALLS = 10, 1000

    def run_with(self, collector: str):
        cfg = harness.config()
        # A thread that churns all the while brings collections between and
        # during the hits, which move the labels that the frames hold.
        with harness.Debuggee(cfg, "ProbeTarget", options=OPTIONS, stdin=True,
                              jvm_args=[collector, "-Xmx24m"]) as app:
            app.wait_for_output(r"(?m)^ready$")
            conn = ProbeConnection(app.port)
            try:
                conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{LINE}", "{i} {label} {total} {self.name} {label.length()}",
                            rate=1_000_000)
                app.proc.stdin.write(b"churn\n")
                app.proc.stdin.flush()
                app.wait_for_output(r"(?m)^churning$")
                for r in range(self.ROUNDS):
                    app.proc.stdin.write(f"round {self.CALLS}\n".encode())
                    app.proc.stdin.flush()
                    for n, line in enumerate(conn.logs(self.CALLS)):
                        i = 1000 * r + n
                        want = f"{i} item-{i} {3 * i} orders {len(f'item-{i}')}"
                        self.assertEqual(line["message"], want, f"{collector}: round {r}, call {n}")
                    app.wait_for_output(rf"(?m)^round {r + 1} ")
                # Counted by the program: JDK 17's ZGC with -Xlog:gc can recurse
                # to a stack overflow logging a relocation stall (seen here, in
                # JavaThread::get_thread_name's load barrier, no agent frame).
                app.proc.stdin.write(b"gcs\n")
                app.proc.stdin.flush()
                collections = int(app.wait_for_output(r"(?m)^gcs (\d+)$").group(1))
            finally:
                conn.close()
                app.proc.stdin.write(b"quit\n")
                app.proc.stdin.flush()
            self.assertEqual(app.wait(60), 0, f"{collector}: the program's exit; its stderr ends:\n{app.stderr[-4000:]}")
        return collections

    def test_every_line_names_its_own_calls_values_under_each_moving_collector(self):
        if harness.config().agent == "stock":
            self.skipTest("probes are jdwpx's own")
        for collector in self.COLLECTORS:
            with self.subTest(collector=collector):
                self.assertGreater(self.run_with(collector), 0, f"{collector}: no collection ran")


if __name__ == "__main__":
    harness.main()
