// A debugger's attach to a fresh suspend=y target, step by step, for several
// agents in turn (each run rotates their order, so that they share the load of
// a noisy machine): medians and quartiles over the runs.
//
//   java bench/AttachSteps.java --classes build/bench [--java <java>] [--runs N]
//        [--mode raw|jdi|reraw|rejdi|rejdi-listed] [--agent name=path/libjdwpx.so]...
//
// Every run launches BenchTarget with the agent (server=y,suspend=y,address=0)
// and the JDK's own agent ("stock", always last in the table); --agent may be
// given more than once (ours and an older build, say). Modes:
//   raw    a bare client sends what JDI's attach() sends (connect, handshake,
//          VirtualMachine.IDSizes, EventRequest.Set ClassPrepare and ClassUnload,
//          SUSPEND_NONE): the time of each reply since the connect began
//   jdi    JDI's SocketAttach attach() itself (run.sh's "attach (first)" row)
//   reraw  raw, on the second session: a first raw session disposes, the target
//          listens again, and the second one is measured (a re-attach)
//   rejdi  jdi, on the second session, after a first JDI session that disposes at once
//   rejdi-listed  the same after a first session that lists a class (classesByName)
// A last column gives the launch to the Listening line. Two warm-up runs per
// agent come first (this JVM's JDI and socket code), not counted.
import com.sun.jdi.Bootstrap;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import java.io.BufferedInputStream;
import java.io.BufferedReader;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class AttachSteps {
  static final Pattern LISTENING = Pattern.compile("Listening for transport dt_socket at address: (\\d+)");
  static final String OPTIONS = "transport=dt_socket,server=y,suspend=y,address=0";
  static final String[] RAW_STEPS = {"connected", "handshake", "IDSizes", "Set ClassPrepare", "Set ClassUnload"};

  /** One target: its process and the ports of its Listening lines, in order. */
  static final class Target implements AutoCloseable {
    final Process process;
    final BlockingQueue<Integer> ports = new LinkedBlockingQueue<>();
    final long launched = System.nanoTime();
    volatile long firstListening;

    Target(String java, String agentOption, String classes) throws IOException {
      process = new ProcessBuilder(java, agentOption, "-Xshare:auto", "-cp", classes, "BenchTarget", "120")
          .redirectErrorStream(true).start();
      Thread reader = new Thread(this::readOutput, "target-output");
      reader.setDaemon(true);
      reader.start();
    }

    private void readOutput() {
      try (BufferedReader in = new BufferedReader(
          new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
        for (String line; (line = in.readLine()) != null; ) {
          Matcher m = LISTENING.matcher(line);
          if (m.find()) {
            if (firstListening == 0) firstListening = System.nanoTime();
            ports.add(Integer.parseInt(m.group(1)));
          }
        }
      } catch (IOException ignored) {
        // the target was killed
      }
    }

    int nextPort() throws IOException, InterruptedException {
      Integer port = ports.poll(30, TimeUnit.SECONDS);
      if (port == null) throw new IOException("no Listening line within 30 s");
      return port;
    }

    @Override
    public void close() throws InterruptedException {
      process.destroyForcibly();
      process.waitFor();
    }
  }

  /** JDI's attach(): one figure. */
  static double[] jdiAttach(int port) throws Exception {
    return jdiAttach(port, false);
  }

  /** JDI's attach(), then (listClasses) classesByName("java.lang.String") before the dispose (a suspend=y target has not loaded its own classes yet). */
  static double[] jdiAttach(int port, boolean listClasses) throws Exception {
    AttachingConnector connector = Bootstrap.virtualMachineManager().attachingConnectors().stream()
        .filter(c -> c.name().equals("com.sun.jdi.SocketAttach")).findFirst().orElseThrow();
    Map<String, Connector.Argument> arguments = connector.defaultArguments();
    arguments.get("hostname").setValue("localhost");
    arguments.get("port").setValue(Integer.toString(port));
    long start = System.nanoTime();
    VirtualMachine vm = connector.attach(arguments);
    double ms = (System.nanoTime() - start) / 1e6;
    if (listClasses && vm.classesByName("java.lang.String").size() != 1) throw new IllegalStateException("no String");
    vm.dispose();
    return new double[] {ms};
  }

  static int nextId = 1;

  static byte[] command(int set, int command, byte[] data) {
    return ByteBuffer.allocate(11 + data.length).putInt(11 + data.length).putInt(nextId++).put((byte) 0)
        .put((byte) set).put((byte) command).put(data).array();
  }

  /** Reads packets up to the next reply (VMStart and other events are skipped). */
  static void awaitReply(DataInputStream in) throws IOException {
    while (true) {
      byte[] rest = new byte[in.readInt() - 4];
      in.readFully(rest);
      if ((rest[4] & 0x80) != 0) return;
    }
  }

  /** What JDI's attach() sends, by hand: ms since the connect began at each step. */
  static double[] rawAttach(int port) throws IOException {
    double[] at = new double[RAW_STEPS.length];
    // EventRequest.Set: event kind, SUSPEND_NONE, no modifiers.
    byte[] classPrepare = {8, 0, 0, 0, 0, 0};
    byte[] classUnload = {9, 0, 0, 0, 0, 0};
    long start = System.nanoTime();
    try (Socket socket = new Socket()) {
      socket.setTcpNoDelay(true);
      socket.connect(new InetSocketAddress("localhost", port));
      at[0] = (System.nanoTime() - start) / 1e6;
      OutputStream out = socket.getOutputStream();
      DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
      out.write("JDWP-Handshake".getBytes(StandardCharsets.US_ASCII));
      in.readFully(new byte[14]);
      at[1] = (System.nanoTime() - start) / 1e6;
      out.write(command(1, 7, new byte[0]));
      awaitReply(in);
      at[2] = (System.nanoTime() - start) / 1e6;
      out.write(command(15, 1, classPrepare));
      awaitReply(in);
      at[3] = (System.nanoTime() - start) / 1e6;
      out.write(command(15, 1, classUnload));
      awaitReply(in);
      at[4] = (System.nanoTime() - start) / 1e6;
      out.write(command(1, 6, new byte[0]));  // Dispose: the target listens again
      awaitReply(in);
    }
    return at;
  }

  static double[] measure(String mode, Target target) throws Exception {
    int port = target.nextPort();
    switch (mode) {
      case "jdi":
        return jdiAttach(port);
      case "raw":
        return rawAttach(port);
      case "reraw":
        rawAttach(port);
        return rawAttach(target.nextPort());
      case "rejdi":
        jdiAttach(port, false);
        return jdiAttach(target.nextPort());
      case "rejdi-listed":
        jdiAttach(port, true);
        return jdiAttach(target.nextPort());
      default:
        throw new IllegalArgumentException("--mode raw|jdi|reraw|rejdi|rejdi-listed, not " + mode);
    }
  }

  static String quartiles(double[] values) {
    double[] v = values.clone();
    Arrays.sort(v);
    return String.format("%.2f (%.2f-%.2f)", v[v.length / 2], v[v.length / 4], v[(3 * v.length) / 4]);
  }

  public static void main(String[] args) throws Exception {
    String java = "/usr/lib/jvm/java-17-openjdk-amd64/bin/java";
    String classes = null;
    String mode = "raw";
    int runs = 20;
    Map<String, String> agents = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i += 2) {
      String value = args[i + 1];
      switch (args[i]) {
        case "--java" -> java = value;
        case "--classes" -> classes = value;
        case "--mode" -> mode = value;
        case "--runs" -> runs = Integer.parseInt(value);
        case "--agent" -> {
          String[] nameAndPath = value.split("=", 2);
          agents.put(nameAndPath[0], "-agentpath:" + nameAndPath[1] + "=" + OPTIONS);
        }
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    if (classes == null) throw new IllegalArgumentException("--classes <dir with BenchTarget.class> is needed");
    agents.put("stock", "-agentlib:jdwp=" + OPTIONS);
    List<String> names = new ArrayList<>(agents.keySet());
    Map<String, List<double[]>> results = new LinkedHashMap<>();
    for (String name : names) results.put(name, new ArrayList<>());
    for (int run = -2; run < runs; run++) {
      for (int k = 0; k < names.size(); k++) {
        String name = names.get((k + Math.max(run, 0)) % names.size());
        try (Target target = new Target(java, agents.get(name), classes)) {
          double[] steps = measure(mode, target);
          if (run < 0) continue;  // warm-up
          double[] row = Arrays.copyOf(steps, steps.length + 1);
          row[steps.length] = (target.firstListening - target.launched) / 1e6;
          results.get(name).add(row);
        }
      }
    }
    String[] steps = mode.startsWith("jdi") || mode.startsWith("rejdi") ? new String[] {"attach()"} : RAW_STEPS;
    String[] labels = Arrays.copyOf(steps, steps.length + 1);
    labels[steps.length] = "launch to Listening";
    System.out.printf("%s, mode %s, %d runs: median (p25-p75) in ms, steps since the connect began%n", java, mode,
        runs);
    for (String name : names) {
      StringBuilder line = new StringBuilder(String.format("%-8s", name));
      for (int c = 0; c < labels.length; c++) {
        final int col = c;
        double[] column = results.get(name).stream().mapToDouble(r -> r[col]).toArray();
        line.append("  ").append(labels[c]).append(' ').append(quartiles(column));
      }
      System.out.println(line);
    }
  }
}
