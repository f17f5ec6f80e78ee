#!/usr/bin/env python3
"""Line steps in an obsolete method, and Method.IsObsolete for one, stock as the oracle.

    python3 integration/test_redefine_steps.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

Raw JDWP. fixtures/ObsoleteSteps.java calls a1() three times; the test stops
at a1's first instruction and redefines the class (with a variant compiled here
whose a1 prints more on its last line, then with the original again), so the
stopped frame runs the old, now obsolete, a1. Its location carries method ID 0,
for which Method.IsObsolete answers true. As stock, an obsolete method has no
line table, and JDWP does a LINE step in a method without line information as
a MIN step: each step ends at the next instruction of the old a1. A step over
its call of a2() ends after the call; a step into a call ends at the callee's
start, whose lines are known. Once a1 returns, the step ends in main after the call.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import unittest

import harness
from jdwp_client import ClassType, Client, EventRequest, Method, Reader, VirtualMachine, i32, i64

SOURCE = "ObsoleteSteps.java"
BREAKPOINT, SINGLE_STEP = 2, 1
SUSPEND_ALL = 2
STEP_LINE = 1
STEP_INTO, STEP_OVER = 0, 1
# Lengths of the instructions javac makes of a1: getstatic, ldc, ldc_w, invokevirtual,
# invokestatic, invokedynamic, return.
INSTRUCTION_LENGTHS = {0xb2: 3, 0x12: 2, 0x13: 3, 0xb6: 3, 0xb8: 3, 0xba: 5, 0xb1: 1}
INVOKES = (0xb6, 0xb8)  # invokevirtual, invokestatic


def line(marker: str) -> int:
    return harness.fixture_line(SOURCE, marker)


def instructions(code: bytes) -> list:
    """The code index of each instruction of `code`."""
    starts, pc = [], 0
    while pc < len(code):
        starts.append(pc)
        if code[pc] not in INSTRUCTION_LENGTHS:
            raise AssertionError(f"opcode {code[pc]:#x} at {pc}: not expected in a1")
        pc += INSTRUCTION_LENGTHS[code[pc]]
    return starts


class ObsoleteMethodSteps(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cfg = harness.config()
        cls.tmp = tempfile.TemporaryDirectory(prefix="obsolete-steps-")
        with open(os.path.join(harness.FIXTURES_SRC, SOURCE), encoding="utf-8") as f:
            text = f.read()
        old = 'System.out.println("jj3"); // @a1-last'
        assert old in text, "fixture changed"
        src = os.path.join(cls.tmp.name, SOURCE)
        with open(src, "w", encoding="utf-8") as f:
            f.write(text.replace(old, 'System.out.println("jj3 " + calls); // @a1-last'))
        subprocess.run([cfg.javac, "-g", "--release", "17", "-d", cls.tmp.name, src], check=True)
        with open(os.path.join(cls.tmp.name, "ObsoleteSteps.class"), "rb") as f:
            cls.changed = f.read()
        with open(os.path.join(cfg.classes_dir, "ObsoleteSteps.class"), "rb") as f:
            cls.original = f.read()

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def test_line_steps_in_the_obsolete_method(self):
        cfg = harness.config()
        options = "transport=dt_socket,server=y,address=0,suspend=n"
        with harness.Debuggee(cfg, "ObsoleteSteps", options=options) as debuggee:
            debuggee.wait_for_output(r"(?m)^ready$", 60)
            c = Client(debuggee.port, timeout=60)
            try:
                klass = c.class_by_signature("LObsoleteSteps;")
                a1, main = c.method_named(klass, "a1"), c.method_named(klass, "main")
                statics = c.fields(klass)

                def next_event(kind, request):
                    """(thread, method ID, code index) of the next event of `request`."""
                    while True:
                        event = Reader(c.read_event(), c.sizes)
                        event.byte()
                        for _ in range(event.int()):
                            if event.byte() == kind and event.int() == request:
                                thread = event.id()
                                _, where, method, index = event.location()
                                return thread, method, index, where
                            break

                def bytecodes(method):
                    r = c.ok(Method.Bytecodes, c.type_id(klass) + c.method_id(method))
                    return r.raw(r.int())

                def is_obsolete(method):
                    return c.ok(Method.IsObsolete, c.type_id(klass) + c.method_id(method)).boolean()

                def steps_in_obsolete_a1(depth, redefined, first):
                    """Stops at a1's first instruction, redefines the class, steps (LINE, `depth`)
                    until a step ends outside the old a1 -> [(method ID, code index)] and a1's code.
                    `first`: main has yet to be let go into a1."""
                    code = bytecodes(a1)
                    # Breakpoint, SUSPEND_ALL, LocationOnly (7) at a1's first instruction.
                    location = bytes([1]) + c.type_id(klass) + c.method_id(a1) + i64(0)
                    breakpoint = c.ok(EventRequest.Set, bytes([BREAKPOINT, SUSPEND_ALL]) + i32(1) + bytes([7])
                                      + location).int()
                    if first:
                        c.ok(ClassType.SetValues, c.type_id(klass) + i32(1)
                             + c.encode_id(statics["go"].id, "field") + b"\x01")
                    else:
                        c.ok(VirtualMachine.Resume)
                    thread, method, index, _ = next_event(BREAKPOINT, breakpoint)
                    self.assertEqual((method, index), (a1, 0))
                    c.ok(EventRequest.Clear, bytes([BREAKPOINT]) + i32(breakpoint))
                    c.ok(VirtualMachine.RedefineClasses, i32(1) + c.type_id(klass) + i32(len(redefined))
                         + redefined)
                    # The frame runs the old a1: method ID 0 in its location, the class and index kept.
                    (_, (_, frame_class, frame_method, frame_index)), = c.frames(thread, 0, 1)
                    self.assertEqual((frame_class, frame_method, frame_index), (klass, 0, 0))
                    # Method ID 0 of the class is the obsolete method; a1's own ID names the new a1.
                    self.assertTrue(is_obsolete(0))
                    self.assertFalse(is_obsolete(a1))
                    landed, last_class = [], None
                    while not landed or landed[-1][0] == 0 and len(landed) < 20:
                        # SingleStep, SUSPEND_ALL: Step (10) thread, LINE, depth; Count (1) 1.
                        step = c.ok(EventRequest.Set, bytes([SINGLE_STEP, SUSPEND_ALL]) + i32(2) + bytes([10])
                                    + c.object_id(thread) + i32(STEP_LINE) + i32(depth) + bytes([1])
                                    + i32(1)).int()
                        c.ok(VirtualMachine.Resume)
                        _, method, index, where = next_event(SINGLE_STEP, step)
                        c.ok(EventRequest.Clear, bytes([SINGLE_STEP]) + i32(step))
                        landed.append((method, index))
                        last_class = where
                    return landed, code, last_class

                # Over: every instruction of the old a1 after the first, then main after the
                # call (where @main-1's next line starts).
                landed, code, _ = steps_in_obsolete_a1(STEP_OVER, self.changed, True)
                starts = instructions(code)
                main_2 = c.code_index(klass, main, line("// @main-2"))
                self.assertEqual(landed, [(0, i) for i in starts[1:]] + [(main, main_2)])

                # Into: as over up to the first call (println's), then that callee's start,
                # which has lines. The old a1 is the one redefined before.
                landed, code, callee_class = steps_in_obsolete_a1(STEP_INTO, self.original, False)
                starts = instructions(code)
                call = next(i for i in starts if code[i] in INVOKES)
                println = c.method_named(callee_class, "println", "(Ljava/lang/String;)V")
                self.assertEqual(c.signature(callee_class), "Ljava/io/PrintStream;")
                self.assertEqual(landed, [(0, i) for i in starts[1:starts.index(call) + 1]] + [(println, 0)])

                c.ok(VirtualMachine.Resume)
                debuggee.wait_for_output(r"(?m)^done 3$", 60)
            finally:
                c.close()
        # The old code ran on in each obsolete frame: the original a1, the changed one, the original.
        printed = [l for l in debuggee.stdout.splitlines() if not l.startswith(("Listening", "ready"))]
        self.assertEqual(printed, ["jj0", "jj3", "jj0", "jj3 2", "jj0", "jj3", "done 3"])


if __name__ == "__main__":
    harness.main()
