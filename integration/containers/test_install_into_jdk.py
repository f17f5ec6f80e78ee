#!/usr/bin/env python3
"""jdwpx-install-into-jdk (scripts/install-into-jdk.sh) in Debian 11 (bullseye), on its
own OpenJDK 17 from the Debian package and on a copy of it that no package owns.

The root is make_debian_root.sh's (<build>/containers/bullseye-root, shared with
test_bullseye.py), seen by each test through an overlay of its own in a private mount
namespace, then a chroot: the root itself never changes and nothing stays mounted.

- the package's JDK, through its symlinked home (java-1.17.0-openjdk-amd64): a dpkg
  diversion; a reinstall of the package from its .deb (an upgrade, as dpkg sees it) writes
  the stock library to the diverted path and leaves jdwpx in place; --restore gives a JDK
  that `dpkg --verify` finds clean;
- an install left by the script's earlier versions (a plain copy, no diversion), taken over,
  and the restore that used to put an outdated copy over an upgraded JDK;
- a JDK that no package owns: a plain copy;
- errors: not a JDK, no permission, someone else's diversion, each leaving everything as it was.

    python3 integration/containers/test_install_into_jdk.py --agent-lib LIB --build-dir BUILD [unittest args]

The package's .deb is fetched once with apt-get download from the root's Debian mirror and
kept in <build>/containers/debs. Exits 77 (ctest: skipped) with a message when not root, or
where debootstrap or Debian's archive is not available.
"""

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from debian_root import SHARED, OverlayRoot, agent_diversions, file_sums, jdk_package  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "..", "..", "scripts", "install-into-jdk.sh")
SKIP_EXIT = 77

JDK = "/usr/lib/jvm/java-17-openjdk-amd64"
JDK_LINK = "/usr/lib/jvm/java-1.17.0-openjdk-amd64"  # a symlink to JDK, as Debian ships it
LIB = f"{JDK}/lib/libjdwp.so"
STOCK = f"{LIB}.stock"
INSTALL = ["bash", f"{SHARED}/jdwpx-install-into-jdk"]
OURS = f"{SHARED}/libjdwpx.so"
PROG = "jdwpx-install-into-jdk: "
# loglevel= is jdwpx's alone: its info line says the JVM loaded jdwpx.
AGENTLIB = "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=0"
JDWPX_LINE = r"\[info\] jdwpx \S+: transport=dt_socket server=y"

ROOT = ""  # set in main
CFG = argparse.Namespace()


def skip(reason):
    print(f"SKIPPED: {reason}", flush=True)
    sys.exit(SKIP_EXIT)


def overlay_root(state_dir):
    """The bullseye root with a writable layer of its own."""
    return OverlayRoot(ROOT, state_dir, CFG.shared, CFG.debs, "install-into-jdk-")


class InstallIntoDebianJdk(unittest.TestCase):
    def setUp(self):
        self.root = overlay_root(CFG.state_dir)
        self.addCleanup(self.root.close)

    # --- what the root holds ---------------------------------------------------------

    def sums(self, *paths):
        return file_sums(self.root, *paths)

    def diversions(self):
        return agent_diversions(self.root)

    def assert_installed_diverted(self):
        self.assertEqual(self.sums(LIB, STOCK), {LIB: CFG.ours_md5, STOCK: CFG.stock_md5})
        self.assertEqual(self.diversions(), [f"local diversion of {LIB} to {STOCK}"])

    def assert_stock_clean(self):
        """The package's own JDK again: its file, no diversion, no copy, dpkg --verify clean."""
        self.assertEqual(self.sums(LIB, STOCK), {LIB: CFG.stock_md5})
        self.assertEqual(self.diversions(), [])
        verify = self.root.run("dpkg", "--verify", CFG.package, check=False)
        self.assertEqual((verify.returncode, verify.stdout, verify.stderr), (0, "", ""))

    def assert_jvm_loads(self, jdk, ours):
        """-agentlib:jdwp in a JVM of <jdk> loads jdwpx (ours) or the JDK's own agent."""
        java = self.root.run(f"{jdk}/bin/java", f"{AGENTLIB},loglevel=info" if ours else AGENTLIB, "-version")
        self.assertIn("Listening for transport dt_socket at address:", java.stdout)
        if ours:
            self.assertRegex(java.stderr, JDWPX_LINE)
        else:
            self.assertNotIn("jdwpx", java.stderr)

    def install(self, jdk=JDK_LINK, expect=0):
        proc = self.root.run(*INSTALL, jdk, OURS, check=False)
        self.assertEqual(proc.returncode, expect, proc.stdout + proc.stderr)
        return proc.stdout if expect == 0 else proc.stderr

    def restore(self, jdk=JDK_LINK, expect=0):
        proc = self.root.run(*INSTALL, "--restore", jdk, check=False)
        self.assertEqual(proc.returncode, expect, proc.stdout + proc.stderr)
        return proc.stdout if expect == 0 else proc.stderr

    def reinstall_package(self):
        """dpkg -i the package's .deb over itself: for the diversion, as an upgrade."""
        self.root.run("dpkg", "-i", f"{SHARED}/debs/{CFG.deb}")

    # --- the tests -------------------------------------------------------------------

    def test_package_jdk_diverted_survives_a_reinstall_and_restores_clean(self):
        out = self.restore()
        self.assertEqual(out, f"{PROG}nothing to restore: jdwpx is not installed in {JDK_LINK} "
                              f"({JDK_LINK}/lib/libjdwp.so is {CFG.package}'s)\n")
        self.assert_stock_clean()

        out = self.install()
        self.assertIn(f"{CFG.package}'s file is diverted (dpkg-divert) to {JDK_LINK}/lib/libjdwp.so.stock", out)
        self.assert_installed_diverted()
        self.assert_jvm_loads(JDK, ours=True)

        out = self.install()
        self.assertIn("is already", out)
        self.assertIn("nothing to do", out)
        self.assert_installed_diverted()

        # An outdated stock library at the diverted path; the package's .deb writes its own
        # there and leaves lib/libjdwp.so alone.
        self.root.run("sh", "-c", f"echo outdated > {STOCK}")
        self.reinstall_package()
        self.assert_installed_diverted()
        self.assert_jvm_loads(JDK, ours=True)

        out = self.restore()
        self.assertEqual(out, f"{PROG}restored {CFG.package}'s libjdwp.so in {JDK_LINK} and removed the "
                              f"diversion to {JDK_LINK}/lib/libjdwp.so.stock\n")
        self.assert_stock_clean()
        self.assert_jvm_loads(JDK, ours=False)
        self.assertIn("nothing to restore", self.restore())
        self.assert_stock_clean()

    def test_earlier_plain_copy_is_taken_over(self):
        # What the script's earlier versions left: a copy of the stock library, no diversion.
        self.root.run("sh", "-c", f"cp -p {LIB} {STOCK} && cp {OURS} {LIB}")
        inode = self.root.out("stat", "-c", "%i", STOCK)
        self.assertIn("diverted (dpkg-divert)", self.install())
        self.assert_installed_diverted()
        self.assertEqual(self.root.out("stat", "-c", "%i", STOCK), inode, "the saved copy is kept as it was")
        self.restore()
        self.assert_stock_clean()

    def test_restore_after_an_upgrade_over_an_earlier_plain_copy(self):
        # An earlier version's install, then an upgrade: the package's new file replaced ours,
        # the saved copy is the old version's. --restore keeps the new one.
        self.root.run("sh", "-c", f"echo older stock > {STOCK} && cp {OURS} {LIB}")
        self.reinstall_package()
        self.assertEqual(self.sums(LIB)[LIB], CFG.stock_md5)
        out = self.restore()
        self.assertEqual(out, f"{PROG}nothing to restore: {JDK_LINK}/lib/libjdwp.so is already {CFG.package}'s "
                              f"file; removed the outdated copy {JDK_LINK}/lib/libjdwp.so.stock\n")
        self.assert_stock_clean()
        # Installing over it now saves the package's current file, not the outdated one.
        self.install()
        self.assert_installed_diverted()

    def test_jdk_from_no_package_gets_a_plain_copy(self):
        tarball = "/opt/jdk-17"
        self.root.run("cp", "-a", JDK, tarball)
        lib, stock = f"{tarball}/lib/libjdwp.so", f"{tarball}/lib/libjdwp.so.stock"
        self.assertEqual(self.root.run("dpkg-query", "-S", lib, check=False).returncode, 1)

        self.assertIn("not from a package: a plain copy", self.install(tarball))
        self.assertEqual(self.sums(lib, stock), {lib: CFG.ours_md5, stock: CFG.stock_md5})
        self.assertEqual(self.diversions(), [])
        self.assert_jvm_loads(tarball, ours=True)
        self.assertIn("nothing to do", self.install(tarball))
        self.assertEqual(self.sums(lib, stock), {lib: CFG.ours_md5, stock: CFG.stock_md5})

        self.assertEqual(self.restore(tarball), f"{PROG}restored the stock libjdwp.so in {tarball}\n")
        self.assertEqual(self.sums(lib, stock), {lib: CFG.stock_md5})
        self.assert_jvm_loads(tarball, ours=False)
        self.assertEqual(self.restore(tarball), f"{PROG}nothing to restore: {stock} does not exist "
                                                f"(jdwpx is not installed in {tarball})\n")
        self.assert_stock_clean()  # the package's JDK was never touched

    def test_errors_change_nothing(self):
        self.assertEqual(self.install("/usr/lib/jvm", expect=1),
                         f"{PROG}not a JDK home: /usr/lib/jvm (no bin/java or no lib/)\n")
        self.assertEqual(self.install("/nonexistent", expect=1), f"{PROG}not a JDK home: /nonexistent does not exist\n")
        # /usr has bin/java and lib/ (Debian's alternatives), but no agent.
        self.assertEqual(self.restore("/usr", expect=1), f"{PROG}/usr has no lib/libjdwp.so: a runtime made without "
                                                         "the jdk.jdwp.agent module cannot debug\n")
        missing = self.root.run(*INSTALL, JDK, "/nonexistent.so", check=False)
        self.assertEqual((missing.returncode, missing.stderr), (1, f"{PROG}no such library: /nonexistent.so\n"))
        usage = self.root.run(*INSTALL, JDK, check=False)
        self.assertEqual(usage.returncode, 2)
        self.assertIn("no agent installed beside this command", usage.stderr)
        self.assertIn("usage: jdwpx-install-into-jdk <jdk-home> [<libjdwpx.so>] | --restore <jdk-home> | --list",
                      usage.stderr)

        nobody = self.root.run(*INSTALL, JDK, OURS, user=65534, check=False)
        self.assertEqual(nobody.returncode, 1)
        self.assertRegex(nobody.stderr, rf"^{PROG}permission denied: cannot write to {JDK}/lib "
                                        r"\(the JDK's library directory\); run it as root")
        nobody = self.root.run(*INSTALL, "--restore", JDK, user=65534, check=False)
        self.assertIn("permission denied", nobody.stderr)
        # The JDK writable, dpkg's database not: still nothing done.
        self.root.run("chmod", "0777", f"{JDK}/lib")
        nobody = self.root.run(*INSTALL, JDK, OURS, user=65534, check=False)
        self.assertEqual(nobody.returncode, 1)
        self.assertIn(f"permission denied: cannot write to /var/lib/dpkg (dpkg's database, where the diversion "
                      f"of {CFG.package}'s file is recorded)", nobody.stderr)
        self.root.run("chmod", "0755", f"{JDK}/lib")
        self.assert_stock_clean()

        # Someone else's diversion of the file is left alone.
        self.root.run("dpkg-divert", "--local", "--rename", "--divert", f"{LIB}.site", "--add", LIB)
        self.root.run("sh", "-c", f"echo site > {LIB}")
        site = self.sums(LIB)[LIB]
        self.assertEqual(self.install(JDK, expect=1),
                         f"{PROG}{LIB} has a local diversion to {LIB}.site, not jdwpx's; left alone "
                         "(see dpkg-divert --list)\n")
        self.assertIn("not jdwpx's; left alone", self.restore(JDK, expect=1))
        self.assertEqual(self.diversions(), [f"local diversion of {LIB} to {LIB}.site"])
        self.assertEqual(self.sums(LIB, STOCK, f"{LIB}.site"), {LIB: site, f"{LIB}.site": CFG.stock_md5})


def prepare(args):
    """The root, the shared directory (script, library, .deb) and what the tests compare."""
    global ROOT
    containers = os.path.join(args.build_dir, "containers")
    os.makedirs(containers, exist_ok=True)
    ROOT = os.path.join(containers, "bullseye-root")
    made = subprocess.run([os.path.join(HERE, "make_debian_root.sh"), "bullseye", ROOT], capture_output=True, text=True)
    if made.returncode == 3:
        skip(f"no bullseye root: {made.stderr.strip()}")
    if made.returncode != 0:
        sys.exit(f"make_debian_root.sh failed:\n{made.stderr}")

    CFG.state_dir = containers
    CFG.shared = tempfile.mkdtemp(prefix="install-into-jdk-shared-", dir=containers)
    os.chmod(CFG.shared, 0o755)
    os.mkdir(os.path.join(CFG.shared, "debs"))  # where CFG.debs is mounted in the root
    CFG.debs = os.path.join(containers, "debs")
    os.makedirs(CFG.debs, exist_ok=True)
    # The installed name, so that messages read as the user sees them; the library stripped
    # (as the package ships it: a few MB, where the build's carries ~120 MB of debug info).
    shutil.copy2(SCRIPT, os.path.join(CFG.shared, "jdwpx-install-into-jdk"))
    subprocess.run(["strip", "--strip-unneeded", "-o", os.path.join(CFG.shared, "libjdwpx.so"), args.agent_lib],
                   check=True)
    with open(os.path.join(CFG.shared, "libjdwpx.so"), "rb") as f:
        CFG.ours_md5 = hashlib.md5(f.read()).hexdigest()

    probe = overlay_root(containers)
    try:
        found = jdk_package(probe, LIB, CFG.debs, f"{SHARED}/debs")
    finally:
        probe.close()
    if isinstance(found, str):
        skip(found)
    CFG.package, CFG.stock_md5, CFG.deb = found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent-lib", required=True, help="the built libjdwpx.so")
    parser.add_argument("--build-dir", required=True)
    args, rest = parser.parse_known_args()
    if os.geteuid() != 0:
        skip("debootstrap, overlay mounts and chroot need root")
    CFG.shared = None
    try:
        prepare(args)
        result = unittest.main(argv=[sys.argv[0], *rest], verbosity=2, exit=False).result
    finally:
        if CFG.shared:
            shutil.rmtree(CFG.shared, ignore_errors=True)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
