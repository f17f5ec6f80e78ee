"""The debugging session every container test runs: jdb stops in ContainerApp.tick and
must see the program's real state.

    debug_session(test, jdb, app)   jdb: harness.Jdb attached (not yet prompted);
                                    app: the debuggee (its output is printed on failure)
"""

import re

import podman as pm

harness = pm.harness
FIXTURE = "ContainerApp"
BP_LINE = harness.fixture_line("ContainerApp.java", "// @bp-tick")


def debug_session(test, jdb, app):
    """stop at, where, print, cont, print, clear, exit; the JVM runs on (suspend=n)."""
    test.addCleanup(jdb.__exit__, None, None, None)
    try:
        jdb.expect_prompt(60)
        start = len(jdb.output)
        out = jdb.command(f"stop at {FIXTURE}:{BP_LINE}")
        test.assertIn(f"Set breakpoint {FIXTURE}:{BP_LINE}", out)
        # The program runs: the hit may come before jdb's command thread prints "Set
        # breakpoint", and jdb's event thread prints "Breakpoint hit: " in one write, the
        # place in another ("Breakpoint hit: Set breakpoint ContainerApp:7\n> "thread=main"...").
        hit = jdb.expect(rf'"thread=main", {FIXTURE}\.tick\(\), line=(\d+)', 30)
        test.assertIn("Breakpoint hit: ", jdb.output[start:hit.start()])
        test.assertEqual(int(hit.group(1)), BP_LINE)
        jdb.expect_prompt()
        where = jdb.command("where")
        test.assertRegex(where, rf"\[1\] {FIXTURE}\.tick \({FIXTURE}\.java:{BP_LINE}\)")
        test.assertRegex(where, rf"\[2\] {FIXTURE}\.main \({FIXTURE}\.java:\d+\)")
        first = int(re.search(r" n = (\d+)", jdb.command("print n")).group(1))
        test.assertGreaterEqual(first, 1)
        jdb.send("cont")
        jdb.expect(rf'Breakpoint hit: "thread=main", {FIXTURE}\.tick\(\), line={BP_LINE}', 30)
        jdb.expect_prompt()
        test.assertIn(f" n = {first + 1}\n", jdb.command("print n"))
        test.assertIn(f" {FIXTURE}.ticks = {first}\n", jdb.command(f"print {FIXTURE}.ticks"))
        jdb.command(f"clear {FIXTURE}:{BP_LINE}")
        jdb.send("cont")
        jdb.send("exit")
        test.assertEqual(jdb.wait(30), 0, jdb.transcript)
    except AssertionError:
        print(f"--- jdb transcript:\n{jdb.transcript}\n--- app stdout:\n{app.stdout}\n--- app stderr:\n{app.stderr}")
        raise
