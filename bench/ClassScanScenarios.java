// Class scans with the raw client: AllClasses and ClassesBySignature over 10k+
// classes, in a first and a second session.

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

final class ClassScanScenarios extends Scenarios {
  ClassScanScenarios(Settings settings, Map<String, Integer> lines) {
    super(settings, lines);
  }

  /** The number of classes an AllClasses or AllClassesWithGeneric reply lists (checked: over BenchTarget's). */
  static int classCount(Jdwp.Reply reply) throws BenchFailure {
    int classes = reply.i32();
    if (classes < BenchTarget.GENERATED_CLASSES) {
      throw BenchFailure.measured("AllClasses listed " + classes + " classes, expected over "
          + BenchTarget.GENERATED_CLASSES);
    }
    return classes;
  }

  /**
   * Class scans over BenchTarget.GENERATED_CLASSES extra classes, all loaded
   * before the first debugger comes (the debuggee runs with suspend=n): the
   * first AllClasses of the first session, later calls in that session, a
   * ClassesBySignature; then the debugger leaves, another attaches, and the
   * first ClassesBySignature calls (one per class, each a class not asked for
   * before in that session), AllClasses and AllClassesWithGeneric of that
   * session. Every measured call comes right after the handshake and IDSizes,
   * as a debugger's first commands do.
   */
  Map<Metric, Double> classScans(Debuggee debuggee) throws Exception {
    debuggee.awaitReady();
    Map<Metric, Double> out = new HashMap<>();
    int port = debuggee.awaitListening(0);
    try (Jdwp jdwp = new Jdwp(port, (int) settings.launchTimeoutMs())) {
      jdwp.readTimeout((int) settings.cellTimeoutMs());
      long start = System.nanoTime();
      measure(debuggee, "AllClasses, first session",
          () -> classCount(jdwp.command("VirtualMachine.AllClasses", 1, 3, new Jdwp.Body())));
      out.put(Metrics.ALL_CLASSES_FIRST, msSince(start));
      Timing repeated = timeCalls(debuggee, "AllClasses, first session, again", () -> {
        classCount(jdwp.command("VirtualMachine.AllClasses", 1, 3, new Jdwp.Body()));
        return null;
      });
      out.put(Metrics.ALL_CLASSES_REPEATED, repeated.medianMs());
      start = System.nanoTime();
      measure(debuggee, "ClassesBySignature, first session", () -> classBySignature(jdwp, "LGen5000;"));
      out.put(Metrics.CLASSES_BY_SIGNATURE_FIRST, msSince(start));
    }
    port = debuggee.awaitListening(1);
    try (Jdwp jdwp = new Jdwp(port, (int) settings.launchTimeoutMs())) {
      jdwp.readTimeout((int) settings.cellTimeoutMs());
      int calls = settings.inspectCalls();
      long[] nanos = new long[calls];
      for (int i = 0; i < calls; i++) {
        String signature = "LGen" + (1000 + i * 997 % 9000) + ";";
        long start = System.nanoTime();
        measure(debuggee, "ClassesBySignature " + signature + ", second session", () -> classBySignature(jdwp, signature));
        nanos[i] = System.nanoTime() - start;
      }
      Arrays.sort(nanos);
      out.put(Metrics.CLASSES_BY_SIGNATURE_LATER, median(nanos) / 1e6);
      long start = System.nanoTime();
      measure(debuggee, "AllClasses, second session",
          () -> classCount(jdwp.command("VirtualMachine.AllClasses", 1, 3, new Jdwp.Body())));
      out.put(Metrics.ALL_CLASSES_LATER, msSince(start));
      start = System.nanoTime();
      measure(debuggee, "AllClassesWithGeneric, second session",
          () -> classCount(jdwp.command("VirtualMachine.AllClassesWithGeneric", 1, 20, new Jdwp.Body())));
      out.put(Metrics.ALL_CLASSES_GENERIC_LATER, msSince(start));
    }
    return out;
  }
}
