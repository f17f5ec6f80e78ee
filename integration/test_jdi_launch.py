#!/usr/bin/env python3
"""JDI's launching connector (what IDEs use) against the agent under test.

The connector runs `<home>/bin/java -agentlib:jdwp=...`; for our agent `home` is
an overlay JDK whose lib/libjdwp.so is libjdwpx.so (make_overlay.py).
"""

import os
import re
import tempfile
import unittest

import harness
import make_overlay


class JdiLaunch(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        self.jdi_classes = os.path.join(self.cfg.build_dir, "integration", "jdi-classes")
        self.assertTrue(os.path.isfile(os.path.join(self.jdi_classes, "JdiLaunch.class")),
                        f"JdiLaunch not built in {self.jdi_classes} (ninja integration)")

    def test_overlay_is_its_own_java_home_and_loads_its_libjdwp(self):
        # Validated with whichever library is under test; for stock the overlay
        # carries the JDK's own libjdwp.so, which proves the mechanism itself.
        lib = self.cfg.agent_lib if self.cfg.agent == "ours" else os.path.join(self.cfg.jdk, "lib", "libjdwp.so")
        with tempfile.TemporaryDirectory(prefix="jdwpx-overlay-") as tmp:
            home = make_overlay.make_overlay(self.cfg.jdk, lib, os.path.join(tmp, "jdk"))
            java = os.path.join(home, "bin", "java")
            self.assertEqual(os.path.realpath(make_overlay.java_home_of(java)), os.path.realpath(home))
            rc, out, err = harness.run_java(
                self.cfg, ["-agentlib:jdwp=transport=dt_socket,server=y,address=0,suspend=n"],
                "MapsDump", ["jdwp"], timeout=60, java=java)
            self.assertEqual(rc, 0, err)
            loaded = {line[len("map: "):] for line in out.splitlines() if line.startswith("map: ")}
            self.assertIn(os.path.realpath(lib), loaded, out)
            # Reused when current, not rebuilt.
            self.assertEqual(make_overlay.make_overlay(self.cfg.jdk, lib, home), home)

    def test_launch_breakpoint_local_and_exit(self):
        home = harness.debuggee_java_home(self.cfg)
        bp_line = harness.fixture_line("JdbFixture.java", "// @bp-main")
        rc, out, err = harness.run_java(
            self.cfg, ["-cp", self.jdi_classes], "JdiLaunch",
            [home, self.cfg.classes_dir, "JdbFixture", str(bp_line), "i"], timeout=120)
        report = f"--- stdout:\n{out}\n--- stderr:\n{err}"
        self.assertEqual(rc, 0, report)
        self.assertIn(f"BREAKPOINT line={bp_line} method=main thread=main", out, report)
        self.assertIn("LOCAL i=42", out, report)
        self.assertIn("debuggee: fixture: done total=95", out, report)
        self.assertRegex(out, r"(?m)^EXIT code=0$", report)
        self.assertIn("RESULT ok", out, report)


if __name__ == "__main__":
    harness.main()
