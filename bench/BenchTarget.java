// Debuggee for bench/Bench.java. The driver finds lines by the "BENCH:<name>"
// markers below (it reads this file), so code may move freely; keep exactly
// one statement on each marked line and keep the markers unique.
//
// Usage: BenchTarget [watchdogSeconds] [mode]. Without a mode main runs the
// hot loop the stepping, breakpoint and invoke scenarios stop in. With a data
// mode it builds that mode's data for the inspection scenarios, keeps it
// reachable from a static field, prints READY_LINE and waits (see prepare).
// The other modes run a loop or a timed workload (see run): "step-into" loops
// over a line that calls into the JDK; "calls=N" and "load-classes=N" time N
// small calls or N class loads with System.nanoTime, print
// RESULT_PREFIX<nanoseconds> and wait, so the figure is the program's own run
// time under whatever requests the driver set before resuming it. "threads=N"
// and "vthreads=N" start N parked (virtual) threads and stop at threads-stop.
//
// main never returns on its own: the driver kills the process when a scenario
// is done. A daemon watchdog ends it anyway if the driver dies first, so no
// orphaned JVM spins forever.
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.locks.LockSupport;

public final class BenchTarget {
  static final String READY_LINE = "BENCH-READY";
  // Sizes of the inspection data; Bench.java reads them from here.
  static final int OBJECT_COUNT = 1_000_000;
  static final int LONG_COUNT = 10_000_000;
  static final int STRING_CHARS = 50_000_000;
  static final int STACK_DEPTH = 2_000;
  static final int GENERATED_CLASSES = 10_000;
  static final String RESULT_PREFIX = "BENCH-RESULT ";
  // The "probes" mode reports each phase on a line of its own.
  static final String REPORT_PREFIX = "BENCH-REPORT ";
  // The call workload calls into Watched this often in all (the driver
  // expects exactly this many MethodEntry and MethodExit events).
  static final int WATCHED_CALLS = 20;
  // Classes the class-load workload defines are named LOADED_PREFIX + index.
  static final String LOADED_PREFIX = "LoadGen";

  static volatile long sink;

  // Inspection data, read by the driver through ReferenceType.GetValues.
  static Object[] objects;
  static long[] longs;
  static String bigString;
  static List<Class<?>> generated;

  /** The one class of the OBJECT_COUNT objects (VirtualMachine.InstanceCounts counts it). */
  static final class Item {
    final int index;

    Item(int index) {
      this.index = index;
    }
  }

  /** The object the invoke scenarios call toString on (read from this static field). */
  static final Object invokeTarget = new Point(3, 4);

  static final class Point {
    final int x;
    final int y;

    Point(int x, int y) {
      this.x = x;
      this.y = y;
    }

    @Override
    public String toString() {
      return "Point(" + x + ", " + y + ")";
    }
  }

  public static void main(String[] args) throws Exception {
    startWatchdog(args.length > 0 ? Long.parseLong(args[0]) : 300);
    if (args.length > 1) {
      run(args[1]);
      return;
    }
    long total = args.length; // BENCH:first
    for (long i = 0; ; i++) { // BENCH:loop-head
      total += hot(i); // BENCH:loop-a
      total ^= i >>> 3; // BENCH:loop-b
      sink = total; // BENCH:loop-c
    }
  }

  // Called once per loop iteration: the breakpoint-throughput scenario stops here.
  static long hot(long i) {
    return i * 31 + 7; // BENCH:hot
  }

  /** Runs one mode; "name=N" modes take their size after the '='. */
  static void run(String mode) throws Exception {
    int equals = mode.indexOf('=');
    String name = equals < 0 ? mode : mode.substring(0, equals);
    switch (name) {
      case "step-into" -> stepIntoLoop();
      case "calls" -> reportRunTime(callWorkload(Long.parseLong(mode.substring(equals + 1))));
      case "load-classes" -> reportRunTime(loadClasses(Integer.parseInt(mode.substring(equals + 1))));
      case "expire-calls" -> reportRunTime(expiryRounds(Long.parseLong(mode.substring(equals + 1))));
      case "probes" -> probePhases();
      case "threads" -> parkedThreads(Integer.parseInt(mode.substring(equals + 1)), false);
      case "vthreads" -> parkedThreads(Integer.parseInt(mode.substring(equals + 1)), true);
      default -> prepare(mode);
    }
  }

  /**
   * The "many threads" scenarios: starts {@code count} threads (virtual ones
   * with {@code virtual}; JDK 21+) that park for good, then passes the
   * threads-stop line once (the driver's SUSPEND_ALL breakpoint) and parks too,
   * so nothing runs while the driver resumes and suspends the VM.
   */
  static void parkedThreads(int count, boolean virtual) throws Exception {
    CountDownLatch started = new CountDownLatch(count);
    Runnable parked = () -> {
      started.countDown();
      while (true) {
        LockSupport.park();
      }
    };
    // Compiled for 17: Thread.startVirtualThread (21+) is looked up.
    Method startVirtual = virtual ? Thread.class.getMethod("startVirtualThread", Runnable.class) : null;
    for (int i = 0; i < count; i++) {
      if (virtual) {
        startVirtual.invoke(null, parked);
      } else {
        Thread t = new Thread(null, parked, "parked-" + i, 256 * 1024);
        t.setDaemon(true);
        t.start();
      }
    }
    started.await();
    threadsStarted(count);
    while (true) {
      LockSupport.park();
    }
  }

  static void threadsStarted(int count) {
    sink = count; // BENCH:threads-stop
  }

  // The STEP_INTO scenario steps through this loop: into-a steps into hot,
  // into-b into the JDK, which the request's class exclusions step back out of.
  static void stepIntoLoop() {
    long total = 0;
    for (long i = 0; ; i++) { // BENCH:into-head
      total += hot(i); // BENCH:into-a
      total += Long.toString(total).length(); // BENCH:into-b
      sink = total; // BENCH:into-c
    }
  }

  /**
   * {@code iterations} rounds of two small calls in classes other than
   * Watched, and WATCHED_CALLS calls spread among them into Watched (the class
   * the MethodEntry/MethodExit requests are filtered to). Returns nanoseconds.
   */
  static long callWorkload(long iterations) {
    long every = iterations / WATCHED_CALLS;
    if (every * WATCHED_CALLS != iterations) {
      throw new IllegalArgumentException("calls must be a multiple of " + WATCHED_CALLS);
    }
    long start = System.nanoTime();
    long acc = 1;
    for (long i = 0; i < iterations; i++) {
      acc = Mixer.mix(acc, i);
      if (i % every == 0) {
        acc = Watched.tick(acc);
      }
    }
    long nanos = System.nanoTime() - start;
    sink = acc;
    return nanos;
  }

  static final class Mixer {
    static long mix(long acc, long value) {
      return Bits.rotate(acc ^ value) + 1;
    }
  }

  static final class Bits {
    static long rotate(long value) {
      return Long.rotateLeft(value, 7);
    }
  }

  /** The one class the method-event requests watch; no static initializer, so no <clinit> events. */
  static final class Watched {
    static long tick(long value) {
      return value * 3 + 1;
    }
  }

  /**
   * Rounds of {@code calls} calls of Expiring.touch: in the first a request
   * with a Count of 1 (set by the driver at Expiring's ClassPrepare) fires and
   * expires; EXPIRY_ROUNDS more follow. Returns the last one's nanoseconds: what
   * a round costs once the request has expired.
   */
  static long expiryRounds(long calls) {
    long nanos = 0;
    for (int round = 0; round <= EXPIRY_ROUNDS; round++) {
      long start = System.nanoTime();
      long acc = 0;
      for (long i = 0; i < calls; i++) {
        acc = Expiring.touch(acc + i);
      }
      nanos = System.nanoTime() - start;
      sink = acc;
    }
    return nanos;
  }

  static final int EXPIRY_ROUNDS = 3;

  /** The class of the expired-request scenario: a breakpoint in touch, a MethodEntry on it, a watch on last. */
  static final class Expiring {
    static long last;

    static long touch(long value) {
      last = value; // BENCH:expiring
      return value + 1;
    }
  }

  /** Defines, links and initializes n classes LOADED_PREFIX0..; returns nanoseconds. */
  static long loadClasses(int n) throws ClassNotFoundException {
    long start = System.nanoTime();
    generated = ClassGenerator.defineAll(LOADED_PREFIX, n);
    return System.nanoTime() - start;
  }

  static void reportRunTime(long nanos) throws InterruptedException {
    System.out.println(RESULT_PREFIX + nanos);
    System.out.flush();
    while (true) {
      Thread.sleep(60_000);
    }
  }

  /**
   * The probe scenarios (ProbeScenarios): warms up, prints READY_LINE, then
   * runs the phases the driver writes on stdin, one a line, each reported on a
   * REPORT_PREFIX line:
   *   loop MS [other]  probeLoop for MS ms (with a second thread counting its own
   *                    iterations if "other"): "loop <iterations> <ns> <other iterations>
   *                    <the other thread's longest time between two rounds, ns>"
   *   loop-calls MS C  the same loop for MS ms in calls of C ms each: "loop <iterations> <ns> 0 0"
   *   end N            one more end hit, probed(-1, "endN"); no report
   *   snap K           K calls down a SNAPSHOT_DEPTH-deep recursion, the leaf call timed
   *                    in each: "snap <median ns> <min ns> <max ns>"
   */
  static void probePhases() throws Exception {
    // Both threads' loops run their final compiled code before the first timed phase: a
    // second thread's first phases run its loop's on-stack-replacement code, which on JDK 17
    // was 17% faster than what it settles on by the third, and made "before" beat "after".
    for (int i = 0; i < 3; i++) {
      loopPhase(500, true);
    }
    for (int i = 0; i < 2_000; i++) {
      snapDescend(SNAPSHOT_DEPTH, "frame");
    }
    System.out.println(READY_LINE);
    System.out.flush();
    java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in));
    for (String line; (line = in.readLine()) != null; ) {
      String[] words = line.trim().split(" ");
      switch (words[0]) {
        case "loop" -> {
          long[] phase = loopPhase(Long.parseLong(words[1]), words.length > 2 && words[2].equals("other"));
          sink += probed(-1, "end");  // the phase's end, for the probe's client (after the timing)
          System.out.println(REPORT_PREFIX + "loop " + phase[0] + " " + phase[1] + " " + phase[2] + " " + phase[3]);
        }
        case "loop-calls" -> {
          // "loop-calls MS CALL_MS": the same loop as "loop", in calls of CALL_MS each (a service's requests, say).
          long[] phase = callsPhase(Long.parseLong(words[1]), Long.parseLong(words[2]));
          sink += probed(-1, "end");
          System.out.println(REPORT_PREFIX + "loop " + phase[0] + " " + phase[1] + " 0 0");
        }
        case "end" -> {
          // "end N": the probed line's end hit again, for a client whose end line was dropped
          // (ProbeScenarios.loggedPhase); no report.
          sink += probed(-1, "end" + (words.length > 1 ? words[1] : ""));
        }
        case "snap" -> {
          // Every call's time, for a profile of where a snapshot's time goes.
          boolean verbose = words.length > 2;
          long[] nanos = new long[Integer.parseInt(words[1])];
          for (int k = 0; k < nanos.length; k++) {
            nanos[k] = snapDescend(SNAPSHOT_DEPTH, "frame");
          }
          if (verbose) {
            System.out.println("snap times " + java.util.Arrays.toString(nanos));
          }
          java.util.Arrays.sort(nanos);
          System.out.println(REPORT_PREFIX + "snap " + nanos[nanos.length / 2] + " " + nanos[0] + " "
              + nanos[nanos.length - 1]);
        }
        default -> System.out.println(REPORT_PREFIX + "unknown " + line);
      }
      System.out.flush();
    }
  }

  static final int SNAPSHOT_DEPTH = 20;
  static volatile boolean otherRunning;
  static volatile long otherProgress;
  static volatile long otherLongestGap;

  /**
   * probeLoop for {@code ms} ms, with a second thread counting its own rounds if {@code withOther};
   * returns {iterations, ns, the other thread's iterations, its longest gap in ns}.
   */
  static long[] loopPhase(long ms, boolean withOther) throws InterruptedException {
    Thread other = null;
    otherRunning = true;
    otherProgress = 0;
    if (withOther) {
      other = new Thread(BenchTarget::otherWork, "bench-other");
      other.setDaemon(true);
      other.start();
      while (otherProgress == 0) {
        Thread.onSpinWait();  // its loop runs before the timed phase starts
      }
    }
    otherLongestGap = 0;
    long other0 = otherProgress;
    long start = System.nanoTime();
    long iterations = probeLoop(ms);
    long nanos = System.nanoTime() - start;
    long otherIterations = otherProgress - other0;
    long otherGap = otherLongestGap;
    otherRunning = false;
    if (other != null) {
      other.join();
    }
    return new long[] {iterations, nanos, otherIterations, otherGap};
  }

  /** probeLoop in calls of {@code callMs} ms for about {@code ms} ms; returns {iterations, ns}. */
  static long[] callsPhase(long ms, long callMs) {
    long start = System.nanoTime();
    long end = start + ms * 1_000_000;
    long iterations = 0;
    do {
      iterations += probeLoop(callMs);
    } while (System.nanoTime() < end);
    return new long[] {iterations, System.nanoTime() - start};
  }

  /** Calls probed() for about {@code ms} ms; returns the calls made (the probed line's hits). */
  static long probeLoop(long ms) {
    long end = System.nanoTime() + ms * 1_000_000;
    String label = "probe";
    long iterations = 0;
    long acc = 0;
    do {
      for (int i = 0; i < 256; i++) {
        acc += probed(i, label);
      }
      iterations += 256;
    } while (System.nanoTime() < end);
    sink = acc;
    return iterations;
  }

  // The probed line: a condition `i < 0` (never true), a log `{i} {label}`.
  static long probed(int i, String label) {
    return i * 31L + label.length(); // BENCH:probe-line
  }

  /** The second thread of "loop MS other": its own loop, publishing its count every 4096 rounds. */
  static void otherWork() {
    long n = 0;
    long acc = 1;
    long last = System.nanoTime();
    long longest = 0;
    while (otherRunning) {
      for (int i = 0; i < 4096; i++) {
        acc = acc * 6364136223846793005L + i;
      }
      n += 4096;
      otherProgress = n;
      // A round takes a few us: a longer gap is the thread stopped (a safepoint) or not scheduled.
      long now = System.nanoTime();
      if (now - last > longest) {
        longest = now - last;
        otherLongestGap = longest;
      }
      last = now;
    }
    sink = acc;
  }

  /** depth frames of snapDescend (each with a few locals), then the timed leaf call; returns its ns. */
  static long snapDescend(int depth, String tag) {
    Object marker = depth % 2 == 0 ? tag : Integer.valueOf(depth);
    if (depth <= 1) {
      long start = System.nanoTime();
      snapLeaf(depth, tag, marker);
      return System.nanoTime() - start;
    }
    return snapDescend(depth - 1, tag);
  }

  static void snapLeaf(int depth, String tag, Object marker) {
    sink += depth + tag.length() + (marker == tag ? 1 : 0); // BENCH:snapshot-line
  }

  /** Builds one mode's data, says so, and waits to be inspected (and killed). */
  static void prepare(String mode) throws Exception {
    switch (mode) {
      case "objects" -> {
        Object[] items = new Object[OBJECT_COUNT];
        for (int i = 0; i < items.length; i++) {
          items[i] = new Item(i);
        }
        objects = items;
      }
      case "longs" -> {
        long[] values = new long[LONG_COUNT];
        for (int i = 0; i < values.length; i++) {
          values[i] = i * 3L;
        }
        longs = values;
      }
      // Latin-1 letters: one byte per char in the heap, one in the UTF-8 reply.
      case "string" -> bigString = "abcdefghij".repeat(STRING_CHARS / 10);
      case "classes" -> generated = ClassGenerator.defineAll("Gen", GENERATED_CLASSES);
      case "stack" -> {
        descend(STACK_DEPTH, 0L);
        return;
      }
      case "burst" -> {
        new Inspected("inspected", 7).stop(3, 11L);
        return;
      }
      default -> throw new IllegalArgumentException("unknown mode " + mode);
    }
    awaitInspection();
  }

  // The frames scenario walks the stack this builds: STACK_DEPTH frames of
  // descend, each with three visible locals (int, long, Object).
  static void descend(int depth, long sum) throws InterruptedException {
    Object marker = depth % 2 == 0 ? "even" : Integer.valueOf(depth);
    if (depth <= 1) {
      awaitInspection();
    } else {
      descend(depth - 1, sum + depth);
    }
    sink = sum + marker.hashCode();
  }

  /**
   * The pipelined-burst scenario's stop: what an IDE shows when a thread stops
   * in an instance method (frames, the locals, `this`, its fields, a string).
   */
  static final class Inspected {
    final String name;
    final int count;
    long total = 42;
    double ratio = 0.5;
    boolean flag = true;
    Object other = new Point(1, 2);
    int[] numbers = {1, 2, 3};

    Inspected(String name, int count) {
      this.name = name;
      this.count = count;
    }

    void stop(int a, long b) throws InterruptedException {
      String label = name + a;
      Object boxed = Long.valueOf(b);
      awaitInspection(); // BENCH:burst-stop
      sink = label.length() + boxed.hashCode();
    }
  }

  static void awaitInspection() throws InterruptedException {
    // Garbage of the build phase goes before the driver reads the RSS.
    System.gc();
    System.out.println(READY_LINE);
    System.out.flush();
    while (true) {
      Thread.sleep(60_000);
    }
  }

  /**
   * Defines n empty public classes prefix0..prefix(n-1) from class files written
   * here (no methods, so no verifier work), one class loader, and links them,
   * so the debugger sees n more prepared classes.
   */
  static final class ClassGenerator extends ClassLoader {
    ClassGenerator() {
      super(ClassGenerator.class.getClassLoader());
    }

    static List<Class<?>> defineAll(String prefix, int n) throws ClassNotFoundException {
      ClassGenerator loader = new ClassGenerator();
      List<Class<?>> classes = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        String name = prefix + i;
        byte[] bytes = emptyClass(name);
        loader.defineClass(name, bytes, 0, bytes.length);
        classes.add(Class.forName(name, true, loader));
      }
      return classes;
    }

    /** Class file of `public class name extends Object {}` with nothing in it. */
    static byte[] emptyClass(String name) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
      DataOutputStream out = new DataOutputStream(bytes);
      try {
        out.writeInt(0xCAFEBABE);
        out.writeShort(0);   // minor
        out.writeShort(52);  // major: Java 8, no StackMapTable needed (and no code anyway)
        out.writeShort(5);   // constant pool count = entries + 1
        out.writeByte(7);    // #1 Class -> #2
        out.writeShort(2);
        out.writeByte(1);    // #2 Utf8 name
        out.writeUTF(name);
        out.writeByte(7);    // #3 Class -> #4
        out.writeShort(4);
        out.writeByte(1);    // #4 Utf8 java/lang/Object
        out.writeUTF("java/lang/Object");
        out.writeShort(0x0021);  // ACC_PUBLIC | ACC_SUPER
        out.writeShort(1);   // this_class
        out.writeShort(3);   // super_class
        out.writeShort(0);   // interfaces
        out.writeShort(0);   // fields
        out.writeShort(0);   // methods
        out.writeShort(0);   // attributes
      } catch (IOException impossible) {  // a ByteArrayOutputStream does not throw
        throw new IllegalStateException(impossible);
      }
      return bytes.toByteArray();
    }
  }

  private static void startWatchdog(long seconds) {
    Thread watchdog = new Thread(() -> {
      try {
        Thread.sleep(seconds * 1000);
      } catch (InterruptedException ignored) {
        // Fall through and exit: nothing else would stop the loop.
      }
      System.exit(3);
    }, "bench-watchdog");
    watchdog.setDaemon(true);
    watchdog.start();
  }
}
