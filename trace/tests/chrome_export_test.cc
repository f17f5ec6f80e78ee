// The Chrome / Perfetto export, parsed back with nlohmann/json: thread tracks
// named after the Java threads, suspensions as spans with their causes, suspend
// policies by name, commands on their threads' tracks.
#include <gtest/gtest.h>

#include <unistd.h>

#include <nlohmann/json.hpp>

#include "jdwp/commands/all.h"
#include "jdwp/packet.h"
#include "trace/chrome_export.h"
#include "trace/writer.h"

namespace jdwpx::trace {
namespace {

using nlohmann::json;

constexpr uint32_t kPid = 42;
constexpr uint32_t kBreakpoint = 2, kSingleStep = 1, kThreadStart = 6, kVmStart = 90;

struct Trace {
  TraceFile file;
  Trace() {
    file.path = "synthetic";
    file.header = Header{std::string(kMagic), kFormatVersion, "t", "vm", "17", kPid, "", 1, 1'000'000, 0, false};
    Record h;
    h.time_ns = 1'000'000;  // every ts below is (time - 1 ms) / 1000
    h.header = file.header;
    file.records.push_back(h);
  }
  Record& Add(uint64_t ns) {
    file.records.emplace_back();
    file.records.back().time_ns = ns;
    return file.records.back();
  }
  void Named(uint64_t ns, uint64_t thread, std::string name) { Add(ns).thread_name = ThreadName{thread, std::move(name)}; }
  void Command(uint64_t ns, uint32_t id, uint32_t set, uint32_t command, uint64_t thread = 0) {
    Add(ns).packet = Packet{Packet::Direction::kIn, id, false, set, command, 0, 11, 0, {}, thread};
  }
  // As RecordMaker names a reply after its command.
  void Reply(uint64_t ns, uint32_t id, uint32_t set, uint32_t command, uint32_t error = 0) {
    Add(ns).packet = Packet{Packet::Direction::kOut, id, true, set, command, error, 11, 0, {}, 0};
  }
  void Composite(uint64_t ns, uint32_t id) {
    Add(ns).packet = Packet{Packet::Direction::kOut, id, false, 64, 100, 0, 40, 0, {}, 0};
  }
  void EventOf(uint64_t ns, uint32_t kind, int32_t request, uint64_t thread, uint32_t policy, uint32_t size,
               uint32_t composite) {
    Add(ns).event = Event{kind, request, thread, policy, size, composite};
  }
  void VmSuspension(uint64_t ns, bool suspended, Suspension::By by, uint32_t packet) {
    Add(ns).suspension = Suspension{suspended, by, packet};
  }
};

json Export(const Trace& t) {
  json j = json::parse(ChromeJson({t.file}));
  EXPECT_TRUE(j.contains("traceEvents"));
  return j["traceEvents"];
}

std::vector<json> Where(const json& events, const std::function<bool(const json&)>& keep) {
  std::vector<json> out;
  for (const json& e : events)
    if (keep(e)) out.push_back(e);
  return out;
}

std::map<uint64_t, std::string> ThreadNames(const json& events, uint32_t pid = kPid) {
  std::map<uint64_t, std::string> names;
  for (const json& e : events) {
    if (e["ph"] == "M" && e["name"] == "thread_name") {
      EXPECT_EQ(e["pid"], pid);
      EXPECT_EQ(names.count(e["tid"].get<uint64_t>()), 0u) << "named twice: " << e.dump();
      names[e["tid"].get<uint64_t>()] = e["args"]["name"].get<std::string>();
    }
  }
  return names;
}

// A debugging session: VMStart (SUSPEND_ALL) resumed by VirtualMachine.Resume;
// a breakpoint (SUSPEND_EVENT_THREAD) in worker-1, looked at, suspended once
// more, resumed twice; a thread that starts unnamed; a breakpoint in main never
// resumed before the trace ends.
Trace DebugSession() {
  Trace t;
  t.Add(1'000'000).session = Session{Session::Kind::kAttached, "127.0.0.1:5005", {}, 1, 2'000};
  t.Named(2'000'000, 1, "main");
  t.Composite(2'000'000, 100);
  t.EventOf(2'000'000, kVmStart, 0, 1, 2, 1, 100);
  t.VmSuspension(2'000'000, true, Suspension::By::kEvent, 100);
  t.Named(3'000'000, 2, "worker-1");
  t.Command(5'000'000, 1, 1, 9);  // VirtualMachine.Resume
  t.Reply(5'100'000, 1, 1, 9);
  t.VmSuspension(5'100'000, false, Suspension::By::kDebugger, 1);
  // Two events of one composite in worker-1 suspend it once.
  t.Composite(6'000'000, 101);
  t.EventOf(6'000'000, kBreakpoint, 7, 2, 1, 2, 101);
  t.EventOf(6'000'000, kSingleStep, 8, 2, 1, 2, 101);
  t.Command(6'500'000, 2, 11, 6, 2);  // ThreadReference.Frames
  t.Reply(6'700'000, 2, 11, 6);
  t.Command(7'000'000, 3, 11, 2, 2);  // ThreadReference.Suspend: counted twice now
  t.Reply(7'010'000, 3, 11, 2);
  t.Command(8'000'000, 4, 11, 3, 2);  // ThreadReference.Resume: once
  t.Reply(8'010'000, 4, 11, 3);
  t.Command(8'500'000, 5, 11, 3, 2);  // a Resume that fails counts nothing
  t.Reply(8'510'000, 5, 11, 3, 10);
  t.Command(9'000'000, 6, 1, 9);  // VirtualMachine.Resume: 0, running
  t.Reply(9'020'000, 6, 1, 9);
  t.Composite(10'000'000, 102);
  t.EventOf(10'000'000, kThreadStart, 9, 3, 0, 1, 102);
  t.Composite(11'000'000, 103);
  t.EventOf(11'000'000, kBreakpoint, 7, 1, 1, 1, 103);
  t.Command(12'000'000, 7, 1, 4);  // VirtualMachine.AllThreads
  t.Reply(12'500'000, 7, 1, 4);
  t.Add(13'000'000).agent_error = AgentError{"the last record"};
  return t;
}

TEST(ChromeExport, ThreadTracksAreNamedAfterTheJavaThreads) {
  const json events = Export(DebugSession());
  const auto names = ThreadNames(events);
  const std::map<uint64_t, std::string> expected{
      {0, "JDWP commands"}, {1, "main"}, {2, "worker-1"}, {3, "thread 0x3"}};
  EXPECT_EQ(names, expected);
  auto process = Where(events, [](const json& e) { return e["ph"] == "M" && e["name"] == "process_name"; });
  ASSERT_EQ(process.size(), 1u);
  EXPECT_EQ(process[0]["pid"], kPid);
  EXPECT_EQ(process[0]["args"]["name"], "debuggee (pid 42)");
  const json other = json::parse(ChromeJson({DebugSession().file}))["otherData"];
  EXPECT_EQ(other["pid 42"]["vm"], "vm");
  EXPECT_EQ(other["pid 42"]["vm_version"], "17");
  EXPECT_EQ(other["pid 42"]["jdwpx"], "t");
}

TEST(ChromeExport, EventsNameTheirSuspendPolicy) {
  const json events = Export(DebugSession());
  auto instants = Where(events, [](const json& e) { return e["ph"] == "i" && e["cat"] == "event"; });
  ASSERT_EQ(instants.size(), 5u);
  EXPECT_EQ(instants[0]["name"], "VM_START");
  EXPECT_EQ(instants[0]["tid"], 1);
  EXPECT_EQ(instants[0]["ts"], 1000.0);
  EXPECT_EQ(instants[0]["args"]["suspend_policy"], "SUSPEND_ALL");
  EXPECT_EQ(instants[1]["name"], "BREAKPOINT");
  EXPECT_EQ(instants[1]["tid"], 2);
  EXPECT_EQ(instants[1]["args"]["suspend_policy"], "SUSPEND_EVENT_THREAD");
  EXPECT_EQ(instants[1]["args"]["request"], 7);
  EXPECT_EQ(instants[1]["args"]["composite"], 101);
  EXPECT_EQ(instants[1]["args"]["composite_size"], 2);
  EXPECT_EQ(instants[2]["name"], "SINGLE_STEP");
  EXPECT_EQ(instants[3]["name"], "THREAD_START");
  EXPECT_EQ(instants[3]["tid"], 3);
  EXPECT_EQ(instants[3]["args"]["suspend_policy"], "SUSPEND_NONE");
  EXPECT_EQ(instants[4]["args"]["suspend_policy"], "SUSPEND_EVENT_THREAD");
  EXPECT_EQ(SuspendPolicyName(7), "SUSPEND_POLICY_7");
}

TEST(ChromeExport, VmSuspensionIsOneSpanFromSuspendToResume) {
  const json events = Export(DebugSession());
  auto begins = Where(events, [](const json& e) { return e["ph"] == "b" && e["cat"] == "suspension"; });
  auto ends = Where(events, [](const json& e) { return e["ph"] == "e" && e["cat"] == "suspension"; });
  ASSERT_EQ(begins.size(), 1u);
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(begins[0]["name"], "VM suspended");
  EXPECT_EQ(ends[0]["name"], "VM suspended");
  EXPECT_EQ(begins[0]["id"], ends[0]["id"]);
  EXPECT_EQ(begins[0]["pid"], kPid);
  EXPECT_EQ(begins[0]["ts"], 1000.0);
  EXPECT_EQ(ends[0]["ts"], 4100.0);
  EXPECT_EQ(begins[0]["args"]["by"], "event, composite id=100");
  EXPECT_EQ(ends[0]["args"]["resumed_by"], "VirtualMachine.Resume id=1");
}

TEST(ChromeExport, ThreadSuspensionsAreSpansOnTheirTracksCountedAsJdwpCounts) {
  const json events = Export(DebugSession());
  auto spans = Where(events, [](const json& e) { return e["ph"] == "X" && e["cat"] == "suspension"; });
  ASSERT_EQ(spans.size(), 3u);
  std::sort(spans.begin(), spans.end(), [](const json& a, const json& b) { return a["ts"] < b["ts"]; });
  // main: from VMStart (SUSPEND_ALL) to the first VirtualMachine.Resume.
  EXPECT_EQ(spans[0]["name"], "suspended");
  EXPECT_EQ(spans[0]["tid"], 1);
  EXPECT_EQ(spans[0]["ts"], 1000.0);
  EXPECT_EQ(spans[0]["dur"], 3100.0);
  EXPECT_EQ(spans[0]["args"]["by"], "VM_START event, SUSPEND_ALL");
  EXPECT_EQ(spans[0]["args"]["resumed_by"], "VirtualMachine.Resume id=1");
  // worker-1: its breakpoint, a Suspend and a Resume later, running again at
  // the VirtualMachine.Resume that brought its count to 0 (not at the first Resume).
  EXPECT_EQ(spans[1]["tid"], 2);
  EXPECT_EQ(spans[1]["ts"], 5000.0);
  EXPECT_EQ(spans[1]["dur"], 3020.0);
  EXPECT_EQ(spans[1]["args"]["by"], "BREAKPOINT event, SUSPEND_EVENT_THREAD");
  EXPECT_EQ(spans[1]["args"]["resumed_by"], "VirtualMachine.Resume id=6");
  EXPECT_FALSE(spans[1]["args"].contains("open_at_end"));
  // main again: never resumed, closed at the trace's last record.
  EXPECT_EQ(spans[2]["tid"], 1);
  EXPECT_EQ(spans[2]["ts"], 10000.0);
  EXPECT_EQ(spans[2]["dur"], 2000.0);
  EXPECT_EQ(spans[2]["args"]["open_at_end"], true);
}

TEST(ChromeExport, CommandsAreSlicesOnTheThreadTheyName) {
  const json events = Export(DebugSession());
  auto commands = Where(events, [](const json& e) { return e["ph"] == "X" && e["cat"] == "command"; });
  ASSERT_EQ(commands.size(), 7u);
  auto frames = Where(commands, [](const json& e) { return e["name"] == "ThreadReference.Frames"; });
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0]["tid"], 2);
  EXPECT_EQ(frames[0]["ts"], 5500.0);
  EXPECT_EQ(frames[0]["dur"], 200.0);
  EXPECT_EQ(frames[0]["args"]["error"], "NONE");
  EXPECT_EQ(frames[0]["args"]["id"], 2);
  auto failed = Where(commands, [](const json& e) { return e["args"]["id"] == 5; });
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_EQ(failed[0]["args"]["error"], "INVALID_THREAD");
  auto all = Where(commands, [](const json& e) { return e["name"] == "VirtualMachine.AllThreads"; });
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0]["tid"], 0);
}

TEST(ChromeExport, EverySpanBeginHasItsEnd) {
  const json events = Export(DebugSession());
  std::map<std::pair<std::string, int>, double> open;
  int pairs = 0;
  for (const json& e : events) {
    if (e["ph"] == "b") {
      auto key = std::make_pair(e["cat"].get<std::string>(), e["id"].get<int>());
      EXPECT_EQ(open.count(key), 0u) << "begun twice: " << e.dump();
      open[key] = e["ts"].get<double>();
    } else if (e["ph"] == "e") {
      auto key = std::make_pair(e["cat"].get<std::string>(), e["id"].get<int>());
      ASSERT_EQ(open.count(key), 1u) << "ends nothing: " << e.dump();
      EXPECT_LE(open[key], e["ts"].get<double>());
      open.erase(key);
      ++pairs;
    }
  }
  EXPECT_TRUE(open.empty());
  EXPECT_EQ(pairs, 2);  // the VM's suspension and the session (still open: closed at the end)
  auto session = Where(events, [](const json& e) { return e["ph"] == "e" && e["cat"] == "session"; });
  ASSERT_EQ(session.size(), 1u);
  EXPECT_EQ(session[0]["name"], "session 1 127.0.0.1:5005");
  EXPECT_EQ(session[0]["ts"], 12000.0);
  EXPECT_EQ(session[0]["args"]["open_at_end"], true);
}

TEST(ChromeExport, SessionEndResumesEveryThread) {
  Trace t;
  t.Add(1'000'000).session = Session{Session::Kind::kAttached, "p", {}, 1, 0};
  t.EventOf(2'000'000, kBreakpoint, 1, 5, 1, 1, 10);
  t.EventOf(3'000'000, kBreakpoint, 1, 6, 1, 1, 11);
  t.Add(4'000'000).session = Session{Session::Kind::kEnded, "p", "debugger closed the connection", 1, 0};
  t.Add(9'000'000).agent_error = AgentError{"later"};
  const json events = Export(t);
  auto spans = Where(events, [](const json& e) { return e["ph"] == "X" && e["cat"] == "suspension"; });
  ASSERT_EQ(spans.size(), 2u);
  for (const json& s : spans) {
    EXPECT_EQ(s["ts"].get<double>() + s["dur"].get<double>(), 3000.0) << s.dump();
    EXPECT_EQ(s["args"]["resumed_by"], "end of the session");
  }
  auto ends = Where(events, [](const json& e) { return e["ph"] == "e" && e["cat"] == "session"; });
  ASSERT_EQ(ends.size(), 1u);
  EXPECT_EQ(ends[0]["args"]["reason"], "debugger closed the connection");
}

TEST(ChromeExport, NamesThatAreNotUtf8DoNotBreakTheJson) {
  Trace t;
  t.Named(2'000'000, 4, "bad \xff name");
  t.EventOf(2'000'000, kBreakpoint, 1, 4, 0, 1, 10);
  const json events = Export(t);
  EXPECT_EQ(ThreadNames(events)[4], "bad \xef\xbf\xbd name");
}

// From the writer's queue to the JSON: the records the agent makes, as it makes them.
TEST(ChromeExport, WhatTheWriterRecordedExportsWithNamesAndPolicies) {
  const std::string path = ::testing::TempDir() + "/trace_chrome_" + std::to_string(::getpid());
  WriterConfig config;
  config.path = path;
  config.header.pid = 77;
  auto w = Writer::Open(std::move(config));
  ASSERT_TRUE(w) << w.error();
  (*w)->SessionAttached(1, "127.0.0.1:1", 0);
  (*w)->ThreadNamed(0x21, "Finalizer");
  (*w)->ThreadNamed(0x22, "main");
  jdwp::Event::Composite::Request c;
  c.suspend_policy = jdwp::SuspendPolicy::kAll;
  jdwp::events::Breakpoint bp;
  bp.request_id = 3;
  bp.thread.value = 0x22;
  c.events.push_back(bp);
  (*w)->PacketOut(0, jdwp::MakeCommandPacket(1, jdwp::Event::Composite::kId, jdwp::EncodeBody(c)));
  (*w)->PacketIn(1, jdwp::MakeCommandPacket(2, jdwp::VirtualMachine::Resume::kId, {}));
  (*w)->PacketOut(0, jdwp::MakeReplyPacket(2, jdwp::ErrorCode::kNone, {}));
  (*w)->Close();
  auto file = Load(path);
  ASSERT_TRUE(file) << file.error();
  const json events = json::parse(ChromeJson({*file}))["traceEvents"];
  EXPECT_EQ(ThreadNames(events, 77)[0x22], "main");
  EXPECT_EQ(ThreadNames(events, 77).count(0x21), 0u) << "a thread with no events has no track";
  auto bps = Where(events, [](const json& e) { return e["ph"] == "i" && e["name"] == "BREAKPOINT"; });
  ASSERT_EQ(bps.size(), 1u);
  EXPECT_EQ(bps[0]["tid"], 0x22);
  EXPECT_EQ(bps[0]["pid"], 77);
  EXPECT_EQ(bps[0]["args"]["suspend_policy"], "SUSPEND_ALL");
  auto vm = Where(events, [](const json& e) { return e["cat"] == "suspension" && (e["ph"] == "b" || e["ph"] == "e"); });
  ASSERT_EQ(vm.size(), 2u);
  EXPECT_EQ(vm[0]["ph"], "b");
  EXPECT_EQ(vm[0]["ts"], bps[0]["ts"]);
  EXPECT_EQ(vm[1]["ph"], "e");
  EXPECT_EQ(vm[1]["args"]["resumed_by"], "VirtualMachine.Resume id=2");
  auto spans = Where(events, [](const json& e) { return e["ph"] == "X" && e["cat"] == "suspension"; });
  ASSERT_EQ(spans.size(), 1u);
  EXPECT_EQ(spans[0]["tid"], 0x22);
  EXPECT_EQ(spans[0]["ts"], bps[0]["ts"]);
  EXPECT_DOUBLE_EQ(spans[0]["ts"].get<double>() + spans[0]["dur"].get<double>(), vm[1]["ts"].get<double>());
}

}  // namespace
}  // namespace jdwpx::trace
