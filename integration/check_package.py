#!/usr/bin/env python3
"""The Debian package (cmake/package.cmake): cpack makes it from the build tree into a
temporary directory; its files, control fields and maintainer scripts are checked, the
extracted tools run, and lintian reports no error. The maintainer scripts are checked to be
packaging/debian's; test_user_story.py runs them.

  check_package.py --build-dir <build> --cpack <cpack>

Exits 77 (skipped) when a packaging tool is missing: dpkg-deb, dpkg-shlibdeps (dpkg-dev)
or file before anything is built, lintian after every other check has passed.
"""

import argparse
import gzip
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77
PACKAGING = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "packaging", "debian")
AGENT = "usr/lib/jdwpx/libjdwpx.so"
EXPECTED_FILES = {
    AGENT,
    "usr/bin/jdwpx-trace",
    "usr/bin/jdwpx-bridge",
    "usr/bin/jdwpx-probe",
    "usr/bin/jdwpx-install-into-jdk",
    "usr/share/man/man1/jdwpx-trace.1.gz",
    "usr/share/man/man1/jdwpx-bridge.1.gz",
    "usr/share/man/man1/jdwpx-probe.1.gz",
    "usr/share/man/man1/jdwpx-install-into-jdk.1.gz",
    "usr/share/doc/jdwpx/copyright",
    "usr/share/doc/jdwpx/changelog.gz",
}
AGENT_MAX_BYTES = 10 * 1024 * 1024


def run(*args, **kwargs):
    return subprocess.run(args, capture_output=True, text=True, timeout=120, **kwargs)


def check(condition, message):
    if not condition:
        print(f"FAIL: {message}")
        sys.exit(1)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--build-dir", required=True)
    parser.add_argument("--cpack", default="cpack")
    args = parser.parse_args()

    missing = [tool for tool in ("dpkg-deb", "dpkg-shlibdeps", "file") if not shutil.which(tool)]
    if missing:
        print(f"SKIP: no {', '.join(missing)} (apt-get install dpkg-dev file): cannot build the package")
        return SKIP

    with tempfile.TemporaryDirectory(prefix="jdwpx-package-") as tmp:
        made = run(args.cpack, "--config", os.path.join(args.build_dir, "CPackConfig.cmake"),
                   "-G", "DEB", "-B", tmp)
        check(made.returncode == 0, f"cpack failed:\n{made.stdout}{made.stderr}")
        debs = [name for name in os.listdir(tmp) if name.endswith(".deb")]
        check(len(debs) == 1, f"one .deb expected in {tmp}, found {debs}")
        deb = os.path.join(tmp, debs[0])
        print(f"built {debs[0]}, {os.path.getsize(deb)} bytes")

        fields = {}
        for field in ("Package", "Version", "Architecture", "Section", "Maintainer", "Depends"):
            fields[field] = run("dpkg-deb", "-f", deb, field).stdout.strip()
        print("\n".join(f"{k}: {v}" for k, v in fields.items()))
        check(debs[0] == f"jdwpx_{fields['Version']}_{fields['Architecture']}.deb",
              f"file name {debs[0]} is not jdwpx_<Version>_<Architecture>.deb")
        check(fields["Package"] == "jdwpx" and fields["Section"] == "devel" and fields["Maintainer"],
              "Package jdwpx, Section devel and a Maintainer expected")
        # dpkg-shlibdeps computed it from the binaries: at least glibc, with a version.
        check("libc6 (>= " in fields["Depends"], f"Depends not computed by dpkg-shlibdeps: {fields['Depends']!r}")

        listing = run("dpkg-deb", "-c", deb).stdout.splitlines()
        files = {line.split()[-1].removeprefix("./") for line in listing if not line.startswith("d")}
        check(files == EXPECTED_FILES,
              f"package files differ: missing {sorted(EXPECTED_FILES - files)}, unexpected {sorted(files - EXPECTED_FILES)}")

        # The maintainer scripts are packaging/debian's, executable; nothing else runs at
        # install time (no ldconfig: the agent's directory is private). What they do is
        # tested in Debian 12 by integration/containers/test_user_story.py.
        control = os.path.join(tmp, "control")
        check(run("dpkg-deb", "-e", deb, control).returncode == 0, "dpkg-deb -e failed")
        scripts = sorted(name for name in os.listdir(control) if name not in ("control", "md5sums"))
        check(scripts == ["postinst", "postrm", "prerm"], f"maintainer scripts: {scripts}")
        for script in scripts:
            path = os.path.join(control, script)
            with open(path, encoding="utf-8") as shipped, \
                    open(os.path.join(PACKAGING, script), encoding="utf-8") as source:
                check(shipped.read() == source.read(), f"{script} differs from packaging/debian/{script}")
            check(os.stat(path).st_mode & 0o777 == 0o755, f"{script} is not mode 0755")
            check(run("sh", "-n", path).returncode == 0, f"{script} is not valid sh")

        root = os.path.join(tmp, "root")
        check(run("dpkg-deb", "-x", deb, root).returncode == 0, "dpkg-deb -x failed")
        agent = os.path.join(root, AGENT)
        kind = run("file", "-b", agent).stdout
        check("shared object" in kind and ", stripped" in kind, f"agent not a stripped shared object: {kind}")
        check(os.path.getsize(agent) < AGENT_MAX_BYTES, f"agent is {os.path.getsize(agent)} bytes")
        if shutil.which("readelf"):
            symbols = run("readelf", "--dyn-syms", "-W", agent).stdout
            check(all(name in symbols for name in ("Agent_OnLoad", "Agent_OnAttach", "Agent_OnUnload")),
                  "the stripped agent lost its Agent_* entry points")
        for tool in ("jdwpx-trace", "jdwpx-bridge", "jdwpx-probe"):
            kind = run("file", "-b", os.path.join(root, "usr/bin", tool)).stdout
            check(", stripped" in kind, f"{tool} not stripped: {kind}")
        for page in (f for f in EXPECTED_FILES if f.endswith(".1.gz")):
            with gzip.open(os.path.join(root, page), "rt", encoding="utf-8") as f:
                text = f.read()
            check(text.startswith(".TH ") and ".SH SYNOPSIS" in text, f"{page} is not a man page")

        # The extracted tools run (usage: exit 0 with --help, 2 without a command).
        bridge = run(os.path.join(root, "usr/bin/jdwpx-bridge"), "--help")
        check(bridge.returncode == 0 and bridge.stdout.startswith("usage: jdwpx-bridge"),
              f"jdwpx-bridge --help: {bridge.returncode} {bridge.stdout}{bridge.stderr}")
        probe = run(os.path.join(root, "usr/bin/jdwpx-probe"), "--help")
        check(probe.returncode == 0 and probe.stdout.startswith("usage: jdwpx-probe"),
              f"jdwpx-probe --help: {probe.returncode} {probe.stdout}{probe.stderr}")
        trace = run(os.path.join(root, "usr/bin/jdwpx-trace"))
        check(trace.returncode == 2 and trace.stderr.startswith("usage: jdwpx-trace"),
              f"jdwpx-trace: {trace.returncode} {trace.stdout}{trace.stderr}")
        script = run(os.path.join(root, "usr/bin/jdwpx-install-into-jdk"))
        check(script.returncode == 2 and "usage:" in script.stderr,
              f"jdwpx-install-into-jdk: {script.returncode} {script.stderr}")
        listed = run(os.path.join(root, "usr/bin/jdwpx-install-into-jdk"), "--list",
                     env=dict(os.environ, JDWPX_STATE_DIR=os.path.join(tmp, "no-state")))
        check(listed.returncode == 0, f"jdwpx-install-into-jdk --list: {listed.returncode} {listed.stderr}")

        if not shutil.which("lintian"):
            print("SKIP: every check passed but lintian's: lintian is not installed (apt-get install lintian)")
            return SKIP
        lint = run("lintian", "--no-cfg", deb)
        output = (lint.stdout + lint.stderr).strip()
        print("lintian:\n" + (output or "(nothing)"))
        errors = [line for line in output.splitlines() if line.startswith("E:")]
        check(not errors, f"lintian reports errors: {errors}")
        check(lint.returncode == 0, f"lintian exited {lint.returncode}")
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
