#!/usr/bin/env python3
"""jdb sessions against JdbFixture: the same script for our agent and the stock one.

Lines are found through the "// @bp-..." markers in fixtures/JdbFixture.java.
"""

import os
import re
import unittest

import harness

FIXTURE = "JdbFixture"


def line(marker: str) -> int:
    return harness.fixture_line("JdbFixture.java", f"// @bp-{marker}")


class JdbSession(unittest.TestCase):
    """Starts the fixture suspended and attaches jdb; tearDown checks nothing leaks."""

    def setUp(self):
        self.cfg = harness.config()
        self.debuggee = harness.Debuggee(self.cfg, FIXTURE)
        self.addCleanup(self.debuggee.__exit__, None, None, None)
        self.jdb = harness.Jdb(self.cfg, self.debuggee.port, args=["-sourcepath", harness.FIXTURES_SRC])
        self.addCleanup(self.jdb.__exit__, None, None, None)
        self.jdb.expect_started()  # suspend=y

    def tearDown(self):
        if harness.test_failed(self):
            print(f"\n--- jdb transcript ({self.id()}):\n{self.jdb.transcript}")
            print(f"--- debuggee stdout:\n{self.debuggee.stdout}\n--- debuggee stderr:\n{self.debuggee.stderr}")

    # Helpers -----------------------------------------------------------

    def cmd(self, command: str) -> str:
        return self.jdb.command(command)

    def expect_stop(self, kind: str, method: str, marker: str):
        """Waits for 'Breakpoint hit' / 'Step completed' at JdbFixture.<method>() on the marked line."""
        m = self.jdb.expect(rf'{kind}: "thread=([^"]+)", {re.escape(FIXTURE)}\.([\w$]+)\(\), line=(\d+) bci=\d+')
        self.assertEqual((m.group(2), int(m.group(3))), (method, line(marker)), m.group(0))
        self.jdb.expect_prompt()
        return m

    def assert_print(self, expr: str, value: str):
        out = self.cmd(f"print {expr}")
        self.assertIn(f" {expr} = {value}\n", out)

    def run_to_exit(self):
        self.jdb.send("cont")
        self.jdb.expect(r"The application exited", timeout=30)
        self.assertEqual(self.jdb.wait(30), 0)
        self.assertEqual(self.debuggee.wait(30), 0)
        self.assertIn("fixture: done total=95 caught=5 sum=10 counter=8", self.debuggee.stdout)

    # Tests -------------------------------------------------------------

    def test_breakpoint_and_inspection(self):
        out = self.cmd(f"stop at {FIXTURE}:{line('main')}")
        self.assertIn(f"{FIXTURE}:{line('main')}", out)
        self.jdb.send("run")
        self.expect_stop("Breakpoint hit", "main", "main")

        where = self.cmd("where")
        self.assertRegex(where, rf"\[1\] {FIXTURE}\.main \(JdbFixture\.java:{line('main')}\)")

        local_vars = self.cmd("locals")
        for expected in ["z = true", "b = 8", "c = q", "s = -300", "i = 42", "l = 1234567890123",
                         "f = 1.5", "d = 2.25", 'str = "jdwpx"']:
            self.assertRegex(local_vars, rf"(?m)^{re.escape(expected)}$")
        self.assertRegex(local_vars, r"(?m)^ints = instance of int\[3\] \(id=\d+\)$")
        self.assertRegex(local_vars, r"(?m)^strs = instance of java\.lang\.String\[2\] \(id=\d+\)$")
        self.assertRegex(local_vars, r"(?m)^p = instance of JdbFixture\$Point\(id=\d+\)$")

        self.assert_print("i", "42")
        self.assert_print("z", "true")
        self.assert_print("b", "8")
        self.assert_print("c", "q")
        self.assert_print("s", "-300")
        self.assert_print("l", "1234567890123")
        self.assert_print("f", "1.5")
        self.assert_print("d", "2.25")
        self.assert_print("str", '"jdwpx"')
        self.assert_print("ints[1]", "2")
        self.assert_print("strs[0]", '"alpha"')
        self.assert_print("p.x", "3")
        self.assert_print("p.label", '"pt"')
        # jdb prints an object through its toString(): a method invocation in the debuggee.
        self.assert_print("p", '"Point(3,4,pt)"')
        self.assert_print("JdbFixture.staticCounter", "7")
        self.assert_print("JdbFixture.greeting", '"hello"')
        self.assert_print("i + 1", "43")
        self.assert_print("str.length()", "5")

        dump = self.cmd("dump p")
        self.assertRegex(dump, r"p = \{\s+x: 3\s+y: 4\s+label: \"pt\"\s+\}")
        self.assertIn("ints = {\n1, 2, 3\n}", self.cmd("dump ints"))

        listing = self.cmd("list")
        self.assertRegex(listing, rf"(?m)^{line('main')}\s+=>\s+System\.out\.println")

        classes = self.cmd("classes")
        self.assertRegex(classes, r"(?m)^JdbFixture\$Point$")
        self.assertRegex(classes, r"(?m)^java\.lang\.String$")

        threads = self.cmd("threads")
        main_thread = re.search(r"\(java\.lang\.Thread\)(\d+)\s+main\s+running \(at breakpoint\)", threads)
        self.assertIsNotNone(main_thread, threads)
        worker = re.search(r"\(java\.lang\.Thread\)(\d+)\s+fixture-worker\s+cond\. waiting", threads)
        self.assertIsNotNone(worker, threads)

        # Switch to the worker: the prompt names it and its stack shows the lambda.
        self.cmd(f"thread {worker.group(1)}")
        self.assertEqual(self.jdb.last_prompt, "fixture-worker[1] ")
        worker_where = self.cmd("where")
        self.assertRegex(worker_where, rf"{FIXTURE}\.lambda\$main\$0 \(JdbFixture\.java:{line('worker-wait')}\)")
        self.cmd(f"thread {main_thread.group(1)}")
        self.assertEqual(self.jdb.last_prompt, "main[1] ")

        out = self.cmd(f"clear {FIXTURE}:{line('main')}")
        self.assertIn(f"Removed: breakpoint {FIXTURE}:{line('main')}", out)
        self.assertIn("No breakpoints set.", self.cmd("clear"))
        self.run_to_exit()

    def test_stepping(self):
        self.cmd(f"stop in {FIXTURE}.leaf")
        self.jdb.send("run")
        self.expect_stop("Breakpoint hit", "leaf", "leaf")
        where = self.cmd("where")
        frames = re.findall(r"\[(\d)\] JdbFixture\.(\w+) \(JdbFixture\.java:(\d+)\)", where)
        self.assertEqual(frames, [("1", "leaf", str(line("leaf"))),
                                  ("2", "middle", str(line("middle-call"))),
                                  ("3", "outer", str(line("outer-call"))),
                                  ("4", "main", str(line("step-start")))])
        self.assert_print("v", "42")

        self.jdb.send("next")
        self.expect_stop("Step completed", "leaf", "leaf-return")
        self.assert_print("doubled", "84")
        self.jdb.send("step up")
        self.expect_stop("Step completed", "middle", "middle-call")
        self.jdb.send("next")
        self.expect_stop("Step completed", "middle", "middle-after")
        self.assert_print("r", "85")
        self.jdb.send("step up")
        self.expect_stop("Step completed", "outer", "outer-call")
        self.jdb.send("next")
        self.expect_stop("Step completed", "outer", "outer-after")
        self.assert_print("m", "95")
        # Stepping off the end of outer() lands back in main on the calling line.
        self.jdb.send("next")
        self.expect_stop("Step completed", "main", "step-start")
        self.jdb.send("next")
        self.expect_stop("Step completed", "main", "after-outer")
        self.assert_print("total", "95")
        # step enters catcher(), then thrower().
        self.jdb.send("step")
        m = self.jdb.expect(r'Step completed: "thread=main", JdbFixture\.catcher\(\), line=(\d+)')
        self.jdb.expect_prompt()
        self.assertEqual(int(m.group(1)), line("catch-try"))
        self.jdb.send("step")
        self.expect_stop("Step completed", "thrower", "throw")

        self.cmd(f"clear {FIXTURE}.leaf")
        self.cmd(f"stop at {FIXTURE}:{line('loop')}")
        for k in range(3):
            self.jdb.send("cont")
            self.expect_stop("Breakpoint hit", "main", "loop")
            self.assert_print("k", str(k))
            self.assert_print("sum", str(k * (k - 1) // 2))
        self.cmd(f"clear {FIXTURE}:{line('loop')}")
        self.run_to_exit()

    def test_catch_exception(self):
        out = self.cmd(f"catch {FIXTURE}$FixtureException")
        self.assertIn(f"{FIXTURE}$FixtureException", out)
        self.jdb.send("run")
        m = self.jdb.expect(
            r"Exception occurred: JdbFixture\$FixtureException \(to be caught at: JdbFixture\.catcher\(\), "
            r"line=(\d+) bci=\d+\)\s*\"thread=main\", JdbFixture\.thrower\(\), line=(\d+) bci=\d+")
        self.jdb.expect_prompt()
        self.assertEqual((int(m.group(1)), int(m.group(2))), (line("catch-clause"), line("throw")))
        self.assertRegex(self.cmd("where"), rf"\[2\] {FIXTURE}\.catcher \(JdbFixture\.java:{line('catch-try')}\)")
        self.assert_print("code", "5")
        self.cmd(f"ignore {FIXTURE}$FixtureException")
        self.run_to_exit()


if __name__ == "__main__":
    harness.main()
