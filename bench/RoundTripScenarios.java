// Round trips: one JDI command at a stop, one raw command, and the pipelined burst
// of reads an IDE sends at every stop.

import com.sun.jdi.ThreadReference;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

final class RoundTripScenarios extends Scenarios {
  RoundTripScenarios(Settings settings, Map<String, Integer> lines) {
    super(settings, lines);
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
    return Map.of(Metrics.ROUND_TRIP_MEDIAN, median(nanos) / 1e3, Metrics.ROUND_TRIP_MEAN, mean / 1e3);
  }

  // The pipelined burst: what an IDE sends at every stop, all at once, then
  // reads every reply (JDI's own requests from several views overlap so).
  static final int BURST_SIZE = 100;

  /** One command of the burst (its data is built once; every send reuses it). */
  record BurstCommand(String name, int commandSet, int command, byte[] data) {}

  /**
   * At the stop in BenchTarget.Inspected.stop (mode "burst", thread "main"
   * suspended): first sequential raw round trips of ThreadReference.SuspendCount
   * (the agent's own latency, without JDI), then bursts of BURST_SIZE read
   * commands (frames, frame count, the frame's locals, `this`, its type and
   * fields, a string, the thread's status and name) sent back to back before
   * any reply is read; each burst is timed from its first byte sent to its last
   * reply read, and every reply is checked (one per id, no error).
   */
  Map<Metric, Double> rawRoundTripAndBurst(Debuggee debuggee) throws Exception {
    try (Jdwp jdwp = attachRaw(debuggee)) {
      long thread = threadNamed(jdwp, "main");
      jdwp.command("ThreadReference.Suspend", 11, 2, new Jdwp.Body().id(thread, jdwp.objectIdSize));
      List<BurstCommand> cycle = burstCommands(jdwp, thread);

      byte[] suspendCount = new Jdwp.Body().id(thread, jdwp.objectIdSize).toByteArray();
      int warmup = Math.max(20, settings.roundTrips() / 10);
      long[] nanos = new long[settings.roundTrips()];
      measure(debuggee, "SuspendCount round trips", () -> {
        for (int i = -warmup; i < nanos.length; i++) {
          long start = System.nanoTime();
          int id = jdwp.send(11, 12, suspendCount);
          jdwp.flush();
          Jdwp.Packet reply = jdwp.readReply();
          long took = System.nanoTime() - start;
          if (reply.id() != id || reply.code() != 0 || ByteBuffer.wrap(reply.data()).getInt() != 1) {
            throw BenchFailure.measured("SuspendCount: reply id " + reply.id() + " (sent " + id + "), error "
                + reply.code());
          }
          if (i >= 0) {
            nanos[i] = took;
          }
        }
        return null;
      });
      Arrays.sort(nanos);

      int bursts = settings.quick() ? 20 : 300;
      long[] burstNanos = new long[bursts];
      measure(debuggee, "pipelined bursts", () -> {
        for (int b = -Math.max(5, bursts / 10); b < bursts; b++) {
          long start = System.nanoTime();
          runBurst(jdwp, cycle);
          if (b >= 0) {
            burstNanos[b] = System.nanoTime() - start;
          }
        }
        return null;
      });
      Arrays.sort(burstNanos);
      return Map.of(Metrics.RAW_ROUND_TRIP, median(nanos) / 1e3, Metrics.BURST, median(burstNanos) / 1e3);
    }
  }

  /** Sends BURST_SIZE commands (the cycle repeated) without waiting, then reads and checks every reply. */
  static void runBurst(Jdwp jdwp, List<BurstCommand> cycle) throws IOException, BenchFailure {
    Map<Integer, BurstCommand> sent = new HashMap<>();
    for (int i = 0; i < BURST_SIZE; i++) {
      BurstCommand c = cycle.get(i % cycle.size());
      sent.put(jdwp.send(c.commandSet(), c.command(), c.data()), c);
    }
    jdwp.flush();
    for (int i = 0; i < BURST_SIZE; i++) {
      Jdwp.Packet reply = jdwp.readReply();
      BurstCommand c = sent.remove(reply.id());
      if (c == null) {
        throw BenchFailure.measured("burst: a reply with id " + reply.id() + " that was not asked (or twice)");
      }
      if (reply.code() != 0) {
        throw BenchFailure.measured("burst: " + c.name() + " answered JDWP error " + reply.code());
      }
    }
  }

  /** The commands of one IDE stop at BenchTarget.Inspected.stop, with their data. */
  static List<BurstCommand> burstCommands(Jdwp jdwp, long thread) throws IOException, Jdwp.ErrorReply, BenchFailure {
    long type = classBySignature(jdwp, "L" + Debuggee.TARGET_CLASS + "$Inspected;");
    long stopMethod = methodNamed(jdwp, type, "stop");
    Jdwp.Reply frames = jdwp.command("ThreadReference.Frames", 11, 6, new Jdwp.Body().id(thread, jdwp.objectIdSize).i32(0).i32(-1));
    long frame = -1;
    long index = -1;
    for (int n = frames.i32(); n > 0; n--) {
      long id = frames.id(jdwp.frameIdSize);
      frames.u8();
      frames.id(jdwp.referenceTypeIdSize);
      long method = frames.id(jdwp.methodIdSize);
      long codeIndex = frames.i64();
      if (method == stopMethod && frame == -1) {
        frame = id;
        index = codeIndex;
      }
    }
    if (frame == -1) {
      throw new BenchFailure("no frame of Inspected.stop on thread main", false);
    }
    long at = index;
    List<Variable> visible = variableTable(jdwp, type, stopMethod).stream().filter(v -> v.visibleAt(at)).toList();
    if (visible.size() < 4) {
      throw new BenchFailure("Inspected.stop shows " + visible.size() + " locals, expected this, a, b, label, boxed",
          false);
    }
    Jdwp.Body locals = new Jdwp.Body().id(thread, jdwp.objectIdSize).id(frame, jdwp.frameIdSize).i32(visible.size());
    for (Variable v : visible) {
      locals.i32(v.slot()).u8(v.tag());
    }
    Jdwp.Reply self = jdwp.command("StackFrame.ThisObject", 16, 3,
        new Jdwp.Body().id(thread, jdwp.objectIdSize).id(frame, jdwp.frameIdSize));
    self.u8();
    long object = self.objectId();
    Jdwp.Reply fieldList = jdwp.command("ReferenceType.Fields", 2, 4, new Jdwp.Body().id(type, jdwp.referenceTypeIdSize));
    List<Long> instanceFields = new ArrayList<>();
    long nameField = -1;
    for (int n = fieldList.i32(); n > 0; n--) {
      long id = fieldList.id(jdwp.fieldIdSize);
      String name = fieldList.string();
      fieldList.string();
      int modifiers = fieldList.i32();
      if ((modifiers & 0x0008) == 0) {
        instanceFields.add(id);
      }
      if (name.equals("name")) {
        nameField = id;
      }
    }
    Jdwp.Body fieldValues = new Jdwp.Body().id(object, jdwp.objectIdSize).i32(instanceFields.size());
    instanceFields.forEach(f -> fieldValues.id(f, jdwp.fieldIdSize));
    Jdwp.Reply nameValue = jdwp.command("ObjectReference.GetValues", 9, 2,
        new Jdwp.Body().id(object, jdwp.objectIdSize).i32(1).id(nameField, jdwp.fieldIdSize));
    nameValue.i32();
    nameValue.u8();
    long string = nameValue.objectId();
    byte[] threadOnly = new Jdwp.Body().id(thread, jdwp.objectIdSize).toByteArray();
    byte[] typeOnly = new Jdwp.Body().id(type, jdwp.referenceTypeIdSize).toByteArray();
    byte[] objectOnly = new Jdwp.Body().id(object, jdwp.objectIdSize).toByteArray();
    return List.of(
        new BurstCommand("ThreadReference.Frames", 11, 6,
            new Jdwp.Body().id(thread, jdwp.objectIdSize).i32(0).i32(-1).toByteArray()),
        new BurstCommand("ThreadReference.FrameCount", 11, 7, threadOnly),
        new BurstCommand("StackFrame.GetValues", 16, 1, locals.toByteArray()),
        new BurstCommand("StackFrame.ThisObject", 16, 3,
            new Jdwp.Body().id(thread, jdwp.objectIdSize).id(frame, jdwp.frameIdSize).toByteArray()),
        new BurstCommand("ObjectReference.ReferenceType", 9, 1, objectOnly),
        new BurstCommand("ObjectReference.GetValues", 9, 2, fieldValues.toByteArray()),
        new BurstCommand("ReferenceType.Fields", 2, 4, typeOnly),
        new BurstCommand("StringReference.Value", 10, 1, new Jdwp.Body().id(string, jdwp.objectIdSize).toByteArray()),
        new BurstCommand("ThreadReference.Status", 11, 4, threadOnly),
        new BurstCommand("ThreadReference.Name", 11, 1, threadOnly));
  }
}
