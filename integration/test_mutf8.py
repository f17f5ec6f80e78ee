#!/usr/bin/env python3
"""Strings on the wire with and without mutf8=y, for our agent and stock.

JDWP strings are standard UTF-8; with mutf8=y the agent sends and takes the
JVM's modified UTF-8 instead (NUL as C0 80, a supplementary character as two
3-byte surrogates). A string with both goes in through VirtualMachine.CreateString
and comes back through StringReference.Value, byte for byte; a class signature
(plain ASCII) is the same either way.
"""

from __future__ import annotations

import unittest

import harness
from jdwp_client import Client, ReferenceType, StringReference, VirtualMachine, i32, jdwp_string

READ_TIMEOUT_S = 30
# "a", NUL, "b", U+1F600
STANDARD = b"a\x00b\xf0\x9f\x98\x80"
MODIFIED = b"a\xc0\x80b\xed\xa0\xbd\xed\xb8\x80"


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


if __name__ == "__main__":
    harness.main()
