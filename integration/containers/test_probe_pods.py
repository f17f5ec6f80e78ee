#!/usr/bin/env python3
"""jdwpx-probe on every JVM of a deployment (issue 30, point 6): three pods made from
deploy/kubernetes/pod.yaml by `podman kube play` (real pods: an init container, an
emptyDir, the agent loaded through JAVA_TOOL_OPTIONS on the pod's loopback), all with
one label, probed by one command line:

    jdwpx-probe --kube app=<label> --container app --kube-socket 127.0.0.1:5005 log ...

There is no cluster here, so `kubectl` is a stand-in on the tool's PATH that does what
jdwpx-probe asks of it with podman: `kubectl get pods -l SELECTOR -o name` lists the
pods with that label, `kubectl exec -i [-c C] POD -- CMD` runs `podman exec -i POD-C CMD`
(podman kube play names a container <pod>-<container>). Not tested: a real API server
and kubectl itself.

- every pod's JVM gives its log lines, in call order, and a summary; the run ends by
  --max and every pod's JVM runs on, its probe cleared;
- a pod removed mid-run is named on stderr and the others go on; Ctrl-C ends the run,
  and the exit status says a target failed.

    python3 integration/containers/test_probe_pods.py --agent ours --agent-lib LIB
        --jdk JDK17 --classes DIR --build-dir BUILD [unittest args]

Exits 77 (ctest: skipped) with a message where containers cannot run.
"""

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import podman as pm  # noqa: E402  (puts integration/ on sys.path)
from probe_tool import ProbeRun  # noqa: E402
from kube_pod import MANIFEST, pod_for_test, volume_name  # noqa: E402
from session import BP_LINE, FIXTURE  # noqa: E402

harness = pm.harness
PODS = 3
WAIT_S = 120
LOCATION = f"{FIXTURE}.tick:{BP_LINE}"

KUBECTL = r'''#!/usr/bin/env python3
"""kubectl as jdwpx-probe --kube runs it, over podman's pods (no cluster here)."""
import os
import subprocess
import sys

args = sys.argv[1:]
if args[:2] == ["get", "pods"]:
    selector = args[args.index("-l") + 1]
    out = subprocess.run(["podman", "pod", "ps", "--filter", f"label={selector}", "--format", "{{.Name}}"],
                         capture_output=True, text=True, check=True).stdout
    sys.stdout.write("".join(f"pod/{name}\n" for name in sorted(out.split())))
elif args[:2] == ["exec", "-i"]:
    rest, container = args[2:], None
    while rest[0].startswith("-"):
        if rest[0] == "-c":
            container = rest[1]
        rest = rest[2:]
    pod, command = rest[0], rest[rest.index("--") + 1:]
    os.execvp("podman", ["podman", "exec", "-i", f"{pod}-{container}" if container else pod, *command])
else:
    sys.exit(f"kubectl stand-in: not supported: {args}")
'''


class ProbePods(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cfg = harness.config()
        with open(MANIFEST, encoding="utf-8") as f:
            manifest = f.read()
        cls.label = f"jdwpx-probe-{uuid.uuid4().hex[:8]}"
        cls.pods = [f"{cls.label}-{n}" for n in range(PODS)]
        cls.tmp = tempfile.mkdtemp(prefix="jdwpx-probe-pods-")
        kubectl = os.path.join(cls.tmp, "bin", "kubectl")
        os.makedirs(os.path.dirname(kubectl))
        with open(kubectl, "w", encoding="utf-8") as f:
            f.write(KUBECTL)
        os.chmod(kubectl, 0o755)
        cls.tool_env = dict(ENV, PATH=os.path.dirname(kubectl) + os.pathsep + ENV.get("PATH", os.defpath))
        cls.logs = {}
        try:
            for pod in cls.pods:
                path = os.path.join(cls.tmp, f"{pod}.yaml")
                with open(path, "w", encoding="utf-8") as f:
                    f.write(pod_for_test(manifest, pod, IMAGE, os.path.realpath(cls.cfg.classes_dir), label=cls.label))
                pm.podman(ENV, "kube", "play", path, timeout=120)
            for pod in cls.pods:
                cls.logs[pod] = harness._Process(["podman", "logs", "-f", f"{pod}-app"], env=ENV)
                if cls.logs[pod]._out.wait_for(r"ContainerApp ready", 0, 60) is None:
                    raise AssertionError(f"{pod}'s JVM did not start\n--- stdout:\n{cls.logs[pod].stdout}\n"
                                         f"--- stderr:\n{cls.logs[pod].stderr}")
        except BaseException:
            cls.tearDownClass()
            raise

    @classmethod
    def tearDownClass(cls):
        for logs in cls.logs.values():
            logs.__exit__(None, None, None)
        for pod in cls.pods:
            pm.podman(ENV, "pod", "rm", "--force", "--time", "0", "--ignore", pod, check=False, timeout=60)
            pm.podman(ENV, "volume", "rm", "--force", volume_name(pod), check=False, timeout=60)
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def start_tool(self, *args) -> ProbeRun:
        """jdwpx-probe on every pod with the label."""
        tool = ProbeRun([os.path.join(self.cfg.build_dir, "tools", "jdwpx-probe"),
                         "--kube", f"app={self.label}", "--container", "app", "--kube-socket", "127.0.0.1:5005",
                         "log", f"{FIXTURE}:{BP_LINE}", "n={n}", "--format", "json",
                         # Three JVMs and podman on 2 busy cores: a cold first hit can spend
                         # the default budget's burst (50 ms), pausing the probe.
                         "--budget", "50", *args], env=self.tool_env)
        self.addCleanup(tool.close)
        return tool

    def assert_logs_in_call_order(self, logs: list):
        values = []
        for log in logs:
            self.assertEqual((log["kind"], log["thread"], log["location"]), ("log", "main", LOCATION), log)
            values.append(int(re.fullmatch(r"n=(\d+)", log["message"]).group(1)))
        self.assertEqual(values, sorted(set(values)), "each call's line once, in call order")

    def test_every_pod_from_one_command_line(self):
        tool = self.start_tool("--max", "3")
        try:
            rc = tool.finish(WAIT_S)
        except subprocess.TimeoutExpired:
            self.fail(f"jdwpx-probe did not end in {WAIT_S} s; its lines: {tool.drain()}")
        self.assertEqual(rc, 0, tool.stderr())
        out = tool.drain()
        self.assertEqual(sorted({line["target"] for line in out}), self.pods, out)
        for pod in self.pods:
            mine = [line for line in out if line["target"] == pod]
            *logs, summary = [line for line in mine if line["kind"] != "notice"]
            # The agent's "done" comes unless the tool counted its third line and ended first.
            self.assertLessEqual({line["notice"] for line in mine if line["kind"] == "notice"}, {"done"}, mine)
            self.assertEqual(len(logs), 3, mine)
            self.assert_logs_in_call_order(logs)
            self.assertEqual((summary["kind"], summary["matched"], summary["suppressed"]), ("summary", 3, 0), summary)
        # Every JVM runs on, undebugged again: the probe's line is not printed any more, the
        # program still ticks.
        for pod in self.pods:
            self.assertIsNone(self.logs[pod].returncode, pod)

    # Removes a pod: runs last (unittest runs a class's tests in the order of their names).
    def test_pod_gone_mid_run_is_named_and_the_others_go_on(self):
        tool = self.start_tool()
        seen: dict = {}
        while len(seen) < PODS:  # every pod's first line: all probes are set
            line = tool.next(WAIT_S)
            seen.setdefault(line["target"], []).append(line)
        gone = self.pods[0]
        pm.podman(ENV, "pod", "rm", "--force", "--time", "0", gone, timeout=60)
        # Lines of the others after the pod went: they go on.
        after = {pod: 0 for pod in self.pods[1:]}
        while min(after.values()) < 3:
            line = tool.next(WAIT_S)
            if line["target"] in after and line["kind"] == "log":
                after[line["target"]] += 1
        tool.proc.send_signal(signal.SIGINT)
        self.assertEqual(tool.finish(WAIT_S), 1)  # a target failed
        stderr = tool.stderr()
        self.assertRegex(stderr, rf"(?m)^jdwpx-probe: {re.escape(gone)}: ", stderr)
        for pod in self.pods[1:]:
            self.assertNotIn(f"{pod}:", stderr)
        rest = tool.drain()
        summaries = sorted(line["target"] for line in rest if line["kind"] == "summary")
        self.assertIn(self.pods[1], summaries)
        self.assertIn(self.pods[2], summaries)


if __name__ == "__main__":
    cfg = harness.parse_args()
    if cfg.agent != "ours" or cfg.jdk_version != 17:
        pm.skip("the manifest loads jdwpx into the image's JDK 17")
    ENV, IMAGE = pm.image_or_skip(cfg.build_dir)
    harness.main()
