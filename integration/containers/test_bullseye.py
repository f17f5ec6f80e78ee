#!/usr/bin/env python3
"""The shipped agent in Debian 11 (bullseye, glibc 2.31) with bullseye's own OpenJDK 17,
in a root made by debootstrap (make_debian_root.sh, kept under <build>/containers/):
- a program started in it by chroot with our library, and jdb on the host debugging it
  over a socket (the chroot shares the host's network);
- the root imported as an "existing JDK image", the library put into it with
  `COPY --from=` the jdwpx image and loaded with -agentpath: (the recipe in docs/containers.md), and
  jdb on the host debugging the container through a published port (skipped where
  containers cannot run).

    python3 integration/containers/test_bullseye.py --agent ours --agent-lib LIB
        --jdk JDK --classes DIR --build-dir BUILD [unittest args]

Exits 77 (ctest: skipped) with a message where debootstrap or Debian's archive is not
available.
"""

import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import podman as pm  # noqa: E402
from session import BP_LINE, FIXTURE, debug_session  # noqa: E402

harness = pm.harness
HERE = os.path.dirname(os.path.abspath(__file__))
JDK_IMAGE = "localhost/jdwpx-test-bullseye-jdk17:latest"
ROOT_JDK = "/usr/lib/jvm/java-17-openjdk-amd64"


class Bullseye(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()
        # The library and the fixture, copied in: the chroot sees nothing of the host.
        self.lib_dir = os.path.join(ROOT, "opt", "jdwpx")
        shutil.rmtree(self.lib_dir, ignore_errors=True)
        os.makedirs(os.path.join(self.lib_dir, "lib"))
        shutil.copy2(self.cfg.agent_lib, os.path.join(self.lib_dir, "lib", "libjdwpx.so"))
        shutil.copytree(self.cfg.classes_dir, os.path.join(self.lib_dir, "app"))

    def test_glibc_is_2_31(self):
        out = subprocess.run(["chroot", ROOT, "/usr/bin/ldd", "--version"], capture_output=True, text=True,
                             check=True).stdout
        self.assertIn("2.31", out.splitlines()[0])

    def test_debug_a_program_in_bullseye(self):
        agent = "-agentpath:/opt/jdwpx/lib/libjdwpx.so=transport=dt_socket,server=y,suspend=y,address=0"
        # A private mount namespace for /proc; --kill-child ends the JVM with the test.
        app = harness._Process(["unshare", "--mount", "--fork", "--kill-child", "--", "sh", "-c",
                                'mount -t proc proc "$0/proc" && exec chroot "$0" "$@"', ROOT,
                                f"{ROOT_JDK}/bin/java", agent, "-cp", "/opt/jdwpx/app", FIXTURE])
        self.addCleanup(app.__exit__, None, None, None)
        m = app._out.wait_for(harness.LISTENING_RE, 0, 60)
        self.assertIsNotNone(m, f"no Listening line\n--- stdout:\n{app.stdout}\n--- stderr:\n{app.stderr}")
        jdb = harness.Jdb(self.cfg, int(m.group(1)))
        self.addCleanup(jdb.__exit__, None, None, None)
        try:
            jdb.expect(r"VM Started")
            jdb.expect_prompt()
            jdb.command(f"stop at {FIXTURE}:{BP_LINE}")
            jdb.send("cont")
            jdb.expect(rf'Breakpoint hit: "thread=main", {FIXTURE}\.tick\(\), line={BP_LINE}', 30)
            jdb.expect_prompt()
            self.assertIn(" n = 1\n", jdb.command("print n"))
            self.assertRegex(jdb.command("where"), rf"\[1\] {FIXTURE}\.tick \({FIXTURE}\.java:{BP_LINE}\)")
            # Bullseye's own JDK ("17.0.x+y-1~deb11uN"), not the host's (deb12).
            version = jdb.command('print java.lang.System.getProperty("java.runtime.version")')
            self.assertRegex(version, r'= "17\.[^"]*deb11', version)
            jdb.send("cont")
            jdb.expect(rf'Breakpoint hit: "thread=main", {FIXTURE}\.tick\(\), line={BP_LINE}', 30)
            jdb.expect_prompt()
            self.assertIn(" n = 2\n", jdb.command("print n"))
            jdb.command(f"clear {FIXTURE}:{BP_LINE}")
            jdb.send("exit")
            jdb.wait(30)
        except AssertionError:
            print(f"--- jdb transcript:\n{jdb.transcript}\n--- app stdout:\n{app.stdout}\n--- app stderr:\n{app.stderr}")
            raise
        self.assertNotIn("GLIBC", app.stderr)

    def test_copy_from_into_a_jdk_image(self):
        env = pm.podman_env(self.cfg.build_dir)
        try:
            pm.require_podman(env)
            image = pm.ensure_image(self.cfg.build_dir, env)
            self._import_root(env)
        except pm.Unavailable as e:
            self.skipTest(str(e))
        ctx = os.path.join(self.cfg.build_dir, "containers", "copy-from")
        shutil.rmtree(ctx, ignore_errors=True)
        os.makedirs(ctx)
        with open(os.path.join(ctx, "Dockerfile"), "w", encoding="utf-8") as f:
            f.write(f"FROM {JDK_IMAGE}\n"
                    f"COPY --from={image} /opt/jdwpx/lib/libjdwpx.so /opt/jdwpx/lib/libjdwpx.so\n"
                    "ENV JAVA_TOOL_OPTIONS=-agentpath:/opt/jdwpx/lib/libjdwpx.so="
                    "transport=dt_socket,server=y,suspend=n,address=*:5005\n")
        tag = "localhost/jdwpx-test-copy-from:latest"
        pm.podman(env, "build", "--pull=never", "-t", tag, ctx)
        app = pm.Container(env, ["-p", "127.0.0.1::5005", "-v", f"{self.cfg.classes_dir}:/app:ro", tag,
                                 f"{ROOT_JDK}/bin/java", "-cp", "/app", FIXTURE])
        self.addCleanup(app.__exit__, None, None, None)
        app.wait_for_output(r"ContainerApp ready", 60)
        debug_session(self, harness.Jdb(self.cfg, app.host_port(5005)), app)

    def _import_root(self, env):
        """The bullseye root as an image (once; the library copied in by setUp left out)."""
        if pm.podman(env, "image", "exists", JDK_IMAGE, check=False).returncode == 0:
            return
        with subprocess.Popen(["tar", "-C", ROOT, "--numeric-owner", "--exclude=./opt/jdwpx",
                               "--exclude=./proc/*", "-cf", "-", "."], stdout=subprocess.PIPE) as tar:
            imported = subprocess.run(["podman", "import", "-", JDK_IMAGE], stdin=tar.stdout, env=env,
                                      capture_output=True, text=True)
        self.assertEqual(imported.returncode, 0, imported.stderr)


if __name__ == "__main__":
    cfg = harness.parse_args()
    if cfg.agent != "ours":
        pm.skip("the bullseye test is about our library (stock is bullseye's own JDK's)")
    if os.geteuid() != 0:
        pm.skip("debootstrap and chroot need root")
    ROOT = os.path.join(cfg.build_dir, "containers", "bullseye-root")
    os.makedirs(os.path.dirname(ROOT), exist_ok=True)
    made = subprocess.run([os.path.join(HERE, "make_debian_root.sh"), "bullseye", ROOT], capture_output=True, text=True)
    if made.returncode == 3:
        pm.skip(f"no bullseye root: {made.stderr.strip()}")
    if made.returncode != 0:
        sys.exit(f"make_debian_root.sh failed:\n{made.stderr}")
    unittest.main(argv=cfg.unittest_argv, verbosity=2)
