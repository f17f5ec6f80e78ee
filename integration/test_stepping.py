#!/usr/bin/env python3
"""Stepping as a table of (from line, step, expected landing), stock as the oracle.

    python3 integration/test_stepping.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

The Stepping fixture (fixtures/Stepping.java) runs one scenario per table row;
jdi/SteppingJdi.java stops at each row's from-line with a breakpoint, sends the
row's StepRequest with the class exclusions IDEs add (java.*, jdk.*, sun.*)
and prints where the step landed and which events its set held. The table is
checked row by row (one subtest each) for the JDK's JDI and for Eclipse's
(eclipse/SteppingEclipse.java). SteppingNoLines is compiled again with -g:none
into a temporary directory ahead on the class path: a callee without line
numbers. The virtual-thread row needs JDK 21+ (skipped with a message on 17).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
import unittest

import harness

SOURCE = "Stepping.java"

# (row id, scenario run by the fixture, from marker, depth, size, count filter,
#  marker of a second breakpoint (None), expected class, expected marker or a line number)
# Order matters: each row's breakpoint must not be the location the previous row landed on.
TABLE = (
    ("into-call", "calls", "@s-calls-call", "into", "line", 0, None, "Stepping", "@s-leaf-first"),
    ("over-call", "calls", "@s-calls-call", "over", "line", 0, None, "Stepping", "@s-calls-after"),
    # A breakpoint in the callee stepped over stops there first (its own set); the step then ends as usual.
    ("over-call-hitting-breakpoint", "calls", "@s-calls-call", "over", "line", 0, "@s-leaf-return", "Stepping",
     "@s-calls-after"),
    ("out-of-callee", "calls", "@s-leaf-first", "out", "line", 0, None, "Stepping", "@s-calls-call"),
    ("over-return", "calls", "@s-leaf-return", "over", "line", 0, None, "Stepping", "@s-calls-call"),
    ("over-last-line", "calls", "@s-calls-last", "over", "line", 0, None, "Stepping", "@s-calls-end"),
    ("into-min", "calls", "@s-calls-call", "into", "min", 0, None, "Stepping", "@s-calls-call"),
    ("over-void-return", "calls", "@s-calls-end", "over", "line", 0, None, "Stepping", "@s-run-calls"),
    # Stepping resumed when a callee's frame pops by exception (over, out, into through a
    # filtered callee): the step ends on the first line of the catch block; stepping all
    # along: on the catch line.
    ("over-callee-throws", "caught", "@s-caught-call", "over", "line", 0, None, "Stepping", "@s-caught-body"),
    ("over-throw-unwinds-two", "caught", "@s-thrower", "over", "line", 0, None, "Stepping", "@s-caught-catch"),
    ("over-jdk-throws", "caughtJdk", "@s-jdk-call", "over", "line", 0, None, "Stepping", "@s-jdk-body"),
    ("into-jdk-throws", "caughtJdk", "@s-jdk-call", "into", "line", 0, None, "Stepping", "@s-jdk-body"),
    ("over-throw-unwinds", "unwinds", "@s-thrower", "over", "line", 0, None, "Stepping", "@s-unwind-catch"),
    ("out-throw-unwinds", "unwinds", "@s-thrower", "out", "line", 0, None, "Stepping", "@s-unwind-body"),
    ("over-recursive-call", "recursion", "@s-fact-rec", "over", "line", 0, None, "Stepping", "@s-recursion-call"),
    ("into-recursive-call", "recursion", "@s-fact-rec", "into", "line", 0, None, "Stepping", "@s-fact-base"),
    # The breakpoint is next hit one level deeper (n=1): out lands in the n=2 frame.
    ("out-of-recursion", "recursion", "@s-fact-base", "out", "line", 0, None, "Stepping", "@s-fact-rec"),
    # The first lambda made in the VM: its bootstrap runs much java.lang.invoke code.
    ("into-lambda-creation", "lambda", "@s-lambda-make", "into", "line", 0, None, "Stepping", "@s-lambda-call"),
    ("into-lambda", "lambda", "@s-lambda-call", "into", "line", 0, None, "Stepping", "@s-lambda-body"),
    ("over-lambda", "lambda", "@s-lambda-call", "over", "line", 0, None, "Stepping", "@s-lambda-after"),
    # The lambda's hidden proxy class is not excluded (not java.*): out stops in it, without lines.
    ("out-of-lambda", "lambda", "@s-lambda-body", "out", "line", 0, None, "Stepping$$Lambda", -1),
    ("into-lambda-via-jdk", "forEach", "@s-foreach-call", "into", "line", 0, None, "Stepping", "@s-foreach-body"),
    ("over-jdk-calling-lambda", "forEach", "@s-foreach-call", "over", "line", 0, None, "Stepping", "@s-foreach-after"),
    ("over-lambda-end", "forEach", "@s-foreach-body", "over", "line", 0, None, "Stepping", "@s-foreach-body-end"),
    ("into-static-initializer", "clinit", "@s-clinit-call", "into", "line", 0, None, "Stepping$Lazy",
     "@s-clinit-body"),
    ("over-static-initializer", "clinitOver", "@s-clinit-over", "over", "line", 0, None, "Stepping",
     "@s-clinit-after"),
    ("into-no-line-numbers", "noLines", "@s-nolines-call", "into", "line", 0, None, "Stepping", "@s-nolines-after"),
    # Count 2: the second instruction step, the first instruction of the callee without lines.
    ("into-min-no-line-numbers", "noLines", "@s-nolines-call", "into", "min", 2, None, "SteppingNoLines", -1),
    ("into-println", "printing", "@s-print-call", "into", "line", 0, None, "Stepping", "@s-print-after"),
    ("into-native-hashCode", "natives", "@s-native-hash", "into", "line", 0, None, "Stepping", "@s-native-after"),
    ("into-native-arraycopy", "natives", "@s-native-copy", "into", "line", 0, None, "Stepping", "@s-native-hash"),
    ("over-count-2", "counted", "@s-count-1", "over", "line", 2, None, "Stepping", "@s-count-3"),
    ("over-onto-breakpoint", "counted", "@s-count-1", "over", "line", 0, "@s-count-2", "Stepping", "@s-count-2"),
    ("over-virtual-thread", "virtual", "@s-virtual-1", "over", "line", 0, None, "Stepping", "@s-virtual-2"),
)
VIRTUAL_ROWS = {"over-virtual-thread"}

LANDED_RE = re.compile(r"(?m)^LANDED (\S+) (\S+)\.([^.\s]+):(\S+) events=(\S+)$")


def line_of(marker):
    return marker if isinstance(marker, int) else harness.fixture_line(SOURCE, "// " + marker)


def rows_for(cfg):
    return [row for row in TABLE if row[0] not in VIRTUAL_ROWS or cfg.jdk_version >= 21]


class Stepping(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()
        cls.tmp = tempfile.mkdtemp(prefix="stepping-nolines-")
        # A callee without line numbers: ahead of the -g copy on the class path.
        subprocess.run([cls.cfg.javac, "-g:none", "--release", "17", "-d", cls.tmp,
                        os.path.join(harness.FIXTURES_SRC, "SteppingNoLines.java")], check=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_table(self, client):
        cfg = self.cfg
        classpath, main = harness.jdi_driver(self, cfg, client, "SteppingJdi", "SteppingEclipse")
        rows = rows_for(cfg)
        if len(rows) < len(TABLE):
            print(f"{client}: virtual-thread rows skipped: JDK {cfg.jdk_version} has no virtual threads (21+)")
        args = [",".join([row[0], str(line_of(row[2])), row[3], row[4], str(row[5]),
                          str(line_of(row[6]) if row[6] else 0)]) for row in rows]
        scenarios = [row[1] for row in rows]
        with harness.Debuggee(cfg, "Stepping", args=scenarios,
                              classpath=os.pathsep.join([self.tmp, cfg.classes_dir])) as debuggee:
            rc, out, err = harness.run_java(cfg, ["-cp", os.pathsep.join(classpath)], main,
                                            [str(debuggee.port), *args], timeout=120)
            try:
                debuggee.wait(30)
            except subprocess.TimeoutExpired:
                pass
            report = (f"--- {client} driver stdout:\n{out}\n--- driver stderr:\n{err}\n"
                      f"--- debuggee stdout:\n{debuggee.stdout}\n--- debuggee stderr:\n{debuggee.stderr}")
        landed = {m.group(1): m for m in LANDED_RE.finditer(out)}
        for row in rows:
            row_id, expected_class, expected = row[0], row[7], line_of(row[8])
            with self.subTest(row=f"{client}:{row_id}"):
                m = landed.get(row_id)
                self.assertIsNotNone(m, f"{row_id}: no landing reported\n{report}")
                # Hidden lambda classes: Stepping$$Lambda$14/0x... (17), Stepping$$Lambda/0x... (21+).
                got = f"{re.sub(r'[$][$]Lambda.*', '$$Lambda', m.group(2))}:{m.group(4)}"
                self.assertEqual(got, f"{expected_class}:{expected}",
                                 f"{row_id}: {row[3]} {row[4]} from {row[2]} landed in {m.group(3)}")
                together = row[6] is not None and line_of(row[6]) == expected
                self.assertEqual(m.group(5), "Breakpoint+Step" if together else "Step", f"{row_id}: event set")
                if row[6] is not None and not together:
                    self.assertIn(f"NOTE {row_id} event set without the step: [Breakpoint]", out,
                                  f"{row_id}: the breakpoint on the way")
        self.assertIn("RESULT ok", out, report)
        self.assertIn("stepping: done", debuggee.stdout, report)

    def test_table_jdk_jdi(self):
        self.run_table("jdk")

    def test_table_eclipse_jdi(self):
        self.run_table("eclipse")


class StepsAtAStop(unittest.TestCase):
    """What a debugger stepping line after line sends at each stop (raw JDWP):
    the old step's Clear, the next step's Set, the resume. The stopped thread
    stays suspended through them (Status, SuspendCount and its frames read
    between them say so), a step out set at a breakpoint's stop returns to the
    caller, and the steps after it land where stock lands them."""

    def test_clear_and_set_at_a_stop_leave_the_thread_suspended(self):
        from jdwp_client import (Client, EventRequest, Reader, ThreadReference, VirtualMachine, i32, i64,
                                 jdwp_string)
        BREAKPOINT, SINGLE_STEP, CLASS_PREPARE = 2, 1, 8
        SUSPEND_EVENT_THREAD, SUSPEND_ALL = 1, 2
        OVER, OUT = 1, 2
        cfg = harness.config()
        with harness.Debuggee(cfg, "Stepping", args=["calls"]) as debuggee:
            c = Client(debuggee.port, timeout=60)
            try:
                c.wait_for_vm_start()
                c.ok(EventRequest.Set, bytes([CLASS_PREPARE, SUSPEND_ALL]) + i32(1) + bytes([5])
                     + jdwp_string("Stepping"))
                c.ok(VirtualMachine.Resume)
                while c.read_event()[5] != CLASS_PREPARE:
                    pass
                fixture = c.class_by_signature("LStepping;")
                leaf = c.method_named(fixture, "leaf")
                calls = c.method_named(fixture, "calls")
                run = c.method_named(fixture, "run")
                tables = {m: sorted(c.line_table(fixture, m)) for m in (leaf, calls, run)}
                first = c.code_index(fixture, leaf, line_of("@s-leaf-first"))
                location = bytes([1]) + c.type_id(fixture) + c.method_id(leaf) + i64(first)
                breakpoint = c.ok(EventRequest.Set, bytes([BREAKPOINT, SUSPEND_EVENT_THREAD]) + i32(1)
                                  + bytes([7]) + location).int()
                c.ok(VirtualMachine.Resume)

                def line_at(method, index):
                    return max(line for start, line in tables[method] if start <= index)

                def next_event(kind, request):
                    """The thread, method and line of the next event of `request`."""
                    while True:
                        event = Reader(c.read_event(), c.sizes)
                        event.byte(), event.int()
                        if event.byte() == kind and event.int() == request:
                            thread = event.id()
                            _, _, method, index = event.location()
                            return thread, method, line_at(method, index)

                def where(thread):
                    """Suspend status and count, and the top frame's method and line."""
                    status = c.ok(ThreadReference.Status, c.object_id(thread))
                    status.int()
                    suspended = status.int()
                    count = c.ok(ThreadReference.SuspendCount, c.object_id(thread)).int()
                    _, (_, _, method, index) = c.frames(thread, 0, 1)[0]
                    return suspended, count, method, line_at(method, index)

                def set_step(thread, depth):
                    # Step (10): thread, LINE (1), depth; Count (1) 1.
                    return c.ok(EventRequest.Set, bytes([SINGLE_STEP, SUSPEND_EVENT_THREAD]) + i32(2) + bytes([10])
                                + c.object_id(thread) + i32(1) + i32(depth) + bytes([1]) + i32(1)).int()

                thread, _, _ = next_event(BREAKPOINT, breakpoint)
                c.ok(EventRequest.Clear, bytes([BREAKPOINT]) + i32(breakpoint))
                self.assertEqual(where(thread), (1, 1, leaf, line_of("@s-leaf-first")))
                step = set_step(thread, OUT)
                self.assertEqual(where(thread), (1, 1, leaf, line_of("@s-leaf-first")))
                c.ok(ThreadReference.Resume, c.object_id(thread))
                self.assertEqual(next_event(SINGLE_STEP, step), (thread, calls, line_of("@s-calls-call")))
                landed = []
                for _ in range(2):
                    c.ok(EventRequest.Clear, bytes([SINGLE_STEP]) + i32(step))
                    here = where(thread)
                    step = set_step(thread, OVER)
                    self.assertEqual(where(thread), here)
                    self.assertEqual(here[:3], (1, 1, calls))
                    c.ok(ThreadReference.Resume, c.object_id(thread))
                    landed.append(next_event(SINGLE_STEP, step)[1:])
                    # As JDI steps on: Clear, Set, Resume, nothing read in between.
                    c.ok(EventRequest.Clear, bytes([SINGLE_STEP]) + i32(step))
                    step = set_step(thread, OVER)
                    c.ok(ThreadReference.Resume, c.object_id(thread))
                    landed.append(next_event(SINGLE_STEP, step)[1:])
                self.assertEqual(landed, [(calls, line_of("@s-calls-after")), (calls, line_of("@s-calls-last")),
                                          (calls, line_of("@s-calls-end")), (run, line_of("@s-run-calls"))])
                c.ok(EventRequest.Clear, bytes([SINGLE_STEP]) + i32(step))
                c.ok(VirtualMachine.Resume)
                debuggee.wait_for_output(r"(?m)^stepping: done$", 60)
            finally:
                c.close()


class StrataSteps(unittest.TestCase):
    """JSR-45 strata (the StrataStep fixture loads StrataTarget with a source map
    whose default stratum, Mini, maps two Java lines to each of its lines): as
    stock, ClassPrepare's SourceNameMatch matches a stratum's source name, and
    with the Mini stratum the default a line step ends where the Mini line
    changes, not at the next Java line."""

    def test_source_name_match_and_line_steps_of_a_stratum(self):
        from jdwp_client import Client, ClassType, EventRequest, Reader, ThreadReference, VirtualMachine
        from jdwp_client import i32, i64, jdwp_string
        cfg = harness.config()
        line = lambda marker: harness.fixture_line("StrataTarget.java", marker)
        options = "transport=dt_socket,server=y,address=0,suspend=n"
        with harness.Debuggee(cfg, "StrataStep", args=[str(line("// @s1"))], options=options) as debuggee:
            debuggee.wait_for_output(r"(?m)^ready$", 60)
            c = Client(debuggee.port, timeout=60)
            try:
                fixture = c.class_by_signature("LStrataStep;")
                statics = c.fields(fixture)
                set_static = lambda name: c.ok(ClassType.SetValues, c.type_id(fixture) + i32(1)
                                               + c.encode_id(statics[name].id, "field") + b"\x01")
                # ClassPrepare (8), SUSPEND_ALL, SourceNameMatch (12) on the Mini file's name only.
                c.ok(EventRequest.Set, bytes([8, 2]) + i32(1) + bytes([12]) + jdwp_string("*.mini"))
                set_static("go")
                event = Reader(c.read_event(), c.sizes)
                event.byte(), event.int()
                self.assertEqual(event.byte(), 8)
                event.int(), event.id()
                event.byte()
                target = event.id("referenceType")
                self.assertEqual(event.string(), "LStrataTarget;")
                c.ok(VirtualMachine.SetDefaultStratum, jdwp_string("Mini"))
                run = c.method_named(target, "run")
                line_of = dict(c.line_table(target, run))
                first = c.code_index(target, run, line("// @s1"))
                location = bytes([1]) + c.type_id(target) + c.method_id(run) + i64(first)
                request = c.ok(EventRequest.Set, bytes([2, 2]) + i32(1) + bytes([7]) + location).int()
                c.ok(VirtualMachine.Resume)
                while True:
                    event = Reader(c.read_event(), c.sizes)
                    event.byte(), event.int()
                    if event.byte() == 2 and event.int() == request:
                        thread = event.id()
                        break
                c.ok(EventRequest.Clear, bytes([2]) + i32(request))
                ended = []
                for _ in range(2):
                    # SingleStep (1), SUSPEND_ALL: Step (10) thread, LINE (1), OVER (1); Count 1.
                    step = c.ok(EventRequest.Set, bytes([1, 2]) + i32(2) + bytes([10]) + c.object_id(thread)
                                + i32(1) + i32(1) + bytes([1]) + i32(1)).int()
                    c.ok(VirtualMachine.Resume)
                    event = Reader(c.read_event(), c.sizes)
                    event.byte(), event.int()
                    self.assertEqual(event.byte(), 1)
                    self.assertEqual(event.int(), step)
                    event.id()
                    _, _, method, index = event.location()
                    self.assertEqual(method, run)
                    ended.append(line_of.get(index))
                    c.ok(EventRequest.Clear, bytes([1]) + i32(step))
                # Mini line 2 starts at @s3, line 3 at @s5.
                self.assertEqual(ended, [line("// @s3"), line("// @s5")])
                set_static("released")
                c.ok(VirtualMachine.Resume)
                debuggee.wait_for_output(r"(?m)^done true$", 60)
            finally:
                c.close()


if __name__ == "__main__":
    harness.main()
