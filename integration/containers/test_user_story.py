#!/usr/bin/env python3
"""Issue 32's "done when", as a user on a fresh Debian 12 machine lives it, in a bookworm
root (make_debian_root.sh) with bookworm's own OpenJDK 17 from its Debian packages:

  apt-get install ./jdwpx_<version>_amd64.deb       changes no JDK
  jdwpx-install-into-jdk /usr/lib/jvm/java-17-openjdk-amd64
  (an upgrade of the JDK's package)                 jdwpx stays the JDK's agent
  java -agentlib:jdwp=...  +  jdb -attach           a real debugging session, both in the root
  java -agentlib:jdwp=...,adress=5005               says which option is wrong and why
  (an upgrade of jdwpx)                             the JDK gets the new agent
  apt-get remove jdwpx; apt-get purge jdwpx         the stock agent is back, dpkg --verify clean

and what removal does with a JDK no package owns and with a JDK whose package went first.
The pod from deploy/kubernetes is test_kubernetes.py's.

    python3 integration/containers/test_user_story.py --build-dir BUILD --cpack CPACK
        --classes DIR [unittest args]

The package is made by cpack from the build; the JDK's .deb is fetched once from the root's
Debian mirror into <build>/containers/debs. Each test sees the root through an overlay of
its own: the root never changes and nothing stays mounted. Exits 77 (ctest: skipped) with a
message when not root, or where debootstrap or Debian's archive is not available.
"""

import argparse
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import podman as pm  # noqa: E402
from debian_root import SHARED, OverlayRoot, agent_diversions, file_sums, jdk_package  # noqa: E402
from session import FIXTURE, debug_session  # noqa: E402

harness = pm.harness
SKIP_EXIT = 77
JDK = "/usr/lib/jvm/java-17-openjdk-amd64"
LIB = f"{JDK}/lib/libjdwp.so"
STOCK = f"{LIB}.stock"
AGENT = "/usr/lib/jdwpx/libjdwpx.so"
OPTIONS = "transport=dt_socket,server=y"
# loglevel= is jdwpx's alone (stock refuses it): its info line says the JVM loaded jdwpx.
JDWPX_LINE = r"\[info\] jdwpx \S+: transport=dt_socket server=y"

CFG = argparse.Namespace()


def skip(reason):
    print(f"SKIPPED: {reason}", flush=True)
    sys.exit(SKIP_EXIT)


def md5(path):
    with open(path, "rb") as f:
        return hashlib.md5(f.read()).hexdigest()


def overlay_root():
    """The bookworm root with a writable layer of its own."""
    return OverlayRoot(CFG.root, CFG.state_dir, CFG.shared, CFG.debs, "user-story-")


class UserStory(unittest.TestCase):
    def setUp(self):
        self.root = overlay_root()
        self.addCleanup(self.root.close)

    # --- what the root holds ---------------------------------------------------------

    def sums(self, *paths):
        return file_sums(self.root, *paths)

    def diversions(self):
        return agent_diversions(self.root)

    def assert_jdk_is_stock(self):
        self.assertEqual(self.sums(LIB, STOCK), {LIB: CFG.stock_md5})
        self.assertEqual(self.diversions(), [])
        verify = self.root.run("dpkg", "--verify", CFG.jdk_package, check=False)
        self.assertEqual((verify.returncode, verify.stdout, verify.stderr), (0, "", ""))

    def assert_loads(self, java, ours):
        """-agentlib:jdwp in a JVM of <java> loads jdwpx (ours) or the JDK's own agent."""
        options = f"{OPTIONS},suspend=n,address=0" + (",loglevel=info" if ours else "")
        proc = self.root.run(java, f"-agentlib:jdwp={options}", "-version")
        self.assertIn("Listening for transport dt_socket at address:", proc.stdout)
        if ours:
            self.assertRegex(proc.stderr, JDWPX_LINE)
        else:
            self.assertNotIn("jdwpx", proc.stderr)

    def apt(self, *args):
        return self.root.run("apt-get", "-y", "-q", *args)

    # --- the tests -------------------------------------------------------------------

    def test_install_into_the_jdk_survive_its_upgrade_debug_and_remove(self):
        self.apt("install", f"{SHARED}/{CFG.deb}")
        verify = self.root.run("dpkg", "--verify", "jdwpx", check=False)
        self.assertEqual((verify.returncode, verify.stdout), (0, ""))
        self.assertEqual(self.sums(AGENT), {AGENT: CFG.agent_md5})
        self.assert_jdk_is_stock()  # installing the package changed no JDK

        # One command makes the JDK's own agent jdwpx (the library defaults to the package's).
        out = self.root.out("jdwpx-install-into-jdk", JDK)
        self.assertIn(f"installed {AGENT} as {LIB}; {CFG.jdk_package}'s file is diverted (dpkg-divert) to {STOCK}",
                      out)
        self.assertEqual(self.sums(LIB, STOCK), {LIB: CFG.agent_md5, STOCK: CFG.stock_md5})
        self.assertEqual(self.root.out("jdwpx-install-into-jdk", "--list"), f"{JDK}\n")

        # An upgrade of the JDK's package (its .deb installed over itself, as dpkg upgrades)
        # updates the stock agent at the diverted path and leaves jdwpx in place.
        self.root.run("sh", "-c", f"echo outdated > {STOCK}")
        self.apt("install", "--reinstall", f"{SHARED}/debs/{CFG.jdk_deb}")
        self.assertEqual(self.sums(LIB, STOCK), {LIB: CFG.agent_md5, STOCK: CFG.stock_md5})

        self.debug_with_jdb()

        # A typo in an option: stock's line, then which option and why, in the form used.
        options = f"{OPTIONS},adress=5005"
        typo = self.root.run("java", f"-agentlib:jdwp={options}", "-version", check=False)
        self.assertNotEqual(typo.returncode, 0)
        lines = typo.stderr.splitlines()
        self.assertEqual(lines[0], f"ERROR: JDWP option syntax error: -agentlib:jdwp={options}", typo.stderr)
        self.assertIn("adress=5005: unknown option (did you mean address?)", lines[1])
        self.assertIn("-agentlib:jdwp", lines[1])

        # An upgrade of jdwpx gives the JDK the new agent.
        self.apt("install", f"{SHARED}/{CFG.next_deb}")
        self.assertEqual(self.sums(LIB, STOCK), {LIB: CFG.next_agent_md5, STOCK: CFG.stock_md5})
        self.assertEqual(self.diversions(), [f"local diversion of {LIB} to {STOCK}"])
        self.assert_loads("java", ours=True)

        # Removing jdwpx puts the stock agent back: the JDK is its package's again.
        self.apt("remove", "jdwpx")
        self.assert_jdk_is_stock()
        self.assert_loads("java", ours=False)
        self.assertTrue(self.root.exists("/var/lib/jdwpx"))
        self.apt("purge", "jdwpx")
        self.assertFalse(self.root.exists("/var/lib/jdwpx"))
        self.assertEqual(self.root.run("dpkg", "-s", "jdwpx", check=False).returncode, 1)

    def debug_with_jdb(self):
        """The plain -agentlib:jdwp, as an IDE launcher writes it, debugged by the root's jdb."""
        agent = f"-agentlib:jdwp={OPTIONS},suspend=n,address=0,loglevel=info"
        app = harness._Process(self.root.argv("java", agent, "-cp", f"{SHARED}/app", FIXTURE))
        self.addCleanup(app.__exit__, None, None, None)
        m = app._out.wait_for(harness.LISTENING_RE, 0, 60)
        self.assertIsNotNone(m, f"no Listening line\n--- stdout:\n{app.stdout}\n--- stderr:\n{app.stderr}")
        # stderr is read apart from stdout: its line may come after the Listening line.
        self.assertIsNotNone(app._err.wait_for(JDWPX_LINE, 0, 30), f"not jdwpx:\n{app.stderr}")
        jdb = harness.Jdb(None, int(m.group(1)), jdb=self.jdb_wrapper())
        debug_session(self, jdb, app)

    def jdb_wrapper(self):
        """A command that runs the root's jdb (harness.Jdb takes one executable)."""
        path = os.path.join(self.root.dir, "jdb")
        with open(path, "w", encoding="utf-8") as f:
            f.write("#!/bin/sh\nexec " + " ".join(self.root.argv("jdb")) + ' "$@"\n')
        os.chmod(path, 0o755)
        return path

    def test_removal_restores_a_jdk_no_package_owns_and_cleans_up_after_a_removed_jdk(self):
        self.apt("install", f"{SHARED}/{CFG.deb}")
        tarball = "/opt/jdk-17"
        self.root.run("cp", "-a", JDK, tarball)
        self.assertIn("not from a package: a plain copy", self.root.out("jdwpx-install-into-jdk", tarball))
        self.assertIn("diverted (dpkg-divert)", self.root.out("jdwpx-install-into-jdk", JDK))
        self.assertEqual(self.root.out("jdwpx-install-into-jdk", "--list"), f"{tarball}\n{JDK}\n")
        self.assert_loads(f"{tarball}/bin/java", ours=True)

        # The JDK's packages go while jdwpx is in the JDK: dpkg leaves jdwpx's copy and the
        # diversion; --list still names the JDK, and removing jdwpx clears both.
        self.apt("remove", "openjdk-17-jdk-headless", CFG.jdk_package)
        self.assertEqual(self.sums(LIB, STOCK), {LIB: CFG.agent_md5})
        self.assertEqual(self.root.out("jdwpx-install-into-jdk", "--list"), f"{tarball}\n{JDK}\n")

        self.apt("remove", "jdwpx")
        self.assertEqual(self.diversions(), [])
        self.assertFalse(self.root.exists(LIB))
        self.assertEqual(self.sums(f"{tarball}/lib/libjdwp.so", f"{tarball}/lib/libjdwp.so.stock"),
                         {f"{tarball}/lib/libjdwp.so": CFG.stock_md5})
        self.assert_loads(f"{tarball}/bin/java", ours=False)


def make_packages(args):
    """jdwpx's .deb from the build (cpack), and a later version of it: the same package with
    a marker appended to the agent (the loader ignores bytes past an ELF file's sections)."""
    made = subprocess.run([args.cpack, "--config", os.path.join(args.build_dir, "CPackConfig.cmake"),
                           "-G", "DEB", "-B", CFG.shared], capture_output=True, text=True, timeout=600)
    if made.returncode != 0:
        sys.exit(f"cpack failed:\n{made.stdout}{made.stderr}")
    debs = glob.glob(os.path.join(CFG.shared, "jdwpx_*.deb"))
    if len(debs) != 1:
        sys.exit(f"one jdwpx .deb expected, cpack made {debs}")
    CFG.deb = os.path.basename(debs[0])
    shutil.rmtree(os.path.join(CFG.shared, "_CPack_Packages"), ignore_errors=True)

    tree = os.path.join(CFG.state_dir_tmp, "next")
    subprocess.run(["dpkg-deb", "-R", debs[0], tree], check=True)
    CFG.agent_md5 = md5(os.path.join(tree, AGENT.lstrip("/")))
    with open(os.path.join(tree, AGENT.lstrip("/")), "ab") as f:
        f.write(b"\0jdwpx user story: the next version\n")
    CFG.next_agent_md5 = md5(os.path.join(tree, AGENT.lstrip("/")))
    control = os.path.join(tree, "DEBIAN", "control")
    with open(control, encoding="utf-8") as f:
        text = f.read()
    version = re.search(r"^Version: (\S+)$", text, re.M).group(1)
    with open(control, "w", encoding="utf-8") as f:
        f.write(text.replace(f"Version: {version}", f"Version: {version}+next"))
    sums = subprocess.run(["sh", "-c", "cd \"$1\" && find usr -type f -print0 | sort -z | xargs -0 md5sum", "sh", tree],
                          capture_output=True, text=True, check=True).stdout
    with open(os.path.join(tree, "DEBIAN", "md5sums"), "w", encoding="utf-8") as f:
        f.write(sums)
    CFG.next_deb = f"jdwpx_{version}+next_amd64.deb"
    subprocess.run(["dpkg-deb", "--root-owner-group", "-b", tree, os.path.join(CFG.shared, CFG.next_deb)],
                   check=True, capture_output=True)


def prepare(args):
    if os.geteuid() != 0:
        skip("debootstrap, overlay mounts and chroot need root")
    for tool in ("dpkg-deb", "nsenter", "unshare"):
        if not shutil.which(tool):
            skip(f"no {tool}")
    containers = os.path.join(os.path.abspath(args.build_dir), "containers")
    os.makedirs(containers, exist_ok=True)
    CFG.root = os.path.join(containers, "bookworm-root")
    made = subprocess.run([os.path.join(HERE, "make_debian_root.sh"), "bookworm", CFG.root],
                          capture_output=True, text=True)
    if made.returncode == 3:
        skip(f"no bookworm root: {made.stderr.strip()}")
    if made.returncode != 0:
        sys.exit(f"make_debian_root.sh failed:\n{made.stderr}")

    CFG.state_dir = containers
    CFG.state_dir_tmp = tempfile.mkdtemp(prefix="user-story-work-", dir=containers)
    CFG.shared = os.path.join(CFG.state_dir_tmp, "shared")
    os.mkdir(CFG.shared)
    os.chmod(CFG.shared, 0o755)
    os.mkdir(os.path.join(CFG.shared, "debs"))  # where CFG.debs is mounted in the root
    CFG.debs = os.path.join(containers, "debs")
    os.makedirs(CFG.debs, exist_ok=True)
    app = os.path.join(CFG.shared, "app")
    os.mkdir(app)
    for cls in glob.glob(os.path.join(args.classes, f"{FIXTURE}*.class")):
        shutil.copy2(cls, app)
    make_packages(args)

    probe = overlay_root()
    try:
        found = jdk_package(probe, LIB, CFG.debs, f"{SHARED}/debs")
    finally:
        probe.close()
    if isinstance(found, str):
        skip(found)
    CFG.jdk_package, CFG.stock_md5, CFG.jdk_deb = found


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--cpack", default="cpack")
    parser.add_argument("--classes", required=True, help="the compiled fixtures")
    args, rest = parser.parse_known_args()
    CFG.state_dir_tmp = None
    try:
        prepare(args)
        result = unittest.main(argv=[sys.argv[0], *rest], verbosity=2, exit=False).result
    finally:
        if CFG.state_dir_tmp:
            shutil.rmtree(CFG.state_dir_tmp, ignore_errors=True)
    sys.exit(0 if result.wasSuccessful() else 1)


if __name__ == "__main__":
    main()
