// The code backend.event_path's cases (event_path_agent.cc) set their requests in.
// Its methods are never changed without the agent's expectations: the cases put
// breakpoints at hit()'s first and last instruction and at mark()'s first.
public final class EventPathFixture {
  static int hits;
  static int marks;

  private EventPathFixture() {}

  // Where the cases' breakpoints are.
  public static void hit() {
    hits++;
  }

  // Where each case's closing breakpoint is: its event comes after any of the
  // case's hits (one thread, one reporter queue), so nothing need be waited out.
  public static void mark() {
    marks++;
  }

  // A thread named `name` that calls hit() `times` times, then mark(); started.
  public static Thread start(String name, int times) {
    Thread thread = new Worker(name, times);
    thread.start();
    return thread;
  }

  private static final class Worker extends Thread {
    private final int times;

    Worker(String name, int times) {
      super(name);
      this.times = times;
    }

    @Override
    public void run() {
      for (int i = 0; i < times; i++) hit();
      mark();
    }
  }
}
