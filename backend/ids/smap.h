// JSR-45 source maps: a class's SourceDebugExtension in SMAP form, read as far
// as stepping and ClassPrepare's SourceNameMatch need it, with the stock
// agent's reading of it (its SDE.c): the same strata, the same default, the
// same line table conversion. Pure: no JVM, unit-tested (tests/smap_test.cc).
//
// A step follows the lines of one stratum: the one VirtualMachine.
// SetDefaultStratum named if the map declares it, else the map's own default.
// When that is the Java stratum nothing changes; otherwise the Java line table
// is converted: entries whose Java line the stratum does not map are dropped,
// consecutive entries of one stratum line merged, and a line is a number unique
// per (file, line) ((file id << 16) + line), all a step compares.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace jdwpx::backend {

class Smap {
 public:
  struct LineEntry {
    int64_t start;  // code index
    int32_t line;
    bool operator==(const LineEntry&) const = default;
  };

  // nullopt: not an SMAP, or malformed where stock gives up on it too.
  static std::optional<Smap> Parse(std::string_view text);

  // The Java line table `java` (sorted by start) in the lines a step follows
  // under the default stratum `stratum` ("" for none).
  std::vector<LineEntry> StepLines(std::string_view stratum, const std::vector<LineEntry>& java) const;
  // Whether the stratum a step follows under `stratum` is the Java one.
  bool StepsByJavaLines(std::string_view stratum) const { return StepStratum(stratum) < 0; }
  // Whether `matches` holds for a source name of any stratum (the Java one included).
  bool AnySourceName(const std::function<bool(std::string_view)>& matches) const;

 private:
  struct File {
    int id;
    std::string name;
  };
  struct Line {
    int java_start, java_end, java_increment, start, end, file_id;
  };
  struct Stratum {
    std::string id;
    size_t first_file, first_line;  // into files_ and lines_; the next stratum's are the ends
  };
  void StoreStratum(std::string id);
  // Index into strata_ of the stratum a step follows; -1 for the Java stratum (or none).
  int StepStratum(std::string_view stratum) const;
  int FindStratum(std::string_view id) const;

  std::string default_stratum_;
  int current_file_id_ = 0;
  std::vector<File> files_;
  std::vector<Line> lines_;
  std::vector<Stratum> strata_;  // the last one ends the others ("*terminator*")
};

}  // namespace jdwpx::backend
