"""Podman for the container tests (rootful, Debian's packages; no registry needed).

    env = podman_env(build_dir)          -> os.environ + CONTAINERS_CONF (this machine's limits)
    require_podman(env)                  raises Unavailable when containers cannot run here
    image = ensure_image(build_dir, env) -> tag of the jdwpx image, built from the Dockerfile
    Container(env, args)                 `podman run --rm --name <unique> <args>` in the
                                         foreground, output read as it comes (harness);
                                         leaving the with-block removes the container
    podman(env, *args) -> CompletedProcess (check=True)

The image is built with `podman build --pull=never` from the repository's Dockerfile,
FROM docker.io/library/debian:bookworm-slim, made locally by scripts/make-base-image.sh
(debootstrap, then podman import) when podman does not have it. To keep the tests'
time small it takes the agent and the tools already built here (JDWPX_PREBUILT, see the
Dockerfile) instead of compiling them again; layers are cached by podman, the
bookworm root's tarball under <build>/containers/.
"""

from __future__ import annotations

import fcntl
import os
import resource
import shutil
import subprocess
import sys
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import harness  # noqa: E402

IMAGE = "localhost/jdwpx:test"
BASE_IMAGE = "docker.io/library/debian:bookworm-slim"
SKIP_EXIT = 77  # ctest SKIP_RETURN_CODE


class Unavailable(Exception):
    """Containers cannot run on this machine (the tests skip, never fail, for it)."""


def skip(reason: str):
    print(f"SKIPPED: {reason}", flush=True)
    sys.exit(SKIP_EXIT)


def image_or_skip(build_dir: str) -> tuple:
    """-> (podman environment, the jdwpx image), made if need be; or skips the test script."""
    try:
        env = podman_env(build_dir)
        require_podman(env)
        return env, ensure_image(build_dir, env)
    except Unavailable as e:
        skip(str(e))


def _state_dir(build_dir: str) -> str:
    path = os.path.join(build_dir or "/tmp", "containers")
    os.makedirs(path, exist_ok=True)
    return path


def podman_env(build_dir: str) -> dict:
    """crun refuses a mixed cgroup v1/v2 host and podman's default ulimits for root
    exceed what this shell may set: runc, and limits within the shell's own."""
    hard_nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    nofile = 1048576 if hard_nofile == resource.RLIM_INFINITY else min(hard_nofile, 1048576)
    conf = os.path.join(_state_dir(build_dir), "containers.conf")
    text = ("[containers]\n"
            f'default_ulimits = ["nofile={nofile}:{nofile}", "nproc=4096:4096"]\n'
            "[engine]\n"
            'runtime = "runc"\n'
            'cgroup_manager = "cgroupfs"\n'
            'events_logger = "file"\n'
            "[network]\n"
            'network_backend = "netavark"\n')
    tmp = f"{conf}.{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(tmp, conf)
    env = dict(os.environ)
    env["CONTAINERS_CONF"] = conf
    return env


def podman(env, *args, check=True, timeout=600, capture=True) -> subprocess.CompletedProcess:
    proc = subprocess.run(["podman", *args], env=env, text=True, timeout=timeout,
                          stdout=subprocess.PIPE if capture else None,
                          stderr=subprocess.PIPE if capture else None,
                          stdin=subprocess.DEVNULL)
    if check and proc.returncode != 0:
        raise AssertionError(f"podman {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return proc


def require_podman(env):
    if os.geteuid() != 0:
        raise Unavailable("the container tests need root (rootful podman)")
    for tool in ("podman", "runc"):
        if shutil.which(tool) is None:
            raise Unavailable(f"{tool} is not installed (scripts/setup.sh installs it)")
    info = podman(env, "info", "--format", "{{.Host.OCIRuntime.Name}}", check=False, timeout=60)
    if info.returncode != 0:
        raise Unavailable(f"podman cannot run here: {info.stderr.strip().splitlines()[-1:]}")


class _Lock:
    """One builder at a time across the tests ctest runs in parallel."""

    def __init__(self, build_dir: str, name: str):
        self._path = os.path.join(_state_dir(build_dir), f".{name}.lock")

    def __enter__(self):
        self._f = open(self._path, "w")
        fcntl.flock(self._f, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        fcntl.flock(self._f, fcntl.LOCK_UN)
        self._f.close()
        return False


def ensure_base_image(build_dir: str, env):
    if podman(env, "image", "exists", BASE_IMAGE, check=False).returncode == 0:
        return
    if shutil.which("debootstrap") is None:
        raise Unavailable(f"no {BASE_IMAGE} image and no debootstrap to make it (scripts/setup.sh installs it)")
    proc = subprocess.run([os.path.join(REPO, "scripts", "make-base-image.sh"), _state_dir(build_dir)],
                          env=env, text=True, capture_output=True, timeout=900)
    if proc.returncode != 0:
        # debootstrap needs Debian's archive: without it there is nothing to test with.
        raise Unavailable(f"cannot make {BASE_IMAGE} (no network to Debian's archive?): "
                          f"{(proc.stderr or proc.stdout).strip()[-600:]}")


def _stage_context(build_dir: str) -> str:
    """The build context for JDWPX_PREBUILT: the stripped agent and tools, and the script
    the runtime stage installs with."""
    lib = os.path.join(build_dir, "backend", "libjdwpx.so")
    if not os.path.isfile(lib):
        raise AssertionError(f"{lib} is not built")
    ctx = os.path.join(_state_dir(build_dir), "context")
    shutil.rmtree(ctx, ignore_errors=True)
    os.makedirs(os.path.join(ctx, "prebuilt"))
    os.makedirs(os.path.join(ctx, "scripts"))
    subprocess.run(["strip", "--strip-unneeded", "-o", os.path.join(ctx, "prebuilt", "libjdwpx.so"), lib], check=True)
    tools = os.path.join(build_dir, "tools")
    for name in sorted(os.listdir(tools)) if os.path.isdir(tools) else []:
        path = os.path.join(tools, name)
        if name.startswith("jdwpx-") and os.path.isfile(path) and os.access(path, os.X_OK):
            subprocess.run(["strip", "-o", os.path.join(ctx, "prebuilt", name), path], check=True)
    shutil.copy2(os.path.join(REPO, "scripts", "install-into-jdk.sh"), os.path.join(ctx, "scripts"))
    return ctx


def ensure_image(build_dir: str, env) -> str:
    """Builds (podman's layer cache makes a rebuild with the same inputs take seconds)
    the jdwpx image from the Dockerfile, once per test process."""
    with _Lock(build_dir, "image"):
        ensure_base_image(build_dir, env)
        ctx = _stage_context(build_dir)
        proc = podman(env, "build", "--pull=never", "-f", os.path.join(REPO, "Dockerfile"),
                      "--build-arg", "JDWPX_PREBUILT=prebuilt", "-t", IMAGE, ctx, check=False, timeout=900)
        if proc.returncode != 0:
            log = (proc.stdout + proc.stderr)
            if "Temporary failure resolving" in log or "Could not resolve" in log or "Failed to fetch" in log:
                raise Unavailable(f"the image's JDK cannot be installed (no network to Debian's archive):\n{log[-800:]}")
            raise AssertionError(f"podman build failed ({proc.returncode}):\n{log[-4000:]}")
    return IMAGE


class Container(harness._Process):
    """`podman run --rm` in the foreground: its output is the container's log."""

    def __init__(self, env, args, name=None):
        self.env = env
        self.name = name or f"jdwpx-test-{uuid.uuid4().hex[:10]}"
        super().__init__(["podman", "run", "--rm", "--name", self.name, *args], env=env)

    def wait_for_output(self, regex, timeout: float = 60, stream: str = "stdout"):
        reader = self._out if stream == "stdout" else self._err
        m = reader.wait_for(regex, 0, timeout)
        if m is None:
            raise AssertionError(f"container {self.name} did not print {regex!r} on {stream} within {timeout}s "
                                 f"(rc={self.returncode})\n--- stdout:\n{self.stdout}\n--- stderr:\n{self.stderr}")
        return m

    def host_port(self, container_port: int) -> int:
        out = podman(self.env, "port", self.name, f"{container_port}/tcp").stdout.strip()
        return int(out.rsplit(":", 1)[1])

    def remove(self):
        podman(self.env, "rm", "--force", "--time", "0", "--ignore", self.name, check=False, timeout=60)

    def __exit__(self, *exc):
        self.remove()
        return super().__exit__(*exc)
