#!/usr/bin/env python3
"""Line steps under a class's own default stratum, stock as the oracle.

    python3 integration/test_strata_steps.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

Raw JDWP. fixtures/StrataStep.java loads StrataTarget with a source map
(SourceDebugExtension) whose own default stratum is Mini: Mini line 1 <- Java
@s1, @s2; line 2 <- @s3, @s4; line 3 <- @s5 (or, with "from-s2", Mini line 1
<- @s2 only, the method's first line unmapped). In a new VM per case, the test
stops at @s1 and takes two LINE/OVER steps: with the VM's default stratum never
set, a line step follows the class's own default stratum (Mini), as it does with
VirtualMachine.SetDefaultStratum naming Mini or a stratum the class lacks;
naming Java, it follows the Java lines.

Each case sets the stratum before the first step: stock decides a class's step
lines at its first line step and keeps them when the stratum changes later in
the session; ours follows the stratum in force at each step (not tested here).
"""

from __future__ import annotations

import unittest

import harness
from jdwp_client import Client, ClassType, EventRequest, Reader, VirtualMachine, i32, i64, jdwp_string

BREAKPOINT, SINGLE_STEP, CLASS_PREPARE = 2, 1, 8
SUSPEND_ALL = 2


def line(marker: str) -> int:
    return harness.fixture_line("StrataTarget.java", marker)


class StrataDefaultSteps(unittest.TestCase):
    def two_steps(self, stratum, extra=()):
        """The Java lines where two LINE/OVER steps from @s1 end, in a new VM whose
        default stratum is `stratum` (None: never set)."""
        cfg = harness.config()
        options = "transport=dt_socket,server=y,address=0,suspend=n"
        with harness.Debuggee(cfg, "StrataStep", args=[str(line("// @s1")), *extra], options=options) as debuggee:
            debuggee.wait_for_output(r"(?m)^ready$", 60)
            c = Client(debuggee.port, timeout=60)
            try:
                def next_event(kind, request):
                    """A Reader at the thread ID of the next event of `request`."""
                    while True:
                        event = Reader(c.read_event(), c.sizes)
                        event.byte()
                        for _ in range(event.int()):
                            if event.byte() == kind and event.int() == request:
                                return event
                            break

                if stratum is not None:
                    c.ok(VirtualMachine.SetDefaultStratum, jdwp_string(stratum))
                fixture = c.class_by_signature("LStrataStep;")
                statics = c.fields(fixture)
                set_static = lambda name: c.ok(ClassType.SetValues, c.type_id(fixture) + i32(1)
                                               + c.encode_id(statics[name].id, "field") + b"\x01")
                # ClassPrepare, SUSPEND_ALL, ClassMatch (5) "StrataTarget".
                prepare = c.ok(EventRequest.Set, bytes([CLASS_PREPARE, SUSPEND_ALL]) + i32(1) + bytes([5])
                               + jdwp_string("StrataTarget")).int()
                set_static("go")
                event = next_event(CLASS_PREPARE, prepare)
                event.id()
                event.byte()
                target = event.id("referenceType")
                c.ok(EventRequest.Clear, bytes([CLASS_PREPARE]) + i32(prepare))
                run = c.method_named(target, "run")
                line_of = dict(c.line_table(target, run))
                location = bytes([1]) + c.type_id(target) + c.method_id(run) + i64(
                    c.code_index(target, run, line("// @s1")))
                # Breakpoint, SUSPEND_ALL, LocationOnly (7).
                breakpoint = c.ok(EventRequest.Set, bytes([BREAKPOINT, SUSPEND_ALL]) + i32(1) + bytes([7])
                                  + location).int()
                c.ok(VirtualMachine.Resume)
                thread = next_event(BREAKPOINT, breakpoint).id()
                c.ok(EventRequest.Clear, bytes([BREAKPOINT]) + i32(breakpoint))
                ended = []
                for _ in range(2):
                    # SingleStep, SUSPEND_ALL: Step (10) thread, LINE (1), OVER (1); Count (1) 1.
                    step = c.ok(EventRequest.Set, bytes([SINGLE_STEP, SUSPEND_ALL]) + i32(2) + bytes([10])
                                + c.object_id(thread) + i32(1) + i32(1) + bytes([1]) + i32(1)).int()
                    c.ok(VirtualMachine.Resume)
                    event = next_event(SINGLE_STEP, step)
                    event.id()
                    _, _, method, index = event.location()
                    self.assertEqual(method, run)
                    ended.append(line_of.get(index))
                    c.ok(EventRequest.Clear, bytes([SINGLE_STEP]) + i32(step))
                set_static("released")
                c.ok(VirtualMachine.Resume)
                debuggee.wait_for_output(r"(?m)^done true$", 60)
                return ended
            finally:
                c.close()

    def test_line_steps_by_default_stratum(self):
        mini = [line("// @s3"), line("// @s5")]  # where Mini lines 2 and 3 start
        java = [line("// @s2"), line("// @s3")]
        # "from-s2": the map leaves @s1 out. As stock, code ahead of a method's first
        # mapped line counts as its first line (Mini 1, with @s2): the steps end as above.
        for extra in ((), ("from-s2",)):
            for stratum, expected in ((None, mini), ("Mini", mini), ("Java", java), ("Elsewhere", mini)):
                with self.subTest(map=extra, stratum=stratum):
                    self.assertEqual(self.two_steps(stratum, extra), expected)

if __name__ == "__main__":
    harness.main()
