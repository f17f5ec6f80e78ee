import java.lang.reflect.Method;

/**
 * Workloads of the dormant-cost bench (dormant_cost.py): what an application does
 * while an agent is loaded and no debugger is attached. One workload per JVM; it
 * runs once to warm up at a fifth of its size, then 5 times timed, and prints
 * "RESULT <wall nanoseconds> <process CPU nanoseconds>" of one run (the mean).
 *
 *   java DormantWork threads N | vthreads N | classes N | exceptions N
 *
 * Compiled with the JDK that runs it; virtual threads are reached by reflection
 * so that the file also compiles on JDK 17 (which has none).
 */
public class DormantWork {
  static volatile long sink;
  static final int ROUNDS = 5;

  public static void main(String[] args) throws Exception {
    String workload = args[0];
    int n = Integer.parseInt(args[1]);
    run(workload, Math.max(1, n / 5));
    // CPU time of the whole process (every thread, the VM's own too): on a machine
    // shared with other work it varies far less than the wall-clock time.
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    // Several rounds, averaged: the CPU clock ticks in 10 ms steps.
    long cpuStart = os.getProcessCpuTime();
    long start = System.nanoTime();
    for (int round = 0; round < ROUNDS; round++) run(workload, n);
    long nanos = (System.nanoTime() - start) / ROUNDS;
    long cpu = (os.getProcessCpuTime() - cpuStart) / ROUNDS;
    System.out.println("RESULT " + nanos + " " + cpu);
  }

  static void run(String workload, int n) throws Exception {
    switch (workload) {
      case "threads" -> threads(n);
      case "vthreads" -> virtualThreads(n);
      case "classes" -> classes(n);
      case "exceptions" -> exceptions(n);
      default -> throw new IllegalArgumentException("unknown workload " + workload);
    }
  }

  /** Start and join n platform threads, one after the other. */
  static void threads(int n) throws InterruptedException {
    for (int i = 0; i < n; i++) {
      int value = i;
      Thread t = new Thread(() -> sink += value);
      t.start();
      t.join();
    }
  }

  /** Start n virtual threads (Thread.startVirtualThread), then join them all. */
  static void virtualThreads(int n) throws Exception {
    Method start = Thread.class.getMethod("startVirtualThread", Runnable.class);
    Thread[] started = new Thread[n];
    for (int i = 0; i < n; i++) {
      int value = i;
      started[i] = (Thread) start.invoke(null, (Runnable) () -> sink += value);
    }
    for (Thread t : started) t.join();
  }

  static int loaderRound;

  /** Define, link and initialize n empty classes in a fresh class loader. */
  static void classes(int n) throws ClassNotFoundException {
    // BenchTarget's generator (compiled along: dormant_cost.py), as the attached bench's class rows.
    for (Class<?> c : BenchTarget.ClassGenerator.defineAll("DormantGen" + (loaderRound++) + "_", n)) {
      sink += c.hashCode();
    }
  }

  /** Throw and catch n exceptions, each 8 frames below its handler. */
  static void exceptions(int n) {
    for (int i = 0; i < n; i++) {
      try {
        descend(8, i);
      } catch (IllegalStateException e) {
        sink += e.getMessage().length();
      }
    }
  }

  static void descend(int depth, int value) {
    if (depth == 0) throw new IllegalStateException(value % 2 == 0 ? "even" : "odd");
    descend(depth - 1, value + depth);
  }
}
