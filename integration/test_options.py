#!/usr/bin/env python3
"""The agent's option string and start-up errors, byte for byte against the JDK's own agent.

    python3 integration/test_options.py --agent {ours,stock} --agent-lib PATH --jdk JAVA_HOME [unittest args]

Each case runs `java <agent> -version` and asserts stdout, stderr (less the
JVM's -version banner, whose presence is asserted separately: it tells whether
the VM went on to run main) and the exit status. Both agents get the same
expectations except where jdwpx deliberately differs: the help text's version
line and jdwpx's rows; the line jdwpx adds after stock's first error line
("jdwpx: <option>=<value>: <what is allowed> (in <the options as given>)");
timeout=, which jdwpx wants a number of; a missing transport library, which
jdwpx reports before the VM starts and exits 134 without stock's JNI FatalError.
ErrorLinesTest gives jdwpx its options both ways: -agentpath:<lib> and, through
an overlay JDK whose lib/libjdwp.so is jdwpx (make_overlay.py, under
--build-dir), -agentlib:jdwp. Normalised, because they are not ours to
choose: the " [file:line]" suffix stock puts on "JDWP exit error" lines (it
differs by JDK build), the library name the JVM prints in "agent library
failed ...: <name>", and the native frames after a JNI FatalError.

DeferredStartTest runs fixtures/OptionsFixture.java (needs --classes) with
launch=, onthrow= and onuncaught=, and attaches with jdwp_client.py.
No sleeps; every subprocess has a timeout. --build-dir holds the overlay JDK (else /tmp).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402
import jdwp_client  # noqa: E402
from jdwp_client import EventKind, SuspendPolicy  # noqa: E402

RUN_TIMEOUT_S = 60
LISTENING_RE = r"Listening for transport dt_socket at address: \d+"
EXIT_ERROR_SUFFIX_RE = re.compile(r"^(JDWP exit error .*) \[[^\]]+:\d+\]$")

ARGS: argparse.Namespace | None = None


def jdk_feature_version(jdk: str) -> int:
    with open(os.path.join(jdk, "release"), encoding="utf-8") as f:
        for line in f:
            m = re.match(r'JAVA_VERSION="(\d+)', line)
            if m:
                return int(m.group(1))
    raise RuntimeError(f"no JAVA_VERSION in {jdk}/release")


def syntax_error(options: str) -> str:
    return f"ERROR: JDWP option syntax error: -agentlib:jdwp={options}"


def release() -> str:
    """CMakeLists.txt's project(jdwpx VERSION ...): what the help's version line names."""
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "CMakeLists.txt"), encoding="utf-8") as f:
        return re.search(r"project\(jdwpx VERSION (\S+)", f.read()).group(1)


def not_supported(option: str) -> str:
    return f"ERROR: JDWP option '{option}' is not supported by jdwpx yet"


HELP_JDK17 = """\
               Java Debugger JDWP Agent Library
               --------------------------------

  (See the "VM Invocation Options" section of the JPDA
   "Connection and Invocation Details" document for more information.)

jdwp usage: java -agentlib:jdwp=[help]|[<option>=<value>, ...]

Option Name and Value            Description                       Default
---------------------            -----------                       -------
suspend=y|n                      wait on startup?                  y
transport=<name>                 transport spec                    none
address=<listen/attach address>  transport spec                    ""
server=y|n                       listen for debugger?              n
allow=<IP|IP-list>               If server=y, allows connections only from the IP addresses/subnets specified.
                                 A list of multiple IP address/subnet entries must be separated by '+'.
                                                                   * (allows connection from any address)
launch=<command line>            run debugger on event             none
onthrow=<exception name>         debug on throw                    none
onuncaught=y|n                   debug on any uncaught?            n
timeout=<timeout value>          for listen/attach in milliseconds n
mutf8=y|n                        output modified utf-8             n
quiet=y|n                        control over terminal messages    n

Obsolete Options
----------------
strict=y|n
stdalloc=y|n

Examples
--------
  - Using sockets connect to a debugger at a specific address:
    java -agentlib:jdwp=transport=dt_socket,address=localhost:8000 ...
  - Using sockets listen for a debugger to attach:
    java -agentlib:jdwp=transport=dt_socket,server=y,suspend=y ...

Notes
-----
  - A timeout value of 0 (the default) is no timeout.

Warnings
--------
  - The older -Xrunjdwp interface can still be used, but will be removed in
    a future release, for example:
        java -Xrunjdwp:[help]|[<option>=<value>, ...]

"""
HELP_VTHREAD_ROWS = (
    "includevirtualthreads=y|n        List of all threads includes virtual threads as well as platform threads.\n"
    "                                                                   n\n")
HELP_LOGLEVEL_ROW = "loglevel=<level>                 trace|debug|info|warn|error|off   warn\n"
HELP_TRACE_ROWS = (
    "trace=<path>                     protocol trace file (%p = pid)    none\n"
    "tracebytes=y|n                   trace packet bodies too?          n\n"
    "tracesize=<MB>                   bound the trace (ring of files)   none\n"
    "handshaketimeout=<ms>            debugger's handshake time limit   2000\n"
    "suspendtimeout=<ms>              suspend=y: then run on undebugged none\n"
    "onbindfail=abort|continue        continue: run on if cannot listen abort\n"
    "addressfile=<path>               write the address (%p = pid)      none\n"
    "unixroot=y|n                     address=unix:: root may attach?   n\n"
    "sessions=<1-16>                  debuggers attached at once        1\n")


def help_text(agent: str, version: int) -> str:
    text = HELP_JDK17
    if version >= 19:
        text = text.replace("mutf8=y|n ", HELP_VTHREAD_ROWS + "mutf8=y|n ", 1)
    if agent == "ours":
        quiet_row = "quiet=y|n                        control over terminal messages    n\n"
        text = text.replace(quiet_row, quiet_row + HELP_LOGLEVEL_ROW + HELP_TRACE_ROWS, 1)
    return text


# jdwpx's help names it under the title: "               jdwpx <release> (<commit>)".
HELP_TITLE_LINES = 2


@dataclasses.dataclass
class Expect:
    rc: int
    stderr: list[str] = dataclasses.field(default_factory=list)
    # Each stdout line is a regex that must match the whole line.
    stdout: list[str] = dataclasses.field(default_factory=list)
    vm_ran: bool = False  # the -version banner was printed
    stdout_first_line_only: bool = False  # after a JNI FatalError: native frames follow


@dataclasses.dataclass
class Run:
    rc: int
    stdout: list[str]
    stderr: list[str]
    vm_ran: bool


class OptionsTest(unittest.TestCase):
    agent: str
    agent_lib: str
    jdk: str
    java: str
    version: int
    banner: list[str]
    workdir: tempfile.TemporaryDirectory

    @classmethod
    def setUpClass(cls):
        assert ARGS is not None
        cls.agent = ARGS.agent
        cls.agent_lib = ARGS.agent_lib
        cls.jdk = os.path.abspath(ARGS.jdk)
        cls.java = os.path.join(cls.jdk, "bin", "java")
        cls.version = jdk_feature_version(cls.jdk)
        cls.workdir = tempfile.TemporaryDirectory(prefix="jdwpx-options-")
        rc, _, err = cls._spawn(["-version"], {})
        if rc != 0 or not err:
            raise RuntimeError(f"`java -version` failed: rc={rc} {err!r}")
        cls.banner = err

    @classmethod
    def tearDownClass(cls):
        cls.workdir.cleanup()

    # --- running java ---------------------------------------------------------

    @classmethod
    def _spawn(cls, args: list[str], extra_env: dict[str, str],
               java: str | None = None) -> tuple[int, list[str], list[str]]:
        env = {k: v for k, v in os.environ.items()
               if k not in ("JAVA_TOOL_OPTIONS", "_JAVA_JDWP_OPTIONS", "JDK_JAVA_OPTIONS", "_JAVA_OPTIONS")}
        env.update(extra_env)

        def no_core_dumps():  # the FatalError case aborts the JVM
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

        proc = subprocess.run([java or cls.java, *args], capture_output=True, text=True, env=env,
                              cwd=cls.workdir.name, timeout=RUN_TIMEOUT_S, preexec_fn=no_core_dumps,
                              stdin=subprocess.DEVNULL)
        return proc.returncode, proc.stdout.splitlines(), proc.stderr.splitlines()

    def agent_arg(self, options: str | None) -> str:
        suffix = "" if options is None else f"={options}"
        if self.agent == "ours":
            return f"-agentpath:{self.agent_lib}{suffix}"
        return f"-agentlib:jdwp{suffix}"

    def agent_name(self) -> str:
        """What the JVM names the library in "agent library failed ...: <name>"."""
        return self.agent_lib if self.agent == "ours" else "jdwp"

    def run_java(self, options: str | None, *, times: int = 1, env: dict[str, str] | None = None,
                 agentlib: bool = False) -> Run:
        """agentlib: -agentlib:jdwp=<options>, for our agent from an overlay JDK."""
        if agentlib:
            java = os.path.join(overlay_java_home(self.agent, self.jdk, self.version), "bin", "java")
            arg = "-agentlib:jdwp" + ("" if options is None else f"={options}")
        else:
            java, arg = None, self.agent_arg(options)
        rc, out, err = self._spawn([arg] * times + ["-version"], env or {}, java)
        vm_ran = all(line in err for line in self.banner)
        err = [line for line in err if line not in self.banner]
        return Run(rc, out, err, vm_ran)

    # --- checking -------------------------------------------------------------

    @staticmethod
    def _normalise_stderr(lines: list[str]) -> list[str]:
        result = []
        for line in lines:
            m = EXIT_ERROR_SUFFIX_RE.match(line)
            result.append(m.group(1) + " [<location>]" if m else line)
        return result

    def check(self, run: Run, expect: Expect):
        context = f"\nstdout: {run.stdout!r}\nstderr: {run.stderr!r}\nrc: {run.rc}"
        self.assertEqual(self._normalise_stderr(run.stderr), self._normalise_stderr(expect.stderr), context)
        stdout = run.stdout[:1] if expect.stdout_first_line_only else run.stdout
        self.assertEqual(len(stdout), len(expect.stdout), context)
        for line, pattern in zip(stdout, expect.stdout):
            self.assertRegex(line, "^" + pattern + "$", context)
        self.assertEqual(run.rc, expect.rc, context)
        self.assertEqual(run.vm_ran, expect.vm_ran, context)

    def check_options(self, options: str | None, stock: Expect, ours: Expect | None = None, **kwargs):
        expect = ours if (self.agent == "ours" and ours is not None) else stock
        self.check(self.run_java(options, **kwargs), expect)

    def invocation(self, options: str | None, env_options: str | None = None, agentlib: bool = False) -> str:
        """How our agent names the options it was given: the form that loaded it."""
        text = "-agentlib:jdwp" if agentlib else f"-agentpath:{self.agent_lib}"
        if options:
            text += f"={options}"
        if env_options is not None:
            text += f" and _JAVA_JDWP_OPTIONS={env_options}"
        return text

    def option_error(self, options: str | None, stock_lines: list[str], detail: str,
                     env_options: str | None = None, agentlib: bool = False) -> Expect:
        """Stock's lines, exit 1; ours adds after the first one what is wrong, and where."""
        lines = list(stock_lines)
        if self.agent == "ours":
            lines.insert(1, f"jdwpx: {detail} (in {self.invocation(options, env_options, agentlib)})")
        return Expect(rc=1, stderr=lines)

    def check_syntax_error(self, options: str, detail: str):
        self.check_options(options, self.option_error(options, [syntax_error(options)], detail))

    def accepted(self, listening: bool = True) -> Expect:
        return Expect(rc=0, stdout=[LISTENING_RE] if listening else [], vm_ran=True)

    def refused(self, option: str) -> Expect:
        return Expect(rc=1, stderr=[not_supported(option)])

    @staticmethod
    def transport_init_failed(first_line: str) -> Expect:
        return Expect(rc=2, stderr=[
            first_line,
            "ERROR: JDWP Transport dt_socket failed to initialize, TRANSPORT_INIT(510)",
            "JDWP exit error AGENT_ERROR_TRANSPORT_INIT(197): No transports initialized [x:0]",
        ])

    # --- help -------------------------------------------------------------------

    def test_help(self):
        rc, out, err = self._spawn([self.agent_arg("help"), "-version"], {})
        self.assertEqual(err, [])
        if self.agent == "ours":
            # Under the title, jdwpx names itself: its release and the commit it was built from.
            self.assertRegex(out[HELP_TITLE_LINES], r"^ {15}jdwpx " + re.escape(release()) + r" \([^()\s]+\)$")
            del out[HELP_TITLE_LINES]
        self.assertEqual("\n".join(out) + "\n", help_text(self.agent, self.version))
        self.assertEqual(rc, 0)

    def test_help_with_other_options_is_a_syntax_error(self):
        self.check_syntax_error("help,server=y", "help: must be the only option")

    # --- syntax errors ----------------------------------------------------------

    def test_unknown_option(self):
        self.check_syntax_error("foo=1", "foo=1: unknown option (help lists the options)")

    def test_bad_boolean_server(self):
        self.check_syntax_error("transport=dt_socket,server=x,address=0", "server=x: must be y or n")

    def test_bad_boolean_suspend(self):
        self.check_syntax_error("transport=dt_socket,server=y,suspend=yes,address=0", "suspend=yes: must be y or n")

    def test_missing_equals(self):
        self.check_syntax_error("transport", "transport: needs a value (transport=...)")

    def test_empty_value_at_end(self):
        self.check_syntax_error("transport=", "transport=: needs a value")
        self.check_syntax_error("transport=dt_socket,server=n,suspend=n,address=", "address=: needs a value")

    def test_double_comma(self):
        self.check_syntax_error("transport=dt_socket,server=y,suspend=n,address=0,,",
                                "an empty option (two commas in a row, or a comma first): remove the extra comma")

    def test_launch_onthrow_onuncaught_without_values(self):
        self.check_syntax_error("transport=dt_socket,server=n,suspend=n,address=1,launch",
                                "launch: needs a value (launch=...)")
        self.check_syntax_error("transport=dt_socket,server=y,suspend=n,address=0,onthrow",
                                "onthrow: needs a value (onthrow=...)")
        self.check_syntax_error("transport=dt_socket,server=y,suspend=n,address=0,onuncaught",
                                "onuncaught: needs a value (onuncaught=...)")

    def test_loglevel_is_unknown_to_stock_only(self):
        # (error, not info: info adds our start-up line on stderr, see test_trace)
        options = "transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0,loglevel=error"
        self.check_options(options, Expect(rc=1, stderr=[syntax_error(options)]), ours=self.accepted())
        # A value it does not know: stock's line, then which values it takes.
        options = "transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0,loglevel=loud"
        self.check_options(options, self.option_error(
            options, [syntax_error(options)], "loglevel=loud: must be trace, debug, info, warn, error or off"))

    # --- other option errors ----------------------------------------------------

    def test_no_options_at_all(self):
        self.check_options(None, self.option_error(None, ["ERROR: JDWP no transport specified: -agentlib:jdwp="],
                                                   "transport= is missing (transport=dt_socket for a socket)"))

    def test_transport_missing(self):
        options = "server=y,suspend=n"
        self.check_options(options, self.option_error(
            options, ["ERROR: JDWP no transport specified: -agentlib:jdwp=server=y,suspend=n"],
            "transport= is missing (transport=dt_socket for a socket)"))

    def test_address_before_transport(self):
        options = "server=y,suspend=n,address=0"
        self.check_options(options, self.option_error(
            options, [f"ERROR: JDWP address specified without transport: -agentlib:jdwp={options}"],
            "address=0: comes before transport=, which must come first"))

    def test_timeout_and_allow_before_transport(self):
        for what in ("timeout=5", "allow=*"):
            options = f"{what},transport=dt_socket,server=y,suspend=n,address=0"
            name = what.split("=")[0]
            self.check_options(options, self.option_error(
                options, [f"ERROR: JDWP {name} specified without transport: -agentlib:jdwp={options}"],
                f"{what}: comes before transport=, which must come first"))

    def test_two_transports(self):
        options = "transport=dt_socket,transport=dt_socket,server=y,suspend=n,address=0"
        self.check_options(options, self.option_error(
            options, [f"ERROR: JDWP multiple transports are not supported in this release: -agentlib:jdwp={options}"],
            "transport= is given 2 times: give it once"))

    def test_client_without_address(self):
        options = "transport=dt_socket,server=n,suspend=n"
        self.check_options(options, self.option_error(options, [
            "ERROR: JDWP Non-server transport dt_socket must have a connection address specified through the "
            "'address=' option",
            f"ERROR: JDWP invalid option: -agentlib:jdwp={options}"],
            "server=n attaches to a debugger: it needs address=<host>:<port> (or server=y to listen)"))

    def test_onthrow_or_onuncaught_without_launch(self):
        for extra, detail in (("onthrow=java.lang.Foo", "onthrow= needs launch=<command> (the debugger to start)"),
                              ("onuncaught=y", "onuncaught=y needs launch=<command> (the debugger to start)")):
            options = f"transport=dt_socket,server=y,suspend=n,address=0,{extra}"
            self.check_options(options, self.option_error(options, [
                "ERROR: JDWP Specify launch=<command line> when using onthrow or onuncaught suboption: "
                f"-agentlib:jdwp={options}"], detail))

    def test_removed_option(self):
        options = "transport=dt_socket,server=y,suspend=n,address=0,exitpause=y"
        self.check_options(options, self.option_error(options, [
            f"ERROR: JDWP The exitpause option removed, use -XX:OnError: -agentlib:jdwp={options}"],
            "exitpause: no longer an option (-XX:OnError= replaces it)"))

    def test_java_jdwp_options_environment_is_appended(self):
        options = "transport=dt_socket,server=y,suspend=n,address=0"
        self.check_options(options, self.option_error(options, [syntax_error(options + ",server=x")],
                                                      "server=x: must be y or n", env_options="server=x"),
                           env={"_JAVA_JDWP_OPTIONS": "server=x"})

    # --- accepted options -------------------------------------------------------

    BASE = "transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0"

    def test_trailing_comma_is_accepted(self):
        self.check_options(self.BASE + ",", self.accepted())

    def test_timeout_not_a_number_is_accepted_by_stock_only(self):
        # Stock's atol() makes "abc" 0: no timeout, silently. jdwpx refuses it.
        options = self.BASE + ",timeout=abc"
        self.check_options(options, self.accepted(), ours=self.option_error(
            options, [syntax_error(options)], "timeout=abc: a number of milliseconds (0: no timeout)"))

    def test_quiet_suppresses_listening_line(self):
        self.check_options(self.BASE + ",quiet=y", self.accepted(listening=False))

    def test_logging_and_obsolete_options_are_accepted(self):
        for extra in ("logfile=jdwp.log", "logflags=0x0", "strict=y", "stdalloc=y", "mutf8=n", "onuncaught=n"):
            with self.subTest(extra=extra):
                self.check_options(f"{self.BASE},{extra}", self.accepted())

    def test_mutf8(self):
        self.check_options(self.BASE + ",mutf8=y", self.accepted())

    def test_launch_with_value(self):
        # The launched command replaces the Listening line.
        self.check_options(self.BASE + ",launch=/bin/true", self.accepted(listening=False))

    def test_launch_command_that_cannot_run_is_silent(self):
        # Stock forks and execs without a shell; a failed exec only ends the child.
        self.check_options(self.BASE + ",launch=/nonexistent/debugger", self.accepted(listening=False))

    def test_launch_is_ignored_by_a_client(self):
        with closed_port() as port:
            self.check_options(f"transport=dt_socket,server=n,suspend=n,address=127.0.0.1:{port},launch=/bin/false",
                               self.transport_init_failed(
                                   "ERROR: transport error 202: connect failed: Connection refused"))

    def test_onthrow_with_launch(self):
        # Everything (listener included) waits until java.lang.Foo is thrown: never here.
        self.check_options(self.BASE + ",onthrow=java.lang.Foo,launch=/bin/true", self.accepted(listening=False))

    def test_onuncaught_with_launch(self):
        self.check_options(self.BASE + ",onuncaught=y,launch=/bin/true", self.accepted(listening=False))

    def test_include_virtual_threads(self):
        options = self.BASE + ",includevirtualthreads=y"
        if self.version >= 19:
            self.check_options(options, self.accepted())
        else:
            self.check_syntax_error(options, f"includevirtualthreads=y: needs JDK 19 or later (this is JDK {self.version})")

    def test_onjcmd(self):
        options = self.BASE + ",onjcmd=y"
        # Both wait for jcmd (test_ondemand.py): no listener yet. Stock has no
        # onjcmd from JDK 24; jdwpx keeps it on every JDK (started by JVMTI.agent_load).
        if self.version >= 25:
            self.check_options(options, Expect(rc=1, stderr=[syntax_error(options)]),
                               ours=self.accepted(listening=False))
        else:
            self.check_options(options, self.accepted(listening=False))

    def test_duplicate_option_last_wins(self):
        with closed_port() as port:
            self.check_options(f"transport=dt_socket,server=y,server=n,suspend=n,address=127.0.0.1:{port}",
                               self.transport_init_failed(
                                   "ERROR: transport error 202: connect failed: Connection refused"))

    # --- loading twice ----------------------------------------------------------

    def agent_failed_lines(self) -> list[str]:
        # JDK 21 moved agent loading to jvmtiAgent.cpp and reworded the line.
        verb = "failed to init" if self.version < 21 else "failed Agent_OnLoad"
        return ["Error occurred during initialization of VM",
                re.escape(f"agent library {verb}: {self.agent_name()}")]

    LOADED_TWICE = ("ERROR: Cannot load this JVM TI agent twice, check your java command line for duplicate "
                    "jdwp options.")

    def test_loaded_twice_on_command_line(self):
        self.check_options(self.BASE, Expect(rc=1, stderr=[self.LOADED_TWICE], stdout=self.agent_failed_lines()),
                           times=2)

    def test_loaded_by_java_tool_options_and_command_line(self):
        arg = self.agent_arg(self.BASE)
        self.check_options(self.BASE, Expect(rc=1, stderr=[f"Picked up JAVA_TOOL_OPTIONS: {arg}", self.LOADED_TWICE],
                                             stdout=self.agent_failed_lines()),
                           env={"JAVA_TOOL_OPTIONS": arg})

    # --- transport failures -----------------------------------------------------

    def test_bind_failed_port_in_use(self):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            port = listener.getsockname()[1]
            self.check_options(f"transport=dt_socket,server=y,suspend=n,address=127.0.0.1:{port}",
                               self.transport_init_failed(
                                   "ERROR: transport error 202: bind failed: Address already in use"))

    def test_connect_refused(self):
        with closed_port() as port:
            self.check_options(f"transport=dt_socket,server=n,suspend=y,address=127.0.0.1:{port}",
                               self.transport_init_failed(
                                   "ERROR: transport error 202: connect failed: Connection refused"))

    def test_invalid_port(self):
        self.check_options("transport=dt_socket,server=y,suspend=n,address=99999",
                           self.transport_init_failed("ERROR: transport error 103: invalid port number specified"))

    def test_unresolvable_host(self):
        self.check_options("transport=dt_socket,server=n,suspend=n,address=nosuchhost.invalid:5005",
                           self.transport_init_failed(
                               "ERROR: transport error 202: getaddrinfo: failed to parse address"))

    def test_ipv6_scope_errors(self):
        # Stock resolves the "%scope" itself: an interface name, else a decimal index.
        for address, line in (("[::1%nosuchif0]:0", "ERROR: transport error 103: failed to parse scope"),
                              ("::1%99999999999:0", "ERROR: transport error 103: scope is out of range"),
                              ("127.0.0.1%lo:0", "ERROR: transport error 103: IPv4 address cannot contain scope")):
            with self.subTest(address=address):
                self.check_options(f"transport=dt_socket,server=y,suspend=n,address={address}",
                                   self.transport_init_failed(line))

    def test_allow_with_ipv6_scope(self):
        # The scope of an allow= entry is parsed and ignored, as JDK 17's stock agent does.
        # Temurin 25's refuses the entry; jdwpx keeps accepting it (a scope is part of an
        # IPv6 address, and address= takes it in both).
        options = self.BASE + ",allow=::1%lo+127.0.0.1"
        if self.agent == "stock" and self.version >= 25:
            expect = self.transport_init_failed("ERROR: transport error 103: invalid IP address in allow option")
            expect.stderr.insert(0, "Error in allow option: '::1%lo'")
            self.check_options(options, expect)
        else:
            self.check_options(options, self.accepted())

    def test_bad_allow_value(self):
        expect = self.transport_init_failed("ERROR: transport error 103: invalid IP address in allow option")
        expect.stderr.insert(0, "Error in allow option: 'bogus'")
        self.check_options(self.BASE + ",allow=bogus", expect)

    def test_unknown_transport_is_fatal(self):
        stock_lines = ["ERROR: transport library not found: dt_shmem",
                       "ERROR: JDWP Transport dt_shmem failed to initialize, TRANSPORT_LOAD(509)",
                       "JDWP exit error AGENT_ERROR_TRANSPORT_LOAD(196): No transports initialized [x:0]"]
        stock = Expect(rc=-signal.SIGABRT, stderr=stock_lines,
                       stdout=[re.escape("FATAL ERROR in native method: JDWP No transports initialized, "
                                         "jvmtiError=AGENT_ERROR_TRANSPORT_LOAD(196)")],
                       stdout_first_line_only=True)
        for agentlib in (False, True):
            with self.subTest(agentlib=agentlib):
                # Ours: the same lines with the file and where it was looked for after the first
                # (the JDK's lib directory: the overlay's for -agentlib:jdwp), and stock's status
                # as a shell sees it (134) without the JNI FatalError (no "FATAL ERROR in native
                # method", no native frames, no core).
                home = overlay_java_home(self.agent, self.jdk, self.version) if agentlib else self.jdk
                lib_dir = os.path.join(os.path.realpath(home), "lib")
                ours = Expect(rc=134, stderr=stock_lines[:1] + [
                    f"jdwpx: libdt_shmem.so not found: looked in {lib_dir} (sun.boot.library.path), then the "
                    "system's library path (no LD_LIBRARY_PATH, /etc/ld.so.cache, /lib, /usr/lib)"] + stock_lines[1:])
                self.check_options("transport=dt_shmem,server=y,suspend=n,address=0", stock, ours=ours,
                                   env={"LD_LIBRARY_PATH": ""}, agentlib=agentlib)

    # --- jdwpx's line after stock's: what is wrong, in the form that loaded it ----------

    ERROR_CASES = (
        ("transport=dt_socket,server=y,suspend=maybe", "suspend=maybe: must be y or n"),
        ("transport=dt_socket,adress=5005", "adress=5005: unknown option (did you mean address?)"),
        # Unknown to stock: its plain syntax error.
        ("transport=dt_socket,server=y,address=0,tracesize=big", "tracesize=big: a size in MB (1 to 9999999)"),
    )

    def test_error_lines_name_the_option_and_the_form_used(self):
        # Stock prints its line whatever the form; both forms give ours its -agentlib:jdwp
        # (an overlay JDK) or -agentpath:<lib>, named on our line.
        for agentlib in (False, True):
            for options, detail in self.ERROR_CASES:
                with self.subTest(options=options, agentlib=agentlib):
                    self.check(self.run_java(options, agentlib=agentlib),
                               self.option_error(options, [syntax_error(options)], detail, agentlib=agentlib))

    def test_timeout_must_be_a_number_in_either_form(self):
        options = self.BASE + ",timeout=abc"
        for agentlib in (False, True):
            with self.subTest(agentlib=agentlib):
                self.check_options(options, self.accepted(), ours=self.option_error(
                    options, [syntax_error(options)], "timeout=abc: a number of milliseconds (0: no timeout)",
                    agentlib=agentlib), agentlib=agentlib)

    def test_accept_timeout_exits_zero_before_main(self):
        self.check_options("transport=dt_socket,server=y,suspend=y,timeout=500,address=127.0.0.1:0", Expect(
            rc=0, stdout=[LISTENING_RE],
            stderr=["ERROR: transport error 203: timed out waiting for connection",
                    "JDWP exit error JVMTI_ERROR_NONE(0): could not connect, timeout or fatal error [x:0]"]))


# Event kinds and suspend policies read from the raw event packets below.


class DeferredStartTest(unittest.TestCase):
    """launch=, onthrow= and onuncaught= with a running program (fixtures/OptionsFixture.java)
    and a raw JDWP debugger (jdwp_client.py) attaching where the launched command says."""

    @classmethod
    def setUpClass(cls):
        assert ARGS is not None
        if not ARGS.classes:
            raise unittest.SkipTest("needs --classes (the compiled fixtures)")
        cls.workdir = tempfile.TemporaryDirectory(prefix="jdwpx-deferred-")
        # The "debugger" launch= runs: prints its arguments on the debuggee's stdout (inherited).
        cls.launcher = os.path.join(cls.workdir.name, "launch.sh")
        with open(cls.launcher, "w", encoding="utf-8") as f:
            f.write('#!/bin/sh\necho "LAUNCHED $#: $*"\n')
        os.chmod(cls.launcher, 0o755)

        # A JIT debugger as JDK's JITDebug test runs one: it attaches to the address it is given,
        # reads the exception that started the agent, and ends the VM with VirtualMachine.Exit.
        cls.jit_debugger = os.path.join(cls.workdir.name, "jit_debugger.py")
        with open(cls.jit_debugger, "w", encoding="utf-8") as f:
            f.write("#!" + sys.executable + "\n"
                    "import struct, sys\n"
                    f"sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})\n"
                    "import jdwp_client\n"
                    "print('LAUNCHED', *sys.argv[1:], flush=True)\n"
                    "client = jdwp_client.Client(int(sys.argv[-1]))\n"
                    "client.read_event()\n"
                    "print('JIT debugger saw the exception', flush=True)\n"
                    "client.send_command(jdwp_client.VirtualMachine.Exit, struct.pack('>i', 0))\n")
        os.chmod(cls.jit_debugger, 0o755)

    @classmethod
    def tearDownClass(cls):
        cls.workdir.cleanup()

    def debuggee(self, options: str, mode: str) -> "harness.Debuggee":
        cfg = harness.Config(agent=ARGS.agent, agent_lib=ARGS.agent_lib, jdk=os.path.abspath(ARGS.jdk),
                             java=os.path.join(ARGS.jdk, "bin", "java"), jdb="", javac="",
                             classes_dir=os.path.abspath(ARGS.classes), build_dir="", jdk_version=0,
                             unittest_argv=[])
        return harness.Debuggee(cfg, "OptionsFixture", args=[mode], options=options)

    def launched_port(self, proc, extra_args: str = "") -> int:
        m = proc.wait_for_output(r"LAUNCHED (\d+): " + re.escape(extra_args) + r"dt_socket (\d+)\n", 30)
        self.assertEqual(int(m.group(1)), 2 + len(extra_args.split()))
        return int(m.group(2))

    def read_starting_exception(self, client) -> dict:
        """The first event after attaching: the exception that started the agent, as request 0."""
        # It may have come while the client read its IDSizes reply.
        r = jdwp_client.Reader(client.read_event(), client.sizes)
        policy, count, kind, request = r.byte(), r.int(), r.byte(), r.int()
        self.assertEqual((policy, count, kind, request), (SuspendPolicy.ALL, 1, EventKind.EXCEPTION, 0))
        thread, location, (tag, exception), catch_location = r.id(), r.location(), r.value(), r.location()
        self.assertTrue(r.at_end())
        self.assertEqual(tag, "L")
        exception_type = client.ok(jdwp_client.ObjectReference.ReferenceType, client.object_id(exception))
        exception_type.byte()
        name = client.ok(jdwp_client.ThreadReference.Name, client.object_id(thread)).string()
        return {"thread": name, "location": location, "catch_location": catch_location,
                "exception_signature": client.signature(exception_type.id("referenceType"))}

    def line_of(self, client, location) -> int:
        """The source line of a (typeTag, classID, methodID, index) location."""
        _, type_id, method_id, index = location
        lines = client.line_table(type_id, method_id)
        return max((entry for entry in lines if entry[0] <= index), key=lambda entry: entry[0])[1]

    def test_launch_gets_transport_and_port_then_debugger_attaches(self):
        options = f"transport=dt_socket,server=y,suspend=y,address=127.0.0.1:0,launch={self.launcher} one"
        with self.debuggee(options, "caught") as proc:
            port = self.launched_port(proc, "one ")
            client = jdwp_client.Client(port)
            try:
                client.wait_for_vm_start()
                self.assertNotIn("started", proc.stdout)  # suspend=y: main has not run
                client.ok(jdwp_client.VirtualMachine.Resume)
                proc.wait_for_output(r"done\n")
            finally:
                client.close()
            self.assertEqual(proc.wait(30), 0)
            self.assertNotIn("Listening for transport", proc.stdout)

    def test_onthrow_starts_on_that_class_only(self):
        options = (f"transport=dt_socket,server=y,suspend=y,address=127.0.0.1:0,"
                   f"onthrow=OptionsFixture$Trigger,launch={self.launcher}")
        with self.debuggee(options, "caught") as proc:
            port = self.launched_port(proc)
            # The IllegalStateException before did not start anything.
            self.assertIn("other exception caught", proc.stdout)
            client = jdwp_client.Client(port)
            try:
                event = self.read_starting_exception(client)
                self.assertEqual(event["exception_signature"], "LOptionsFixture$Trigger;")
                self.assertEqual(event["thread"], "main")
                self.assertEqual(self.line_of(client, event["location"]),
                                 harness.fixture_line("OptionsFixture.java", "// @throw-caught"))
                self.assertEqual(self.line_of(client, event["catch_location"]),
                                 harness.fixture_line("OptionsFixture.java", "// @catch") - 1)
                self.assertNotIn("trigger caught", proc.stdout)  # suspended at the throw
                client.ok(jdwp_client.VirtualMachine.Resume)
                proc.wait_for_output(r"trigger caught\ndone\n")
            finally:
                client.close()
            self.assertEqual(proc.wait(30), 0)

    def test_onuncaught_starts_on_an_uncaught_exception(self):
        options = f"transport=dt_socket,server=y,suspend=y,address=127.0.0.1:0,onuncaught=y,launch={self.launcher}"
        with self.debuggee(options, "uncaught") as proc:
            port = self.launched_port(proc)
            client = jdwp_client.Client(port)
            try:
                event = self.read_starting_exception(client)
                self.assertEqual(event["exception_signature"], "LOptionsFixture$Trigger;")
                self.assertEqual(event["thread"], "thrower")
                self.assertEqual(self.line_of(client, event["location"]),
                                 harness.fixture_line("OptionsFixture.java", "// @throw-uncaught"))
                self.assertEqual(event["catch_location"][1:], (0, 0, 0))  # no catch
                self.assertNotIn("thrower ended", proc.stdout)
                client.ok(jdwp_client.VirtualMachine.Resume)
                proc.wait_for_output(r"thrower ended\ndone\n")
            finally:
                client.close()
            self.assertEqual(proc.wait(30), 0)
            self.assertIn("OptionsFixture$Trigger: uncaught", proc.stderr)

    def check_jit_debugger_ends_the_vm(self, trigger: str, mode: str):
        """The launched debugger attaches back and exits the VM: it is launched once (no
        launch= again when the connection closes because of Exit) and the VM exits 0."""
        options = f"transport=dt_socket,server=y,address=127.0.0.1:0,{trigger},launch={self.jit_debugger}"
        with self.debuggee(options, mode) as proc:
            self.assertEqual(proc.wait(60), 0)
            # Every process that inherited the debuggee's stdout has ended: a debugger
            # launched a second time would have printed by now.
            proc._out.join(30)
            self.assertTrue(proc._out.closed, "something launched still holds the debuggee's stdout")
        lines = proc.stdout.splitlines()
        launched = [line for line in lines if line.startswith("LAUNCHED")]
        self.assertEqual(len(launched), 1, proc.stdout)
        self.assertRegex(launched[0], r"^LAUNCHED dt_socket \d+$")
        self.assertIn("JIT debugger saw the exception", lines)
        self.assertNotIn("Listening for transport", proc.stdout)
        self.assertNotIn("done", lines)  # exited while the exception held the VM

    def test_jit_debugger_exits_the_vm_onuncaught(self):
        self.check_jit_debugger_ends_the_vm("onuncaught=y", "uncaught")

    def test_jit_debugger_exits_the_vm_onthrow(self):
        self.check_jit_debugger_ends_the_vm("onthrow=OptionsFixture$Trigger", "caught")

    def hello(self, options: str) -> "harness.Debuggee":
        cfg = harness.Config(agent=ARGS.agent, agent_lib=ARGS.agent_lib, jdk=os.path.abspath(ARGS.jdk),
                             java=os.path.join(ARGS.jdk, "bin", "java"), jdb="", javac="",
                             classes_dir=os.path.abspath(ARGS.classes), build_dir="", jdk_version=0,
                             unittest_argv=[])
        return harness.Debuggee(cfg, "Hello", args=["7", "600000"], options=options)

    TIMED_OUT = ["ERROR: transport error 203: timed out waiting for connection",
                 "JDWP exit error JVMTI_ERROR_NONE(0): could not connect, timeout or fatal error"]

    def timed_out_lines(self, stderr: str) -> list[str]:
        return [re.sub(r" \[[^\]]+:\d+\]$", "", line) for line in stderr.splitlines()]

    def test_accept_timeout_with_suspend_n_ends_the_running_vm(self):
        # As stock: timeout= bounds the wait for a debugger with suspend=n too; the VM
        # exits with status 0 (not the program's 7) while main sleeps.
        with self.hello("transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0,timeout=500") as proc:
            self.assertEqual(proc.wait(60), 0)
        self.assertIn("hello from fixture", proc.stdout)
        self.assertEqual(self.timed_out_lines(proc.stderr), self.TIMED_OUT)

    def test_accept_timeout_applies_again_after_a_debugger_leaves(self):
        with self.hello("transport=dt_socket,server=y,suspend=y,address=127.0.0.1:0,timeout=8000") as proc:
            client = jdwp_client.Client(proc.port)
            try:
                client.wait_for_vm_start()
                client.ok(jdwp_client.VirtualMachine.Dispose)
            finally:
                client.close()
            self.assertEqual(proc.wait(60), 0)
        self.assertIn("hello from fixture", proc.stdout)
        self.assertEqual(self.timed_out_lines(proc.stderr), self.TIMED_OUT)

    def test_onthrow_suspend_n_runs_on_without_a_debugger(self):
        options = (f"transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0,"
                   f"onthrow=OptionsFixture$Trigger,launch={self.launcher}")
        with self.debuggee(options, "caught") as proc:
            self.assertEqual(proc.wait(30), 0)
            lines = proc.stdout.splitlines()
            launched = [i for i, line in enumerate(lines) if line.startswith("LAUNCHED 2: dt_socket ")]
            self.assertEqual(len(launched), 1, proc.stdout)
            # Launched at the throw, not before (the launched child prints when it gets to run).
            self.assertLess(lines.index("other exception caught"), launched[0])
            self.assertIn("trigger caught", lines)
            self.assertEqual(proc.stderr, "")

    def test_onthrow_attach_failure_reports_and_runs_on(self):
        with closed_port() as port:
            # suspend=n: with suspend=y stock waits forever for a connection that cannot come.
            options = (f"transport=dt_socket,server=n,suspend=n,address=127.0.0.1:{port},"
                       f"onthrow=OptionsFixture$Trigger,launch={self.launcher}")
            with self.debuggee(options, "caught") as proc:
                self.assertEqual(proc.wait(30), 0)
            self.assertEqual(proc.stdout.splitlines(), ["started", "other exception caught", "trigger caught", "done"])
            self.assertEqual(proc.stderr.splitlines(), [
                "ERROR: transport error 202: connect failed: Connection refused",
                "ERROR: JDWP Transport dt_socket failed to initialize, TRANSPORT_INIT(510)"])


class ScopedIpv6Test(unittest.TestCase):
    """address= with an IPv6 scope given by interface name ("%lo") or index ("%1"), with and
    without brackets, in server and client mode: a debugger attaches over ::1 and the
    program runs to its end (fixtures/OptionsFixture.java)."""

    FORMS = ("0:0:0:0:0:0:0:1%lo:{port}", "[0:0:0:0:0:0:0:1%lo]:{port}", "::1%lo:{port}", "[::1%lo]:{port}",
             "[::1%1]:{port}")

    @classmethod
    def setUpClass(cls):
        assert ARGS is not None
        if not ARGS.classes:
            raise unittest.SkipTest("needs --classes (the compiled fixtures)")
        if not socket.has_ipv6 or not os.path.exists("/sys/class/net/lo"):
            raise unittest.SkipTest("no IPv6 loopback named lo")
        try:
            with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as probe:
                probe.bind(("::1", 0))
        except OSError as e:
            raise unittest.SkipTest(f"no IPv6 loopback: {e}")

    def debuggee(self, options: str) -> "harness.Debuggee":
        cfg = harness.Config(agent=ARGS.agent, agent_lib=ARGS.agent_lib, jdk=os.path.abspath(ARGS.jdk),
                             java=os.path.join(ARGS.jdk, "bin", "java"), jdb="", javac="",
                             classes_dir=os.path.abspath(ARGS.classes), build_dir="", jdk_version=0,
                             unittest_argv=[])
        return harness.Debuggee(cfg, "OptionsFixture", args=["caught"], options=options)

    def run_to_the_end(self, proc, client):
        try:
            client.wait_for_vm_start()
            self.assertNotIn("started", proc.stdout)  # suspend=y: held until the debugger resumes
            self.assertTrue(client.ok(jdwp_client.VirtualMachine.Version).string())
            client.ok(jdwp_client.VirtualMachine.Resume)
            proc.wait_for_output(r"done\n")
            # Stay attached until the VM has exited: a debugger that leaves while the VM exits
            # makes stock listen again, and that fails at VM death ("failed to initialize, VM_DEAD").
            self.assertEqual(proc.wait(30), 0)
        finally:
            client.close()
        self.assertEqual(proc.stderr, "")

    def test_server(self):
        for form in self.FORMS:
            with self.subTest(address=form):
                with self.debuggee(f"transport=dt_socket,server=y,suspend=y,address={form.format(port=0)}") as proc:
                    self.run_to_the_end(proc, jdwp_client.Client(proc.port, host="::1"))

    def test_client(self):
        for form in self.FORMS:
            with self.subTest(address=form):
                with socket.socket(socket.AF_INET6, socket.SOCK_STREAM) as listener:
                    listener.bind(("::1", 0))
                    listener.listen(1)
                    listener.settimeout(30)
                    address = form.format(port=listener.getsockname()[1])
                    with self.debuggee(f"transport=dt_socket,server=n,suspend=y,address={address}") as proc:
                        connection, _ = listener.accept()
                        connection.settimeout(30)
                        self.run_to_the_end(proc, jdwp_client.Client(0, sock=connection))


def overlay_java_home(agent: str, jdk: str, version: int) -> str:
    """The JDK whose -agentlib:jdwp is the agent under test: the JDK itself for stock, an
    overlay (make_overlay.py, shared with harness.debuggee_java_home) for ours."""
    assert ARGS is not None
    cfg = harness.Config(agent=agent, agent_lib=ARGS.agent_lib, jdk=jdk, java="", jdb="", javac="", classes_dir="",
                         build_dir=os.path.abspath(ARGS.build_dir) if ARGS.build_dir else "", jdk_version=version,
                         unittest_argv=[])
    return harness.debuggee_java_home(cfg)


class closed_port:
    """A loopback port that refuses connections: bound (so nobody else takes it) but not listening."""

    def __enter__(self) -> int:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        return self.sock.getsockname()[1]

    def __exit__(self, *exc):
        self.sock.close()


def main():
    global ARGS
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--agent", choices=("ours", "stock"), default="stock")
    parser.add_argument("--agent-lib", default="")
    parser.add_argument("--jdk", default="/usr/lib/jvm/java-17-openjdk-amd64")
    parser.add_argument("--classes", default="")
    parser.add_argument("--build-dir", default="")
    ARGS, rest = parser.parse_known_args()
    if ARGS.agent == "ours":
        if not ARGS.agent_lib:
            parser.error("--agent ours needs --agent-lib")
        ARGS.agent_lib = os.path.abspath(ARGS.agent_lib)
    unittest.main(argv=[sys.argv[0], *rest])


if __name__ == "__main__":
    main()
