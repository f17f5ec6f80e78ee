#!/usr/bin/env python3
"""Debugging a JVM that already runs: onjcmd=y, jcmd starts, late attach.

    python3 integration/test_ondemand.py --agent {ours,stock} --agent-lib PATH --jdk JAVA_HOME \
        --build-dir DIR [unittest args]

OnjcmdTest: the JDK's own `onjcmd=y` option. Up to JDK 23 stock is the oracle:
`jcmd <pid> VM.start_java_debugging` answers the same bytes with both agents
(ours loaded as `-agentlib:jdwp` from an overlay JDK, since HotSpot looks the
start function up in the library named "jdwp"), and jdb then debugs normally.
From JDK 24 stock rejects the option; jdwpx keeps it (DormantTest).

DormantTest, LateAttachTest: jdwpx extensions (stock's libjdwp has no
Agent_OnAttach: those cases skip with stock). A dormant agent opens no port
(checked in /proc/net/tcp*) until `jcmd JVMTI.agent_load`; a JVM started without
any agent gets jdwpx by jcmd in a limited mode. Every bad jcmd gives a non-zero
`return code: N`, the reason on the JVM's stderr, and the JVM runs on.

Debuggee: fixtures/OnDemand.java, which runs until killed. No sleeps: every
wait is on output or a reply, with a timeout.
"""

from __future__ import annotations

import os
import re
import subprocess
import unittest

import harness
import jdwp_client as jc

FIXTURE = "OnDemand"
READY = "OnDemand ready"
BP_LINE = harness.fixture_line("OnDemand.java", "// @bp-step")
LISTENING_RE = harness.LISTENING_RE
# JEP 451 (JDK 21+): printed when an agent is loaded into a running JVM without the flag.
DYNAMIC_AGENT_WARNING = "WARNING: A JVM TI agent has been loaded dynamically"

# Agent_OnAttach's return codes (backend/start/entry_points.cc AttachCode).
ATTACH_OK, ATTACH_BAD_OPTIONS, ATTACH_ALREADY_ACTIVE, ATTACH_START_FAILED = 0, 2, 3, 4


def listening_ports(pid: int) -> set[int]:
    """TCP ports the process listens on: its socket inodes matched in /proc/net/tcp and tcp6."""
    inodes = set()
    fd_dir = f"/proc/{pid}/fd"
    for fd in os.listdir(fd_dir):
        try:
            target = os.readlink(os.path.join(fd_dir, fd))
        except OSError:
            continue
        m = re.fullmatch(r"socket:\[(\d+)\]", target)
        if m:
            inodes.add(m.group(1))
    ports = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            with open(table, encoding="ascii") as f:
                rows = f.read().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            cols = row.split()
            if cols[3] == "0A" and cols[9] in inodes:  # 0A: LISTEN
                ports.add(int(cols[1].rsplit(":", 1)[1], 16))
    return ports


class OnDemandBase(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        self.jcmd_path = os.path.join(self.cfg.jdk, "bin", "jcmd")
        self.jdbs = []

    def tearDown(self):
        if harness.test_failed(self):
            for jdb in self.jdbs:
                print(f"\n--- jdb transcript ({self.id()}):\n{jdb.transcript}")
            if getattr(self, "debuggee", None):
                print(f"--- debuggee stdout:\n{self.debuggee.stdout}\n--- debuggee stderr:\n{self.debuggee.stderr}")

    def start(self, jvm_args, options=None, java=None) -> harness.Debuggee:
        """Starts the fixture (agent per `options`/`jvm_args`) and waits until main runs."""
        self.debuggee = harness.Debuggee(self.cfg, FIXTURE, options=options, jvm_args=jvm_args, java=java)
        self.addCleanup(self.debuggee.__exit__, None, None, None)
        self.debuggee.wait_for_output(READY, 60)
        return self.debuggee

    def jcmd(self, *args) -> str:
        """jcmd's output less its first line ("<pid>:")."""
        proc = subprocess.run([self.jcmd_path, str(self.debuggee.proc.pid), *args], capture_output=True,
                              text=True, timeout=120)
        lines = proc.stdout.splitlines(keepends=True)
        self.assertTrue(lines and lines[0].rstrip() == f"{self.debuggee.proc.pid}:",
                        f"jcmd {args}: rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}")
        return "".join(lines[1:])

    def agent_load(self, options: str | None) -> int:
        """jcmd JVMTI.agent_load of our library -> Agent_OnAttach's return code.

        jcmd cuts an unquoted argument at its first '=': the options are quoted inside."""
        args = ["JVMTI.agent_load", self.cfg.agent_lib] + ([f'"{options}"'] if options is not None else [])
        out = self.jcmd(*args)
        m = re.search(r"return code: (-?\d+)", out)
        self.assertIsNotNone(m, out)
        return int(m.group(1))

    def assert_runs_on(self):
        self.assertIsNone(self.debuggee.returncode, f"the JVM ended\n{self.debuggee.stderr}")
        # Its attach listener still answers: the JVM is alive and well.
        self.assertIn("OnDemand", self.jcmd("Thread.print"))

    def port_after(self, start: int) -> int:
        """The port of the next "Listening" line printed after `start` characters of stdout."""
        m = self.debuggee._out.wait_for(LISTENING_RE, start, 30)
        self.assertIsNotNone(m, f"no Listening line\n{self.debuggee.stdout}\n{self.debuggee.stderr}")
        return int(m.group(1))

    def jdb(self, port: int) -> harness.Jdb:
        jdb = harness.Jdb(self.cfg, port, args=["-sourcepath", harness.FIXTURES_SRC])
        self.addCleanup(jdb.__exit__, None, None, None)
        self.jdbs.append(jdb)
        jdb.expect_prompt(30)
        # A command with known output moves the reader past every prompt printed so far.
        jdb.send("version")
        jdb.expect(r"This is jdb version")
        jdb.expect_prompt()
        return jdb

    def debug_with_jdb(self, port: int) -> harness.Jdb:
        """A breakpoint in the running program, its locals and a static field."""
        jdb = self.jdb(port)
        out = jdb.command(f"stop at {FIXTURE}:{BP_LINE}")
        self.assertIn(f"Set breakpoint {FIXTURE}:{BP_LINE}", out)
        # The running worker may hit it while jdb still prints the command's answer:
        # "Breakpoint hit: " and the stop's details then come apart, around it.
        m = jdb.expect(rf'"thread=od-worker", {FIXTURE}\.step\(\), line=(\d+)', 30)
        self.assertEqual(int(m.group(1)), BP_LINE)
        self.assertIn("Breakpoint hit: ", jdb.output)
        jdb.expect_prompt()
        self.assertRegex(jdb.command("locals"), r"total = \d+")
        self.assertIn(f"{FIXTURE}.counter = 42", jdb.command(f"print {FIXTURE}.counter"))
        jdb.command(f"clear {FIXTURE}:{BP_LINE}")
        # The breakpoint suspended every thread, jcmd's Attach Listener too: let them run.
        jdb.command("cont")
        return jdb


class OnjcmdTest(OnDemandBase):
    OPTIONS = "transport=dt_socket,server=y,address=0,onjcmd=y"

    def test_onjcmd_start_via_jcmd(self):
        if self.cfg.jdk_version >= 24:
            if self.cfg.agent == "stock":
                # The oracle for the rejection: from JDK 24 stock has no onjcmd.
                rc, _, err = harness.run_java(self.cfg, [f"-agentlib:jdwp={self.OPTIONS}"], "-version")
                self.assertEqual(rc, 1)
                self.assertIn(f"ERROR: JDWP option syntax error: -agentlib:jdwp={self.OPTIONS}", err)
                return
            self.skipTest("JDK 24+ has no VM.start_java_debugging; jdwpx's onjcmd is tested by DormantTest")
        home = harness.debuggee_java_home(self.cfg)
        # -agentlib:jdwp for both: HotSpot finds the start function only in the library named jdwp.
        self.start([f"-agentlib:jdwp={self.OPTIONS}"], options=None, java=os.path.join(home, "bin", "java"))
        pid = self.debuggee.proc.pid
        self.assertEqual(listening_ports(pid), set())
        self.assertNotRegex(self.debuggee.stdout, LISTENING_RE)

        mark = len(self.debuggee.stdout)
        self.assertEqual(self.jcmd("VM.start_java_debugging"),
                         "Debugging has been started.\nTransport : dt_socket\nAddress : 0\n")
        port = self.port_after(mark)
        self.assertIn(port, listening_ports(pid))
        self.assertEqual(self.jcmd("VM.start_java_debugging"),
                         "Debugging is already active.\nTransport : dt_socket\nAddress : 0\n")
        self.debug_with_jdb(port)
        # While a debugger is attached: the same answer, and the JVM runs on.
        self.assertEqual(self.jcmd("VM.start_java_debugging"),
                         "Debugging is already active.\nTransport : dt_socket\nAddress : 0\n")
        self.assert_runs_on()

    def test_onjcmd_without_address(self):
        if self.cfg.jdk_version >= 24:
            self.skipTest("JDK 24+ has no VM.start_java_debugging")
        home = harness.debuggee_java_home(self.cfg)
        self.start(["-agentlib:jdwp=transport=dt_socket,server=y,onjcmd=y,quiet=y"], options=None,
                   java=os.path.join(home, "bin", "java"))
        # No address option: HotSpot prints "#unknown" for the null address.
        self.assertEqual(self.jcmd("VM.start_java_debugging"),
                         "Debugging has been started.\nTransport : dt_socket\nAddress : #unknown\n")
        self.assertEqual(len(listening_ports(self.debuggee.proc.pid)), 1)
        self.assertNotRegex(self.debuggee.stdout, LISTENING_RE)  # quiet=y
        self.assert_runs_on()

    def test_onjcmd_with_suspend_y(self):
        # Stock (JDK 17 to 23) forces suspend=n with onjcmd=y, silently: main runs, nothing is printed.
        if self.cfg.jdk_version >= 24:
            self.skipTest("JDK 24+ has no onjcmd in stock; jdwpx's onjcmd is tested by DormantTest")
        home = harness.debuggee_java_home(self.cfg)
        self.start([f"-agentlib:jdwp={self.OPTIONS},suspend=y"], options=None, java=os.path.join(home, "bin", "java"))
        self.assertEqual(listening_ports(self.debuggee.proc.pid), set())
        self.assertNotIn("JDWP", self.debuggee.stderr)
        mark = len(self.debuggee.stdout)
        self.assertEqual(self.jcmd("VM.start_java_debugging"),
                         "Debugging has been started.\nTransport : dt_socket\nAddress : 0\n")
        self.debug_with_jdb(self.port_after(mark))
        self.assert_runs_on()

    def test_start_fails_port_taken(self):
        # Stock reports a transport that cannot start on the JVM's stderr only: jcmd says started.
        if self.cfg.jdk_version >= 24:
            self.skipTest("JDK 24+ has no VM.start_java_debugging")
        import socket
        taken = socket.socket()
        self.addCleanup(taken.close)
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        address = f"127.0.0.1:{taken.getsockname()[1]}"
        home = harness.debuggee_java_home(self.cfg)
        self.start([f"-agentlib:jdwp=transport=dt_socket,server=y,address={address},onjcmd=y"], options=None,
                   java=os.path.join(home, "bin", "java"))
        self.assertEqual(self.jcmd("VM.start_java_debugging"),
                         f"Debugging has been started.\nTransport : dt_socket\nAddress : {address}\n")
        self.debuggee.wait_for_output(re.escape("ERROR: JDWP Transport dt_socket failed to initialize, "
                                                "TRANSPORT_INIT(510)"), 30, "stderr")
        self.assertIn("ERROR: transport error 202: bind failed: Address already in use\n"
                      "ERROR: JDWP Transport dt_socket failed to initialize, TRANSPORT_INIT(510)\n",
                      self.debuggee.stderr)
        self.assertEqual(listening_ports(self.debuggee.proc.pid), set())
        self.assert_runs_on()
        taken.close()
        mark = len(self.debuggee.stdout)
        if self.cfg.agent == "stock":
            # Stock counts the failed start as the start: nothing listens, and it cannot be retried.
            self.assertEqual(self.jcmd("VM.start_java_debugging"),
                             f"Debugging is already active.\nTransport : dt_socket\nAddress : {address}\n")
            self.assertEqual(listening_ports(self.debuggee.proc.pid), set())
        else:
            # jdwpx stays startable: once the port is free, the next jcmd starts it.
            self.assertEqual(self.jcmd("VM.start_java_debugging"),
                             f"Debugging has been started.\nTransport : dt_socket\nAddress : {address}\n")
            self.assertEqual(listening_ports(self.debuggee.proc.pid), {self.port_after(mark)})
        self.assert_runs_on()

    def test_start_without_onjcmd(self):
        if self.cfg.jdk_version >= 24:
            self.skipTest("JDK 24+ has no VM.start_java_debugging")
        home = harness.debuggee_java_home(self.cfg)
        self.start(["-agentlib:jdwp=transport=dt_socket,server=y,address=0,suspend=n"], options=None,
                   java=os.path.join(home, "bin", "java"))
        self.assertEqual(self.jcmd("VM.start_java_debugging"),
                         "Debugging has not been started: Starting debugging via jcmd was not enabled via the "
                         "onjcmd option of the jdwp agent.\n")
        self.assert_runs_on()


class SecondDebuggerTest(OnDemandBase):
    """A second debugger after the first left (server=y listens again), both agents: the
    breakpoint's location names its class with an ID of the new session (jdwpx used to
    hand out a cached ID of the first session's object table there)."""

    def test_breakpoint_in_second_session(self):
        self.start([], options="transport=dt_socket,server=y,address=0,suspend=n")
        offset = 0
        for session in range(2):
            m = self.debuggee._out.wait_for(LISTENING_RE, offset, 30)
            self.assertIsNotNone(m, f"session {session}: no Listening line\n{self.debuggee.stdout}")
            offset = m.end()
            jdb = self.debug_with_jdb(int(m.group(1)))
            jdb.send("quit")
            self.assertEqual(jdb.wait(30), 0)
        self.assert_runs_on()


class SessionEventsTest(OnDemandBase):
    """Issue 13 item 2, jdwpx's own: while no debugger is attached the agent enables no
    thread, breakpoint, frame-pop or class-prepare events; on at the handshake, off at the end
    of the session (loglevel=debug says so). Stock keeps its events on; it is checked unchanged:
    listening with suspend=n, the program runs and a debugger attaches twice."""

    ON, OFF = "session events on", "session events off"

    def test_listening_agent_enables_nothing_until_a_debugger(self):
        options = "transport=dt_socket,server=y,address=0,suspend=n"
        self.start([], options=options + (",loglevel=debug" if self.cfg.agent == "ours" else ""))
        offset = 0
        for session in range(2):
            m = self.debuggee._out.wait_for(LISTENING_RE, offset, 30)
            self.assertIsNotNone(m, f"session {session}\n{self.debuggee.stdout}")
            offset = m.end()
            if self.cfg.agent == "ours":
                self.assertEqual(self.debuggee.stderr.count(self.ON), session, self.debuggee.stderr)
                self.assertEqual(self.debuggee.stderr.count(self.OFF), session, self.debuggee.stderr)
            jdb = self.debug_with_jdb(int(m.group(1)))
            if self.cfg.agent == "ours":
                self.assertEqual(self.debuggee.stderr.count(self.ON), session + 1, self.debuggee.stderr)
            jdb.send("quit")
            self.assertEqual(jdb.wait(30), 0)
            if self.cfg.agent == "ours":
                m = self.debuggee._err.wait_for(r"(?s)" + r".*".join([self.OFF] * (session + 1)), 0, 30)
                self.assertIsNotNone(m, self.debuggee.stderr)
        self.assert_runs_on()

    def test_dormant_again_turns_everything_off(self):
        if self.cfg.agent == "stock":
            self.skipTest("jdwpx extension: stock's libjdwp has no Agent_OnAttach")
        self.start([], options="transport=dt_socket,server=y,address=0,onjcmd=y,loglevel=debug")
        self.assertNotIn(self.ON, self.debuggee.stderr)
        mark = len(self.debuggee.stdout)
        self.assertEqual(self.agent_load("transport=dt_socket,server=y,address=0,onjcmd=y"), ATTACH_OK)
        port = self.port_after(mark)
        # Started and listening, nobody attached yet: still nothing on.
        self.assertNotIn(self.ON, self.debuggee.stderr)
        jdb = self.debug_with_jdb(port)
        self.assertEqual(self.debuggee.stderr.count(self.ON), 1)
        jdb.send("quit")
        self.assertEqual(jdb.wait(30), 0)
        self.assertIsNotNone(self.debuggee._err.wait_for(r"(?s)session events off.*back to dormant|"
                                                         r"back to dormant.*session events off", 0, 30),
                             self.debuggee.stderr)
        self.assertEqual(listening_ports(self.debuggee.proc.pid), set())
        self.assert_runs_on()


class DormantTest(OnDemandBase):
    """onjcmd=y with -agentpath, every JDK: started by jcmd JVMTI.agent_load (Agent_OnAttach)."""

    OPTIONS = "transport=dt_socket,server=y,address=0,onjcmd=y"

    def setUp(self):
        super().setUp()
        if self.cfg.agent == "stock":
            self.skipTest("jdwpx extension: stock's libjdwp has no Agent_OnAttach")

    def test_dormant_until_agent_load(self):
        self.start([], options=self.OPTIONS)
        pid = self.debuggee.proc.pid
        self.assertEqual(listening_ports(pid), set())
        self.assertNotRegex(self.debuggee.stdout, LISTENING_RE)

        # Bad options: refused, nothing opened, the JVM runs on.
        self.assertEqual(self.agent_load("transport=dt_socket,bogus=y"), ATTACH_BAD_OPTIONS)
        self.debuggee.wait_for_output(
            re.escape("ERROR: JDWP option syntax error: -agentlib:jdwp=transport=dt_socket,bogus=y\n"
                      "jdwpx: bogus=y: unknown option (help lists the options) (in JVMTI.agent_load "
                      f"{self.cfg.agent_lib} transport=dt_socket,bogus=y)"), 30, "stderr")
        self.assertEqual(listening_ports(pid), set())
        self.assert_runs_on()

        # The options given to jcmd replace the transport spec (here an explicit loopback address).
        mark = len(self.debuggee.stdout)
        self.assertEqual(self.agent_load("transport=dt_socket,server=y,address=127.0.0.1:0"), ATTACH_OK)
        port = self.port_after(mark)
        self.assertIn(port, listening_ports(pid))
        self.assertNotIn(DYNAMIC_AGENT_WARNING, self.debuggee.stderr)  # already loaded: no JEP 451 warning

        # Loading again while it listens, then while a debugger is attached: refused, the JVM runs on.
        self.assertEqual(self.agent_load(None), ATTACH_ALREADY_ACTIVE)
        self.debuggee.wait_for_output(rf"debugging is already active \(listening at port {port}\)", 30, "stderr")
        self.debug_with_jdb(port)
        self.assertEqual(self.agent_load("transport=dt_socket,server=y,address=0"), ATTACH_ALREADY_ACTIVE)
        self.debuggee.wait_for_output(r"debugging is already active \(a debugger is attached\)", 30, "stderr")
        self.assert_runs_on()

    def test_agent_load_without_options_uses_load_time_spec(self):
        self.start([], options=self.OPTIONS)
        mark = len(self.debuggee.stdout)
        self.assertEqual(self.agent_load(None), ATTACH_OK)
        port = self.port_after(mark)
        self.assertIn(port, listening_ports(self.debuggee.proc.pid))
        self.debug_with_jdb(port)

    def test_dormant_again_after_the_debugger_leaves(self):
        # onjcmd=y in the jcmd options: the port closes when the debugger leaves.
        self.start([], options=self.OPTIONS + ",loglevel=info")
        pid = self.debuggee.proc.pid
        for session in range(2):
            mark = len(self.debuggee.stdout)
            self.assertEqual(self.agent_load("transport=dt_socket,server=y,address=0,onjcmd=y"), ATTACH_OK)
            port = self.port_after(mark)
            self.assertIn(port, listening_ports(pid))
            jdb = self.debug_with_jdb(port)
            jdb.send("quit")
            self.assertEqual(jdb.wait(30), 0)
            m = self.debuggee._err.wait_for(r"back to dormant", 0, 30) if session == 0 else \
                self.debuggee._err.wait_for(r"(?s)back to dormant.*back to dormant", 0, 30)
            self.assertIsNotNone(m, self.debuggee.stderr)
            self.assertEqual(listening_ports(pid), set(), f"session {session}")
            self.assertNotRegex(self.debuggee.stdout[mark:], LISTENING_RE + r"[\s\S]*" + LISTENING_RE)
        self.assert_runs_on()

    def test_failed_start_stays_dormant(self):
        self.start([], options=self.OPTIONS)
        pid = self.debuggee.proc.pid
        # A transport library that does not exist and a port that is taken (by the test itself): each refused.
        self.assertEqual(self.agent_load("transport=dt_shmem,server=y"), ATTACH_START_FAILED)
        self.debuggee.wait_for_output(r"debugging has not been started: transport library not found: dt_shmem",
                                      30, "stderr")
        import socket
        with socket.socket() as taken:
            taken.bind(("127.0.0.1", 0))
            taken.listen(1)
            busy = taken.getsockname()[1]
            self.assertEqual(self.agent_load(f"transport=dt_socket,server=y,address=127.0.0.1:{busy}"),
                             ATTACH_START_FAILED)
            self.debuggee.wait_for_output(r"debugging has not been started: transport error", 30, "stderr")
        # Each error once on stderr (the log, also stderr here, does not repeat it).
        self.assertEqual(self.debuggee.stderr.count("debugging has not been started: transport library not found"),
                         1, self.debuggee.stderr)
        self.assertEqual(listening_ports(pid), set())
        self.assert_runs_on()
        # And it can still be started.
        mark = len(self.debuggee.stdout)
        self.assertEqual(self.agent_load("transport=dt_socket,server=y,address=0"), ATTACH_OK)
        self.assertIn(self.port_after(mark), listening_ports(pid))


class LateAttachTest(OnDemandBase):
    """A JVM started without any agent gets jdwpx by jcmd: the live phase's capabilities only."""

    def setUp(self):
        super().setUp()
        if self.cfg.agent == "stock":
            self.skipTest("jdwpx extension: stock's libjdwp has no Agent_OnAttach")
        # JEP 451: without the flag JDK 21+ warns (and may one day refuse).
        self.start(["-XX:+EnableDynamicAgentLoading"], options=None)

    def test_jdb_in_limited_mode(self):
        self.assertEqual(self.agent_load("transport=dt_socket,server=y,suspend=y,address=0"), ATTACH_OK)
        port = self.port_after(0)
        self.debuggee.wait_for_output(r"late attach\): limited mode, without breakpoints", 30, "stderr")
        self.assertNotIn(DYNAMIC_AGENT_WARNING, self.debuggee.stderr)
        # suspend=y cannot apply to a running application: said once, and nothing waits for the debugger.
        self.assertEqual(self.debuggee.stderr.count("WARNING: JDWP suspend=y ignored: the application already runs"),
                         1, self.debuggee.stderr)
        jdb = self.jdb(port)
        threads = jdb.command("threads")
        self.assertRegex(threads, r"od-worker")
        main_id = re.search(r"\(java\.lang\.Thread\)(\w+)\s+main\s", threads)
        self.assertIsNotNone(main_id, threads)
        jdb.command("suspend")
        jdb.command(f"thread {main_id.group(1)}")
        self.assertRegex(jdb.command("where"), rf"\[\d+\] {FIXTURE}\.main \({FIXTURE}\.java:\d+\)")
        self.assertIn(f"{FIXTURE}.counter = 42", jdb.command(f"print {FIXTURE}.counter"))
        self.assertIn(f'{FIXTURE}.label = "on demand"', jdb.command(f"print {FIXTURE}.label"))
        # JDI turns NOT_IMPLEMENTED into UnsupportedOperationException; jdb says so.
        self.assertIn("Command 'stop' is not supported on the target VM",
                      jdb.command(f"stop at {FIXTURE}:{BP_LINE}"))
        jdb.command("resume")
        self.assert_runs_on()

    def test_capabilities_say_what_works(self):
        self.assertEqual(self.agent_load("transport=dt_socket,server=y,address=0"), ATTACH_OK)
        client = jc.Client(self.port_after(0))
        self.addCleanup(client.close)
        r = client.ok(jc.VirtualMachine.CapabilitiesNew)
        caps = [r.boolean() for _ in range(32)]
        # canPopFrames (10), canGetSourceDebugExtension (12), canForceEarlyReturn (20):
        # a running JVM grants an agent none of them.
        self.assertEqual((caps[10], caps[12], caps[20]), (False, False, False), caps)
        self.assertTrue(caps[15], "canGetInstanceInfo (heap queries) works")
        # Events that need what the JVM did not grant: NOT_IMPLEMENTED; others work.
        for kind in (2, 1, 40, 20):  # Breakpoint, SingleStep, MethodEntry, FieldAccess
            self.assertEqual(client.error(jc.EventRequest.Set, bytes([kind, 0]) + jc.i32(0)),
                             jc.Error.NOT_IMPLEMENTED, kind)
        self.assertEqual(client.error(jc.EventRequest.Set, bytes([8, 0]) + jc.i32(0)), jc.Error.NONE)  # ClassPrepare
        # Exception: the live phase grants no can_generate_exception_events (the log line names what
        # GetPotentialCapabilities lacked). Accepted and never reported: JDWP has no capability bit
        # for it, and JDI clients ask for it at attach and die of any error there (jdb: "Internal
        # exception" before its first prompt). Said once on stderr.
        self.debuggee.wait_for_output(r"limited mode, without [^\n]*exception events", 30, "stderr")
        for _ in range(2):
            self.assertEqual(client.error(jc.EventRequest.Set, bytes([4, 0]) + jc.i32(0)), jc.Error.NONE)
        self.debuggee.wait_for_output("Exception requests are accepted but never fire", 30, "stderr")
        client.ok(jc.VirtualMachine.CapabilitiesNew)  # after both replies: any second warning is written
        self.assertEqual(self.debuggee.stderr.count("Exception requests are accepted but never fire"), 1)
        threads = client.threads_by_name()
        self.assertIn("main", threads)
        self.assertIn("od-worker", threads)

    def test_bad_options_then_twice(self):
        self.assertEqual(self.agent_load("transport=dt_socket,server=y,address=0,suspend=maybe"), ATTACH_BAD_OPTIONS)
        self.debuggee.wait_for_output(re.escape("ERROR: JDWP option syntax error"), 30, "stderr")
        self.assertEqual(self.agent_load("server=y"), ATTACH_BAD_OPTIONS)
        self.debuggee.wait_for_output(re.escape("ERROR: JDWP no transport specified"), 30, "stderr")
        self.assertEqual(listening_ports(self.debuggee.proc.pid), set())
        self.assert_runs_on()
        self.assertEqual(self.agent_load("transport=dt_socket,server=y,address=0"), ATTACH_OK)
        port = self.port_after(0)
        self.assertEqual(self.agent_load("transport=dt_socket,server=y,address=0"), ATTACH_ALREADY_ACTIVE)
        self.debuggee.wait_for_output(rf"debugging is already active \(listening at port {port}\)", 30, "stderr")
        self.assertEqual(listening_ports(self.debuggee.proc.pid), {port})
        self.assert_runs_on()


if __name__ == "__main__":
    harness.main()
