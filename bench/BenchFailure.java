// Why a bench cell has no figure, in one line, and of which kind.

/** A cell failed for a reason we can state in one line. */
final class BenchFailure extends Exception {
  private static final long serialVersionUID = 1L;
  final boolean agentUnusable;
  final Kind kind;

  BenchFailure(String reason, boolean agentUnusable) {
    this(reason, agentUnusable, Kind.SETUP);
  }

  BenchFailure(String reason, boolean agentUnusable, Kind kind) {
    super(reason);
    this.agentUnusable = agentUnusable;
    this.kind = kind;
  }

  static BenchFailure measured(String reason) {
    return new BenchFailure(reason, false, Kind.MEASURED);
  }

  /**
   * How a cell failed. SETUP: the scenario could not get to its measurement
   * (for stock that fails the run: the benchmark itself is broken). MEASURED:
   * the agent failed or died on the command being measured. NOT_IMPLEMENTED:
   * the agent answered that command with NOT_IMPLEMENTED.
   */
  enum Kind { SETUP, MEASURED, NOT_IMPLEMENTED }
}
