// One column of the bench table: which agent a debuggee loads, and how.

/** One column of the table: which agent the debuggee loads. */
record Agent(String column, String library, String extraOptions, String java) {
  Agent(String column, String library) {
    this(column, library, "", null);
  }

  /** The same agent in another JDK's java (stock: that JDK's libjdwp). */
  Agent on(String otherJava) {
    return new Agent(column, library, extraOptions, otherJava);
  }

  /** The java this agent's debuggees run on: its own, or the run's. */
  String javaOr(String runJava) {
    return java != null ? java : runJava;
  }

  boolean isStock() {
    return library == null;
  }

  /** The same agent with more options (",trace=..."): a variant of a scenario. */
  Agent with(String more) {
    return new Agent(column, library, extraOptions + more, java);
  }

  String jvmOption() {
    String options = "transport=dt_socket,server=y,suspend=y,address=0" + extraOptions;
    return isStock() ? "-agentlib:jdwp=" + options : "-agentpath:" + library + "=" + options;
  }

  String describe() {
    return isStock() ? "stock -agentlib:jdwp" : "-agentpath:" + library;
  }
}
