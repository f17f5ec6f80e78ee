// The rows of the bench table, in the order it prints them.

import java.util.ArrayList;
import java.util.List;

final class Metrics {
  private Metrics() {}

  static final Metric LAUNCH_TO_LISTEN =
      new Metric("launch -> listening line (median)", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric ATTACH_TO_BREAKPOINT =
      new Metric("attach -> first breakpoint (median)", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric ATTACH_FIRST =
      new Metric("attach (first): JDI attach() (median)", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric REATTACH =
      new Metric("re-attach after dispose: JDI attach() (median)", "ms", Metric.Better.LOWER, "%.1f");
  // What a debugger that attaches again waits for: the agent listening again, then attach().
  static final Metric REATTACH_FROM_DISPOSE =
      new Metric("re-attach: from dispose() returning to attach() returning (median)", "ms", Metric.Better.LOWER,
          "%.1f");
  static final Metric ROUND_TRIP_MEDIAN =
      new Metric("isCollected() round trip (median)", "us", Metric.Better.LOWER, "%.1f");
  static final Metric ROUND_TRIP_MEAN =
      new Metric("isCollected() round trip (mean)", "us", Metric.Better.LOWER, "%.1f");
  static final Metric RAW_ROUND_TRIP =
      new Metric("ThreadReference.SuspendCount round trip, raw JDWP (median)", "us", Metric.Better.LOWER, "%.1f");
  static final Metric BURST =
      new Metric("burst of " + RoundTripScenarios.BURST_SIZE + " pipelined reads at a stop (median per burst)", "us",
          Metric.Better.LOWER, "%.0f");
  static final Metric BREAKPOINT_RATE =
      new Metric("breakpoint hits + resume, SUSPEND_EVENT_THREAD", "hits/s", Metric.Better.HIGHER, "%.0f");
  static final Metric BREAKPOINT_RATE_ALL =
      new Metric("breakpoint hits + resume, SUSPEND_ALL", "hits/s", Metric.Better.HIGHER, "%.0f");
  static final Metric BREAKPOINT_RATE_RAW =
      new Metric("breakpoint hits + resume, SUSPEND_EVENT_THREAD, raw JDWP", "hits/s", Metric.Better.HIGHER, "%.0f");
  static final Metric BREAKPOINT_RATE_ALL_RAW =
      new Metric("breakpoint hits + resume, SUSPEND_ALL, raw JDWP", "hits/s", Metric.Better.HIGHER, "%.0f");
  static final Metric TRACE_OFF_RATE =
      new Metric("breakpoint hits + resume, trace off", "hits/s", Metric.Better.HIGHER, "%.0f");
  static final Metric TRACE_ON_RATE =
      new Metric("breakpoint hits + resume, trace=<file> on", "hits/s", Metric.Better.HIGHER, "%.0f");
  static final Metric TRACE_RATIO =
      new Metric("  trace: on / off (goal >= 0.9)", "x", Metric.Better.HIGHER, "%.2f");
  static final Metric SESSIONS_ONE_RATE =
      new Metric("breakpoint hits + resume, raw, sessions=2, one debugger", "hits/s", Metric.Better.HIGHER, "%.0f");
  static final Metric SESSIONS_TWO_RATE =
      new Metric("breakpoint hits + resume, raw, two debuggers, each", "hits/s", Metric.Better.HIGHER, "%.0f");
  static final Metric SESSIONS_RATIO =
      new Metric("  two debuggers / one (goal >= 0.5)", "x", Metric.Better.HIGHER, "%.2f");
  static final Metric STEP_RATE =
      new Metric("single steps LINE/OVER", "steps/s", Metric.Better.HIGHER, "%.0f");
  static final Metric STEP_INTO_RATE =
      new Metric("single steps LINE/INTO, java.*/jdk.*/sun.* excluded", "steps/s", Metric.Better.HIGHER, "%.0f");

  // Workloads timed by the debuggee itself (System.nanoTime around the work).
  static final Metric CALLS_BASELINE =
      new Metric("call workload, attached, no requests", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric CALLS_METHOD_EVENTS =
      new Metric("call workload, MethodEntry+Exit filtered to 1 class", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric CALLS_RATIO =
      new Metric("  method events: with requests / without", "x", Metric.Better.LOWER, "%.2f");
  static final Metric EXPIRED_BASELINE =
      new Metric("call round after the first, no requests", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric EXPIRED_BREAKPOINT =
      new Metric("call round after a Count 1 Breakpoint expired", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric EXPIRED_ENTRY =
      new Metric("call round after a Count 1 MethodEntry (class filter) expired", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric EXPIRED_WATCH =
      new Metric("call round after a Count 1 ModificationWatchpoint expired", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric LOAD_BASELINE =
      new Metric("load " + WorkloadScenarios.LOADED_CLASSES + " classes, attached, no requests", "ms",
          Metric.Better.LOWER, "%.1f");
  static final Metric LOAD_PREPARE =
      new Metric("load " + WorkloadScenarios.LOADED_CLASSES + " classes, ClassPrepare SUSPEND_NONE", "ms",
          Metric.Better.LOWER, "%.1f");
  static final Metric LOAD_PREPARE_RATIO =
      new Metric("  ClassPrepare: with request / without", "x", Metric.Better.LOWER, "%.2f");

  // SUSPEND_ALL: each class's event stops the VM until the driver resumes it
  // (what a debugger that sets breakpoints in classes as they load does).
  static final Metric LOAD_PREPARE_ALL =
      new Metric("load " + WorkloadScenarios.LOADED_CLASSES + " classes, ClassPrepare SUSPEND_ALL", "ms",
          Metric.Better.LOWER, "%.1f");
  static final Metric LOAD_PREPARE_ALL_EVENT =
      new Metric("  ClassPrepare SUSPEND_ALL: cost per event (over no requests)", "us", Metric.Better.LOWER, "%.1f");
  static final Metric LOAD_PREPARE_ALL_RAW =
      new Metric("ClassPrepare SUSPEND_ALL + resume, raw JDWP: per class, load included", "us",
          Metric.Better.LOWER, "%.1f");
  static final Metric LOAD_FILTERED =
      new Metric("load " + WorkloadScenarios.LOADED_CLASSES + " classes, ClassPrepare ClassMatch "
          + WorkloadScenarios.LOAD_FILTER, "ms", Metric.Better.LOWER, "%.1f");
  static final Metric LOAD_FILTERED_RATIO =
      new Metric("  ClassPrepare ClassMatch: with request / without", "x", Metric.Better.LOWER, "%.2f");
  static final Metric INVOKE_SINGLE =
      new Metric("InvokeMethod toString(), INVOKE_SINGLE_THREADED", "calls/s", Metric.Better.HIGHER, "%.0f");
  static final Metric INVOKE_ALL =
      new Metric("InvokeMethod toString(), all threads resumed", "calls/s", Metric.Better.HIGHER, "%.0f");
  static final Metric SESSION_CYCLE =
      new Metric("detach/attach: session with a breakpoint, a step, an invoke", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric SESSION_RSS =
      new Metric("  debuggee RSS growth over the sessions", "MB", Metric.Better.LOWER, "%.1f");

  // Inspection (raw JDWP; sizes from BenchTarget).
  static final Metric OBJECT_ARRAY_CALL =
      new Metric("ArrayReference.GetValues Object[1M] (per call)", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric OBJECT_ARRAY_RSS =
      new Metric("  debuggee RSS growth, Object[1M]", "MB", Metric.Better.LOWER, "%.1f");
  static final Metric LONG_ARRAY_CALL =
      new Metric("ArrayReference.GetValues long[10M] (per call)", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric LONG_ARRAY_RSS =
      new Metric("  debuggee RSS growth, long[10M]", "MB", Metric.Better.LOWER, "%.1f");
  static final Metric STRING_CALL =
      new Metric("StringReference.Value 50 MB (per call)", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric STRING_RSS =
      new Metric("  debuggee RSS growth, 50 MB string", "MB", Metric.Better.LOWER, "%.1f");
  static final Metric STACK_WALK =
      new Metric("Frames + GetValues of each, 2000 frames (walk)", "ms", Metric.Better.LOWER, "%.1f");

  // Class scans (issue 13 item 6): 10k+ classes loaded before the first
  // debugger attaches (suspend=n), then two sessions one after the other.
  static final Metric ALL_CLASSES_FIRST =
      new Metric("VirtualMachine.AllClasses 10k+ classes, 1st session, 1st call", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric ALL_CLASSES_REPEATED =
      new Metric("  AllClasses, 1st session, later calls", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric ALL_CLASSES_LATER =
      new Metric("  AllClasses, 2nd session, 1st call", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric ALL_CLASSES_GENERIC_LATER =
      new Metric("  AllClassesWithGeneric, 2nd session, 1st call", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric CLASSES_BY_SIGNATURE_FIRST =
      new Metric("  ClassesBySignature, 1st session, 1st call", "ms", Metric.Better.LOWER, "%.2f");
  static final Metric CLASSES_BY_SIGNATURE_LATER =
      new Metric("  ClassesBySignature, 2nd session (per call)", "ms", Metric.Better.LOWER, "%.2f");
  static final Metric INSTANCE_COUNTS =
      new Metric("VirtualMachine.InstanceCounts 1M objects", "ms", Metric.Better.LOWER, "%.1f");
  static final Metric DISPOSE_SMALL =
      new Metric("VirtualMachine.DisposeObjects 100k IDs, batches of 50 (per ID)", "us", Metric.Better.LOWER, "%.2f");
  static final Metric DISPOSE_LARGE =
      new Metric("  DisposeObjects 1M IDs, batches of 50 (per ID)", "us", Metric.Better.LOWER, "%.2f");
  static final Metric DISPOSE_GROWTH =
      new Metric("  DisposeObjects per ID: 1M IDs / 100k IDs", "x", Metric.Better.LOWER, "%.2f");
  static final Metric DISPOSE_LARGE_BIG_BATCHES =
      new Metric("  DisposeObjects 1M IDs, batches of 10,000 (per ID)", "us", Metric.Better.LOWER, "%.3f");

  // Probes (issue 30 item 7; ProbeScenarios). Stock: a JDI client at a SUSPEND_EVENT_THREAD
  // breakpoint on the same line; "-" where there is nothing of stock's to compare.
  static final Metric PROBE_CONDITION_RATE =
      new Metric("probe --if `i < 0` (never true): probed line's hits/s; stock: JDI stop, read i, test, resume"
          + " (goal ours/stock >= 100)", "hits/s", Metric.Better.HIGHER, "%.0f");
  static final Metric PROBE_NONE_NS =
      new Metric("  hot loop, no probe: per iteration", "ns", Metric.Better.LOWER, "%.1f");
  static final Metric PROBE_FALSE_NS =
      new Metric("  probe --if `false`: per hit", "ns", Metric.Better.LOWER, "%.1f");
  static final Metric PROBE_CONDITION_NS =
      new Metric("  probe --if `i < 0`: per hit", "ns", Metric.Better.LOWER, "%.1f");
  static final Metric PROBE_DISPATCH_NS =
      new Metric("  breakpoint dispatch + probe entry: (--if false) - (no probe)", "ns", Metric.Better.LOWER, "%.1f");
  static final Metric PROBE_EVALUATION_NS =
      new Metric("  added cost of a condition: (--if i < 0) - (--if false) (goal <= 2000)", "ns",
          Metric.Better.LOWER, "%.1f");
  static final Metric PROBE_LOG_RATE =
      new Metric("log probe `{i} {label}`, budget+rate lifted: lines/s received; stock: JDI logpoint"
          + " (goal ours/stock >= 100)", "lines/s", Metric.Better.HIGHER, "%.0f");
  static final Metric PROBE_BUDGET_WITHOUT =
      new Metric("hot loop in 1 s calls, 10 s runs without (either side of each run with)", "it/s", Metric.Better.HIGHER, "%.3g");
  static final Metric PROBE_BUDGET_WITH =
      new Metric("hot loop in 1 s calls, 10 s with a log probe at the default budget (1%) and rate;"
          + " stock: a breakpoint deleted at its first hit", "it/s",
          Metric.Better.HIGHER, "%.3g");
  static final Metric PROBE_BUDGET_LOSS =
      new Metric("  throughput loss: 1 - with/without (goal <= 0.02)", "x", Metric.Better.LOWER, "%.3f");
  static final Metric PROBE_BUDGET_SHORT_WITHOUT =
      new Metric("hot loop in 10 ms calls, 10 s runs without (either side of each run with)", "it/s", Metric.Better.HIGHER, "%.3g");
  static final Metric PROBE_BUDGET_SHORT_WITH =
      new Metric("hot loop in 10 ms calls, 10 s with a log probe at the default budget (1%) and rate;"
          + " stock: a breakpoint deleted at its first hit", "it/s",
          Metric.Better.HIGHER, "%.3g");
  static final Metric PROBE_BUDGET_SHORT_LOSS =
      new Metric("  throughput loss: 1 - with/without (goal <= 0.02) ", "x", Metric.Better.LOWER, "%.3f");
  static final Metric PROBE_OTHER_RATIO =
      new Metric("second thread's rate during a log probe (budget lifted) / without (goal >= 0.95)", "x",
          Metric.Better.HIGHER, "%.3f");
  static final Metric PROBE_OTHER_RATIO_LIFTED =
      new Metric("  the same, budget and rate lifted (the client on the same 2 cores)", "x", Metric.Better.HIGHER,
          "%.3f");
  static final Metric PROBE_OTHER_RATIO_NICED =
      new Metric("  the same, the client's reader at nice 19 (as a client elsewhere) (goal >= 0.95)", "x",
          Metric.Better.HIGHER, "%.3f");
  static final Metric PROBE_OTHER_GAP_WITHOUT =
      new Metric("  second thread's longest stall, no probe", "ms", Metric.Better.LOWER, "%.2f");
  static final Metric PROBE_OTHER_GAP_WITH =
      new Metric("  second thread's longest stall, log probe (budget lifted)", "ms", Metric.Better.LOWER, "%.2f");
  static final Metric PROBE_OTHER_GAP_LIFTED =
      new Metric("  second thread's longest stall, log probe (budget and rate lifted)", "ms", Metric.Better.LOWER,
          "%.2f");
  static final Metric PROBE_LEAF =
      new Metric("leaf call of a 20-deep recursion, no probe (median)", "us", Metric.Better.LOWER, "%.2f");
  static final Metric PROBE_SNAPSHOT_PAUSE =
      new Metric("  20-frame snapshot at the leaf: pause of the hitting thread (median) (goal <= 2)", "ms",
          Metric.Better.LOWER, "%.3f");

  // The goal: a thread command costs the same whatever the number of threads.
  static final Metric STATUS_GROWTH =
      new Metric("  Status per thread: 4,000 threads over 100", "x", Metric.Better.LOWER, "%.2f");
  static final Metric FRAMES_GROWTH =
      new Metric("  FrameCount per thread: 4,000 threads over 100", "x", Metric.Better.LOWER, "%.2f");
  static final Metric CYCLE_GROWTH =
      new Metric("  Resume + Suspend per thread: 4,000 threads over 100", "x", Metric.Better.LOWER, "%.2f");

  // Many threads (issue 13 item 8): what an IDE does on every stop, at a
  // SUSPEND_ALL breakpoint with `count` parked threads.
  record ThreadRows(int count, boolean virtual, Metric cycle, Metric all, Metric status, Metric frames) {
    static ThreadRows of(int count, boolean virtual) {
      String n = String.format("%,d %sthreads: ", count, virtual ? "virtual " : "");
      return new ThreadRows(count, virtual,
          new Metric(n + "VirtualMachine.Resume + Suspend", "ms", Metric.Better.LOWER, "%.2f"),
          new Metric(n + "VirtualMachine.AllThreads", "ms", Metric.Better.LOWER, "%.2f"),
          new Metric(n + "ThreadReference.Status, per thread", "us", Metric.Better.LOWER, "%.1f"),
          new Metric(n + "ThreadReference.FrameCount, per thread", "us", Metric.Better.LOWER, "%.1f"));
    }

    List<Metric> metrics() {
      return List.of(cycle, all, status, frames);
    }

    String mode() {
      return (virtual ? "vthreads=" : "threads=") + count;
    }
  }

  static final List<ThreadRows> THREAD_ROWS = List.of(ThreadRows.of(100, false), ThreadRows.of(1_000, false),
      ThreadRows.of(4_000, false), ThreadRows.of(10_000, true));

  static final List<Metric> METRICS = withThreadRows(LAUNCH_TO_LISTEN, ATTACH_TO_BREAKPOINT, ATTACH_FIRST, REATTACH, REATTACH_FROM_DISPOSE,
      ROUND_TRIP_MEDIAN, ROUND_TRIP_MEAN, RAW_ROUND_TRIP, BURST, BREAKPOINT_RATE, BREAKPOINT_RATE_ALL, BREAKPOINT_RATE_RAW,
      BREAKPOINT_RATE_ALL_RAW,
      TRACE_OFF_RATE, TRACE_ON_RATE, TRACE_RATIO, SESSIONS_ONE_RATE, SESSIONS_TWO_RATE, SESSIONS_RATIO,
      STEP_RATE, STEP_INTO_RATE,
      CALLS_BASELINE, CALLS_METHOD_EVENTS, CALLS_RATIO,
      EXPIRED_BASELINE, EXPIRED_BREAKPOINT, EXPIRED_ENTRY, EXPIRED_WATCH,
      LOAD_BASELINE, LOAD_PREPARE, LOAD_PREPARE_RATIO, LOAD_PREPARE_ALL, LOAD_PREPARE_ALL_EVENT, LOAD_PREPARE_ALL_RAW,
      LOAD_FILTERED,
      LOAD_FILTERED_RATIO,
      INVOKE_SINGLE, INVOKE_ALL, SESSION_CYCLE, SESSION_RSS,
      OBJECT_ARRAY_CALL, OBJECT_ARRAY_RSS, LONG_ARRAY_CALL, LONG_ARRAY_RSS, STRING_CALL, STRING_RSS,
      STACK_WALK, ALL_CLASSES_FIRST, ALL_CLASSES_REPEATED, ALL_CLASSES_LATER, ALL_CLASSES_GENERIC_LATER,
      CLASSES_BY_SIGNATURE_FIRST, CLASSES_BY_SIGNATURE_LATER, INSTANCE_COUNTS,
      DISPOSE_SMALL, DISPOSE_LARGE, DISPOSE_GROWTH, DISPOSE_LARGE_BIG_BATCHES,
      PROBE_CONDITION_RATE, PROBE_NONE_NS, PROBE_FALSE_NS, PROBE_CONDITION_NS, PROBE_DISPATCH_NS,
      PROBE_EVALUATION_NS, PROBE_LOG_RATE, PROBE_BUDGET_WITHOUT, PROBE_BUDGET_WITH, PROBE_BUDGET_LOSS,
      PROBE_BUDGET_SHORT_WITHOUT, PROBE_BUDGET_SHORT_WITH, PROBE_BUDGET_SHORT_LOSS,
      PROBE_OTHER_RATIO, PROBE_OTHER_RATIO_LIFTED, PROBE_OTHER_RATIO_NICED,
      PROBE_OTHER_GAP_WITHOUT, PROBE_OTHER_GAP_WITH, PROBE_OTHER_GAP_LIFTED, PROBE_LEAF, PROBE_SNAPSHOT_PAUSE);

  static List<Metric> withThreadRows(Metric... metrics) {
    List<Metric> all = new ArrayList<>(List.of(metrics));
    THREAD_ROWS.forEach(rows -> all.addAll(rows.metrics()));
    all.addAll(List.of(STATUS_GROWTH, FRAMES_GROWTH, CYCLE_GROWTH));
    return List.copyOf(all);
  }
}
