// Debuggee for bench/Bench.java. The driver finds lines by the "BENCH:<name>"
// markers below (it reads this file), so code may move freely; keep exactly
// one statement on each marked line and keep the markers unique.
//
// Usage: BenchTarget [watchdogSeconds] [mode]. Without a mode main runs the
// hot loop the stepping and breakpoint scenarios stop in. With a mode it
// builds that mode's data for the inspection scenarios, keeps it reachable
// from a static field, prints READY_LINE and waits (see Mode).
//
// main never returns on its own: the driver kills the process when a scenario
// is done. A daemon watchdog ends it anyway if the driver dies first, so no
// orphaned JVM spins forever.
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

public final class BenchTarget {
  static final String READY_LINE = "BENCH-READY";
  // Sizes of the inspection data; Bench.java reads them from here.
  static final int OBJECT_COUNT = 1_000_000;
  static final int LONG_COUNT = 10_000_000;
  static final int STRING_CHARS = 50_000_000;
  static final int STACK_DEPTH = 2_000;
  static final int GENERATED_CLASSES = 10_000;

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

  public static void main(String[] args) throws Exception {
    startWatchdog(args.length > 0 ? Long.parseLong(args[0]) : 300);
    if (args.length > 1) {
      prepare(args[1]);
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
      case "classes" -> generated = ClassGenerator.defineAll(GENERATED_CLASSES);
      case "stack" -> {
        descend(STACK_DEPTH, 0L);
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
   * Defines n empty public classes Gen0..Gen(n-1) from class files written
   * here (no methods, so no verifier work), one class loader, and links them,
   * so the debugger sees n more prepared classes.
   */
  static final class ClassGenerator extends ClassLoader {
    ClassGenerator() {
      super(ClassGenerator.class.getClassLoader());
    }

    static List<Class<?>> defineAll(int n) throws ClassNotFoundException {
      ClassGenerator loader = new ClassGenerator();
      List<Class<?>> classes = new ArrayList<>(n);
      for (int i = 0; i < n; i++) {
        String name = "Gen" + i;
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
