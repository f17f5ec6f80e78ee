// Inspection over big data with the raw client: arrays, a string, a deep stack,
// InstanceCounts and DisposeObjects.

import java.io.IOException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

final class InspectionScenarios extends Scenarios {
  InspectionScenarios(Settings settings, Map<String, Integer> lines) {
    super(settings, lines);
  }

  static void expectRegion(Jdwp.Reply region, char tag, int length, long valueBytes) throws BenchFailure {
    int gotTag = region.u8();
    int count = region.i32();
    if (gotTag != tag || count != length || region.remaining() != valueBytes) {
      throw BenchFailure.measured(String.format("arrayregion of tag '%c', %d values in %d bytes; expected '%c', %d in %d",
          (char) gotTag, count, region.remaining(), tag, length, valueBytes));
    }
  }

  /** ArrayReference.GetValues of the whole Object[] of BenchTarget.OBJECT_COUNT distinct objects. */
  Map<Metric, Double> objectArray(Debuggee debuggee) throws Exception {
    try (Jdwp jdwp = attachRaw(debuggee)) {
      long array = staticObject(jdwp, targetClass(jdwp), "objects");
      int length = BenchTarget.OBJECT_COUNT;
      Timing timing = timeCalls(debuggee, "ArrayReference.GetValues of Object[" + length + "]", () -> {
        Jdwp.Reply region = jdwp.command("ArrayReference.GetValues", 13, 2,
            new Jdwp.Body().id(array, jdwp.objectIdSize).i32(0).i32(length));
        expectRegion(region, 'L', length, (long) length * (1 + jdwp.objectIdSize));
        return null;
      });
      return Map.of(Metrics.OBJECT_ARRAY_CALL, timing.medianMs(), Metrics.OBJECT_ARRAY_RSS, timing.rssGrowthMb());
    }
  }

  /** ArrayReference.GetValues of the whole long[] of BenchTarget.LONG_COUNT. */
  Map<Metric, Double> longArray(Debuggee debuggee) throws Exception {
    try (Jdwp jdwp = attachRaw(debuggee)) {
      long array = staticObject(jdwp, targetClass(jdwp), "longs");
      int length = BenchTarget.LONG_COUNT;
      Timing timing = timeCalls(debuggee, "ArrayReference.GetValues of long[" + length + "]", () -> {
        Jdwp.Reply region = jdwp.command("ArrayReference.GetValues", 13, 2,
            new Jdwp.Body().id(array, jdwp.objectIdSize).i32(0).i32(length));
        expectRegion(region, 'J', length, 8L * length);
        long last = region.data.getLong(region.data.limit() - 8);
        if (last != (length - 1) * 3L) {
          throw BenchFailure.measured("last long is " + last + ", expected " + (length - 1) * 3L);
        }
        return null;
      });
      return Map.of(Metrics.LONG_ARRAY_CALL, timing.medianMs(), Metrics.LONG_ARRAY_RSS, timing.rssGrowthMb());
    }
  }

  /** StringReference.Value of a Latin-1 string of BenchTarget.STRING_CHARS chars. */
  Map<Metric, Double> stringValue(Debuggee debuggee) throws Exception {
    try (Jdwp jdwp = attachRaw(debuggee)) {
      long string = staticObject(jdwp, targetClass(jdwp), "bigString");
      int chars = BenchTarget.STRING_CHARS;
      Timing timing = timeCalls(debuggee, "StringReference.Value of " + chars + " chars", () -> {
        Jdwp.Reply value = jdwp.command("StringReference.Value", 10, 1, new Jdwp.Body().id(string, jdwp.objectIdSize));
        // Checked without decoding: the driver's own 50 MB decode is no part of the figure.
        int bytes = value.i32();
        if (bytes != chars || value.remaining() != chars || value.u8() != 'a') {
          throw BenchFailure.measured("string of " + bytes + " bytes, expected " + chars + " starting 'a'");
        }
        return null;
      });
      return Map.of(Metrics.STRING_CALL, timing.medianMs(), Metrics.STRING_RSS, timing.rssGrowthMb());
    }
  }

  /**
   * One walk as a debugger's variables view does it: ThreadReference.Frames of
   * the whole stack, then StackFrame.GetValues of each frame's visible locals.
   * Variable tables come from {@code tables} (a debugger caches them per
   * method), read on first sight. Returns the number of frames.
   */
  static int walkStack(Jdwp jdwp, long thread, Map<Long, List<Variable>> tables)
      throws IOException, Jdwp.ErrorReply, BenchFailure {
    Jdwp.Reply frames = jdwp.command("ThreadReference.Frames", 11, 6,
        new Jdwp.Body().id(thread, jdwp.objectIdSize).i32(0).i32(-1));
    int count = frames.i32();
    long[] frameIds = new long[count];
    long[] types = new long[count];
    long[] methods = new long[count];
    long[] indexes = new long[count];
    for (int i = 0; i < count; i++) {
      frameIds[i] = frames.id(jdwp.frameIdSize);
      frames.u8();
      types[i] = frames.id(jdwp.referenceTypeIdSize);
      methods[i] = frames.id(jdwp.methodIdSize);
      indexes[i] = frames.i64();
    }
    for (int i = 0; i < count; i++) {
      List<Variable> table = tables.get(methods[i]);
      if (table == null) {
        table = variableTable(jdwp, types[i], methods[i]);
        tables.put(methods[i], table);
      }
      long index = indexes[i];
      List<Variable> visible = table.stream().filter(v -> v.visibleAt(index)).toList();
      if (visible.isEmpty()) {
        continue;
      }
      Jdwp.Body body = new Jdwp.Body().id(thread, jdwp.objectIdSize).id(frameIds[i], jdwp.frameIdSize).i32(visible.size());
      for (Variable v : visible) {
        body.i32(v.slot()).u8(v.tag());
      }
      Jdwp.Reply values = jdwp.command("StackFrame.GetValues", 16, 1, body);
      if (values.i32() != visible.size()) {
        throw BenchFailure.measured("StackFrame.GetValues returned a different number of values than asked");
      }
    }
    return count;
  }

  /** Full walks of a suspended thread BenchTarget.STACK_DEPTH frames deep. */
  Map<Metric, Double> stackWalk(Debuggee debuggee) throws Exception {
    try (Jdwp jdwp = attachRaw(debuggee)) {
      long thread = threadNamed(jdwp, "main");
      jdwp.command("ThreadReference.Suspend", 11, 2, new Jdwp.Body().id(thread, jdwp.objectIdSize));
      Map<Long, List<Variable>> tables = new HashMap<>();
      // The first walk also fills the variable tables: not timed.
      int depth = measure(debuggee, "first stack walk", () -> walkStack(jdwp, thread, tables));
      if (depth < BenchTarget.STACK_DEPTH) {
        throw BenchFailure.measured("ThreadReference.Frames listed " + depth + " frames, expected at least "
            + BenchTarget.STACK_DEPTH);
      }
      long[] nanos = new long[settings.stackWalks()];
      for (int i = 0; i < nanos.length; i++) {
        long start = System.nanoTime();
        measure(debuggee, "stack walk " + (i + 1), () -> walkStack(jdwp, thread, tables));
        nanos[i] = System.nanoTime() - start;
      }
      Arrays.sort(nanos);
      return Map.of(Metrics.STACK_WALK, median(nanos) / 1e6);
    }
  }

  /** VirtualMachine.InstanceCounts of the class of BenchTarget.OBJECT_COUNT live objects. */
  Map<Metric, Double> instanceCounts(Debuggee debuggee) throws Exception {
    try (Jdwp jdwp = attachRaw(debuggee)) {
      long item = classBySignature(jdwp, "L" + Debuggee.TARGET_CLASS + "$Item;");
      Timing timing = timeCalls(debuggee, "VirtualMachine.InstanceCounts", () -> {
        Jdwp.Reply counts = jdwp.command("VirtualMachine.InstanceCounts", 1, 21,
            new Jdwp.Body().i32(1).id(item, jdwp.referenceTypeIdSize));
        long counted = counts.i32() == 1 ? counts.i64() : -1;
        if (counted < BenchTarget.OBJECT_COUNT) {
          throw BenchFailure.measured("InstanceCounts says " + counted + ", expected at least "
              + BenchTarget.OBJECT_COUNT);
        }
        return null;
      });
      return Map.of(Metrics.INSTANCE_COUNTS, timing.medianMs());
    }
  }

  // VirtualMachine.DisposeObjects as JDI sends it when its mirrors are collected:
  // batches of JDI's DISPOSE_THRESHOLD (50) IDs, each a round trip. The IDs come from
  // ArrayReference.GetValues of the first N elements of BenchTarget's Object[]
  // (N live IDs, each counted once), then all are disposed; per disposed ID.
  static final int DISPOSE_BATCH = 50;
  static final int DISPOSE_BIG_BATCH = 10_000;
  static final int DISPOSE_READ_SLICE = 10_000;

  /**
   * VirtualMachine.DisposeObjects of `count` IDs read from BenchTarget's Object[]
   * (ArrayReference.GetValues: each ID counted once), in batches of `batch` IDs, one
   * round trip each as JDI sends them; the time per disposed ID, in us. Then the first
   * and the last ID must be gone (ObjectReference.ReferenceType: INVALID_OBJECT).
   */
  static double disposeObjects(Debuggee debuggee, Jdwp jdwp, long array, int count, int batch) throws BenchFailure {
    String what = "DisposeObjects of " + count + " IDs in batches of " + batch;
    // Read in slices: stock fails on one GetValues of 100k objects (it asks JNI for a
    // local frame of that many references: AGENT_ERROR_OUT_OF_MEMORY).
    long[] ids = measure(debuggee, "ArrayReference.GetValues of Object[" + count + "] for " + what, () -> {
      long[] read = new long[count];
      for (int from = 0; from < count; from += DISPOSE_READ_SLICE) {
        int n = Math.min(DISPOSE_READ_SLICE, count - from);
        Jdwp.Reply region = jdwp.command("ArrayReference.GetValues", 13, 2,
            new Jdwp.Body().id(array, jdwp.objectIdSize).i32(from).i32(n));
        expectRegion(region, 'L', n, (long) n * (1 + jdwp.objectIdSize));
        for (int i = from; i < from + n; i++) {
          region.u8();
          read[i] = region.objectId();
        }
      }
      return read;
    });
    long start = System.nanoTime();
    measure(debuggee, what, () -> {
      for (int from = 0; from < count; from += batch) {
        int n = Math.min(batch, count - from);
        Jdwp.Body body = new Jdwp.Body().i32(n);
        for (int i = from; i < from + n; i++) {
          body.id(ids[i], jdwp.objectIdSize).i32(1);
        }
        jdwp.command("VirtualMachine.DisposeObjects", 1, 14, body);
      }
      return null;
    });
    double perIdUs = (System.nanoTime() - start) / 1e3 / count;
    for (long id : new long[] {ids[0], ids[count - 1]}) {
      try {
        jdwp.command("ObjectReference.ReferenceType", 9, 1, new Jdwp.Body().id(id, jdwp.objectIdSize));
        throw BenchFailure.measured(what + ": ID " + id + " still valid after its dispose");
      } catch (Jdwp.ErrorReply e) {
        if (e.code != Jdwp.ErrorReply.INVALID_OBJECT) {
          throw BenchFailure.measured(what + ": a disposed ID answered " + e.getMessage());
        }
      } catch (IOException e) {
        throw BenchFailure.measured(what + ": " + e + " (" + debuggee.exitDescription() + ")");
      }
    }
    return perIdUs;
  }

  /** DisposeObjects of 100k and of 1M IDs as JDI batches them, and of 1M in big batches. */
  Map<Metric, Double> disposeObjects(Debuggee debuggee) throws Exception {
    try (Jdwp jdwp = attachRaw(debuggee)) {
      long array = staticObject(jdwp, targetClass(jdwp), "objects");
      // A first small round outside the figures: the command's and the table's first use.
      disposeObjects(debuggee, jdwp, array, 10_000, DISPOSE_BATCH);
      double small = disposeObjects(debuggee, jdwp, array, 100_000, DISPOSE_BATCH);
      double large = disposeObjects(debuggee, jdwp, array, BenchTarget.OBJECT_COUNT, DISPOSE_BATCH);
      double big = disposeObjects(debuggee, jdwp, array, BenchTarget.OBJECT_COUNT, DISPOSE_BIG_BATCH);
      return Map.of(Metrics.DISPOSE_SMALL, small, Metrics.DISPOSE_LARGE, large, Metrics.DISPOSE_GROWTH, large / small,
          Metrics.DISPOSE_LARGE_BIG_BATCHES, big);
    }
  }
}
