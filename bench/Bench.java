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
// Usage: java -cp <classes> Bench --source BenchTarget.java [--classes DIR] [--java PATH]
//            [--ours LIB|stock|none] [--stock stock|none] [--quick]
// Exit status: 0 when the stock column is complete, 1 otherwise (a failing
// "ours" column never fails the run; it is what we are measuring), 2 on usage.

import com.sun.jdi.Bootstrap;
import com.sun.jdi.Location;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.ThreadReference;
import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.StepEvent;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.event.VMStartEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import com.sun.jdi.request.StepRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public final class Bench {
  static final String TARGET_CLASS = "BenchTarget";

  // ---------------------------------------------------------------- settings

  /** One column of the table: which agent the debuggee loads. */
  record Agent(String column, String library) {
    boolean isStock() {
      return library == null;
    }

    String jvmOption() {
      String options = "transport=dt_socket,server=y,suspend=y,address=0";
      return isStock() ? "-agentlib:jdwp=" + options : "-agentpath:" + library + "=" + options;
    }

    String describe() {
      return isStock() ? "stock -agentlib:jdwp" : "-agentpath:" + library;
    }
  }

  record Settings(
      String java,
      Path classes,
      Path source,
      List<Agent> agents,
      boolean quick,
      int attachRuns,
      int rounds,
      int roundTrips,
      int breakpointHits,
      int steps,
      long launchTimeoutMs,
      long eventTimeoutMs,
      long cellTimeoutMs) {

    static Settings parse(String[] args) {
      String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
      Path classes = null;
      Path source = null;
      String ours = "none";
      String stock = "stock";
      boolean quick = false;
      for (int i = 0; i < args.length; i++) {
        String flag = args[i];
        switch (flag) {
          case "--quick" -> quick = true;
          case "--java", "--classes", "--source", "--ours", "--stock" -> {
            if (i + 1 >= args.length) {
              throw new IllegalArgumentException(flag + " needs a value");
            }
            String value = args[++i];
            switch (flag) {
              case "--java" -> java = value;
              case "--classes" -> classes = Path.of(value);
              case "--source" -> source = Path.of(value);
              case "--ours" -> ours = value;
              default -> stock = value;
            }
          }
          default -> throw new IllegalArgumentException("unknown argument " + flag);
        }
      }
      if (source == null) {
        throw new IllegalArgumentException("--source <BenchTarget.java> is required");
      }
      if (classes == null) {
        // The driver and the debuggee are compiled into the same directory.
        classes = Path.of(Bench.class.getProtectionDomain().getCodeSource().getLocation().getPath());
      }
      List<Agent> agents = new ArrayList<>();
      if (!ours.equals("none")) {
        agents.add(new Agent("ours", ours.equals("stock") ? null : ours));
      }
      if (stock.equals("stock")) {
        agents.add(new Agent("stock", null));
      } else if (!stock.equals("none")) {
        throw new IllegalArgumentException("--stock takes 'stock' or 'none'");
      }
      if (agents.isEmpty()) {
        throw new IllegalArgumentException("nothing to run: both --ours and --stock are none");
      }
      return quick
          ? new Settings(java, classes, source, agents, true, 2, 1, 200, 200, 100, 5_000, 5_000, 20_000)
          : new Settings(java, classes, source, agents, false, 10, 4, 20_000, 20_000, 5_000, 10_000, 10_000, 60_000);
    }
  }

  // ----------------------------------------------------------------- markers

  /** Line numbers of the "// BENCH:name" markers in BenchTarget.java. */
  static Map<String, Integer> readMarkers(Path source) throws IOException {
    Pattern marker = Pattern.compile("//\\s*BENCH:([\\w-]+)\\s*$");
    Map<String, Integer> lines = new HashMap<>();
    List<String> text = Files.readAllLines(source, StandardCharsets.UTF_8);
    for (int i = 0; i < text.size(); i++) {
      Matcher m = marker.matcher(text.get(i));
      if (m.find() && lines.put(m.group(1), i + 1) != null) {
        throw new IOException("marker BENCH:" + m.group(1) + " appears twice in " + source);
      }
    }
    for (String needed : List.of("first", "loop-head", "loop-a", "loop-b", "loop-c", "hot")) {
      if (!lines.containsKey(needed)) {
        throw new IOException("marker BENCH:" + needed + " missing from " + source);
      }
    }
    return lines;
  }

  // ---------------------------------------------------------------- failures

  /** A cell failed for a reason we can state in one line. */
  static final class BenchFailure extends Exception {
    private static final long serialVersionUID = 1L;
    final boolean agentUnusable;

    BenchFailure(String reason, boolean agentUnusable) {
      super(reason);
      this.agentUnusable = agentUnusable;
    }
  }

  static String oneLine(String text, int max) {
    String flat = text.replaceAll("\\s+", " ").trim();
    return flat.length() <= max ? flat : flat.substring(0, max - 3) + "...";
  }

  // ---------------------------------------------------------------- debuggee

  /** Last lines the debuggee printed (stdout and stderr merged), for failure reasons. */
  static final class OutputTail {
    private final ArrayDeque<String> lines = new ArrayDeque<>();

    synchronized void add(String line) {
      if (lines.size() == 8) {
        lines.removeFirst();
      }
      lines.addLast(line);
    }

    synchronized String text() {
      return lines.isEmpty() ? "(no output)" : String.join(" | ", lines);
    }
  }

  /** A thread stopped by a breakpoint, and the event set that resumes it. */
  record Stop(BreakpointEvent event, EventSet events) {}

  /** One launched debuggee and, once attached, its JDI mirror. */
  static final class Debuggee implements AutoCloseable {
    private static final Pattern LISTENING =
        Pattern.compile("Listening for transport dt_socket at address: (\\d+)");
    private static final ScheduledExecutorService DEADLINES =
        Executors.newSingleThreadScheduledExecutor(r -> {
          Thread t = new Thread(r, "bench-deadline");
          t.setDaemon(true);
          return t;
        });

    final Settings settings;
    final Process process;
    final long launchedAt;
    final OutputTail tail = new OutputTail();
    private final CompletableFuture<Integer> port = new CompletableFuture<>();
    private final ScheduledFuture<?> deadline;
    private volatile boolean deadlineHit;
    private volatile boolean attachTimedOut;
    volatile String phase = "launch";
    long listeningAt;
    VirtualMachine vm;

    Debuggee(Settings settings, Agent agent) throws BenchFailure {
      this.settings = settings;
      List<String> command = List.of(settings.java(), agent.jvmOption(), "-Xshare:auto",
          "-cp", settings.classes().toString(), TARGET_CLASS,
          Long.toString(settings.cellTimeoutMs() / 1000 + 30));
      launchedAt = System.nanoTime();
      try {
        process = new ProcessBuilder(command).redirectErrorStream(true).start();
      } catch (IOException e) {
        throw new BenchFailure("cannot start " + settings.java() + ": " + e.getMessage(), true);
      }
      Thread reader = new Thread(this::pumpOutput, "bench-output");
      reader.setDaemon(true);
      reader.start();
      deadline = DEADLINES.schedule(() -> {
        deadlineHit = true;
        process.destroyForcibly();
      }, settings.cellTimeoutMs(), TimeUnit.MILLISECONDS);
    }

    private void pumpOutput() {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = in.readLine()) != null; ) {
          tail.add(line);
          Matcher m = LISTENING.matcher(line);
          if (!port.isDone() && m.find()) {
            listeningAt = System.nanoTime();
            port.complete(Integer.parseInt(m.group(1)));
          }
        }
      } catch (IOException ignored) {
        // The process was killed; whatever we read is in the tail.
      }
      port.completeExceptionally(new IOException("output closed"));
    }

    /** Waits for the agent's "Listening for transport ..." line; returns the port. */
    int awaitListening() throws BenchFailure {
      phase = "waiting for the listening line";
      try {
        return port.get(settings.launchTimeoutMs(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        throw new BenchFailure("no 'Listening for transport dt_socket at address:' line within "
            + settings.launchTimeoutMs() / 1000 + " s; output: " + tail.text(), true);
      } catch (Exception e) {
        try {
          process.waitFor(2, TimeUnit.SECONDS);  // output closes just before the exit status is known
        } catch (InterruptedException interrupted) {
          Thread.currentThread().interrupt();
        }
        throw new BenchFailure("debuggee ended before listening (" + exitDescription() + "); output: "
            + tail.text(), true);
      }
    }

    void attach(int port) throws BenchFailure {
      phase = "attach";
      AttachingConnector connector = Bootstrap.virtualMachineManager().attachingConnectors().stream()
          .filter(c -> c.name().equals("com.sun.jdi.SocketAttach"))
          .findFirst()
          .orElseThrow(() -> new IllegalStateException("JDI has no SocketAttach connector"));
      Map<String, Connector.Argument> arguments = connector.defaultArguments();
      arguments.get("hostname").setValue("localhost");
      arguments.get("port").setValue(Integer.toString(port));
      arguments.get("timeout").setValue(Long.toString(settings.launchTimeoutMs()));
      // JDI bounds the connect but not the handshake nor its first commands
      // (Version, IDSizes): a mute agent would hang attach() for good, so the
      // whole attach gets the launch timeout and a kill when it runs out.
      attachTimedOut = false;
      ScheduledFuture<?> guard = DEADLINES.schedule(() -> {
        attachTimedOut = true;
        process.destroyForcibly();
      }, settings.launchTimeoutMs(), TimeUnit.MILLISECONDS);
      try {
        vm = connector.attach(arguments);
      } catch (Exception e) {
        if (attachTimedOut) {
          throw new BenchFailure("attach to port " + port + " (handshake + JDI's first commands) did not "
              + "complete within " + settings.launchTimeoutMs() / 1000 + " s", true);
        }
        throw new BenchFailure("attach to port " + port + " failed: " + e, true);
      } finally {
        guard.cancel(false);
      }
    }

    /** Next event set, or a failure naming what we were waiting for. */
    EventSet next(String waitingFor) throws BenchFailure, InterruptedException {
      phase = "waiting for " + waitingFor;
      EventSet events = vm.eventQueue().remove(settings.eventTimeoutMs());
      if (events == null) {
        throw new BenchFailure("no " + waitingFor + " within " + settings.eventTimeoutMs() / 1000 + " s",
            false);
      }
      for (Event event : events) {
        if (event instanceof VMDeathEvent || event instanceof VMDisconnectEvent) {
          throw new BenchFailure("VM went away while waiting for " + waitingFor + " ("
              + event.getClass().getSimpleName() + ", " + exitDescription() + "); output: " + tail.text(),
              false);
        }
      }
      return events;
    }

    /**
     * Lets the suspended VM run until the breakpoint on {@code line} of the target
     * class is hit; the breakpoint is set from the ClassPrepareEvent. Returns the
     * hit with its event set, not yet resumed.
     */
    Stop runToBreakpoint(int line, int suspendPolicy) throws BenchFailure, InterruptedException {
      phase = "setting up requests";
      EventRequestManager requests = vm.eventRequestManager();
      ClassPrepareRequest prepare = requests.createClassPrepareRequest();
      prepare.addClassFilter(TARGET_CLASS);
      prepare.setSuspendPolicy(EventRequest.SUSPEND_ALL);
      prepare.enable();
      // suspend=y: the VM reports VMStart with everything suspended; resuming
      // that event set (not vm.resume() before it arrives) avoids racing the
      // agent's own suspend.
      boolean started = false;
      while (true) {
        EventSet events = next(started ? "ClassPrepare/Breakpoint event" : "VMStart event");
        for (Event event : events) {
          if (event instanceof VMStartEvent) {
            started = true;
          } else if (event instanceof ClassPrepareEvent prepared) {
            armBreakpoint(prepared.referenceType(), line, suspendPolicy);
            requests.deleteEventRequest(prepare);
          } else if (event instanceof BreakpointEvent hit) {
            return new Stop(hit, events);
          }
        }
        events.resume();
      }
    }

    BreakpointRequest armBreakpoint(ReferenceType type, int line, int suspendPolicy) throws BenchFailure {
      phase = "setting a breakpoint on line " + line;
      List<Location> locations;
      try {
        locations = type.locationsOfLine(line);
      } catch (Exception e) {
        throw new BenchFailure("locationsOfLine(" + line + ") failed: " + e, false);
      }
      if (locations.isEmpty()) {
        throw new BenchFailure("no code location on " + TARGET_CLASS + " line " + line, false);
      }
      BreakpointRequest breakpoint = vm.eventRequestManager().createBreakpointRequest(locations.get(0));
      breakpoint.setSuspendPolicy(suspendPolicy);
      breakpoint.enable();
      return breakpoint;
    }

    String exitDescription() {
      if (deadlineHit) {
        return "killed at the " + settings.cellTimeoutMs() / 1000 + " s cell deadline";
      }
      return process.isAlive() ? "still running" : "exit code " + process.exitValue();
    }

    boolean deadlineHit() {
      return deadlineHit;
    }

    @Override
    public void close() {
      deadline.cancel(false);
      // No vm.dispose(): against a broken agent it can block forever on a
      // reply. Killing the process closes the socket and JDI winds down.
      process.destroyForcibly();
      try {
        process.waitFor(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  // --------------------------------------------------------------- scenarios

  enum Better { LOWER, HIGHER }

  record Metric(String name, String unit, Better better, String format) {}

  static final Metric LAUNCH_TO_LISTEN =
      new Metric("launch -> listening line (median)", "ms", Better.LOWER, "%.1f");
  static final Metric ATTACH_TO_BREAKPOINT =
      new Metric("attach -> first breakpoint (median)", "ms", Better.LOWER, "%.1f");
  static final Metric ROUND_TRIP_MEDIAN =
      new Metric("isCollected() round trip (median)", "us", Better.LOWER, "%.1f");
  static final Metric ROUND_TRIP_MEAN =
      new Metric("isCollected() round trip (mean)", "us", Better.LOWER, "%.1f");
  static final Metric BREAKPOINT_RATE =
      new Metric("breakpoint hits + resume", "hits/s", Better.HIGHER, "%.0f");
  static final Metric STEP_RATE =
      new Metric("single steps LINE/OVER", "steps/s", Better.HIGHER, "%.0f");
  static final List<Metric> METRICS = List.of(LAUNCH_TO_LISTEN, ATTACH_TO_BREAKPOINT,
      ROUND_TRIP_MEDIAN, ROUND_TRIP_MEAN, BREAKPOINT_RATE, STEP_RATE);

  interface Scenario {
    Map<Metric, Double> run(Debuggee debuggee) throws Exception;
  }

  final Settings settings;
  final Map<String, Integer> lines;

  Bench(Settings settings, Map<String, Integer> lines) {
    this.settings = settings;
    this.lines = lines;
  }

  /** One attach: wait for the listening line, attach, stop on the first line of main. */
  Map<Metric, Double> attachToFirstBreakpoint(Debuggee debuggee) throws Exception {
    int port = debuggee.awaitListening();
    long attachStart = System.nanoTime();
    debuggee.attach(port);
    debuggee.runToBreakpoint(lines.get("first"), EventRequest.SUSPEND_EVENT_THREAD);
    long hit = System.nanoTime();
    return Map.of(LAUNCH_TO_LISTEN, (debuggee.listeningAt - debuggee.launchedAt) / 1e6,
        ATTACH_TO_BREAKPOINT, (hit - attachStart) / 1e6);
  }

  /**
   * ObjectReference.isCollected() on the stopped thread: one JDWP command that
   * JDI never answers from its caches (frameCount() and status() are cached
   * while the thread stays suspended, so they would measure JDI, not the agent).
   */
  Map<Metric, Double> roundTrip(Debuggee debuggee) throws Exception {
    ThreadReference thread = attachAndStop(debuggee, "first").event().thread();
    debuggee.phase = "isCollected() round trips";
    int warmup = Math.max(20, settings.roundTrips() / 10);
    for (int i = 0; i < warmup; i++) {
      thread.isCollected();
    }
    long[] nanos = new long[settings.roundTrips()];
    for (int i = 0; i < nanos.length; i++) {
      long start = System.nanoTime();
      boolean collected = thread.isCollected();
      nanos[i] = System.nanoTime() - start;
      if (collected) {
        throw new BenchFailure("isCollected() says a live, suspended thread was collected", false);
      }
    }
    Arrays.sort(nanos);
    double mean = Arrays.stream(nanos).average().orElse(0);
    return Map.of(ROUND_TRIP_MEDIAN, median(nanos) / 1e3, ROUND_TRIP_MEAN, mean / 1e3);
  }

  /** A breakpoint in a method called from a hot loop: hit, resume the set, repeat. */
  Map<Metric, Double> breakpointRate(Debuggee debuggee) throws Exception {
    Stop stop = attachAndStop(debuggee, "hot");
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
    return Map.of(BREAKPOINT_RATE, settings.breakpointHits() / seconds);
  }

  /**
   * Steps the way an IDE does: one StepRequest(LINE, OVER) with a count filter
   * of 1 per step, deleted after its event. The loop body calls a method, so
   * OVER has to step over a call once per iteration.
   */
  Map<Metric, Double> stepRate(Debuggee debuggee) throws Exception {
    Stop stop = attachAndStop(debuggee, "loop-a");
    EventRequestManager requests = debuggee.vm.eventRequestManager();
    requests.deleteEventRequest(stop.event().request());
    ThreadReference thread = stop.event().thread();
    Set<Integer> loopLines = Set.of(lines.get("loop-head"), lines.get("loop-a"),
        lines.get("loop-b"), lines.get("loop-c"));
    EventSet pending = stop.events();
    int warmup = Math.max(10, settings.steps() / 10);
    long start = 0;
    for (int steps = 0; steps < warmup + settings.steps(); ) {
      if (steps == warmup) {
        start = System.nanoTime();
      }
      debuggee.phase = "creating step request #" + (steps + 1);
      StepRequest step = requests.createStepRequest(thread, StepRequest.STEP_LINE, StepRequest.STEP_OVER);
      step.addCountFilter(1);
      step.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
      step.enable();
      pending.resume();
      pending = debuggee.next("step event #" + (steps + 1));
      for (Event event : pending) {
        if (event instanceof StepEvent stepped) {
          Location at = stepped.location();
          if (!loopLines.contains(at.lineNumber()) || !at.method().name().equals("main")) {
            throw new BenchFailure("step landed on " + at + ", outside the loop lines " + loopLines, false);
          }
          steps++;
        }
      }
      requests.deleteEventRequest(step);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    return Map.of(STEP_RATE, settings.steps() / seconds);
  }

  Stop attachAndStop(Debuggee debuggee, String marker) throws Exception {
    debuggee.attach(debuggee.awaitListening());
    return debuggee.runToBreakpoint(lines.get(marker), EventRequest.SUSPEND_EVENT_THREAD);
  }

  static double median(long[] sorted) {
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
  }

  static double median(List<Double> values) {
    double[] sorted = values.stream().mapToDouble(Double::doubleValue).sorted().toArray();
    int n = sorted.length;
    return n % 2 == 1 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0;
  }

  // ------------------------------------------------------------------ runner

  /** A measured value, or why there is none. */
  record Cell(Double value, String failure) {}

  /** What one debuggee run produced: values, or a failure reason. */
  record Outcome(Map<Metric, Double> values, String failure) {}

  final Map<Metric, Map<String, Cell>> results = new LinkedHashMap<>();
  // Agents that could not start or accept an attach: later cells reuse the reason.
  final Map<String, String> unusable = new HashMap<>();

  Outcome attempt(Agent agent, String scenarioName, Scenario body) {
    String known = unusable.get(agent.column());
    if (known != null) {
      return new Outcome(null, known);
    }
    System.err.printf("bench: %-24s %s%n", scenarioName, agent.column());
    Debuggee debuggee = null;
    try {
      debuggee = new Debuggee(settings, agent);
      return new Outcome(body.run(debuggee), null);
    } catch (BenchFailure failure) {
      String reason = oneLine(failure.getMessage(), 300);
      if (failure.agentUnusable) {
        unusable.put(agent.column(), reason);
      }
      return new Outcome(null, reason);
    } catch (VMDisconnectedException e) {
      return new Outcome(null, oneLine("VM disconnected while " + debuggee.phase + " ("
          + debuggee.exitDescription() + "); output: " + debuggee.tail.text(), 300));
    } catch (Exception | Error e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      String where = debuggee == null ? "launch" : debuggee.phase;
      String what = debuggee != null && debuggee.deadlineHit()
          ? "cell deadline of " + settings.cellTimeoutMs() / 1000 + " s hit"
          : e.toString();
      return new Outcome(null, oneLine(what + " while " + where, 300));
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
    Map<String, Map<Metric, List<Double>>> samples = new HashMap<>();
    Map<String, String> failures = new HashMap<>();
    for (int run = 0; run < repetitions; run++) {
      List<Agent> order = new ArrayList<>(settings.agents());
      if (run % 2 == 1) {
        Collections.reverse(order);
      }
      for (Agent agent : order) {
        if (failures.containsKey(agent.column())) {
          continue;
        }
        Outcome outcome = attempt(agent, name + " " + (run + 1) + "/" + repetitions, body);
        if (outcome.failure() != null) {
          failures.put(agent.column(), outcome.failure());
          continue;
        }
        outcome.values().forEach((metric, value) -> samples
            .computeIfAbsent(agent.column(), a -> new HashMap<>())
            .computeIfAbsent(metric, m -> new ArrayList<>())
            .add(value));
      }
    }
    for (Agent agent : settings.agents()) {
      String failure = failures.get(agent.column());
      for (Metric metric : metrics) {
        record(metric, agent, failure != null
            ? new Cell(null, failure)
            : new Cell(median(samples.get(agent.column()).get(metric)), null));
      }
    }
  }

  int runAll() {
    // One discarded attach first, so JDI's class loading in this driver is not
    // charged to whichever agent happens to go first.
    attempt(settings.agents().get(settings.agents().size() - 1), "warm-up", this::attachToFirstBreakpoint);
    unusable.clear();
    runRepeated("attach", settings.attachRuns(), List.of(LAUNCH_TO_LISTEN, ATTACH_TO_BREAKPOINT),
        this::attachToFirstBreakpoint);
    runRepeated("round trip", settings.rounds(), List.of(ROUND_TRIP_MEDIAN, ROUND_TRIP_MEAN), this::roundTrip);
    runRepeated("breakpoint rate", settings.rounds(), List.of(BREAKPOINT_RATE), this::breakpointRate);
    runRepeated("step rate", settings.rounds(), List.of(STEP_RATE), this::stepRate);
    printTable();
    boolean stockComplete = results.values().stream()
        .map(byAgent -> byAgent.get("stock"))
        .allMatch(cell -> cell == null || cell.failure() == null);
    return stockComplete ? 0 : 1;
  }

  // ------------------------------------------------------------------- table

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
    for (Metric metric : METRICS) {
      Map<String, Cell> byAgent = results.getOrDefault(metric, Map.of());
      List<String> row = new ArrayList<>(List.of(metric.name(), metric.unit()));
      for (String column : columns) {
        Cell cell = byAgent.get(column);
        if (cell == null) {
          row.add("-");
        } else if (cell.failure() != null) {
          int index = footnotes.indexOf(cell.failure());
          if (index < 0) {
            footnotes.add(cell.failure());
            index = footnotes.size() - 1;
          }
          row.add("n/a [" + (index + 1) + "]");
        } else {
          row.add(String.format(metric.format(), cell.value()));
        }
      }
      if (withRatio) {
        Cell ours = byAgent.get("ours");
        Cell stock = byAgent.get("stock");
        String better = metric.better() == Better.LOWER ? "lower" : "higher";
        if (ours != null && stock != null && ours.value() != null && stock.value() != null
            && stock.value() > 0) {
          double ratio = ours.value() / stock.value();
          double goodness = metric.better() == Better.LOWER ? 1 / ratio : ratio;
          String verdict = goodness > 1.10 ? "ours better" : goodness < 1 / 1.10 ? "ours worse" : "~same";
          row.addAll(List.of(String.format("%.2f", ratio), better, verdict));
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

  public static void main(String[] args) {
    Settings settings;
    Map<String, Integer> lines;
    try {
      settings = Settings.parse(args);
      lines = readMarkers(settings.source());
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
