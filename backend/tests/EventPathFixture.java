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

  // Added for later cases (the methods above keep their bytecode).

  // A worker as start() makes, not started yet: a request can name it
  // (ThreadOnly) before it runs its first instruction.
  public static Thread create(String name, int times) {
    return new Worker(name, times);
  }

  private static final Object IDLE = new Object();
  private static boolean idling;  // guarded by IDLE
  private static boolean stopIdling;  // guarded by IDLE

  // A thread named `name` that meets no event: it waits on IDLE until
  // stopIdler(). Returns once it waits there (its ThreadStart callback is over).
  public static Thread startIdler(String name) throws InterruptedException {
    synchronized (IDLE) {
      idling = false;
      stopIdling = false;
      Thread thread = new Idler(name);
      thread.start();
      while (!idling) IDLE.wait();
      return thread;
    }
  }

  public static void stopIdler() {
    synchronized (IDLE) {
      stopIdling = true;
      IDLE.notifyAll();
    }
  }

  private static final class Idler extends Thread {
    Idler(String name) {
      super(name);
    }

    @Override
    public void run() {
      synchronized (IDLE) {
        idling = true;
        IDLE.notifyAll();
        while (!stopIdling) {
          try {
            IDLE.wait();
          } catch (InterruptedException e) {
            return;
          }
        }
      }
    }
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
