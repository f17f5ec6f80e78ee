#!/usr/bin/env python3
"""A scripted jdb session against JdbFixture, printed as a transcript (scripts/demo.sh).

    demo_jdb.py --agent ours --agent-lib build/backend/libjdwpx.so --jdk JAVA_HOME --build-dir build
"""

import sys

import harness


def main() -> int:
    cfg = harness.parse_args()
    bp = harness.fixture_line("JdbFixture.java", "// @bp-main")
    loop = harness.fixture_line("JdbFixture.java", "// @bp-loop")
    print(f"demo: JdbFixture under the {cfg.agent} agent "
          f"({harness.agent_arg(cfg, harness.DEFAULT_SERVER_OPTIONS)}), jdk{cfg.jdk_version}\n", flush=True)
    jdb = None
    with harness.Debuggee(cfg, "JdbFixture") as debuggee:
        ok = True
        try:
            jdb = harness.Jdb(cfg, debuggee.port, args=["-sourcepath", harness.FIXTURES_SRC])
            jdb.expect(r"VM Started")
            jdb.expect_prompt()
            # (command, what to wait for after it: None = the next prompt)
            script = [
                (f"stop at JdbFixture:{bp}", None),
                ("stop in JdbFixture.leaf", None),
                ("run", r"Breakpoint hit"),
                ("where", None), ("locals", None), ("print i", None), ("print str", None),
                ("print p", None), ("dump p", None), ("dump ints", None),
                ("print JdbFixture.staticCounter", None), ("threads", None),
                ("cont", r"Breakpoint hit"),
                ("where", None), ("step", r"Step completed"), ("step up", r"Step completed"),
                ("next", r"Step completed"), ("print r", None),
                ("clear JdbFixture.leaf", None),
                (f"stop at JdbFixture:{loop}", None),
                ("cont", r"Breakpoint hit"), ("print k", None),
                ("cont", r"Breakpoint hit"), ("print k", None),
                (f"clear JdbFixture:{loop}", None),
                ("cont", r"The application exited"),
            ]
            for command, wait_for in script:
                if wait_for is None:
                    jdb.command(command)
                else:
                    jdb.send(command)
                    jdb.expect(wait_for, timeout=30)
                    if wait_for != r"The application exited":
                        jdb.expect_prompt()
            jdb.wait(30)
            debuggee.wait(30)
        except AssertionError as failure:
            ok = False
            print(f"demo: FAILED: {str(failure).splitlines()[0]}")
        if jdb is not None:
            jdb.kill()
            print(jdb.transcript)
        print("--- debuggee output:")
        print(debuggee.stdout + debuggee.stderr)
    print("demo: ok" if ok else "demo: failed")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
