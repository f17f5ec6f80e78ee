#!/usr/bin/env python3
"""scripts/install-into-jdk.sh on a fake JDK home that no package owns (a plain copy of the
stock library): install, install again, restore, restore again, the errors, and, laid out
as `cmake --install` lays it out, the default library and the record that --list reads.
integration/containers/test_install_into_jdk.py runs it on a Debian JDK (dpkg-divert)."""

import os
import shutil
import subprocess
import tempfile
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts", "install-into-jdk.sh")
PROG = "install-into-jdk.sh: "


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
        os.chmod(self.tmp.name, 0o755)  # for the test as another user
        self.jdk = os.path.join(self.tmp.name, "jdk")
        write(os.path.join(self.jdk, "bin", "java"), "#!/bin/sh\n", 0o755)
        self.lib = os.path.join(self.jdk, "lib", "libjdwp.so")
        self.stock = self.lib + ".stock"
        write(self.lib, "stock")
        self.ours = os.path.join(self.tmp.name, "libjdwpx.so")
        write(self.ours, "ours v1")
        self.state = os.path.join(self.tmp.name, "state")  # the package's /var/lib/jdwpx
        os.mkdir(self.state)

    def script(self, *args, user=None, script=SCRIPT):
        command = ["bash", script, *args]
        if user is not None:
            command = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *command]
        env = dict(os.environ, JDWPX_STATE_DIR=self.state)
        return subprocess.run(command, capture_output=True, text=True, timeout=30, env=env)

    def files(self):
        lib_dir = os.path.join(self.jdk, "lib")
        return {name: read(os.path.join(lib_dir, name)) for name in sorted(os.listdir(lib_dir))}

    def test_install_keeps_stock_once_and_restore_puts_it_back(self):
        first = self.script(self.jdk, self.ours)
        self.assertEqual((first.returncode, first.stdout), (0, f"{PROG}installed {self.ours} as {self.lib} (stock kept "
                                                               f"as {self.stock}; not from a package: a plain copy)\n"))
        self.assertEqual(self.files(), {"libjdwp.so": "ours v1", "libjdwp.so.stock": "stock"})
        again = self.script(self.jdk, self.ours)
        self.assertEqual(again.returncode, 0)
        self.assertIn("nothing to do", again.stdout)
        # A new version replaces ours but never overwrites the saved stock copy.
        write(self.ours, "ours v2")
        self.assertEqual(self.script(self.jdk, self.ours).returncode, 0)
        self.assertEqual(self.files(), {"libjdwp.so": "ours v2", "libjdwp.so.stock": "stock"})

        restored = self.script("--restore", self.jdk)
        self.assertEqual((restored.returncode, restored.stdout),
                         (0, f"{PROG}restored the stock libjdwp.so in {self.jdk}\n"))
        self.assertEqual(self.files(), {"libjdwp.so": "stock"})
        again = self.script("--restore", self.jdk)
        self.assertEqual((again.returncode, again.stdout),
                         (0, f"{PROG}nothing to restore: {self.stock} does not exist "
                             f"(jdwpx is not installed in {self.jdk})\n"))
        self.assertEqual(self.files(), {"libjdwp.so": "stock"})

    def test_installed_layout_defaults_the_library_and_lists_its_jdks(self):
        # <prefix>/bin/jdwpx-install-into-jdk and <prefix>/lib/jdwpx/libjdwpx.so, as installed.
        prefix = os.path.join(self.tmp.name, "usr")
        installed = os.path.join(prefix, "bin", "jdwpx-install-into-jdk")
        os.makedirs(os.path.dirname(installed))
        shutil.copy(SCRIPT, installed)
        agent = os.path.join(prefix, "lib", "jdwpx", "libjdwpx.so")
        write(agent, "ours installed")
        prog = "jdwpx-install-into-jdk: "
        home = os.path.join(self.tmp.name, "jdk-home")  # a symlink to the JDK: recorded once, by its real path
        os.symlink(self.jdk, home)

        self.assertEqual(self.script("--list", script=installed).stdout, "")
        first = self.script(home, script=installed)
        self.assertEqual((first.returncode, first.stdout),
                         (0, f"{prog}installed {agent} as {home}/lib/libjdwp.so (stock kept as "
                             f"{home}/lib/libjdwp.so.stock; not from a package: a plain copy)\n"))
        self.assertEqual(self.files(), {"libjdwp.so": "ours installed", "libjdwp.so.stock": "stock"})
        self.assertEqual(self.script(self.jdk, script=installed).returncode, 0)
        self.assertEqual(read(os.path.join(self.state, "jdks")), f"{self.jdk}\n")
        listed = self.script("--list", script=installed)
        self.assertEqual((listed.returncode, listed.stdout), (0, f"{self.jdk}\n"))

        self.assertEqual(self.script("--restore", home, script=installed).returncode, 0)
        self.assertEqual(self.files(), {"libjdwp.so": "stock"})
        self.assertEqual(read(os.path.join(self.state, "jdks")), "")
        self.assertEqual(self.script("--list", script=installed).stdout, "")

        # Without the package's state directory nothing is recorded, and the install works.
        shutil.rmtree(self.state)
        self.assertEqual(self.script(self.jdk, script=installed).returncode, 0)
        self.assertFalse(os.path.exists(self.state))
        self.assertEqual(self.script("--list", script=installed).stdout, "")

        # From the source tree no agent lies beside the script: the library must be named.
        bare = self.script(self.jdk)
        self.assertEqual(bare.returncode, 2)
        self.assertIn("no agent installed beside this command", bare.stderr)
        self.assertIn("usage: install-into-jdk.sh <jdk-home> [<libjdwpx.so>] | --restore <jdk-home> | --list",
                      bare.stderr)

    def test_rejects_bad_arguments(self):
        nojdk = os.path.join(self.tmp.name, "nojdk")
        self.assertEqual(self.script(nojdk, self.ours).stderr, f"{PROG}not a JDK home: {nojdk} does not exist\n")
        self.assertEqual(self.script(self.tmp.name, self.ours).stderr,
                         f"{PROG}not a JDK home: {self.tmp.name} (no bin/java or no lib/)\n")
        missing = self.script(self.jdk, os.path.join(self.tmp.name, "missing.so"))
        self.assertEqual((missing.returncode, missing.stderr),
                         (1, f"{PROG}no such library: {os.path.join(self.tmp.name, 'missing.so')}\n"))
        os.remove(self.lib)
        nolib = self.script("--restore", self.jdk)
        self.assertEqual((nolib.returncode, nolib.stderr), (1, f"{PROG}{self.jdk} has no lib/libjdwp.so: a runtime "
                                                               "made without the jdk.jdwp.agent module cannot debug\n"))
        write(self.lib, "stock")
        self.assertEqual(self.script(self.jdk).returncode, 2)
        self.assertEqual(self.script("--restore", self.jdk, self.ours).returncode, 2)
        self.assertEqual(self.files(), {"libjdwp.so": "stock"})

    def test_without_permission_changes_nothing(self):
        if os.geteuid() == 0:
            if not shutil.which("setpriv"):
                self.skipTest("setpriv (util-linux) is not installed")
            denied = self.script(self.jdk, self.ours, user=65534)  # nobody
        else:
            os.chmod(os.path.dirname(self.lib), 0o555)
            self.addCleanup(os.chmod, os.path.dirname(self.lib), 0o755)
            denied = self.script(self.jdk, self.ours)
        self.assertEqual(denied.returncode, 1)
        self.assertTrue(denied.stderr.startswith(f"{PROG}permission denied: cannot write to {self.jdk}/lib (the JDK's "
                                                 "library directory); run it as root"), denied.stderr)
        self.assertEqual(self.files(), {"libjdwp.so": "stock"})


if __name__ == "__main__":
    unittest.main(verbosity=2)
