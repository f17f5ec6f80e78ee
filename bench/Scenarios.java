// What every scenario family shares: the run's settings and BenchTarget's line
// markers, attaching through JDI or the raw client (integration/jdi/Jdwp.java),
// lookups over the raw client, timing and medians.

import com.sun.jdi.request.EventRequest;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

abstract class Scenarios {
  final Settings settings;

  final Map<String, Integer> lines;

  Scenarios(Settings settings, Map<String, Integer> lines) {
    this.settings = settings;
    this.lines = lines;
  }

  Debuggee.Stop attachAndStop(Debuggee debuggee, String marker) throws Exception {
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

  static double msSince(long start) {
    return (System.nanoTime() - start) / 1e6;
  }

  /**
   * A bare client (no JDI) attached at VMStart, events kept for nextEvent, and
   * the VM resumed after `setUp` (which sets the requests).
   */
  Jdwp attachForEvents(Debuggee debuggee, RawSetUp setUp) throws Exception {
    int port = debuggee.awaitListening();
    debuggee.phase = "raw attach";
    Jdwp jdwp = new Jdwp(port, (int) settings.launchTimeoutMs());
    try {
      jdwp.awaitVmStart();
      jdwp.readTimeout((int) settings.cellTimeoutMs());
      jdwp.keepEvents();
      setUp.run(jdwp);
      jdwp.command("VirtualMachine.Resume", 1, 9, new Jdwp.Body());
      return jdwp;
    } catch (Exception e) {
      jdwp.close();
      throw e;
    }
  }

  interface RawSetUp {
    void run(Jdwp jdwp) throws Exception;
  }

  /** The next event's kind, checked; the event's data after its requestID. */
  static Jdwp.Reply nextEventOf(Jdwp jdwp, int kind, String what) throws IOException {
    Jdwp.Reply event = jdwp.nextEvent();
    int got = event.u8();
    if (got != kind) {
      throw new IOException(what + ": event kind " + got + ", expected " + kind);
    }
    event.i32();  // requestID
    return event;
  }

  /**
   * Attaches the raw client to a debuggee started in one of BenchTarget's data
   * modes, resumes it from VMStart and waits until its data is built.
   */
  Jdwp attachRaw(Debuggee debuggee) throws BenchFailure {
    int port = debuggee.awaitListening();
    debuggee.phase = "raw attach";
    Jdwp jdwp = null;
    try {
      jdwp = new Jdwp(port, (int) settings.launchTimeoutMs());
      debuggee.phase = "waiting for VMStart";
      jdwp.awaitVmStart();
      jdwp.readTimeout((int) settings.cellTimeoutMs());
      jdwp.command("VirtualMachine.Resume", 1, 9, new Jdwp.Body());
    } catch (IOException | Jdwp.ErrorReply e) {
      if (jdwp != null) {
        jdwp.close();
      }
      throw new BenchFailure("raw JDWP attach to port " + port + " failed while " + debuggee.phase + ": " + e
          + " (" + debuggee.exitDescription() + ")", true);
    }
    try {
      debuggee.awaitReady();
    } catch (BenchFailure e) {
      jdwp.close();
      throw e;
    }
    return jdwp;
  }

  /** The measured part of an inspection scenario. */
  interface Measured<T> {
    T run() throws IOException, Jdwp.ErrorReply, BenchFailure;
  }

  /**
   * Runs measured commands: an error reply or a dying debuggee here is the
   * agent's failure (MEASURED), NOT_IMPLEMENTED its own kind.
   */
  static <T> T measure(Debuggee debuggee, String what, Measured<T> body) throws BenchFailure {
    debuggee.phase = what;
    try {
      return body.run();
    } catch (Jdwp.ErrorReply e) {
      if (e.code == Jdwp.ErrorReply.NOT_IMPLEMENTED) {
        throw new BenchFailure(e.getMessage(), false, BenchFailure.Kind.NOT_IMPLEMENTED);
      }
      throw BenchFailure.measured(e.getMessage());
    } catch (IOException e) {
      // Usually the debuggee died: give it a moment to, so the reason says so.
      try {
        debuggee.process.waitFor(2, TimeUnit.SECONDS);
      } catch (InterruptedException interrupted) {
        Thread.currentThread().interrupt();
      }
      throw BenchFailure.measured(what + ": " + e + " (" + debuggee.exitDescription() + "); output: "
          + debuggee.tail.text());
    }
  }

  record Timing(double medianMs, double rssGrowthMb) {}

  /**
   * settings.inspectCalls() calls, timed one by one (median), and how far the
   * debuggee's resident set peaked above where it was before the first.
   */
  Timing timeCalls(Debuggee debuggee, String what, Measured<Void> call) throws BenchFailure, IOException {
    long pid = debuggee.process.pid();
    Memory.settle(pid);
    boolean peakReset = Memory.resetPeak(pid);
    Memory before = Memory.of(pid);
    long[] nanos = new long[settings.inspectCalls()];
    for (int i = 0; i < nanos.length; i++) {
      long start = System.nanoTime();
      measure(debuggee, what + " (call " + (i + 1) + ")", call);
      nanos[i] = System.nanoTime() - start;
    }
    Memory after = Memory.of(pid);
    long baselineKb = peakReset ? before.rssKb() : before.peakKb();
    Arrays.sort(nanos);
    return new Timing(median(nanos) / 1e6, Math.max(0, after.peakKb() - baselineKb) / 1024.0);
  }

  long targetClass(Jdwp jdwp) throws IOException, Jdwp.ErrorReply, BenchFailure {
    return classBySignature(jdwp, "L" + Debuggee.TARGET_CLASS + ";");
  }

  // The raw scenarios' client is integration/jdi/Jdwp.java (the same file the
  // integration drivers use); these lookups fail a cell when the target lacks what
  // they look for.

  static long classBySignature(Jdwp jdwp, String signature) throws IOException, Jdwp.ErrorReply, BenchFailure {
    Jdwp.Reply r = jdwp.command("VirtualMachine.ClassesBySignature " + signature, 1, 2, new Jdwp.Body().string(signature));
    if (r.i32() != 1) {
      throw new BenchFailure(signature + " is not loaded exactly once", false);
    }
    r.u8();
    return r.id(jdwp.referenceTypeIdSize);
  }

  /** The object in static field {@code name} of {@code type}. */
  static long staticObject(Jdwp jdwp, long type, String name) throws IOException, Jdwp.ErrorReply, BenchFailure {
    Jdwp.Reply fields = jdwp.command("ReferenceType.Fields", 2, 4, new Jdwp.Body().id(type, jdwp.referenceTypeIdSize));
    long field = -1;
    for (int n = fields.i32(); n > 0; n--) {
      long id = fields.id(jdwp.fieldIdSize);
      String fieldName = fields.string();
      fields.string();
      fields.i32();
      if (fieldName.equals(name)) {
        field = id;
      }
    }
    if (field == -1) {
      throw new BenchFailure("no field " + name + " in " + Debuggee.TARGET_CLASS, false);
    }
    Jdwp.Reply value = jdwp.command("ReferenceType.GetValues", 2, 6,
        new Jdwp.Body().id(type, jdwp.referenceTypeIdSize).i32(1).id(field, jdwp.fieldIdSize));
    value.i32();
    value.u8();
    long object = value.objectId();
    if (object == 0) {
      throw new BenchFailure(Debuggee.TARGET_CLASS + "." + name + " is null", false);
    }
    return object;
  }

  static long methodNamed(Jdwp jdwp, long type, String name) throws IOException, Jdwp.ErrorReply, BenchFailure {
    Jdwp.Reply methods = jdwp.command("ReferenceType.Methods", 2, 5, new Jdwp.Body().id(type, jdwp.referenceTypeIdSize));
    for (int n = methods.i32(); n > 0; n--) {
      long id = methods.id(jdwp.methodIdSize);
      String methodName = methods.string();
      methods.string();
      methods.i32();
      if (methodName.equals(name)) {
        return id;
      }
    }
    throw new BenchFailure("no method " + name, false);
  }

  static long threadNamed(Jdwp jdwp, String name) throws IOException, Jdwp.ErrorReply, BenchFailure {
    Jdwp.Reply threads = jdwp.command("VirtualMachine.AllThreads", 1, 4, new Jdwp.Body());
    int count = threads.i32();
    for (int i = 0; i < count; i++) {
      long thread = threads.objectId();
      if (jdwp.command("ThreadReference.Name", 11, 1, new Jdwp.Body().id(thread, jdwp.objectIdSize)).string().equals(name)) {
        return thread;
      }
    }
    throw new BenchFailure("no thread named " + name, false);
  }

  /** One entry of a method's variable table, with the tag StackFrame.GetValues asks for. */
  record Variable(long codeIndex, int length, int slot, int tag) {
    boolean visibleAt(long index) {
      return codeIndex <= index && index < codeIndex + length;
    }
  }

  static List<Variable> variableTable(Jdwp jdwp, long type, long method) throws IOException, Jdwp.ErrorReply {
    Jdwp.Reply table;
    try {
      table = jdwp.command("Method.VariableTable", 6, 2,
          new Jdwp.Body().id(type, jdwp.referenceTypeIdSize).id(method, jdwp.methodIdSize));
    } catch (Jdwp.ErrorReply e) {
      // No -g locals (most JDK classes) or a native method: no variables to read, as in a debugger's view.
      if (e.code == Jdwp.ErrorReply.ABSENT_INFORMATION || e.code == Jdwp.ErrorReply.NATIVE_METHOD) {
        return List.of();
      }
      throw e;
    }
    table.i32();  // argCnt
    List<Variable> variables = new ArrayList<>();
    for (int n = table.i32(); n > 0; n--) {
      long codeIndex = table.i64();
      table.string();
      String signature = table.string();
      int length = table.i32();
      int slot = table.i32();
      variables.add(new Variable(codeIndex, length, slot, signature.charAt(0)));
    }
    return variables;
  }
}
