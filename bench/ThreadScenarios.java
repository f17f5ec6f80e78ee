// Many parked threads at a SUSPEND_ALL stop: what an IDE asks on every stop.

import com.sun.jdi.ThreadReference;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.request.EventRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

final class ThreadScenarios extends Scenarios {
  ThreadScenarios(Settings settings, Map<String, Integer> lines) {
    super(settings, lines);
  }

  /**
   * One debuggee with rows.count() parked threads, stopped by a SUSPEND_ALL
   * breakpoint; then, as an IDE on every stop, cycles of VirtualMachine.Resume
   * + Suspend, AllThreads, and Status and FrameCount of every thread (JDI
   * answers none of them from its caches: resume drops them). Medians over the
   * cycles after a first (warm-up) one; Status and FrameCount per thread listed.
   */
  Map<Metric, Double> manyThreads(Debuggee debuggee, Metrics.ThreadRows rows) throws Exception {
    debuggee.attach(debuggee.awaitListening());
    Debuggee.Stop stop = debuggee.runToBreakpoint(lines.get("threads-stop"), EventRequest.SUSPEND_ALL);
    VirtualMachine vm = debuggee.vm;
    vm.eventRequestManager().deleteEventRequest(stop.event().request());
    int cycles = settings.quick() ? 2 : 6;
    List<Double> cycle = new ArrayList<>();
    List<Double> all = new ArrayList<>();
    List<Double> status = new ArrayList<>();
    List<Double> frames = new ArrayList<>();
    for (int i = 0; i < cycles; i++) {
      debuggee.phase = "cycle " + (i + 1) + ": resume + suspend";
      long t0 = System.nanoTime();
      vm.resume();
      vm.suspend();
      long t1 = System.nanoTime();
      debuggee.phase = "cycle " + (i + 1) + ": AllThreads";
      List<ThreadReference> threads = vm.allThreads();
      long t2 = System.nanoTime();
      debuggee.phase = "cycle " + (i + 1) + ": Status of each";
      int waiting = 0;
      for (ThreadReference thread : threads) {
        if (thread.status() == ThreadReference.THREAD_STATUS_WAIT) {
          waiting++;
        }
      }
      long t3 = System.nanoTime();
      debuggee.phase = "cycle " + (i + 1) + ": FrameCount of each";
      long frameTotal = 0;
      for (ThreadReference thread : threads) {
        frameTotal += thread.frameCount();
      }
      long t4 = System.nanoTime();
      // Every parked thread is listed, waiting, with frames (park's).
      if (waiting < rows.count() || frameTotal < rows.count()) {
        throw BenchFailure.measured(threads.size() + " threads listed, " + waiting + " waiting, " + frameTotal
            + " frames in all; expected at least " + rows.count() + " parked threads");
      }
      if (i == 0) {
        continue;  // warm-up: JDI mirrors for every thread, the agents' first sight of them
      }
      cycle.add((t1 - t0) / 1e6);
      all.add((t2 - t1) / 1e6);
      status.add((t3 - t2) / 1e3 / threads.size());
      frames.add((t4 - t3) / 1e3 / threads.size());
    }
    return Map.of(rows.cycle(), median(cycle), rows.all(), median(all), rows.status(), median(status),
        rows.frames(), median(frames));
  }
}
