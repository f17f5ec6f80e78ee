#!/usr/bin/env python3
"""The jdwpx image (Dockerfile at the repository's top): its JDK's lib/libjdwp.so is
jdwpx with the stock library beside it, the tools run, the agent is at
/opt/jdwpx/lib/libjdwpx.so and stripped, and no compiler or build tree is left.

    python3 integration/containers/test_image.py --build-dir BUILD [unittest args]

Exits 77 (ctest: skipped) with a message where containers cannot run.
"""

import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import podman as pm  # noqa: E402

harness = pm.harness


def run(*command, check=True):
    return pm.podman(ENV, "run", "--rm", IMAGE, *command, check=check)


class Image(unittest.TestCase):
    def test_jdk_agent_is_jdwpx_with_stock_beside_it(self):
        sums = run("sh", "-c", "cd /opt/jdk/lib && sha256sum libjdwp.so libjdwp.so.stock "
                   "/opt/jdwpx/lib/libjdwpx.so").stdout.split()
        ours, stock, shipped = sums[0], sums[2], sums[4]
        self.assertEqual(ours, shipped, "lib/libjdwp.so is the shipped library")
        self.assertNotEqual(ours, stock)
        # -agentlib:jdwp loads jdwpx: its info line names it (loglevel= is ours alone).
        out = run("java", "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=0,loglevel=info",
                  "-version")
        self.assertRegex(out.stderr, r"\[info\] jdwpx \S+: transport=dt_socket server=y")
        self.assertIn("Listening for transport dt_socket at address:", out.stdout)
        # The stock library still works from its new name.
        out = run("java", "-agentpath:/opt/jdk/lib/libjdwp.so.stock=transport=dt_socket,server=y,suspend=n,address=0",
                  "-version")
        self.assertIn("Listening for transport dt_socket at address:", out.stdout)
        self.assertNotIn("jdwpx", out.stderr)

    def test_tools(self):
        out = run("jdwpx-trace", check=False)
        self.assertEqual(out.returncode, 2, out.stderr)
        self.assertIn("usage: jdwpx-trace summary FILE", out.stderr)
        out = run("sh", "-c", "ls /opt/jdwpx/bin")
        self.assertIn("jdwpx-install-into-jdk", out.stdout.split())

    def test_library_stripped_and_loadable_elsewhere(self):
        with tempfile.TemporaryDirectory() as tmp:
            lib = os.path.join(tmp, "libjdwpx.so")
            with open(lib, "wb") as f:
                subprocess.run(["podman", "run", "--rm", IMAGE, "cat", "/opt/jdwpx/lib/libjdwpx.so"],
                               env=ENV, stdout=f, check=True)
            sections = subprocess.run(["readelf", "-S", "-W", lib], capture_output=True, text=True,
                                      check=True).stdout
            self.assertNotIn(".symtab", sections)
            self.assertNotIn(".debug_info", sections)
            exports = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True,
                                     check=True).stdout
            self.assertIn("Agent_OnLoad", exports)
            versions = subprocess.run(["objdump", "-T", lib], capture_output=True, text=True, check=True).stdout
            self.assertNotRegex(versions, r"GLIBC_2\.(3[2-9]|[4-9]\d)", "the image ships the glibc 2.31 build")

    def test_no_compiler_no_build_tree(self):
        out = run("sh", "-c", "for t in gcc g++ cc c++ clang cmake ninja make ld; do "
                  "command -v $t; done; ls -d /src /build /out 2>/dev/null; true")
        self.assertEqual(out.stdout.strip(), "", "left in the runtime stage")


if __name__ == "__main__":
    cfg = harness.parse_args()
    ENV, IMAGE = pm.image_or_skip(cfg.build_dir)
    size = pm.podman(ENV, "image", "inspect", "--format", "{{.Size}}", IMAGE).stdout.strip()
    print(f"image {IMAGE}: {int(size) / 1e6:.0f} MB", flush=True)
    unittest.main(argv=cfg.unittest_argv, verbosity=2)
