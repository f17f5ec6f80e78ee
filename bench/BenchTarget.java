// Debuggee for bench/Bench.java. The driver finds lines by the "BENCH:<name>"
// markers below (it reads this file), so code may move freely; keep exactly
// one statement on each marked line and keep the markers unique.
//
// main never returns on its own: the driver kills the process when a scenario
// is done. A daemon watchdog ends it anyway if the driver dies first, so no
// orphaned JVM spins forever.
public final class BenchTarget {
  static volatile long sink;

  public static void main(String[] args) {
    startWatchdog(args.length > 0 ? Long.parseLong(args[0]) : 300);
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
