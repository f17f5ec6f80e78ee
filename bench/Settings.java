// The run's settings (Bench's command line) and the line markers of BenchTarget.java.

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

record Settings(
    String java,
    Path classes,
    Path source,
    List<Agent> agents,
    boolean quick,
    String only,
    int attachRuns,
    int rounds,
    int roundTrips,
    int breakpointHits,
    int steps,
    int inspectRuns,
    int inspectCalls,
    int stackWalks,
    long launchTimeoutMs,
    long eventTimeoutMs,
    long cellTimeoutMs,
    int invokes,
    int workloadRuns,
    long callIterations,
    String vthreadJava) {

  Settings withAgents(List<Agent> others) {
    return new Settings(java, classes, source, others, quick, only, attachRuns, rounds, roundTrips, breakpointHits,
        steps, inspectRuns, inspectCalls, stackWalks, launchTimeoutMs, eventTimeoutMs, cellTimeoutMs, invokes,
        workloadRuns, callIterations, vthreadJava);
  }

  static Settings parse(String[] args) {
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    Path classes = null;
    Path source = null;
    String ours = "none";
    String stock = "stock";
    boolean quick = false;
    String only = "";
    long calls = 0;
    String vthreadJava = null;
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      switch (flag) {
        case "--quick" -> quick = true;
        case "--java", "--classes", "--source", "--ours", "--stock", "--only", "--calls", "--vthread-java" -> {
          if (i + 1 >= args.length) {
            throw new IllegalArgumentException(flag + " needs a value");
          }
          String value = args[++i];
          switch (flag) {
            case "--java" -> java = value;
            case "--classes" -> classes = Path.of(value);
            case "--source" -> source = Path.of(value);
            case "--ours" -> ours = value;
            case "--only" -> only = value;
            case "--calls" -> calls = parseCalls(value);
            case "--vthread-java" -> vthreadJava = value.isEmpty() ? null : value;
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
    // The call workload runs fully interpreted while method events are on,
    // with an agent callback per call: its size keeps one such run to
    // seconds, not minutes.
    if (calls == 0) {
      calls = quick ? QUICK_CALL_ROUNDS : FULL_CALL_ROUNDS;
    }
    return quick
        ? new Settings(java, classes, source, agents, true, only, 2, 1, 200, 200, 100, 1, 2, 1, 5_000, 5_000, 30_000,
            50, 1, calls, vthreadJava)
        : new Settings(java, classes, source, agents, false, only, 10, 4, 20_000, 20_000, 5_000, 3, 5, 5, 10_000,
            10_000, 120_000, 5_000, 5, calls, vthreadJava);
  }

  static final long QUICK_CALL_ROUNDS = 100_000;

  static final long FULL_CALL_ROUNDS = 1_000_000;

  static long parseCalls(String value) {
    long rounds = Long.parseLong(value);
    if (rounds <= 0 || rounds % BenchTarget.WATCHED_CALLS != 0) {
      throw new IllegalArgumentException("--calls takes a positive multiple of " + BenchTarget.WATCHED_CALLS);
    }
    return rounds;
  }

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
    for (String needed : List.of("first", "loop-head", "loop-a", "loop-b", "loop-c", "hot",
        "into-head", "into-a", "into-b", "into-c", "threads-stop")) {
      if (!lines.containsKey(needed)) {
        throw new IOException("marker BENCH:" + needed + " missing from " + source);
      }
    }
    return lines;
  }
}
