#!/usr/bin/env python3
"""Per-hit cost of a probe at ProbeTarget's hot line (integration/fixtures/ProbeTarget.java):
`hot N` with a log probe whose condition is false, minus `hot N` without (before and after),
over N. Two figures: wall time, and the debuggee's CPU time (all its threads, from
/proc/PID/task/*/schedstat), which a loaded machine disturbs much less.

   probe_hit_cost.py JDK_HOME AGENT_LIB CLASSES N ROUNDS [--conds 'c1|c2'] [--jvm ARG]...
                     [--perf SECONDS COND]

CLASSES is the build's integration/classes. --perf sets COND, warms up, prints the
debuggee's PID and keeps it hitting for SECONDS (for `perf record -p PID`)."""
import os, re, sys, time, statistics, subprocess
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "integration"))
jdk, lib, classes, n, rounds = sys.argv[1:6]
extra = sys.argv[6:]
perf = None; jvm = []; conds = ["false", "k < 0", "k < 0 && acc < 0"]
i = 0
while i < len(extra):
    if extra[i] == "--perf": perf = (float(extra[i+1]), extra[i+2]); i += 3
    elif extra[i] == "--jvm": jvm.append(extra[i+1]); i += 2
    elif extra[i] == "--conds": conds = extra[i+1].split("|"); i += 2
    else: raise SystemExit("bad arg " + extra[i])
sys.argv = [sys.argv[0], "--agent", "ours", "--agent-lib", lib, "--jdk", jdk, "--classes", classes]
import harness
from test_probes import ProbeConnection, HOT
from jdwp_client import ProbeKind
n, rounds = int(n), int(rounds)
cfg = harness.config()
app = harness.Debuggee(cfg, "ProbeTarget", options="transport=dt_socket,server=y,suspend=n,address=0",
                       jvm_args=jvm, stdin=True)
seen = [0]
def cpu_ns():
    total = 0
    for t in os.listdir(f"/proc/{app.proc.pid}/task"):
        try: total += int(open(f"/proc/{app.proc.pid}/task/{t}/schedstat").read().split()[0])
        except OSError: pass
    return total
def hot_cpu(count):
    c0 = cpu_ns(); w = hot(count); return w, cpu_ns() - c0
def hot(count):
    app.proc.stdin.write(f"hot {count}\n".encode()); app.proc.stdin.flush()
    seen[0] += 1
    ms = list(re.finditer(r"(?m)^hot (\d+) -?\d+$", app._out.text))
    while len(ms) < seen[0]:
        time.sleep(0.02)
        ms = list(re.finditer(r"(?m)^hot (\d+) -?\d+$", app._out.text))
    return int(ms[seen[0]-1].group(1))
try:
    app.wait_for_output(r"(?m)^ready$")
    conn = ProbeConnection(app.port)
    for _ in range(3): hot(n * 20)
    if perf:
        p = conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{HOT}", "{k}", condition=perf[1], budget_ppm=1_000_000)
        t0 = time.time()
        while time.time() - t0 < 4: hot(n // 4)
        print("PID", app.proc.pid, flush=True)
        t0 = time.time(); done = 0
        while time.time() - t0 < perf[0]:
            hot(n); done += n
        print(f"perf window ran {done} hits", flush=True)
        conn.clear(p)
    else:
        for c in conds:
            p = conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{HOT}", "{k}", condition=c, budget_ppm=1_000_000)
            t0 = time.time()
            while time.time() - t0 < 2: hot(n // 4)
            conn.clear(p)
        res = {c: [] for c in conds}
        cres = {c: [] for c in conds}
        base = []
        for r in range(rounds):
            b, bc = hot_cpu(n); base.append(b)
            for c in conds:
                p = conn.set_ok(ProbeKind.LOG, f"ProbeTarget:{HOT}", "{k}", condition=c, budget_ppm=1_000_000)
                hot(min(n, 2000))
                t, tc = hot_cpu(n)
                conn.clear(p)
                b2, bc2 = hot_cpu(n); base.append(b2)
                res[c].append((t - (b + b2) / 2) / n / 1000.0)
                cres[c].append((tc - (bc + bc2) / 2) / n / 1000.0)
                b, bc = b2, bc2
        print(f"jdk={os.path.basename(jdk)} n={n} rounds={rounds} load={os.getloadavg()[0]:.1f} base_ns/iter={statistics.median(base)/n:.1f}")
        for c in conds:
            v = sorted(res[c])
            cv = sorted(cres[c])
            print(f"  {c!r:24} us/hit median {statistics.median(v):6.2f}  range {v[0]:.2f}-{v[-1]:.2f}   cpu us/hit median {statistics.median(cv):6.2f} range {cv[0]:.2f}-{cv[-1]:.2f}")
        info = conn.list()
        if info: print("left:", info)
finally:
    app.__exit__(None, None, None)
    err = app.stderr.strip()
    if err: print("stderr:", err[-2000:])
