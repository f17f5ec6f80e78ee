#include "tools/probe/output.h"

#include <time.h>

#include <charconv>
#include <cmath>
#include <cstdio>

namespace jdwpx::tools::probe {
namespace {

using Json = nlohmann::ordered_json;
using jdwp::Probe::NodeKind;
using Node = jdwp::Probe::Snapshot::Node;

constexpr int64_t kNsPerSecond = 1'000'000'000;

std::string Dumped(const Json& line) {
  // Replace, not throw: a string the agent cut mid-character is still worth a line.
  return line.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

struct SplitTime {
  time_t seconds;
  int millis;
};
SplitTime Split(int64_t ns) {
  int64_t seconds = ns / kNsPerSecond;
  int64_t rest = ns % kNsPerSecond;
  if (rest < 0) {
    rest += kNsPerSecond;
    --seconds;
  }
  return {static_cast<time_t>(seconds), static_cast<int>(rest / 1'000'000)};
}

std::string IsoUtc(int64_t ns) {
  const SplitTime t = Split(ns);
  tm parts{};
  gmtime_r(&t.seconds, &parts);
  char text[64];
  const size_t n = strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", &parts);
  std::snprintf(text + n, sizeof text - n, ".%03dZ", t.millis);
  return text;
}

std::string LocalClock(int64_t ns) {
  const SplitTime t = Split(ns);
  tm parts{};
  localtime_r(&t.seconds, &parts);
  char text[32];
  std::snprintf(text, sizeof text, "%02d:%02d:%02d.%03d", parts.tm_hour, parts.tm_min, parts.tm_sec, t.millis);
  return text;
}

Json Header(const char* kind, const std::string& target, int32_t probe, int64_t time_ns) {
  return Json{{"kind", kind}, {"target", target}, {"probe", probe}, {"time", IsoUtc(time_ns)}};
}

// A primitive as Java printed it, as a JSON number when JSON has one for it
// (NaN and the infinities stay strings).
Json Number(const std::string& text) {
  int64_t whole = 0;
  const char* end = text.data() + text.size();
  if (auto [at, ec] = std::from_chars(text.data(), end, whole); ec == std::errc() && at == end) return whole;
  double real = 0;
  if (auto [at, ec] = std::from_chars(text.data(), end, real); ec == std::errc() && at == end && std::isfinite(real)) {
    return real;
  }
  return text;
}

bool IsIndexName(const std::string& name) {
  std::string_view digits = name;
  if (digits.size() >= 2 && digits.front() == '[' && digits.back() == ']') digits = digits.substr(1, digits.size() - 2);
  return !digits.empty() && digits.find_first_not_of("0123456789") == std::string_view::npos;
}

// The value of nodes[at] with the nodes below it (those after it that are
// deeper), leaving `at` past them. A depth that jumps by more than one is
// taken as the next depth: a tolerant reader of a tree it did not write.
Json Build(std::span<const Node> nodes, size_t& at) {
  const Node& node = nodes[at++];
  const auto for_each_child = [&](auto&& add) {
    while (at < nodes.size() && nodes[at].depth > node.depth) {
      const std::string& name = nodes[at].name;
      add(name, Build(nodes, at));
    }
  };
  switch (node.kind) {
    case NodeKind::kNull: return nullptr;
    case NodeKind::kBoolean: return node.text == "true";
    case NodeKind::kNumber: return Number(node.text);
    case NodeKind::kCharacter: return node.text;
    case NodeKind::kString: return node.text;
    case NodeKind::kObject: {
      Json fields = Json::object();
      for_each_child([&](const std::string& name, Json value) { fields[name] = std::move(value); });
      return Json{{"type", node.type}, {"fields", std::move(fields)}};
    }
    case NodeKind::kArray:
    case NodeKind::kCollection: {
      // A map's entries are named by their keys: they keep them, as an object.
      Json list = Json::array();
      Json named = Json::object();
      for_each_child([&](const std::string& name, Json value) {
        if (!IsIndexName(name)) named[name] = value;
        list.push_back(std::move(value));
      });
      Json value{{"type", node.type}, {"length", node.length}};
      if (!named.empty() && named.size() == list.size()) value["entries"] = std::move(named);
      else value["elements"] = std::move(list);
      return value;
    }
    case NodeKind::kCycle: return Json{{"type", node.type}, {"cut", "cycle"}};
    case NodeKind::kDeeper: return Json{{"type", node.type}, {"cut", "depth"}};
    case NodeKind::kError: return Json{{"error", node.text}};
  }
  for_each_child([](const std::string&, Json) {});
  return Json{{"error", "unknown value kind " + std::to_string(static_cast<int>(node.kind))}};
}

std::string Quoted(const std::string& text, char quote) {
  std::string out(1, quote);
  for (char c : text) {
    switch (c) {
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      case '\\': out += "\\\\"; break;
      default:
        if (c == quote) out += '\\';
        out += c;
    }
  }
  return out + quote;
}

}  // namespace

std::string NoticeName(jdwp::Probe::NoticeKind kind) {
  using jdwp::Probe::NoticeKind;
  switch (kind) {
    case NoticeKind::kEvaluationError: return "evaluation_error";
    case NoticeKind::kPaused: return "paused";
    case NoticeKind::kArmed: return "armed";
    case NoticeKind::kDone: return "done";
    case NoticeKind::kRateLimited: return "rate_limited";
    case NoticeKind::kRefused: return "refused";
  }
  return "notice_" + std::to_string(static_cast<int>(kind));
}

FrameValues RebuildValues(std::span<const Node> nodes) {
  FrameValues values;
  size_t at = 0;
  while (at < nodes.size()) {
    const Node& root = nodes[at];
    const bool is_this = root.name == "this";
    Json value = Build(nodes, at);
    if (!is_this) {
      values.locals[root.name] = std::move(value);
    } else if (root.kind == NodeKind::kObject) {
      values.this_fields = std::move(value["fields"]);
    } else {
      values.this_fields = std::move(value);
    }
  }
  return values;
}

std::string ValueText(const Node& node) {
  switch (node.kind) {
    case NodeKind::kNull: return "null";
    case NodeKind::kBoolean:
    case NodeKind::kNumber: return node.text;
    case NodeKind::kCharacter: return Quoted(node.text, '\'');
    case NodeKind::kString: {
      std::string text = Quoted(node.text, '"');
      if (node.length > static_cast<int32_t>(node.text.size())) text += "... (" + std::to_string(node.length) + " chars)";
      return text;
    }
    case NodeKind::kObject: return node.type;
    case NodeKind::kArray: {
      // int[] of 5: int[5], as jdb shows it; int[][]: int[5][].
      std::string type = node.type;
      const size_t brackets = type.find("[]");
      if (brackets == std::string::npos) return type + " (length " + std::to_string(node.length) + ")";
      return type.insert(brackets + 1, std::to_string(node.length));
    }
    case NodeKind::kCollection: return node.type + " (size " + std::to_string(node.length) + ")";
    case NodeKind::kCycle: return node.type + " (cycle)";
    case NodeKind::kDeeper: return node.type + " {...}";
    case NodeKind::kError: return "<error: " + node.text + ">";
  }
  return "<unknown value kind " + std::to_string(static_cast<int>(node.kind)) + ">";
}

std::string LogLine(Format format, const std::string& target, const jdwp::Probe::Log::Request& log) {
  if (format == Format::kText) {
    return LocalClock(log.time_ns) + " " + target + " " + log.thread + " " + log.location + ": " + log.message + "\n";
  }
  Json line = Header("log", target, log.probe_id, log.time_ns);
  line["thread"] = log.thread;
  line["location"] = log.location;
  line["message"] = log.message;
  return Dumped(line);
}

std::string SnapshotLines(Format format, const std::string& target, const jdwp::Probe::Snapshot::Request& snapshot) {
  if (format == Format::kText) {
    std::string text = LocalClock(snapshot.time_ns) + " " + target + " " + snapshot.thread + " " + snapshot.location +
                       ": snapshot\n";
    for (size_t i = 0; i < snapshot.frames.size(); ++i) {
      const auto& frame = snapshot.frames[i];
      text += "  #" + std::to_string(i) + " " + frame.class_name + "." + frame.method + ":" + std::to_string(frame.line) + "\n";
      for (const Node& node : frame.values) {
        const std::string name = IsIndexName(node.name) && node.name.front() != '[' ? "[" + node.name + "]" : node.name;
        text += std::string(6 + 2 * size_t{node.depth}, ' ') + name + " = " + ValueText(node) + "\n";
      }
    }
    return text;
  }
  Json line = Header("snapshot", target, snapshot.probe_id, snapshot.time_ns);
  line["thread"] = snapshot.thread;
  line["location"] = snapshot.location;
  Json frames = Json::array();
  for (const auto& frame : snapshot.frames) {
    FrameValues values = RebuildValues(frame.values);
    frames.push_back(Json{{"class", frame.class_name},
                          {"method", frame.method},
                          {"line", frame.line},
                          {"locals", std::move(values.locals)},
                          {"this", std::move(values.this_fields)}});
  }
  line["frames"] = std::move(frames);
  return Dumped(line);
}

std::string NoticeLine(Format format, const std::string& target, const jdwp::Probe::Notice::Request& notice, int64_t now_ns) {
  if (format == Format::kText) {
    return LocalClock(now_ns) + " " + target + " probe " + std::to_string(notice.probe_id) + " " +
           NoticeName(notice.kind) + ": " + notice.message + "\n";
  }
  Json line = Header("notice", target, notice.probe_id, now_ns);
  line["notice"] = NoticeName(notice.kind);
  line["message"] = notice.message;
  return Dumped(line);
}

std::string SummaryLine(Format format, const std::string& target, const Summary& summary, int64_t now_ns) {
  if (format == Format::kText) {
    return target + ": probe " + std::to_string(summary.probe) + ": " + std::to_string(summary.hits) + " hits, " +
           std::to_string(summary.matched) + " matched, " + std::to_string(summary.suppressed) + " suppressed\n";
  }
  Json line = Header("summary", target, summary.probe, now_ns);
  line["hits"] = summary.hits;
  line["matched"] = summary.matched;
  line["suppressed"] = summary.suppressed;
  return Dumped(line);
}

}  // namespace jdwpx::tools::probe
