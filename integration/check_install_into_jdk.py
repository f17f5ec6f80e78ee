#!/usr/bin/env python3
"""scripts/install-into-jdk.sh on a fake JDK home: install, reinstall, restore."""

import os
import subprocess
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "install-into-jdk.sh")


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def write(path, text, mode=0o644):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.chmod(path, mode)


class InstallIntoJdk(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="jdwpx-install-")
        self.addCleanup(self.tmp.cleanup)
        self.jdk = os.path.join(self.tmp.name, "jdk")
        write(os.path.join(self.jdk, "bin", "java"), "#!/bin/sh\n", 0o755)
        self.lib = os.path.join(self.jdk, "lib", "libjdwp.so")
        write(self.lib, "stock")
        self.ours = os.path.join(self.tmp.name, "libjdwpx.so")
        write(self.ours, "ours v1")

    def script(self, *args):
        return subprocess.run(["bash", SCRIPT, *args], capture_output=True, text=True, timeout=30)

    def test_install_keeps_stock_once_and_restore_puts_it_back(self):
        self.assertEqual(self.script(self.jdk, self.ours).returncode, 0)
        self.assertEqual(read(self.lib), "ours v1")
        self.assertEqual(read(self.lib + ".stock"), "stock")
        # A second install replaces ours but never overwrites the saved stock copy.
        write(self.ours, "ours v2")
        self.assertEqual(self.script(self.jdk, self.ours).returncode, 0)
        self.assertEqual(read(self.lib), "ours v2")
        self.assertEqual(read(self.lib + ".stock"), "stock")

        self.assertEqual(self.script("--restore", self.jdk).returncode, 0)
        self.assertEqual(read(self.lib), "stock")
        self.assertFalse(os.path.exists(self.lib + ".stock"))
        again = self.script("--restore", self.jdk)
        self.assertEqual(again.returncode, 1)
        self.assertIn("nothing to restore", again.stderr)

    def test_rejects_bad_arguments(self):
        self.assertEqual(self.script(os.path.join(self.tmp.name, "nojdk"), self.ours).returncode, 1)
        self.assertEqual(self.script(self.jdk, os.path.join(self.tmp.name, "missing.so")).returncode, 1)
        self.assertEqual(self.script(self.jdk).returncode, 2)
        self.assertEqual(read(self.lib), "stock")


if __name__ == "__main__":
    unittest.main(verbosity=2)
