// Several debuggers at once (sessions=N): two connections whose commands use
// the same ids, interleaved. The record maker pairs each reply with its own
// connection's command; the summary puts the sessions side by side; `show`
// names the connection of each line; a trace from before the connection
// field reads as one debugger, summarized as it always was.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "jdwp/commands/all.h"
#include "jdwp/packet.h"
#include <nlohmann/json.hpp>

#include "trace/analysis.h"
#include "trace/chrome_export.h"
#include "trace/reader.h"
#include "trace/record_maker.h"
#include "trace/trace.pb.h"
#include "trace/wire.h"

namespace jdwpx::trace {
namespace {

constexpr uint64_t kMs = 1'000'000;
constexpr uint64_t kA = 5;  // the transport's numbers for the two connections
constexpr uint64_t kB = 6;

std::vector<uint8_t> Command(uint32_t id, jdwp::CommandId command) { return jdwp::MakeCommandPacket(id, command, {}); }
std::vector<uint8_t> Reply(uint32_t id, jdwp::ErrorCode error = jdwp::ErrorCode::kNone) {
  return jdwp::MakeReplyPacket(id, error, {});
}
std::vector<uint8_t> Breakpoint(uint32_t id) {
  jdwp::Event::Composite::Request c;
  c.suspend_policy = jdwp::SuspendPolicy::kEventThread;
  jdwp::events::Breakpoint bp;
  bp.request_id = 4;
  bp.thread.value = 0x77;
  c.events.push_back(bp);
  return jdwp::MakeCommandPacket(id, jdwp::Event::Composite::kId, jdwp::EncodeBody(c));
}

// What the agent's writer thread makes of a run, at the times given.
class AgentRun {
 public:
  void Attached(uint64_t ms, uint64_t connection, std::string peer, uint64_t handshake_ns) {
    Observation seen = At(ms, Observation::Kind::kAttached, connection);
    seen.text = std::move(peer);
    seen.handshake_ns = handshake_ns;
    maker_.Make(seen, records_);
  }
  void Ended(uint64_t ms, uint64_t connection, std::string reason) {
    Observation seen = At(ms, Observation::Kind::kDetached, connection);
    seen.text = std::move(reason);
    maker_.Make(seen, records_);
  }
  void In(uint64_t ms, uint64_t connection, const std::vector<uint8_t>& packet) {
    Packet(At(ms, Observation::Kind::kPacketIn, connection), packet);
  }
  void Out(uint64_t ms, uint64_t connection, const std::vector<uint8_t>& packet) {
    Packet(At(ms, Observation::Kind::kPacketOut, connection), packet);
  }
  const std::vector<Record>& records() const { return records_; }

  // The records as a trace file, loaded back as jdwpx-trace loads one.
  TraceFile Load() const {
    Record header;
    header.header = Header{std::string(kMagic), kFormatVersion, "v-test", "OpenJDK 64-Bit Server VM", "21.0.5+11",
                           4242,                "sessions=2",   0,        0,                          0,
                           false};
    std::string bytes;
    AppendDelimited(bytes, header);
    for (const Record& r : records_) AppendDelimited(bytes, r);
    char path[] = "/tmp/jdwpx-sessions-test-XXXXXX";
    const int fd = mkstemp(path);
    EXPECT_GE(fd, 0);
    EXPECT_EQ(write(fd, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
    close(fd);
    auto file = jdwpx::trace::Load(path);
    std::remove(path);
    EXPECT_TRUE(file) << file.error();
    return file ? *file : TraceFile{};
  }

 private:
  static Observation At(uint64_t ms, Observation::Kind kind, uint64_t connection) {
    Observation seen;
    seen.kind = kind;
    seen.time_ns = ms * kMs;
    seen.connection = connection;
    return seen;
  }
  void Packet(Observation seen, const std::vector<uint8_t>& packet) {
    seen.length = static_cast<uint32_t>(packet.size());
    std::copy_n(packet.begin(), jdwp::kHeaderSize, seen.header);
    seen.bytes = packet;
    maker_.Make(seen, records_);
  }

  RecordMaker maker_{/*bodies=*/false};
  std::vector<Record> records_;
};

// Two debuggers, each numbering its commands from 1, interleaved; replies out
// with their connection (as the transport will give it) and without (0, as
// the agent's OnWritten gives it today).
AgentRun TwoDebuggers() {
  AgentRun run;
  run.Attached(1, kA, "127.0.0.1:40001", 250'000);
  run.Attached(2, kB, "127.0.0.1:40002", 300'000);
  run.In(3, kA, Command(1, jdwp::VirtualMachine::Version::kId));
  run.In(4, kB, Command(1, jdwp::VirtualMachine::IDSizes::kId));
  run.Out(5, kB, Reply(1));
  run.Out(7, kA, Reply(1));
  run.In(8, kA, Command(2, jdwp::VirtualMachine::Suspend::kId));
  run.In(9, kB, Command(2, jdwp::VirtualMachine::AllThreads::kId));
  run.Out(10, 0, Reply(2));  // connection not known: the id 2 that came first (A's)
  run.Out(12, 0, Reply(2, jdwp::ErrorCode::kVmDead));
  run.Out(13, kB, Breakpoint(3));
  run.In(14, kB, Command(3, jdwp::VirtualMachine::Version::kId));  // B leaves it unanswered
  run.Ended(20, kA, "debugger closed the connection");
  return run;
}


TEST(Sessions, RepliesArePairedWithTheirOwnConnectionsCommands) {
  const AgentRun run = TwoDebuggers();
  std::vector<Packet> replies;
  for (const Record& r : run.records())
    if (r.packet && r.packet->reply) replies.push_back(*r.packet);
  ASSERT_EQ(replies.size(), 4u);
  // B's id 1 answered first: IDSizes after 1 ms, not A's Version.
  EXPECT_EQ(replies[0].connection, kB);
  EXPECT_EQ(CommandLabel(replies[0].command_set, replies[0].command), "VirtualMachine.IDSizes");
  EXPECT_EQ(replies[0].latency_ns, 1 * kMs);
  EXPECT_EQ(replies[1].connection, kA);
  EXPECT_EQ(CommandLabel(replies[1].command_set, replies[1].command), "VirtualMachine.Version");
  EXPECT_EQ(replies[1].latency_ns, 4 * kMs);
  // Without their connection: each id 2 in the order the commands came.
  EXPECT_EQ(replies[2].connection, kA);
  EXPECT_EQ(CommandLabel(replies[2].command_set, replies[2].command), "VirtualMachine.Suspend");
  EXPECT_EQ(replies[2].latency_ns, 2 * kMs);
  EXPECT_EQ(replies[3].connection, kB);
  EXPECT_EQ(CommandLabel(replies[3].command_set, replies[3].command), "VirtualMachine.AllThreads");
  EXPECT_EQ(replies[3].latency_ns, 3 * kMs);

  // A's VirtualMachine.Suspend is A's: A leaving resumes the VM, B holding nothing.
  ASSERT_TRUE(run.records().back().suspension);
  EXPECT_FALSE(run.records().back().suspension->suspended);
  EXPECT_EQ(run.records().back().suspension->by, Suspension::By::kSessionEnd);
  ASSERT_TRUE(run.records()[0].session && run.records()[1].session);
  EXPECT_EQ(run.records()[0].session->connection, kA);
  EXPECT_EQ(run.records()[0].session->number, 1u);
  EXPECT_EQ(run.records()[1].session->connection, kB);
  EXPECT_EQ(run.records()[1].session->number, 2u);
  const Record& ended = run.records()[run.records().size() - 2];
  ASSERT_TRUE(ended.session);
  EXPECT_EQ(ended.session->kind, Session::Kind::kEnded);
  EXPECT_EQ(ended.session->connection, kA);
  EXPECT_EQ(ended.session->number, 1u);
  EXPECT_EQ(ended.session->peer, "127.0.0.1:40001");
}

TEST(Sessions, OneDebuggerLeavingResumesOnlyWhatItSuspended) {
  AgentRun run;
  run.Attached(1, kA, "a", 0);
  run.Attached(2, kB, "b", 0);
  run.In(3, kA, Command(1, jdwp::VirtualMachine::Suspend::kId));
  run.Out(4, kA, Reply(1));
  run.In(5, kB, Command(1, jdwp::VirtualMachine::Suspend::kId));
  run.Out(6, kB, Reply(1));
  run.Ended(7, kA, "gone");  // B still holds the VM
  run.In(8, kB, Command(2, jdwp::VirtualMachine::Resume::kId));
  run.Out(9, kB, Reply(2));
  std::vector<std::pair<uint64_t, bool>> suspensions;
  for (const Record& r : run.records())
    if (r.suspension) suspensions.emplace_back(r.time_ns / kMs, r.suspension->suspended);
  EXPECT_EQ(suspensions, (std::vector<std::pair<uint64_t, bool>>{{4, true}, {9, false}}));
}

// A SUSPEND_ALL composite out of no known connection, several debuggers
// attached (OnWritten gives 0 today): the VirtualMachine.Resume that follows
// releases it.
TEST(Sessions, AnEventsSuspensionOfNoKnownConnectionIsReleasedByAResume) {
  AgentRun run;
  run.Attached(1, kA, "a", 0);
  run.Attached(2, kB, "b", 0);
  jdwp::Event::Composite::Request c;
  c.suspend_policy = jdwp::SuspendPolicy::kAll;
  jdwp::events::Breakpoint bp;
  bp.request_id = 4;
  bp.thread.value = 0x77;
  c.events.push_back(bp);
  run.Out(3, 0, jdwp::MakeCommandPacket(9, jdwp::Event::Composite::kId, jdwp::EncodeBody(c)));
  run.In(4, kA, Command(1, jdwp::VirtualMachine::Resume::kId));
  run.Out(5, 0, Reply(1));
  std::vector<std::pair<uint64_t, bool>> suspensions;
  for (const Record& r : run.records())
    if (r.suspension) suspensions.emplace_back(r.time_ns / kMs, r.suspension->suspended);
  EXPECT_EQ(suspensions, (std::vector<std::pair<uint64_t, bool>>{{3, true}, {5, false}}));
  const Record& composite = run.records()[2];
  ASSERT_TRUE(composite.packet);
  EXPECT_EQ(composite.packet->connection, 0u) << "several attached: not known";
}

TEST(Sessions, SummaryShowsTheSessionsSideBySide) {
  const std::string summary = Summarize({TwoDebuggers().Load()});
  EXPECT_EQ(summary,
            "trace of OpenJDK 64-Bit Server VM 21.0.5+11 (pid 4242)\n"
            "17 records in 1 file(s), spanning 20.0 ms\n"
            "\n"
            "sessions (2 connections, side by side):\n"
            "                session 1                              session 2\n"
            "  connection    5                                      6\n"
            "  peer          127.0.0.1:40001                        127.0.0.1:40002\n"
            "  attached at   1000.0 us                              2000.0 us\n"
            "  ended at      20.0 ms                                still attached at 20.0 ms\n"
            "  ended         debugger closed the connection         -\n"
            "  handshake     250.0 us                               300.0 us\n"
            "  commands      2                                      3\n"
            "  errors        0                                      1\n"
            "  bytes in      22                                     33\n"
            "  bytes out     22                                     22\n"
            "  p50           2000.0 us                              1000.0 us\n"
            "  p95           4000.0 us                              3000.0 us\n"
            "  max           4000.0 us                              3000.0 us\n"
            "  unanswered    0                                      1 (VirtualMachine.Version id=3)\n"
            "  composites    0                                      1\n"
            "  events        0                                      1\n"
            "  slowest       4000.0 us VirtualMachine.Version id=1  3000.0 us VirtualMachine.AllThreads id=2\n"
            "                2000.0 us VirtualMachine.Suspend id=2  1000.0 us VirtualMachine.IDSizes id=1\n"
            "\n"
            "commands and events by session:\n"
            "  command                                       session 1  session 2\n"
            "  VirtualMachine.Version                        1          1\n"
            "  VirtualMachine.AllThreads                     0          1\n"
            "  VirtualMachine.IDSizes                        0          1\n"
            "  VirtualMachine.Suspend                        1          0\n"
            "  event\n"
            "  BREAKPOINT                                    0          1\n"
            "\n"
            "commands:\n"
            "  command                                        count   bytes in  bytes out        p50        p95        max errors\n"
            "  VirtualMachine.Version                             2         22         11  4000.0 us  4000.0 us  4000.0 us      0\n"
            "  VirtualMachine.AllThreads                          1         11         11  3000.0 us  3000.0 us  3000.0 us      1\n"
            "  VirtualMachine.IDSizes                             1         11         11  1000.0 us  1000.0 us  1000.0 us      0\n"
            "  VirtualMachine.Suspend                             1         11         11  2000.0 us  2000.0 us  2000.0 us      0\n"
            "  total                                              5\n"
            "\n"
            "events (1 composites, 54 bytes):\n"
            "  BREAKPOINT                         1\n"
            "\n"
            "VM suspended: 10.0 ms in 1 suspension(s)\n"
            "dropped records: 0\n"
            "agent errors: 0\n");
}

TEST(Sessions, ShowNamesTheConnectionOfEachLine) {
  const AgentRun run = TwoDebuggers();
  Connections connections;
  std::vector<std::string> lines;
  for (const Record& r : run.records()) {
    std::optional<uint64_t> connection = connections.Of(r);
    lines.push_back(Line(r, 0, connection));
  }
  EXPECT_TRUE(connections.several());
  ASSERT_GE(lines.size(), 14u);
  EXPECT_EQ(lines[0], "       1.000 ms  [conn 5] session 1 attached: 127.0.0.1:40001, handshake 250.0 us");
  EXPECT_EQ(lines[2], "       3.000 ms  [conn 5] <- VirtualMachine.Version id=1 len=11");
  EXPECT_EQ(lines[3], "       4.000 ms  [conn 6] <- VirtualMachine.IDSizes id=1 len=11");
  EXPECT_EQ(lines[4], "       5.000 ms  [conn 6] -> reply id=1 NONE (VirtualMachine.IDSizes) len=11 (1000.0 us)");
  EXPECT_EQ(lines[5], "       7.000 ms  [conn 5] -> reply id=1 NONE (VirtualMachine.Version) len=11 (4000.0 us)");
  EXPECT_EQ(lines[11], "      13.000 ms  [conn 6] -> Event.Composite id=3 len=54");
  EXPECT_EQ(lines[12], "      13.000 ms  [conn 6]    event BREAKPOINT request=4 thread=0x77 policy=EVENT_THREAD in composite id=3 of 1");
  EXPECT_EQ(lines[14], "      20.000 ms  [conn 5] session 1 ended: debugger closed the connection");
  EXPECT_EQ(lines[15], "      20.000 ms  VM resumed at the end of the session");
}

TEST(Sessions, ChromeExportPairsByConnectionAndKeepsOneSpanPerSession) {
  const nlohmann::json json = nlohmann::json::parse(ChromeJson({TwoDebuggers().Load()}));
  std::map<std::string, double> durations;  // command -> its slice's duration (us)
  std::vector<std::pair<std::string, int>> sessions;
  for (const auto& e : json["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "command") durations[e["name"].get<std::string>()] = e["dur"].get<double>();
    if (e["ph"] == "b" && e["cat"] == "session") sessions.emplace_back(e["name"], e["id"].get<int>());
  }
  EXPECT_EQ(durations["VirtualMachine.Version"], 4000.0);
  EXPECT_EQ(durations["VirtualMachine.IDSizes"], 1000.0);
  EXPECT_EQ(durations["VirtualMachine.Suspend"], 2000.0);
  EXPECT_EQ(durations["VirtualMachine.AllThreads"], 3000.0);
  EXPECT_EQ(sessions, (std::vector<std::pair<std::string, int>>{{"session 1 127.0.0.1:40001", 1},
                                                                 {"session 2 127.0.0.1:40002", 2}}));
}

// The same run with every connection 0, as agents before sessions=N wrote it:
// one debugger, summarized as it always was.
TEST(Sessions, OneConnectionSummaryIsAsBefore) {
  AgentRun run;
  run.Attached(1, kA, "127.0.0.1:40001", 250'000);
  run.In(3, kA, Command(1, jdwp::VirtualMachine::Version::kId));
  run.Out(7, 0, Reply(1));
  run.Out(9, 0, Breakpoint(2));
  run.Ended(20, kA, "debugger closed the connection");
  TraceFile with = run.Load();
  TraceFile without = with;
  for (Record& r : without.records) {
    if (r.packet) r.packet->connection = 0;
    if (r.session) r.session->connection = 0;
  }
  const std::string expected =
      "trace of OpenJDK 64-Bit Server VM 21.0.5+11 (pid 4242)\n"
      "7 records in 1 file(s), spanning 20.0 ms\n"
      "\n"
      "sessions:\n"
      "  1  127.0.0.1:40001          19.0 ms, handshake 250.0 us, ended: debugger closed the connection\n"
      "\n"
      "commands:\n"
      "  command                                        count   bytes in  bytes out        p50        p95        max errors\n"
      "  VirtualMachine.Version                             1         11         11  4000.0 us  4000.0 us  4000.0 us      0\n"
      "  total                                              1\n"
      "\n"
      "events (1 composites, 54 bytes):\n"
      "  BREAKPOINT                         1\n"
      "\n"
      "VM suspended: 0 ns in 0 suspension(s)\n"
      "dropped records: 0\n"
      "agent errors: 0\n";
  EXPECT_EQ(Summarize({without}), expected);
  EXPECT_EQ(Summarize({with}), expected);
  for (const Record& r : with.records) {
    EXPECT_EQ(Line(r, 0, std::nullopt), Line(r, 0)) << "show names no connection";
  }
}

// Bytes of a record written before Packet.connection and Session.connection
// existed (protobuf's own, without them) read as connection 0.
TEST(Sessions, OldRecordsReadAsConnectionZero) {
  proto::Record packet;
  packet.set_time_ns(5);
  packet.mutable_packet()->set_direction(proto::Packet::IN);
  packet.mutable_packet()->set_id(1);
  packet.mutable_packet()->set_command_set(1);
  packet.mutable_packet()->set_command(1);
  packet.mutable_packet()->set_length(11);
  proto::Record session;
  session.mutable_session()->set_kind(proto::Session::ATTACHED);
  session.mutable_session()->set_peer("127.0.0.1:5005");
  session.mutable_session()->set_number(1);
  for (const proto::Record* old : {&packet, &session}) {
    std::string bytes;
    ASSERT_TRUE(old->SerializeToString(&bytes));
    auto read = ParseRecord({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
    ASSERT_TRUE(read) << read.error();
    if (read->packet) EXPECT_EQ(read->packet->connection, 0u);
    if (read->session) EXPECT_EQ(read->session->connection, 0u);
    EXPECT_TRUE(read->packet || read->session);
  }
}

}  // namespace
}  // namespace jdwpx::trace
