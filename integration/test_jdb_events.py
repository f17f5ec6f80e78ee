#!/usr/bin/env python3
"""jdb sessions about events and threads: the same transcript for our agent and
the stock one (the oracle).

  - `kill <thread> <expr>` (ThreadReference.Stop) of a waiting, a running and
    a sleeping thread, then `cont`: each exception comes as an uncaught
    exception event, then the application exits (JdbFixture, JdbKill);
  - a breakpoint set before its class is loaded (deferred), hit by several
    threads while jdb steps (`next`, `step`) in one of them: every command
    gets its prompt back (JdbThreads).
Lines are found through the "// @bp-..." markers of the fixtures.
"""

import re
import unittest

import harness


class JdbEvents(unittest.TestCase):
    def start(self, fixture: str):
        self.cfg = harness.config()
        self.debuggee = harness.Debuggee(self.cfg, fixture)
        self.addCleanup(self.debuggee.__exit__, None, None, None)
        self.jdb = harness.Jdb(self.cfg, self.debuggee.port, args=["-sourcepath", harness.FIXTURES_SRC])
        self.addCleanup(self.jdb.__exit__, None, None, None)
        self.jdb.expect_started()

    def tearDown(self):
        if harness.test_failed(self) and hasattr(self, "jdb"):
            print(f"\n--- jdb transcript ({self.id()}):\n{self.jdb.transcript}")
            print(f"--- debuggee stdout:\n{self.debuggee.stdout}\n--- debuggee stderr:\n{self.debuggee.stderr}")

    def test_kill_a_waiting_thread_then_cont(self):
        self.start("JdbFixture")
        at = harness.fixture_line("JdbFixture.java", "// @bp-main")
        self.jdb.command(f"stop at JdbFixture:{at}")
        self.jdb.send("run")
        self.jdb.expect(r'Breakpoint hit: "thread=main"')
        self.jdb.expect_prompt()
        threads = self.jdb.command("threads")
        worker = re.search(r"\(java\.lang\.Thread\)(\d+)\s+fixture-worker\s+cond\. waiting", threads)
        self.assertIsNotNone(worker, threads)
        # jdb evaluates the exception in main (NewInstance, all threads resumed), then stops the worker.
        out = self.jdb.command(f'kill {worker.group(1)} new java.lang.RuntimeException("killed")')
        self.assertIn("killing thread: fixture-worker", out)
        self.assertRegex(out, r"instance of java\.lang\.Thread\(name='fixture-worker', id=\d+\) killed")
        self.jdb.command(f"clear JdbFixture:{at}")
        self.jdb.send("cont")
        # jdb asks for uncaught Throwables at start: the worker's death stops it.
        self.jdb.expect(r'Exception occurred: java\.lang\.RuntimeException \(uncaught\)"thread=fixture-worker"')
        self.jdb.expect_prompt()
        self.jdb.send("cont")
        self.jdb.expect(r"The application exited", timeout=30)
        self.assertEqual(self.jdb.wait(30), 0)
        self.assertEqual(self.debuggee.wait(30), 0)
        self.assertIn('Exception in thread "fixture-worker" java.lang.RuntimeException: killed', self.debuggee.stderr)
        # The worker never got past await(): staticCounter stays 7.
        self.assertIn("fixture: done total=95 caught=5 sum=10 counter=7", self.debuggee.stdout)

    def test_kill_a_running_and_a_sleeping_thread_then_cont(self):
        # One kill per stop: jdb evaluates the exception with an invocation that
        # resumes every thread, so a thread killed before would die during the next
        # kill's evaluation, and its event would interleave with that command's output.
        self.start("JdbKill")
        at = harness.fixture_line("JdbKill.java", "// @bp-ready")
        self.jdb.command(f"stop at JdbKill:{at}")
        self.jdb.send("run")
        self.jdb.expect(r'Breakpoint hit: "thread=main"')
        self.jdb.expect_prompt()
        self.jdb.command(f"clear JdbKill:{at}")
        threads = self.jdb.command("threads")
        ids = {}
        for name in ("spinner", "sleeper"):
            m = re.search(rf"\(java\.lang\.Thread\)(\d+)\s+{name}\s", threads)
            self.assertIsNotNone(m, threads)
            ids[name] = m.group(1)
        for name in ("spinner", "sleeper"):
            out = self.jdb.command(f'kill {ids[name]} new java.lang.RuntimeException("{name} killed")')
            self.assertRegex(out, rf"instance of java\.lang\.Thread\(name='{name}', id=\d+\) killed")
            self.jdb.send("cont")
            # jdb asks for uncaught Throwables at start: the thread's death stops the VM.
            self.jdb.expect(rf'Exception occurred: java\.lang\.RuntimeException \(uncaught\)"thread={name}"')
            self.jdb.expect_prompt()
        self.jdb.send("cont")
        self.jdb.expect(r"The application exited", timeout=30)
        self.assertEqual(self.debuggee.wait(30), 0)
        self.assertIn("fixture: done", self.debuggee.stdout)
        for name in ("spinner", "sleeper"):  # the two threads' reports may interleave
            self.assertIn(f'Exception in thread "{name}" ', self.debuggee.stderr)
            self.assertIn(f"java.lang.RuntimeException: {name} killed", self.debuggee.stderr)

    def test_steps_in_threads_hitting_a_deferred_breakpoint(self):
        self.start("JdbThreads")
        at = harness.fixture_line("JdbThreads.java", "// @bp-deferred")
        out = self.jdb.command(f"stop at JdbThreads$Deferred:{at}")
        self.assertIn("Deferring breakpoint", out)
        self.jdb.send("run")
        self.jdb.expect(r'Breakpoint hit: "thread=worker-\d"')
        self.jdb.expect_prompt()
        stops = {"Breakpoint hit": 1, "Step completed": 0}
        # Each command resumes everything; whichever thread stops next (a step
        # completing, or another worker at the breakpoint) becomes current.
        for command in ["next", "step", "next", "step", "next", "next", "step", "next", "step", "next"]:
            self.jdb.send(command)
            m = self.jdb.expect(r'(Breakpoint hit|Step completed): "thread=worker-\d"')
            stops[m.group(1)] += 1
            self.jdb.expect_prompt()
        self.assertIn(f"Removed: breakpoint JdbThreads$Deferred:{at}", self.jdb.command(f"clear JdbThreads$Deferred:{at}"))
        for _ in range(20):
            self.jdb.send("cont")
            m = self.jdb.expect(r"Breakpoint hit|Step completed|The application exited", timeout=30)
            if m.group(0) == "The application exited":
                break
            self.jdb.expect_prompt()
        else:
            self.fail("the application did not exit")
        self.assertEqual(self.debuggee.wait(30), 0)
        self.assertIn("fixture: threads done", self.debuggee.stdout)
        # Another worker met the breakpoint while one was being stepped.
        self.assertGreaterEqual(stops["Breakpoint hit"], 2, stops)


if __name__ == "__main__":
    harness.main()
