// Workloads timed by the debuggee itself, with the requests an IDE sets and
// without: method events, expired requests, class prepare (JDI and raw).

import com.sun.jdi.InternalException;
import com.sun.jdi.Location;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.LocatableEvent;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.event.MethodExitEvent;
import com.sun.jdi.event.ModificationWatchpointEvent;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.MethodEntryRequest;
import com.sun.jdi.request.MethodExitRequest;
import java.util.Map;

final class WorkloadScenarios extends Scenarios {
  WorkloadScenarios(Settings settings, Map<String, Integer> lines) {
    super(settings, lines);
  }

  // The class-load workload's size, and the ClassMatch pattern of its filtered
  // request: it matches LoadGen15, LoadGen150..159 and LoadGen1500..1599.
  static final int LOADED_CLASSES = 3_000;

  static final String LOAD_FILTER = BenchTarget.LOADED_PREFIX + "15*";

  static final String WATCHED_CLASS = Debuggee.TARGET_CLASS + "$Watched";

  static final String EXPIRING_CLASS = Debuggee.TARGET_CLASS + "$Expiring";

  /** Enables a request; an agent refusing it with NOT_IMPLEMENTED gets its own kind of cell. */
  static void enable(EventRequest request, String what) throws BenchFailure {
    try {
      request.enable();
    } catch (UnsupportedOperationException e) {  // JDI's form of NOT_IMPLEMENTED
      throw new BenchFailure(what + " answered NOT_IMPLEMENTED", false, BenchFailure.Kind.NOT_IMPLEMENTED);
    } catch (InternalException e) {
      throw BenchFailure.measured(what + " failed: " + e.getMessage());
    }
  }

  /**
   * The call workload (settings.callIterations() rounds of small calls outside
   * Watched, BenchTarget.WATCHED_CALLS calls into it), with or without the
   * requests an IDE's method breakpoint on Watched makes: MethodEntry and
   * MethodExit filtered to the class, suspending the event thread. Returns the
   * workload's own run time.
   */
  Map<Metric, Double> callWorkload(Debuggee debuggee, boolean withRequests) throws Exception {
    EventSet start = debuggee.attachAtStart();
    if (withRequests) {
      debuggee.phase = "setting the method event requests";
      EventRequestManager requests = debuggee.vm.eventRequestManager();
      MethodEntryRequest entry = requests.createMethodEntryRequest();
      entry.addClassFilter(WATCHED_CLASS);
      entry.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
      enable(entry, "EventRequest.Set MethodEntry");
      MethodExitRequest exit = requests.createMethodExitRequest();
      exit.addClassFilter(WATCHED_CLASS);
      exit.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
      enable(exit, "EventRequest.Set MethodExit");
    }
    start.resume();
    int[] entries = {0};
    int[] exits = {0};
    long nanos = debuggee.serveEventsUntilResult(event -> {
      if (event instanceof MethodEntryEvent || event instanceof MethodExitEvent) {
        Location at = ((LocatableEvent) event).location();
        if (!at.declaringType().name().equals(WATCHED_CLASS)) {
          throw BenchFailure.measured(event.getClass().getSimpleName() + " in " + at.declaringType().name()
              + ", outside the class filter " + WATCHED_CLASS);
        }
        (event instanceof MethodEntryEvent ? entries : exits)[0]++;
      }
    });
    int expected = withRequests ? BenchTarget.WATCHED_CALLS : 0;
    if (entries[0] != expected || exits[0] != expected) {
      throw BenchFailure.measured(entries[0] + " MethodEntry and " + exits[0] + " MethodExit events, expected "
          + expected + " of each");
    }
    return Map.of(withRequests ? Metrics.CALLS_METHOD_EVENTS : Metrics.CALLS_BASELINE, nanos / 1e6);
  }

  /**
   * Rounds of calls of Expiring.touch after a request with a Count of 1 fired
   * in the first round and was left in place, as JDI clients leave such
   * requests ("run to cursor"): a Breakpoint in touch, a MethodEntry filtered
   * to Expiring, or a ModificationWatchpoint on the field touch writes; or
   * none. Set at Expiring's ClassPrepare. Returns the last round's run time: an
   * expired request should cost nothing there.
   */
  Map<Metric, Double> expiredRequest(Debuggee debuggee, Metric metric) throws Exception {
    EventSet start = debuggee.attachAtStart();
    EventRequestManager requests = debuggee.vm.eventRequestManager();
    if (metric != Metrics.EXPIRED_BASELINE) {
      debuggee.phase = "setting the ClassPrepare request";
      ClassPrepareRequest prepare = requests.createClassPrepareRequest();
      prepare.addClassFilter(EXPIRING_CLASS);
      prepare.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
      enable(prepare, "EventRequest.Set ClassPrepare");
    }
    start.resume();
    int[] fired = {0};
    long nanos = debuggee.serveEventsUntilResult(event -> {
      if (event instanceof ClassPrepareEvent prepared && prepared.referenceType().name().equals(EXPIRING_CLASS)) {
        ReferenceType type = prepared.referenceType();
        EventRequest once;
        if (metric == Metrics.EXPIRED_BREAKPOINT) {
          once = requests.createBreakpointRequest(type.methodsByName("touch").get(0).location());
        } else if (metric == Metrics.EXPIRED_ENTRY) {
          MethodEntryRequest entry = requests.createMethodEntryRequest();
          entry.addClassFilter(EXPIRING_CLASS);
          once = entry;
        } else {
          once = requests.createModificationWatchpointRequest(type.fieldByName("last"));
        }
        once.addCountFilter(1);
        once.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        enable(once, "EventRequest.Set with Count 1");
        requests.deleteEventRequest(event.request());
      } else if (event instanceof BreakpointEvent || event instanceof MethodEntryEvent
          || event instanceof ModificationWatchpointEvent) {
        fired[0]++;
      }
    });
    int expected = metric == Metrics.EXPIRED_BASELINE ? 0 : 1;
    if (fired[0] != expected) {
      throw BenchFailure.measured(fired[0] + " events of the Count 1 request, expected " + expected);
    }
    return Map.of(metric, nanos / 1e6);
  }

  /** Whether a class name matches a JDWP ClassMatch pattern with a trailing '*' (all ours has). */
  static boolean matchesPattern(String name, String pattern) {
    return pattern.endsWith("*") ? name.startsWith(pattern.substring(0, pattern.length() - 1))
        : name.equals(pattern);
  }

  /**
   * Defining, linking and initializing LOADED_CLASSES classes, with no request,
   * a ClassPrepare request of SUSPEND_NONE (or SUSPEND_ALL, each set resumed by the driver), or one filtered by LOAD_FILTER.
   * Returns the loading's own run time. The events of an active request are
   * counted (they may arrive after the run time: SUSPEND_NONE does not wait).
   */
  Map<Metric, Double> classLoads(Debuggee debuggee, String classFilter, Metric metric) throws Exception {
    boolean withRequest = metric != Metrics.LOAD_BASELINE;
    EventSet start = debuggee.attachAtStart();
    if (withRequest) {
      debuggee.phase = "setting the ClassPrepare request";
      ClassPrepareRequest prepare = debuggee.vm.eventRequestManager().createClassPrepareRequest();
      if (classFilter != null) {
        prepare.addClassFilter(classFilter);
      }
      prepare.setSuspendPolicy(metric == Metrics.LOAD_PREPARE_ALL ? EventRequest.SUSPEND_ALL : EventRequest.SUSPEND_NONE);
      enable(prepare, "EventRequest.Set ClassPrepare");
    }
    start.resume();
    int expected = 0;
    for (int i = 0; withRequest && i < LOADED_CLASSES; i++) {
      if (classFilter == null || matchesPattern(BenchTarget.LOADED_PREFIX + i, classFilter)) {
        expected++;
      }
    }
    int[] seen = {0};
    Debuggee.EventHandler count = event -> {
      if (event instanceof ClassPrepareEvent prepared) {
        String name = prepared.referenceType().name();
        if (classFilter != null && !matchesPattern(name, classFilter)) {
          throw BenchFailure.measured("ClassPrepare event for " + name + " despite the filter " + classFilter);
        }
        if (name.startsWith(BenchTarget.LOADED_PREFIX)) {
          seen[0]++;
        }
      }
    };
    long nanos = debuggee.serveEventsUntilResult(count);
    debuggee.phase = "counting ClassPrepare events";
    long giveUp = System.nanoTime() + settings.eventTimeoutMs() * 1_000_000;
    while (seen[0] < expected && System.nanoTime() < giveUp) {
      EventSet events = debuggee.vm.eventQueue().remove(100);
      if (events != null) {
        for (Event event : events) {
          count.accept(event);
        }
      }
    }
    if (seen[0] != expected) {
      throw BenchFailure.measured(seen[0] + " ClassPrepare events for the generated classes, expected " + expected);
    }
    return Map.of(metric, nanos / 1e6);
  }

  /**
   * The SUSPEND_ALL ClassPrepare loop with a bare client: each LoadGen* class's
   * event answered by VirtualMachine.Resume, timed from the first event to the
   * last; per class, its loading included (JDI's share left out, as above).
   */
  Map<Metric, Double> classPrepareRaw(Debuggee debuggee) throws Exception {
    try (Jdwp jdwp = attachForEvents(debuggee,
        j -> j.requestWithClassMatch(8, EventRequest.SUSPEND_ALL, BenchTarget.LOADED_PREFIX + "*"))) {
      return measure(debuggee, "raw ClassPrepare events", () -> {
        long start = 0;
        for (int seen = 0; seen < LOADED_CLASSES; seen++) {
          Jdwp.Reply event = nextEventOf(jdwp, 8, "ClassPrepare #" + (seen + 1));
          event.objectId();  // thread
          event.u8();        // refTypeTag
          event.id(jdwp.referenceTypeIdSize);
          String signature = event.string();
          // The target defines its classes in order: any other is a filter not applied.
          if (!signature.equals("L" + BenchTarget.LOADED_PREFIX + seen + ";")) {
            throw BenchFailure.measured("ClassPrepare #" + (seen + 1) + " for " + signature + ", expected "
                + BenchTarget.LOADED_PREFIX + seen);
          }
          if (seen == 0) {
            start = System.nanoTime();
          }
          jdwp.command("VirtualMachine.Resume", 1, 9, new Jdwp.Body());
        }
        return Map.of(Metrics.LOAD_PREPARE_ALL_RAW, (System.nanoTime() - start) / 1e3 / (LOADED_CLASSES - 1));
      });
    }
  }
}
