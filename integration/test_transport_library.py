#!/usr/bin/env python3
"""transport=<name> other than dt_socket: the agent loads lib<name>.so through the JDK's
transport library interface (jdwpTransport.h), as stock does. Both agents load the same
tiny library of ours (transport_lib/dt_jdwpxtest.cc, TCP on loopback, reporting its
address as "localhost:<port>"), so stock is the oracle for how it is driven: which
versions are asked for, where the library is looked for, the messages when it is missing
(jdwpx adds a line naming the file and where it looked, and exits 134 without stock's JNI
FatalError).

    python3 integration/test_transport_library.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR
"""

from __future__ import annotations

import os
import re
import resource
import signal
import socket
import struct
import subprocess
import tempfile
import unittest

import harness
import jdwp_client

LISTENING_RE = r"Listening for transport dt_jdwpxtest at address: localhost:(\d+)\n"
RUN_TIMEOUT_S = 60


class TransportLibraryTest(unittest.TestCase):
    cfg: harness.Config
    libdir: str

    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()
        cls.libdir = os.path.join(os.path.abspath(cls.cfg.build_dir), "integration", "transport_lib")
        if not os.path.exists(os.path.join(cls.libdir, "libdt_jdwpxtest.so")):
            raise unittest.SkipTest(f"libdt_jdwpxtest.so not built under {cls.libdir}")

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="jdwpx-transport-lib-")
        self.log = os.path.join(self.tmp.name, "calls.log")

    def tearDown(self):
        self.tmp.cleanup()

    def env(self, *, search_path: bool = True, versions: str | None = None) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items()
               if k not in ("JAVA_TOOL_OPTIONS", "_JAVA_JDWP_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS",
                            "LD_LIBRARY_PATH")}
        env["JDWPX_TEST_TRANSPORT_LOG"] = self.log
        if search_path:
            env["LD_LIBRARY_PATH"] = self.libdir
        if versions:
            env["JDWPX_TEST_TRANSPORT_VERSIONS"] = versions
        return env

    def calls(self) -> list[str]:
        with open(self.log, encoding="utf-8") as f:
            return f.read().splitlines()

    def debuggee(self, options: str, env: dict[str, str], jvm_args=()) -> harness.Debuggee:
        return harness.Debuggee(self.cfg, "OptionsFixture", args=["caught"], options=options, env=env,
                                jvm_args=jvm_args)

    def run_version(self, options: str, env: dict[str, str], jvm_args=()) -> tuple[int, list[str], list[str]]:
        """`java <agent> -version` -> (rc, stdout lines, stderr lines less the JVM's banner)."""
        def no_core_dumps():  # the FatalError cases abort the JVM
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        argv = [self.cfg.java, harness.agent_arg(self.cfg, options), *jvm_args, "-version"]
        proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=RUN_TIMEOUT_S,
                              preexec_fn=no_core_dumps, stdin=subprocess.DEVNULL, cwd=self.tmp.name)
        banner = ("openjdk version", "java version", "OpenJDK Runtime", "OpenJDK 64-Bit", "Java(TM)", "Picked up")
        err = [line for line in proc.stderr.splitlines() if not line.startswith(banner)]
        return proc.returncode, proc.stdout.splitlines(), err

    @staticmethod
    def without_location(lines: list[str]) -> list[str]:
        return [re.sub(r" \[[^\]]+:\d+\]$", "", line) for line in lines]

    def attach_and_finish(self, proc: harness.Debuggee, client: jdwp_client.Client):
        try:
            client.wait_for_vm_start()
            self.assertNotIn("started", proc.stdout)  # suspend=y
            self.assertTrue(client.ok(jdwp_client.VirtualMachine.Version).string())
            client.ok(jdwp_client.VirtualMachine.Resume)
            proc.wait_for_output(r"done\n")
            # Attached until the VM has exited: a debugger leaving while the VM exits makes
            # stock listen again, which fails at VM death ("failed to initialize, VM_DEAD").
            self.assertEqual(proc.wait(30), 0)
        finally:
            client.close()

    # --- loading and driving the library -------------------------------------------

    def test_server_from_the_system_search_path(self):
        with self.debuggee("transport=dt_jdwpxtest,server=y,suspend=y,address=0", self.env()) as proc:
            port = int(proc.wait_for_output(LISTENING_RE).group(1))
            self.attach_and_finish(proc, jdwp_client.Client(port))
        self.assertEqual(proc.stderr, "")
        calls = self.calls()
        # Version 1.1 asked for first and taken; allow= unset; listening stops once attached.
        self.assertEqual(calls[:5], ["OnLoad 0x10001", "SetTransportConfiguration (null)", "StartListening 0",
                                     "Accept 0", "StopListening"], calls)

    def test_found_in_the_boot_library_path_first(self):
        # -Dsun.boot.library.path appends to the JDK's library directory, where stock looks first.
        rc, out, err = self.run_version("transport=dt_jdwpxtest,server=y,suspend=n,address=0",
                                        self.env(search_path=False), jvm_args=[f"-Dsun.boot.library.path={self.libdir}"])
        self.assertEqual((rc, err), (0, []))
        self.assertRegex(out[0], LISTENING_RE.rstrip("\\n"))
        self.assertEqual(self.calls()[0], "OnLoad 0x10001")

    def test_allow_reaches_the_library(self):
        rc, out, err = self.run_version("transport=dt_jdwpxtest,server=y,suspend=n,address=0,allow=127.0.0.1",
                                        self.env())
        self.assertEqual((rc, err), (0, []))
        self.assertIn("SetTransportConfiguration 127.0.0.1", self.calls())

    def test_client_attaches_through_the_library(self):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            listener.settimeout(30)
            port = listener.getsockname()[1]
            with self.debuggee(f"transport=dt_jdwpxtest,server=n,suspend=y,address={port}", self.env()) as proc:
                connection, _ = listener.accept()
                connection.settimeout(30)
                self.attach_and_finish(proc, jdwp_client.Client(0, sock=connection))
        self.assertEqual(self.calls()[:2], ["OnLoad 0x10001", f"Attach {port}"])

    def test_listens_again_after_the_debugger_leaves(self):
        # Hello sleeps (10 min) after its line: alive for the second debugger; killed at the end.
        with harness.Debuggee(self.cfg, "Hello", args=["0", "600000"], env=self.env(),
                              options="transport=dt_jdwpxtest,server=y,suspend=y,address=0") as proc:
            port = int(proc.wait_for_output(LISTENING_RE).group(1))
            first = jdwp_client.Client(port)
            try:
                first.wait_for_vm_start()
                first.ok(jdwp_client.VirtualMachine.Dispose)  # resumes the VM, ends the session
            finally:
                first.close()
            # The second Listening line (the library picks a new port for address=0).
            m = re.findall(LISTENING_RE, proc._out.wait_for(r"(?s)(" + LISTENING_RE + r".*){2}", 0, 30).group(0))
            second = jdwp_client.Client(int(m[1]))
            try:
                self.assertTrue(second.ok(jdwp_client.VirtualMachine.Version).string())
                proc.wait_for_output(r"hello from fixture\n")
            finally:
                second.close()

    def test_a_reply_over_1_mib_arrives_whole(self):
        # GetValues of a long[200000] (1.6 MB): our agent streams such a reply on
        # dt_socket; a library's WritePacket takes whole packets, so it gets it whole.
        with harness.Debuggee(self.cfg, "ObjectsFixture", args=["block"], env=self.env(),
                              options="transport=dt_jdwpxtest,server=y,suspend=n,address=0") as proc:
            port = int(proc.wait_for_output(LISTENING_RE).group(1))
            proc.wait_for_output(r"ready\n")
            c = jdwp_client.Client(port, timeout=RUN_TIMEOUT_S)
            try:
                fixture = c.class_by_signature("LObjectsFixture;")
                array = c.static_values(fixture, [c.fields(fixture)["mediumLongs"].id])[0][1]
                r = c.ok(jdwp_client.ArrayReference.GetValues, c.object_id(array) + jdwp_client.i32(0)
                         + jdwp_client.i32(-1))
                self.assertEqual((chr(r.byte()), r.int()), ("J", 200_000))
                values = struct.unpack(">200000q", r.raw(8 * 200_000))
                self.assertTrue(r.at_end())
                self.assertEqual([values[i] for i in (0, 1, 199_999)], [-3, 4, 199_999 * 7 - 3])
            finally:
                c.close()

    def test_launch_gets_the_transport_name_and_its_address(self):
        launcher = os.path.join(self.tmp.name, "launch.sh")
        with open(launcher, "w", encoding="utf-8") as f:
            f.write('#!/bin/sh\necho "LAUNCHED $*"\n')
        os.chmod(launcher, 0o755)
        # -version ends the VM at once; the launched child still holds stdout until it has printed.
        rc, out, err = self.run_version(f"transport=dt_jdwpxtest,server=y,suspend=n,address=0,launch={launcher}",
                                        self.env())
        self.assertEqual((rc, err), (0, []))
        self.assertEqual(len(out), 1, out)
        self.assertRegex(out[0], r"^LAUNCHED dt_jdwpxtest localhost:\d+$")

    def test_version_1_0_when_the_library_refuses_1_1(self):
        rc, out, err = self.run_version("transport=dt_jdwpxtest,server=y,suspend=n,address=0",
                                        self.env(versions="1.0"))
        self.assertEqual((rc, err), (0, []))
        self.assertRegex(out[0], LISTENING_RE.rstrip("\\n"))
        calls = self.calls()
        # 1.0 has no SetTransportConfiguration: not called.
        self.assertEqual(calls[:3], ["OnLoad 0x10001", "OnLoad 0x10000", "StartListening 0"], calls)

    # --- failures, in stock's words ------------------------------------------------------

    def transport_init_failed(self, first_line: str) -> list[str]:
        return [first_line, "ERROR: JDWP Transport dt_jdwpxtest failed to initialize, TRANSPORT_INIT(510)",
                "JDWP exit error AGENT_ERROR_TRANSPORT_INIT(197): No transports initialized"]

    def test_allow_with_a_version_1_0_library(self):
        rc, out, err = self.run_version("transport=dt_jdwpxtest,server=y,suspend=n,address=0,allow=127.0.0.1",
                                        self.env(versions="1.0"))
        self.assertEqual(self.without_location(err), self.transport_init_failed(
            "ERROR: Allow parameter is specified but transport doesn't support it"))
        self.assertEqual((rc, out), (2, []))

    def test_library_error_is_reported_with_its_text(self):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen(1)
            port = taken.getsockname()[1]
            rc, out, err = self.run_version(f"transport=dt_jdwpxtest,server=y,suspend=n,address={port}", self.env())
        self.assertEqual(self.without_location(err), self.transport_init_failed(
            "ERROR: transport error 202: bind failed: Address already in use"))
        self.assertEqual((rc, out), (2, []))

    def fatal(self, first_line: str, name: str) -> tuple[list[str], int]:
        return [first_line, f"ERROR: JDWP Transport {name} failed to initialize, TRANSPORT_LOAD(509)",
                "JDWP exit error AGENT_ERROR_TRANSPORT_LOAD(196): No transports initialized"], -signal.SIGABRT

    def check_load_failure(self, name: str, first_line: str, our_line: str):
        """Stock: its three lines, then JNI FatalError (on stdout, with native frames) and SIGABRT.
        Ours: the same lines with one of its own after the first, found before the VM starts,
        and exit(134), the status a shell reports for stock, without the FatalError."""
        rc, out, err = self.run_version(f"transport={name},server=y,suspend=n,address=0", self.env())
        lines, stock_rc = self.fatal(first_line, name)
        if self.cfg.agent == "stock":
            self.assertEqual((self.without_location(err), rc), (lines, stock_rc))
            self.assertEqual(out[0], "FATAL ERROR in native method: JDWP No transports initialized, "
                                     "jvmtiError=AGENT_ERROR_TRANSPORT_LOAD(196)")
        else:
            self.assertEqual((self.without_location(err), rc, out), (lines[:1] + [our_line] + lines[1:], 134, []))
            self.assertRegex(err[-1], r" \[backend/start/load_errors\.cc:\d+\]$")
        self.assertFalse([f for f in os.listdir(self.tmp.name) if f.startswith("hs_err")])

    def test_library_not_found(self):
        lib_dir = os.path.join(os.path.realpath(self.cfg.jdk), "lib")
        self.check_load_failure(
            "dt_jdwpxnosuch", "ERROR: transport library not found: dt_jdwpxnosuch",
            f"jdwpx: libdt_jdwpxnosuch.so not found: looked in {lib_dir} (sun.boot.library.path), then the system's "
            f"library path (LD_LIBRARY_PATH={self.libdir}, /etc/ld.so.cache, /lib, /usr/lib)")

    def test_library_without_entry_point(self):
        self.check_load_failure(
            "dt_jdwpxnoentry", "ERROR: transport library missing onLoad entry: dt_jdwpxnoentry",
            f"jdwpx: {self.libdir}/libdt_jdwpxnoentry.so has no function jdwpTransport_OnLoad: not a JDWP transport "
            "library")

if __name__ == "__main__":
    harness.main()
