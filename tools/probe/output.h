// jdwpx-probe's output lines, one per Log, Snapshot, Notice and end-of-run
// summary: JSON (one object a line, for programs) or text (for people). Each
// function returns whole lines, "\n" included, so that the run writes each
// with one call and lines of different targets never interleave.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "jdwp/commands/probe.h"

namespace jdwpx::tools::probe {

enum class Format { kJson, kText };

// Probe.List's counts for one target's probes.
struct Summary {
  int32_t probe = 0;
  int64_t hits = 0;
  int64_t matched = 0;
  int64_t suppressed = 0;
};

// Times are nanoseconds since the Unix epoch: JSON prints them in UTC
// ("2026-11-29T09:52:55.123Z"), text in local time ("09:52:55.123").
std::string LogLine(Format format, const std::string& target, const jdwp::Probe::Log::Request& log);
std::string SnapshotLines(Format format, const std::string& target, const jdwp::Probe::Snapshot::Request& snapshot);
std::string NoticeLine(Format format, const std::string& target, const jdwp::Probe::Notice::Request& notice, int64_t now_ns);
std::string SummaryLine(Format format, const std::string& target, const Summary& summary, int64_t now_ns);

// "evaluation_error", "paused", "armed", "done", "rate_limited", "refused".
std::string NoticeName(jdwp::Probe::NoticeKind kind);

// A frame's values rebuilt from Snapshot's depth-first node list: the locals
// as {name: value} and `this` (its fields as {field: value}; null in a static
// method).
struct FrameValues {
  nlohmann::ordered_json locals = nlohmann::ordered_json::object();
  nlohmann::ordered_json this_fields = nullptr;
};
FrameValues RebuildValues(std::span<const jdwp::Probe::Snapshot::Node> nodes);

// One value as a debugger shows it: 42, "text", 'c', null, java.util.ArrayList (size 3).
std::string ValueText(const jdwp::Probe::Snapshot::Node& node);

}  // namespace jdwpx::tools::probe
