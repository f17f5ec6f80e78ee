"""Black-box harness for the integration tests: real JVMs, real jdb, stdlib only.

Every test module runs the same way against our agent and against the JDK's own
agent (the oracle); the command line picks which:

    python3 integration/test_jdb.py --agent {ours,stock} --agent-lib PATH \
        --jdk JAVA_HOME --classes DIR --build-dir DIR [unittest args...]

API
---
parse_args(argv=None) -> Config
    Parses the options above (unknown ones are kept in Config.unittest_argv for
    unittest) and remembers the result; config() returns it later.
main()
    parse_args() + unittest.main() with the remaining arguments; call it from
    `if __name__ == "__main__":` of a test module.
Config fields
    agent ('ours'|'stock'), agent_lib, jdk (java home), java, jdb, javac,
    classes_dir (compiled fixtures), build_dir, jdk_version (feature number,
    e.g. 17), unittest_argv.
agent_arg(cfg, options) -> str
    '-agentpath:<agent_lib>=<options>' for ours, '-agentlib:jdwp=<options>' for
    stock ('=' left out when options is empty).
DEFAULT_SERVER_OPTIONS
    'transport=dt_socket,server=y,address=0,suspend=y'.
Debuggee(cfg, main, args=(), options=DEFAULT_SERVER_OPTIONS, jvm_args=(),
         classpath=None, java=None, env=None)                (context manager)
    Starts `java <agent_arg> <jvm_args> -cp <classes> <main> <args>`; stdout and
    stderr are read on threads.  .port waits (30 s) for "Listening for transport
    dt_socket at address: N"; .wait_for_output(regex, timeout, stream='stdout')
    -> re.Match; .wait(timeout) -> exit code; .kill(); .stdout / .stderr text;
    .returncode.  Leaving the with-block kills a process still running.
Jdb(cfg, port=None, args=(), jdb=None)                       (context manager)
    `jdb <args> -attach 127.0.0.1:<port>` (no -attach when port is None) through
    pipes; output is read incrementally on a thread.
    .send(cmd); .expect(regex, timeout=20) -> re.Match, searching from where
    the previous expect stopped and moving past the match;
    .expect_prompt(timeout) -> re.Match of the next prompt ('main[1] ' or '> '),
    also kept in .last_prompt;
    .command(cmd, timeout=20) -> text printed before the next prompt;
    .wait(timeout) -> exit code; .kill(); .output (all jdb output) and
    .transcript (output with the commands sent, marked '>>> cmd').
run_java(cfg, jvm_args, main, args=(), timeout=60, java=None) -> (rc, out, err)
    In a process group of its own; on timeout the group is killed and
    AssertionError raised with the output so far.  -cp <classes> is added
    unless jvm_args has a class path.
fixture_line(source, marker) -> int
    1-based line of the unique line containing `marker` (e.g. '// @bp-main')
    in integration/fixtures/<source>.
test_failed(testcase) -> bool
    In tearDown: whether the test has failed (to print transcripts only then).
debuggee_java_home(cfg) -> str
    The JDK home whose lib/libjdwp.so is the agent under test: the real JDK for
    stock, an overlay JDK built by make_overlay.py for ours.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import re
import signal
import subprocess
import sys
import threading
import time
import unittest

FIXTURES_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
DEFAULT_SERVER_OPTIONS = "transport=dt_socket,server=y,address=0,suspend=y"
LISTENING_RE = r"Listening for transport dt_socket at address: (\d+)"
# jdb prints "<thread>[<frame>] " when a thread is current, else "> ".  A
# prompt starts a line, or directly follows the previous prompt when a command
# printed nothing (Jdb.expect_prompt handles that case).
PROMPT_BODY_RE = r"(?:> |[^\s\[\]>]+\[\d+\] )"
PROMPT_RE = r"(?m)^" + PROMPT_BODY_RE


@dataclasses.dataclass
class Config:
    agent: str
    agent_lib: str
    jdk: str
    java: str
    jdb: str
    javac: str
    classes_dir: str
    build_dir: str
    jdk_version: int
    unittest_argv: list


_config: Config | None = None


def _jdk_feature_version(jdk: str) -> int:
    try:
        with open(os.path.join(jdk, "release"), encoding="utf-8") as f:
            for line in f:
                m = re.match(r'JAVA_VERSION="(\d+)', line)
                if m:
                    return int(m.group(1))
    except OSError:
        pass
    return 0


def parse_args(argv=None) -> Config:
    global _config
    argv = list(sys.argv if argv is None else argv)
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--agent", choices=("ours", "stock"), default="stock")
    parser.add_argument("--agent-lib", default="")
    parser.add_argument("--jdk", default=os.environ.get("JDWPX_JDK", "/usr/lib/jvm/java-17-openjdk-amd64"))
    parser.add_argument("--classes", default="")
    parser.add_argument("--build-dir", default="")
    known, rest = parser.parse_known_args(argv[1:])
    jdk = os.path.abspath(known.jdk)
    build_dir = os.path.abspath(known.build_dir) if known.build_dir else ""
    classes = known.classes or (os.path.join(build_dir, "integration", "classes") if build_dir else "")
    if known.agent == "ours" and not known.agent_lib:
        parser.error("--agent ours needs --agent-lib")
    _config = Config(
        agent=known.agent,
        agent_lib=os.path.abspath(known.agent_lib) if known.agent_lib else "",
        jdk=jdk,
        java=os.path.join(jdk, "bin", "java"),
        jdb=os.path.join(jdk, "bin", "jdb"),
        javac=os.path.join(jdk, "bin", "javac"),
        classes_dir=os.path.abspath(classes) if classes else "",
        build_dir=build_dir,
        jdk_version=_jdk_feature_version(jdk),
        unittest_argv=[argv[0]] + rest,
    )
    return _config


def config() -> Config:
    """The Config of this process, parsing sys.argv on first use."""
    return _config if _config is not None else parse_args()


def main():
    cfg = parse_args()
    print(f"harness: agent={cfg.agent} jdk={cfg.jdk} (jdk{cfg.jdk_version})"
          + (f" lib={cfg.agent_lib}" if cfg.agent == "ours" else ""), flush=True)
    unittest.main(module="__main__", argv=cfg.unittest_argv, verbosity=2)


def agent_arg(cfg: Config, options: str) -> str:
    suffix = f"={options}" if options else ""
    if cfg.agent == "ours":
        return f"-agentpath:{cfg.agent_lib}{suffix}"
    return f"-agentlib:jdwp{suffix}"


def fixture_line(source: str, marker: str) -> int:
    path = os.path.join(FIXTURES_SRC, source)
    with open(path, encoding="utf-8") as f:
        # The marker must end there: "@bp-leaf" does not match "@bp-leaf-return".
        pattern = re.compile(re.escape(marker) + r"(?![\w-])")
        hits = [n for n, line in enumerate(f, 1) if pattern.search(line)]
    if len(hits) != 1:
        raise AssertionError(f"marker {marker!r} found {len(hits)} times in {path}")
    return hits[0]


# Eclipse's JDI (Debian's libeclipse-jdt-debug-java), run outside OSGi.
ECLIPSE_JARS = ("/usr/share/java/eclipse-jdt-debug.jar", "/usr/share/java/eclipse-osgi.jar")


def jdi_driver(test: unittest.TestCase, cfg: Config, client: str, jdk_main: str, eclipse_main: str):
    """Class path and main class of a JDI driver run by the JDK's JDI (client "jdk") or by
    Eclipse's through its wrapper ("eclipse"); skips the test when Eclipse's JDI is absent."""
    jdi = os.path.join(cfg.build_dir, "integration", "jdi-classes")
    if client == "jdk":
        return [jdi], jdk_main
    if not all(os.path.isfile(j) for j in ECLIPSE_JARS):
        test.skipTest(f"Eclipse JDI not installed ({', '.join(ECLIPSE_JARS)})")
    return [os.path.join(cfg.build_dir, "integration", "eclipse-classes"), jdi, *ECLIPSE_JARS], eclipse_main


def test_failed(test: unittest.TestCase) -> bool:
    """True in tearDown when the running test has failed so far (to dump transcripts)."""
    outcome = getattr(test, "_outcome", None)
    if outcome is None:
        return False
    if getattr(outcome, "errors", None):  # Python <= 3.10
        return any(exc is not None for _, exc in outcome.errors)
    result = getattr(outcome, "result", None)
    if result is None:
        return not getattr(outcome, "success", True)
    return any(t is test for t, _ in result.failures + result.errors) or not getattr(outcome, "success", True)


def debuggee_java_home(cfg: Config) -> str:
    if cfg.agent == "stock":
        return cfg.jdk
    import make_overlay  # same folder; only needed for our agent
    out = os.path.join(cfg.build_dir or "/tmp", "integration", f"jdk{cfg.jdk_version}-overlay")
    return make_overlay.make_overlay(cfg.jdk, cfg.agent_lib, out)


class _StreamReader:
    """Collects a pipe's output on a thread; waiters are woken on every chunk."""

    def __init__(self, pipe, name):
        self._pipe = pipe
        self._chunks = []
        self._text = ""
        self._closed = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._run, name=name, daemon=True)
        self._thread.start()

    def _run(self):
        fd = self._pipe.fileno()
        try:
            while True:
                # os.read returns what is there, so a prompt without a newline
                # is seen at once.
                data = os.read(fd, 65536)
                if not data:
                    break
                with self._cond:
                    self._text += data.decode("utf-8", "replace")
                    self._cond.notify_all()
        except OSError:
            pass
        finally:
            with self._cond:
                self._closed = True
                self._cond.notify_all()

    @property
    def text(self) -> str:
        with self._cond:
            return self._text

    @property
    def closed(self) -> bool:
        with self._cond:
            return self._closed

    def wait_for(self, regex, start: int, timeout: float, at_start=None):
        """First match of regex in text[start:], or None on timeout / EOF.

        at_start: an optional second pattern also accepted right at `start`."""
        pattern = re.compile(regex) if isinstance(regex, str) else regex
        anchored = re.compile(at_start) if isinstance(at_start, str) else at_start
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                m = (anchored.match(self._text, start) if anchored else None) or pattern.search(self._text, start)
                if m:
                    return m
                remaining = deadline - time.monotonic()
                if self._closed or remaining <= 0:
                    return None
                self._cond.wait(remaining)

    def join(self, timeout):
        self._thread.join(timeout)


class _Process:
    def __init__(self, argv, env=None, stdin=False):
        self.argv = argv
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self._out = _StreamReader(self.proc.stdout, f"stdout-{self.proc.pid}")
        self._err = _StreamReader(self.proc.stderr, f"stderr-{self.proc.pid}")

    @property
    def stdout(self) -> str:
        return self._out.text

    @property
    def stderr(self) -> str:
        return self._err.text

    @property
    def returncode(self):
        return self.proc.poll()

    def wait(self, timeout: float = 30) -> int:
        rc = self.proc.wait(timeout)
        # Let the readers drain what the process wrote just before exiting.
        self._out.join(5)
        self._err.join(5)
        return rc

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            pass
        self._out.join(5)
        self._err.join(5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe:
                try:
                    pipe.close()
                except OSError:
                    pass
        return False


class Debuggee(_Process):
    def __init__(self, cfg: Config, main: str, args=(), options: str = DEFAULT_SERVER_OPTIONS,
                 jvm_args=(), classpath=None, java=None, env=None, stdin=False):
        self.cfg = cfg
        argv = [java or cfg.java]
        if options is not None:
            argv.append(agent_arg(cfg, options))
        argv += list(jvm_args) + ["-cp", classpath or cfg.classes_dir, main] + list(args)
        super().__init__(argv, env=env, stdin=stdin)
        self._port = None

    @property
    def port(self) -> int:
        if self._port is None:
            m = self.wait_for_output(LISTENING_RE, 30)
            self._port = int(m.group(1))
        return self._port

    def wait_for_output(self, regex, timeout: float = 30, stream: str = "stdout"):
        reader = self._out if stream == "stdout" else self._err
        m = reader.wait_for(regex, 0, timeout)
        if m is None:
            raise AssertionError(
                f"debuggee did not print {regex!r} on {stream} within {timeout}s "
                f"(rc={self.returncode})\n--- stdout:\n{self.stdout}\n--- stderr:\n{self.stderr}")
        return m


class Jdb(_Process):
    def __init__(self, cfg: Config, port=None, args=(), jdb=None):
        argv = [jdb or cfg.jdb] + list(args)
        if port is not None:
            argv += ["-attach", f"127.0.0.1:{port}"]
        super().__init__(argv, stdin=True)
        self._cursor = 0
        self.last_prompt = ""
        self._inputs = []  # (offset in output when sent, command)

    @property
    def output(self) -> str:
        return self.stdout

    @property
    def transcript(self) -> str:
        text = self.stdout
        parts, last = [], 0
        for offset, cmd in self._inputs:
            parts.append(text[last:offset])
            parts.append(f">>> {cmd}\n")
            last = offset
        parts.append(text[last:])
        err = self.stderr
        return "".join(parts) + (f"\n--- jdb stderr:\n{err}" if err else "")

    def send(self, cmd: str):
        self._inputs.append((len(self._out.text), cmd))
        self.proc.stdin.write((cmd + "\n").encode())
        self.proc.stdin.flush()

    def expect(self, regex, timeout: float = 20, _at_start=None):
        m = self._out.wait_for(regex, self._cursor, timeout, _at_start)
        if m is None:
            raise AssertionError(
                f"jdb did not print {regex!r} within {timeout}s; unread output:\n"
                f"{self._out.text[self._cursor:]}\n--- transcript:\n{self.transcript}")
        self._cursor = m.end()
        return m

    def expect_prompt(self, timeout: float = 20):
        m = self.expect(PROMPT_RE, timeout, _at_start=PROMPT_BODY_RE)
        self.last_prompt = m.group(0)
        return m

    def command(self, cmd: str, timeout: float = 20) -> str:
        """Sends cmd and returns what jdb printed up to its next prompt."""
        self.send(cmd)
        start = self._cursor
        m = self.expect_prompt(timeout)
        return self._out.text[start:m.start()]

    def expect_started(self, timeout: float = 20):
        """Waits for a suspended VM's "VM Started" and the prompts around it. jdb
        prints one or two prompts there (its event handler and its input loop race,
        with either agent): a command with known output puts the reader past them."""
        self.expect(r"VM Started", timeout)
        self.expect_prompt(timeout)
        self.send("version")
        self.expect(r"This is jdb version", timeout)
        self.expect_prompt(timeout)

    def skip_pending(self):
        """Marks everything printed so far as read."""
        self._cursor = len(self._out.text)


def run_java(cfg: Config, jvm_args, main: str, args=(), timeout: float = 60, java=None):
    argv = [java or cfg.java] + list(jvm_args) + [main] + list(args)
    # Put the fixtures on the class path unless the caller chose one.
    if not any(a in ("-cp", "-classpath", "--class-path") for a in jvm_args) and cfg.classes_dir:
        argv[1:1] = ["-cp", cfg.classes_dir]
    # Own process group: on timeout the whole tree goes, including a debuggee
    # that a JDI launcher started and that would otherwise wait suspended forever.
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        out, err = proc.communicate()
        raise AssertionError(
            f"{' '.join(argv)} did not finish within {timeout}s\n--- stdout:\n"
            f"{out.decode('utf-8', 'replace')}\n--- stderr:\n{err.decode('utf-8', 'replace')}")
    finally:
        # Children left behind by a finished process (a launched debuggee).
        _kill_group(proc)
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace")


def _kill_group(proc):
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
