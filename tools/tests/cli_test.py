#!/usr/bin/env python3
"""The tools' command lines (tools/cli.h): --help and --version on stdout with status 0,
a wrong command line one line and the usage on stderr with status 2, and every command
form the tests, scripts and man pages use still reaching its command.

    python3 tools/tests/cli_test.py --trace build/tools/jdwpx-trace \
        --bridge build/tools/jdwpx-bridge --release 0.1.0 [unittest args]
"""

from __future__ import annotations

import argparse
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
import unittest

ARGS: argparse.Namespace | None = None
TIMEOUT_S = 30


def run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(list(argv), capture_output=True, text=True, timeout=TIMEOUT_S, stdin=subprocess.DEVNULL)


class Common:
    """The same cases for both tools; `tool` is its path, `name` its name."""
    tool: str
    name: str

    def test_help_is_the_usage_on_stdout(self):
        for flag in ("--help", "-h"):
            with self.subTest(flag=flag):
                p = run(self.tool, flag)
                self.assertEqual((p.returncode, p.stderr), (0, ""))
                self.assertTrue(p.stdout.startswith(f"usage: {self.name} "), p.stdout)
                self.assertIn(f"{self.name} --help | --version\n", p.stdout)

    def test_help_of_a_command_is_the_same_usage(self):
        p = run(self.tool, "--help")
        sub = run(self.tool, self.a_command, "--help")
        self.assertEqual((sub.returncode, sub.stdout, sub.stderr), (0, p.stdout, ""))

    def test_version(self):
        p = run(self.tool, "--version")
        self.assertEqual((p.returncode, p.stderr), (0, ""))
        self.assertRegex(p.stdout, rf"^{re.escape(self.name)} \(jdwpx\) {re.escape(ARGS.release)} \([^()\s]+\)\n$")

    def test_no_arguments_is_the_usage_on_stderr(self):
        p = run(self.tool)
        self.assertEqual((p.returncode, p.stdout), (2, ""))
        self.assertTrue(p.stderr.startswith(f"usage: {self.name} "), p.stderr)

    def check_usage_error(self, args: list[str], problem: str):
        p = run(self.tool, *args)
        usage = run(self.tool, "--help").stdout
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        first, _, rest = p.stderr.partition("\n")
        self.assertEqual(first, f"{self.name}: {problem}")
        self.assertEqual(rest, usage)


class TraceCliTest(Common, unittest.TestCase):
    name = "jdwpx-trace"
    a_command = "show"

    @classmethod
    def setUpClass(cls):
        cls.tool = ARGS.trace
        cls.dir = tempfile.TemporaryDirectory(prefix="jdwpx-cli-test-")
        cls.missing = os.path.join(cls.dir.name, "missing.jdwptrace")
        # Not a trace: read at once (also with --follow, which waits only for a file that is not there).
        cls.garbage = os.path.join(cls.dir.name, "garbage.jdwptrace")
        with open(cls.garbage, "wb") as f:
            f.write(b"this is not a trace\n")

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def test_wrong_command_lines(self):
        self.check_usage_error(["frobnicate"], "unknown command 'frobnicate'")
        self.check_usage_error(["--bogus"], "A subcommand is required")
        self.check_usage_error(["summary"], "FILE is required")
        self.check_usage_error(["show"], "FILE is required")
        self.check_usage_error(["show", "a", "b"], "The following argument was not expected: b")
        self.check_usage_error(["export", "a"], "--chrome is required")
        self.check_usage_error(["export", "--chrome"], "FILE is required")
        self.check_usage_error(["show", "--bogus", "a"], "The following argument was not expected: --bogus")

    def check_reaches_the_command(self, args: list[str]):
        """The command ran: it read the first file and said what is wrong with it (status 1)."""
        p = run(self.tool, *args)
        self.assertEqual((p.returncode, p.stdout), (1, ""), p.stderr)
        first_file = next(a for a in args if a.startswith("/"))
        self.assertTrue(p.stderr.startswith("jdwpx-trace: "), p.stderr)
        self.assertIn(first_file, p.stderr.splitlines()[0])

    def test_every_command_form(self):
        for args in (["summary", self.missing], ["summary", self.garbage, self.missing],
                     ["show", self.garbage], ["show", self.garbage, "--follow"], ["show", "-f", self.garbage],
                     ["export", "--chrome", self.missing], ["export", "--chrome", self.garbage, self.missing],
                     ["export", self.missing, "--chrome"]):
            with self.subTest(args=args):
                self.check_reaches_the_command(args)


class BridgeCliTest(Common, unittest.TestCase):
    name = "jdwpx-bridge"
    a_command = "listen"

    @classmethod
    def setUpClass(cls):
        cls.tool = ARGS.bridge

    def test_wrong_command_lines(self):
        self.check_usage_error(["frobnicate"], "unknown command 'frobnicate'")
        self.check_usage_error(["connect"], "ENDPOINT is required")
        self.check_usage_error(["connect", "a:1", "b:2"], "The following argument was not expected: b:2")
        self.check_usage_error(["connect", "a:1", "--", "true"], "connect takes no command")
        self.check_usage_error(["listen", "127.0.0.1:0"], "listen needs -- and a command")
        self.check_usage_error(["listen", "127.0.0.1:0", "--"], "listen needs -- and a command")
        self.check_usage_error(["listen", "127.0.0.1:0", "true"], "The following argument was not expected: true")
        self.check_usage_error(["listen", "--", "true"], "ENDPOINT is required")

    def test_answer_timeout_must_be_a_positive_number(self):
        usage = run(self.tool, "--help").stdout
        for value in ("0", "-5", "abc", "1.5"):
            with self.subTest(value=value):
                p = run(self.tool, "listen", "127.0.0.1:0", f"--answer-timeout={value}", "--", "true")
                self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
                first, _, rest = p.stderr.partition("\n")
                self.assertTrue(first.startswith("jdwpx-bridge: "), first)
                self.assertIn("--answer-timeout", first)
                self.assertIn(value, first)
                self.assertEqual(rest, usage)

    def test_connect_reaches_the_command(self):
        p = run(self.tool, "connect", "unix:/nonexistent-dir/jdwp.sock")
        self.assertEqual((p.returncode, p.stdout), (1, ""), p.stderr)
        self.assertTrue(p.stderr.startswith("jdwpx-bridge: "), p.stderr)
        self.assertIn("/nonexistent-dir/jdwp.sock", p.stderr)

    def test_listen_reaches_the_command(self):
        # The command keeps its own "--" and options: everything after the first "--" is its.
        for options in ([], ["--answer-timeout=1500"], ["--answer-timeout", "1500"]):
            with self.subTest(options=options):
                proc = subprocess.Popen([self.tool, "listen", "127.0.0.1:0", *options, "--", "sh", "-c", "exit 0",
                                         "--", "-x"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                        stdin=subprocess.DEVNULL, text=True)
                try:
                    ready, _, _ = select.select([proc.stdout], [], [], TIMEOUT_S)
                    self.assertTrue(ready, "no listening line")
                    self.assertRegex(proc.stdout.readline(), r"^jdwpx-bridge: listening on 127\.0\.0\.1:\d+\n$")
                finally:
                    proc.send_signal(signal.SIGTERM)
                    proc.wait(TIMEOUT_S)
                    proc.stdout.close()
                    proc.stderr.close()


def main():
    global ARGS
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--trace", required=True)
    parser.add_argument("--bridge", required=True)
    parser.add_argument("--release", required=True)
    ARGS, rest = parser.parse_known_args()
    ARGS.trace = os.path.abspath(ARGS.trace)
    ARGS.bridge = os.path.abspath(ARGS.bridge)
    unittest.main(argv=[sys.argv[0], *rest], verbosity=2)


if __name__ == "__main__":
    main()
