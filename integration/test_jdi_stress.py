#!/usr/bin/env python3
"""Concurrent breakpoints, thread churn and VM suspend/resume through JDI.

Suspensions requested while other threads are inside the agent's callbacks must
neither hang the VM nor lose a hit; every hit is reported once per breakpoint
event set (both requests on the location arrive in one set).
"""

import os
import unittest

import harness

WORKERS = 4
ROUNDS = 25
# The bare storm: each stop resumed at once, while helper threads start and end.
BARE_ROUNDS = 150


class JdiStress(unittest.TestCase):
    def run_stress(self, rounds: int, events_per_hit: int, *mode: str):
        """JdiStress on ConcurrentHits: WORKERS threads, `rounds` hits each; every hit
        reported, `events_per_hit` breakpoint events for each, and the VM exits cleanly."""
        cfg = harness.config()
        jdi_classes = os.path.join(cfg.build_dir, "integration", "jdi-classes")
        home = harness.debuggee_java_home(cfg)
        line = harness.fixture_line("ConcurrentHits.java", "// @bp-hot")
        rc, out, err = harness.run_java(
            cfg, ["-cp", jdi_classes], "JdiStress",
            [home, cfg.classes_dir, str(line), str(WORKERS), str(rounds), *mode], timeout=240)
        report = f"--- stdout:\n{out}\n--- stderr:\n{err}"
        self.assertEqual(rc, 0, report)
        self.assertIn(f"HITS {WORKERS * rounds}", out, report)
        self.assertIn(f"BREAKPOINT_EVENTS {events_per_hit * WORKERS * rounds}", out, report)
        self.assertIn("debuggee: concurrent: done", out, report)
        self.assertRegex(out, r"(?m)^EXIT code=0$", report)
        self.assertIn("RESULT ok", out, report)

    def test_concurrent_breakpoints_with_suspend_all(self):
        # Two requests on the location: both events in each set.
        self.run_stress(ROUNDS, 2)

    def test_suspend_all_storm_resumed_at_once_while_threads_start(self):
        # Each VirtualMachine.Resume comes right after its event, with no other
        # command in between: a helper thread suspended at the end of its
        # ThreadStart callback is among the threads every resume lets go, and
        # must neither hang nor be lost. (An agent that leaves those JVMTI
        # resumes to the event thread, as an I/O-thread resume would, hangs
        # here if that helper makes them itself while still suspended.)
        self.run_stress(BARE_ROUNDS, 1, "bare")


if __name__ == "__main__":
    harness.main()
