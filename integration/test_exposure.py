#!/usr/bin/env python3
"""Safer exposure (issue 12, item 4): the warning on a listener any host can
reach, the Unix-domain socket transport (address=unix:<path>, ours) and
jdwpx-bridge (tools/), end to end with jdb.

    python3 integration/test_exposure.py --agent {ours,stock} --agent-lib PATH --jdk JAVA_HOME \
        --classes DIR --build-dir BUILD [unittest args]

Stock has neither the warning nor Unix sockets: with stock, the tests check that
it prints no warning and refuses address=unix:..., and run the bridge over TCP
(the bridge is a relay: it works with any agent). No sleeps: every wait is on
output or a socket, with a timeout.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import jdwp_client  # noqa: E402
from jdwp_client import HANDSHAKE, VirtualMachine  # noqa: E402

FIXTURE = "JdbFixture"
UNIX_LISTENING_RE = r"Listening for transport dt_socket at address: unix:(\S+)"
BRIDGE_LISTENING_RE = r"jdwpx-bridge: listening on 127\.0\.0\.1:(\d+)"
NOBODY = 65534


def line(marker: str) -> int:
    return harness.fixture_line(f"{FIXTURE}.java", f"@bp-{marker}")


def bridge_path(cfg) -> str:
    return os.path.join(cfg.build_dir, "tools", "jdwpx-bridge")


def recv_all(sock: socket.socket) -> bytes:
    """Everything until EOF or reset (closing with our bytes unread resets)."""
    data = b""
    try:
        while chunk := sock.recv(4096):
            data += chunk
    except ConnectionResetError:
        pass
    return data


class Bridge(harness._Process):
    """jdwpx-bridge listen 127.0.0.1:0 [opts] -- command..."""

    def __init__(self, cfg, command, options=()):
        super().__init__([bridge_path(cfg), "listen", "127.0.0.1:0", *options, "--", *command])
        m = self._out.wait_for(BRIDGE_LISTENING_RE, 0, 30)
        if m is None:
            raise AssertionError(f"bridge did not listen:\n{self.stdout}\n{self.stderr}")
        self.port = int(m.group(1))

    def wait_stderr(self, regex, timeout=30):
        m = self._err.wait_for(regex, 0, timeout)
        if m is None:
            raise AssertionError(f"bridge did not print {regex!r}; stderr:\n{self.stderr}")
        return m

    def stop(self):
        """SIGTERM: the bridge ends what it started and exits 0."""
        self.proc.send_signal(signal.SIGTERM)
        return self.wait(30)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


class ExposureTest(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        self.tmp = tempfile.mkdtemp(prefix="jdwpx-exposure-")
        os.chmod(self.tmp, 0o755)
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def debuggee(self, options, main="Hello", args=("0", "60000"), **kwargs):
        d = harness.Debuggee(self.cfg, main, list(args), options=options, **kwargs)
        self.addCleanup(d.__exit__, None, None, None)
        return d

    def ours_only(self):
        if self.cfg.agent != "ours":
            self.skipTest("jdwpx extension: stock has no Unix socket transport")

    # -- the warning ----------------------------------------------------------

    def test_exposed_listener_warns_once_on_stderr(self):
        base = "transport=dt_socket,server=y,suspend=n"
        exposed = self.debuggee(f"{base},address=*:0")
        port = exposed.port
        exposed.wait_for_output("hello from fixture")
        allowed = self.debuggee(f"{base},address=*:0,allow=127.0.0.1")
        loopback = self.debuggee(f"{base},address=0")
        for d in (allowed, loopback):
            d.port
            d.wait_for_output("hello from fixture")
        if self.cfg.agent == "ours":
            m = exposed.wait_for_output(r"jdwpx: WARNING: listening on (\S+) without allow=: .*", stream="stderr")
            self.assertEqual(m.group(1), f"*:{port}")
            warning = m.group(0)
            self.assertIn(f"whoever can reach *:{port} can run any code in this JVM", warning)
            for fix in ("allow=", "127.0.0.1:<port>", "address=unix:<path>", "jdwpx-bridge"):
                self.assertIn(fix, warning)
            self.assertEqual(exposed.stderr.count("WARNING"), 1, exposed.stderr)
        # Stock prints nothing; neither agent warns with allow= or on loopback.
        for d in ((exposed,) if self.cfg.agent == "stock" else ()) + (allowed, loopback):
            self.assertNotIn("WARNING", d.stderr)
            self.assertNotIn("jdwpx", d.stderr)

    # -- the Unix socket ------------------------------------------------------

    def test_unix_socket_stock_refuses(self):
        if self.cfg.agent != "stock":
            self.skipTest("stock's answer to address=unix:")
        rc, out, err = harness.run_java(
            self.cfg, [harness.agent_arg(self.cfg, f"transport=dt_socket,server=y,suspend=n,address=unix:{self.tmp}/j.sock")],
            "Hello")
        self.assertNotEqual(rc, 0)
        self.assertNotIn("hello from fixture", out)
        self.assertFalse(os.path.exists(f"{self.tmp}/j.sock"))

    def test_unix_socket_jdb_through_bridge(self):
        """jdb -> bridge listen (TCP) -> sh -c 'exec jdwpx-bridge connect unix:...' -> the JVM.
        A stale socket file is removed first; the socket is 0600; it is gone after the JVM exits."""
        self.ours_only()
        path = os.path.join(self.tmp, "jdwp.sock")
        stale = socket.socket(socket.AF_UNIX)
        stale.bind(path)
        stale.close()  # the file stays, nobody listens: stale
        jvm = self.debuggee(f"transport=dt_socket,server=y,suspend=y,address=unix:{path}", main=FIXTURE, args=())
        m = jvm.wait_for_output(UNIX_LISTENING_RE)
        self.assertEqual(m.group(1), path)
        mode = os.stat(path).st_mode
        self.assertTrue(stat.S_ISSOCK(mode))
        self.assertEqual(stat.S_IMODE(mode), 0o600)
        self.assertNotIn("WARNING", jvm.stderr)
        bridge = Bridge(self.cfg, ["sh", "-c", f"exec {bridge_path(self.cfg)} connect unix:{path}"])
        self.addCleanup(bridge.__exit__, None, None, None)
        jdb = harness.Jdb(self.cfg, bridge.port, args=["-sourcepath", harness.FIXTURES_SRC])
        self.addCleanup(jdb.__exit__, None, None, None)
        jdb.expect_started()
        self.assertIn(f"{FIXTURE}:{line('leaf')}", jdb.command(f"stop at {FIXTURE}:{line('leaf')}"))
        jdb.send("cont")
        m = jdb.expect(rf'Breakpoint hit: "thread=main", {FIXTURE}\.leaf\(\), line=(\d+)')
        self.assertEqual(int(m.group(1)), line("leaf"))
        jdb.expect_prompt()
        self.assertRegex(jdb.command("where"), rf"\[1\] {FIXTURE}\.leaf \({FIXTURE}\.java:{line('leaf')}\)")
        self.assertIn(" v = 42\n", jdb.command("print v"))
        jdb.command(f"clear {FIXTURE}:{line('leaf')}")
        jdb.send("cont")
        jdb.expect(r"The application exited", timeout=60)
        self.assertEqual(jdb.wait(30), 0)
        self.assertEqual(jvm.wait(30), 0)
        self.assertIn("fixture: done", jvm.stdout)
        self.assertFalse(os.path.exists(path), "the socket file outlived the JVM")
        # The bridge's command ended with the connection; the bridge listens on, then stops cleanly.
        pid = int(bridge.wait_stderr(r"started sh \(pid (\d+)\)").group(1))
        self.assertEqual(bridge.stop(), 0)
        self.assertFalse(alive(pid))

    def test_unix_peer_with_another_uid_is_refused(self):
        """The JVM runs as nobody; root connects: refused (SO_PEERCRED), the JVM runs
        on; with unixroot=y root may attach."""
        self.ours_only()
        if os.geteuid() != 0:
            self.skipTest("needs root to run the JVM as another uid")
        os.chown(self.tmp, NOBODY, NOBODY)
        for unixroot in ("n", "y"):
            path = os.path.join(self.tmp, f"jdwp-{unixroot}.sock")
            options = f"transport=dt_socket,server=y,suspend=n,address=unix:{path},unixroot={unixroot}"
            java = [self.cfg.java, harness.agent_arg(self.cfg, options), "-cp", self.cfg.classes_dir, "Hello", "0", "60000"]
            runner = harness._Process(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"] + java)
            self.addCleanup(runner.__exit__, None, None, None)
            m = runner._out.wait_for(UNIX_LISTENING_RE, 0, 30)
            self.assertIsNotNone(m, runner.stderr)
            self.assertEqual(os.stat(path).st_uid, NOBODY)
            sock = socket.socket(socket.AF_UNIX)
            sock.settimeout(30)
            sock.connect(path)  # root passes the 0600 mode; the uid check is the gate
            if unixroot == "n":
                try:
                    sock.sendall(HANDSHAKE)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the agent refuses at the accept: it may have closed before we wrote
                self.assertEqual(recv_all(sock), b"")
                err = runner._err.wait_for(r"Peer not allowed to connect: uid 0 \(pid \d+\); only uid 65534 may attach"
                                           r" \(root too with unixroot=y\)", 0, 30)
                self.assertIsNotNone(err, runner.stderr)
                self.assertIsNone(runner.returncode)
            else:
                c = jdwp_client.Client(0, sock=sock)
                self.assertIn("Java Debug Wire Protocol", c.ok(VirtualMachine.Version).string())
                c.close()
            sock.close()
            self.assertIsNone(runner.returncode, "the JVM must keep running")
            runner.kill()

    def test_unix_socket_bad_directory(self):
        self.ours_only()
        base = "transport=dt_socket,server=y,suspend=n"
        missing = "/nonexistent-jdwpx/dir/j.sock"
        rc, out, err = harness.run_java(self.cfg, [harness.agent_arg(self.cfg, f"{base},address=unix:{missing}")], "Hello")
        self.assertIn(f"bind failed: {missing}: directory /nonexistent-jdwpx/dir: No such file or directory", err)
        self.assertEqual(rc, 2, err)  # as a port that cannot be bound
        self.assertNotIn("hello from fixture", out)
        # Not a socket: refused, never removed.
        plain = os.path.join(self.tmp, "plain")
        with open(plain, "w") as f:
            f.write("keep me")
        rc, out, err = harness.run_java(self.cfg, [harness.agent_arg(self.cfg, f"{base},address=unix:{plain}")], "Hello")
        self.assertIn(f"bind failed: {plain} exists and is not a socket (not removed)", err)
        self.assertEqual(rc, 2)
        with open(plain) as f:
            self.assertEqual(f.read(), "keep me")
        # onbindfail=continue: one line, the program runs.
        rc, out, err = harness.run_java(
            self.cfg, [harness.agent_arg(self.cfg, f"{base},address=unix:{missing},onbindfail=continue")], "Hello")
        self.assertEqual(rc, 0, err)
        self.assertIn("hello from fixture", out)
        self.assertRegex(err, r"jdwpx: cannot listen on unix:/nonexistent-jdwpx/dir/j.sock \(bind failed: .*\); "
                              r"onbindfail=continue: the program runs without debugging")

    # -- the bridge -------------------------------------------------------------

    def endpoint(self, jvm) -> str:
        if self.cfg.agent == "ours":
            return "unix:" + jvm.wait_for_output(UNIX_LISTENING_RE).group(1)
        return f"127.0.0.1:{jvm.port}"

    def jvm_for_bridge(self):
        address = f"unix:{self.tmp}/b.sock" if self.cfg.agent == "ours" else "0"
        return self.debuggee(f"transport=dt_socket,server=y,suspend=n,address={address}")

    def test_bridge_bad_commands_leave_nothing_running(self):
        """A command that exits at once, one that never answers, one that prints
        garbage: a clear message each, the connection closed, the command gone,
        the bridge still serving, the JVM unaffected."""
        jvm = self.jvm_for_bridge()
        endpoint = self.endpoint(jvm)
        cases = [
            (["false"], [], r"the command exited with status 1 before answering the JDWP handshake"),
            (["sleep", "600"], ["--answer-timeout=1500"], r"no answer from the command within 1500 ms"),
            (["sh", "-c", "echo SSH-2.0-OpenSSH_9.2 banner; exec cat"], [],
             r"the command's output is not JDWP: received >SSH-2\.0-OpenSS< where >JDWP-Handshake< was expected"),
        ]
        for command, options, message in cases:
            with self.subTest(command=command[0]):
                bridge = Bridge(self.cfg, command, options)
                self.addCleanup(bridge.__exit__, None, None, None)
                sock = socket.create_connection(("127.0.0.1", bridge.port), timeout=30)
                sock.sendall(HANDSHAKE)
                self.assertNotEqual(recv_all(sock)[:14], HANDSHAKE)
                sock.close()
                bridge.wait_stderr(message)
                pid = int(bridge.wait_stderr(r"started \S+ \(pid (\d+)\)").group(1))
                self.assertEqual(bridge.stop(), 0, bridge.stderr)
                self.assertFalse(alive(pid), f"{command} still running")
        # Stopping the bridge while its command runs ends the command.
        bridge = Bridge(self.cfg, ["sleep", "600"])
        self.addCleanup(bridge.__exit__, None, None, None)
        sock = socket.create_connection(("127.0.0.1", bridge.port), timeout=30)
        pid = int(bridge.wait_stderr(r"started sleep \(pid (\d+)\)").group(1))
        self.assertEqual(bridge.stop(), 0, bridge.stderr)
        self.assertFalse(alive(pid), "the command outlived the bridge")
        self.assertEqual(recv_all(sock), b"")
        sock.close()
        # Garbage from the debugger's side goes through unchanged: the agent refuses it
        # in stock's words and listens on.
        bridge = Bridge(self.cfg, [bridge_path(self.cfg), "connect", endpoint])
        self.addCleanup(bridge.__exit__, None, None, None)
        sock = socket.create_connection(("127.0.0.1", bridge.port), timeout=30)
        sock.sendall(b"GET / HTTP/1.1\r\n\r\n")
        self.assertEqual(recv_all(sock), b"")
        sock.close()
        jvm.wait_for_output(r"handshake failed - received >GET / HTTP/1\.1", stream="stderr")
        # The JVM still serves a debugger through the same bridge.
        c = jdwp_client.Client(bridge.port)
        self.assertIn("Java Debug Wire Protocol", c.ok(VirtualMachine.Version).string())
        c.close()
        self.assertIsNone(jvm.returncode)
        self.assertEqual(bridge.stop(), 0)

    def test_bridge_connect_errors(self):
        """connect to nothing: a message and status 1."""
        for endpoint, message in ((f"unix:{self.tmp}/none.sock", "cannot connect to unix:"),
                                  ("127.0.0.1:1", "cannot connect to 127.0.0.1:1"),
                                  ("nonsense", "'nonsense' is not unix:<path> nor host:port")):
            p = subprocess.run([bridge_path(self.cfg), "connect", endpoint], stdin=subprocess.PIPE,
                               capture_output=True, text=True, timeout=30)
            self.assertEqual(p.returncode, 1, p.stderr)
            self.assertIn(message, p.stderr)

    def test_bridge_through_podman_or_ssh(self):
        """kubectl exec stand-ins: ssh to this machine when an sshd runs here."""
        ssh_ok = shutil.which("ssh") and subprocess.run(
            ["ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=3", "-o", "StrictHostKeyChecking=no",
             "localhost", "true"], capture_output=True, timeout=30).returncode == 0
        if not ssh_ok:
            self.skipTest("no ssh to localhost here (no sshd, or no key): the bridge through ssh is not tested")
        jvm = self.jvm_for_bridge()
        endpoint = self.endpoint(jvm)
        bridge = Bridge(self.cfg, ["ssh", "-o", "BatchMode=yes", "localhost", bridge_path(self.cfg), "connect", endpoint])
        self.addCleanup(bridge.__exit__, None, None, None)
        c = jdwp_client.Client(bridge.port)
        self.assertIn("Java Debug Wire Protocol", c.ok(VirtualMachine.Version).string())
        c.close()
        self.assertEqual(bridge.stop(), 0)


if __name__ == "__main__":
    harness.main()
