// One row of the bench table: its name, unit, which way is better, and format.

record Metric(String name, String unit, Better better, String format) {
  enum Better { LOWER, HIGHER }
}
