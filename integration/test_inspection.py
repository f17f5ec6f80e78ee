#!/usr/bin/env python3
"""Every read-only JDWP command through two JDI implementations.

The scenarios are written once against com.sun.jdi (jdi/InspectScenarios.java)
and run by the JDK's JDI and by Eclipse's (eclipse/InspectEclipse.java), each
attached with its socket attaching connector to its own InspectFixture debuggee
(server=y, suspend=y, address=0) stopped at @bp-inspect. Each scenario is a
subtest named <client>:<scenario>; its failure message names the JDWP command.

The driver relays JDWP through itself and reports which commands each scenario
sent; test_every_read_command_is_sent checks that the two clients together put
every read command on the wire, and prints the command -> scenario table that
docs/inspection-coverage.md is made from.
"""

from __future__ import annotations

import functools
import os
import re
import unittest

import harness

ECLIPSE_JARS = harness.ECLIPSE_JARS

# (set number, set name, "Command=number ..."): the spec's names (jdwp-layouts.md, Totals).
COMMAND_SETS = (
    (1, "VirtualMachine", "Version=1 ClassesBySignature=2 AllClasses=3 AllThreads=4 TopLevelThreadGroups=5 Dispose=6 "
                          "IDSizes=7 Suspend=8 Resume=9 Exit=10 CreateString=11 Capabilities=12 ClassPaths=13 "
                          "DisposeObjects=14 HoldEvents=15 ReleaseEvents=16 CapabilitiesNew=17 RedefineClasses=18 "
                          "SetDefaultStratum=19 AllClassesWithGeneric=20 InstanceCounts=21 AllModules=22"),
    (2, "ReferenceType", "Signature=1 ClassLoader=2 Modifiers=3 Fields=4 Methods=5 GetValues=6 SourceFile=7 "
                         "NestedTypes=8 Status=9 Interfaces=10 ClassObject=11 SourceDebugExtension=12 "
                         "SignatureWithGeneric=13 FieldsWithGeneric=14 MethodsWithGeneric=15 Instances=16 "
                         "ClassFileVersion=17 ConstantPool=18 Module=19"),
    (3, "ClassType", "Superclass=1 SetValues=2 InvokeMethod=3 NewInstance=4"),
    (4, "ArrayType", "NewInstance=1"),
    (5, "InterfaceType", "InvokeMethod=1"),
    (6, "Method", "LineTable=1 VariableTable=2 Bytecodes=3 IsObsolete=4 VariableTableWithGeneric=5"),
    (9, "ObjectReference", "ReferenceType=1 GetValues=2 SetValues=3 MonitorInfo=5 InvokeMethod=6 DisableCollection=7 "
                           "EnableCollection=8 IsCollected=9 ReferringObjects=10"),
    (10, "StringReference", "Value=1"),
    (11, "ThreadReference", "Name=1 Suspend=2 Resume=3 Status=4 ThreadGroup=5 Frames=6 FrameCount=7 OwnedMonitors=8 "
                            "CurrentContendedMonitor=9 Stop=10 Interrupt=11 SuspendCount=12 "
                            "OwnedMonitorsStackDepthInfo=13 ForceEarlyReturn=14 IsVirtual=15"),
    (12, "ThreadGroupReference", "Name=1 Parent=2 Children=3"),
    (13, "ArrayReference", "Length=1 GetValues=2 SetValues=3"),
    (14, "ClassLoaderReference", "VisibleClasses=1"),
    (15, "EventRequest", "Set=1 Clear=2 ClearAllBreakpoints=3"),
    (16, "StackFrame", "GetValues=1 SetValues=2 ThisObject=3 PopFrames=4"),
    (17, "ClassObjectReference", "ReflectedType=1"),
    (18, "ModuleReference", "Name=1 ClassLoader=2"),
)
COMMAND_NAMES = {f"{number}/{cmd.split('=')[1]}": f"{name}.{cmd.split('=')[0]}"
                 for number, name, cmds in COMMAND_SETS for cmd in cmds.split()}

# The read-only commands this suite must put on the wire (IsVirtual: JDK 21+ only).
READ_COMMANDS = (
    "VirtualMachine.Version VirtualMachine.ClassesBySignature VirtualMachine.AllClasses VirtualMachine.AllThreads "
    "VirtualMachine.TopLevelThreadGroups VirtualMachine.IDSizes VirtualMachine.Capabilities VirtualMachine.ClassPaths "
    "VirtualMachine.CapabilitiesNew VirtualMachine.AllClassesWithGeneric VirtualMachine.InstanceCounts "
    "VirtualMachine.AllModules "
    + " ".join(f"ReferenceType.{c.split('=')[0]}" for c in COMMAND_SETS[1][2].split()) + " "
    "ClassType.Superclass "
    "Method.LineTable Method.VariableTable Method.Bytecodes Method.IsObsolete Method.VariableTableWithGeneric "
    "ObjectReference.ReferenceType ObjectReference.GetValues ObjectReference.MonitorInfo "
    "ObjectReference.DisableCollection ObjectReference.EnableCollection ObjectReference.IsCollected "
    "ObjectReference.ReferringObjects StringReference.Value "
    "ThreadReference.Name ThreadReference.Status ThreadReference.ThreadGroup ThreadReference.Frames "
    "ThreadReference.FrameCount ThreadReference.OwnedMonitors ThreadReference.CurrentContendedMonitor "
    "ThreadReference.SuspendCount ThreadReference.OwnedMonitorsStackDepthInfo ThreadReference.IsVirtual "
    "ThreadGroupReference.Name ThreadGroupReference.Parent ThreadGroupReference.Children "
    "ArrayReference.Length ArrayReference.GetValues ClassLoaderReference.VisibleClasses "
    "StackFrame.GetValues StackFrame.ThisObject ClassObjectReference.ReflectedType "
    "ModuleReference.Name ModuleReference.ClassLoader"
).split()

SCENARIO_RE = re.compile(r"(?m)^SCENARIO (\S+) (PASS|FAIL|SKIP)(?: (.*))?$")
COMMANDS_RE = re.compile(r"(?m)^COMMANDS (\S+) (.*)$")
CAPABILITY_RE = re.compile(r"(?m)^CAPABILITY (\w+)=(.*)$")


class ClientRun:
    """One client's run: scenario verdicts, commands per scenario, capabilities, raw output."""

    def __init__(self, client, rc, out, err, debuggee_out, debuggee_err, debuggee_rc):
        self.client = client
        self.rc = rc
        self.debuggee_rc = debuggee_rc
        self.report = (f"--- {client} driver stdout:\n{out}\n--- driver stderr:\n{err}\n"
                       f"--- debuggee stdout:\n{debuggee_out}\n--- debuggee stderr:\n{debuggee_err}")
        self.verdicts = {m.group(1): (m.group(2), m.group(3) or "") for m in SCENARIO_RE.finditer(out)}
        self.commands = {m.group(1): m.group(2).split() for m in COMMANDS_RE.finditer(out)}
        self.capabilities = dict(CAPABILITY_RE.findall(out))
        self.notes = re.findall(r"(?m)^NOTE (.*)$", out)
        self.result_ok = re.search(r"(?m)^RESULT ok$", out) is not None
        self.debuggee_done = "inspect: done" in debuggee_out


def _classpath_for(cfg, client):
    jdi = os.path.join(cfg.build_dir, "integration", "jdi-classes")
    if client == "jdk":
        return [jdi], "InspectScenarios"
    eclipse = os.path.join(cfg.build_dir, "integration", "eclipse-classes")
    return [eclipse, jdi, *ECLIPSE_JARS], "InspectEclipse"


@functools.lru_cache(maxsize=None)
def run_client(client) -> ClientRun:
    cfg = harness.config()
    classpath, main = _classpath_for(cfg, client)
    lines = {key: harness.fixture_line("InspectFixture.java", marker) for key, marker in
             (("bp", "// @bp-inspect"), ("answer", "// @line-answer"), ("generic", "// @line-generic-args"),
              ("call", "// @line-call"))}
    args = [f"{key}={value}" for key, value in lines.items()]
    args += [f"classes={cfg.classes_dir}", f"jdk={cfg.jdk_version}"]
    with harness.Debuggee(cfg, "InspectFixture") as debuggee:
        rc, out, err = harness.run_java(cfg, ["-cp", os.pathsep.join(classpath)], main,
                                        [str(debuggee.port), *args], timeout=180)
        try:
            debuggee_rc = debuggee.wait(30)
        except Exception:  # still running: the report shows why; leaving the block kills it
            debuggee_rc = None
        return ClientRun(client, rc, out, err, debuggee.stdout, debuggee.stderr, debuggee_rc)


class Inspection(unittest.TestCase):
    def setUp(self):
        self.cfg = harness.config()

    def _check_client(self, client):
        classpath, main = _classpath_for(self.cfg, client)
        if client == "eclipse" and not all(os.path.isfile(j) for j in ECLIPSE_JARS):
            self.skipTest(f"Eclipse JDI not installed ({', '.join(ECLIPSE_JARS)})")
        self.assertTrue(os.path.isfile(os.path.join(classpath[0], f"{main}.class")),
                        f"{main} not built in {classpath[0]} (ninja integration)")
        run = run_client(client)
        self.assertTrue(run.result_ok, f"{client}: the driver did not reach the breakpoint or finish\n{run.report}")
        self.assertIn("vm.version", run.verdicts, run.report)
        for scenario, (verdict, detail) in run.verdicts.items():
            with self.subTest(scenario=f"{client}:{scenario}"):
                if verdict == "SKIP":
                    print(f"{client}:{scenario} skipped: {detail}")
                    continue
                self.assertEqual(verdict, "PASS", f"{client}:{scenario}: {detail}")
        self.assertTrue(run.debuggee_done, f"{client}: the debuggee did not run to its end\n{run.report}")
        self.assertEqual(run.debuggee_rc, 0, f"{client}: debuggee exit code\n{run.report}")
        print(f"{client} capabilities: " + " ".join(f"{k}={v}" for k, v in sorted(run.capabilities.items())))
        for note in run.notes:
            print(f"{client}: {note}")
        failed = [s for s, (v, _) in run.verdicts.items() if v == "FAIL"]
        if failed:
            print(f"{client} driver output:\n{run.report}")

    def test_jdk_jdi(self):
        self._check_client("jdk")

    def test_eclipse_jdi(self):
        self._check_client("eclipse")

    def test_every_read_command_is_sent(self):
        clients = ["jdk"] + (["eclipse"] if all(os.path.isfile(j) for j in ECLIPSE_JARS) else [])
        covered = {}  # command name -> ["client:scenario", ...]
        for client in clients:
            for scenario, commands in run_client(client).commands.items():
                for command in commands:
                    covered.setdefault(COMMAND_NAMES.get(command, command), []).append(f"{client}:{scenario}")
        print("command coverage (command: client:scenario ...):")
        for name in READ_COMMANDS:
            print(f"  {name}: {' '.join(covered.get(name, ['-']))}")
        others = sorted(set(covered) - set(READ_COMMANDS))
        print("  also sent: " + " ".join(others))
        expected = [c for c in READ_COMMANDS if c != "ThreadReference.IsVirtual" or self.cfg.jdk_version >= 21]
        missing = [c for c in expected if c not in covered]
        self.assertEqual(missing, [], "read commands no client sent")


if __name__ == "__main__":
    harness.main()
