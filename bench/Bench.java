// Side-by-side JDI benchmark: runs every scenario against our agent (jdwpx) and
// the JDK's stock libjdwp on the same JDK, then prints one table with both
// figures and their ratio.
//
// Every cell (scenario x agent) runs in a fresh debuggee and is guarded by a
// deadline that kills the debuggee; killing it is also what unblocks a JDI call
// stuck waiting on a reply that a broken agent never sends. A failing cell
// prints "n/a" with a footnote and the run goes on; an agent that cannot even
// start or accept an attach is skipped for the remaining scenarios so a stub
// costs one timeout, not one per scenario.
//
// The inspection scenarios (huge arrays and strings, a deep stack, many
// classes, many instances) talk raw JDWP instead of JDI (see Jdwp): JDI would
// add a mirror per array element and its own frame caches to the figures. A
// command the agent answers with NOT_IMPLEMENTED shows as such; an agent that
// fails or dies on the measured command shows "failed" (stock has been known
// to on huge object arrays) and does not fail the run.
//
// The workload scenarios (method events, class prepare) compare the debuggee's
// own run time (BenchTarget times the work and prints it) with the requests an
// IDE would set and without any, per agent: the with/without ratio is the
// cost of the requests, and ours/stock compares those costs.
//
// Files: Bench (this one: the scenario list, the runner, the table), Settings and
// Agent (the command line), Debuggee (the launcher), Metrics and Metric (the
// table's rows), Memory, BenchFailure, and one *Scenarios file per family of
// scenarios over their shared base, Scenarios. The raw JDWP client is the
// integration drivers' own, integration/jdi/Jdwp.java.
//
// Usage: java -cp <classes> Bench --source BenchTarget.java [--classes DIR] [--java PATH]
//            [--ours LIB|stock|none] [--stock stock|none] [--quick] [--only TEXT] [--calls N]
//            [--vthread-java PATH]
// --vthread-java: a JDK 21+ java for the virtual-thread row of "many threads"
// (both agents run there; without it the row is skipped with a message).
// --only runs just the scenarios whose name contains TEXT (e.g. "stack walk"), or
// any of several TEXTs separated by commas.
// --calls sets the rounds of the method-events call workload (a multiple of 20).
// Exit status: 0 when the stock column is complete, 1 otherwise (a failing
// "ours" column never fails the run; it is what we are measuring), 2 on usage.

import com.sun.jdi.ObjectReference;
import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.request.EventRequest;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class Bench {

  interface Scenario {
    Map<Metric, Double> run(Debuggee debuggee) throws Exception;
  }

  final Settings settings;
  final Map<String, Integer> lines;

  Bench(Settings settings, Map<String, Integer> lines) {
    this.settings = settings;
    this.lines = lines;
  }

  /** A measured value, or why there is none. */
  record Cell(Double value, String failure, BenchFailure.Kind kind) {}

  /** What one debuggee run produced: values, or a failure reason and its kind. */
  record Outcome(Map<Metric, Double> values, String failure, BenchFailure.Kind kind) {
    static Outcome failed(String reason) {
      return new Outcome(null, reason, BenchFailure.Kind.SETUP);
    }
  }

  final Map<Metric, Map<String, Cell>> results = new LinkedHashMap<>();

  // Agents that could not start or accept an attach: later cells reuse the reason.
  final Map<String, String> unusable = new HashMap<>();

  /** One run of a scenario in a fresh debuggee; {@code mode}: BenchTarget's data mode or null. */
  Outcome attempt(Agent agent, String scenarioName, String mode, Scenario body) {
    String known = unusable.get(agent.column());
    if (known != null) {
      return Outcome.failed(known);
    }
    System.err.printf("bench: %-24s %s%n", scenarioName, agent.column());
    Debuggee debuggee = null;
    try {
      debuggee = new Debuggee(settings, agent, mode);
      return new Outcome(body.run(debuggee), null, null);
    } catch (BenchFailure failure) {
      String reason = oneLine(failure.getMessage(), 300);
      if (failure.agentUnusable) {
        unusable.put(agent.column(), reason);
      }
      return new Outcome(null, reason, failure.kind);
    } catch (VMDisconnectedException e) {
      return Outcome.failed(oneLine("VM disconnected while " + debuggee.phase + " ("
          + debuggee.exitDescription() + "); output: " + debuggee.tail.text(), 300));
    } catch (Exception | Error e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      String where = debuggee == null ? "launch" : debuggee.phase;
      String what = debuggee != null && debuggee.deadlineHit()
          ? "cell deadline of " + settings.cellTimeoutMs() / 1000 + " s hit"
          : e.toString();
      return Outcome.failed(oneLine(what + " while " + where, 300));
    } finally {
      if (debuggee != null) {
        debuggee.close();
      }
    }
  }

  void record(Metric metric, Agent agent, Cell cell) {
    results.computeIfAbsent(metric, m -> new LinkedHashMap<>()).put(agent.column(), cell);
  }

  /**
   * Runs a scenario {@code repetitions} times per agent, each in a fresh
   * debuggee, alternating which agent goes first so drift in the machine's load
   * and in this driver's JIT hits both columns alike; reports the medians. An
   * agent's first failure ends its repetitions and becomes its cell.
   */
  void runRepeated(String name, int repetitions, List<Metric> metrics, Scenario body) {
    runRepeated(name, repetitions, metrics, null, body);
  }

  void runRepeated(String name, int repetitions, List<Metric> metrics, String mode, Scenario body) {
    runVariants(name, repetitions, mode, List.of(new Variant("", metrics, body)));
  }

  /** One way of running a scenario's workload (e.g. with or without requests), and what it measures. */
  // ourOptions: our agent only (stock's cell stays empty); options: both agents.
  record Variant(String label, List<Metric> metrics, Scenario body, String ourOptions, String options) {
    Variant(String label, Metric metric, Scenario body) {
      this(label, List.of(metric), body, null, null);
    }

    Variant(String label, List<Metric> metrics, Scenario body) {
      this(label, metrics, body, null, null);
    }

    /** A variant that runs only our agent, with these options added (jdwpx extensions). */
    static Variant oursWith(String label, Metric metric, String options, Scenario body) {
      return new Variant(label, List.of(metric), body, options, null);
    }
  }

  /**
   * runRepeated for a scenario measured in several variants: in each
   * repetition every agent runs every variant, each in a fresh debuggee, the
   * order of agents and of variants alternating, so a with/without ratio
   * compares runs made under the same load.
   */
  void runVariants(String name, int repetitions, String mode, List<Variant> variants) {
    if (Arrays.stream(settings.only().split(",")).noneMatch(name::contains)) {
      return;
    }
    Map<String, Map<Metric, List<Double>>> samples = new HashMap<>();
    Map<String, Map<Variant, Outcome>> failures = new HashMap<>();
    for (int run = 0; run < repetitions; run++) {
      List<Agent> order = new ArrayList<>(settings.agents());
      List<Variant> variantOrder = new ArrayList<>(variants);
      if (run % 2 == 1) {
        Collections.reverse(order);
        Collections.reverse(variantOrder);
      }
      for (Agent agent : order) {
        Map<Variant, Outcome> failed = failures.computeIfAbsent(agent.column(), a -> new HashMap<>());
        for (Variant variant : variantOrder) {
          if (failed.containsKey(variant)) {
            continue;
          }
          String label = variant.label().isEmpty() ? name : name + ", " + variant.label();
          if (variant.ourOptions() != null && agent.isStock()) {
            continue;  // a jdwpx option: stock's cell stays empty ("-")
          }
          Agent configured = variant.ourOptions() == null ? agent : agent.with(variant.ourOptions());
          if (variant.options() != null) {
            configured = configured.with(variant.options());
          }
          Outcome outcome = attempt(configured, label + " " + (run + 1) + "/" + repetitions, mode, variant.body());
          if (outcome.failure() != null) {
            failed.put(variant, outcome);
            continue;
          }
          outcome.values().forEach((metric, value) -> samples
              .computeIfAbsent(agent.column(), a -> new HashMap<>())
              .computeIfAbsent(metric, m -> new ArrayList<>())
              .add(value));
        }
      }
    }
    for (Agent agent : settings.agents()) {
      for (Variant variant : variants) {
        if (variant.ourOptions() != null && agent.isStock()) {
          continue;
        }
        Outcome failure = failures.get(agent.column()).get(variant);
        for (Metric metric : variant.metrics()) {
          // Every run's figure, so a report can give the spread as well as the median.
          List<Double> runs = failure != null ? null : samples.get(agent.column()).get(metric);
          if (runs != null && runs.size() > 1) {
            System.err.printf("bench: %-6s %s: %s %s%n", agent.column(), metric.name().strip(),
                String.join(" ", runs.stream().sorted().map(v -> String.format(metric.format(), v)).toList()),
                metric.unit());
          }
          record(metric, agent, failure != null
              ? new Cell(null, failure.failure(), failure.kind())
              : new Cell(Scenarios.median(samples.get(agent.column()).get(metric)), null, null));
        }
      }
    }
  }

  /** A row of with/without per agent, from two rows already measured; a failed input fails it alike. */
  void recordRatio(Metric ratio, Metric with, Metric without) {
    if (!results.containsKey(with) || !results.containsKey(without)) {
      return;  // left out by --only
    }
    for (Agent agent : settings.agents()) {
      Cell numerator = results.get(with).get(agent.column());
      Cell denominator = results.get(without).get(agent.column());
      if (numerator == null || denominator == null) {
        continue;  // not measured for this agent (an option of ours only)
      }
      Cell failed = numerator.failure() != null ? numerator : denominator.failure() != null ? denominator : null;
      record(ratio, agent, failed != null ? failed
          : new Cell(numerator.value() / denominator.value(), null, null));
    }
  }

  /** (with - without) in ms, per event, in us. */
  void recordPerEvent(Metric perEvent, Metric with, Metric without, int events) {
    if (!results.containsKey(with) || !results.containsKey(without)) {
      return;  // left out by --only
    }
    for (Agent agent : settings.agents()) {
      Cell a = results.get(with).get(agent.column());
      Cell b = results.get(without).get(agent.column());
      if (a == null || b == null) {
        continue;
      }
      Cell failed = a.failure() != null ? a : b.failure() != null ? b : null;
      record(perEvent, agent, failed != null ? failed
          : new Cell((a.value() - b.value()) * 1000.0 / events, null, null));
    }
  }

  int runAll() throws IOException {
    BreakpointScenarios breakpoints = new BreakpointScenarios(settings, lines);
    RoundTripScenarios roundTrips = new RoundTripScenarios(settings, lines);
    WorkloadScenarios requestWorkloads = new WorkloadScenarios(settings, lines);
    SessionScenarios sessions = new SessionScenarios(settings, lines);
    InspectionScenarios inspection = new InspectionScenarios(settings, lines);
    ClassScanScenarios classScans = new ClassScanScenarios(settings, lines);
    // One discarded attach first, so JDI's class loading in this driver is not
    // charged to whichever agent happens to go first.
    attempt(settings.agents().get(settings.agents().size() - 1), "warm-up", null,
        breakpoints::attachToFirstBreakpoint);
    unusable.clear();
    runRepeated("attach", settings.attachRuns(), List.of(Metrics.LAUNCH_TO_LISTEN, Metrics.ATTACH_TO_BREAKPOINT),
        breakpoints::attachToFirstBreakpoint);
    runRepeated("re-attach", settings.attachRuns(), List.of(Metrics.ATTACH_FIRST, Metrics.REATTACH, Metrics.REATTACH_FROM_DISPOSE),
        sessions::attachTimes);
    runRepeated("round trip", settings.rounds(), List.of(Metrics.ROUND_TRIP_MEDIAN, Metrics.ROUND_TRIP_MEAN),
        roundTrips::roundTrip);
    runRepeated("round trip raw, pipelined burst", settings.rounds(), List.of(Metrics.RAW_ROUND_TRIP, Metrics.BURST),
        "burst", roundTrips::rawRoundTripAndBurst);
    runRepeated("breakpoint rate SUSPEND_EVENT_THREAD", settings.rounds(), List.of(Metrics.BREAKPOINT_RATE),
        d -> breakpoints.breakpointRate(d, EventRequest.SUSPEND_EVENT_THREAD, Metrics.BREAKPOINT_RATE));
    runRepeated("breakpoint rate SUSPEND_ALL", settings.rounds(), List.of(Metrics.BREAKPOINT_RATE_ALL),
        d -> breakpoints.breakpointRate(d, EventRequest.SUSPEND_ALL, Metrics.BREAKPOINT_RATE_ALL));
    runRepeated("breakpoint rate raw SUSPEND_EVENT_THREAD", settings.rounds(), List.of(Metrics.BREAKPOINT_RATE_RAW),
        d -> breakpoints.breakpointRateRaw(d, EventRequest.SUSPEND_EVENT_THREAD, Metrics.BREAKPOINT_RATE_RAW));
    runRepeated("breakpoint rate raw SUSPEND_ALL", settings.rounds(), List.of(Metrics.BREAKPOINT_RATE_ALL_RAW),
        d -> breakpoints.breakpointRateRaw(d, EventRequest.SUSPEND_ALL, Metrics.BREAKPOINT_RATE_ALL_RAW));
    // The protocol trace (trace=, issue 14) on the hot path: breakpoint hits with
    // the trace on over off; the goal is >= 0.9.
    // The traces go to a directory of the run's own, removed afterwards.
    java.nio.file.Path traceDir = java.nio.file.Files.createTempDirectory("jdwpx-bench-trace");
    try {
      runVariants("trace overhead", settings.rounds(), null, List.of(
          Variant.oursWith("trace off", Metrics.TRACE_OFF_RATE, "",
              d -> breakpoints.breakpointRate(d, EventRequest.SUSPEND_EVENT_THREAD, Metrics.TRACE_OFF_RATE)),
          Variant.oursWith("trace on", Metrics.TRACE_ON_RATE, ",trace=" + traceDir + "/trace.%p.bin",
              d -> breakpoints.breakpointRate(d, EventRequest.SUSPEND_EVENT_THREAD, Metrics.TRACE_ON_RATE))));
    } finally {
      try (var files = java.nio.file.Files.list(traceDir)) {
        for (java.nio.file.Path f : files.toList()) java.nio.file.Files.deleteIfExists(f);
      }
      java.nio.file.Files.deleteIfExists(traceDir);
    }
    recordRatio(Metrics.TRACE_RATIO, Metrics.TRACE_ON_RATE, Metrics.TRACE_OFF_RATE);
    // Two debuggers at one hot breakpoint (sessions=2, ours only): each one's
    // rate over one debugger's with the same option; the goal is >= 0.5.
    runVariants("two debuggers", settings.rounds(), null, List.of(
        Variant.oursWith("one debugger", Metrics.SESSIONS_ONE_RATE, ",sessions=2",
            d -> breakpoints.breakpointRateRaw(d, EventRequest.SUSPEND_EVENT_THREAD, Metrics.SESSIONS_ONE_RATE)),
        Variant.oursWith("two debuggers", Metrics.SESSIONS_TWO_RATE, ",sessions=2",
            d -> breakpoints.breakpointRateTwoSessions(d, Metrics.SESSIONS_TWO_RATE))));
    recordRatio(Metrics.SESSIONS_RATIO, Metrics.SESSIONS_TWO_RATE, Metrics.SESSIONS_ONE_RATE);
    runRepeated("step rate OVER", settings.rounds(), List.of(Metrics.STEP_RATE), breakpoints::stepOverRate);
    runRepeated("step rate INTO", settings.rounds(), List.of(Metrics.STEP_INTO_RATE), "step-into",
        breakpoints::stepIntoRate);
    int workloads = settings.workloadRuns();
    runVariants("method events", workloads, "calls=" + settings.callIterations(), List.of(
        new Variant("no requests", Metrics.CALLS_BASELINE, d -> requestWorkloads.callWorkload(d, false)),
        new Variant("MethodEntry+Exit", Metrics.CALLS_METHOD_EVENTS, d -> requestWorkloads.callWorkload(d, true))));
    recordRatio(Metrics.CALLS_RATIO, Metrics.CALLS_METHOD_EVENTS, Metrics.CALLS_BASELINE);
    runVariants("expired requests", workloads, "expire-calls=" + settings.callIterations(), List.of(
        new Variant("no requests", Metrics.EXPIRED_BASELINE,
            d -> requestWorkloads.expiredRequest(d, Metrics.EXPIRED_BASELINE)),
        new Variant("Breakpoint", Metrics.EXPIRED_BREAKPOINT,
            d -> requestWorkloads.expiredRequest(d, Metrics.EXPIRED_BREAKPOINT)),
        new Variant("MethodEntry", Metrics.EXPIRED_ENTRY,
            d -> requestWorkloads.expiredRequest(d, Metrics.EXPIRED_ENTRY)),
        new Variant("ModificationWatchpoint", Metrics.EXPIRED_WATCH,
            d -> requestWorkloads.expiredRequest(d, Metrics.EXPIRED_WATCH))));
    int loaded = WorkloadScenarios.LOADED_CLASSES;
    runVariants("class prepare", workloads, "load-classes=" + loaded, List.of(
        new Variant("no requests", Metrics.LOAD_BASELINE,
            d -> requestWorkloads.classLoads(d, null, Metrics.LOAD_BASELINE)),
        new Variant("ClassPrepare", Metrics.LOAD_PREPARE,
            d -> requestWorkloads.classLoads(d, null, Metrics.LOAD_PREPARE)),
        new Variant("ClassPrepare SUSPEND_ALL", Metrics.LOAD_PREPARE_ALL,
            d -> requestWorkloads.classLoads(d, null, Metrics.LOAD_PREPARE_ALL)),
        new Variant("ClassPrepare ClassMatch", Metrics.LOAD_FILTERED,
            d -> requestWorkloads.classLoads(d, WorkloadScenarios.LOAD_FILTER, Metrics.LOAD_FILTERED))));
    recordRatio(Metrics.LOAD_PREPARE_RATIO, Metrics.LOAD_PREPARE, Metrics.LOAD_BASELINE);
    recordRatio(Metrics.LOAD_FILTERED_RATIO, Metrics.LOAD_FILTERED, Metrics.LOAD_BASELINE);
    recordPerEvent(Metrics.LOAD_PREPARE_ALL_EVENT, Metrics.LOAD_PREPARE_ALL, Metrics.LOAD_BASELINE, loaded);
    runRepeated("class prepare raw", workloads, List.of(Metrics.LOAD_PREPARE_ALL_RAW), "load-classes=" + loaded,
        requestWorkloads::classPrepareRaw);
    runVariants("invoke", settings.rounds(), null, List.of(
        new Variant("single-threaded", Metrics.INVOKE_SINGLE,
            d -> sessions.invokeRate(d, ObjectReference.INVOKE_SINGLE_THREADED, Metrics.INVOKE_SINGLE)),
        new Variant("all threads", Metrics.INVOKE_ALL, d -> sessions.invokeRate(d, 0, Metrics.INVOKE_ALL))));
    runRepeated("sessions", 1, List.of(Metrics.SESSION_CYCLE, Metrics.SESSION_RSS), sessions::sessionCycles);
    int runs = settings.inspectRuns();
    runRepeated("Object[] values", runs, List.of(Metrics.OBJECT_ARRAY_CALL, Metrics.OBJECT_ARRAY_RSS), "objects",
        inspection::objectArray);
    runRepeated("long[] values", runs, List.of(Metrics.LONG_ARRAY_CALL, Metrics.LONG_ARRAY_RSS), "longs",
        inspection::longArray);
    runRepeated("string value", runs, List.of(Metrics.STRING_CALL, Metrics.STRING_RSS), "string",
        inspection::stringValue);
    runRepeated("stack walk", runs, List.of(Metrics.STACK_WALK), "stack", inspection::stackWalk);
    runVariants("AllClasses", runs, "classes", List.of(new Variant("", List.of(Metrics.ALL_CLASSES_FIRST,
        Metrics.ALL_CLASSES_REPEATED, Metrics.CLASSES_BY_SIGNATURE_FIRST, Metrics.CLASSES_BY_SIGNATURE_LATER,
        Metrics.ALL_CLASSES_LATER, Metrics.ALL_CLASSES_GENERIC_LATER),
        classScans::classScans, null, ",suspend=n")));
    runRepeated("InstanceCounts", runs, List.of(Metrics.INSTANCE_COUNTS), "objects", inspection::instanceCounts);
    runRepeated("DisposeObjects", runs, List.of(Metrics.DISPOSE_SMALL, Metrics.DISPOSE_LARGE, Metrics.DISPOSE_GROWTH,
        Metrics.DISPOSE_LARGE_BIG_BATCHES), "objects", inspection::disposeObjects);
    runManyThreads();
    new ProbeScenarios(settings, lines).runAll(this);
    printTable();
    // Stock failing on a measured command is a finding, not a broken bench.
    boolean stockComplete = results.values().stream()
        .map(byAgent -> byAgent.get("stock"))
        .allMatch(cell -> cell == null || cell.failure() == null || cell.kind() == BenchFailure.Kind.MEASURED);
    return stockComplete ? 0 : 1;
  }

  /** The "many threads" rows: each size in debuggees of its own; virtual threads on JDK 21+ only. */
  void runManyThreads() {
    ThreadScenarios threads = new ThreadScenarios(settings, lines);
    for (Metrics.ThreadRows rows : Metrics.THREAD_ROWS) {
      String name = "many threads " + rows.mode();
      if (settings.quick() && rows.count() > 1_000) {
        continue;  // the smoke run keeps to the small sizes
      }
      if (!rows.virtual()) {
        runRepeated(name, settings.rounds(), rows.metrics(), rows.mode(), d -> threads.manyThreads(d, rows));
        continue;
      }
      if (Arrays.stream(settings.only().split(",")).noneMatch(name::contains)) {
        continue;
      }
      if (settings.vthreadJava() == null) {
        System.err.println("bench: " + name + " skipped: no JDK 21+ (run.sh --vthread-jdk HOME)");
        continue;
      }
      // Both agents on the JDK 21+ java, listing virtual threads as an IDE asks them to.
      List<Agent> saved = settings.agents();
      List<Agent> onVirtual = saved.stream()
          .map(a -> a.on(settings.vthreadJava()).with(",includevirtualthreads=y")).toList();
      Bench sub = new Bench(settings.withAgents(onVirtual), lines);
      ThreadScenarios onSub = new ThreadScenarios(sub.settings, lines);
      sub.runRepeated(name, settings.rounds(), rows.metrics(), rows.mode(), d -> onSub.manyThreads(d, rows));
      results.putAll(sub.results);
    }
    Metrics.ThreadRows small = Metrics.THREAD_ROWS.get(0);
    Metrics.ThreadRows big = Metrics.THREAD_ROWS.get(2);
    recordRatio(Metrics.STATUS_GROWTH, big.status(), small.status());
    recordRatio(Metrics.FRAMES_GROWTH, big.frames(), small.frames());
    if (results.containsKey(big.cycle()) && results.containsKey(small.cycle())) {
      // Per thread: the cycle's time over the thread count.
      for (Agent agent : settings.agents()) {
        Cell b = results.get(big.cycle()).get(agent.column());
        Cell s = results.get(small.cycle()).get(agent.column());
        if (b == null || s == null) {
          continue;
        }
        Cell failed = b.failure() != null ? b : s.failure() != null ? s : null;
        record(Metrics.CYCLE_GROWTH, agent, failed != null ? failed
            : new Cell(b.value() / big.count() / (s.value() / small.count()), null, null));
      }
    }
  }

  void printTable() {
    List<String> columns = settings.agents().stream().map(Agent::column).toList();
    boolean withRatio = columns.contains("ours") && columns.contains("stock");
    List<String> footnotes = new ArrayList<>();

    List<String> header = new ArrayList<>(List.of("scenario", "unit"));
    header.addAll(columns);
    if (withRatio) {
      header.addAll(List.of("ours/stock", "better", "verdict"));
    }
    List<List<String>> rows = new ArrayList<>();
    rows.add(header);
    for (Metric metric : Metrics.METRICS) {
      if (!results.containsKey(metric)) {
        continue;  // scenario left out by --only
      }
      Map<String, Cell> byAgent = results.get(metric);
      List<String> row = new ArrayList<>(List.of(metric.name(), metric.unit()));
      for (String column : columns) {
        Cell cell = byAgent.get(column);
        if (cell == null) {
          row.add("-");
        } else if (cell.kind() == BenchFailure.Kind.NOT_IMPLEMENTED) {
          row.add("n/a (NOT_IMPLEMENTED)");
        } else if (cell.failure() != null) {
          int index = footnotes.indexOf(cell.failure());
          if (index < 0) {
            footnotes.add(cell.failure());
            index = footnotes.size() - 1;
          }
          row.add((cell.kind() == BenchFailure.Kind.MEASURED ? "failed [" : "n/a [") + (index + 1) + "]");
        } else {
          row.add(String.format(metric.format(), cell.value()));
        }
      }
      if (withRatio) {
        Cell ours = byAgent.get("ours");
        Cell stock = byAgent.get("stock");
        String better = metric.better() == Metric.Better.LOWER ? "lower" : "higher";
        if (ours != null && stock != null && ours.value() != null && stock.value() != null
            && stock.value() > 0) {
          double ratio = ours.value() / stock.value();
          double goodness = metric.better() == Metric.Better.LOWER ? 1 / ratio : ratio;
          String verdict = goodness > 1.10 ? "ours better" : goodness < 1 / 1.10 ? "ours worse" : "~same";
          // Two significant digits below 0.1: a ratio of 0.004 is not "0.00".
          row.addAll(List.of(ratio < 0.1 ? String.format("%.2g", ratio) : String.format("%.2f", ratio), better, verdict));
        } else {
          row.addAll(List.of("n/a", better, "-"));
        }
      }
      rows.add(row);
    }

    int[] widths = new int[header.size()];
    for (List<String> row : rows) {
      for (int i = 0; i < row.size(); i++) {
        widths[i] = Math.max(widths[i], row.get(i).length());
      }
    }
    System.out.println();
    System.out.printf("jdwpx bench (%s): debuggee %s%n", settings.quick() ? "quick" : "full", settings.java());
    for (Agent agent : settings.agents()) {
      System.out.printf("  %-5s = %s%n", agent.column(), agent.describe());
    }
    System.out.printf("  attach runs %d; %d round(s) of %d round trips, %d breakpoint hits, %d steps (after warm-up);"
        + " medians over runs%n", settings.attachRuns(), settings.rounds(), settings.roundTrips(),
        settings.breakpointHits(), settings.steps());
    System.out.printf("  %d invokes per run; workloads (timed by the debuggee): %d run(s) each of %d rounds of 3 small"
        + " calls (+%d into %s), of %d class loads; medians%n", settings.invokes(), settings.workloadRuns(),
        settings.callIterations(), BenchTarget.WATCHED_CALLS, WorkloadScenarios.WATCHED_CLASS, WorkloadScenarios.LOADED_CLASSES);
    System.out.printf("  inspection (raw JDWP): %d run(s) of %d calls / %d stack walks (median); RSS growth ="
        + " debuggee's peak RSS during the calls minus its RSS before%n", settings.inspectRuns(),
        settings.inspectCalls(), settings.stackWalks());
    // Figures from a busy machine are noisy; say so next to them.
    System.out.printf("  host: %d CPUs, load average %.2f at the end%n",
        Runtime.getRuntime().availableProcessors(),
        ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
    if (withRatio) {
      System.out.println("  ours/stock: below 1 wins on 'lower' rows (times), above 1 wins on 'higher' rows (rates)");
    }
    System.out.println();
    for (int r = 0; r < rows.size(); r++) {
      StringBuilder line = new StringBuilder();
      List<String> row = rows.get(r);
      for (int i = 0; i < row.size(); i++) {
        // Text columns left-aligned, figures right-aligned.
        String format = i < 2 || i == row.size() - 1 && withRatio || i == row.size() - 2 && withRatio
            ? "%-" + widths[i] + "s" : "%" + widths[i] + "s";
        line.append(String.format(format, row.get(i))).append(i + 1 < row.size() ? "  " : "");
      }
      System.out.println(line.toString().stripTrailing());
      if (r == 0) {
        System.out.println("-".repeat(line.toString().stripTrailing().length()));
      }
    }
    for (int i = 0; i < footnotes.size(); i++) {
      System.out.printf("[%d] %s%n", i + 1, footnotes.get(i));
    }
    System.out.flush();
  }

  static String oneLine(String text, int max) {
    String flat = text.replaceAll("\\s+", " ").trim();
    return flat.length() <= max ? flat : flat.substring(0, max - 3) + "...";
  }

  public static void main(String[] args) throws IOException {
    Settings settings;
    Map<String, Integer> lines;
    try {
      settings = Settings.parse(args);
      lines = Settings.readMarkers(settings.source());
    } catch (IllegalArgumentException | IOException e) {
      System.err.println("bench: " + e.getMessage());
      System.exit(2);
      return;
    }
    int status = new Bench(settings, lines).runAll();
    // JDI leaves non-daemon threads behind for VMs we never disposed.
    System.exit(status);
  }
}
