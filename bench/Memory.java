// Debuggee memory figures for the RSS rows.

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The debuggee's memory as /proc/<pid>/status reports it, in kB. */
record Memory(long rssKb, long peakKb) {
  static Memory of(long pid) throws IOException {
    long rss = -1;
    long peak = -1;
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        rss = kilobytes(line);
      } else if (line.startsWith("VmHWM:")) {
        peak = kilobytes(line);
      }
    }
    if (rss < 0 || peak < 0) {
      throw new IOException("no VmRSS/VmHWM in /proc/" + pid + "/status");
    }
    return new Memory(rss, peak);
  }

  private static long kilobytes(String line) {
    return Long.parseLong(line.replaceAll("[^0-9]", ""));
  }

  /**
   * Waits (up to 5 s) until the resident set stops shrinking: right after the
   * debuggee builds its data the JVM still holds memory it gives back within a
   * second (15 MB and more on JDK 17), and a baseline taken then makes a
   * command's growth read low by as much.
   */
  static void settle(long pid) throws IOException {
    long deadline = System.nanoTime() + 5_000_000_000L;
    long previous = of(pid).rssKb();
    while (System.nanoTime() < deadline) {
      try {
        Thread.sleep(250);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
      long now = of(pid).rssKb();
      if (now > previous - 512) return;
      previous = now;
    }
  }

  /**
   * Resets VmHWM to the current RSS (Linux: "5" into clear_refs), so the peak
   * read after a command is the command's own. False where that is refused;
   * the growth is then measured from the earlier peak and may read low.
   */
  static boolean resetPeak(long pid) {
    try {
      Files.writeString(Path.of("/proc", Long.toString(pid), "clear_refs"), "5");
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
