#!/usr/bin/env python3
"""A JVM in a container, debugged from outside it (podman, rootful): through a port
published on 127.0.0.1 with jdb on the host, from a second container on a user-defined
network by the first one's name, with no port at all through jdwpx-bridge and `podman exec -i`, and a JVM whose address=5005 (loopback only since
JDK 9) no published port can reach, which our agent says on its log's first line.

JDK 17 is the image's own JDK, whose lib/libjdwp.so is jdwpx (so JAVA_TOOL_OPTIONS'
-agentlib:jdwp loads ours; stock is lib/libjdwp.so.stock beside it). Any other JDK
under test is the host's, mounted into the same image, with -agentpath: for ours.

    python3 integration/containers/test_networking.py --agent ours|stock --agent-lib LIB
        --jdk JDK --classes DIR --build-dir BUILD [unittest args]

Exits 77 (ctest: skipped) with a message where containers cannot run.
"""

import os
import sys
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import podman as pm  # noqa: E402  (puts integration/ on sys.path)
import jdwp_client  # noqa: E402
from session import BP_LINE, FIXTURE, debug_session  # noqa: E402

harness = pm.harness
IMAGE_JDK = "/opt/jdk"
MOUNTED_JDK = "/opt/jdk-under-test"


class InContainers(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()
        cls.env = ENV
        cls.image = IMAGE
        # Podman run by harness.Jdb (the debugger container) reads the same configuration.
        os.environ["CONTAINERS_CONF"] = cls.env["CONTAINERS_CONF"]

    # How this (agent, JDK) pair starts a JVM in the image ---------------------------

    def jdk_mount(self):
        if self.cfg.jdk_version == 17:
            return []
        return ["-v", f"{os.path.realpath(self.cfg.jdk)}:{MOUNTED_JDK}:ro"]

    def jdk_home(self):
        return IMAGE_JDK if self.cfg.jdk_version == 17 else MOUNTED_JDK

    def agent_option(self, options):
        """The JVM option that loads the agent under test inside the container."""
        if self.cfg.jdk_version == 17:
            # The image's JDK: -agentlib:jdwp is jdwpx; stock is kept beside it.
            if self.cfg.agent == "ours":
                return f"-agentlib:jdwp={options}"
            return f"-agentpath:{IMAGE_JDK}/lib/libjdwp.so.stock={options}"
        if self.cfg.agent == "ours":
            return f"-agentpath:/opt/jdwpx/lib/libjdwpx.so={options}"
        return f"-agentlib:jdwp={options}"

    def start_app(self, extra_args, options=None, tool_options=True, name=None):
        options = options or "transport=dt_socket,server=y,suspend=n,address=*:5005"
        agent = self.agent_option(options)
        args = list(extra_args) + ["-v", f"{self.cfg.classes_dir}:/app:ro"] + self.jdk_mount()
        java = [f"{self.jdk_home()}/bin/java"]
        if tool_options:
            args += ["-e", f"JAVA_TOOL_OPTIONS={agent}"]
        else:
            java.append(agent)
        app = pm.Container(self.env, args + [self.image] + java + ["-cp", "/app", FIXTURE], name=name)
        self.addCleanup(app.__exit__, None, None, None)
        app.wait_for_output(r"ContainerApp ready", 60)
        return app

    # The cases ---------------------------------------------------------------------

    def test_published_port_jdb_on_host(self):
        # -p 127.0.0.1::5005: the OS picks the host port; podman port reads it back.
        app = self.start_app(["-p", "127.0.0.1::5005"])
        port = app.host_port(5005)
        jdb = harness.Jdb(self.cfg, port, args=["-sourcepath", harness.FIXTURES_SRC])
        debug_session(self, jdb, app)
        self.assertIsNone(app.returncode, "the JVM must run on after the debugger left")

    def test_second_container_attaches_by_name(self):
        net = f"jdwpx-test-{uuid.uuid4().hex[:8]}"
        pm.podman(self.env, "network", "create", net)
        self.addCleanup(pm.podman, self.env, "network", "rm", "--force", net, check=False)
        app_name = f"jdwpx-app-{uuid.uuid4().hex[:8]}"
        app = self.start_app(["--network", net], name=app_name)
        dbg_name = f"jdwpx-dbg-{uuid.uuid4().hex[:8]}"
        self.addCleanup(pm.podman, self.env, "rm", "--force", "--time", "0", "--ignore", dbg_name, check=False)
        jdb = harness.Jdb(self.cfg, None, jdb="podman", args=[
            "run", "--rm", "-i", "--name", dbg_name, "--network", net,
            "-v", f"{harness.FIXTURES_SRC}:/src:ro", *self.jdk_mount(), self.image,
            f"{self.jdk_home()}/bin/jdb", "-sourcepath", "/src", "-attach", f"{app_name}:5005"])
        debug_session(self, jdb, app)

    def test_no_port_bridge_through_podman_exec(self):
        # What `kubectl exec -i` gives in a pod: the JVM listens on a Unix socket in its
        # container and publishes nothing; on the host, jdwpx-bridge listens on loopback
        # and relays each connection to `podman exec -i <app> jdwpx-bridge connect unix:...`.
        if self.cfg.agent != "ours":
            self.skipTest("stock has no Unix socket transport (address=unix: is jdwpx's)")
        name = f"jdwpx-app-{uuid.uuid4().hex[:8]}"
        app = self.start_app([], options="transport=dt_socket,server=y,suspend=n,address=unix:/tmp/jdwp.sock",
                             name=name)
        app.wait_for_output(r"Listening for transport dt_socket at address: unix:/tmp/jdwp\.sock")
        bridge = harness._Process([os.path.join(self.cfg.build_dir, "tools", "jdwpx-bridge"), "listen", "127.0.0.1:0",
                                   "--", "podman", "exec", "-i", name, "/opt/jdwpx/bin/jdwpx-bridge", "connect",
                                   "unix:/tmp/jdwp.sock"])
        self.addCleanup(bridge.__exit__, None, None, None)
        listening = bridge._out.wait_for(r"jdwpx-bridge: listening on 127\.0\.0\.1:(\d+)", 0, 30)
        self.assertIsNotNone(listening, f"bridge did not listen:\n{bridge.stdout}\n{bridge.stderr}")
        jdb = harness.Jdb(self.cfg, int(listening.group(1)), args=["-sourcepath", harness.FIXTURES_SRC])
        debug_session(self, jdb, app)
        self.assertIsNone(app.returncode, "the JVM must run on after the debugger left")

    def test_container_stopped_mid_session(self):
        # The container goes away while jdb is stopped at a breakpoint in it: jdb is told
        # and ends; nothing is left listening on the published port.
        app = self.start_app(["-p", "127.0.0.1::5005"])
        port = app.host_port(5005)
        jdb = harness.Jdb(self.cfg, port, args=["-sourcepath", harness.FIXTURES_SRC])
        self.addCleanup(jdb.__exit__, None, None, None)
        jdb.expect_prompt(60)
        jdb.command(f"stop at {FIXTURE}:{BP_LINE}")
        jdb.expect(rf'Breakpoint hit: "thread=main", {FIXTURE}\.tick\(\)', 30)
        jdb.expect_prompt()
        pm.podman(self.env, "kill", app.name)
        jdb.expect(r"\nThe application has been disconnected\n", 30)
        self.assertEqual(jdb.wait(30), 0, jdb.transcript)
        self.assertIsNotNone(app.wait(30), "the container ended")
        self.assertFalse(_handshake(port), "something still answers on the published port")

    def test_loopback_address_in_container(self):
        # On the command line, not JAVA_TOOL_OPTIONS: the JVM prints its "Picked up
        # JAVA_TOOL_OPTIONS" line before any agent runs.
        app = self.start_app(["-p", "127.0.0.1::5005"],
                             options="transport=dt_socket,server=y,suspend=n,address=5005", tool_options=False)
        app.wait_for_output(r"Listening for transport dt_socket at address: 5005")
        logs = pm.podman(self.env, "logs", app.name)
        log = logs.stdout + logs.stderr
        warning = "listens on loopback only, inside this container"
        if self.cfg.agent == "ours":
            # The log's first line (podman logs: stderr), before the Listening line.
            first = (logs.stderr.splitlines() or [""])[0]
            self.assertIn(warning, first, f"log:\n{log}")
            self.assertIn("To debug from outside, use address=*:5005", first)
            self.assertEqual(app.stderr.splitlines()[0], first)
        else:
            self.assertNotIn(warning, log, "stock is unchanged: no such warning")
        # And it is so: through the published port no handshake completes.
        port = app.host_port(5005)
        self.assertFalse(_handshake(port), "a loopback-only port answered through a published port")


def _handshake(port: int) -> bool:
    return jdwp_client.handshake_answered("127.0.0.1", port, timeout=10)


if __name__ == "__main__":
    cfg = harness.parse_args()
    ENV, IMAGE = pm.image_or_skip(cfg.build_dir)
    harness.main()
