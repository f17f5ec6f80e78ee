// The launcher: one debuggee JVM (BenchTarget) under an agent, its output, and
// once attached its JDI mirror; a deadline kills it when a cell runs too long.

import com.sun.jdi.Bootstrap;
import com.sun.jdi.Location;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.event.VMStartEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** One launched debuggee and, once attached, its JDI mirror. */
final class Debuggee implements AutoCloseable {
  /** The debuggee's main class. */
  static final String TARGET_CLASS = "BenchTarget";

  private static final Pattern LISTENING =
      Pattern.compile("Listening for transport dt_socket at address: (\\d+)");
  private static final ScheduledExecutorService DEADLINES =
      Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "bench-deadline");
        t.setDaemon(true);
        return t;
      });

  final Settings settings;
  final Agent agent;
  final Process process;
  final long launchedAt;
  final OutputTail tail = new OutputTail();
  private final CompletableFuture<Integer> port = new CompletableFuture<>();
  // Every Listening line's port, in order: the agent prints one again after
  // each session (stock on a new port with address=0).
  private final List<Integer> ports = new ArrayList<>();
  private final CompletableFuture<Void> ready = new CompletableFuture<>();
  private final CompletableFuture<Long> result = new CompletableFuture<>();
  // The REPORT_PREFIX lines of a target that reports more than once (the probe modes).
  private static final String OUTPUT_CLOSED = "<output closed>";
  private final java.util.concurrent.BlockingQueue<String> reports =
      new java.util.concurrent.LinkedBlockingQueue<>();
  private final ScheduledFuture<?> deadline;
  private volatile boolean deadlineHit;
  private volatile boolean attachTimedOut;
  volatile String phase = "launch";
  long listeningAt;
  VirtualMachine vm;

  Debuggee(Settings settings, Agent agent) throws BenchFailure {
    this(settings, agent, null);
  }

  /** {@code mode}: BenchTarget's data-building mode, or null for its hot loop. */
  Debuggee(Settings settings, Agent agent, String mode) throws BenchFailure {
    this.settings = settings;
    this.agent = agent;
    // An agent that crashes the VM (stock does on huge object arrays) leaves
    // its hs_err file in the temp directory, not in the caller's tree, and no core.
    String errorFile = Path.of(System.getProperty("java.io.tmpdir"), "jdwpx-bench-hs_err_%p.log").toString();
    String java = agent.javaOr(settings.java());
    List<String> command = new ArrayList<>(List.of(java, agent.jvmOption(), "-Xshare:auto",
        "-XX:-CreateCoredumpOnCrash", "-XX:ErrorFile=" + errorFile,
        "-cp", settings.classes().toString(), TARGET_CLASS,
        Long.toString(settings.cellTimeoutMs() / 1000 + 30)));
    if (mode != null) {
      command.add(mode);
    }
    launchedAt = System.nanoTime();
    try {
      process = new ProcessBuilder(command).redirectErrorStream(true).start();
    } catch (IOException e) {
      throw new BenchFailure("cannot start " + java + ": " + e.getMessage(), true);
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
        if (m.find()) {
          if (!port.isDone()) {
            listeningAt = System.nanoTime();
            port.complete(Integer.parseInt(m.group(1)));
          }
          synchronized (ports) {
            ports.add(Integer.parseInt(m.group(1)));
            ports.notifyAll();
          }
        }
        if (line.equals(BenchTarget.READY_LINE)) {
          ready.complete(null);
        }
        if (line.startsWith(BenchTarget.REPORT_PREFIX)) {
          reports.add(line.substring(BenchTarget.REPORT_PREFIX.length()).trim());
        }
        if (line.startsWith(BenchTarget.RESULT_PREFIX)) {
          result.complete(Long.parseLong(line.substring(BenchTarget.RESULT_PREFIX.length()).trim()));
        }
      }
    } catch (IOException ignored) {
      // The process was killed; whatever we read is in the tail.
    }
    reports.add(OUTPUT_CLOSED);
    port.completeExceptionally(new IOException("output closed"));
    ready.completeExceptionally(new IOException("output closed"));
    result.completeExceptionally(new IOException("output closed"));
  }

  /** Waits until BenchTarget has built its mode's data (it prints READY_LINE). */
  void awaitReady() throws BenchFailure {
    phase = "waiting for the target to build its data";
    try {
      ready.get(settings.cellTimeoutMs(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new BenchFailure("no " + BenchTarget.READY_LINE + " line within " + settings.cellTimeoutMs() / 1000
          + " s; output: " + tail.text(), false);
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      throw new BenchFailure("debuggee ended before " + BenchTarget.READY_LINE + " (" + exitDescription()
          + "); output: " + tail.text(), false);
    }
  }

  /** Writes one line to the target's stdin (the probe modes read their phases there). */
  void tell(String line) throws IOException {
    var in = process.getOutputStream();
    in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
    in.flush();
  }

  /** The next REPORT_PREFIX line's words, waiting at most the cell's deadline. */
  String[] awaitReport(String what) throws BenchFailure, InterruptedException {
    phase = "waiting for the target's report of " + what;
    String line = reports.poll(settings.cellTimeoutMs(), TimeUnit.MILLISECONDS);
    if (line == null || line.equals(OUTPUT_CLOSED)) {
      reports.add(OUTPUT_CLOSED);  // for the next wait too
      throw BenchFailure.measured("no report of " + what + " (" + exitDescription() + "); output: " + tail.text());
    }
    return line.split(" ");
  }

  /** A report already printed, or null (without waiting). */
  String[] pollReport() {
    String line = reports.peek();
    if (line == null || line.equals(OUTPUT_CLOSED)) {
      return null;
    }
    reports.poll();
    return line.split(" ");
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

  /** The port of the {@code index}-th Listening line (0: the first), waiting for it. */
  int awaitListening(int index) throws BenchFailure, InterruptedException {
    phase = "waiting for listening line #" + (index + 1);
    long deadline = System.currentTimeMillis() + settings.launchTimeoutMs();
    synchronized (ports) {
      while (ports.size() <= index) {
        long left = deadline - System.currentTimeMillis();
        if (left <= 0 || !process.isAlive()) {
          throw BenchFailure.measured("no listening line #" + (index + 1) + " (" + exitDescription()
              + "); output: " + tail.text());
        }
        ports.wait(left);
      }
      return ports.get(index);
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

  /** Attaches and waits for VMStart: main runs once the returned set is resumed. */
  EventSet attachAtStart() throws BenchFailure, InterruptedException {
    attach(awaitListening());
    while (true) {
      EventSet events = next("VMStart event");
      for (Event event : events) {
        if (event instanceof VMStartEvent) {
          return events;
        }
      }
      events.resume();
    }
  }

  /**
   * Hands every event to {@code onEvent} and resumes its set, until the
   * target prints its run time (RESULT_PREFIX); returns that, in ns. The
   * cell deadline bounds the wait: it kills the debuggee, which ends it.
   */
  long serveEventsUntilResult(EventHandler onEvent) throws BenchFailure, InterruptedException {
    phase = "running the workload";
    boolean vmGone = false;
    while (!result.isDone() && !vmGone) {
      EventSet events = vm.eventQueue().remove(20);
      if (events == null) {
        continue;
      }
      for (Event event : events) {
        // The result future fails once the output closes, with the output's reason.
        vmGone |= event instanceof VMDeathEvent || event instanceof VMDisconnectEvent;
      }
      if (!vmGone) {
        for (Event event : events) {
          onEvent.accept(event);
        }
        events.resume();
      }
    }
    try {
      return result.get(settings.eventTimeoutMs(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      try {
        process.waitFor(2, TimeUnit.SECONDS);
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
      }
      throw BenchFailure.measured("debuggee ended before reporting its run time (" + exitDescription()
          + "); output: " + tail.text());
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


  /** Last lines the debuggee printed (stdout and stderr merged), for failure reasons. */
  static final class OutputTail {
    // A crashing VM's last lines are its stack; the first error line says why.
    private static final Pattern ERROR_LINE = Pattern.compile("(?i)error|SIGSEGV|SIGBUS|SIGABRT|exception");
    private final ArrayDeque<String> lines = new ArrayDeque<>();
    private String firstError;

    synchronized void add(String line) {
      if (firstError == null && ERROR_LINE.matcher(line).find()) {
        firstError = line;
      }
      if (lines.size() == 8) {
        lines.removeFirst();
      }
      lines.addLast(line);
    }

    synchronized String text() {
      String tail = lines.isEmpty() ? "(no output)" : String.join(" | ", lines);
      return firstError == null || lines.contains(firstError) ? tail : firstError + " ... " + tail;
    }
  }

  /** A thread stopped by a breakpoint, and the event set that resumes it. */
  record Stop(BreakpointEvent event, EventSet events) {}

  interface EventHandler {
    void accept(Event event) throws BenchFailure;
  }
}
