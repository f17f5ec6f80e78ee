// What jdwpx-trace prints: a summary of one or more trace files and one line
// per record (Chrome's trace-event JSON: chrome_export.h). Pure functions over
// records.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "trace/records.h"

namespace jdwpx::trace {

// The records of one file, up to its last whole record, and what stopped the
// reading short (empty when the file ended cleanly).
struct TraceFile {
  std::string path;
  Header header;
  std::vector<Record> records;
  std::string problem;  // one line: truncated or corrupt after `records`
};

// Reads `path`; fails (one line) when nothing of it can be used: missing,
// empty or foreign file, or corrupt from its first record.
tl::expected<TraceFile, std::string> Load(const std::string& path);

// Per command (by spec name), per event kind, sessions, suspension, drops.
// `files` in any order: the segments of one ring are put back in order.
std::string Summarize(std::vector<TraceFile> files);

// One line for one record; `start_ns` is the monotonic time shown as 0.
std::string Line(const Record& record, uint64_t start_ns);

// A command's spec name ("ThreadReference.Frames"), or "command 64.100".
std::string CommandLabel(uint32_t set, uint32_t command);
// An event kind's spec name ("BREAKPOINT").
std::string EventKindName(uint32_t kind);
// Ring segments of one run in the order they were written; runs by start time.
void Order(std::vector<TraceFile>& files);

}  // namespace jdwpx::trace
