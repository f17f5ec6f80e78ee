// A packet sent in parts (Transport::SendInParts): byte for byte the packet
// Send() would write, contiguous on the wire, the maker held back while the
// debugger reads slowly, and released when the session ends. Real sockets on
// loopback (loopback.h); no sleeps.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <fstream>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>

#include <gtest/gtest.h>

#include "transport/tests/loopback.h"
#include "transport/transport.h"

namespace jdwpx::transport {
namespace {

using namespace jdwpx::transport::loopback;

constexpr size_t kHeader = 11;
constexpr size_t kPart = 256 * 1024;

// A body byte that shows any byte out of place.
uint8_t Pattern(size_t i) { return static_cast<uint8_t>((i * 131) ^ (i >> 11)); }

std::vector<uint8_t> PatternPacket(uint32_t id, size_t length) {
  auto p = MakePacket(id, length - kHeader);
  for (size_t i = kHeader; i < length; ++i) p[i] = Pattern(i);
  return p;
}

// The largest the kernel may make a socket's buffer (autotuning's bound).
size_t KernelBufferMax(const char* file) {
  std::ifstream in(file);
  size_t min = 0, def = 0, max = 0;
  in >> min >> def >> max;
  return max > 0 ? max : size_t{16} << 20;
}

// Bytes [at, at + size) of a PatternPacket whose first kHeader bytes are `header`.
std::vector<uint8_t> PatternPart(const std::vector<uint8_t>& header, size_t at, size_t size) {
  std::vector<uint8_t> bytes(size);
  for (size_t k = 0; k < size; ++k) bytes[k] = at + k < kHeader ? header[at + k] : Pattern(at + k);
  return bytes;
}

// Caps the debugger's receive buffer (autotuning may grow it to 32 MiB) ->
// how far at most a maker may be ahead of what it has read: the window, one
// part, the kernel's socket buffers.
size_t CapReceiveBuffer(Peer& peer) {
  int rcvbuf = 128 * 1024;
  EXPECT_EQ(setsockopt(peer.fd(), SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf)), 0);
  socklen_t size = sizeof(rcvbuf);
  EXPECT_EQ(getsockopt(peer.fd(), SOL_SOCKET, SO_RCVBUF, &rcvbuf, &size), 0);
  return kPartsWindow + kPart + KernelBufferMax("/proc/sys/net/ipv4/tcp_wmem") + static_cast<size_t>(rcvbuf);
}

// Gives a PatternPacket to a writer in parts of `part` bytes on a thread of
// its own, as the agent's command thread does; stops when Write says false.
class Maker {
 public:
  Maker(Transport& transport, uint64_t session, uint32_t id, size_t length, size_t part = kPart) {
    done_ = std::async(std::launch::async, [this, &transport, session, id, length, part] {
      auto writer = transport.SendInParts(session, length);
      const auto header = MakePacket(id, length - kHeader);
      for (size_t at = 0; at < length; at += part) {
        std::vector<uint8_t> bytes = PatternPart(header, at, std::min(part, length - at));
        given += bytes.size();
        if (!writer->Write(std::move(bytes))) return false;
      }
      return true;
    });
  }
  // True: every part was taken; false: Write said the connection ended;
  // nullopt: still making (or waiting) after kWait.
  std::optional<bool> Result() {
    if (done_.wait_for(kWait) != std::future_status::ready) return std::nullopt;
    return done_.get();
  }
  std::atomic<size_t> given{0};

 private:
  std::future<bool> done_;
};

TEST(PacketParts, ArriveByteForByteAsTheWholePacketSendWrites) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  const size_t length = 3 * kPart + 100;
  const auto expected = PatternPacket(3, length);
  h.Send(expected);
  auto whole = peer.ReadPacket();
  ASSERT_TRUE(whole);
  // Parts of any size, the header with the first.
  auto writer = h.transport->SendInParts(h.LastSession(), length);
  size_t at = 0;
  for (size_t size : {kHeader + 5, size_t{1}, size_t{100000}, kPart, length}) {
    size = std::min(size, length - at);
    ASSERT_TRUE(writer->Write(std::vector<uint8_t>(expected.begin() + at, expected.begin() + at + size)));
    at += size;
  }
  auto in_parts = peer.ReadPacket();
  ASSERT_TRUE(in_parts);
  EXPECT_TRUE(*whole == expected);
  EXPECT_TRUE(*in_parts == expected);
  // The trace hears of it once, after its last byte: its header and length.
  ASSERT_TRUE(h.recorder.WaitFor([&] { return h.recorder.written.size() >= 2; }));
  h.recorder.Locked([&] {
    EXPECT_EQ(h.recorder.written.size(), 2u);
    EXPECT_TRUE(h.recorder.written[0] == expected);
    EXPECT_EQ(h.recorder.written[1], std::vector<uint8_t>(expected.begin(), expected.begin() + kHeader));
    EXPECT_EQ(h.recorder.written_lengths, (std::vector<size_t>{length, length}));
  });
}

TEST(PacketParts, PacketsSentMeanwhileFollowTheLastPart) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  const size_t length = kHeader + 300000;
  const auto expected = PatternPacket(3, length);
  auto writer = h.transport->SendInParts(h.LastSession(), length);
  ASSERT_TRUE(writer->Write(std::vector<uint8_t>(expected.begin(), expected.begin() + 1000)));
  // An event from another thread: Send() returns at once, its packet waits.
  std::async(std::launch::async, [&] { h.Send(MakePacket(9, 5)); }).get();
  // A second packet in parts waits for the first's last part.
  Maker second(*h.transport, h.LastSession(), 10, kHeader + 70000);
  ASSERT_TRUE(writer->Write(std::vector<uint8_t>(expected.begin() + 1000, expected.end())));
  auto first = peer.ReadPacket();
  ASSERT_TRUE(first);
  EXPECT_TRUE(*first == expected);
  std::vector<uint32_t> ids;
  for (int i = 0; i < 2; ++i) {
    auto next = peer.ReadPacket();
    ASSERT_TRUE(next);
    ids.push_back(PacketId(*next));
    if (PacketId(*next) == 10) {
      EXPECT_TRUE(*next == PatternPacket(10, kHeader + 70000));
    } else {
      EXPECT_EQ(*next, MakePacket(9, 5));
    }
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<uint32_t>{9, 10}));
  EXPECT_EQ(second.Result(), std::optional<bool>(true));
  EXPECT_TRUE(h.transport->Flush(kWait));
}

// Back-pressure: however slowly the debugger reads, the maker is never more
// than the window (plus one part and the kernel's socket buffers) ahead, so
// a 64 MiB packet never sits in the agent whole.
TEST(PacketParts, TheMakerWaitsWhileTheDebuggerReadsSlowly) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  const size_t bound = CapReceiveBuffer(peer);
  const size_t length = kHeader + (size_t{64} << 20);
  ASSERT_LT(bound, length / 2) << "the packet must dwarf what may be ahead";
  Maker maker(*h.transport, h.LastSession(), 4, length);
  size_t received = 0;
  size_t most_ahead = 0;
  bool pattern_ok = true;
  while (received < length) {
    auto chunk = peer.Read(std::min<size_t>(64 * 1024, length - received));
    ASSERT_TRUE(chunk) << "after " << received << " bytes";
    for (size_t k = 0; k < chunk->size(); ++k) {
      const size_t i = received + k;
      if (i >= kHeader && (*chunk)[k] != Pattern(i)) pattern_ok = false;
    }
    received += chunk->size();
    most_ahead = std::max(most_ahead, maker.given.load() - std::min(received, maker.given.load()));
  }
  EXPECT_TRUE(pattern_ok);
  EXPECT_LE(most_ahead, bound);
  EXPECT_EQ(maker.Result(), std::optional<bool>(true));
  EXPECT_TRUE(h.transport->Flush(kWait));
}

TEST(PacketParts, DebuggerLeavingMidPacketReleasesTheMakerAndListeningGoesOn) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  {
    Peer peer = h.AttachDebugger();
    const size_t length = kHeader + (size_t{64} << 20);
    Maker maker(*h.transport, h.LastSession(), 4, length);
    ASSERT_TRUE(peer.Read(kHeader));  // the maker is under way (and soon waits)
    h.Send(MakePacket(5, 3));         // waits behind the packet; dropped with the session
    peer.Close();
    EXPECT_EQ(maker.Result(), std::optional<bool>(false)) << "Write() said the connection ended";
    ASSERT_TRUE(h.recorder.WaitDetached(1));
  }
  EXPECT_TRUE(h.transport->Flush(kWait)) << "nothing left to wait for";
  Peer next = h.AttachDebugger();
  h.Send(MakePacket(6, 2));
  auto packet = next.ReadPacket();
  ASSERT_TRUE(packet);
  EXPECT_EQ(*packet, MakePacket(6, 2));
  // And the next packet in parts goes out whole.
  const size_t length = kHeader + 2 * kPart;
  Maker maker(*h.transport, h.LastSession(), 7, length);
  auto in_parts = next.ReadPacket();
  ASSERT_TRUE(in_parts);
  EXPECT_TRUE(*in_parts == PatternPacket(7, length));
  EXPECT_EQ(maker.Result(), std::optional<bool>(true));
}

TEST(PacketParts, ShutdownReleasesTheMaker) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  const size_t length = kHeader + (size_t{64} << 20);
  Maker maker(*h.transport, h.LastSession(), 4, length);
  ASSERT_TRUE(peer.Read(kHeader));
  h.transport->Shutdown();
  EXPECT_EQ(maker.Result(), std::optional<bool>(false));
  EXPECT_TRUE(h.RunReturned());
}

TEST(PacketParts, AWriterDroppedBeforeItsLastPartEndsTheConnection) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  const auto expected = PatternPacket(3, kHeader + 5000);
  {
    auto writer = h.transport->SendInParts(h.LastSession(), expected.size());
    ASSERT_TRUE(writer->Write(std::vector<uint8_t>(expected.begin(), expected.begin() + 111)));
    h.Send(MakePacket(8, 1));  // held behind the packet, dropped with the session
  }
  auto start = peer.Read(111);
  ASSERT_TRUE(start);
  EXPECT_TRUE(std::equal(start->begin(), start->end(), expected.begin()));
  EXPECT_TRUE(peer.WaitClosed()) << "nothing more: the debugger sees the connection end";
  ASSERT_TRUE(h.recorder.WaitDetached(1));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.detached[0]; }), "a reply was cut short");
  EXPECT_TRUE(h.transport->Flush(kWait));
  EXPECT_TRUE(h.recorder.Locked([&] { return h.recorder.written.empty(); }));
}

TEST(PacketParts, WithoutTheSessionNothingIsWritten) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  auto before = h.transport->SendInParts(1, kHeader + 10);
  EXPECT_FALSE(before->Write(MakePacket(1, 10)));
  Peer peer = h.AttachDebugger();
  auto stale = h.transport->SendInParts(h.LastSession() + 1, kHeader + 10);
  EXPECT_FALSE(stale->Write(MakePacket(1, 10)));
  h.Send(MakePacket(2, 1));
  auto packet = peer.ReadPacket();
  ASSERT_TRUE(packet);
  EXPECT_EQ(PacketId(*packet), 2u);
}

// What an on_room call back has been called, and a bounded wait for the next.
class Bell {
 public:
  std::function<void()> Callback() {
    return [this] {
      std::lock_guard lock(mu_);
      ++rings_;
      cv_.notify_all();
    };
  }
  // True once rung `n` times in all, within kWait.
  bool WaitRung(int n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kWait, [&] { return rings_ >= n; });
  }
  int rings() {
    std::lock_guard lock(mu_);
    return rings_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  int rings_ = 0;
};

// Given an on_room, the maker is never held: Write() returns at once, Full()
// says when to stop (the same window as the waiting maker's), and on_room
// when to go on. Every part is made on the test's thread; only the debugger
// reads on one of its own.
TEST(PacketParts, AMakerWithACallBackIsNeverHeldAndIsCalledBackWhenThereIsRoom) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  const size_t bound = CapReceiveBuffer(peer);
  const size_t length = kHeader + (size_t{64} << 20);
  ASSERT_LT(bound, length / 2);
  Bell bell;
  auto writer = h.transport->SendInParts(h.LastSession(), length, bell.Callback());
  const auto header = MakePacket(4, length - kHeader);
  auto part_at = [&](size_t at) { return PatternPart(header, at, std::min(kPart, length - at)); };
  // Nobody reads yet: the maker is told to stop within the window.
  size_t given = 0;
  while (given < length && !writer->Full()) {
    auto part = part_at(given);
    given += part.size();
    ASSERT_TRUE(writer->Write(std::move(part)));
  }
  ASSERT_LT(given, length) << "told to stop";
  EXPECT_GE(given, kPartsWindow);
  EXPECT_LE(given, bound);
  EXPECT_EQ(bell.rings(), 0) << "nothing was read";
  // The debugger reads it all; each call back lets the maker go on. It reads
  // in rounds of 8 MiB, and before each round waits until the maker has been
  // told to stop again (or is done): the writer drains faster than the maker
  // makes parts here, so a reader that never paused might never let the
  // queue fill up a second time.
  Bell stopped;
  stopped.Callback()();
  constexpr size_t kRound = size_t{8} << 20;
  auto read = std::async(std::launch::async, [&] {
    size_t received = 0;
    size_t round_end = kRound;
    int stops_seen = 1;
    bool pattern_ok = true;
    while (received < length) {
      if (received >= round_end) {
        if (!stopped.WaitRung(++stops_seen)) return false;
        round_end += kRound;
      }
      auto chunk = peer.Read(std::min({size_t{64} * 1024, length - received, round_end - received}));
      if (!chunk) return false;
      for (size_t k = 0; k < chunk->size(); ++k) {
        const size_t i = received + k;
        if (i >= kHeader && (*chunk)[k] != Pattern(i)) pattern_ok = false;
      }
      received += chunk->size();
    }
    return pattern_ok;
  });
  int waits = 0;
  while (given < length) {
    ASSERT_TRUE(bell.WaitRung(++waits)) << "no call back after " << given << " bytes";
    while (given < length && !writer->Full()) {
      auto part = part_at(given);
      given += part.size();
      ASSERT_TRUE(writer->Write(std::move(part)));
    }
    stopped.Callback()();  // told to stop, or its last part given
  }
  ASSERT_EQ(read.wait_for(kWait), std::future_status::ready);
  EXPECT_TRUE(read.get()) << "every byte in place";
  EXPECT_GE(waits, 7) << "the maker stopped again in every round of 8 MiB but the last";
  EXPECT_FALSE(writer->Full()) << "its last part given";
  EXPECT_TRUE(h.transport->Flush(kWait));
}

// A maker told to stop is called back when its debugger leaves, or the
// transport shuts down, and learns from Write() that the connection is gone.
TEST(PacketParts, AStoppedMakerIsCalledBackWhenTheDebuggerLeavesOrTheTransportStops) {
  for (bool shutdown : {false, true}) {
    Harness h(Harness::Server());
    ASSERT_TRUE(h.transport);
    h.StartRun();
    Peer peer = h.AttachDebugger();
    const size_t length = kHeader + (size_t{64} << 20);
    Bell bell;
    auto writer = h.transport->SendInParts(h.LastSession(), length, bell.Callback());
    std::vector<uint8_t> part = MakePacket(4, length - kHeader);
    part.resize(kPart);
    size_t given = 0;
    while (!writer->Full()) {
      given += part.size();
      ASSERT_TRUE(writer->Write(part));
      ASSERT_LT(given, length / 2);
    }
    if (shutdown) {
      h.transport->Shutdown();
    } else {
      peer.Close();
    }
    EXPECT_TRUE(bell.WaitRung(1)) << (shutdown ? "shutdown" : "peer closed");
    EXPECT_FALSE(writer->Full());
    EXPECT_FALSE(writer->Write(part)) << "the connection is gone";
    writer.reset();
    EXPECT_EQ(bell.rings(), 1) << "called once";
    if (!shutdown) {
      ASSERT_TRUE(h.recorder.WaitDetached(1));
    }
  }
}

// sessions=2: one debugger's maker stopped (it reads nothing) holds back
// nothing sent to the other, whole or in parts.
TEST(PacketParts, AStoppedMakerHoldsBackNoOtherConnection) {
  Harness h(Harness::Sessions(2));
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer idle = h.AttachDebugger();
  const uint64_t idle_session = h.LastSession();
  Peer reading = h.AttachDebugger();
  const uint64_t reading_session = h.LastSession();
  ASSERT_NE(idle_session, reading_session);
  Bell bell;
  auto stopped = h.transport->SendInParts(idle_session, kHeader + (size_t{64} << 20), bell.Callback());
  std::vector<uint8_t> part = MakePacket(4, size_t{64} << 20);
  part.resize(kPart);
  while (!stopped->Full()) ASSERT_TRUE(stopped->Write(part));
  h.transport->Send(reading_session, MakePacket(5, 3));
  auto whole = reading.ReadPacket();
  ASSERT_TRUE(whole);
  EXPECT_EQ(*whole, MakePacket(5, 3));
  const size_t length = kHeader + 2 * kPart;
  Maker maker(*h.transport, reading_session, 7, length);
  auto in_parts = reading.ReadPacket();
  ASSERT_TRUE(in_parts);
  EXPECT_TRUE(*in_parts == PatternPacket(7, length));
  EXPECT_EQ(maker.Result(), std::optional<bool>(true));
  EXPECT_EQ(bell.rings(), 0) << "the idle debugger read nothing";
}

// Transport libraries take whole packets: the default SendInParts gathers.
class WholePacketsOnly final : public Transport {
 public:
  uint16_t port() const override { return 0; }
  tl::expected<void, TransportError> Attach() override { return {}; }
  tl::expected<void, TransportError> Accept() override { return {}; }
  void Run() override {}
  void Send(uint64_t session, std::vector<uint8_t> packet) override { sent.emplace_back(session, std::move(packet)); }
  bool Flush(std::chrono::milliseconds) override { return true; }
  void CloseConnection(uint64_t session) override { closed.push_back(session); }
  void Shutdown() override {}
  std::vector<std::pair<uint64_t, std::vector<uint8_t>>> sent;
  std::vector<uint64_t> closed;
};

TEST(PacketParts, GatheredIntoOneSendWhereOnlyWholePacketsGo) {
  WholePacketsOnly t;
  const auto expected = PatternPacket(3, kHeader + 1000);
  {
    auto writer = t.SendInParts(5, expected.size());
    ASSERT_TRUE(writer->Write(std::vector<uint8_t>(expected.begin(), expected.begin() + 20)));
    EXPECT_TRUE(t.sent.empty());
    ASSERT_TRUE(writer->Write(std::vector<uint8_t>(expected.begin() + 20, expected.end())));
  }
  ASSERT_EQ(t.sent.size(), 1u);
  EXPECT_EQ(t.sent[0].first, 5u);
  EXPECT_EQ(t.sent[0].second, expected);
  EXPECT_TRUE(t.closed.empty());
  {
    auto writer = t.SendInParts(6, expected.size());
    ASSERT_TRUE(writer->Write(std::vector<uint8_t>(expected.begin(), expected.begin() + 20)));
  }
  EXPECT_EQ(t.sent.size(), 1u) << "a packet cut short is never sent";
  EXPECT_EQ(t.closed, std::vector<uint64_t>{6}) << "and its connection ends";
  // Its Write() never waits: a call back is never needed.
  Bell bell;
  auto writer = t.SendInParts(7, expected.size(), bell.Callback());
  ASSERT_TRUE(writer->Write(std::vector<uint8_t>(expected.begin(), expected.end())));
  EXPECT_FALSE(writer->Full());
  EXPECT_EQ(bell.rings(), 0);
}

}  // namespace
}  // namespace jdwpx::transport
