#include "trace/chrome_export.h"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include <nlohmann/json.hpp>

#include "jdwp/commands/all.h"
#include "jdwp/packet.h"

namespace jdwpx::trace {
namespace {

using nlohmann::json;

constexpr uint64_t kCommandsTrack = 0;  // tid of commands that name no thread

// Command sets and commands the export follows (the spec's numbers).
constexpr uint32_t kVirtualMachine = 1, kVmSuspend = 8, kVmResume = 9;
constexpr uint32_t kThreadReference = 11, kThreadSuspend = 2, kThreadResume = 3;
constexpr uint32_t kStackFrame = 16;

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

uint64_t Be64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 0; i < 8; ++i) v = v << 8 | p[i];
  return v;
}

// The thread a command names first: recorded as `thread`, or in the bytes of
// traces from before that field (tracebytes=y).
uint64_t ThreadOf(const Packet& p) {
  if (p.thread) return p.thread;
  if ((p.command_set == kThreadReference || p.command_set == kStackFrame) && p.bytes.size() >= jdwp::kHeaderSize + 8)
    return Be64(p.bytes.data() + jdwp::kHeaderSize);
  return 0;
}

std::string SuspensionCause(const Suspension& s) {
  switch (s.by) {
    case Suspension::By::kDebugger:
      return std::string("VirtualMachine.") + (s.suspended ? "Suspend" : "Resume") + " id=" + std::to_string(s.packet_id);
    case Suspension::By::kEvent: return "event, composite id=" + std::to_string(s.packet_id);
    case Suspension::By::kSessionEnd: return "end of the session";
    default: return "unknown";
  }
}

// The events go out one a line as they are made: a trace of a million
// records is not held as a million JSON values.
class Output {
 public:
  void Emit(const json& event) {
    out_ += first_ ? "\n" : ",\n";
    first_ = false;
    // Names and messages come from the debuggee: bytes that are not UTF-8 become U+FFFD.
    out_ += event.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  std::string& text() { return out_; }

 private:
  std::string out_;
  bool first_ = true;
};

// One run (pid) of the traces: what is open, and the threads' names.
class Run {
 public:
  Run(uint32_t pid, uint64_t start, Output& out) : pid_(pid), start_(start), out_(out) {}

  void Take(const Record& r) {
    last_ns_ = std::max(last_ns_, r.time_ns);
    if (r.thread_name) {
      names_[r.thread_name->thread] = r.thread_name->name;
    } else if (r.packet) {
      TakePacket(r.time_ns, *r.packet);
    } else if (r.event) {
      TakeEvent(r.time_ns, *r.event);
    } else if (r.suspension) {
      TakeSuspension(r.time_ns, *r.suspension);
    } else if (r.session) {
      TakeSession(r.time_ns, *r.session);
    } else if (r.agent_error) {
      Instant(r.time_ns, "error", "agent error", {{"message", r.agent_error->message}});
    } else if (r.dropped) {
      Instant(r.time_ns, "dropped", "records dropped", {{"lost_so_far", r.dropped->count}});
    }
  }

  // Closes what is still open and names the tracks.
  void Finish() {
    for (auto& [thread, s] : threads_) {
      if (s.count > 0) EndThreadSuspension(last_ns_, thread, s, "still suspended at the end of the trace", true);
    }
    if (vm_suspended_since_) EndAsync(last_ns_, "suspension", "VM suspended", {{"open_at_end", true}});
    for (const auto& [connection, open] : sessions_)
      EndAsync(last_ns_, "session", open.name, {{"open_at_end", true}}, open.id);
    out_.Emit({{"ph", "M"}, {"name", "process_name"}, {"pid", pid_}, {"tid", 0},
                       {"args", {{"name", "debuggee (pid " + std::to_string(pid_) + ")"}}}});
    out_.Emit({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid_}, {"tid", kCommandsTrack},
                       {"args", {{"name", "JDWP commands"}}}});
    // The commands' track first, then the threads in the order their IDs were given out.
    out_.Emit({{"ph", "M"}, {"name", "thread_sort_index"}, {"pid", pid_}, {"tid", kCommandsTrack},
                       {"args", {{"sort_index", -1}}}});
    for (uint64_t thread : tracks_) {
      if (thread == kCommandsTrack) continue;
      auto name = names_.find(thread);
      out_.Emit({{"ph", "M"}, {"name", "thread_name"}, {"pid", pid_}, {"tid", thread},
                         {"args", {{"name", name != names_.end() ? name->second : "thread " + Hex(thread)}}}});
    }
  }

 private:
  struct Command {
    uint64_t time_ns;
    uint32_t set, command;
    uint64_t thread;
  };
  // The debugger's count of a thread's suspensions, as far as the records tell.
  struct ThreadSuspension {
    int64_t count = 0;
    uint64_t since = 0;
    std::string by;
  };

  double Us(uint64_t ns) const { return ns >= start_ ? static_cast<double>(ns - start_) / 1e3 : 0.0; }

  json Base(const char* ph, uint64_t ns, uint64_t tid) {
    tracks_.insert(tid);
    return {{"ph", ph}, {"pid", pid_}, {"tid", tid}, {"ts", Us(ns)}};
  }

  void Instant(uint64_t ns, const char* cat, const std::string& name, json args) {
    json e = Base("i", ns, kCommandsTrack);
    e["s"] = "p";
    e["cat"] = cat;
    e["name"] = name;
    e["args"] = std::move(args);
    out_.Emit(std::move(e));
  }

  // `id`: 1, one track per category whose spans never overlap; sessions, which
  // overlap with sessions=N, are told apart by their number.
  void BeginAsync(uint64_t ns, const char* cat, const std::string& name, json args, uint32_t id = 1) {
    json e = Base("b", ns, kCommandsTrack);
    e["cat"] = cat;
    e["name"] = name;
    e["id"] = id;
    e["args"] = std::move(args);
    out_.Emit(std::move(e));
  }

  void EndAsync(uint64_t ns, const char* cat, const std::string& name, json args, uint32_t id = 1) {
    json e = Base("e", ns, kCommandsTrack);
    e["cat"] = cat;
    e["name"] = name;
    e["id"] = id;
    e["args"] = std::move(args);
    out_.Emit(std::move(e));
  }

  void TakePacket(uint64_t ns, const Packet& p) {
    if (p.direction == Packet::Direction::kIn && !p.reply) {
      commands_[{p.connection, p.id}] = Command{ns, p.command_set, p.command, ThreadOf(p)};
      return;
    }
    if (p.direction != Packet::Direction::kOut || !p.reply) return;
    auto it = commands_.find({p.connection, p.id});
    if (it == commands_.end()) return;
    const Command c = it->second;
    commands_.erase(it);
    json e = Base("X", c.time_ns, c.thread);
    e["cat"] = "command";
    e["name"] = CommandLabel(c.set, c.command);
    e["dur"] = static_cast<double>(ns >= c.time_ns ? ns - c.time_ns : 0) / 1e3;
    e["args"] = {{"id", p.id},
                 {"error", std::string(jdwp::ErrorName(static_cast<jdwp::ErrorCode>(p.error_code)))},
                 {"bytes_out", p.length}};
    if (c.thread) e["args"]["thread"] = Hex(c.thread);
    out_.Emit(std::move(e));
    if (p.error_code != 0) return;
    // What a command that succeeded did to the debugger's suspend counts.
    if (c.set == kThreadReference && c.command == kThreadSuspend && c.thread) {
      SuspendThread(ns, c.thread, "ThreadReference.Suspend id=" + std::to_string(p.id));
    } else if (c.set == kThreadReference && c.command == kThreadResume && c.thread) {
      ResumeThread(ns, c.thread, "ThreadReference.Resume id=" + std::to_string(p.id));
    } else if (c.set == kVirtualMachine && c.command == kVmSuspend) {
      // Every thread once more; those at 0 are shown by the VM's span.
      for (auto& [thread, s] : threads_)
        if (s.count > 0) ++s.count;
    } else if (c.set == kVirtualMachine && c.command == kVmResume) {
      for (auto& [thread, s] : threads_)
        if (s.count > 0 && --s.count == 0)
          EndThreadSuspension(ns, thread, s, "VirtualMachine.Resume id=" + std::to_string(p.id), false);
    }
  }

  void TakeEvent(uint64_t ns, const Event& ev) {
    const std::string policy = SuspendPolicyName(ev.suspend_policy);
    json e = Base("i", ns, ev.thread);
    e["s"] = "t";
    e["cat"] = "event";
    e["name"] = EventKindName(ev.kind);
    e["args"] = {{"request", ev.request_id},
                 {"suspend_policy", policy},
                 {"composite", ev.packet_id},
                 {"composite_size", ev.composite_size}};
    if (ev.thread) e["args"]["thread"] = Hex(ev.thread);
    out_.Emit(std::move(e));
    // A composite suspends once, whatever number of its events name the thread.
    const std::pair<uint64_t, uint32_t> composite{ns, ev.packet_id};
    if (composite != composite_) {
      composite_ = composite;
      composite_threads_.clear();
      // SUSPEND_ALL counts every thread once more; those at 0 are shown by the VM's span.
      if (ev.suspend_policy == static_cast<uint32_t>(jdwp::SuspendPolicy::kAll)) {
        for (auto& [thread, s] : threads_)
          if (s.count > 0) {
            ++s.count;
            composite_threads_.insert(thread);
          }
      }
    }
    const bool suspends = ev.suspend_policy == static_cast<uint32_t>(jdwp::SuspendPolicy::kEventThread) ||
                          ev.suspend_policy == static_cast<uint32_t>(jdwp::SuspendPolicy::kAll);
    if (suspends && ev.thread && composite_threads_.insert(ev.thread).second)
      SuspendThread(ns, ev.thread, EventKindName(ev.kind) + " event, " + policy);
  }

  void TakeSuspension(uint64_t ns, const Suspension& s) {
    if (s.suspended && !vm_suspended_since_) {
      vm_suspended_since_ = ns;
      BeginAsync(ns, "suspension", "VM suspended", {{"by", SuspensionCause(s)}});
    } else if (!s.suspended && vm_suspended_since_) {
      vm_suspended_since_.reset();
      EndAsync(ns, "suspension", "VM suspended", {{"resumed_by", SuspensionCause(s)}});
    }
    if (!s.suspended && s.by == Suspension::By::kSessionEnd) ResumeEverything(ns);
  }

  void TakeSession(uint64_t ns, const Session& s) {
    switch (s.kind) {
      case Session::Kind::kAttached: {
        // Of the same connection (traces before sessions=N: all 0): it ended unseen.
        if (auto it = sessions_.find(s.connection); it != sessions_.end()) {
          EndAsync(ns, "session", it->second.name, {}, it->second.id);
          sessions_.erase(it);
        }
        const OpenSession& open = sessions_[s.connection] =
            OpenSession{"session " + std::to_string(s.number) + " " + s.peer, std::max<uint32_t>(s.number, 1)};
        BeginAsync(ns, "session", open.name, {{"peer", s.peer}, {"handshake_us", s.handshake_ns / 1e3}}, open.id);
        break;
      }
      case Session::Kind::kEnded: {
        std::erase_if(commands_, [&](const auto& c) { return c.first.first == s.connection; });
        if (auto it = sessions_.find(s.connection); it != sessions_.end()) {
          EndAsync(ns, "session", it->second.name, {{"reason", s.reason}}, it->second.id);
          sessions_.erase(it);
        }
        // The agent resumes what the debugger suspended when it leaves; the
        // threads' spans here are not kept per debugger: they end with the last.
        if (sessions_.empty()) {
          ResumeEverything(ns);
          commands_.clear();
        }
        break;
      }
      case Session::Kind::kRefused:
        Instant(ns, "session", "debugger refused", {{"reason", s.reason}});
        break;
      default:
        break;
    }
  }

  void SuspendThread(uint64_t ns, uint64_t thread, std::string by) {
    ThreadSuspension& s = threads_[thread];
    if (s.count++ == 0) {
      s.since = ns;
      s.by = std::move(by);
    }
  }

  void ResumeThread(uint64_t ns, uint64_t thread, const std::string& by) {
    auto it = threads_.find(thread);
    if (it == threads_.end() || it->second.count == 0) return;
    if (--it->second.count == 0) EndThreadSuspension(ns, thread, it->second, by, false);
  }

  void ResumeEverything(uint64_t ns) {
    for (auto& [thread, s] : threads_) {
      if (s.count > 0) EndThreadSuspension(ns, thread, s, "end of the session", false);
    }
  }

  void EndThreadSuspension(uint64_t ns, uint64_t thread, ThreadSuspension& s, const std::string& resumed_by,
                           bool open_at_end) {
    s.count = 0;
    json e = Base("X", s.since, thread);
    e["cat"] = "suspension";
    e["name"] = "suspended";
    e["dur"] = static_cast<double>(ns >= s.since ? ns - s.since : 0) / 1e3;
    e["args"] = {{"by", s.by}, {"resumed_by", resumed_by}};
    if (open_at_end) e["args"]["open_at_end"] = true;
    out_.Emit(std::move(e));
  }

  uint32_t pid_;
  uint64_t start_;
  Output& out_;
  uint64_t last_ns_ = 0;
  std::map<uint64_t, std::string> names_;
  std::set<uint64_t> tracks_;                    // tids with events
  std::map<std::pair<uint64_t, uint32_t>, Command> commands_;  // not yet answered, by (connection, packet id)
  std::map<uint64_t, ThreadSuspension> threads_;  // by thread ID
  std::pair<uint64_t, uint32_t> composite_{0, 0};  // the composite whose events come in (time, id)
  std::set<uint64_t> composite_threads_;           // threads it suspended
  std::optional<uint64_t> vm_suspended_since_;
  struct OpenSession {
    std::string name;
    uint32_t id;
  };
  std::map<uint64_t, OpenSession> sessions_;  // attached and not ended, by connection
};

}  // namespace

std::string SuspendPolicyName(uint32_t policy) {
  switch (policy) {
    case static_cast<uint32_t>(jdwp::SuspendPolicy::kNone): return "SUSPEND_NONE";
    case static_cast<uint32_t>(jdwp::SuspendPolicy::kEventThread): return "SUSPEND_EVENT_THREAD";
    case static_cast<uint32_t>(jdwp::SuspendPolicy::kAll): return "SUSPEND_ALL";
    default: return "SUSPEND_POLICY_" + std::to_string(policy);
  }
}

std::string ChromeJson(std::vector<TraceFile> files) {
  Order(files);
  uint64_t start = UINT64_MAX;
  for (const TraceFile& f : files)
    for (const Record& r : f.records) start = std::min(start, r.time_ns);
  Output out;
  out.text() = "{\"traceEvents\":[";
  std::map<uint32_t, Run> runs;  // the segments of one run share their state
  json other = json::object();
  for (const TraceFile& f : files) {
    const uint32_t pid = f.header.pid;
    Run& run = runs.try_emplace(pid, pid, start, out).first->second;
    other["pid " + std::to_string(pid)] = {{"vm", f.header.vm_name},
                                           {"vm_version", f.header.vm_version},
                                           {"jdwpx", f.header.jdwpx_version},
                                           {"options", f.header.options}};
    for (const Record& r : f.records) run.Take(r);
  }
  for (auto& [pid, run] : runs) run.Finish();
  std::string text = std::move(out.text());
  text += "\n],\"displayTimeUnit\":\"ms\",\"otherData\":";
  text += other.dump(-1, ' ', false, json::error_handler_t::replace);
  text += "}\n";
  return text;
}

}  // namespace jdwpx::trace
