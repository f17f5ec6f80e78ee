// Attach, breakpoint hits and single steps, through JDI and through the raw client.

import com.sun.jdi.Location;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.StepEvent;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.StepRequest;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Set;

final class BreakpointScenarios extends Scenarios {
  BreakpointScenarios(Settings settings, Map<String, Integer> lines) {
    super(settings, lines);
  }

  /** One attach: wait for the listening line, attach, stop on the first line of main. */
  Map<Metric, Double> attachToFirstBreakpoint(Debuggee debuggee) throws Exception {
    int port = debuggee.awaitListening();
    long attachStart = System.nanoTime();
    debuggee.attach(port);
    debuggee.runToBreakpoint(lines.get("first"), EventRequest.SUSPEND_EVENT_THREAD);
    long hit = System.nanoTime();
    return Map.of(Metrics.LAUNCH_TO_LISTEN, (debuggee.listeningAt - debuggee.launchedAt) / 1e6,
        Metrics.ATTACH_TO_BREAKPOINT, (hit - attachStart) / 1e6);
  }

  /** A breakpoint in a method called from a hot loop: hit, resume the set, repeat. */
  Map<Metric, Double> breakpointRate(Debuggee debuggee, int suspendPolicy, Metric metric) throws Exception {
    debuggee.attach(debuggee.awaitListening());
    Debuggee.Stop stop = debuggee.runToBreakpoint(lines.get("hot"), suspendPolicy);
    Location expected = stop.event().location();
    EventSet pending = stop.events();
    int warmup = Math.max(20, settings.breakpointHits() / 10);
    long start = 0;
    for (int hits = 0; hits < warmup + settings.breakpointHits(); ) {
      if (hits == warmup) {
        start = System.nanoTime();
      }
      pending.resume();
      pending = debuggee.next("breakpoint hit #" + (hits + 1));
      for (Event event : pending) {
        if (event instanceof BreakpointEvent hit) {
          if (!hit.location().equals(expected)) {
            throw new BenchFailure("breakpoint reported at " + hit.location() + ", expected " + expected,
                false);
          }
          hits++;
        }
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return Map.of(metric, settings.breakpointHits() / seconds);
  }

  /**
   * breakpointRate's loop with a bare client instead of JDI: a breakpoint at the
   * start of hot(), each hit answered by ThreadReference.Resume (SUSPEND_EVENT_THREAD)
   * or VirtualMachine.Resume (SUSPEND_ALL). JDI's own work per event (its reader
   * thread, event queue and reply matching) costs as much CPU as an agent's on a
   * 2-core machine and is in both columns of the JDI rows, which pulls their
   * ratio towards 1; this row is the agents' own turn.
   */
  Map<Metric, Double> breakpointRateRaw(Debuggee debuggee, int suspendPolicy, Metric metric) throws Exception {
    try (Jdwp jdwp = attachForEvents(debuggee, j -> j.requestWithClassMatch(8, EventRequest.SUSPEND_ALL, Debuggee.TARGET_CLASS))) {
      try {
        debuggee.phase = "waiting for " + Debuggee.TARGET_CLASS + "'s ClassPrepare";
        nextEventOf(jdwp, 8, "ClassPrepare");
        debuggee.phase = "setting the breakpoint";
        long type = classBySignature(jdwp, "L" + Debuggee.TARGET_CLASS + ";");
        long hot = methodNamed(jdwp, type, "hot");
        jdwp.command("EventRequest.Set Breakpoint", 15, 1, new Jdwp.Body().u8(2).u8(suspendPolicy).i32(1)
            .u8(7).u8(1).id(type, jdwp.referenceTypeIdSize).id(hot, jdwp.methodIdSize).id(0, 8));
        jdwp.command("VirtualMachine.Resume", 1, 9, new Jdwp.Body());
      } catch (IOException | Jdwp.ErrorReply e) {
        throw new BenchFailure(debuggee.phase + ": " + e + " (" + debuggee.exitDescription() + ")", false);
      }
      int warmup = Math.max(20, settings.breakpointHits() / 10);
      return measure(debuggee, "raw breakpoint hits", () -> {
        long start = 0;
        for (int hits = 0; hits < warmup + settings.breakpointHits(); hits++) {
          if (hits == warmup) {
            start = System.nanoTime();
          }
          long thread = nextEventOf(jdwp, 2, "breakpoint hit #" + (hits + 1)).objectId();
          if (suspendPolicy == EventRequest.SUSPEND_ALL) {
            jdwp.command("VirtualMachine.Resume", 1, 9, new Jdwp.Body());
          } else {
            jdwp.command("ThreadReference.Resume", 11, 3, new Jdwp.Body().id(thread, jdwp.objectIdSize));
          }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return Map.of(metric, settings.breakpointHits() / seconds);
      });
    }
  }

  /**
   * breakpointRateRaw's loop with two debuggers attached at once (sessions=2,
   * issue 31): each sets the same SUSPEND_EVENT_THREAD breakpoint, so every hit
   * is an event for both, and the thread runs on once both have resumed it. The
   * rate is the hits each debugger sees per second (the issue's goal: at least
   * half of one debugger's rate, the "one debugger" variant, run with the same
   * option).
   */
  Map<Metric, Double> breakpointRateTwoSessions(Debuggee debuggee, Metric metric) throws Exception {
    try (Jdwp first = attachForEvents(debuggee, j -> j.requestWithClassMatch(8, EventRequest.SUSPEND_ALL, Debuggee.TARGET_CLASS))) {
      Jdwp second = null;
      try {
        debuggee.phase = "waiting for " + Debuggee.TARGET_CLASS + "'s ClassPrepare";
        nextEventOf(first, 8, "ClassPrepare");
        // The VM is suspended by the first at its ClassPrepare: the second attaches and sets its breakpoint meanwhile.
        debuggee.phase = "second debugger's attach";
        second = new Jdwp(debuggee.awaitListening(), (int) settings.launchTimeoutMs());
        second.readTimeout((int) settings.cellTimeoutMs());
        second.keepEvents();
        debuggee.phase = "setting the breakpoints";
        for (Jdwp jdwp : List.of(first, second)) {
          long type = classBySignature(jdwp, "L" + Debuggee.TARGET_CLASS + ";");
          long hot = methodNamed(jdwp, type, "hot");
          jdwp.command("EventRequest.Set Breakpoint", 15, 1, new Jdwp.Body().u8(2).u8(EventRequest.SUSPEND_EVENT_THREAD)
              .i32(1).u8(7).u8(1).id(type, jdwp.referenceTypeIdSize).id(hot, jdwp.methodIdSize).id(0, 8));
        }
        first.command("VirtualMachine.Resume", 1, 9, new Jdwp.Body());
      } catch (IOException | Jdwp.ErrorReply e) {
        if (second != null) {
          second.close();
        }
        throw new BenchFailure(debuggee.phase + ": " + e + " (" + debuggee.exitDescription() + ")", false);
      }
      try (Jdwp other = second) {
        int warmup = Math.max(20, settings.breakpointHits() / 10);
        int total = warmup + settings.breakpointHits();
        return measure(debuggee, "raw breakpoint hits, two debuggers", () -> {
          // Each debugger in a thread of its own, as two debugger processes would be.
          java.util.concurrent.CompletableFuture<Void> secondLoop = java.util.concurrent.CompletableFuture.runAsync(() -> {
            try {
              for (int hits = 0; hits < total; hits++) {
                long thread = nextEventOf(other, 2, "second debugger's hit #" + (hits + 1)).objectId();
                other.command("ThreadReference.Resume", 11, 3, new Jdwp.Body().id(thread, other.objectIdSize));
              }
            } catch (IOException | Jdwp.ErrorReply e) {
              throw new java.util.concurrent.CompletionException(e);
            }
          });
          long start = 0;
          for (int hits = 0; hits < total; hits++) {
            if (hits == warmup) {
              start = System.nanoTime();
            }
            long thread = nextEventOf(first, 2, "first debugger's hit #" + (hits + 1)).objectId();
            first.command("ThreadReference.Resume", 11, 3, new Jdwp.Body().id(thread, first.objectIdSize));
          }
          secondLoop.join();
          double seconds = (System.nanoTime() - start) / 1e9;
          return Map.of(metric, settings.breakpointHits() / seconds);
        });
      }
    }
  }

  /**
   * Steps the way an IDE does: one StepRequest(LINE, OVER) with a count filter
   * of 1 per step, deleted after its event. The loop body calls a method, so
   * OVER has to step over a call once per iteration.
   */
  Map<Metric, Double> stepOverRate(Debuggee debuggee) throws Exception {
    Set<Integer> loopLines = Set.of(lines.get("loop-head"), lines.get("loop-a"),
        lines.get("loop-b"), lines.get("loop-c"));
    return stepRate(debuggee, StepRequest.STEP_OVER, "loop-a", loopLines, Set.of("main"), Metrics.STEP_RATE);
  }

  /**
   * STEP_INTO as an IDE sends it (java.*, jdk.*, sun.* excluded) through a
   * loop whose lines call into our code (hot: the step stops there) and into
   * the JDK (Long.toString: excluded, so the agent has to step back out).
   */
  Map<Metric, Double> stepIntoRate(Debuggee debuggee) throws Exception {
    Set<Integer> loopLines = Set.of(lines.get("into-head"), lines.get("into-a"), lines.get("into-b"),
        lines.get("into-c"), lines.get("hot"));
    return stepRate(debuggee, StepRequest.STEP_INTO, "into-a", loopLines, Set.of("stepIntoLoop", "hot"),
        Metrics.STEP_INTO_RATE);
  }

  Map<Metric, Double> stepRate(Debuggee debuggee, int depth, String startMarker, Set<Integer> loopLines,
      Set<String> loopMethods, Metric metric) throws Exception {
    Debuggee.Stop stop = attachAndStop(debuggee, startMarker);
    EventRequestManager requests = debuggee.vm.eventRequestManager();
    requests.deleteEventRequest(stop.event().request());
    ThreadReference thread = stop.event().thread();
    EventSet pending = stop.events();
    int warmup = Math.max(10, settings.steps() / 10);
    long start = 0;
    for (int steps = 0; steps < warmup + settings.steps(); ) {
      if (steps == warmup) {
        start = System.nanoTime();
      }
      debuggee.phase = "creating step request #" + (steps + 1);
      StepRequest step = requests.createStepRequest(thread, StepRequest.STEP_LINE, depth);
      if (depth == StepRequest.STEP_INTO) {
        for (String excluded : List.of("java.*", "jdk.*", "sun.*")) {
          step.addClassExclusionFilter(excluded);
        }
      }
      step.addCountFilter(1);
      step.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
      step.enable();
      pending.resume();
      pending = debuggee.next("step event #" + (steps + 1));
      for (Event event : pending) {
        if (event instanceof StepEvent stepped) {
          Location at = stepped.location();
          if (!at.declaringType().name().equals(Debuggee.TARGET_CLASS) || !loopLines.contains(at.lineNumber())
              || !loopMethods.contains(at.method().name())) {
            throw new BenchFailure("step landed on " + at + ", outside the loop lines " + loopLines, false);
          }
          steps++;
        }
      }
      requests.deleteEventRequest(step);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return Map.of(metric, settings.steps() / seconds);
  }
}
