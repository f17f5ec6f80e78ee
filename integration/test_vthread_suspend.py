#!/usr/bin/env python3
"""Virtual threads under VirtualMachine.Suspend (JDK 21+), stock as the oracle.

    python3 integration/test_vthread_suspend.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

The VthreadSuspend fixture runs 50 virtual threads that count in a static
AtomicLong and unmount on every turn (yield, parkNanos), so that they mount
again on any free carrier, and one that counts without ever unmounting (its
carrier's suspension does not stop it: JVMTI suspends a carrier with a mounted
virtual thread only at the unmount). A raw JDWP client suspends the VM and checks that
the count stands still over a few hundred round trips and moves again after
Resume, with includevirtualthreads n and y; that a virtual thread started
while the VM is suspended (by a platform thread the debugger resumed alone)
has not run its first statement before Resume, even with the carrier threads
resumed one by one; and that the suspend count of
a virtual thread seen during the VM suspension is 1. On JDK 17 every test is
skipped with a printed message. No sleeps: every wait polls the debuggee with
a deadline.
"""

from __future__ import annotations

import time
import unittest

import harness
from jdwp_client import Client, ClassType, ThreadReference, ThreadStatus, VirtualMachine, i32

FIXTURE = "VthreadSuspend"
ROUND_TRIPS = 300
CHURN_ROUNDS = 20
WAIT_S = 30


class VthreadClient(Client):
    """The raw client plus the fixture's static fields."""

    def attach_fixture(self):
        self.fixture = self.class_by_signature(f"L{FIXTURE};")
        self.statics = self.fields(self.fixture)
        (_, self.counter_object), (_, self.spun_object), (_, self.churned_object) = self.static_values(
            self.fixture, [self.statics[name].id for name in ("counter", "spun", "churned")])
        atomic = self.class_by_signature("Ljava/util/concurrent/atomic/AtomicLong;")
        self.atomic_value = self.fields(atomic)["value"].id

    def counter(self) -> int:
        return self.object_values(self.counter_object, [self.atomic_value])[0][1]

    def spun(self) -> int:
        return self.object_values(self.spun_object, [self.atomic_value])[0][1]

    def churned(self) -> int:
        return self.object_values(self.churned_object, [self.atomic_value])[0][1]

    def static(self, name):
        return self.static_values(self.fixture, [self.statics[name].id])[0][1]

    def set_gate(self, value: int):
        self.ok(ClassType.SetValues, self.type_id(self.fixture) + i32(1)
                + self.field_id(self.statics["gate"].id) + i32(value))

    def suspend_count(self, thread) -> int:
        return self.ok(ThreadReference.SuspendCount, self.object_id(thread)).int()

    def await_true(self, what, predicate):
        deadline = time.monotonic() + WAIT_S
        while not predicate():
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {what}")


class VthreadSuspend(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        if self.cfg.jdk_version < 21:
            print(f"SKIPPED: virtual threads need JDK 21+ (this is JDK {self.cfg.jdk_version})", flush=True)
            self.skipTest("virtual threads need JDK 21+")

    def start(self, include_virtual):
        options = harness.DEFAULT_SERVER_OPTIONS + f",includevirtualthreads={include_virtual}"
        debuggee = harness.Debuggee(self.cfg, FIXTURE, options=options)
        debuggee.__enter__()
        self.addCleanup(debuggee.__exit__, None, None, None)
        c = VthreadClient(debuggee.port, timeout=WAIT_S)
        self.addCleanup(c.close)
        c.wait_for_vm_start()
        c.ok(VirtualMachine.Resume)
        debuggee.wait_for_output(r"vthreads: ready", WAIT_S)
        c.attach_fixture()
        return debuggee, c

    def finish(self, debuggee, c):
        c.set_gate(2)
        debuggee.wait_for_output(r"vthreads: done", WAIT_S)
        self.assertEqual(debuggee.wait(WAIT_S), 0, debuggee.stderr)

    def check_counter_frozen(self, include_virtual):
        debuggee, c = self.start(include_virtual)
        c.ok(VirtualMachine.Suspend)
        first, first_spun = c.counter(), c.spun()
        readings = {(c.counter(), c.spun()) for _ in range(ROUND_TRIPS)}
        last, last_spun = c.counter(), c.spun()
        self.assertEqual(readings | {(last, last_spun)}, {(first, first_spun)},
                         "(counter, spun) moved under VM suspend")
        if include_virtual == "y":
            looper = c.thread_named("vt-loop-7")
            self.assertEqual(c.suspend_count(looper), 1, "SuspendCount of a virtual thread under VM suspend")
        c.ok(VirtualMachine.Resume)
        c.await_true("the counts to move after Resume", lambda: c.counter() > last and c.spun() > last_spun)
        if include_virtual == "y":
            self.assertEqual(c.suspend_count(looper), 0, "SuspendCount after Resume")
        self.finish(debuggee, c)

    def test_counter_frozen_virtual_threads_not_listed(self):
        self.check_counter_frozen("n")

    def test_counter_frozen_virtual_threads_listed(self):
        self.check_counter_frozen("y")

    def check_late_thread(self, include_virtual):
        debuggee, c = self.start(include_virtual)
        threads = c.threads_by_name()
        carriers = [t for name, t in threads.items() if name.startswith("ForkJoinPool-")]
        self.assertTrue(carriers, f"no carrier thread among {sorted(threads)}")
        c.ok(VirtualMachine.Suspend)
        # The starter and the carriers run again: what holds the virtual threads
        # now is their own suspension.
        for thread in [threads["vt-starter"], *carriers]:
            c.ok(ThreadReference.Resume, c.object_id(thread))
        c.set_gate(1)
        c.await_true("vt-starter to start vt-late", lambda: c.static("lateStarted"))
        counts = c.counter(), c.spun()
        for _ in range(ROUND_TRIPS):
            self.assertFalse(c.static("lateRan"), "vt-late ran while the VM was suspended")
        self.assertEqual((c.counter(), c.spun()), counts,
                         "(counter, spun) moved with the VM suspended and the carriers resumed")
        if include_virtual == "y":
            late = c.threads_by_name().get("vt-late")
            if late is not None:  # listed once its start has been seen
                self.assertEqual(c.suspend_count(late), 1, "SuspendCount of vt-late")
        c.ok(VirtualMachine.Resume)
        c.await_true("vt-late to run after Resume", lambda: c.static("lateRan"))
        self.finish(debuggee, c)

    def test_late_virtual_thread_not_listed(self):
        self.check_late_thread("n")

    def test_late_virtual_thread_listed(self):
        self.check_late_thread("y")

    def check_churn(self, include_virtual):
        """Short virtual threads start and end around VM suspensions: every live
        thread listed is counted once, and its frames can be read."""
        debuggee, c = self.start(include_virtual)
        virtual_seen = 0
        for _ in range(CHURN_ROUNDS):
            c.ok(VirtualMachine.Suspend)
            r = c.ok(VirtualMachine.AllThreads)
            for thread in [r.id() for _ in range(r.int())]:
                status = c.ok(ThreadReference.Status, c.object_id(thread)).int()
                if status == ThreadStatus.ZOMBIE:
                    continue
                name = c.ok(ThreadReference.Name, c.object_id(thread)).string()
                self.assertEqual(c.suspend_count(thread), 1, f"SuspendCount of {name}")
                if name.startswith("vt-"):
                    c.frames(thread)
                    virtual_seen += c.ok(ThreadReference.IsVirtual, c.object_id(thread)).boolean()
            churned = c.churned()
            c.ok(VirtualMachine.Resume)
            c.await_true("vt-churn to go on after Resume", lambda: c.churned() > churned)
        if include_virtual == "y":
            self.assertGreater(virtual_seen, 0, "no virtual thread listed")
        self.finish(debuggee, c)

    def test_known_virtual_threads_across_suspensions(self):
        """Virtual threads the debugger has met (their status and frames read),
        idle between suspensions: each later VM suspension holds them all
        (ours: by SuspendAllVirtualThreads itself, no longer excepted from it),
        nested suspensions count, and the carriers and one of them resumed
        alone leave the others held."""
        debuggee, c = self.start("y")
        threads = c.threads_by_name()
        carriers = [t for name, t in threads.items() if name.startswith("ForkJoinPool-")]
        self.assertTrue(carriers, f"no carrier thread among {sorted(threads)}")
        c.ok(VirtualMachine.Suspend)
        # The long-lived ones (vt-short threads end at any time).
        virtual = {name: t for name, t in c.threads_by_name().items()
                   if name.startswith("vt-loop-") or name == "vt-spin"}
        self.assertIn("vt-loop-7", virtual)
        self.assertIn("vt-spin", virtual)
        for thread in virtual.values():
            c.frames(thread)  # met: the agent now knows each one
        c.ok(VirtualMachine.Resume)
        counts = c.counter(), c.spun()
        c.await_true("the counts to move after Resume", lambda: c.counter() > counts[0] and c.spun() > counts[1])

        c.ok(VirtualMachine.Suspend)
        c.ok(VirtualMachine.Suspend)
        c.ok(VirtualMachine.Resume)  # nested: still suspended once
        frozen = c.counter(), c.spun()
        for _ in range(ROUND_TRIPS):
            self.assertEqual((c.counter(), c.spun()), frozen, "(counter, spun) moved under VM suspend")
        for name, thread in virtual.items():
            self.assertEqual(c.suspend_count(thread), 1, f"SuspendCount of {name}")
            self.assertTrue(c.frames(thread), f"no frames of {name}")

        # The carriers run again: the virtual threads stay held by their own
        # suspension. vt-loop-7 resumed alone is counted 0 (it runs once a carrier
        # is free; the held ones mounted may keep every carrier busy), the others 1.
        for thread in carriers:
            c.ok(ThreadReference.Resume, c.object_id(thread))
        for _ in range(ROUND_TRIPS):
            self.assertEqual((c.counter(), c.spun()), frozen, "(counter, spun) moved with the carriers resumed")
        looper = virtual["vt-loop-7"]
        c.ok(ThreadReference.Resume, c.object_id(looper))
        self.assertEqual(c.suspend_count(looper), 0, "SuspendCount of vt-loop-7 resumed alone")
        for _ in range(ROUND_TRIPS):
            self.assertEqual(c.spun(), frozen[1], "vt-spin ran with the VM suspended")
        self.assertEqual(c.suspend_count(virtual["vt-spin"]), 1, "SuspendCount of vt-spin")
        for thread in [looper, *carriers]:
            c.ok(ThreadReference.Suspend, c.object_id(thread))
        self.assertEqual(c.suspend_count(looper), 1, "SuspendCount of vt-loop-7 suspended again")
        c.frames(looper)
        frozen = c.counter(), c.spun()
        for _ in range(ROUND_TRIPS):
            self.assertEqual((c.counter(), c.spun()), frozen, "(counter, spun) moved after vt-loop-7's suspension")

        c.ok(VirtualMachine.Resume)
        for name in ("vt-loop-7", "vt-spin", "vt-loop-0"):
            self.assertEqual(c.suspend_count(virtual[name]), 0, f"SuspendCount of {name} after Resume")
        c.await_true("the counts to move after the last Resume",
                     lambda: c.counter() > frozen[0] and c.spun() > frozen[1])
        self.finish(debuggee, c)

    def test_churn_virtual_threads_not_listed(self):
        self.check_churn("n")

    def test_churn_virtual_threads_listed(self):
        self.check_churn("y")


if __name__ == "__main__":
    harness.main()
