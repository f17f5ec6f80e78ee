"""deploy/kubernetes/pod.yaml as the container tests run it with `podman kube play`
(test_kubernetes.py, test_probe_pods.py)."""

import os

from session import FIXTURE

MANIFEST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy", "kubernetes", "pod.yaml")


def pod_for_test(manifest: str, name: str, image: str, classes_dir: str, label: str = "app") -> str:
    """The shipped pod with this build's images, the fixture as the application, the label
    app=<label> and the emptyDir named volume_name(name). Plain text edits (the standard
    library reads no YAML), each of a line that must be in the file as many times as said:
    a changed manifest fails here, by name."""
    volume = volume_name(name)
    edits = [
        # (the shipped line, what the test puts instead, how many times it is there)
        ("  name: app\n", f"  name: {name}\n", 1),
        ("    app: app\n", f"    app: {label}\n", 1),
        ("spec:\n", "spec:\n  restartPolicy: Never\n", 1),
        ("  volumes:\n", "  volumes:\n    - name: classes\n"
                         f"      hostPath: {{path: {classes_dir}, type: Directory}}\n", 1),
        ("    - name: jdwpx\n      emptyDir:\n", f"    - name: {volume}\n      emptyDir:\n", 1),
        ("        - name: jdwpx\n          mountPath: /jdwpx\n", f"        - name: {volume}\n          mountPath: /jdwpx\n", 2),
        ("      image: registry.example.com/jdwpx:latest\n", f"      image: {image}\n", 1),
        ("      image: registry.example.com/myapp:latest\n", f"      image: {image}\n", 1),
        ("      command: [java, -jar, /app/app.jar]\n", f"      command: [java, -cp, /classes, {FIXTURE}]\n", 1),
        ("      env:\n", "      env:\n        - name: KUBERNETES_SERVICE_HOST\n          value: 10.96.0.1\n", 1),
        ("          readOnly: true\n", "          readOnly: true\n        - name: classes\n"
                                       "          mountPath: /classes\n          readOnly: true\n", 1),
    ]
    text = manifest
    for line, replacement, expected in edits:
        count = manifest.count(line)
        if count != expected:
            raise AssertionError(f"{MANIFEST}: {line!r} occurs {count} times, the test expects it {expected} times")
        text = text.replace(line, replacement)
    return text


def volume_name(pod: str) -> str:
    """The pod's emptyDir. podman 4.3's kube play makes an emptyDir a named volume, shared by
    every pod that names it (Kubernetes gives each pod its own): a second pod's init
    container would then copy the agent over the file a first pod's JVM has mapped, and
    crash it. So each pod names its own, and the test removes it with the pod."""
    return f"{pod}-jdwpx"
