// InvokeMethod at a stop, and debugger sessions one after another on one target.

import com.sun.jdi.Field;
import com.sun.jdi.InternalException;
import com.sun.jdi.Method;
import com.sun.jdi.ObjectReference;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StringReference;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.Value;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.StepEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.StepRequest;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

final class SessionScenarios extends Scenarios {
  SessionScenarios(Settings settings, Map<String, Integer> lines) {
    super(settings, lines);
  }

  /**
   * ObjectReference.InvokeMethod of an overridden toString() on the thread
   * stopped at a SUSPEND_ALL breakpoint (so an invoke without
   * INVOKE_SINGLE_THREADED resumes and re-suspends every thread), in a loop.
   */
  Map<Metric, Double> invokeRate(Debuggee debuggee, int options, Metric metric) throws Exception {
    debuggee.attach(debuggee.awaitListening());
    Debuggee.Stop stop = debuggee.runToBreakpoint(lines.get("hot"), EventRequest.SUSPEND_ALL);
    ThreadReference thread = stop.event().thread();
    ReferenceType target = stop.event().location().declaringType();
    Field field = target.fieldByName("invokeTarget");
    ObjectReference object = (ObjectReference) target.getValue(field);
    List<Method> toStrings = object.referenceType().methodsByName("toString", "()Ljava/lang/String;");
    if (toStrings.isEmpty()) {
      throw new BenchFailure("no toString() on " + object.referenceType().name(), false);
    }
    Method toString = toStrings.get(0);
    String expected = "Point(3, 4)";
    int warmup = Math.max(5, settings.invokes() / 10);
    long start = 0;
    for (int i = 0; i < warmup + settings.invokes(); i++) {
      if (i == warmup) {
        start = System.nanoTime();
      }
      debuggee.phase = "invoke #" + (i + 1);
      Value value;
      try {
        value = object.invokeMethod(thread, toString, List.of(), options);
      } catch (UnsupportedOperationException e) {
        throw new BenchFailure("ObjectReference.InvokeMethod answered NOT_IMPLEMENTED", false,
            BenchFailure.Kind.NOT_IMPLEMENTED);
      } catch (InternalException e) {
        throw BenchFailure.measured("ObjectReference.InvokeMethod #" + (i + 1) + " answered JDWP error "
            + e.errorCode());
      }
      // Reading the string is a command of its own: checked on the first call only.
      if (i == 0 && !(value instanceof StringReference string && string.value().equals(expected))) {
        throw new BenchFailure("toString() returned " + value + ", expected \"" + expected + "\"", false);
      }
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return Map.of(metric, settings.invokes() / seconds);
  }

  /** Sessions in a row in the "sessions" scenario (after a first one that only starts the target). */
  int sessionCount() {
    return settings.quick() ? 50 : 1000;
  }

  /**
   * Debugger sessions one after another on one running target: each attaches,
   * finds the target class, stops at a SUSPEND_ALL breakpoint in hot(), steps
   * over once, invokes toString() on the stopped thread, and disposes. Per
   * session time (median) and the debuggee's RSS growth from the end of the
   * first session to the end of the last; any failing session fails the cell.
   */
  Map<Metric, Double> sessionCycles(Debuggee debuggee) throws Exception {
    debuggee.attach(debuggee.awaitListening());
    debuggee.runToBreakpoint(lines.get("hot"), EventRequest.SUSPEND_ALL);
    debuggee.vm.dispose();
    long pid = debuggee.process.pid();
    Memory before = Memory.of(pid);
    int sessions = sessionCount();
    long[] nanos = new long[sessions];
    for (int i = 0; i < sessions; i++) {
      long start = System.nanoTime();
      debuggee.attach(debuggee.awaitListening(i + 1));
      measuredSession(debuggee, i + 1);
      nanos[i] = System.nanoTime() - start;
    }
    Memory after = Memory.of(pid);
    Arrays.sort(nanos);
    return Map.of(Metrics.SESSION_CYCLE, nanos[sessions / 2] / 1e6, Metrics.SESSION_RSS, (after.rssKb() - before.rssKb()) / 1024.0);
  }

  /** oneSession, its failures reported as the measurement's (which session, in which phase). */
  private void measuredSession(Debuggee debuggee, int number) throws BenchFailure {
    try {
      oneSession(debuggee, number);
    } catch (BenchFailure e) {
      throw e;
    } catch (Exception e) {
      throw BenchFailure.measured("session #" + number + " (" + debuggee.phase + "): " + e);
    }
  }

  /** Sessions after the first in the "re-attach" scenario. */
  int reattachCount() {
    return settings.quick() ? 5 : 20;
  }

  /**
   * JDI's attach time (SocketAttach's attach(): connect, handshake, JDI's first
   * commands) on a fresh target once it listens, and again after each of
   * reattachCount() sessions (the session of sessionCycles: a breakpoint, a
   * step, an invoke, then dispose), each once the target listens again: the
   * first attach, the median of the re-attaches, and the median from each
   * dispose() to the next attach()'s end (the Listening line awaited between).
   */
  Map<Metric, Double> attachTimes(Debuggee debuggee) throws Exception {
    int port = debuggee.awaitListening();
    long start = System.nanoTime();
    debuggee.attach(port);
    double first = (System.nanoTime() - start) / 1e6;
    debuggee.runToBreakpoint(lines.get("hot"), EventRequest.SUSPEND_ALL);
    debuggee.vm.dispose();
    long disposed = System.nanoTime();
    int sessions = reattachCount();
    double[] again = new double[sessions];
    double[] sinceDispose = new double[sessions];
    for (int i = 0; i < sessions; i++) {
      port = debuggee.awaitListening(i + 1);
      start = System.nanoTime();
      debuggee.attach(port);
      long attached = System.nanoTime();
      again[i] = (attached - start) / 1e6;
      sinceDispose[i] = (attached - disposed) / 1e6;
      measuredSession(debuggee, i + 1);  // ends with its dispose()
      disposed = System.nanoTime();
    }
    Arrays.sort(again);
    Arrays.sort(sinceDispose);
    return Map.of(Metrics.ATTACH_FIRST, first, Metrics.REATTACH, again[sessions / 2], Metrics.REATTACH_FROM_DISPOSE,
        sinceDispose[sessions / 2]);
  }

  void oneSession(Debuggee debuggee, int number) throws Exception {
    VirtualMachine vm = debuggee.vm;
    debuggee.phase = "session #" + number + ": classesByName";
    List<ReferenceType> types = vm.classesByName(Debuggee.TARGET_CLASS);
    if (types.size() != 1) {
      throw BenchFailure.measured("session #" + number + ": classesByName(" + Debuggee.TARGET_CLASS + ") = " + types);
    }
    EventRequestManager requests = vm.eventRequestManager();
    BreakpointRequest breakpoint = debuggee.armBreakpoint(types.get(0), lines.get("hot"), EventRequest.SUSPEND_ALL);
    BreakpointEvent hit = null;
    while (hit == null) {
      EventSet events = debuggee.next("session #" + number + " breakpoint");
      for (Event event : events) {
        if (event instanceof BreakpointEvent b) {
          hit = b;
        }
      }
      if (hit == null) {
        events.resume();
      }
    }
    requests.deleteEventRequest(breakpoint);
    ThreadReference thread = hit.thread();
    debuggee.phase = "session #" + number + ": step";
    StepRequest step = requests.createStepRequest(thread, StepRequest.STEP_LINE, StepRequest.STEP_OVER);
    step.addCountFilter(1);
    step.setSuspendPolicy(EventRequest.SUSPEND_ALL);
    step.enable();
    vm.resume();
    StepEvent stepped = null;
    while (stepped == null) {
      EventSet events = debuggee.next("session #" + number + " step");
      for (Event event : events) {
        if (event instanceof StepEvent s) {
          stepped = s;
        }
      }
      if (stepped == null) {
        events.resume();
      }
    }
    debuggee.phase = "session #" + number + ": invoke";
    ReferenceType target = types.get(0);
    ObjectReference object = (ObjectReference) target.getValue(target.fieldByName("invokeTarget"));
    Method toString = object.referenceType().methodsByName("toString", "()Ljava/lang/String;").get(0);
    Value value = object.invokeMethod(stepped.thread(), toString, List.of(), ObjectReference.INVOKE_SINGLE_THREADED);
    if (!(value instanceof StringReference string && string.value().equals("Point(3, 4)"))) {
      throw BenchFailure.measured("session #" + number + ": toString() returned " + value);
    }
    debuggee.phase = "session #" + number + ": dispose";
    vm.dispose();
  }
}
