// What jdwpx-trace prints: a summary of one or more trace files and one line
// per record (Chrome's trace-event JSON: chrome_export.h). Pure functions over
// records.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
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
// `files` in any order: the segments of one ring are put back in order. With
// more than one connection (sessions=N, or debuggers one after the other), the
// sessions side by side: per connection its peer, times, commands, events,
// latencies, commands left unanswered, slowest commands, and the commands and
// events of each.
std::string Summarize(std::vector<TraceFile> files);

// One line for one record; `start_ns` is the monotonic time shown as 0. With
// `connection`, the line of a packet, session or event names it ("[conn 7] ").
std::string Line(const Record& record, uint64_t start_ns, std::optional<uint64_t> connection = std::nullopt);

// The connection of each record, as read in order: a packet's and a session's
// own (Packet.connection, Session.connection), an event's that of the
// composite before it; none for the other kinds (and for a refused debugger,
// which had no session). Traces from before sessions=N give 0 throughout: one
// connection. 0 in a newer trace is a packet whose connection the agent did
// not know.
class Connections {
 public:
  std::optional<uint64_t> Of(const Record& record);
  // More than one connection (other than 0) seen so far.
  bool several() const { return seen_.size() > 1; }

 private:
  std::set<uint64_t> seen_;
  uint64_t composite_ = 0;  // of the last packet out that was a command
};

// A command's spec name ("ThreadReference.Frames"), or "command 64.100".
std::string CommandLabel(uint32_t set, uint32_t command);
// An event kind's spec name ("BREAKPOINT").
std::string EventKindName(uint32_t kind);
// Ring segments of one run in the order they were written; runs by start time.
void Order(std::vector<TraceFile>& files);

}  // namespace jdwpx::trace
