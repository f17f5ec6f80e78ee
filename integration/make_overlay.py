#!/usr/bin/env python3
"""Builds a JDK "overlay": a JDK home whose lib/libjdwp.so is our agent.

Tools that start a debuggee by JDK home (JDI's launching connector, IDEs) load
`-agentlib:jdwp` from <home>/lib, so an overlay lets them run our agent without
touching the installed JDK.

Both the launcher and libjvm.so compute java.home from their own realpath, so
bin/* and lib/libjli.so and lib/server/libjvm.so are copied; everything else is
a symlink into the real JDK, and lib/libjdwp.so is a symlink to our library (a
rebuilt agent is picked up without rebuilding the overlay).

    make_overlay.py <jdk-home> <libjdwpx.so> <overlay-dir>
    make_overlay(jdk_home, agent_lib, overlay_dir) -> overlay_dir

Safe to call from tests running in parallel: the overlay is built in a
temporary directory and renamed into place; an existing complete one is reused.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile

# Files whose realpath decides java.home; they must live inside the overlay.
_COPIED = {os.path.join("lib", "libjli.so"), os.path.join("lib", "server", "libjvm.so")}
_MARKER = ".jdwpx-overlay"


def _populate(jdk_home: str, agent_lib: str, target: str):
    for root, dirs, files in os.walk(jdk_home):
        rel_root = os.path.relpath(root, jdk_home)
        rel_root = "" if rel_root == "." else rel_root
        # Descend only where something must be copied or replaced; every other
        # directory is linked whole.
        keep = []
        for d in dirs:
            rel = os.path.join(rel_root, d)
            if rel in ("bin", "lib", os.path.join("lib", "server")):
                os.makedirs(os.path.join(target, rel), exist_ok=True)
                keep.append(d)
            else:
                os.symlink(os.path.join(root, d), os.path.join(target, rel))
        dirs[:] = keep
        for name in files:
            rel = os.path.join(rel_root, name)
            src = os.path.join(root, name)
            dst = os.path.join(target, rel)
            if rel == os.path.join("lib", "libjdwp.so"):
                os.symlink(agent_lib, dst)
            elif rel_root == "bin" or rel in _COPIED:
                shutil.copy2(os.path.realpath(src), dst)
            else:
                os.symlink(src, dst)
    with open(os.path.join(target, _MARKER), "w", encoding="utf-8") as f:
        f.write(f"{jdk_home}\n{agent_lib}\n")


def _is_current(overlay_dir: str, jdk_home: str, agent_lib: str) -> bool:
    try:
        with open(os.path.join(overlay_dir, _MARKER), encoding="utf-8") as f:
            return f.read() == f"{jdk_home}\n{agent_lib}\n"
    except OSError:
        return False


def make_overlay(jdk_home: str, agent_lib: str, overlay_dir: str) -> str:
    jdk_home = os.path.realpath(jdk_home)
    agent_lib = os.path.abspath(agent_lib)
    overlay_dir = os.path.abspath(overlay_dir)
    if _is_current(overlay_dir, jdk_home, agent_lib):
        return overlay_dir
    parent = os.path.dirname(overlay_dir)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".overlay-", dir=parent)
    try:
        _populate(jdk_home, agent_lib, staging)
        if os.path.exists(overlay_dir):
            # Stale (other JDK or library): move it aside, then replace.
            trash = tempfile.mkdtemp(prefix=".overlay-old-", dir=parent)
            try:
                os.rename(overlay_dir, os.path.join(trash, "old"))
            except OSError:
                pass  # another process replaced it first
            shutil.rmtree(trash, ignore_errors=True)
        try:
            os.rename(staging, overlay_dir)
        except OSError:
            # Lost a race with a parallel test that built the same overlay.
            if not _is_current(overlay_dir, jdk_home, agent_lib):
                raise
    finally:
        if os.path.exists(staging):
            shutil.rmtree(staging, ignore_errors=True)
    return overlay_dir


def java_home_of(java: str) -> str:
    """java.home as the given launcher reports it."""
    out = subprocess.run([java, "-XshowSettings:properties", "-version"],
                         capture_output=True, text=True, timeout=60).stderr
    for line in out.splitlines():
        line = line.strip()
        if line.startswith("java.home = "):
            return line[len("java.home = "):]
    raise RuntimeError(f"no java.home in output of {java}:\n{out}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: make_overlay.py <jdk-home> <libjdwpx.so> <overlay-dir>")
    home = make_overlay(sys.argv[1], sys.argv[2], sys.argv[3])
    reported = java_home_of(os.path.join(home, "bin", "java"))
    print(f"overlay {home} (java.home = {reported})")
    sys.exit(0 if os.path.realpath(reported) == os.path.realpath(home) else 1)
