#!/usr/bin/env python3
"""VirtualMachine.RedefineClasses (HotSwap) through two JDIs, stock as the oracle.

    python3 integration/test_redefine.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

The test writes variants of fixtures/RedefineTarget.java (greet's body changed
and moved one line down; a method added; a field added; another class name)
and compiles them with the JDK's javac. jdi/RedefineJdi.java (and Eclipse's JDI
through eclipse/RedefineEclipse.java) stops the fixture's loop, checks that each
refused redefinition fails with the spec's error (as the JDI exception it maps
to) and the VM carries on, redefines greet, sets a breakpoint on its new first
line and steps through its new lines. The program's output shows the new code.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
import unittest

import harness

SCENARIOS = ("step-before-redefine", "refused-redefinitions", "redefine", "breakpoint-after-redefine",
             "steps-after-redefine")
EXPECTED_OUTPUT = ["round 0 old", "round 1 new!", "round 2 new!", "done"]


class Redefine(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cfg = harness.config()
        cls.tmp = tempfile.TemporaryDirectory(prefix="redefine-")
        source_path = os.path.join(harness.FIXTURES_SRC, "RedefineTarget.java")
        with open(source_path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        first = harness.fixture_line("RedefineTarget.java", "@greet-first")
        # greet-first, greet-return, the blank line and the closing brace (same line count).
        assert lines[first + 1] == "" and lines[first + 2].strip() == "}", "fixture layout changed"

        def variant(replacement, name="RedefineTarget"):
            out = lines[:first - 1] + replacement + lines[first + 3:]
            text = "\n".join(out)
            if name != "RedefineTarget":
                text = text.replace("class RedefineTarget", f"class {name}")
            folder = os.path.join(cls.tmp.name, f"{name}-{len(os.listdir(cls.tmp.name))}")
            os.makedirs(folder)
            src = os.path.join(folder, f"{name}.java")
            with open(src, "w", encoding="utf-8") as f:
                f.write(text)
            subprocess.run([cfg.javac, "-g", "--release", "17", "-d", folder, src], check=True)
            return os.path.join(folder, f"{name}.class")

        original = ['        String s = "old";', "        return s;", "", "    }"]
        cls.new_first = first + 1
        cls.changed = variant(["", '        String s = "ne";', '        s = s.concat("w");', '        return s.concat("!"); }'])
        cls.added_method = variant(original[:2] + ["    } static void extra() {", "    }"])
        cls.added_field = variant(original[:2] + ["    } static int extraField; static void unused() {", "    }"])
        cls.other_name = variant(original, "RedefineOther")
        cls.garbage = os.path.join(cls.tmp.name, "garbage.class")
        with open(cls.garbage, "wb") as f:
            f.write(b"this is no class file")
        # The right magic, then a version from the far future.
        cls.bad_version = os.path.join(cls.tmp.name, "bad-version.class")
        with open(cls.changed, "rb") as f:
            changed = f.read()
        with open(cls.bad_version, "wb") as f:
            f.write(changed[:4] + b"\x00\x00\x7f\x00" + changed[8:])

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_client(self, client):
        cfg = harness.config()
        classpath, main = harness.jdi_driver(self, cfg, client, "RedefineJdi", "RedefineEclipse")
        source = os.path.join(harness.FIXTURES_SRC, "RedefineTarget.java")
        args = [source, self.changed, self.added_method, self.added_field, self.other_name, self.garbage,
                str(self.new_first), self.bad_version]
        with harness.Debuggee(cfg, "RedefineTarget") as debuggee:
            rc, out, err = harness.run_java(cfg, ["-cp", os.pathsep.join(classpath)], main,
                                            [str(debuggee.port), *args], timeout=120)
            debuggee_rc = debuggee.wait(30)
            report = (f"--- {client} driver stdout:\n{out}\n--- driver stderr:\n{err}\n"
                      f"--- debuggee stdout:\n{debuggee.stdout}\n--- debuggee stderr:\n{debuggee.stderr}")
            if cfg.agent != "stock":
                self.assertIn("RESULT ok", out, report)
            for name in SCENARIOS:
                with self.subTest(client=client, scenario=name):
                    if name == "steps-after-redefine" and cfg.agent == "stock":
                        # Stock breaks the spec here: a step over line 9 of the redefined greet
                        # (s = s.concat("w")) ends in main instead of at line 10 of greet, every
                        # run, with both JDIs. The test follows the spec for ours.
                        self.assertRegex(out, r"step 2 after the redefine ended at main:\d+", report)
                        continue
                    self.assertIn(f"SCENARIO {name} PASS", out, report)
            printed = [line for line in debuggee.stdout.splitlines() if not line.startswith("Listening")]
            self.assertEqual(printed, EXPECTED_OUTPUT, report)
            self.assertEqual(debuggee_rc, 0, report)

    def test_jdk_jdi(self):
        self.run_client("jdk")

    def test_eclipse_jdi(self):
        self.run_client("eclipse")


class RedefineObsolete(unittest.TestCase):
    """Locations in the old version of a redefined method (jdi/RedefineStepJdi.java):
    as stock, method ID 0 (JDI's obsolete method), never an ID that the class's
    method list lacks; as stock, an obsolete method has no lines (a line step there
    ends at the next instruction); and a line step in progress while the class is
    redefined ends (test_redefine_steps.py steps on in an obsolete method)."""

    def test_obsolete_frames_and_steps(self):
        cfg = harness.config()
        with tempfile.TemporaryDirectory(prefix="redefine-step-") as tmp:
            with open(os.path.join(harness.FIXTURES_SRC, "RedefineStep.java"), encoding="utf-8") as f:
                text = f.read()
            variants = []
            for factor in (3, 5):
                folder = os.path.join(tmp, str(factor))
                os.makedirs(folder)
                src = os.path.join(folder, "RedefineStep.java")
                with open(src, "w", encoding="utf-8") as f:
                    f.write(text.replace("int b = a * 2;", f"int b = a * {factor};"))
                subprocess.run([cfg.javac, "-g", "--release", "17", "-d", folder, src], check=True)
                variants.append(os.path.join(folder, "RedefineStep.class"))
            line = lambda marker: harness.fixture_line("RedefineStep.java", marker)
            classpath, main = harness.jdi_driver(self, cfg, "jdk", "RedefineStepJdi", "RedefineStepJdi")
            with harness.Debuggee(cfg, "RedefineStep",
                                  options="transport=dt_socket,server=y,address=0,suspend=n") as debuggee:
                debuggee.wait_for_output(r"(?m)^ready$", 60)
                rc, out, err = harness.run_java(cfg, ["-cp", os.pathsep.join(classpath)], main,
                                                [str(debuggee.port), *variants, str(line("// @work-first")),
                                                 str(line("// @work-block"))], timeout=120)
                debuggee_rc = debuggee.wait(60) if cfg.agent != "stock" else None
                report = (f"--- driver stdout:\n{out}\n--- driver stderr:\n{err}\n"
                          f"--- debuggee stdout:\n{debuggee.stdout}\n--- debuggee stderr:\n{debuggee.stderr}")
                checks = dict(re.findall(r"(?m)^CHECK (\S+) (.*)$", out))
                # An obsolete method's location: method ID 0, the class, the code index.
                obsolete = "obsolete-in-RedefineStep@"
                expected = {
                    "a-before": f"work:{line('// @work-first')}",
                    "a-frame0": obsolete + "0",
                    "a-frame1": f"main:{line('// @main-1')}",
                    # As stock: no lines in the old work, so the line step from its
                    # first instruction ends at the next one, as a MIN step.
                    "a-step": obsolete + "1",
                    "b-before": f"work:{line('// @work-block')}",
                    # block(k) returned into the old work, which has no lines: the step
                    # ends at its next instruction (`int b = ...`).
                    "b-step": obsolete + "8",
                    "b-step-frame1": f"main:{line('// @main-2')}",
                    "c-before": f"work:{line('// @work-block')}",
                    # Redefined before the step's first instruction: the step, begun in
                    # the method with lines, ends in the old code without them at once,
                    # at the call of block(k) after `iload_1`.
                    "c-step": obsolete + "5",
                }
                if cfg.agent == "stock":
                    # A step in progress that returns into an obsolete frame (B) kills
                    # stock's VM ("JDWP exit error ... getting frame location",
                    # stepControl.c); ours ends the step there.
                    for name in ("a-before", "a-frame0", "a-frame1", "a-step", "b-before"):
                        self.assertEqual(checks.get(name), expected[name], report)
                    self.assertIn("getting frame location", debuggee.stdout + debuggee.stderr, report)
                    return
                self.assertEqual(checks, expected, report)
                self.assertIn("RESULT ok", out, report)
                printed = [l for l in debuggee.stdout.splitlines() if not l.startswith(("Listening", "ready"))]
                # The old code runs on in each obsolete frame (factors 2, 3, then 5).
                self.assertEqual(printed, ["result 4", "result 6", "result 10", "done"], report)
                self.assertEqual(debuggee_rc, 0, report)


if __name__ == "__main__":
    harness.main()
