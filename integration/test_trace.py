#!/usr/bin/env python3
"""The protocol trace (trace=, tracebytes=, tracesize=; issue 14) and jdwpx-trace.

A raw JDWP client (jdwp_client.py) drives fixtures/TraceFixture.java: it looks
the fixture up, sets a SUSPEND_NONE breakpoint in hit(), lets the loop run,
reads every breakpoint event, and makes the program leave with System.exit.
The client counts every command it sends; `jdwpx-trace summary` of the trace
must count the same per command, and the events it read.

trace= is jdwpx's own option: the stock agent refuses it (a syntax error, see
test_options), so for stock the same session runs without it (the oracle that
the session itself is sound) and the trace-only tests are skipped.
"""

from __future__ import annotations

import collections
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import jdwp_client  # noqa: E402
from jdwp_client import (ArrayReference, Client, ClassType, EventKind, EventRequest, SuspendPolicy,  # noqa: E402
                         VirtualMachine, command_label, i32, i64, jdwp_string)

OPTIONS = "transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0"
MAIN = "TraceFixture"
CLI_TIMEOUT_S = 60


class CountingClient(Client):
    """A Client that counts the commands it sends, by spec name."""

    def __init__(self, port: int):
        self.sent = collections.Counter()
        super().__init__(port)

    def send_command(self, command, data: bytes = b"") -> int:
        # "VirtualMachine.IDSizes (1/7)" -> the spec name the summary uses.
        self.sent[re.sub(r" \(\d+/\d+\)$", "", command_label(command))] += 1
        return super().send_command(command, data)


COMMAND_NAMES = {(c.command_set, c.command): c.name
                 for cls in jdwp_client.CommandSet.__subclasses__()
                 for c in vars(cls).values() if isinstance(c, jdwp_client.Command)}


class Relay:
    """A TCP relay between one debugger and the agent that counts, by spec name,
    the commands the debugger sends: what the trace must count too."""

    def __init__(self, agent_port: int):
        self.agent_port = agent_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sent = collections.Counter()
        self.done = threading.Event()
        threading.Thread(target=self._run, daemon=True).start()

    def _pump(self, source, sink):
        try:
            while chunk := source.recv(65536):
                sink.sendall(chunk)
        except OSError:
            pass
        finally:
            try:
                sink.shutdown(socket.SHUT_WR)
            except OSError:
                pass

    def _run(self):
        debugger = agent = pump = None
        try:
            debugger, _ = self.listener.accept()
            agent = socket.create_connection(("127.0.0.1", self.agent_port))
            pump = threading.Thread(target=self._pump, args=(agent, debugger), daemon=True)
            pump.start()
            agent.sendall(jdwp_client.recv_exact(debugger, len(jdwp_client.HANDSHAKE)))
            while True:
                try:
                    packet = jdwp_client.read_packet(debugger)
                except jdwp_client.ConnectionClosed:
                    break
                if not packet.is_reply:
                    self.sent[COMMAND_NAMES.get(packet.kind, "command {}.{}".format(*packet.kind))] += 1
                agent.sendall(packet.to_bytes())
            agent.shutdown(socket.SHUT_WR)
        except (OSError, jdwp_client.ConnectionClosed):
            pass
        finally:
            if pump:
                pump.join(30)
            for sock in (debugger, agent, self.listener):
                if sock:
                    sock.close()
            self.done.set()


class TraceTest(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        self.dir = tempfile.mkdtemp(prefix="jdwpx-trace-test-")
        self.tool = os.path.join(self.cfg.build_dir, "tools", "jdwpx-trace")

    def tearDown(self):
        shutil.rmtree(self.dir, ignore_errors=True)

    def need_ours(self):
        if self.cfg.agent != "ours":
            self.skipTest("trace= is a jdwpx option; the stock agent has none (it refuses it)")

    def trace_options(self, extra: str = "") -> str:
        return f"{OPTIONS},trace={self.dir}/trace.%p.bin{extra}"

    def trace_files(self, pid: int) -> list:
        base = os.path.join(self.dir, f"trace.{pid}.bin")
        return [p for p in [base] + [f"{base}.{i}" for i in range(1, 8)] if os.path.exists(p)]

    def terminate(self, debuggee):
        """kill -TERM: the VM exits through VMDeath, which writes the trace out."""
        os.kill(debuggee.proc.pid, signal.SIGTERM)
        debuggee.wait(30)

    @staticmethod
    def track_names(trace: dict) -> dict:
        """-> {tid: name} of an export's thread tracks."""
        return {e["tid"]: e["args"]["name"] for e in trace["traceEvents"]
                if e["ph"] == "M" and e["name"] == "thread_name"}

    def cli(self, *args) -> subprocess.CompletedProcess:
        return subprocess.run([self.tool, *args], capture_output=True, text=True, timeout=CLI_TIMEOUT_S)

    # -- the session ---------------------------------------------------------------

    def start_session(self, debuggee, hits: int) -> tuple:
        """Attaches, sets the breakpoint in hit() and lets the loop run -> (client, class id, fields)."""
        debuggee.wait_for_output(r"ready\n")
        c = CountingClient(debuggee.port)
        c.ok(VirtualMachine.Version)
        type_id = c.class_by_signature(f"L{MAIN};")
        fields = c.fields(type_id)
        hit = c.method_named(type_id, "hit")
        modifier = bytes([7, 1]) + c.type_id(type_id) + c.method_id(hit) + i64(0)
        c.ok(EventRequest.Set, bytes([EventKind.BREAKPOINT, SuspendPolicy.NONE]) + i32(1) + modifier)
        c.thread_named("main")
        self.set_flag(c, type_id, fields["go"].id)
        return c, type_id, fields

    def set_flag(self, c, type_id: int, field_id: int):
        c.ok(ClassType.SetValues, c.type_id(type_id) + i32(1) + c.field_id(field_id) + b"\x01")

    def read_breakpoints(self, c, hits: int) -> int:
        got = 0  # read_event returns the events that came during commands first
        while got < hits:
            if c.read_event()[5] == EventKind.BREAKPOINT:
                got += 1
        return got

    def summary_counts(self, text: str) -> tuple:
        """-> ({command: count}, {event kind: count}) from `jdwpx-trace summary`."""
        commands, events, section = {}, {}, None
        for line in text.splitlines():
            if line.startswith("commands:"):
                section = commands
            elif line.startswith("events"):
                section = events
            elif not line.startswith("  "):
                section = None
            elif section is not None:
                m = re.match(r"  (\S+)\s+(\d+)\b", line)
                if m and m.group(1) not in ("command", "total"):
                    section[m.group(1)] = int(m.group(2))
        return commands, events

    # -- tests ---------------------------------------------------------------------

    def test_summary_counts_what_the_client_sent_and_trace_survives_system_exit(self):
        hits = 200
        options = self.trace_options() if self.cfg.agent == "ours" else OPTIONS
        with harness.Debuggee(self.cfg, MAIN, [str(hits)], options=options) as d:
            c, type_id, fields = self.start_session(d, hits)
            self.assertEqual(self.read_breakpoints(c, hits), hits)
            d.wait_for_output(r"hits done \d+\n")
            # The program leaves through System.exit while the debugger is attached.
            self.set_flag(c, type_id, fields["exit"].id)
            kinds = []
            try:
                while EventKind.VM_DEATH not in kinds:
                    kinds.append(c.read_event()[5])
            except Exception:
                pass
            self.assertEqual(d.wait(30), 3)
            c.close()
        self.assertIn(EventKind.VM_DEATH, kinds)
        if self.cfg.agent != "ours":
            return  # stock ran the session; it has no trace to check
        files = self.trace_files(d.proc.pid)
        self.assertEqual(len(files), 1, files)
        result = self.cli("summary", files[0])
        self.assertEqual(result.returncode, 0, result.stderr)
        commands, events = self.summary_counts(result.stdout)
        self.assertEqual(commands, dict(c.sent), result.stdout)
        self.assertEqual(events.get("BREAKPOINT"), hits, result.stdout)
        self.assertEqual(events.get("VM_DEATH"), 1, result.stdout)
        self.assertRegex(result.stdout, r"sessions:\n  1  127\.0\.0\.1:\d+ +\S+ \S+, handshake \d")
        self.assertRegex(result.stdout, r"dropped records: 0\n")
        print("\n" + result.stdout)
        # show: one line per record, bodies decoded when recorded (not here).
        show = self.cli("show", files[0])
        self.assertEqual(show.returncode, 0, show.stderr)
        self.assertRegex(show.stdout, r"session 1 attached: 127\.0\.0\.1:\d+, handshake [\d.]+ (ns|us|ms)\n")
        self.assertRegex(show.stdout, r"<- VirtualMachine\.IDSizes id=1 len=11")
        self.assertRegex(show.stdout, r"-> reply id=1 NONE \(VirtualMachine\.IDSizes\) len=31 \(")
        self.assertEqual(show.stdout.count("event BREAKPOINT"), hits)
        chrome = self.cli("export", "--chrome", files[0])
        self.assertEqual(chrome.returncode, 0, chrome.stderr)
        import json
        trace = json.loads(chrome.stdout)
        slices = [e for e in trace["traceEvents"] if e["ph"] == "X" and e.get("cat") == "command"]
        self.assertEqual(len(slices), sum(c.sent.values()))
        # Without tracebytes=y too, ThreadReference commands (thread_named) are on their thread's
        # track, which is named after the Java thread.
        names = self.track_names(trace)
        on_threads = [e for e in slices if e["tid"] != 0]
        self.assertEqual(len(on_threads), c.sent["ThreadReference.Name"], on_threads)
        self.assertTrue(all(e["name"] == "ThreadReference.Name" for e in on_threads), on_threads)
        # The client asks every thread's name: each command is on the track of the thread it
        # names, and every such track carries a Java thread's name (main among them).
        track_names = {names[e["tid"]] for e in on_threads}
        self.assertIn("main", track_names, (on_threads, names))
        self.assertFalse([n for n in track_names if n.startswith("thread 0x")], (on_threads, names))
        breakpoints = [e for e in trace["traceEvents"] if e.get("name") == "BREAKPOINT"]
        self.assertEqual(len(breakpoints), hits)
        self.assertEqual({e["args"]["suspend_policy"] for e in breakpoints}, {"SUSPEND_NONE"})
        self.assertEqual({names[e["tid"]] for e in breakpoints}, {"main"})

    def test_jdb_session_summary_counts_what_a_relay_saw(self):
        options = harness.DEFAULT_SERVER_OPTIONS
        if self.cfg.agent == "ours":
            options += f",trace={self.dir}/trace.%p.bin"
        fixture = "JdbFixture"
        leaf = harness.fixture_line("JdbFixture.java", "// @bp-leaf")
        with harness.Debuggee(self.cfg, fixture, options=options) as d:
            relay = Relay(d.port)
            with harness.Jdb(self.cfg, relay.port, args=["-sourcepath", harness.FIXTURES_SRC]) as jdb:
                jdb.expect_started()
                jdb.command(f"stop at {fixture}:{leaf}")
                jdb.send("cont")
                jdb.expect(rf'Breakpoint hit: "thread=main", {fixture}\.leaf\(\), line={leaf} ')
                jdb.expect_prompt()
                self.assertIn(f"{fixture}.leaf", jdb.command("where"))
                self.assertIn("v = ", jdb.command("locals"))
                jdb.command(f"clear {fixture}:{leaf}")
                jdb.send("cont")
                jdb.expect(r"The application exited", timeout=30)
                self.assertEqual(jdb.wait(30), 0)
            self.assertEqual(d.wait(30), 0)
        self.assertTrue(relay.done.wait(30))
        self.assertGreater(relay.sent["ThreadReference.Frames"], 0, relay.sent)
        if self.cfg.agent != "ours":
            return  # stock ran the session; it has no trace to check
        files = self.trace_files(d.proc.pid)
        result = self.cli("summary", *files)
        self.assertEqual(result.returncode, 0, result.stderr)
        commands, events = self.summary_counts(result.stdout)
        self.assertEqual(commands, dict(relay.sent), result.stdout)
        self.assertEqual(events.get("BREAKPOINT"), 1, result.stdout)
        self.assertRegex(result.stdout, r"VM suspended: .* in [1-9]\d* suspension")
        print("\n" + result.stdout)
        # The timeline: jdb's breakpoint (SUSPEND_ALL) on main's track, main suspended from
        # it to jdb's `cont`, and the whole VM too.
        chrome = self.cli("export", "--chrome", *files)
        self.assertEqual(chrome.returncode, 0, chrome.stderr)
        import json
        trace = json.loads(chrome.stdout)
        names = self.track_names(trace)
        events = trace["traceEvents"]
        [hit] = [e for e in events if e.get("name") == "BREAKPOINT"]
        self.assertEqual(names[hit["tid"]], "main")
        self.assertEqual(hit["args"]["suspend_policy"], "SUSPEND_ALL")
        spans = [e for e in events if e["ph"] == "X" and e.get("cat") == "suspension" and e["ts"] == hit["ts"]]
        self.assertEqual(len(spans), 1, spans)
        self.assertEqual(spans[0]["tid"], hit["tid"])
        self.assertEqual(spans[0]["args"]["by"], "BREAKPOINT event, SUSPEND_ALL")
        self.assertEqual(spans[0]["args"]["resumed_by"][:len("VirtualMachine.Resume id=")], "VirtualMachine.Resume id=")
        vm = [(e["ph"], e["ts"]) for e in events if e.get("cat") == "suspension" and e["ph"] in ("b", "e")]
        self.assertIn(("b", hit["ts"]), vm)
        end = spans[0]["ts"] + spans[0]["dur"]
        self.assertTrue(any(ph == "e" and abs(ts - end) < 0.01 for ph, ts in vm), (end, vm))

    def test_bodies_are_decoded_with_tracebytes(self):
        self.need_ours()
        with harness.Debuggee(self.cfg, MAIN, ["0"], options=self.trace_options(",tracebytes=y")) as d:
            d.wait_for_output(r"ready\n")
            c = CountingClient(d.port)
            c.ok(VirtualMachine.ClassesBySignature, jdwp_string(f"L{MAIN};"))
            c.close()
            self.terminate(d)
        files = self.trace_files(d.proc.pid)
        show = self.cli("show", files[0])
        self.assertEqual(show.returncode, 0, show.stderr)
        self.assertIn('<- VirtualMachine.ClassesBySignature id=2 len=29 signature="LTraceFixture;"', show.stdout)
        self.assertRegex(show.stdout, r"reply id=1 NONE \(VirtualMachine\.IDSizes\) len=31 \(.*\) "
                                      r"field_id_size=8 method_id_size=8 object_id_size=8")

    def test_a_reply_sent_in_parts_is_one_packet_with_its_header_kept(self):
        """A reply from 1 MiB on goes out in parts (GetValues of a long[200000]:
        1.6 MB): the trace has one packet record for it, with its whole length
        and its latency to the last byte; with tracebytes=y only its header
        (keeping the rest would hold the whole reply again)."""
        self.need_ours()
        options = self.trace_options(",tracebytes=y")
        with harness.Debuggee(self.cfg, "ObjectsFixture", ["block"], options=options) as d:
            d.wait_for_output(r"ready\n")
            c = Client(d.port)
            fixture = c.class_by_signature("LObjectsFixture;")
            array = c.static_values(fixture, [c.fields(fixture)["mediumLongs"].id])[0][1]
            region = c.ok(ArrayReference.GetValues, c.object_id(array) + i32(0) + i32(-1)).data
            self.assertEqual(region[:5], b"J" + i32(200_000))
            self.assertEqual(len(region), 5 + 8 * 200_000)
            c.close()
            self.terminate(d)
        files = self.trace_files(d.proc.pid)
        show = self.cli("show", files[0])
        self.assertEqual(show.returncode, 0, show.stderr)
        self.assertRegex(show.stdout, r"-> reply id=\d+ NONE \(ArrayReference\.GetValues\) len=1600016 "
                                      r"\(\S+ \S+\) \(sent in parts: header kept only\)\n")
        summary = self.cli("summary", files[0])
        self.assertEqual(summary.returncode, 0, summary.stderr)
        self.assertRegex(summary.stdout, r"\n  ArrayReference\.GetValues\s+1\s+\d+\s+1600016\s")

    def test_trace_survives_kill_term(self):
        self.need_ours()
        with harness.Debuggee(self.cfg, MAIN, ["0"], options=self.trace_options()) as d:
            d.wait_for_output(r"ready\n")
            c = CountingClient(d.port)
            c.ok(VirtualMachine.Version)
            c.ok(VirtualMachine.AllThreads)
            os.kill(d.proc.pid, signal.SIGTERM)
            self.assertNotEqual(d.wait(30), 0)
            c.close()
        files = self.trace_files(d.proc.pid)
        result = self.cli("summary", *files)
        self.assertEqual(result.returncode, 0, result.stderr)
        commands, events = self.summary_counts(result.stdout)
        self.assertEqual(commands, dict(c.sent), result.stdout)
        self.assertEqual(events.get("VM_DEATH"), 1, result.stdout)

    def test_ring_bound_holds_under_a_flood_of_events(self):
        self.need_ours()
        hits = 40000
        with harness.Debuggee(self.cfg, MAIN, [str(hits)], options=self.trace_options(",tracesize=1")) as d:
            c, _, _ = self.start_session(d, hits)
            self.assertEqual(self.read_breakpoints(c, hits), hits)
            d.wait_for_output(r"hits done \d+\n")
            c.ok(VirtualMachine.Version)  # the last command: it must be in the newest file
            c.close()
            self.terminate(d)
        files = self.trace_files(d.proc.pid)
        total = sum(os.path.getsize(p) for p in files)
        self.assertLessEqual(total, 1 << 20, files)
        self.assertGreaterEqual(total, (1 << 20) // 2, files)
        self.assertEqual(len(files), 4, files)
        result = self.cli("summary", *files)
        self.assertEqual(result.returncode, 0, result.stderr)
        commands, events = self.summary_counts(result.stdout)
        self.assertEqual(commands.get("VirtualMachine.Version"), 1, result.stdout)
        self.assertLess(events.get("BREAKPOINT", 0), hits)
        self.assertGreater(events.get("BREAKPOINT", 0), 1000)
        print(f"\nring of {len(files)} files, {total} bytes, bound {1 << 20}")

    def test_unwritable_trace_path_is_reported_once_and_the_agent_runs_on(self):
        self.need_ours()
        options = f"{OPTIONS},trace={self.dir}/no/such/dir/t.bin"
        with harness.Debuggee(self.cfg, MAIN, ["0"], options=options) as d:
            d.wait_for_output(r"ready\n")
            c = CountingClient(d.port)
            c.ok(VirtualMachine.Version)
            c.close()
            self.terminate(d)
        lines = [l for l in d.stderr.splitlines() if "trace" in l]
        self.assertEqual(lines, [f"jdwpx: cannot write the trace to {self.dir}/no/such/dir/t.bin: "
                                 "No such file or directory; the agent runs on without a trace"])

    def test_info_log_has_the_configuration_and_each_connection(self):
        self.need_ours()
        path = f"{self.dir}/trace.%p.bin"
        options = f"{OPTIONS},trace={path},tracesize=8,loglevel=info"
        with harness.Debuggee(self.cfg, MAIN, ["0"], options=options) as d:
            d.wait_for_output(r"ready\n")
            c = CountingClient(d.port)
            c.ok(VirtualMachine.Version)
            c.close()
            d.wait_for_output(r"debugger detached: debugger closed the connection\n", stream="stderr")
            self.terminate(d)
        info = [line.split("] [info] ", 1)[1] for line in d.stderr.splitlines() if "] [info] " in line]
        self.assertEqual(len(info), 3, d.stderr)
        self.assertRegex(info[0], rf"^jdwpx \S+: transport=dt_socket server=y address=127\.0\.0\.1:0 "
                                  rf"\(listening on {d.port}\) suspend=n "
                                  rf"trace={re.escape(path.replace('%p', str(d.proc.pid)))} "
                                  r"\(tracebytes=n tracesize=8MB\) loglevel=info$")
        self.assertRegex(info[1], r"^debugger attached from 127\.0\.0\.1:\d+$")
        self.assertEqual(info[2], "debugger detached: debugger closed the connection")

    def test_cli_on_bad_files(self):
        self.need_ours()
        with harness.Debuggee(self.cfg, MAIN, ["0"], options=self.trace_options()) as d:
            d.wait_for_output(r"ready\n")
            c = CountingClient(d.port)
            c.ok(VirtualMachine.Version)
            c.close()
            self.terminate(d)
        with open(self.trace_files(d.proc.pid)[0], "rb") as f:
            good = f.read()
        bad = {
            "empty": (b"", "empty file"),
            "foreign": (b"\x7fELF" + bytes(range(256)) * 4, "not a jdwpx trace"),
            "text": (b"hello\n", "not a jdwpx trace"),
            "truncated": (good[:-3], "truncated: the record at byte"),
            "corrupt": (good + b"\x05\x0b\x0b\x0b\x0b\x0b", "corrupt record at byte"),
            "huge-length": (good + b"\xff\xff\xff\xff\x0f", "corrupt record at byte"),
        }
        for name, (data, message) in bad.items():
            path = os.path.join(self.dir, name)
            with open(path, "wb") as f:
                f.write(data)
            for args in (["summary", path], ["show", path], ["export", "--chrome", path]):
                with self.subTest(file=name, command=args[0]):
                    r = self.cli(*args)
                    self.assertEqual(r.returncode, 1, r)
                    errors = r.stderr.splitlines()
                    self.assertEqual(len(errors), 1, r.stderr)
                    self.assertIn(message, errors[0])
                    self.assertTrue(errors[0].startswith(f"jdwpx-trace: {path}: "), errors[0])
        missing = self.cli("summary", os.path.join(self.dir, "missing"))
        self.assertEqual((missing.returncode, missing.stderr.count("\n")), (1, 1), missing)
        self.assertIn("cannot open", missing.stderr)
        usage = self.cli("frobnicate")
        self.assertEqual(usage.returncode, 2)


if __name__ == "__main__":
    harness.main()
