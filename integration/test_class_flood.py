#!/usr/bin/env python3
"""A SUSPEND_NONE ClassPrepare request never stalls the loading thread on the socket.

    python3 integration/test_class_flood.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

A raw client with a tiny receive buffer sets one ClassPrepare request with
policy NONE, resumes the VM and then reads nothing while ClassFlood loads
FLOOD_CLASSES classes of 2 KB names (10 MB of events: more than the socket's
buffers hold, 4 MB at most by default). The
program must print "loaded N" and exit 0: events of policy NONE queue in the
agent; the loading thread never waits for the debugger. Afterwards the client
reads what reached the socket: ClassPrepare events of Flood0, Flood1, ... in
order, with no gap or repeat.

Stock stalls here (measured on JDK 17 and 25: the program had not ended 40 s
later): its event helper blocks writing to the full socket and its bounded
event queue then blocks the loading thread until the debugger reads. The stock
run is skipped, saying so.
"""

from __future__ import annotations

import re
import socket
import unittest

import harness
from jdwp_client import (Client, ConnectionClosed, EventKind, EventRequest, ModKind, Reader, SuspendPolicy,
                         VirtualMachine, i32, jdwp_string)

FLOOD_CLASSES = 5_000
EXIT_TIMEOUT_S = 120
# What the client's socket takes before the agent's writes find it full: as small as Linux allows.
RECEIVE_BUFFER = 4096


class ClassFloodTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()

    def start(self):
        """The fixture stopped at VMStart, a client that will not read, the
        request set; -> (debuggee, client)."""
        debuggee = harness.Debuggee(self.cfg, "ClassFlood", args=[str(FLOOD_CLASSES)])
        self.addCleanup(debuggee.__exit__, None, None, None)
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER)  # before connect: sets the window
        sock.settimeout(30)
        sock.connect(("127.0.0.1", debuggee.port))
        client = Client(debuggee.port, timeout=30, sock=sock)
        self.addCleanup(client.close)
        client.wait_for_vm_start()
        r = client.ok(EventRequest.Set, bytes([EventKind.CLASS_PREPARE, SuspendPolicy.NONE]) + i32(1)
                      + bytes([ModKind.ClassMatch]) + jdwp_string("Flood*"))
        self.request_id = r.int()
        client.ok(VirtualMachine.Resume)
        return debuggee, client

    def read_flood_events(self, client: Client) -> list[str]:
        """Class names of the ClassPrepare events on the socket, in order, up to EOF."""
        names = []
        while True:
            try:
                data = client.read_event()
            except ConnectionClosed:
                break
            r = Reader(data, client.sizes)
            self.assertEqual(r.byte(), SuspendPolicy.NONE)
            for _ in range(r.int()):
                kind = r.byte()
                if kind == 99:  # VMDeath: the last one
                    r.int()
                    continue
                self.assertEqual(kind, EventKind.CLASS_PREPARE)
                self.assertEqual(r.int(), self.request_id)
                r.id("object")
                r.byte()
                r.id("referenceType")
                signature = r.string()
                r.int()
                names.append(re.sub(r"^L(.*);$", r"\1", signature))
        return names

    def test_loading_thread_never_waits_for_the_debugger(self):
        if self.cfg.agent == "stock":
            self.skipTest("stock stalls: its event helper blocks writing to the full socket, then its bounded "
                          "event queue blocks the loading thread until the debugger reads")
        debuggee, client = self.start()
        # Nothing is read meanwhile: the program ends on its own.
        self.assertEqual(debuggee.wait(EXIT_TIMEOUT_S), 0, f"stdout:\n{debuggee.stdout}\nstderr:\n{debuggee.stderr}")
        self.assertIn(f"loaded {FLOOD_CLASSES}", debuggee.stdout)
        names = self.read_flood_events(client)
        # What reached the socket before the VM exited: the first classes, in load order.
        self.assertGreater(len(names), 0)
        self.assertEqual(names, [f"Flood{i}_" + "x" * 2000 for i in range(len(names))])


if __name__ == "__main__":
    harness.main()
