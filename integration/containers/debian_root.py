"""A Debian root (make_debian_root.sh) as test_install_into_jdk.py and test_user_story.py
use it: behind an overlay of each test's own, and what they read in it (the package that
owns the JDK's agent and its .deb, file sums, diversions)."""

import os
import shutil
import subprocess
import tempfile

SHARED = "/jdwpx"  # the test's files, bind-mounted into the root; the .deb cache at SHARED/debs


class OverlayRoot:
    """`root` behind an overlay, mounted once in a private mount namespace that a holder
    process keeps; every command enters it (nsenter) and chroots, so several (a JVM and
    jdb) run in it at once. The root itself never changes; close() ends the holder, and
    the mounts with it. `shared` is seen at SHARED, `debs` at SHARED/debs."""

    def __init__(self, root, state_dir, shared, debs, prefix):
        self.dir = tempfile.mkdtemp(prefix=prefix, dir=state_dir)
        for d in ("upper", "work", "merged"):
            os.mkdir(os.path.join(self.dir, d))
        os.mkdir(os.path.join(self.dir, "upper", SHARED.lstrip("/")))
        self.merged = os.path.join(self.dir, "merged")
        mounts = ('mount -t overlay overlay -o "lowerdir=$1,upperdir=$2/upper,workdir=$2/work" "$2/merged" && '
                  'mount -t proc proc "$2/merged/proc" && '
                  f'mount --bind "$3" "$2/merged{SHARED}" && '
                  f'mount --bind "$4" "$2/merged{SHARED}/debs" && '
                  'echo "ready $$" && exec cat')
        self.holder = subprocess.Popen(
            ["unshare", "--mount", "--fork", "--kill-child", "--", "sh", "-c", mounts, "sh",
             root, self.dir, shared, debs],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.holder.stdout.readline()
        if not line.startswith("ready "):
            self.holder.kill()
            raise AssertionError(f"the root's mounts failed: {line}{self.holder.stderr.read()}")
        self.pid = line.split()[1]

    def argv(self, *command):
        return ["nsenter", f"--target={self.pid}", "--mount", "--", "chroot", self.merged, *command]

    def run(self, *command, user=None, check=True, timeout=300):
        """Runs command in the root (as root, or as uid:gid `user`); returns the CompletedProcess."""
        if user is not None:
            command = ("setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", *command)
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8", "DEBIAN_FRONTEND": "noninteractive"}
        proc = subprocess.run(self.argv(*command), capture_output=True, text=True, timeout=timeout, env=env)
        if check and proc.returncode != 0:
            raise AssertionError(f"{' '.join(command)}: exit {proc.returncode}\n"
                                 f"--- stdout:\n{proc.stdout}--- stderr:\n{proc.stderr}")
        return proc

    def out(self, *command):
        return self.run(*command).stdout

    def exists(self, path):
        return self.run("test", "-e", path, check=False).returncode == 0

    def close(self):
        self.holder.stdin.close()
        try:
            self.holder.wait(30)
        except subprocess.TimeoutExpired:
            self.holder.kill()
            self.holder.wait(30)
        self.holder.stdout.close()
        self.holder.stderr.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def jdk_package(root, lib, debs_dir, debs_in_root):
    """(package, md5 of lib as the package ships it, .deb file name) for the package that
    owns lib in root (an object with out() and run(..., check=False) that run in the root).
    The .deb, of the very version installed, is fetched once with apt-get download into
    debs_dir (seen as debs_in_root in the root) and kept for later runs. Returns the reason
    as a string instead when it cannot be fetched."""
    package = root.out("dpkg-query", "-S", lib).split(":")[0]  # openjdk-17-jre-headless
    version = root.out("dpkg-query", "-W", "-f", "${Version}", package)
    sums = root.out("dpkg-query", "--control-path", package, "md5sums").strip()
    stock_md5 = next(line.split()[0] for line in root.out("cat", sums).splitlines()
                     if line.split()[1] == lib.lstrip("/"))
    deb = f"{package}_{version.replace(':', '%3a')}_amd64.deb"
    if not os.path.exists(os.path.join(debs_dir, deb)):
        got = root.run("sh", "-c", f'cd "$1" && apt-get download -q -o APT::Sandbox::User=root "$2={version}"',
                       "sh", debs_in_root, package, check=False)
        if got.returncode != 0 or not os.path.exists(os.path.join(debs_dir, deb)):
            return f"{package} {version}'s .deb cannot be fetched from Debian's archive:\n{got.stderr[-800:]}"
    return package, stock_md5, deb


def file_sums(root, *paths):
    """{path: md5} of the files that exist among paths in root."""
    out = root.run("sh", "-c", 'for f; do [ -e "$f" ] && md5sum "$f"; done; true', "sh", *paths).stdout
    return {path: digest for digest, path in (line.split() for line in out.splitlines())}


def agent_diversions(root):
    """dpkg's diversions of a libjdwp.so in root, as dpkg-divert --list prints them."""
    return [line for line in root.out("dpkg-divert", "--list").splitlines() if "libjdwp" in line]
