#!/usr/bin/env python3
"""Several threads at one SUSPEND_ALL breakpoint at the same moment, stock as the oracle.

    python3 integration/test_simultaneous_hits.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

fixtures/SimultaneousHits.java releases 8 threads together (a CyclicBarrier) round
after round (ROUNDS); each meets the breakpoint once a round, so they race into the
agent's event path together (ours: the direct path of a platform thread's
SUSPEND_ALL event, the reporter's queue behind it). jdi/SimultaneousHitsJdi.java checks at every set,
against a model of the suspend counts: one set per hit (none lost, none
reported twice, by the hit's own locals), one event per set, every application
thread suspended with the count the model says, the event thread's frame at
the breakpoint. Scenarios:
  - all platform threads on a SUSPEND_ALL breakpoint, each set answered by
    VirtualMachine.resume;
  - a mix: half the threads on SUSPEND_ALL, half on SUSPEND_EVENT_THREAD, and now
    and then a SUSPEND_ALL set answered by resuming its thread alone, which must
    reach the next line while the others stay suspended;
  - virtual threads (JDK 21+; skipped with a message on 17), with
    includevirtualthreads=n (stock's default: allThreads lists none, the driver
    checks those it met) and =y;
  - the debugger disposing while threads are stopped and others race into the
    breakpoint: every thread runs on, and a second debugger's breakpoint hits.
Each ends with the program's last line and the VM's exit within EXIT_S.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
import unittest

import harness

FIXTURE = "SimultaneousHits"
SOURCE = "SimultaneousHits.java"
WORKERS = 8
# Rounds per scenario: 200 hits where every set is answered alike, fewer where a set
# costs more (allThreads lists the virtual threads too) or the mix's checks.
ROUNDS = {"all": 25, "mix": 15, "virtual": 10, "dispose": 25}
DRIVER_TIMEOUT_S = 120
EXIT_S = 30
LISTENING = r"Listening for transport dt_socket at address: (\d+)\n"
CHECK_RE = re.compile(r"(?m)^CHECK (\S+) (.*)$")


def expected_run(scenario: str) -> dict:
    hits = WORKERS * ROUNDS[scenario]
    return {
        "hits": f"total={hits}/{hits} distinct={hits} duplicates=0 per-thread=even",
        "sets": f"one-event-each=true all={hits}",
        "mismatches": "none",
        "system-threads": "suspended",
        "carriers": "none",
        "vm-death": "true",
    }


# What the driver must print; the same for stock and ours.
EXPECTED = {
    "all": expected_run("all"),
    "mix": dict(expected_run("mix"), sets=f"one-event-each=true all={WORKERS * ROUNDS['mix'] // 2} after=matches"),
    "virtual": {k: v for k, v in expected_run("virtual").items() if k != "carriers"},
    "dispose": {"dispose": "at=6 no-mismatch"},
    "second": {
        "second-counts": "all-0",
        "second-workers-left": "false",
        "second-hit": "main true/1 line=true events=1",
    },
}


class SimultaneousHits(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()

    def drive(self, scenario: str, port: int, rounds: int) -> str:
        lines = [harness.fixture_line(SOURCE, m) for m in ("// @sh-all", "// @sh-after", "// @sh-one", "// @sh-tick")]
        jdi = os.path.join(self.cfg.build_dir, "integration", "jdi-classes")
        started = time.monotonic()
        rc, out, err = harness.run_java(self.cfg, ["-cp", jdi], "SimultaneousHitsJdi",
                                        [scenario, str(port), *map(str, lines), str(WORKERS), str(rounds)],
                                        timeout=DRIVER_TIMEOUT_S)
        report = f"--- {scenario} driver (rc={rc}) stdout:\n{out}\n--- stderr:\n{err}"
        for line in out.splitlines():
            if line.startswith("DETAIL "):
                print(f"  {scenario}: {line[len('DETAIL '):]}", flush=True)
        print(f"  {scenario}: driver {time.monotonic() - started:.1f} s", flush=True)
        checks = dict(CHECK_RE.findall(out))
        expectations = dict(EXPECTED[scenario])
        if scenario == "virtual":
            # A carrier whose virtual thread is mounted is suspended by JVMTI only at the
            # unmount. Stock then reports it not suspended (ThreadReference.Status) while it
            # counts it (SuspendCount 1): against JDI's isSuspended ("has been suspended by
            # the debugger"), so that part is checked on the spec, for ours only.
            if self.cfg.agent == "ours":
                expectations["carriers"] = "suspended"
            else:
                print(f"  {scenario}: stock, carrier threads: {checks.get('carriers')} (not checked: see above)",
                      flush=True)
        for name, expected in expectations.items():
            with self.subTest(check=f"{scenario}:{name}"):
                self.assertEqual(checks.get(name), expected, report)
        self.assertIn("RESULT ok", out, report)
        self.assertEqual(rc, 0, report)
        return out

    def ends_on_time(self, debuggee):
        started = time.monotonic()
        try:
            rc = debuggee.wait(EXIT_S)
        except subprocess.TimeoutExpired as e:
            self.fail(f"the VM did not exit within {EXIT_S} s ({e})\n--- stdout:\n{debuggee.stdout}"
                      f"\n--- stderr:\n{debuggee.stderr}")
        print(f"  VM exit {time.monotonic() - started:.2f} s after the debugger's end", flush=True)
        self.assertEqual(rc, 0, debuggee.stderr)
        self.assertRegex(debuggee.stdout, r"(?s)hits: workers done\n.*hits: done\n$")

    def run_scenario(self, scenario: str, mode: str, options: str = harness.DEFAULT_SERVER_OPTIONS,
                     jvm_args=()):
        rounds = ROUNDS[scenario]
        with harness.Debuggee(self.cfg, FIXTURE, args=[mode, str(WORKERS), str(rounds)], options=options,
                              jvm_args=jvm_args) as debuggee:
            self.drive(scenario, debuggee.port, rounds)
            self.ends_on_time(debuggee)

    def skip_before_21(self):
        if self.cfg.jdk_version < 21:
            print(f"SKIPPED: virtual threads need JDK 21+ (this is JDK {self.cfg.jdk_version})", flush=True)
            self.skipTest("virtual threads need JDK 21+")

    def test_platform_threads_at_a_suspend_all_breakpoint(self):
        self.run_scenario("all", "all")

    def test_suspend_all_and_event_thread_hits_with_a_thread_resumed_alone(self):
        self.run_scenario("mix", "mix")

    # Carriers for every virtual thread, so that all of them can be at the breakpoint at once.
    VIRTUAL_JVM_ARGS = [f"-Djdk.virtualThreadScheduler.parallelism={WORKERS}"]

    def test_virtual_threads_at_a_suspend_all_breakpoint(self):
        self.skip_before_21()
        self.run_scenario("virtual", "virtual", jvm_args=self.VIRTUAL_JVM_ARGS)

    def test_virtual_threads_at_a_suspend_all_breakpoint_listed(self):
        self.skip_before_21()
        self.run_scenario("virtual", "virtual", options=harness.DEFAULT_SERVER_OPTIONS + ",includevirtualthreads=y",
                          jvm_args=self.VIRTUAL_JVM_ARGS)

    def test_dispose_while_threads_race_into_the_breakpoint(self):
        rounds = ROUNDS["dispose"]
        with harness.Debuggee(self.cfg, FIXTURE, args=["dispose", str(WORKERS), str(rounds)]) as debuggee:
            self.drive("dispose", debuggee.port, rounds)
            # Every worker runs on to its last round without the debugger.
            debuggee.wait_for_output(r"hits: workers done\n", EXIT_S)
            # The agent listens again and says so (stock on a new port, jdwpx on the same).
            second = int(debuggee.wait_for_output(rf"(?s){LISTENING}.*?{LISTENING}", EXIT_S).group(2))
            self.drive("second", second, rounds)
            self.ends_on_time(debuggee)


if __name__ == "__main__":
    harness.main()
