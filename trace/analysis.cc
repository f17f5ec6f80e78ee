#include "trace/analysis.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>

#include "jdwp/commands/all.h"
#include "jdwp/print.h"
#include "trace/reader.h"

namespace jdwpx::trace {
namespace {

std::string Printf(const char* format, auto... args) {
  char buf[512];
  std::snprintf(buf, sizeof buf, format, args...);
  return buf;
}

}  // namespace

std::string CommandLabel(uint32_t set, uint32_t command) {
  std::string_view name = jdwp::CommandName(static_cast<uint8_t>(set), static_cast<uint8_t>(command));
  if (!name.empty() && set < 256 && command < 256) return std::string(name);
  return "command " + std::to_string(set) + "." + std::to_string(command);
}

std::string EventKindName(uint32_t kind) {
  std::string out;
  jdwp::print_detail::Append(out, static_cast<jdwp::EventKind>(kind));
  return out;
}

namespace {

std::string Duration(uint64_t ns) {
  if (ns < 10'000) return Printf("%" PRIu64 " ns", ns);
  if (ns < 10'000'000) return Printf("%.1f us", ns / 1e3);
  if (ns < 10'000'000'000ull) return Printf("%.1f ms", ns / 1e6);
  return Printf("%.2f s", ns / 1e9);
}

// The value below which `p` of the sorted samples lie (nearest rank).
uint64_t Percentile(const std::vector<uint64_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(p * static_cast<double>(sorted.size()) + 0.999999);
  rank = std::clamp<size_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

// What one connection did, for the sessions side by side.
struct Slow {
  uint64_t latency_ns;
  std::string name;
  uint32_t id;
};
struct PerConnection {
  uint32_t number = 0;
  std::string peer, reason;
  std::optional<uint64_t> attached, ended;
  uint64_t handshake_ns = 0, commands = 0, errors = 0, bytes_in = 0, bytes_out = 0, composites = 0, events = 0;
  std::vector<uint64_t> latencies;
  std::vector<Slow> slowest;
  std::map<std::string, uint64_t> by_command, by_event;
  std::map<uint32_t, std::string> in_flight;  // commands not answered yet, by id
  uint64_t order = 0;                          // first seen
};

// A table whose first column is a label and the others one per session, each
// as wide as its widest cell; rows with nothing in them are left out.
std::string Columns(const std::vector<std::vector<std::string>>& rows, size_t label_width) {
  std::vector<size_t> widths;
  for (const auto& row : rows) {
    for (size_t i = 1; i < row.size(); ++i) {
      if (widths.size() < i) widths.resize(i, 0);
      widths[i - 1] = std::max(widths[i - 1], row[i].size());
    }
  }
  std::string out;
  for (const auto& row : rows) {
    if (std::all_of(row.begin(), row.end(), [](const std::string& cell) { return cell.empty(); })) continue;
    std::string line = "  " + row[0];
    line.resize(2 + label_width, ' ');
    for (size_t i = 1; i < row.size(); ++i) {
      std::string cell = row[i];
      if (i + 1 < row.size()) cell.resize(widths[i - 1], ' ');
      line += "  " + cell;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  return out;
}

// The sessions side by side: one column per connection, in the order they
// attached; connection 0 (packets whose connection the agent did not know)
// last, when it has any.
std::string SideBySide(std::map<uint64_t, PerConnection>& connections, const std::vector<std::string>& refused,
                       uint64_t first, uint64_t last) {
  std::vector<std::pair<uint64_t, PerConnection*>> columns;
  for (auto& [connection, pc] : connections) columns.emplace_back(connection, &pc);
  std::stable_sort(columns.begin(), columns.end(), [](const auto& a, const auto& b) {
    if ((a.first == 0) != (b.first == 0)) return b.first == 0;
    return a.second->order < b.second->order;
  });
  std::vector<std::vector<std::string>> rows(21);
  const char* labels[] = {"",           "connection", "peer",        "attached at", "ended at",     "ended",
                          "handshake",  "commands",   "errors",      "bytes in",    "bytes out",    "p50",
                          "p95",        "max",        "unanswered",  "composites",  "events",       "slowest",
                          "",           "",           ""};
  for (size_t i = 0; i < rows.size(); ++i) rows[i].push_back(labels[i]);
  auto at = [&](std::optional<uint64_t> t) { return t ? Duration(*t >= first ? *t - first : 0) : std::string("-"); };
  for (auto& [connection, pcp] : columns) {
    PerConnection& pc = *pcp;
    std::sort(pc.latencies.begin(), pc.latencies.end());
    std::stable_sort(pc.slowest.begin(), pc.slowest.end(),
                     [](const Slow& a, const Slow& b) { return a.latency_ns > b.latency_ns; });
    size_t row = 0;
    rows[row++].push_back(connection == 0 ? "connection not known"
                          : pc.number  ? "session " + std::to_string(pc.number)
                                       : "connection " + std::to_string(connection));
    rows[row++].push_back(connection ? std::to_string(connection) : "-");
    rows[row++].push_back(pc.peer.empty() ? "-" : pc.peer);
    rows[row++].push_back(at(pc.attached));
    rows[row++].push_back(pc.ended ? at(pc.ended) : connection ? "still attached at " + at(last) : "-");
    rows[row++].push_back(pc.ended ? pc.reason : "-");
    rows[row++].push_back(pc.handshake_ns ? Duration(pc.handshake_ns) : "-");
    rows[row++].push_back(std::to_string(pc.commands));
    rows[row++].push_back(std::to_string(pc.errors));
    rows[row++].push_back(std::to_string(pc.bytes_in));
    rows[row++].push_back(std::to_string(pc.bytes_out));
    rows[row++].push_back(Duration(Percentile(pc.latencies, 0.5)));
    rows[row++].push_back(Duration(Percentile(pc.latencies, 0.95)));
    rows[row++].push_back(Duration(pc.latencies.empty() ? 0 : pc.latencies.back()));
    std::string unanswered = std::to_string(pc.in_flight.size());
    if (!pc.in_flight.empty()) {
      unanswered += " (" + pc.in_flight.begin()->second + " id=" + std::to_string(pc.in_flight.begin()->first);
      unanswered += pc.in_flight.size() > 1 ? ", ...)" : ")";
    }
    rows[row++].push_back(unanswered);
    rows[row++].push_back(std::to_string(pc.composites));
    rows[row++].push_back(std::to_string(pc.events));
    for (size_t i = 0; i < 4; ++i) {
      rows[row++].push_back(i < pc.slowest.size() ? Duration(pc.slowest[i].latency_ns) + " " + pc.slowest[i].name +
                                                        " id=" + std::to_string(pc.slowest[i].id)
                                                  : "");
    }
  }
  std::string out = Printf("\nsessions (%zu connections, side by side):\n", columns.size());
  out += Columns(rows, 12);
  for (const std::string& r : refused) out += "  refused: " + r + "\n";

  // Each command and event kind, per session.
  std::map<std::string, uint64_t> totals;
  for (auto& [connection, pc] : columns)
    for (const auto& [name, n] : pc->by_command) totals[name] += n;
  std::vector<std::pair<std::string, uint64_t>> names(totals.begin(), totals.end());
  std::stable_sort(names.begin(), names.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  std::vector<std::vector<std::string>> table;
  table.push_back({"command"});
  for (auto& [connection, pc] : columns) table[0].push_back(rows[0][table[0].size()]);
  for (const auto& [name, total] : names) {
    table.push_back({name});
    for (auto& [connection, pc] : columns) {
      auto it = pc->by_command.find(name);
      table.back().push_back(std::to_string(it == pc->by_command.end() ? 0 : it->second));
    }
  }
  std::map<std::string, uint64_t> kinds;
  for (auto& [connection, pc] : columns)
    for (const auto& [kind, n] : pc->by_event) kinds[kind] += n;
  if (!kinds.empty()) {
    table.push_back({"event"});
    for (size_t i = 0; i < columns.size(); ++i) table.back().push_back("");
    for (const auto& [kind, total] : kinds) {
      table.push_back({kind});
      for (auto& [connection, pc] : columns) {
        auto it = pc->by_event.find(kind);
        table.back().push_back(std::to_string(it == pc->by_event.end() ? 0 : it->second));
      }
    }
  }
  out += "\ncommands and events by session:\n";
  out += Columns(table, 44);
  return out;
}

}  // namespace

void Order(std::vector<TraceFile>& files) {
  std::stable_sort(files.begin(), files.end(), [](const TraceFile& a, const TraceFile& b) {
    if (a.header.start_wall_ns != b.header.start_wall_ns) return a.header.start_wall_ns < b.header.start_wall_ns;
    return a.header.segment < b.header.segment;
  });
}

tl::expected<TraceFile, std::string> Load(const std::string& path) {
  auto reader = Reader::Open(path);
  if (!reader) return tl::unexpected(reader.error());
  TraceFile file;
  file.path = path;
  Record r;
  while (true) {
    Reader::Status status = reader->Next(r);
    if (status == Reader::Status::kRecord) {
      file.records.push_back(std::move(r));
      continue;
    }
    if (status == Reader::Status::kEnd) break;
    if (status == Reader::Status::kIncomplete) {
      file.problem = path + ": truncated: the record at byte " + std::to_string(reader->offset()) + " is incomplete (" +
                     std::to_string(reader->pending_bytes()) + " bytes); " + std::to_string(file.records.size()) +
                     " whole records read before it";
      break;
    }
    if (file.records.empty()) return tl::unexpected(reader->error());
    file.problem = reader->error() + "; " + std::to_string(file.records.size()) + " whole records read before it";
    break;
  }
  if (file.records.empty()) {
    // Nothing, or only part of a header: not enough to read anything from.
    return tl::unexpected(file.problem.empty() ? path + ": empty file: no trace records" : file.problem);
  }
  file.header = reader->header();
  return file;
}

std::optional<uint64_t> Connections::Of(const Record& r) {
  std::optional<uint64_t> connection;
  if (r.packet) {
    connection = r.packet->connection;
    if (r.packet->direction == Packet::Direction::kOut && !r.packet->reply) composite_ = r.packet->connection;
  } else if (r.session && r.session->kind != Session::Kind::kRefused) {
    connection = r.session->connection;
  } else if (r.event) {
    connection = composite_;
  }
  if (connection && *connection != 0) seen_.insert(*connection);
  return connection;
}

std::string Line(const Record& r, uint64_t start_ns, std::optional<uint64_t> connection) {
  const double ms = r.time_ns >= start_ns ? (r.time_ns - start_ns) / 1e6 : -((start_ns - r.time_ns) / 1e6);
  std::string out = Printf("%12.3f ms  ", ms);
  if (connection && (r.packet || r.event || r.session)) {
    out += *connection ? "[conn " + std::to_string(*connection) + "] " : std::string("[conn ?] ");
  }
  if (r.header) {
    const Header& h = *r.header;
    out += "header: jdwpx " + h.jdwpx_version + ", " + h.vm_name + " " + h.vm_version + ", pid " +
           std::to_string(h.pid) + ", segment " + std::to_string(h.segment) + ", options '" + h.options + "'";
  } else if (r.session) {
    const Session& s = *r.session;
    switch (s.kind) {
      case Session::Kind::kAttached:
        out += "session " + std::to_string(s.number) + " attached: " + s.peer;
        if (s.handshake_ns) out += ", handshake " + Duration(s.handshake_ns);
        break;
      case Session::Kind::kRefused: out += "debugger refused: " + s.reason; break;
      case Session::Kind::kEnded: out += "session " + std::to_string(s.number) + " ended: " + s.reason; break;
      default: out += "session ?"; break;
    }
  } else if (r.packet) {
    const Packet& p = *r.packet;
    out += p.direction == Packet::Direction::kIn ? "<- " : "-> ";
    // A reply sent in parts keeps its header only (Writer::PacketOut): nothing to decode.
    const bool has_body = p.bytes.size() >= jdwp::kHeaderSize && p.bytes.size() == p.length;
    std::span<const uint8_t> data;
    if (has_body) data = std::span<const uint8_t>(p.bytes).subspan(jdwp::kHeaderSize);
    if (p.reply) {
      out += "reply id=" + std::to_string(p.id) + " " +
             std::string(jdwp::ErrorName(static_cast<jdwp::ErrorCode>(p.error_code)));
      if (p.command_set) out += " (" + CommandLabel(p.command_set, p.command) + ")";
      out += " len=" + std::to_string(p.length);
      if (p.latency_ns) out += " (" + Duration(p.latency_ns) + ")";
      if (has_body && p.error_code == 0 && p.command_set)
        out += " " + jdwp::DescribeReplyData(static_cast<uint8_t>(p.command_set), static_cast<uint8_t>(p.command), data);
      else if (!p.bytes.empty() && !has_body)
        out += " (sent in parts: header kept only)";
    } else {
      out += CommandLabel(p.command_set, p.command) + " id=" + std::to_string(p.id) + " len=" + std::to_string(p.length);
      if (has_body)
        out += " " + jdwp::DescribeCommandData(static_cast<uint8_t>(p.command_set), static_cast<uint8_t>(p.command), data);
    }
  } else if (r.event) {
    const Event& e = *r.event;
    out += "   event " + EventKindName(e.kind) + " request=" + std::to_string(e.request_id);
    if (e.thread) out += Printf(" thread=0x%" PRIx64, e.thread);
    out += " policy=";
    jdwp::print_detail::Append(out, static_cast<jdwp::SuspendPolicy>(e.suspend_policy));
    out += " in composite id=" + std::to_string(e.packet_id) + " of " + std::to_string(e.composite_size);
  } else if (r.suspension) {
    const Suspension& s = *r.suspension;
    out += s.suspended ? "VM suspended" : "VM resumed";
    switch (s.by) {
      case Suspension::By::kDebugger: out += " by the debugger (VirtualMachine." + std::string(s.suspended ? "Suspend" : "Resume") + " id=" + std::to_string(s.packet_id) + ")"; break;
      case Suspension::By::kEvent: out += " by an event (composite id=" + std::to_string(s.packet_id) + ")"; break;
      case Suspension::By::kSessionEnd: out += " at the end of the session"; break;
      default: break;
    }
  } else if (r.agent_error) {
    out += "agent error: " + r.agent_error->message;
  } else if (r.dropped) {
    out += "dropped: " + std::to_string(r.dropped->count) + " records lost so far (queue full)";
  } else if (r.thread_name) {
    out += Printf("thread 0x%" PRIx64 " is named '", r.thread_name->thread) + r.thread_name->name + "'";
  }
  return out;
}

std::string Summarize(std::vector<TraceFile> files) {
  Order(files);
  struct CommandStats {
    uint64_t count = 0, bytes_in = 0, bytes_out = 0, errors = 0;
    std::vector<uint64_t> latencies;
  };
  std::map<std::string, CommandStats> commands;
  std::map<std::string, uint64_t> events;
  uint64_t composites = 0, composite_bytes = 0;
  std::map<std::string, std::pair<uint64_t, uint64_t>> vendor_out;  // count, bytes
  struct SessionSpan {
    std::string peer;
    uint64_t start = 0, end = 0, handshake_ns = 0;
    std::string reason;
    bool ended = false;
  };
  std::vector<SessionSpan> sessions;
  std::vector<std::string> refused;
  std::map<uint64_t, PerConnection> connections;
  Connections tracker;
  uint64_t seen_order = 0;
  uint64_t suspended_ns = 0, suspensions = 0, dropped = 0, errors = 0, records = 0;
  std::optional<uint64_t> suspended_since;
  uint64_t first = UINT64_MAX, last = 0;
  std::set<std::string> vms;
  for (const TraceFile& f : files) {
    vms.insert(f.header.vm_name + " " + f.header.vm_version + " (pid " + std::to_string(f.header.pid) + ")");
    for (const Record& r : f.records) {
      ++records;
      first = std::min(first, r.time_ns);
      last = std::max(last, r.time_ns);
      if (std::optional<uint64_t> c = tracker.Of(r)) {
        auto [it, added] = connections.try_emplace(*c);
        if (added) it->second.order = seen_order++;
        PerConnection& pc = it->second;
        if (r.packet) {
          const Packet& p = *r.packet;
          const std::string name = CommandLabel(p.command_set, p.command);
          if (p.direction == Packet::Direction::kIn && !p.reply) {
            ++pc.commands;
            ++pc.by_command[name];
            pc.bytes_in += p.length;
            pc.in_flight[p.id] = name;
          } else if (p.direction == Packet::Direction::kOut && p.reply) {
            pc.bytes_out += p.length;
            pc.in_flight.erase(p.id);
            if (p.error_code) ++pc.errors;
            if (p.command_set) {
              pc.latencies.push_back(p.latency_ns);
              pc.slowest.push_back({p.latency_ns, name, p.id});
            }
          } else if (p.direction == Packet::Direction::kOut && !p.reply && p.command_set < 128) {
            ++pc.composites;
          }
        } else if (r.event) {
          ++pc.events;
          ++pc.by_event[EventKindName(r.event->kind)];
        } else if (r.session) {
          const Session& s = *r.session;
          if (s.number) pc.number = s.number;
          if (!s.peer.empty()) pc.peer = s.peer;
          if (s.kind == Session::Kind::kAttached) {
            pc.attached = r.time_ns;
            pc.handshake_ns = s.handshake_ns;
          }
          if (s.kind == Session::Kind::kEnded && !pc.ended) {
            pc.ended = r.time_ns;
            pc.reason = s.reason;
          }
        }
      }
      if (r.packet) {
        const Packet& p = *r.packet;
        if (p.direction == Packet::Direction::kIn && !p.reply) {
          auto& c = commands[CommandLabel(p.command_set, p.command)];
          ++c.count;
          c.bytes_in += p.length;
        } else if (p.direction == Packet::Direction::kOut && p.reply && p.command_set) {
          auto& c = commands[CommandLabel(p.command_set, p.command)];
          c.bytes_out += p.length;
          c.latencies.push_back(p.latency_ns);
          if (p.error_code) ++c.errors;
        } else if (p.direction == Packet::Direction::kOut && !p.reply && p.command_set >= 128) {
          // Commands the VM sends of a vendor set: probe output (Probe.Log, Snapshot, Notice).
          auto& o = vendor_out[CommandLabel(p.command_set, p.command)];
          ++o.first;
          o.second += p.length;
        } else if (p.direction == Packet::Direction::kOut && !p.reply) {
          ++composites;
          composite_bytes += p.length;
        }
      } else if (r.event) {
        ++events[EventKindName(r.event->kind)];
      } else if (r.session) {
        const Session& s = *r.session;
        if (s.kind == Session::Kind::kAttached) sessions.push_back({s.peer, r.time_ns, 0, s.handshake_ns, {}, false});
        if (s.kind == Session::Kind::kRefused) refused.push_back(s.reason);
        if (s.kind == Session::Kind::kEnded && !sessions.empty() && !sessions.back().ended) {
          sessions.back().end = r.time_ns;
          sessions.back().reason = s.reason;
          sessions.back().ended = true;
        }
      } else if (r.suspension) {
        if (r.suspension->suspended && !suspended_since) {
          suspended_since = r.time_ns;
          ++suspensions;
        } else if (!r.suspension->suspended && suspended_since) {
          suspended_ns += r.time_ns - *suspended_since;
          suspended_since.reset();
        }
      } else if (r.dropped) {
        dropped = std::max(dropped, r.dropped->count);
      } else if (r.agent_error) {
        ++errors;
      }
    }
  }
  if (suspended_since) suspended_ns += last - *suspended_since;

  std::string out;
  for (const std::string& vm : vms) out += "trace of " + vm + "\n";
  out += Printf("%" PRIu64 " records in %zu file(s), spanning %s\n", records, files.size(),
                Duration(records ? last - first : 0).c_str());
  if (tracker.several()) {
    out += SideBySide(connections, refused, first, last);
  } else {
    out += "\nsessions:\n";
    if (sessions.empty() && refused.empty()) out += "  none\n";
    for (size_t i = 0; i < sessions.size(); ++i) {
      const SessionSpan& s = sessions[i];
      out += Printf("  %zu  %-24s %s", i + 1, s.peer.c_str(),
                    (Duration((s.ended ? s.end : last) - s.start) + (s.ended ? "" : " (still attached)")).c_str());
      if (s.handshake_ns) out += ", handshake " + Duration(s.handshake_ns);
      if (s.ended) out += ", ended: " + s.reason;
      out += "\n";
    }
    for (const std::string& r : refused) out += "  refused: " + r + "\n";
  }
  out += "\ncommands:\n";
  std::vector<std::pair<std::string, CommandStats>> sorted(commands.begin(), commands.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  out += Printf("  %-44s %7s %10s %10s %10s %10s %10s %6s\n", "command", "count", "bytes in", "bytes out", "p50", "p95",
                "max", "errors");
  uint64_t total = 0;
  for (auto& [name, c] : sorted) {
    std::sort(c.latencies.begin(), c.latencies.end());
    total += c.count;
    out += Printf("  %-44s %7" PRIu64 " %10" PRIu64 " %10" PRIu64 " %10s %10s %10s %6" PRIu64 "\n", name.c_str(), c.count,
                  c.bytes_in, c.bytes_out, Duration(Percentile(c.latencies, 0.5)).c_str(),
                  Duration(Percentile(c.latencies, 0.95)).c_str(),
                  Duration(c.latencies.empty() ? 0 : c.latencies.back()).c_str(), c.errors);
  }
  out += Printf("  %-44s %7" PRIu64 "\n", "total", total);

  out += Printf("\nevents (%" PRIu64 " composites, %" PRIu64 " bytes):\n", composites, composite_bytes);
  if (events.empty()) out += "  none\n";
  for (const auto& [kind, n] : events) out += Printf("  %-28s %7" PRIu64 "\n", kind.c_str(), n);

  if (!vendor_out.empty()) {
    out += "\nprobe output (never suspends):\n";
    for (const auto& [name, o] : vendor_out)
      out += Printf("  %-28s %7" PRIu64 " %10" PRIu64 " bytes\n", name.c_str(), o.first, o.second);
  }

  out += Printf("\nVM suspended: %s in %" PRIu64 " suspension(s)\n", Duration(suspended_ns).c_str(), suspensions);
  out += Printf("dropped records: %" PRIu64 "\n", dropped);
  out += Printf("agent errors: %" PRIu64 "\n", errors);
  return out;
}

}  // namespace jdwpx::trace
