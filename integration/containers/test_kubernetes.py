#!/usr/bin/env python3
"""deploy/kubernetes/pod.yaml, run as a real pod by `podman kube play` (no cluster here):
its init container copies the agent and jdwpx-bridge from the jdwpx image into an
emptyDir, the application container loads the agent from there through the manifest's
own JAVA_TOOL_OPTIONS (address=5005: the pod's loopback only), and jdb on the host
debugs the JVM through the manifest's two ways in:
- `kubectl exec -i ... jdwpx-bridge connect 127.0.0.1:5005`, with `podman exec -i` in
  its place;
- `kubectl port-forward`, which connects to the port from inside the pod's network
  namespace: here `nsenter --net` into the pod runs jdwpx-bridge connect, as the
  kubelet's port-forward does (dockershim ran nsenter and socat).
The port is not reachable at the pod's IP, and the agent's line about the loopback port
names port-forward and exec, never address=*:.

What the test changes in the manifest: the two images (the jdwpx image built from this
build, also standing for the application's JDK image), the application's command (the
ContainerApp fixture, mounted by hostPath), KUBERNETES_SERVICE_HOST (the kubelet sets
it; podman does not), and restartPolicy: Never (podman 4.3 reruns an init container
forever under the default Always). JAVA_TOOL_OPTIONS, the emptyDir and the init
container's command are the shipped ones.

    python3 integration/containers/test_kubernetes.py --agent ours --agent-lib LIB
        --jdk JDK17 --classes DIR --build-dir BUILD [unittest args]

Exits 77 (ctest: skipped) with a message where containers cannot run.
"""

import json
import os
import shutil
import sys
import tempfile
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import podman as pm  # noqa: E402  (puts integration/ on sys.path)
import jdwp_client  # noqa: E402
from kube_pod import MANIFEST, pod_for_test, volume_name  # noqa: E402
from session import debug_session  # noqa: E402

harness = pm.harness
PORT = 5005


class KubernetesPod(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()
        cls.env = ENV
        # podman exec, run by the bridge for each connection, reads the same configuration.
        os.environ["CONTAINERS_CONF"] = ENV["CONTAINERS_CONF"]
        with open(MANIFEST, encoding="utf-8") as f:
            cls.manifest = f.read()
        cls.pod = f"jdwpx-k8s-{uuid.uuid4().hex[:8]}"
        cls.app = f"{cls.pod}-app"  # podman kube play names a container <pod>-<container>
        cls.tmp = tempfile.mkdtemp(prefix="jdwpx-k8s-")
        path = os.path.join(cls.tmp, "pod.yaml")
        with open(path, "w", encoding="utf-8") as f:
            f.write(pod_for_test(cls.manifest, cls.pod, IMAGE, os.path.realpath(cls.cfg.classes_dir)))
        try:
            pm.podman(ENV, "kube", "play", path, timeout=120)
            cls.logs = harness._Process(["podman", "logs", "-f", cls.app], env=ENV)
            ready = cls.logs._out.wait_for(r"ContainerApp ready", 0, 60)
            if ready is None:
                raise AssertionError(f"the pod's JVM did not start\n--- stdout:\n{cls.logs.stdout}\n"
                                     f"--- stderr:\n{cls.logs.stderr}")
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        if getattr(cls, "logs", None):
            cls.logs.__exit__(None, None, None)
        pm.podman(ENV, "pod", "rm", "--force", "--time", "0", "--ignore", cls.pod, check=False, timeout=60)
        pm.podman(ENV, "volume", "rm", "--force", volume_name(cls.pod), check=False, timeout=60)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def attach_through(self, command):
        """jdb on the host through `jdwpx-bridge listen 127.0.0.1:0 -- <command>`."""
        bridge = harness._Process([os.path.join(self.cfg.build_dir, "tools", "jdwpx-bridge"), "listen", "127.0.0.1:0",
                                   "--", *command])
        self.addCleanup(bridge.__exit__, None, None, None)
        listening = bridge._out.wait_for(r"jdwpx-bridge: listening on 127\.0\.0\.1:(\d+)", 0, 30)
        self.assertIsNotNone(listening, f"bridge did not listen:\n{bridge.stdout}\n{bridge.stderr}")
        jdb = harness.Jdb(self.cfg, int(listening.group(1)), args=["-sourcepath", harness.FIXTURES_SRC])
        debug_session(self, jdb, self.logs)
        self.assertIsNone(self.logs.returncode, "the JVM must run on after the debugger left")

    # The cases ---------------------------------------------------------------------

    def test_manifest_recommends_loopback(self):
        # What the shipped file says, read back: the agent from the emptyDir, loopback port.
        self.assertIn("        - name: JAVA_TOOL_OPTIONS\n          value: -agentpath:/jdwpx/libjdwpx.so="
                      "transport=dt_socket,server=y,suspend=n,address=5005,onbindfail=continue\n", self.manifest)
        self.assertIn("    - name: jdwpx\n      emptyDir:\n", self.manifest)
        self.assertIn("      command: [cp, /opt/jdwpx/lib/libjdwpx.so, /opt/jdwpx/bin/jdwpx-bridge, /jdwpx/]\n",
                      self.manifest)
        # Nothing but comments may name every interface.
        settings = [line for line in self.manifest.splitlines() if not line.lstrip().startswith("#")]
        self.assertFalse([line for line in settings if "*:" in line or "0.0.0.0" in line], settings)

    def test_init_container_filled_the_empty_dir(self):
        listing = pm.podman(self.env, "exec", self.app, "ls", "/jdwpx").stdout.split()
        self.assertEqual(listing, ["jdwpx-bridge", "libjdwpx.so"])
        # The copies are the image's own files.
        sums = pm.podman(self.env, "exec", self.app, "sha256sum", "/jdwpx/libjdwpx.so", "/opt/jdwpx/lib/libjdwpx.so",
                         "/jdwpx/jdwpx-bridge", "/opt/jdwpx/bin/jdwpx-bridge").stdout.split()
        self.assertEqual(sums[0], sums[2])
        self.assertEqual(sums[4], sums[6])
        # Read-only in the application's container.
        touched = pm.podman(self.env, "exec", self.app, "touch", "/jdwpx/x", check=False)
        self.assertNotEqual(touched.returncode, 0)

    def test_agent_line_names_port_forward_and_exec(self):
        # podman logs writes the two streams apart: each is waited for on its own.
        self.assertIsNotNone(self.logs._out.wait_for(r"Listening for transport dt_socket at address: 5005\n", 0, 30),
                             self.logs.stdout)
        self.assertIsNotNone(self.logs._err.wait_for(r"jdwpx: .*\n", 0, 30), self.logs.stderr)
        lines = self.logs.stderr.splitlines()
        # The JVM's "Picked up JAVA_TOOL_OPTIONS" line, then the agent's, before anything else.
        self.assertGreaterEqual(len(lines), 2, self.logs.stderr)
        self.assertTrue(lines[0].startswith("Picked up JAVA_TOOL_OPTIONS: "), lines[0])
        self.assertEqual(lines[1], "jdwpx: the debug port 5005 listens on loopback only, inside this pod: kubectl "
                                   "port-forward and kubectl exec (jdwpx-bridge connect 127.0.0.1:5005) reach it, "
                                   "other pods and Services do not.")
        self.assertNotIn("*:", self.logs.stderr)
        self.assertNotIn("WARNING", self.logs.stderr)

    def test_second_jvm_in_the_container_runs_on(self):
        # `kubectl exec app -- jcmd 1 ...` starts a JVM that inherits JAVA_TOOL_OPTIONS: the
        # port is the application's, and onbindfail=continue lets jcmd run undebugged.
        out = pm.podman(self.env, "exec", self.app, "jcmd", "1", "VM.version", check=False, timeout=120)
        self.assertEqual(out.returncode, 0, out.stdout + out.stderr)
        self.assertRegex(out.stdout, r"^1:\n")
        self.assertIn("jdwpx: cannot listen on 5005 (bind failed: Address already in use); onbindfail=continue: "
                      "the program runs without debugging\n", out.stderr)

    def test_pod_ip_does_not_answer(self):
        # Another pod would connect to the pod's IP: nothing answers there.
        networks = json.loads(pm.podman(self.env, "inspect", self.app, "--format",
                                        "{{json .NetworkSettings.Networks}}").stdout)
        addresses = [n["IPAddress"] for n in networks.values() if n.get("IPAddress")]
        self.assertTrue(addresses, networks)
        for address in addresses:
            self.assertFalse(jdwp_client.handshake_answered(address, PORT, timeout=10),
                             f"{address}:{PORT} answered a handshake")

    def test_exec_and_bridge(self):
        # kubectl exec -i app -c app -- /jdwpx/jdwpx-bridge connect 127.0.0.1:5005
        self.attach_through(["podman", "exec", "-i", self.app, "/jdwpx/jdwpx-bridge", "connect", f"127.0.0.1:{PORT}"])

    def test_port_forward_from_the_pods_network(self):
        # kubectl port-forward pod/app 5005: a connection to 127.0.0.1:5005 made in the pod's
        # network namespace, with nothing run in the container itself.
        pid = pm.podman(self.env, "inspect", self.app, "--format", "{{.State.Pid}}").stdout.strip()
        self.assertRegex(pid, r"^[1-9]\d*$")
        self.attach_through(["nsenter", f"--net=/proc/{pid}/ns/net", "--",
                             os.path.join(self.cfg.build_dir, "tools", "jdwpx-bridge"), "connect", f"127.0.0.1:{PORT}"])


if __name__ == "__main__":
    cfg = harness.parse_args()
    if cfg.agent != "ours" or cfg.jdk_version != 17:
        pm.skip("the manifest loads jdwpx into the image's JDK 17")
    ENV, IMAGE = pm.image_or_skip(cfg.build_dir)
    harness.main()
