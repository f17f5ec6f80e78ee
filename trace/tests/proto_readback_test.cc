// libprotobuf reads back what the agent's own encoder (trace/wire.h) writes:
// every record kind, every field, value by value; first as the real writer
// writes a file, then each kind with every field set.
#include <gtest/gtest.h>

#include <unistd.h>

#include <fstream>
#include <sstream>

#include <google/protobuf/io/coded_stream.h>

#include "jdwp/commands/all.h"
#include "jdwp/packet.h"
#include "trace/trace.pb.h"
#include "trace/wire.h"
#include "trace/writer.h"

namespace jdwpx::trace {
namespace {

using namespace std::chrono_literals;

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/trace_readback_" + std::to_string(::getpid()) + "_" + name;
}

// A trace file's records, parsed by protobuf alone (length-delimited, as
// parseDelimitedFrom reads them).
std::vector<proto::Record> ParseDelimited(const std::string& bytes) {
  std::vector<proto::Record> out;
  google::protobuf::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                                            static_cast<int>(bytes.size()));
  uint32_t size = 0;
  while (in.ReadVarint32(&size)) {
    auto limit = in.PushLimit(static_cast<int>(size));
    proto::Record r;
    EXPECT_TRUE(r.ParseFromCodedStream(&in)) << "record " << out.size();
    EXPECT_TRUE(in.ConsumedEntireMessage());
    in.PopLimit(limit);
    out.push_back(std::move(r));
  }
  EXPECT_EQ(in.CurrentPosition(), static_cast<int>(bytes.size())) << "bytes after the last record";
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<uint8_t> ThreadCommand(uint32_t id, jdwp::CommandId cmd, uint64_t thread) {
  std::vector<uint8_t> data;
  for (int i = 7; i >= 0; --i) data.push_back(static_cast<uint8_t>(thread >> (8 * i)));
  return jdwp::MakeCommandPacket(id, cmd, data);
}

TEST(ProtoReadback, WhatTheWriterWritesProtobufReadsFieldByField) {
  const std::string path = TempPath("writer");
  WriterConfig config;
  config.path = path;
  config.bodies = false;
  config.header.jdwpx_version = "v-test";
  config.header.vm_name = "OpenJDK 64-Bit Server VM";
  config.header.vm_version = "17.0.15+6";
  config.header.pid = 4242;
  config.header.options = "transport=dt_socket,trace=/t";
  auto opened = Writer::Open(std::move(config));
  ASSERT_TRUE(opened) << opened.error();
  Writer& w = **opened;
  const uint64_t before = MonotonicNs();
  // The transport's number for the connection; packets out are given 0, as the
  // agent gives them until its transport names their connection.
  constexpr uint64_t kConnection = 0x1'0000'0007ull;
  w.SessionRefused("already attached");
  w.SessionAttached(kConnection, "127.0.0.1:5005", 1'234'567);
  w.ThreadNamed(0x1f, "main \xe2\x9c\x93");  // "main ✓"
  w.PacketIn(kConnection, ThreadCommand(7, jdwp::ThreadReference::Frames::kId, 0x1f));
  w.PacketOut(0, jdwp::MakeReplyPacket(7, jdwp::ErrorCode::kThreadNotSuspended, {}));
  w.PacketIn(kConnection, jdwp::MakeCommandPacket(8, jdwp::VirtualMachine::Suspend::kId, {}));
  w.PacketOut(0, jdwp::MakeReplyPacket(8, jdwp::ErrorCode::kNone, {}));
  {
    jdwp::Event::Composite::Request c;
    c.suspend_policy = jdwp::SuspendPolicy::kEventThread;
    jdwp::events::Breakpoint bp;
    bp.request_id = -3;
    bp.thread.value = 0x1f;
    c.events.push_back(bp);
    w.PacketOut(0, jdwp::MakeCommandPacket(9, jdwp::Event::Composite::kId, jdwp::EncodeBody(c)));
  }
  w.Error("cannot read a frame");
  w.SessionEnded(kConnection, "debugger closed the connection");
  w.Close();
  const uint64_t after = MonotonicNs();

  const auto records = ParseDelimited(ReadFile(path));
  ASSERT_EQ(records.size(), 14u);
  uint64_t last = 0;
  for (const proto::Record& r : records) {
    EXPECT_LE(r.time_ns(), after);
    EXPECT_GE(r.time_ns(), last) << "records in time order";
    last = r.time_ns();
  }

  ASSERT_EQ(records[0].kind_case(), proto::Record::kHeader);
  const proto::Header& h = records[0].header();
  EXPECT_EQ(h.magic(), "jdwpx-trace");
  EXPECT_EQ(h.format_version(), kFormatVersion);
  EXPECT_EQ(h.jdwpx_version(), "v-test");
  EXPECT_EQ(h.vm_name(), "OpenJDK 64-Bit Server VM");
  EXPECT_EQ(h.vm_version(), "17.0.15+6");
  EXPECT_EQ(h.pid(), 4242u);
  EXPECT_EQ(h.options(), "transport=dt_socket,trace=/t");
  EXPECT_GT(h.start_wall_ns(), 1'700'000'000'000'000'000ull);
  EXPECT_LE(h.start_mono_ns(), before);
  EXPECT_EQ(records[0].time_ns() >= h.start_mono_ns(), true);
  EXPECT_EQ(h.segment(), 0u);
  EXPECT_FALSE(h.bodies());

  ASSERT_EQ(records[1].kind_case(), proto::Record::kSession);
  EXPECT_EQ(records[1].session().kind(), proto::Session::REFUSED);
  EXPECT_EQ(records[1].session().reason(), "already attached");
  EXPECT_EQ(records[1].session().number(), 0u);

  ASSERT_EQ(records[2].kind_case(), proto::Record::kSession);
  EXPECT_EQ(records[2].session().kind(), proto::Session::ATTACHED);
  EXPECT_EQ(records[2].session().peer(), "127.0.0.1:5005");
  EXPECT_EQ(records[2].session().number(), 1u);
  EXPECT_EQ(records[2].session().handshake_ns(), 1'234'567u);
  EXPECT_EQ(records[2].session().connection(), kConnection);

  ASSERT_EQ(records[3].kind_case(), proto::Record::kThreadName);
  EXPECT_EQ(records[3].thread_name().thread(), 0x1fu);
  EXPECT_EQ(records[3].thread_name().name(), "main \xe2\x9c\x93");

  ASSERT_EQ(records[4].kind_case(), proto::Record::kPacket);
  const proto::Packet& frames = records[4].packet();
  EXPECT_EQ(frames.direction(), proto::Packet::IN);
  EXPECT_EQ(frames.id(), 7u);
  EXPECT_FALSE(frames.reply());
  EXPECT_EQ(frames.command_set(), 11u);
  EXPECT_EQ(frames.command(), 6u);
  EXPECT_EQ(frames.length(), 19u);
  EXPECT_EQ(frames.thread(), 0x1fu);
  EXPECT_EQ(frames.connection(), kConnection);
  EXPECT_TRUE(frames.bytes().empty()) << "no bodies without tracebytes=y";

  ASSERT_EQ(records[5].kind_case(), proto::Record::kPacket);
  const proto::Packet& reply = records[5].packet();
  EXPECT_EQ(reply.direction(), proto::Packet::OUT);
  EXPECT_EQ(reply.id(), 7u);
  EXPECT_TRUE(reply.reply());
  EXPECT_EQ(reply.command_set(), 11u);
  EXPECT_EQ(reply.command(), 6u);
  EXPECT_EQ(reply.error_code(), 13u);  // THREAD_NOT_SUSPENDED
  EXPECT_EQ(reply.length(), 11u);
  EXPECT_EQ(reply.latency_ns(), records[5].time_ns() - records[4].time_ns());
  EXPECT_EQ(reply.connection(), kConnection) << "a reply out of no known connection: its command's";

  ASSERT_EQ(records[6].kind_case(), proto::Record::kPacket);
  EXPECT_EQ(records[6].packet().command_set(), 1u);
  EXPECT_EQ(records[6].packet().command(), 8u);
  ASSERT_EQ(records[7].kind_case(), proto::Record::kPacket);
  EXPECT_TRUE(records[7].packet().reply());
  EXPECT_EQ(records[7].packet().error_code(), 0u);

  ASSERT_EQ(records[8].kind_case(), proto::Record::kSuspension);
  EXPECT_TRUE(records[8].suspension().suspended());
  EXPECT_EQ(records[8].suspension().by(), proto::Suspension::DEBUGGER);
  EXPECT_EQ(records[8].suspension().packet_id(), 8u);
  EXPECT_EQ(records[8].time_ns(), records[7].time_ns());

  ASSERT_EQ(records[9].kind_case(), proto::Record::kPacket);
  const proto::Packet& composite = records[9].packet();
  EXPECT_EQ(composite.direction(), proto::Packet::OUT);
  EXPECT_EQ(composite.id(), 9u);
  EXPECT_FALSE(composite.reply());
  EXPECT_EQ(composite.command_set(), 64u);
  EXPECT_EQ(composite.command(), 100u);
  EXPECT_EQ(composite.connection(), kConnection) << "one debugger attached: its connection";

  ASSERT_EQ(records[10].kind_case(), proto::Record::kEvent);
  const proto::Event& e = records[10].event();
  EXPECT_EQ(e.kind(), 2u);  // BREAKPOINT
  EXPECT_EQ(e.request_id(), -3);
  EXPECT_EQ(e.thread(), 0x1fu);
  EXPECT_EQ(e.suspend_policy(), 1u);
  EXPECT_EQ(e.composite_size(), 1u);
  EXPECT_EQ(e.packet_id(), 9u);

  ASSERT_EQ(records[11].kind_case(), proto::Record::kAgentError);
  EXPECT_EQ(records[11].agent_error().message(), "cannot read a frame");

  ASSERT_EQ(records[12].kind_case(), proto::Record::kSession);
  EXPECT_EQ(records[12].session().kind(), proto::Session::ENDED);
  EXPECT_EQ(records[12].session().peer(), "127.0.0.1:5005");
  EXPECT_EQ(records[12].session().reason(), "debugger closed the connection");
  EXPECT_EQ(records[12].session().number(), 1u);
  EXPECT_EQ(records[12].session().connection(), kConnection);

  // The session's end resumes what VirtualMachine.Suspend suspended.
  ASSERT_EQ(records[13].kind_case(), proto::Record::kSuspension);
  EXPECT_FALSE(records[13].suspension().suspended());
  EXPECT_EQ(records[13].suspension().by(), proto::Suspension::SESSION_END);
  EXPECT_EQ(records[13].suspension().packet_id(), 0u);
  EXPECT_EQ(records[13].time_ns(), records[12].time_ns());
}

TEST(ProtoReadback, DroppedRecordsAreCounted) {
  const std::string path = TempPath("end");
  WriterConfig config;
  config.path = path;
  config.queue_capacity = 2;  // a queue that fills at once: drops
  auto opened = Writer::Open(std::move(config));
  ASSERT_TRUE(opened) << opened.error();
  Writer& w = **opened;
  // Pushed faster than a writer thread that wakes every 10 ms drains: some are dropped.
  for (uint32_t i = 0; i < 200; ++i) w.Error("e" + std::to_string(i));
  const uint64_t dropped = w.dropped();
  ASSERT_GT(dropped, 0u);
  w.Close();
  const auto records = ParseDelimited(ReadFile(path));
  ASSERT_FALSE(records.empty());
  uint64_t errors = 0, last_count = 0;
  for (const proto::Record& r : records) {
    if (r.kind_case() == proto::Record::kAgentError) {
      EXPECT_EQ(r.agent_error().message().substr(0, 1), "e");
      ++errors;
    }
    if (r.kind_case() == proto::Record::kDropped) last_count = r.dropped().count();
  }
  EXPECT_EQ(last_count, w.dropped());
  EXPECT_EQ(errors + last_count, 200u);
}

// protobuf refuses a record whose string fields are not UTF-8: whatever bytes
// the agent is handed (an option string, a log message, modified UTF-8), what
// it records is UTF-8, the bad bytes U+FFFD.
TEST(ProtoReadback, StringsTheAgentRecordsAreUtf8ThatProtobufAccepts) {
  EXPECT_EQ(ValidUtf8("plain"), "plain");
  EXPECT_EQ(ValidUtf8("\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80"), "\xc3\xa9 \xe2\x9c\x93 \xf0\x9f\x98\x80");  // é ✓ 😀
  EXPECT_EQ(ValidUtf8("a\xff" "b"), "a\xef\xbf\xbd" "b");                  // a stray byte
  EXPECT_EQ(ValidUtf8("nul\xc0\x80"), "nul\xef\xbf\xbd");                 // modified UTF-8's NUL (overlong)
  EXPECT_EQ(ValidUtf8("\xed\xa0\xbd\xed\xb8\x80"), "\xef\xbf\xbd\xef\xbf\xbd");  // a surrogate pair, CESU-8
  EXPECT_EQ(ValidUtf8("cut \xe2\x9c"), "cut \xef\xbf\xbd");                // a sequence cut short
  EXPECT_EQ(ValidUtf8("\xf4\x90\x80\x80"), "\xef\xbf\xbd");               // past U+10FFFF

  const std::string path = TempPath("utf8");
  WriterConfig config;
  config.path = path;
  config.header.options = "trace=/tmp/caf\xe9";  // a Latin-1 path
  auto opened = Writer::Open(std::move(config));
  ASSERT_TRUE(opened) << opened.error();
  (*opened)->Error("class \xed\xa0\xbd\xed\xb8\x80 not found");
  (*opened)->SessionAttached(1, "unix:/tmp/\xff.sock", 0);
  (*opened)->ThreadNamed(5, "\xe5\xb7\xa5");
  (*opened)->Close();
  const auto records = ParseDelimited(ReadFile(path));
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].header().options(), "trace=/tmp/caf\xef\xbf\xbd");
  EXPECT_EQ(records[1].agent_error().message(), "class \xef\xbf\xbd\xef\xbf\xbd not found");
  EXPECT_EQ(records[2].session().peer(), "unix:/tmp/\xef\xbf\xbd.sock");
  EXPECT_EQ(records[3].thread_name().name(), "\xe5\xb7\xa5");
}

// Each kind with every field set to a value that takes its full width.
TEST(ProtoReadback, EveryKindEveryFieldByTheEncoder) {
  std::string bytes;
  auto put = [&](Record r) { AppendDelimited(bytes, r); };
  Record r;
  r.time_ns = 0xfedcba9876543210ull;
  r.header = Header{"jdwpx-trace", 1, "0.9-3-gabc", "VM \xc3\xa9", "25+36", 0xffffffffu, "trace=/x,tracebytes=y",
                    1'764'400'000'123'456'789ull, 987'654'321ull, 3, true};
  put(r);
  r = {};
  r.time_ns = 1;
  r.session = Session{Session::Kind::kEnded, "[::1]:41000", "the VM exited", 0x80000000u, 0xffffffffffffffffull,
                      0xfffffffffffffffeull};
  put(r);
  r = {};
  r.time_ns = 2;
  r.packet = Packet{Packet::Direction::kOut, 0xffffffffu, true, 255, 254, 0xffffu, 0x7fffffffu, 1ull << 40,
                    {0x00, 0x80, 0xff}, 0xffffffffffffff01ull, 0xffffffffffffffffull};
  put(r);
  r = {};
  r.time_ns = 3;
  r.event = Event{90, INT32_MIN, 0x8000000000000000ull, 2, 0xffffffffu, 0xfffffffeu};
  put(r);
  r = {};
  r.time_ns = 4;
  r.suspension = Suspension{true, Suspension::By::kSessionEnd, 0xffffffffu};
  put(r);
  r = {};
  r.time_ns = 5;
  r.agent_error = AgentError{std::string("with a NUL\0 inside", 18)};
  put(r);
  r = {};
  r.time_ns = 6;
  r.dropped = Dropped{0xffffffffffffffffull};
  put(r);
  r = {};
  r.time_ns = 7;
  r.thread_name = ThreadName{0xffffffffffffffffull, "\xe5\xb7\xa5\xe4\xbd\x9c-\xf0\x9f\x98\x80"};  // 工作-😀
  put(r);

  const auto p = ParseDelimited(bytes);
  ASSERT_EQ(p.size(), 8u);
  EXPECT_EQ(p[0].time_ns(), 0xfedcba9876543210ull);
  ASSERT_TRUE(p[0].has_header());
  EXPECT_EQ(p[0].header().magic(), "jdwpx-trace");
  EXPECT_EQ(p[0].header().format_version(), 1u);
  EXPECT_EQ(p[0].header().jdwpx_version(), "0.9-3-gabc");
  EXPECT_EQ(p[0].header().vm_name(), "VM \xc3\xa9");
  EXPECT_EQ(p[0].header().vm_version(), "25+36");
  EXPECT_EQ(p[0].header().pid(), 0xffffffffu);
  EXPECT_EQ(p[0].header().options(), "trace=/x,tracebytes=y");
  EXPECT_EQ(p[0].header().start_wall_ns(), 1'764'400'000'123'456'789ull);
  EXPECT_EQ(p[0].header().start_mono_ns(), 987'654'321ull);
  EXPECT_EQ(p[0].header().segment(), 3u);
  EXPECT_TRUE(p[0].header().bodies());

  EXPECT_EQ(p[1].time_ns(), 1u);
  ASSERT_TRUE(p[1].has_session());
  EXPECT_EQ(p[1].session().kind(), proto::Session::ENDED);
  EXPECT_EQ(p[1].session().peer(), "[::1]:41000");
  EXPECT_EQ(p[1].session().reason(), "the VM exited");
  EXPECT_EQ(p[1].session().number(), 0x80000000u);
  EXPECT_EQ(p[1].session().handshake_ns(), 0xffffffffffffffffull);
  EXPECT_EQ(p[1].session().connection(), 0xfffffffffffffffeull);

  ASSERT_TRUE(p[2].has_packet());
  EXPECT_EQ(p[2].packet().direction(), proto::Packet::OUT);
  EXPECT_EQ(p[2].packet().id(), 0xffffffffu);
  EXPECT_TRUE(p[2].packet().reply());
  EXPECT_EQ(p[2].packet().command_set(), 255u);
  EXPECT_EQ(p[2].packet().command(), 254u);
  EXPECT_EQ(p[2].packet().error_code(), 0xffffu);
  EXPECT_EQ(p[2].packet().length(), 0x7fffffffu);
  EXPECT_EQ(p[2].packet().latency_ns(), 1ull << 40);
  EXPECT_EQ(p[2].packet().bytes(), std::string("\x00\x80\xff", 3));
  EXPECT_EQ(p[2].packet().thread(), 0xffffffffffffff01ull);
  EXPECT_EQ(p[2].packet().connection(), 0xffffffffffffffffull);

  ASSERT_TRUE(p[3].has_event());
  EXPECT_EQ(p[3].event().kind(), 90u);
  EXPECT_EQ(p[3].event().request_id(), INT32_MIN);
  EXPECT_EQ(p[3].event().thread(), 0x8000000000000000ull);
  EXPECT_EQ(p[3].event().suspend_policy(), 2u);
  EXPECT_EQ(p[3].event().composite_size(), 0xffffffffu);
  EXPECT_EQ(p[3].event().packet_id(), 0xfffffffeu);

  ASSERT_TRUE(p[4].has_suspension());
  EXPECT_TRUE(p[4].suspension().suspended());
  EXPECT_EQ(p[4].suspension().by(), proto::Suspension::SESSION_END);
  EXPECT_EQ(p[4].suspension().packet_id(), 0xffffffffu);

  ASSERT_TRUE(p[5].has_agent_error());
  EXPECT_EQ(p[5].agent_error().message(), std::string("with a NUL\0 inside", 18));

  ASSERT_TRUE(p[6].has_dropped());
  EXPECT_EQ(p[6].dropped().count(), 0xffffffffffffffffull);

  EXPECT_EQ(p[7].time_ns(), 7u);
  ASSERT_TRUE(p[7].has_thread_name());
  EXPECT_EQ(p[7].thread_name().thread(), 0xffffffffffffffffull);
  EXPECT_EQ(p[7].thread_name().name(), "\xe5\xb7\xa5\xe4\xbd\x9c-\xf0\x9f\x98\x80");
}

}  // namespace
}  // namespace jdwpx::trace
