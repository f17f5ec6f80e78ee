// Where a JDI breakpoint loop's time goes: the CPU per hit of every thread of the
// debugger (this JVM, through JDI) and of the debuggee (its agent's threads and the
// hitting thread), beside the wall time per hit. The loop is bench's "breakpoint
// rate": a breakpoint at the start of BenchTarget.hot(), each event set resumed.
//
//   java bench/EventCpu.java --classes <build>/bench [--agent-lib LIB|stock] [--jdk HOME]
//                            [--hits N] [--suspend-all]
//
// A JDK's java runs this file as it is (source-file mode; JDI is in the JDK). Both
// processes' threads, JIT and GC threads too, are read from /proc/<pid>/task/*/stat
// (clock ticks of 10 ms); threads under 2 us a hit are not listed.
import com.sun.jdi.Bootstrap;
import com.sun.jdi.Method;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.EventRequest;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class EventCpu {
  static final long NANOS_PER_TICK = 1_000_000_000L / 100;  // USER_HZ

  /** CPU time of each of a process's threads ("name#tid"), in ns. */
  static Map<String, Long> processCpu(long pid) throws IOException {
    Map<String, Long> cpu = new TreeMap<>();
    try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", Long.toString(pid), "task"))) {
      for (Path task : tasks) {
        String stat;
        try {
          stat = Files.readString(task.resolve("stat"));
        } catch (NoSuchFileException ended) {
          continue;  // a thread that ended since the listing
        }
        String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
        // After "(comm) ": state is field 3; utime and stime are fields 14 and 15.
        String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        cpu.put(name + "#" + task.getFileName(), ticks * NANOS_PER_TICK);
      }
    }
    return cpu;
  }

  static void print(String side, Map<String, Long> before, Map<String, Long> after, int hits) {
    long total = 0;
    for (var thread : after.entrySet()) {
      long used = thread.getValue() - before.getOrDefault(thread.getKey(), 0L);
      total += used;
      if (used / hits >= 2_000) System.out.printf("  %-9s %-34s %7.1f us/hit%n", side, thread.getKey(), used / 1e3 / hits);
    }
    System.out.printf("  %-9s %-34s %7.1f us/hit%n", side, "all threads", total / 1e3 / hits);
  }

  public static void main(String[] args) throws Exception {
    String jdk = System.getProperty("java.home");
    String agentLib = "stock";
    String classes = null;
    int hits = 20_000;
    boolean suspendAll = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--jdk" -> jdk = args[++i];
        case "--agent-lib" -> agentLib = args[++i];
        case "--classes" -> classes = args[++i];
        case "--hits" -> hits = Integer.parseInt(args[++i]);
        case "--suspend-all" -> suspendAll = true;
        default -> throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    if (classes == null) throw new IllegalArgumentException("--classes <build>/bench is required");
    String options = "transport=dt_socket,server=y,suspend=n,address=127.0.0.1:0";
    String agent = agentLib.equals("stock") ? "-agentlib:jdwp=" + options : "-agentpath:" + agentLib + "=" + options;
    Process debuggee = new ProcessBuilder(jdk + "/bin/java", agent, "-cp", classes, "BenchTarget", "300")
        .redirectErrorStream(true).start();
    try {
      BufferedReader output = new BufferedReader(new InputStreamReader(debuggee.getInputStream()));
      String port = null;
      Pattern listening = Pattern.compile("address: .*?(\\d+)\\s*$");
      for (String line; port == null && (line = output.readLine()) != null; ) {
        Matcher m = listening.matcher(line);
        if (m.find()) port = m.group(1);
      }
      if (port == null) throw new IOException("the debuggee printed no listening address");
      // Read on, so a chatty debuggee never blocks on a full pipe.
      Thread drain = new Thread(() -> output.lines().forEach(line -> {}), "debuggee output");
      drain.setDaemon(true);
      drain.start();
      AttachingConnector connector = Bootstrap.virtualMachineManager().attachingConnectors().stream()
          .filter(c -> c.name().equals("com.sun.jdi.SocketAttach")).findFirst().orElseThrow();
      Map<String, Connector.Argument> arguments = connector.defaultArguments();
      arguments.get("hostname").setValue("127.0.0.1");
      arguments.get("port").setValue(port);
      VirtualMachine vm = connector.attach(arguments);
      List<ReferenceType> target;
      while ((target = vm.classesByName("BenchTarget")).isEmpty()) Thread.sleep(20);  // main's class, at once
      Method hot = target.get(0).methodsByName("hot").get(0);
      BreakpointRequest breakpoint = vm.eventRequestManager().createBreakpointRequest(hot.location());
      breakpoint.setSuspendPolicy(suspendAll ? EventRequest.SUSPEND_ALL : EventRequest.SUSPEND_EVENT_THREAD);
      breakpoint.enable();
      int warmup = Math.max(1_000, hits / 10);
      long self = ProcessHandle.current().pid();
      Map<String, Long> ownBefore = null;
      Map<String, Long> debuggeeBefore = null;
      long start = 0;
      for (int hit = 0; hit < warmup + hits; ) {
        if (hit == warmup && ownBefore == null) {
          ownBefore = processCpu(self);
          debuggeeBefore = processCpu(debuggee.pid());
          start = System.nanoTime();
        }
        EventSet events = vm.eventQueue().remove(10_000);
        if (events == null) throw new IOException("no breakpoint hit within 10 s");
        for (Event event : events) {
          if (event instanceof BreakpointEvent) hit++;
        }
        events.resume();
      }
      long wall = System.nanoTime() - start;
      Map<String, Long> ownAfter = processCpu(self);
      Map<String, Long> debuggeeAfter = processCpu(debuggee.pid());
      System.out.printf("%s, %s: %.0f hits/s, %.1f us a hit (wall)%n", agentLib,
          suspendAll ? "SUSPEND_ALL" : "SUSPEND_EVENT_THREAD", hits / (wall / 1e9), wall / 1e3 / hits);
      print("debugger", ownBefore, ownAfter, hits);
      print("debuggee", debuggeeBefore, debuggeeAfter, hits);
    } finally {
      debuggee.destroyForcibly();
    }
    System.exit(0);  // JDI's threads would keep this JVM alive
  }
}
