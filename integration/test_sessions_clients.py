#!/usr/bin/env python3
"""Several debuggers on one JVM at once (issue 31, sessions=N), as their users see it.

    python3 integration/test_sessions_clients.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args]

The issue is done when two debuggers (jdb and an IDE-like JDI client) debug the
same JVM at the same time, each setting its breakpoints, stopping, stepping and
resuming without disturbing the other. The debuggee is fixtures/Sessions.java:
thread "worker" calls tick(i) in a loop, thread "other" tock(i), until stdin
closes. The IDE is jdi/SessionsJdi.java, run by the JDK's JDI and by Eclipse's
(eclipse/SessionsEclipse.java): it stops "worker" at a SUSPEND_EVENT_THREAD
breakpoint in tick(), looks at "other", steps over one line, reads the locals
there, deletes its requests, resumes and disposes, printing CHECK lines.

- one debugger, both agents, sessions= absent: the driver's CHECK lines are the
  same for ours and stock (the oracle), and the program runs on;
- ours only (stock has no sessions= and serves one debugger at a time):
  - jdb stops "other" at its breakpoint in tock() (`stop thread at`, so that only
    that thread stops); while jdb sits there, the JDK's and Eclipse's drivers
    stop, step, resume and dispose on "worker" at once, each seeing only its own
    suspension of "worker" (count 1) and "other" suspended by someone else
    (isSuspended true, count 0, its top frame readable); jdb sees none of it and
    then goes on: where, locals, next ("Step completed" on the next line), cont
    (the next hit, with i one more), clear, cont, exit; the program runs on and a
    new driver finds everything released;
  - the two drivers on the same thread at the same line at once: a third,
    raw session holds "worker" until both have set their breakpoints, so both
    stop at the same hit (the same i), each with its own count of 1; each steps
    and resumes; neither hangs, and the worker runs on;
  - a probe run (tools/jdwpx-probe, a log probe in tock()) while the drivers stop
    and step "worker": the probe's lines keep coming meanwhile, in call order,
    and the drivers see "other" running throughout (a probe stops no thread);
    Ctrl-C ends the run with its summary.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
from jdwp_client import Client, ThreadReference  # noqa: E402
from probe_tool import ProbeRun  # noqa: E402

SOURCE = "Sessions.java"
ONE_DEBUGGER = "transport=dt_socket,server=y,suspend=n,address=0"
THREE_DEBUGGERS = ONE_DEBUGGER + ",sessions=3"
WAIT_S = 60
DRIVER_TIMEOUT_S = 120
CHECK_RE = re.compile(r"(?m)^CHECK (\S+) (.*)$")
PROMPT_ANYWHERE_RE = r"(?:> |[^\s\[\]>]+\[\d+\] )"  # harness.PROMPT_BODY_RE, not only at a line's start
STOCK_HAS_NO_SESSIONS = ("stock serves one debugger at a time and has no sessions= option "
                         "(a second debugger is refused); only the one-debugger case runs against it")

TICK = harness.fixture_line(SOURCE, "// @tick-line")
TICK_NEXT = harness.fixture_line(SOURCE, "// @tick-next")
TOCK = harness.fixture_line(SOURCE, "// @tock-line")
TOCK_NEXT = TOCK + 1  # `others = tripled;`
LOOP_CALL = harness.fixture_line(SOURCE, "body.applyAsInt(i);")
with open(os.path.join(harness.FIXTURES_SRC, SOURCE), encoding="utf-8") as source_file:
    SOURCE_LINES = source_file.read().splitlines()  # jdb prints the line it stops at


def expected_checks(other_held: bool) -> dict:
    """The CHECK lines of a driver whose values do not depend on the hit; `other_held`:
    jdb holds thread "other" at its breakpoint in tock() meanwhile."""
    return {
        "thread": "worker",
        "bp-line": str(TICK),
        "suspended": "true/1",
        "other": "true/0" if other_held else "false/0",
        "other-frame": f"tock:{TOCK}" if other_held else "running",
        "step-line": str(TICK_NEXT),
        "step-method": "tick",
        "step-suspended": "true/1",
        "doubled-is-twice-i": "true",
        "after-resume-count": "0",
    }


def eclipse_available() -> bool:
    return all(os.path.isfile(jar) for jar in harness.ECLIPSE_JARS)


class SessionsClients(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        self.debuggee = None
        self.jdb = None
        self.drivers = []  # (label, process)
        self.other_id = None  # jdb's id of thread "other"

    def tearDown(self):
        failed = harness.test_failed(self)
        for _, driver in self.drivers:
            driver.__exit__(None, None, None)
        if self.jdb:
            self.jdb.__exit__(None, None, None)
        if self.debuggee:
            self.debuggee.__exit__(None, None, None)
        if failed:
            print(f"\n--- {self.id()}")
            for label, driver in self.drivers:
                print(f"--- {label} driver stdout:\n{driver.stdout}\n--- {label} driver stderr:\n{driver.stderr}")
            if self.jdb:
                print(f"--- jdb transcript:\n{self.jdb.transcript}")
            if self.debuggee:
                print(f"--- debuggee stdout (tail):\n{self.debuggee.stdout[-2000:]}\n"
                      f"--- debuggee stderr:\n{self.debuggee.stderr}")

    # -- helpers --

    def start_debuggee(self, options: str) -> harness.Debuggee:
        if self.debuggee:
            self.debuggee.__exit__(None, None, None)
        self.debuggee = harness.Debuggee(self.cfg, "Sessions", options=options, stdin=True)
        self.debuggee.wait_for_output(r"(?m)^ready$", WAIT_S)
        return self.debuggee

    def start_driver(self, client: str, port: int):
        """A driver process (client "jdk" or "eclipse") attaching to port, not waited for."""
        classpath, main = harness.jdi_driver(self, self.cfg, client, "SessionsJdi", "SessionsEclipse")
        driver = harness._Process([self.cfg.java, "-cp", os.pathsep.join(classpath), main, str(port),
                                   str(TICK), str(TICK_NEXT), str(TOCK)])
        label = f"{client} #{len(self.drivers) + 1}"
        self.drivers.append((label, driver))
        return label, driver

    def finish_driver(self, label: str, driver, other_held: bool) -> dict:
        """Waits for the driver's end; asserts its exit, verdict and CHECK lines -> all its checks."""
        try:
            rc = driver.wait(DRIVER_TIMEOUT_S)
        except Exception:  # subprocess.TimeoutExpired
            self.fail(f"{label} driver did not finish within {DRIVER_TIMEOUT_S}s:\n{driver.stdout}")
        report = f"--- {label} driver stdout:\n{driver.stdout}\n--- stderr:\n{driver.stderr}"
        self.assertIn("RESULT ok", driver.stdout, report)
        self.assertEqual(rc, 0, report)
        checks = dict(CHECK_RE.findall(driver.stdout))
        for name, value in expected_checks(other_held).items():
            with self.subTest(driver=label, check=name):
                self.assertEqual(checks.get(name), value, f"{label}: {name}\n{report}")
        self.assertEqual(int(checks["local-doubled"]), 2 * int(checks["local-i"]), report)
        return checks

    def run_driver(self, client: str, port: int, other_held: bool = False) -> dict:
        label, driver = self.start_driver(client, port)
        return self.finish_driver(label, driver, other_held)

    def clients(self) -> list:
        if eclipse_available():
            return ["jdk", "eclipse"]
        print(f"  Eclipse JDI not installed ({', '.join(harness.ECLIPSE_JARS)}): the JDK's JDI only", flush=True)
        return ["jdk"]

    def end_debuggee(self):
        """The program still runs: it answers stdin's end and exits 0."""
        self.assertIsNone(self.debuggee.returncode, "the debuggee ended early")
        self.debuggee.proc.stdin.close()
        self.debuggee.wait_for_output(r"(?m)^done$", WAIT_S)
        self.assertEqual(self.debuggee.wait(WAIT_S), 0)

    # jdb prints an event's text and its prompt from its event thread, a command's
    # from its input loop, in either order (a prompt may come after the next
    # command's output): these wait on what a command prints, never on a prompt.

    def jdb_do(self, command: str, regex: str) -> re.Match:
        self.jdb.send(command)
        return self.jdb.expect(regex, WAIT_S)

    def jdb_stop(self, kind: str, line: int, interleaved: str = ""):
        """Waits for jdb's '<kind>: "thread=other", Sessions.tock(), line=<line>' and the
        source line it prints; then makes "other" jdb's current thread (a
        SUSPEND_EVENT_THREAD hit does not). `interleaved`: a command's answer that jdb's
        input loop may print in the middle of that line (after '<kind>: ')."""
        between = f"(?:{interleaved})?" if interleaved else ""
        m = self.jdb.expect(rf'{kind}: {between}"thread=other", Sessions\.tock\(\), line=(\d+) bci=\d+', WAIT_S)
        self.assertEqual(int(m.group(1)), line, m.group(0))
        self.jdb.expect(rf"{line}\s+{re.escape(SOURCE_LINES[line - 1].strip())}\n", WAIT_S)
        if self.other_id is None:
            other = self.jdb_do("threads", r"\(java\.lang\.Thread\)(\S+)\s+other\s+running \(at breakpoint\)")
            self.other_id = other.group(1)
        self.jdb.send(f"thread {self.other_id}")

    def jdb_locals(self) -> tuple:
        """jdb's `locals` -> (i, the local variables' text)."""
        m = self.jdb_do("locals", r"Method arguments:\s*\ni = (-?\d+)\s*\nLocal variables:\s*\n")
        # `version` ends the listing with a known text.
        self.jdb.send("version")
        end = self.jdb.expect(r"This is jdb version", WAIT_S)
        variables = self.jdb.output[m.end():end.start()]
        return int(m.group(1)), re.sub(PROMPT_ANYWHERE_RE, "", variables).strip()

    # -- one debugger: the oracle's case --

    def test_one_jdi_debugger(self):
        """One driver alone, sessions= absent: the same checks for ours and stock; then again for
        ours with sessions=3 and one debugger attached (that must look the same)."""
        option_sets = [ONE_DEBUGGER] + ([THREE_DEBUGGERS] if self.cfg.agent == "ours" else [])
        for options in option_sets:
            for client in self.clients():
                with self.subTest(options=options, client=client):
                    debuggee = self.start_debuggee(options)
                    self.run_driver(client, debuggee.port)
                    # The program runs on after the session: a second one (after the first
                    # has ended) stops, steps and resumes the same way.
                    port = debuggee.port if self.cfg.agent == "ours" else self.next_listening_port()
                    self.run_driver(client, port)
                    self.end_debuggee()

    def next_listening_port(self) -> int:
        """Stock listens on a new port after a session: the second Listening line's."""
        m = self.debuggee.wait_for_output(r"(?s)" + harness.LISTENING_RE + r".*?" + harness.LISTENING_RE, WAIT_S)
        return int(m.group(2))

    # -- several debuggers at once: ours only --

    def test_jdb_holds_other_while_jdi_clients_debug_worker(self):
        if self.cfg.agent == "stock":
            self.skipTest(STOCK_HAS_NO_SESSIONS)
        debuggee = self.start_debuggee(THREE_DEBUGGERS)
        port = debuggee.port
        self.jdb = jdb = harness.Jdb(self.cfg, port, args=["-sourcepath", harness.FIXTURES_SRC])
        jdb.expect(r"Initializing jdb", WAIT_S)
        # `stop thread`: a SUSPEND_EVENT_THREAD breakpoint (jdb's plain `stop` would stop every thread).
        # Its first hit may come before jdb's input loop prints the command's answer, which then
        # lands in the middle of the hit's line ('Breakpoint hit: Set breakpoint ...\n> "thread=...').
        jdb.send(f"stop thread at Sessions:{TOCK}")
        self.jdb_stop("Breakpoint hit", TOCK, interleaved=rf"Set breakpoint Sessions:{TOCK}\n> ")
        self.assertIn(f"Set breakpoint Sessions:{TOCK}\n", jdb.output)
        i, variables = self.jdb_locals()
        self.assertEqual(variables, "", "tripled is not assigned yet at the breakpoint")

        # While jdb holds "other": both IDEs debug "worker" at once.
        quiet_from = len(jdb.output)
        started = [self.start_driver(client, port) for client in self.clients()]
        for label, driver in started:
            self.finish_driver(label, driver, other_held=True)
        self.assertNotRegex(jdb.output[quiet_from:], r"hit|completed|occurred|exited|disconnected",
                            "jdb saw something of the other sessions")
        self.assertIsNone(debuggee.returncode)

        # jdb goes on as if it had been alone.
        self.jdb_do("where", rf"\[1\] Sessions\.tock \(Sessions\.java:{TOCK}\)\n")
        jdb.expect(rf"\[\d\] Sessions\.lambda\$loop\$0 \(Sessions\.java:{LOOP_CALL}\)\n", WAIT_S)
        self.assertEqual(self.jdb_locals(), (i, ""))
        jdb.send("next")
        self.jdb_stop("Step completed", TOCK_NEXT)
        self.assertEqual(self.jdb_locals(), (i, f"tripled = {3 * i}"))
        jdb.send("cont")
        self.jdb_stop("Breakpoint hit", TOCK)
        self.assertEqual(self.jdb_locals(), (i + 1, ""), "the hit after cont is the next call's")
        self.jdb_do(f"clear Sessions:{TOCK}", rf"Removed: breakpoint Sessions:{TOCK}")
        jdb.send("cont")
        jdb.send("exit")
        self.assertEqual(jdb.wait(WAIT_S), 0, jdb.transcript)
        self.assertNotRegex(jdb.output[quiet_from:], r"Exception|[Ee]rror", jdb.transcript)

        # jdb's end released all it held: a new debugger finds "other" running.
        self.run_driver("jdk", port, other_held=False)
        self.end_debuggee()

    def test_two_jdi_clients_stop_at_the_same_hit(self):
        if self.cfg.agent == "stock":
            self.skipTest(STOCK_HAS_NO_SESSIONS)
        if not eclipse_available():
            print("  Eclipse JDI not installed: two drivers of the JDK's JDI instead", flush=True)
        clients = ["jdk", "eclipse"] if eclipse_available() else ["jdk", "jdk"]
        debuggee = self.start_debuggee(THREE_DEBUGGERS)
        port = debuggee.port
        gate = Client(port, timeout=WAIT_S)
        try:
            fixture = gate.class_by_signature("LSessions;")
            counter = gate.fields(fixture)["counter"].id
            worker = gate.thread_named("worker")
            gate.ok(ThreadReference.Suspend, gate.object_id(worker))
            started = [self.start_driver(client, port) for client in clients]
            for label, driver in started:
                self.assertIsNotNone(driver._out.wait_for(r"(?m)^ARMED$", 0, WAIT_S),
                                     f"{label} driver did not set its breakpoint:\n{driver.stdout}")
            gate.ok(ThreadReference.Resume, gate.object_id(worker))
            checks = [self.finish_driver(label, driver, other_held=False) for label, driver in started]
            self.assertEqual(checks[0]["local-i"], checks[1]["local-i"], "both stopped at the same hit")
            # Neither left the worker suspended: the gate's view, then progress.
            self.assertEqual(gate.ok(ThreadReference.SuspendCount, gate.object_id(worker)).int(), 0)
            read_counter = lambda: gate.static_values(fixture, [counter])[0][1]  # noqa: E731
            seen = {read_counter()}
            deadline = time.monotonic() + WAIT_S
            while len(seen) < 3:
                self.assertLess(time.monotonic(), deadline, f"counter stuck at {seen}")
                seen.add(read_counter())
        finally:
            gate.close()
        self.end_debuggee()

    def test_a_probe_run_while_ides_stop_and_step(self):
        if self.cfg.agent == "stock":
            self.skipTest(STOCK_HAS_NO_SESSIONS)
        debuggee = self.start_debuggee(THREE_DEBUGGERS)
        port = debuggee.port
        tool = ProbeRun([os.path.join(self.cfg.build_dir, "tools", "jdwpx-probe"),
                         "--connect", f"127.0.0.1:{port}", "log", f"Sessions:{TOCK}", "tock {i}",
                         "--format", "json", "--budget", "50"])
        self.addCleanup(tool.close)
        logs = [tool.next(WAIT_S)]  # the probe is set
        logs += tool.drain()
        before = len(logs)
        for client in self.clients():
            self.run_driver(client, port, other_held=False)
        logs += tool.drain()
        self.assertGreater(len(logs) - before, 0, "no probe output while the drivers stopped and stepped")

        tool.proc.send_signal(signal.SIGINT)
        self.assertEqual(tool.finish(WAIT_S), 0, tool.stderr())
        logs += tool.drain()
        *logs, summary = logs
        self.assertEqual(summary["kind"], "summary", summary)
        # The output rate (100 lines/s) drops some lines, with a notice; the CPU budget,
        # lifted for this machine's 2 loaded cores, pauses nothing.
        notices = [log for log in logs if log["kind"] == "notice"]
        self.assertNotIn("paused", [n["notice"] for n in notices], notices)
        logs = [log for log in logs if log["kind"] != "notice"]
        # The summary's counts are the agent's answer to the tool's List at Ctrl-C; a hit in
        # flight then (one thread: at most one) is counted without its line read, or read
        # after the counts were taken.
        self.assertLessEqual(abs(summary["matched"] - len(logs) - summary["suppressed"]), 1, summary)
        values = []
        for log in logs:
            self.assertEqual((log["kind"], log["thread"], log["location"]), ("log", "other", f"Sessions.tock:{TOCK}"))
            values.append(int(re.fullmatch(r"tock (\d+)", log["message"]).group(1)))
        self.assertEqual(values, sorted(set(values)), "each call's line once, in call order")
        self.end_debuggee()


if __name__ == "__main__":
    harness.main()
