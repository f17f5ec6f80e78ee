"""The Debian package that owns a root's JDK agent, and its .deb (for reinstalls that dpkg
treats as upgrades), shared by test_install_into_jdk.py and test_user_story.py."""

import os


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
