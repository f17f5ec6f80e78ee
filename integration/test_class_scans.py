#!/usr/bin/env python3
"""Class scans (VirtualMachine.AllClasses, AllClassesWithGeneric, ClassesBySignature)
across sessions, raw JDWP, for our agent and stock.

    python3 integration/test_class_scans.py --agent {ours,stock} --agent-lib PATH \\
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

jdwpx answers these from a table it keeps from the first session on (filled at
attach, updated by ClassPrepare, dropping unloaded classes; backend/ids/class_table.h).
The fixture (fixtures/ClassScans.java, server=y,suspend=n) prepares, initializes,
fails and unloads classes before the first debugger, during a session and while
no debugger is attached. At each point both agents must list the same thing:
prepared classes and array classes (not a class only loaded), each with its
current status (a class initialized, or failed, after it was first listed
reports so), its tag and generic signature; classes prepared while no debugger
was attached appear at the next session; unloaded classes disappear; every
listed class is found by ClassesBySignature with the same ID, and the ID works.
A generic signature changed by RedefineClasses is listed as it now is.
"""

from __future__ import annotations

import os
import socket
import subprocess
import tempfile
import time
import unittest

import harness
from jdwp_client import (ClassStatus, Client, Error, EventKind, EventRequest, ModKind, Reader, ReferenceType,
                         SuspendPolicy, TypeTag, VirtualMachine, i32, jdwp_string)

SERVER_OPTIONS = "transport=dt_socket,server=y,address=0,suspend=n"
STEP_TIMEOUT_S = 120
READ_TIMEOUT_S = 60

LINKED = ClassStatus.VERIFIED | ClassStatus.PREPARED
READY = LINKED | ClassStatus.INITIALIZED
FAILED = LINKED | ClassStatus.ERROR

GENERIC = "<T:Ljava/lang/Number;>Ljava/lang/Object;Ljava/util/function/Supplier<TT;>;"
# ClassScans$Generic with a second, unused type parameter (its methods unchanged: redefinable).
GENERIC_REDEFINED = "<T:Ljava/lang/Number;U:Ljava/lang/Object;>Ljava/lang/Object;Ljava/util/function/Supplier<TT;>;"


def sig(name: str) -> str:
    return f"LClassScans${name};"


def all_classes(c: Client, generic: bool = False) -> dict:
    """signature -> list of (tag, id, status[, generic]) from AllClasses(WithGeneric)."""
    r = c.ok(VirtualMachine.AllClassesWithGeneric if generic else VirtualMachine.AllClasses)
    out: dict = {}
    for _ in range(r.int()):
        tag, type_id, signature = r.byte(), r.id("referenceType"), r.string()
        extra = (r.string(),) if generic else ()
        out.setdefault(signature, []).append((tag, type_id, r.int()) + extra)
    assert r.at_end()
    return out


def by_signature(c: Client, signature: str) -> list:
    r = c.ok(VirtualMachine.ClassesBySignature, jdwp_string(signature))
    found = [(r.byte(), r.id("referenceType"), r.int()) for _ in range(r.int())]
    assert r.at_end()
    return found


class ClassScans(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        listener = socket.create_server(("127.0.0.1", 0))
        self.addCleanup(listener.close)
        listener.settimeout(1)  # short, to notice a fixture that died before connecting
        self.debuggee = harness.Debuggee(self.cfg, "ClassScans", args=(str(listener.getsockname()[1]),),
                                         options=SERVER_OPTIONS)
        self.addCleanup(self.debuggee.__exit__, None, None, None)
        self.control = self.accept_control(listener)
        self.addCleanup(self.control.close)
        self.wait_step("before")

    def accept_control(self, listener: socket.socket) -> socket.socket:
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while self.debuggee.returncode is None and time.monotonic() < deadline:
            try:
                return listener.accept()[0]
            except socket.timeout:
                continue
        raise AssertionError(f"the fixture did not connect (rc={self.debuggee.returncode})\n"
                             f"{self.debuggee.stdout}\n{self.debuggee.stderr}")

    def wait_step(self, name: str):
        self.debuggee.wait_for_output(rf"(?m)^step {name} done$", STEP_TIMEOUT_S)

    def step(self, name: str):
        self.control.sendall(b"s")
        self.wait_step(name)

    def attach(self, session: int) -> Client:
        """Session `session` on the port of the session-th Listening line (printed again after each)."""
        m = self.debuggee.wait_for_output(
            r"(?s)" + r"Listening for transport dt_socket at address: (\d+).*?" * (session - 1)
            + r"Listening for transport dt_socket at address: (\d+)", STEP_TIMEOUT_S)
        return Client(int(m.group(session)), timeout=READ_TIMEOUT_S)

    def assert_consistent(self, c: Client):
        """Every listed class: ClassesBySignature finds it with the same ID and status,
        and ReferenceType.Signature of its ID names it; AllClassesWithGeneric agrees.
        With the VM suspended, so that no class comes or goes meanwhile."""
        c.ok(VirtualMachine.Suspend)
        try:
            return self.check_consistent(c)
        finally:
            c.ok(VirtualMachine.Resume)

    def check_consistent(self, c: Client):
        listed = all_classes(c)
        generic = all_classes(c, generic=True)
        self.assertEqual({s: sorted(v[:3] for v in vs) for s, vs in generic.items()},
                         {s: sorted(vs) for s, vs in listed.items()})
        for signature, entries in listed.items():
            self.assertEqual(sorted(by_signature(c, signature)), sorted(entries), signature)
            for _, type_id, _ in entries:
                r = c.ok(ReferenceType.Signature, c.type_id(type_id))
                self.assertEqual(r.string(), signature)
        return generic

    def test_sessions(self):
        # Session 1: everything so far was loaded before any debugger came.
        c = Client(self.debuggee.port, timeout=READ_TIMEOUT_S)
        listed = all_classes(c)
        self.assertEqual([(t, s) for t, _, s in listed[sig("Before")]], [(TypeTag.CLASS, READY)])
        self.assertEqual([(t, s) for t, _, s in listed[sig("Linked")]], [(TypeTag.CLASS, LINKED)])
        self.assertEqual([(t, s) for t, _, s in listed[sig("Broken")]], [(TypeTag.CLASS, LINKED)])
        self.assertNotIn(sig("LoadedOnly"), listed, "a class loaded but not prepared is not listed")
        self.assertEqual(by_signature(c, sig("LoadedOnly")), [])
        self.assertEqual([(t, s) for t, _, s in listed["[" + sig("Before")]], [(TypeTag.ARRAY, 0)])
        self.assertEqual([(t, s) for t, _, s in listed["[[" + sig("Before")]], [(TypeTag.ARRAY, 0)])
        self.assertEqual([t for t, _, _ in listed["Ljava/util/function/Supplier;"]], [TypeTag.INTERFACE])
        self.assertIn("[I", listed)
        self.assertNotIn("I", listed, "primitive classes are not listed")
        self.assertEqual(len(listed["LGone1;"]), 1)
        generic = self.assert_consistent(c)
        self.assertEqual(generic[sig("Generic")][0][3], GENERIC)
        self.assertEqual(generic[sig("Before")][0][3], "")
        self.assertEqual(generic["[" + sig("Before")][0][3], "")
        linked_id = listed[sig("Linked")][0][1]
        for name in ("After1", "After2", "After3"):
            self.assertNotIn(sig(name), listed)

        # Classes prepared during the session, reported by ClassPrepare in order.
        c.ok(EventRequest.Set, bytes([EventKind.CLASS_PREPARE, SuspendPolicy.NONE]) + i32(1)
             + bytes([ModKind.ClassMatch]) + jdwp_string("ClassScans$After*"))
        self.step("after")
        prepared = []
        while len(prepared) < 3:
            r = Reader(c.read_event(), c.sizes)
            r.byte()  # suspend policy
            for _ in range(r.int()):
                self.assertEqual(r.byte(), EventKind.CLASS_PREPARE)
                r.int(), r.id()
                prepared.append((r.byte(), r.id("referenceType"), r.string(), r.int()))
        self.assertEqual([p[2] for p in prepared], [sig("After1"), sig("After2"), sig("After3")])
        listed = all_classes(c)
        for tag, type_id, signature, _ in prepared:
            self.assertEqual(listed[signature], [(tag, type_id, READY)], signature)
        self.assertEqual([(t, s) for t, _, s in listed["[" + sig("After1")]], [(TypeTag.ARRAY, 0)])
        self.assertEqual(listed[sig("Linked")], [(TypeTag.CLASS, linked_id, READY)],
                         "initialized after it was first listed")
        self.assertEqual([(t, s) for t, _, s in listed[sig("Broken")]], [(TypeTag.CLASS, FAILED)])
        self.assert_consistent(c)
        c.close()

        # No debugger: a class unloaded, another prepared and an array made.
        self.step("dormant")
        c = self.attach(2)
        listed = all_classes(c)
        self.assertNotIn("LGone1;", listed, "unloaded while no debugger was attached")
        self.assertEqual(by_signature(c, "LGone1;"), [])
        self.assertEqual([(t, s) for t, _, s in listed[sig("While")]], [(TypeTag.CLASS, READY)])
        self.assertEqual([(t, s) for t, _, s in listed["[" + sig("While")]], [(TypeTag.ARRAY, 0)])
        self.assertEqual([(t, s) for t, _, s in listed[sig("Broken")]], [(TypeTag.CLASS, FAILED)])
        self.assert_consistent(c)

        # A class ID the debugger disposed of: the next scan hands out a new one that works.
        # Sent 4 times this session (AllClasses twice, AllClassesWithGeneric, ClassesBySignature);
        # a larger count makes stock close the connection.
        old = listed[sig("While")][0][1]
        c.ok(VirtualMachine.DisposeObjects, i32(1) + c.object_id(old) + i32(4))
        self.assertEqual(c.error(ReferenceType.Signature, c.type_id(old)), Error.INVALID_OBJECT)
        listed = all_classes(c)
        new = listed[sig("While")][0][1]
        self.assertNotEqual(new, old)
        self.assertEqual(c.ok(ReferenceType.Signature, c.type_id(new)).string(), sig("While"))
        self.assertEqual(by_signature(c, sig("While")), listed[sig("While")])

        # A class unloaded during the session.
        self.step("gone")
        found = by_signature(c, "LGone2;")
        self.assertEqual([(t, s) for t, _, s in found], [(TypeTag.CLASS, READY)])
        self.assertIn("LGone2;", all_classes(c))
        self.step("unload")
        self.assertEqual(by_signature(c, "LGone2;"), [])
        self.assertNotIn("LGone2;", all_classes(c))
        self.assertEqual(c.error(ReferenceType.Signature, c.type_id(found[0][1])), Error.INVALID_OBJECT)
        c.close()

    def test_generic_signature_after_redefine(self):
        # The table keeps generic signatures; a redefinition may change one, and
        # the next AllClassesWithGeneric reads it again (stock reads it each time).
        cfg = self.cfg
        with open(os.path.join(harness.FIXTURES_SRC, "ClassScans.java"), encoding="utf-8") as f:
            source = f.read()
        variant = source.replace("class Generic<T extends Number>", "class Generic<T extends Number, U>")
        variant = variant.replace("new Generic<Integer>()", "new Generic<Integer, Object>()")
        self.assertNotEqual(variant, source)
        with tempfile.TemporaryDirectory(prefix="class-scans-") as folder:
            with open(os.path.join(folder, "ClassScans.java"), "w", encoding="utf-8") as f:
                f.write(variant)
            subprocess.run([cfg.javac, "--release", "17", "-cp", cfg.classes_dir, "-d", folder,
                            os.path.join(folder, "ClassScans.java")], check=True)
            with open(os.path.join(folder, "ClassScans$Generic.class"), "rb") as f:
                classfile = f.read()
        c = Client(self.debuggee.port, timeout=READ_TIMEOUT_S)
        all_classes(c)
        all_classes(c)  # the table's now (built after the first scan)
        listed = all_classes(c, generic=True)
        [(_, type_id, _, generic)] = listed[sig("Generic")]
        self.assertEqual(generic, GENERIC)
        c.ok(VirtualMachine.RedefineClasses, i32(1) + c.type_id(type_id) + i32(len(classfile)) + classfile)
        r = c.ok(ReferenceType.SignatureWithGeneric, c.type_id(type_id))
        self.assertEqual((r.string(), r.string()), (sig("Generic"), GENERIC_REDEFINED))
        listed = all_classes(c, generic=True)
        self.assertEqual(listed[sig("Generic")], [(TypeTag.CLASS, type_id, READY, GENERIC_REDEFINED)])
        self.assertEqual(listed["[" + sig("Before")][0][3], "", "an array has none")
        c.close()


if __name__ == "__main__":
    harness.main()
