// The debuggee of hit_path.py: a hot method, called in rounds, each round timed in-process.
// The debugger sets its requests, then writes a line to stdin; each round prints its time
// per call of hot() (the breakpoint's line).
import java.io.BufferedReader;
import java.io.InputStreamReader;

public class HitLoop {
  static int sink;

  static int hot(int i) {
    return i * 31 + 7;
  }

  // Never called: the requests that sit elsewhere are set here.
  static void cold() {
    sink++;
  }

  public static void main(String[] args) throws Exception {
    int rounds = Integer.parseInt(args[0]);
    int calls = Integer.parseInt(args[1]);
    System.out.println("ready");
    new BufferedReader(new InputStreamReader(System.in)).readLine();
    for (int r = 0; r < rounds; r++) {
      long start = System.nanoTime();
      int s = 0;
      for (int i = 0; i < calls; i++) s += hot(i);
      long ns = System.nanoTime() - start;
      sink += s;
      System.out.println("round " + (double) ns / calls);
    }
  }
}
