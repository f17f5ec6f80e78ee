#!/usr/bin/env python3
"""Strings on the wire with and without mutf8=y, for our agent and stock.

JDWP strings are standard UTF-8; with mutf8=y the agent sends and takes the
JVM's modified UTF-8 instead (NUL as C0 80, a supplementary character as two
3-byte surrogates). A string with both goes in through VirtualMachine.CreateString
and comes back through StringReference.Value, byte for byte; a class signature
(plain ASCII) is the same either way.

The same through JDI clients (jdi/Mutf8Jdi.java): the JDK's JDI, which speaks
standard UTF-8, and Eclipse's (eclipse/Mutf8Eclipse.java), which speaks modified
UTF-8, each against the agent with and without mutf8=y. What the JVM holds and
what comes back are checked for a string with the same bytes in both encodings
always, and for one with NUL and a supplementary character where the client's
encoding is the agent's; elsewhere the driver prints a SKIP naming the client's
limitation.
"""

from __future__ import annotations

import os
import re
import unittest

import harness
from jdwp_client import Client, ReferenceType, StringReference, VirtualMachine, i32, jdwp_string

READ_TIMEOUT_S = 30
# "a", NUL, "b", U+1F600
STANDARD = b"a\x00b\xf0\x9f\x98\x80"
MODIFIED = b"a\xc0\x80b\xed\xa0\xbd\xed\xb8\x80"
DRIVER_TIMEOUT_S = 60
CHECK_RE = re.compile(r"(?m)^CHECK (\S+) (.*)$")
# The wire encoding each JDI client writes and reads.
CLIENT_ENCODING = {"jdk": "standard", "eclipse": "modified"}


class Mutf8(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()

    def attach(self, extra_options: str) -> Client:
        options = harness.DEFAULT_SERVER_OPTIONS + extra_options
        debuggee = harness.Debuggee(self.cfg, "Hello", args=("0", "600000"), options=options)
        self.addCleanup(debuggee.__exit__, None, None, None)
        self.addCleanup(debuggee.kill)
        client = Client(debuggee.port, timeout=READ_TIMEOUT_S)
        self.addCleanup(client.close)
        client.wait_for_vm_start()
        return client

    def round_trip(self, client: Client, encoded: bytes) -> bytes:
        string_id = client.ok(VirtualMachine.CreateString, i32(len(encoded)) + encoded).id()
        return client.ok(StringReference.Value, client.object_id(string_id)).raw_string()

    def class_signature(self, client: Client) -> bytes:
        reply = client.ok(VirtualMachine.ClassesBySignature, jdwp_string("Ljava/lang/String;"))
        self.assertEqual(reply.int(), 1)
        reply.byte()
        type_id = reply.id("referenceType")
        return client.ok(ReferenceType.Signature, client.type_id(type_id)).raw_string()

    def test_default_is_standard_utf8(self):
        client = self.attach("")
        self.assertEqual(self.round_trip(client, STANDARD), STANDARD)
        self.assertEqual(self.class_signature(client), b"Ljava/lang/String;")

    def test_mutf8_sends_and_takes_modified_utf8(self):
        client = self.attach(",mutf8=y")
        self.assertEqual(self.round_trip(client, MODIFIED), MODIFIED)
        self.assertEqual(self.class_signature(client), b"Ljava/lang/String;")

    def test_either_encoding_is_taken_whatever_mutf8_says(self):
        # As stock (its inStream_readString): strings from the debugger are made
        # modified UTF-8, which leaves modified UTF-8 as it is; only what goes
        # out follows mutf8.
        for extra, sent, back in (("", MODIFIED, STANDARD), (",mutf8=y", STANDARD, MODIFIED)):
            with self.subTest(options=extra or "default"):
                self.assertEqual(self.round_trip(self.attach(extra), sent), back)

    def run_jdi(self, client: str, agent_encoding: str):
        cfg = self.cfg
        classpath, main = harness.jdi_driver(self, cfg, client, "Mutf8Jdi", "Mutf8Eclipse")
        extra = ",mutf8=y" if agent_encoding == "modified" else ""
        with harness.Debuggee(cfg, "Hello", args=("0", "600000"),
                              options=harness.DEFAULT_SERVER_OPTIONS + extra) as debuggee:
            rc, out, err = harness.run_java(cfg, ["-cp", os.pathsep.join(classpath)], main,
                                            [str(debuggee.port), agent_encoding], timeout=DRIVER_TIMEOUT_S)
            report = (f"--- {client} driver (agent {agent_encoding} UTF-8) stdout:\n{out}\n--- stderr:\n{err}"
                      f"\n--- debuggee stderr:\n{debuggee.stderr}")
        for line in out.splitlines():
            if line.startswith("SKIP "):
                print(f"  {client}: {line}", flush=True)
        checks = dict(CHECK_RE.findall(out))
        expected = {"bmp-jvm": "ok", "bmp-back": "ok", "nul-and-supplementary-jvm": "ok", "signature": "ok"}
        if CLIENT_ENCODING[client] == agent_encoding:
            expected["nul-and-supplementary-back"] = "ok"
        self.assertEqual(checks, expected, report)
        self.assertIn("RESULT ok", out, report)
        self.assertEqual(rc, 0, report)

    def test_jdk_jdi_default(self):
        self.run_jdi("jdk", "standard")

    def test_jdk_jdi_mutf8(self):
        self.run_jdi("jdk", "modified")

    def test_eclipse_jdi_default(self):
        self.run_jdi("eclipse", "standard")

    def test_eclipse_jdi_mutf8(self):
        self.run_jdi("eclipse", "modified")


if __name__ == "__main__":
    harness.main()
