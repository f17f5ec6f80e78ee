// Probes (issue 30 item 7): logpoints, conditions and snapshots that jdwpx evaluates
// in the hitting thread, against what a user does today with the stock agent: a JDI
// client that stops at a SUSPEND_EVENT_THREAD breakpoint, reads locals, tests or
// formats them, and resumes.
//
// The debuggee is BenchTarget in its "probes" mode: the driver writes phases on its
// stdin ("loop MS [other]", "snap K") and the target times them itself and reports
// each on a BENCH-REPORT line. The probed line is probed(i, label) (BENCH:probe-line),
// called once per iteration of a hot loop; each loop phase ends with one call
// probed(-1, "end"), which a condition `i < 0` lets through and a log line marks, so
// the client knows in-band that a phase's output is all in.
//
// Ours is driven by the raw client (integration/jdi/Jdwp.java) with the vendor Probe
// command set (128), sent only after VirtualMachine.Version has named jdwpx: the
// stock agent aborts the JVM on any command set >= 128. Stock is driven by JDI.
//
// Rows (the --only name "probes" selects them all):
//   probes: condition false   hits/s of the probed line (the debuggee's own count):
//                             ours a probe --if `i < 0` (budget lifted), stock a JDI
//                             breakpoint that reads i, tests it and resumes
//   probes: cost per hit      ours only: ns per iteration with no probe, a probe --if
//                             `false`, a probe --if `i < 0`, and their differences
//   probes: log rate          lines/s the client receives: ours a log probe `{i} {label}`
//                             (budget and rate lifted), stock a JDI logpoint (read both
//                             locals, format, resume)
//   probes: default budget    the loop's throughput loss over 10 s runs: ours with a log
//                             probe at the default budget and rate, stock with a JDI
//                             breakpoint deleted at its first hit (the JVM's own cost of
//                             any breakpoint there), each against the runs without on
//                             either side of it; in 1 s calls and in 10 ms calls
//   probes: other threads     ours only: a second thread's iterations/s while the loop
//                             runs a log probe (budget lifted; default rate, then rate
//                             lifted too, the client reading at its usual priority and
//                             then at nice 19), over without; and its longest gap
//                             between two of its rounds (a few us each): how long it
//                             was ever stopped
//   probes: snapshot pause    ours only: median time of the leaf call of a 20-deep
//                             recursion with a snapshot probe at the leaf, minus without

import com.sun.jdi.IntegerValue;
import com.sun.jdi.LocalVariable;
import com.sun.jdi.Location;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.StringReference;
import com.sun.jdi.Value;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.EventRequest;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

final class ProbeScenarios extends Scenarios {
  /** The last line of jdwpx's VirtualMachine.Version description: only then is set 128 sent. */
  static final String JDWPX_MARK = "jdwpx: probes (command set 128)";
  static final int PROBE_SET = 128;
  static final int KIND_LOG = 1;
  static final int KIND_SNAPSHOT = 2;
  static final int LOG = 100;
  static final int SNAPSHOT = 101;
  static final int NOTICE = 102;
  static final int NOTICE_PAUSED = 2;
  static final int STATE_PAUSED = 3;
  /** rate "lifted": a million lines a second. */
  static final int LIFTED = 1_000_000;
  /** budget_ppm "lifted": the agent's most, 64 cores (a single hot thread can be charged more than one). */
  static final int BUDGET_LIFTED = 64_000_000;
  static final String CONDITION = "i < 0";
  static final String TEMPLATE = "{i} {label}";
  /** The loop's call length in the short-calls budget row. */
  static final long SHORT_CALL_MS = 10;

  ProbeScenarios(Settings settings, Map<String, Integer> lines) {
    super(settings, lines);
  }

  long phaseMs() {
    return settings.quick() ? 1_000 : 3_000;
  }

  long warmMs() {
    return settings.quick() ? 200 : 500;
  }

  long budgetRunMs() {
    return settings.quick() ? 2_000 : 10_000;
  }

  int snapshots() {
    return settings.quick() ? 21 : 51;
  }

  String probeLocation() {
    return Debuggee.TARGET_CLASS + ":" + lines.get("probe-line");
  }

  void runAll(Bench bench) {
    int rounds = settings.rounds();
    bench.runVariants("probes: condition false", rounds, "probes", List.of(
        new Bench.Variant("", Metrics.PROBE_CONDITION_RATE, this::conditionRate)));
    bench.runVariants("probes: cost per hit", rounds, "probes", List.of(
        new Bench.Variant("", List.of(Metrics.PROBE_NONE_NS, Metrics.PROBE_FALSE_NS, Metrics.PROBE_CONDITION_NS,
            Metrics.PROBE_DISPATCH_NS, Metrics.PROBE_EVALUATION_NS), this::costPerHit, "", null)));
    bench.runVariants("probes: log rate", rounds, "probes", List.of(
        new Bench.Variant("", Metrics.PROBE_LOG_RATE, this::logRate)));
    bench.runVariants("probes: default budget", settings.quick() ? 1 : 3, "probes", List.of(
        new Bench.Variant("", List.of(Metrics.PROBE_BUDGET_WITHOUT, Metrics.PROBE_BUDGET_WITH,
            Metrics.PROBE_BUDGET_LOSS), debuggee -> defaultBudget(debuggee, 0))));
    bench.runVariants("probes: default budget, short calls", settings.quick() ? 1 : 3, "probes", List.of(
        new Bench.Variant("", List.of(Metrics.PROBE_BUDGET_SHORT_WITHOUT, Metrics.PROBE_BUDGET_SHORT_WITH,
            Metrics.PROBE_BUDGET_SHORT_LOSS), debuggee -> defaultBudget(debuggee, SHORT_CALL_MS))));
    bench.runVariants("probes: other threads", rounds, "probes", List.of(
        new Bench.Variant("", List.of(Metrics.PROBE_OTHER_RATIO, Metrics.PROBE_OTHER_RATIO_LIFTED,
            Metrics.PROBE_OTHER_RATIO_NICED, Metrics.PROBE_OTHER_GAP_WITHOUT, Metrics.PROBE_OTHER_GAP_WITH, Metrics.PROBE_OTHER_GAP_LIFTED),
            this::otherThreads, "", null)));
    bench.runVariants("probes: snapshot pause", rounds, "probes", List.of(
        new Bench.Variant("", List.of(Metrics.PROBE_LEAF, Metrics.PROBE_SNAPSHOT_PAUSE), this::snapshotPause,
            "", null)));
  }

  // ---- the rows

  /** Row 1: hits/s of the probed line with a condition that is never true. */
  Map<Metric, Double> conditionRate(Debuggee debuggee) throws Exception {
    if (debuggee.agent.isStock()) {
      try (StockClient stock = new StockClient(debuggee)) {
        stock.breakpoint();
        LocalVariable i = stock.local("i");
        long[] matched = {0};
        BreakpointHandler test = (hit, frame) -> {
          if (((IntegerValue) frame.getValue(i)).value() < 0) {
            matched[0]++;
          }
        };
        stock.loop(warmMs(), test);
        Loop phase = stock.loop(phaseMs(), test);
        return Map.of(Metrics.PROBE_CONDITION_RATE, phase.rate());
      }
    }
    try (ProbeClient ours = new ProbeClient(debuggee)) {
      int probe = ours.set(KIND_LOG, probeLocation(), "{i}", CONDITION, 0, 0, BUDGET_LIFTED);
      ours.loopWithEnd(warmMs(), probe);
      Loop phase = ours.loopWithEnd(phaseMs(), probe);
      ours.checkHits(probe, "condition false");
      return Map.of(Metrics.PROBE_CONDITION_RATE, phase.rate());
    }
  }

  /** Row 2: ns per iteration with no probe, --if false, --if i < 0 (one debuggee, in that order). */
  Map<Metric, Double> costPerHit(Debuggee debuggee) throws Exception {
    try (ProbeClient ours = new ProbeClient(debuggee)) {
      Loop none = ours.loop(phaseMs(), false);
      int never = ours.set(KIND_LOG, probeLocation(), "{i}", "false", 0, 0, BUDGET_LIFTED);
      ours.loop(warmMs(), false);
      Loop constant = ours.loop(phaseMs(), false);
      ours.checkHits(never, "--if false");
      ours.clear(never);
      int condition = ours.set(KIND_LOG, probeLocation(), "{i}", CONDITION, 0, 0, BUDGET_LIFTED);
      ours.loopWithEnd(warmMs(), condition);
      Loop tested = ours.loopWithEnd(phaseMs(), condition);
      ours.checkHits(condition, "--if i < 0");
      return Map.of(Metrics.PROBE_NONE_NS, none.nsPerIteration(), Metrics.PROBE_FALSE_NS, constant.nsPerIteration(),
          Metrics.PROBE_CONDITION_NS, tested.nsPerIteration(),
          Metrics.PROBE_DISPATCH_NS, constant.nsPerIteration() - none.nsPerIteration(),
          Metrics.PROBE_EVALUATION_NS, tested.nsPerIteration() - constant.nsPerIteration());
    }
  }

  /** Row 3: log lines a second that reach the client. */
  Map<Metric, Double> logRate(Debuggee debuggee) throws Exception {
    if (debuggee.agent.isStock()) {
      try (StockClient stock = new StockClient(debuggee)) {
        stock.breakpoint();
        LocalVariable i = stock.local("i");
        LocalVariable label = stock.local("label");
        List<LocalVariable> both = List.of(i, label);
        long[] count = {0};
        long[] chars = {0};
        BreakpointHandler logpoint = (hit, frame) -> {
          Map<LocalVariable, Value> values = frame.getValues(both);
          String line = ((IntegerValue) values.get(i)).value() + " " + ((StringReference) values.get(label)).value();
          chars[0] += line.length();
          count[0]++;
        };
        stock.loop(warmMs(), logpoint);
        count[0] = 0;
        Loop phase = stock.loop(phaseMs(), logpoint);
        return Map.of(Metrics.PROBE_LOG_RATE, count[0] * 1e9 / phase.nanos());
      }
    }
    try (ProbeClient ours = new ProbeClient(debuggee)) {
      int probe = ours.set(KIND_LOG, probeLocation(), TEMPLATE, "", 0, LIFTED, BUDGET_LIFTED);
      ours.loggedPhase("loop " + warmMs(), "the warm-up loop", probe, false);
      double rate = ours.loggedPhase("loop " + phaseMs(), "the logged loop", probe, false).rate();
      ours.checkNotPaused(probe, "log probe");
      return Map.of(Metrics.PROBE_LOG_RATE, rate);
    }
  }

  /**
   * Row 4: the loop's throughput loss over a 10 s run (ten 1 s phases) under a log probe at the
   * default budget and rate, against 10 s runs without it in the same debuggee: without, with,
   * without, ... ({@link #budgetCycles} runs with, each a fresh probe), each run with compared
   * with the mean of the runs without on either side of it, so that a steady drift of the
   * machine's speed cancels. This machine's speed wanders by a few percent between 10 s runs with
   * no probe at all; the pairs and repetitions are what lets the row tell a loss of about 0.5%
   * from one of 2%, not one of 1.5% from 2%.
   *
   * Stock runs the same cycles with the least a JVMTI agent can do at that line: a JDI
   * breakpoint that is deleted at its first hit. The JVM discards the compiled code that has the
   * line when a breakpoint is set there, and the loop runs its replacement code until it is
   * compiled again; stock's loss is the floor to expect of any probe made of breakpoints.
   *
   * With {@code callMs} 0 each phase is one call of the loop. The probe (or breakpoint) is set
   * between two calls here, so the next call starts in the interpreter, the method's code thrown
   * away, and goes on in the loop's on-stack-replacement code (HotSpot's, about 0.7 as fast
   * here) to its end, as a call that is running when a probe is set does; and so may the next
   * one or two calls, when HotSpot compiles the method itself again only at a call. With
   * {@code callMs} > 0 the loop runs in calls of that length, as a service's requests do.
   */
  Map<Metric, Double> defaultBudget(Debuggee debuggee, long callMs) throws Exception {
    BudgetRun runs = debuggee.agent.isStock() ? new StockBreakpointRun(debuggee, callMs) : new OursProbeRun(debuggee, callMs);
    try (runs) {
      List<Loop> without = new ArrayList<>();
      List<Loop> with = new ArrayList<>();
      List<double[]> withTenths = new ArrayList<>();
      without.add(budgetRun(runs, null));
      for (int cycle = 0; cycle < budgetCycles(); cycle++) {
        double[] tenths = new double[10];
        with.add(budgetRun(runs, tenths));
        withTenths.add(tenths);
        without.add(budgetRun(runs, null));
      }
      double withSum = 0;
      double withoutSum = 0;
      for (int cycle = 0; cycle < with.size(); cycle++) {
        double around = (without.get(cycle).rate() + without.get(cycle + 1).rate()) / 2;
        double loss = 1 - with.get(cycle).rate() / around;
        StringBuilder profile = new StringBuilder();
        for (double tenth : withTenths.get(cycle)) {
          profile.append(String.format(" %.3f", tenth / around));
        }
        System.err.printf("bench:   default budget: pair %d: loss %.4f; each tenth of the run, with / without:%s%n", cycle + 1,
            loss, profile);
        withSum += with.get(cycle).rate();
        withoutSum += around;
      }
      int pairs = with.size();
      boolean single = callMs == 0;
      return Map.of(single ? Metrics.PROBE_BUDGET_WITHOUT : Metrics.PROBE_BUDGET_SHORT_WITHOUT, withoutSum / pairs,
          single ? Metrics.PROBE_BUDGET_WITH : Metrics.PROBE_BUDGET_SHORT_WITH, withSum / pairs,
          single ? Metrics.PROBE_BUDGET_LOSS : Metrics.PROBE_BUDGET_SHORT_LOSS, 1 - withSum / withoutSum);
    }
  }

  int budgetCycles() {
    return settings.quick() ? 1 : 2;
  }

  /**
   * One 10 s run in tenths, under a fresh probe (or breakpoint) when {@code tenths} is given;
   * each tenth's rate goes there, so the stderr lines show when the program got its speed back.
   */
  Loop budgetRun(BudgetRun runs, double[] tenths) throws Exception {
    long tenthMs = budgetRunMs() / 10;
    if (tenths != null) {
      runs.start();
    }
    Loop run = null;
    for (int tenth = 0; tenth < 10; tenth++) {
      Loop one = runs.tenth(tenthMs);
      if (tenths != null) {
        tenths[tenth] = one.rate();
      }
      run = run == null ? one : run.plus(one);
    }
    if (tenths != null) {
      runs.end();
    }
    return run;
  }

  /** What a default-budget row's runs are under, per agent. */
  interface BudgetRun extends AutoCloseable {
    void start() throws Exception;

    Loop tenth(long ms) throws Exception;

    void end() throws Exception;

    @Override
    void close();
  }

  /** Ours: a log probe at the default budget and rate, set at a run's start and cleared at its end. */
  final class OursProbeRun implements BudgetRun {
    final ProbeClient client;
    final long callMs;
    int probe;

    OursProbeRun(Debuggee debuggee, long callMs) throws Exception {
      this.client = new ProbeClient(debuggee);
      this.callMs = callMs;
    }

    @Override
    public void start() throws Exception {
      probe = client.set(KIND_LOG, probeLocation(), TEMPLATE, "", 0, 0, 0);
    }

    @Override
    public Loop tenth(long ms) throws Exception {
      return client.loop(ms, callMs);
    }

    @Override
    public void end() throws Exception {
      Info info = client.info(probe);
      System.err.printf("bench:   default budget: probe state %d, hits %d, matched %d, suppressed %d%n",
          info.state(), info.hits(), info.matched(), info.suppressed());
      if (info.state() != STATE_PAUSED) {
        throw BenchFailure.measured("the probe was not paused by the default budget (state " + info.state() + ")");
      }
      client.clear(probe);
    }

    @Override
    public void close() {
      client.close();
    }
  }

  /** Stock: a SUSPEND_EVENT_THREAD breakpoint on the line, deleted at its first hit. */
  final class StockBreakpointRun implements BudgetRun {
    final StockClient client;
    final long callMs;
    int hits;

    StockBreakpointRun(Debuggee debuggee, long callMs) throws Exception {
      this.client = new StockClient(debuggee);
      this.callMs = callMs;
    }

    @Override
    public void start() {
      hits = 0;
      client.breakpoint();
    }

    @Override
    public Loop tenth(long ms) throws Exception {
      return client.loop(callMs == 0 ? "loop " + ms : "loop-calls " + ms + " " + callMs, (hit, frame) -> {
        hits++;
        client.debuggee.vm.eventRequestManager().deleteEventRequest(hit.request());
      });
    }

    @Override
    public void end() throws Exception {
      if (hits != 1) {
        throw BenchFailure.measured("the breakpoint was hit " + hits + " times, expected once");
      }
    }

    @Override
    public void close() {
      client.close();
    }
  }

  /** Row 5: a second thread's rate while the loop's line is probed (log, budget lifted), over without (A-B-A). */
  Map<Metric, Double> otherThreads(Debuggee debuggee) throws Exception {
    try (ProbeClient ours = new ProbeClient(debuggee)) {
      Loop before = ours.loop(phaseMs(), true);
      int probe = ours.set(KIND_LOG, probeLocation(), TEMPLATE, "", 0, 0, BUDGET_LIFTED);
      ours.loop(warmMs(), true);
      Loop with = ours.loop(phaseMs(), true);
      ours.checkNotPaused(probe, "log probe");
      ours.clear(probe);
      // The same with the output rate lifted too: every line's values are read and
      // sent, and the client reads them all.
      Loop lifted = liftedPhase(debuggee, ours, false);
      // Again with the client's reader at nice 19: on this machine's two cores the
      // client reading every line takes the core the second thread had, which a
      // client on another machine would not; this shows what the agent alone does.
      Loop nicedClient = liftedPhase(debuggee, ours, true);
      Loop after = ours.loop(phaseMs(), true);
      double without = (before.otherRate() + after.otherRate()) / 2;
      return Map.of(Metrics.PROBE_OTHER_RATIO, with.otherRate() / without,
          Metrics.PROBE_OTHER_RATIO_LIFTED, lifted.otherRate() / without,
          Metrics.PROBE_OTHER_RATIO_NICED, nicedClient.otherRate() / without,
          Metrics.PROBE_OTHER_GAP_WITHOUT, Math.max(before.otherGap(), after.otherGap()) / 1e6,
          Metrics.PROBE_OTHER_GAP_WITH, with.otherGap() / 1e6,
          Metrics.PROBE_OTHER_GAP_LIFTED, lifted.otherGap() / 1e6);
    }
  }

  /**
   * A loop with a second thread under a log probe with the budget and the rate lifted;
   * the client reads the lines at nice 19 when {@code niced}.
   */
  Loop liftedPhase(Debuggee debuggee, ProbeClient ours, boolean niced) throws Exception {
    int probe = ours.set(KIND_LOG, probeLocation(), TEMPLATE, "", 0, LIFTED, BUDGET_LIFTED);
    String what = niced ? "log probe, rate lifted, client at nice 19" : "log probe, rate lifted";
    Loop loop = ours.loggedPhase("loop " + phaseMs() + " other", "a loop with a second thread (" + what + ")", probe,
        niced).loop();
    ours.checkNotPaused(probe, what);
    ours.clear(probe);
    return loop;
  }

  /** Row 6: the leaf call's median time with a 20-frame snapshot at each call, minus without. */
  Map<Metric, Double> snapshotPause(Debuggee debuggee) throws Exception {
    try (ProbeClient ours = new ProbeClient(debuggee)) {
      int k = snapshots();
      ours.tell("snap " + k);
      double without = Long.parseLong(debuggee.awaitReport("the leaf calls without a probe")[1]);
      String location = Debuggee.TARGET_CLASS + ":" + lines.get("snapshot-line");
      int probe = ours.set(KIND_SNAPSHOT, location, "", "", k, LIFTED, BUDGET_LIFTED);
      ours.tell("snap " + k);
      int frames = ours.readSnapshots(probe, k);
      if (frames != BenchTarget.SNAPSHOT_DEPTH) {
        throw BenchFailure.measured("a snapshot had " + frames + " frames, expected " + BenchTarget.SNAPSHOT_DEPTH);
      }
      double with = Long.parseLong(debuggee.awaitReport("the leaf calls with a snapshot probe")[1]);
      return Map.of(Metrics.PROBE_LEAF, without / 1e3, Metrics.PROBE_SNAPSHOT_PAUSE, (with - without) / 1e6);
    }
  }

  // ---- the target's loop phases

  /** A "loop" phase's report: iterations, nanoseconds, the second thread's iterations. */
  record Loop(long iterations, long nanos, long other, long otherGap) {
    static Loop of(String[] report) throws BenchFailure {
      if (report.length != 5 || !report[0].equals("loop")) {
        throw BenchFailure.measured("unexpected report " + String.join(" ", report));
      }
      Loop loop = new Loop(Long.parseLong(report[1]), Long.parseLong(report[2]), Long.parseLong(report[3]),
          Long.parseLong(report[4]));
      System.err.printf("bench:   loop %.0f ms: %d iterations, %.1f ns each%s%n", loop.nanos / 1e6, loop.iterations,
          loop.nsPerIteration(), loop.other > 0 ? String.format(", second thread %.3g it/s, longest gap %.2f ms",
              loop.otherRate(), loop.otherGap / 1e6) : "");
      return loop;
    }

    /** Phases one after the other, as one. */
    Loop plus(Loop more) {
      return new Loop(iterations + more.iterations, nanos + more.nanos, other + more.other,
          Math.max(otherGap, more.otherGap));
    }

    double rate() {
      return iterations * 1e9 / nanos;
    }

    double nsPerIteration() {
      return (double) nanos / iterations;
    }

    double otherRate() {
      return other * 1e9 / nanos;
    }
  }

  record Info(int state, long hits, long matched, long suppressed) {}

  /** A loop phase under a log probe: its report, and the lines a second the client received. */
  record LoggedPhase(Loop loop, double rate) {}

  /** Ours: the raw client that sets probes and reads their output. */
  final class ProbeClient implements AutoCloseable {
    final Debuggee debuggee;
    final Jdwp jdwp;

    ProbeClient(Debuggee debuggee) throws Exception {
      this.debuggee = debuggee;
      this.jdwp = attachRaw(debuggee);
      try {
        debuggee.phase = "VirtualMachine.Version";
        String description = jdwp.command("VirtualMachine.Version", 1, 1, new Jdwp.Body()).string();
        if (!description.strip().endsWith(JDWPX_MARK)) {
          // Never send set 128 to an agent that is not jdwpx: stock aborts the JVM.
          throw new BenchFailure("not jdwpx (Version does not end with '" + JDWPX_MARK + "'): no probes", false,
              BenchFailure.Kind.NOT_IMPLEMENTED);
        }
        jdwp.keepVendorCommands();
      } catch (Exception e) {
        jdwp.close();
        throw e;
      }
    }

    void tell(String line) throws IOException {
      debuggee.tell(line);
    }

    int set(int kind, String location, String template, String condition, int maxHits, int rate, int budgetPpm)
        throws Exception {
      return measure(debuggee, "Probe.Set " + location, () -> {
        Jdwp.Reply reply = jdwp.command("Probe.Set", PROBE_SET, 1, new Jdwp.Body().u8(kind).string(location)
            .string(template).string(condition).i32(maxHits).i32(0).i32(0).i32(rate).i32(budgetPpm));
        int id = reply.i32();
        String problem = reply.string();
        int places = reply.i32();
        if (id == 0 || places == 0) {
          throw BenchFailure.measured("Probe.Set " + location + " if `" + condition + "`: "
              + (id == 0 ? "refused: " + problem : "deferred (no place)"));
        }
        return id;
      });
    }

    void clear(int probe) throws Exception {
      measure(debuggee, "Probe.Clear", () -> jdwp.command("Probe.Clear", PROBE_SET, 2, new Jdwp.Body().i32(probe)));
    }

    Info info(int probe) throws Exception {
      return measure(debuggee, "Probe.List", () -> {
        Jdwp.Reply r = jdwp.command("Probe.List", PROBE_SET, 3, new Jdwp.Body());
        for (int n = r.i32(); n > 0; n--) {
          int id = r.i32();
          r.u8();
          int state = r.u8();
          r.string();
          r.string();
          r.string();
          r.i32();
          Info info = new Info(state, r.i64(), r.i64(), r.i64());
          if (id == probe) {
            return info;
          }
        }
        throw BenchFailure.measured("probe " + probe + " is not in Probe.List");
      });
    }

    /** A loop phase in calls of {@code callMs} ms (0: one call), its output left to queue. */
    Loop loop(long ms, long callMs) throws Exception {
      if (callMs == 0) {
        return loop(ms, false);
      }
      tell("loop-calls " + ms + " " + callMs);
      return Loop.of(debuggee.awaitReport("a " + ms + " ms loop in " + callMs + " ms calls"));
    }

    /** One loop phase, its output left to queue (a probe whose lines are few, or none). */
    Loop loop(long ms, boolean other) throws Exception {
      tell("loop " + ms + (other ? " other" : ""));
      return Loop.of(debuggee.awaitReport("a " + ms + " ms loop"));
    }

    /** A loop phase under a probe whose condition passes the phase's end call only: reads that one line. */
    Loop loopWithEnd(long ms, int probe) throws Exception {
      tell("loop " + ms);
      measure(debuggee, "reading the end line", () -> {
        while (!nextLine(probe).startsWith("-1")) {
          // a matched line other than the end: the condition held where it must not
          throw BenchFailure.measured("`" + CONDITION + "` held at a hit other than the end call");
        }
        return null;
      });
      return Loop.of(debuggee.awaitReport("a " + ms + " ms loop"));
    }

    /** Log phases run so far: the end lines a phase is told to hit carry its number. */
    int loggedPhases;

    /**
     * One loop phase ({@code phase}: "loop MS [other]") under a log probe, its lines read as they
     * come on a thread of its own (at nice 19 when {@code niced}, so that the debuggee's threads
     * get the cores first); returns the phase's report and the lines a second received.
     *
     * The phase ends with one hit probed(-1, "end"), but the agent drops a hit's line while the
     * connection is backlogged (the client reading too slowly, as a client on these two cores
     * may), and that line too. So once the phase has reported, the target is told to hit the
     * line again ("end N", N this phase's number) until the reader has an end line.
     */
    LoggedPhase loggedPhase(String phase, String what, int probe, boolean niced) throws Exception {
      int number = ++loggedPhases;
      double[] rate = {0};
      Exception[] failure = {null};
      Thread reader = new Thread(() -> {
        try {
          if (niced) {
            reniceThisThread();
          }
          rate[0] = readLogsUntilEnd(probe, "-1 end" + number);
        } catch (Throwable e) {
          failure[0] = e instanceof Exception checked ? checked : new RuntimeException(e);
        }
      }, "log reader");
      reader.setDaemon(true);  // ends with the debuggee's socket if this thread gives up first
      reader.start();
      tell(phase);
      Loop loop = Loop.of(debuggee.awaitReport(what));
      // The connection drains within a second or so once the phase is over: give it 10.
      for (int told = 0; reader.isAlive() && told < 100; told++) {
        tell("end " + number);
        reader.join(100);
      }
      if (failure[0] != null) {
        throw failure[0];
      }
      if (reader.isAlive()) {
        throw BenchFailure.measured("no end line of phase " + number + " within 10 s of its end");
      }
      return new LoggedPhase(loop, rate[0]);
    }

    /**
     * Reads log lines until the phase's own end line ("-1 end") or {@code toldEnd}; lines a
     * second from the first to the last before it. Told end lines of earlier phases are skipped.
     */
    double readLogsUntilEnd(int probe, String toldEnd) throws Exception {
      return measure(debuggee, "reading log lines", () -> {
        long count = 0;
        long first = 0;
        long last = 0;
        while (true) {
          String message = nextLine(probe);
          long now = System.nanoTime();
          if (message.equals("-1 end") || message.equals(toldEnd)) {
            break;
          }
          if (message.startsWith("-1 end")) {
            continue;
          }
          if (count++ == 0) {
            first = now;
          }
          last = now;
        }
        if (count < 2 || last == first) {
          throw BenchFailure.measured("only " + count + " log lines in a phase");
        }
        return (count - 1) * 1e9 / (last - first);
      });
    }

    /** renice 19 of the calling thread (its thread ID). */
    void reniceThisThread() throws Exception {
      String self = java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/thread-self")).toString();
      String tid = self.substring(self.lastIndexOf('/') + 1);
      Process renice = new ProcessBuilder("renice", "-n", "19", "-p", tid).redirectErrorStream(true).start();
      renice.getInputStream().readAllBytes();
      if (renice.waitFor() != 0) {
        throw BenchFailure.measured("renice of the reading thread failed");
      }
    }

    /** The next Probe.Log message of {@code probe}; a pause notice fails the cell. */
    String nextLine(int probe) throws IOException, BenchFailure {
      while (true) {
        Jdwp.Packet packet = jdwp.nextVendorCommand();
        ByteBuffer data = ByteBuffer.wrap(packet.data());
        int id = data.getInt();
        int command = packet.code() & 0xff;
        if (command == NOTICE) {
          int kind = data.get() & 0xff;
          String text = string(data);
          if (kind == NOTICE_PAUSED) {
            throw BenchFailure.measured("probe " + id + " paused by its CPU budget: " + text);
          }
          System.err.println("bench:   probe notice: " + text);
          continue;
        }
        if (command != LOG || id != probe) {
          continue;
        }
        data.getLong();
        string(data);  // thread
        string(data);  // location
        return string(data);
      }
    }

    /** Reads {@code k} snapshots of {@code probe}; returns the frame count of the smallest. */
    int readSnapshots(int probe, int k) throws Exception {
      return measure(debuggee, "reading snapshots", () -> {
        int fewest = Integer.MAX_VALUE;
        for (int got = 0; got < k; ) {
          Jdwp.Packet packet = jdwp.nextVendorCommand();
          ByteBuffer data = ByteBuffer.wrap(packet.data());
          int id = data.getInt();
          int command = packet.code() & 0xff;
          if (command == NOTICE) {
            int kind = data.get() & 0xff;
            String text = string(data);
            if (kind == NOTICE_PAUSED) {
              throw BenchFailure.measured("snapshot probe paused by its CPU budget: " + text);
            }
            continue;
          }
          if (command != SNAPSHOT || id != probe) {
            continue;
          }
          data.getLong();
          string(data);
          string(data);
          fewest = Math.min(fewest, data.getInt());
          got++;
        }
        return fewest;
      });
    }

    /** Every probed-line call was evaluated (hits = the phases' iterations and end calls are not checked here). */
    void checkHits(int probe, String what) throws Exception {
      Info info = info(probe);
      if (info.state() == STATE_PAUSED) {
        throw BenchFailure.measured(what + ": the probe was paused by its CPU budget");
      }
      if (info.suppressed() > 0) {
        throw BenchFailure.measured(what + ": " + info.suppressed() + " hits suppressed");
      }
    }

    void checkNotPaused(int probe, String what) throws Exception {
      if (info(probe).state() == STATE_PAUSED) {
        throw BenchFailure.measured(what + ": the probe was paused by its CPU budget");
      }
    }

    @Override
    public void close() {
      jdwp.close();
    }
  }

  static String string(ByteBuffer data) {
    byte[] utf8 = new byte[data.getInt()];
    data.get(utf8);
    return new String(utf8, StandardCharsets.UTF_8);
  }

  interface BreakpointHandler {
    void hit(BreakpointEvent hit, StackFrame frame) throws Exception;
  }

  /** Stock: a JDI client with a SUSPEND_EVENT_THREAD breakpoint on the probed line. */
  final class StockClient implements AutoCloseable {
    final Debuggee debuggee;
    final Location location;

    StockClient(Debuggee debuggee) throws Exception {
      this.debuggee = debuggee;
      EventSet start = debuggee.attachAtStart();
      start.resume();
      debuggee.awaitReady();
      List<ReferenceType> types = debuggee.vm.classesByName(Debuggee.TARGET_CLASS);
      if (types.size() != 1) {
        throw new BenchFailure(Debuggee.TARGET_CLASS + " is loaded " + types.size() + " times", false);
      }
      int line = lines.get("probe-line");
      List<Location> locations = types.get(0).locationsOfLine(line);
      if (locations.isEmpty()) {
        throw new BenchFailure("no code on line " + line, false);
      }
      location = locations.get(0);
    }

    /** Sets the breakpoint on the probed line (SUSPEND_EVENT_THREAD). */
    BreakpointRequest breakpoint() {
      BreakpointRequest breakpoint = debuggee.vm.eventRequestManager().createBreakpointRequest(location);
      breakpoint.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
      breakpoint.enable();
      return breakpoint;
    }

    LocalVariable local(String name) throws Exception {
      List<LocalVariable> found = location.method().variablesByName(name);
      if (found.isEmpty()) {
        throw new BenchFailure("no local " + name + " at " + location, false);
      }
      return found.get(0);
    }

    /** One loop phase, each breakpoint hit handed to {@code handler} and its set resumed. */
    Loop loop(long ms, BreakpointHandler handler) throws Exception {
      return loop("loop " + ms, handler);
    }

    /** A phase ("loop MS", "loop-calls MS C"), each breakpoint hit handed to {@code handler} and its set resumed. */
    Loop loop(String phase, BreakpointHandler handler) throws Exception {
      debuggee.tell(phase);
      debuggee.phase = "serving breakpoint hits";
      while (true) {
        String[] report = debuggee.pollReport();
        if (report != null) {
          return Loop.of(report);
        }
        EventSet events = debuggee.vm.eventQueue().remove(20);
        if (events == null) {
          if (!debuggee.process.isAlive()) {
            return Loop.of(debuggee.awaitReport("a loop"));  // fails with the exit's reason
          }
          continue;
        }
        for (Event event : events) {
          if (event instanceof VMDeathEvent || event instanceof VMDisconnectEvent) {
            return Loop.of(debuggee.awaitReport("a loop"));
          }
          if (event instanceof BreakpointEvent hit) {
            handler.hit(hit, hit.thread().frame(0));
          }
        }
        events.resume();
      }
    }

    @Override
    public void close() {
      // Debuggee.close kills the process; JDI winds down with it.
    }
  }
}
