// The writer: records made from packets, latencies, events, suspension, the
// ring bound, drops, and a path that cannot be written.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

#include "jdwp/commands/all.h"
#include "jdwp/packet.h"
#include "trace/analysis.h"
#include "trace/chrome_export.h"
#include "trace/writer.h"

namespace jdwpx::trace {
namespace {

using namespace std::chrono_literals;

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "/trace_writer_" + std::to_string(::getpid()) + "_" + name;
}

std::unique_ptr<Writer> MustOpen(const std::string& path, bool bodies = false, uint64_t max_bytes = 0,
                                 size_t capacity = 1 << 12) {
  WriterConfig config;
  config.path = path;
  config.bodies = bodies;
  config.max_bytes = max_bytes;
  config.queue_capacity = capacity;
  config.header.pid = 99;
  auto w = Writer::Open(std::move(config));
  EXPECT_TRUE(w) << w.error();
  return std::move(*w);
}

std::vector<uint8_t> Command(uint32_t id, jdwp::CommandId cmd, std::vector<uint8_t> data = {}) {
  return jdwp::MakeCommandPacket(id, cmd, data);
}
std::vector<uint8_t> Reply(uint32_t id, jdwp::ErrorCode error = jdwp::ErrorCode::kNone, std::vector<uint8_t> data = {}) {
  return jdwp::MakeReplyPacket(id, error, data);
}
std::vector<uint8_t> BreakpointComposite(uint32_t id, jdwp::SuspendPolicy policy) {
  jdwp::Event::Composite::Request c;
  c.suspend_policy = policy;
  jdwp::events::Breakpoint bp;
  bp.request_id = 5;
  bp.thread.value = 0x77;
  c.events.push_back(bp);
  return Command(id, jdwp::Event::Composite::kId, jdwp::EncodeBody(c));
}

TEST(Writer, ExpandsPidInPath) {
  EXPECT_EQ(ExpandPath("/tmp/t.%p.bin", 123), "/tmp/t.123.bin");
  EXPECT_EQ(ExpandPath("/tmp/%p/%%p", 5), "/tmp/5/%p");
  EXPECT_EQ(ExpandPath("/tmp/plain", 5), "/tmp/plain");
}

TEST(Writer, PathThatCannotBeWrittenIsOneLineError) {
  WriterConfig config;
  config.path = "/nonexistent-dir/trace.bin";
  auto w = Writer::Open(std::move(config));
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error(), "cannot write the trace to /nonexistent-dir/trace.bin: No such file or directory");
}

TEST(Writer, FullDiskAtStartIsOneLineError) {
  WriterConfig config;
  config.path = "/dev/full";
  int calls = 0;
  config.on_error = [&](const std::string&) { ++calls; };
  auto w = Writer::Open(std::move(config));
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error(), "cannot write the trace to /dev/full: write failed: No space left on device");
  EXPECT_EQ(calls, 0);
}

// A full disk mid-run (here: a file size limit): the trace stops, says so once,
// and pushes go on being accepted and ignored.
TEST(Writer, WriteFailureMidRunStopsTheTraceOnce) {
  const std::string path = TempPath("full");
  std::atomic<int> calls{0};
  std::string message;
  WriterConfig config;
  config.path = path;
  config.on_error = [&](const std::string& why) {
    message = why;
    ++calls;
  };
  auto w = Writer::Open(std::move(config));
  ASSERT_TRUE(w) << w.error();
  rlimit old{};
  ASSERT_EQ(getrlimit(RLIMIT_FSIZE, &old), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old;
  small.rlim_cur = 16 * 1024;
  ASSERT_EQ(setrlimit(RLIMIT_FSIZE, &small), 0);
  for (uint32_t i = 1; i <= 5000; ++i) (*w)->PacketIn(1, Command(i, jdwp::VirtualMachine::Version::kId));
  EXPECT_TRUE((*w)->Flush(5s));
  for (uint32_t i = 1; i <= 5000; ++i) (*w)->PacketIn(1, Command(i, jdwp::VirtualMachine::Version::kId));
  EXPECT_TRUE((*w)->Flush(5s));
  (*w)->Close();
  setrlimit(RLIMIT_FSIZE, &old);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(calls.load(), 1);
  EXPECT_EQ(message, "trace to " + path + " stopped: write failed: File too large");
  auto file = Load(path);
  ASSERT_TRUE(file) << file.error();
  EXPECT_GT(file->records.size(), 100u);
}

TEST(Writer, RecordsPacketsWithNamesLatencyEventsAndSuspension) {
  const std::string path = TempPath("records");
  auto w = MustOpen(path, /*bodies=*/true);
  w->SessionAttached(1, "127.0.0.1:4000", 1'500'000);
  w->PacketIn(1, Command(1, jdwp::VirtualMachine::Suspend::kId));
  w->PacketOut(0, Reply(1));
  w->PacketIn(1, Command(2, jdwp::VirtualMachine::Resume::kId));
  w->PacketOut(0, Reply(2));
  w->PacketOut(0, BreakpointComposite(3, jdwp::SuspendPolicy::kAll));
  w->PacketIn(1, Command(4, jdwp::ThreadReference::Name::kId, std::vector<uint8_t>(8, 0)));
  w->PacketOut(0, Reply(4, jdwp::ErrorCode::kInvalidThread));
  w->SessionEnded(1, "debugger closed the connection");
  w->Close();
  auto file = Load(path);
  ASSERT_TRUE(file) << file.error();
  ASSERT_TRUE(file->problem.empty()) << file->problem;
  std::vector<std::string> lines;
  for (const Record& r : file->records) {
    std::string line = Line(r, 0);
    lines.push_back(line.substr(line.find("ms  ") + 4));
  }
  ASSERT_GE(lines.size(), 14u);
  EXPECT_EQ(lines[1], "session 1 attached: 127.0.0.1:4000, handshake 1500.0 us");
  EXPECT_EQ(lines[2], "<- VirtualMachine.Suspend id=1 len=11 ");
  EXPECT_EQ(lines[3].substr(0, 50), "-> reply id=1 NONE (VirtualMachine.Suspend) len=11");
  EXPECT_EQ(lines[4], "VM suspended by the debugger (VirtualMachine.Suspend id=1)");
  EXPECT_EQ(lines[7], "VM resumed by the debugger (VirtualMachine.Resume id=2)");
  EXPECT_EQ(lines[8].substr(0, 26), "-> Event.Composite id=3 le");
  EXPECT_EQ(lines[9], "   event BREAKPOINT request=5 thread=0x77 policy=ALL in composite id=3 of 1");
  EXPECT_EQ(lines[10], "VM suspended by an event (composite id=3)");
  EXPECT_EQ(lines[11].substr(0, 26), "<- ThreadReference.Name id");
  EXPECT_NE(lines[12].find("reply id=4 INVALID_THREAD (ThreadReference.Name) len=11"), std::string::npos) << lines[12];
  EXPECT_EQ(lines[13], "session 1 ended: debugger closed the connection");
  EXPECT_EQ(lines[14], "VM resumed at the end of the session");
  const std::string summary = Summarize({*file});
  EXPECT_NE(summary.find("VirtualMachine.Suspend"), std::string::npos) << summary;
  EXPECT_NE(summary.find("BREAKPOINT"), std::string::npos) << summary;
  EXPECT_NE(summary.find("127.0.0.1:4000"), std::string::npos) << summary;
  const std::string json = ChromeJson({*file});
  EXPECT_NE(json.find("\"name\":\"ThreadReference.Name\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"ph\":\"i\""), std::string::npos) << json;
}

// A reply sent in parts reaches the trace as its header and whole length (its
// parts are gone by then): one packet record, named and timed like any other;
// `show` says it has no bytes to decode.
TEST(Writer, AReplySentInPartsIsOnePacketWithItsHeaderOnly) {
  const std::string path = TempPath("parts");
  auto w = MustOpen(path, /*bodies=*/true);
  const std::vector<uint8_t> get_values(16, 0);
  w->PacketIn(1, Command(6, jdwp::ArrayReference::GetValues::kId, get_values));
  const auto header = jdwp::MakeReplyHeader(6, jdwp::ErrorCode::kNone, 9'000'005);
  w->PacketOut(0, header, header.size() + 9'000'005);
  w->Close();
  auto file = Load(path);
  ASSERT_TRUE(file) << file.error();
  ASSERT_EQ(file->records.size(), 3u);
  const Record& r = file->records[2];
  ASSERT_TRUE(r.packet);
  EXPECT_EQ(r.packet->length, 9'000'016u);
  EXPECT_EQ(r.packet->bytes, header);
  EXPECT_EQ(r.packet->command_set, 13u);
  EXPECT_EQ(r.packet->command, 2u);
  const std::string line = Line(r, 0);
  EXPECT_NE(line.find("-> reply id=6 NONE (ArrayReference.GetValues) len=9000016 ("), std::string::npos) << line;
  EXPECT_NE(line.find(") (sent in parts: header kept only)"), std::string::npos) << line;
  const std::string summary = Summarize({*file});
  EXPECT_NE(summary.find("9000016"), std::string::npos) << summary;
}

TEST(Writer, RingKeepsTheNewestWithinTheBound) {
  const std::string path = TempPath("ring");
  const uint64_t bound = 64 * 1024;
  auto w = MustOpen(path, /*bodies=*/true, bound, 1 << 16);
  for (uint32_t i = 1; i <= 20000; ++i) {
    w->PacketOut(0, BreakpointComposite(i, jdwp::SuspendPolicy::kNone));
    if (i % 1000 == 0) ASSERT_TRUE(w->Flush(5s));
  }
  w->Close();
  uint64_t total = 0;
  for (int i = 0; i < kRingFiles + 1; ++i) {
    struct stat st {};
    std::string p = i == 0 ? path : path + "." + std::to_string(i);
    if (::stat(p.c_str(), &st) == 0) total += static_cast<uint64_t>(st.st_size);
    if (i == kRingFiles) EXPECT_NE(::stat(p.c_str(), &st), 0) << "one file too many";
  }
  EXPECT_LE(total, bound);
  EXPECT_GE(total, bound / 2);
  auto newest = Load(path);
  ASSERT_TRUE(newest) << newest.error();
  EXPECT_GT(newest->header.segment, 3u);
  EXPECT_EQ(newest->records.back().event->packet_id, 20000u);
  auto oldest = Load(path + "." + std::to_string(kRingFiles - 1));
  ASSERT_TRUE(oldest) << oldest.error();
  EXPECT_EQ(oldest->header.segment, newest->header.segment - (kRingFiles - 1));
}

// The file that named a thread is deleted in time; the newer ones name it again.
TEST(Writer, RingFilesStartWithTheThreadNamesMetSoFar) {
  const std::string path = TempPath("ring_names");
  auto w = MustOpen(path, /*bodies=*/true, 64 * 1024, 1 << 16);
  w->ThreadNamed(0x77, "main");
  w->ThreadNamed(0x78, "worker \xe2\x9c\x93");
  for (uint32_t i = 1; i <= 20000; ++i) {
    w->PacketOut(0, BreakpointComposite(i, jdwp::SuspendPolicy::kNone));
    if (i % 1000 == 0) ASSERT_TRUE(w->Flush(5s));
  }
  w->Close();
  for (int i = 0; i < kRingFiles; ++i) {
    auto file = Load(i == 0 ? path : path + "." + std::to_string(i));
    ASSERT_TRUE(file) << file.error();
    EXPECT_GT(file->header.segment, 0u);
    ASSERT_GE(file->records.size(), 3u);
    ASSERT_TRUE(file->records[1].thread_name) << Line(file->records[1], 0);
    EXPECT_EQ(file->records[1].thread_name->thread, 0x78u);
    EXPECT_EQ(file->records[1].thread_name->name, "worker \xe2\x9c\x93");
    ASSERT_TRUE(file->records[2].thread_name);
    EXPECT_EQ(file->records[2].thread_name->thread, 0x77u);
    EXPECT_EQ(file->records[2].thread_name->name, "main");
    EXPECT_FALSE(file->records[3].thread_name);
  }
  auto newest = Load(path);
  ASSERT_TRUE(newest);
  const std::string json = ChromeJson({*newest});
  EXPECT_NE(json.find(R"("args":{"name":"main"})"), std::string::npos) << json.substr(json.size() - 600);
}

TEST(Writer, FullQueueDropsAndCountsNeverBlocks) {
  const std::string path = TempPath("drops");
  auto w = MustOpen(path, /*bodies=*/false, 0, /*capacity=*/8);
  for (uint32_t i = 1; i <= 100000; ++i) w->PacketIn(1, Command(i, jdwp::VirtualMachine::Version::kId));
  const uint64_t dropped = w->dropped();
  w->Close();
  EXPECT_GT(dropped, 0u);
  auto file = Load(path);
  ASSERT_TRUE(file) << file.error();
  uint64_t recorded = 0, packets = 0;
  for (const Record& r : file->records) {
    if (r.dropped) recorded = std::max(recorded, r.dropped->count);
    if (r.packet) ++packets;
  }
  EXPECT_EQ(recorded, dropped);
  EXPECT_EQ(packets + dropped, 100000u);
}

}  // namespace
}  // namespace jdwpx::trace
