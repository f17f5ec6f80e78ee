// Loopback tests of the dt_socket transport: a real Transport on one side, a
// plain blocking POSIX socket playing the debugger on the other.
#include "transport/transport.h"
#include "transport/tests/loopback.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

namespace jdwpx::transport {
namespace {

using namespace std::chrono_literals;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

using namespace jdwpx::transport::loopback;

TEST(Transport, PortZeroReturnsTheRealPort) {
  Harness h(Harness::Server("0"));
  ASSERT_TRUE(h.transport);
  EXPECT_NE(h.transport->port(), 0);
  Peer peer = Peer::Connect(h.transport->port());
  EXPECT_TRUE(peer.connected());
}

TEST(Transport, EmptyServerAddressIsEphemeralLoopback) {
  Harness h(Harness::Server(""));
  ASSERT_TRUE(h.transport);
  EXPECT_NE(h.transport->port(), 0);
  EXPECT_TRUE(Peer::Connect(h.transport->port()).connected());
}

TEST(Transport, ServerAcceptHandshakeAndPacketsBothWays) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  uint16_t port = h.transport->port();
  auto debugger = std::async(std::launch::async, [port] {
    Peer peer = Peer::Connect(port);
    bool ok = peer.Handshake();
    return std::make_pair(ok, std::move(peer));
  });
  auto accepted = h.transport->Accept();
  ASSERT_TRUE(accepted) << accepted.error().message;
  auto [handshake_ok, peer] = debugger.get();
  ASSERT_TRUE(handshake_ok);
  EXPECT_THAT(h.recorder.attached, ElementsAre(HasSubstr("127.0.0.1:")));
  // Queued before Run(): written once Run() starts.
  h.Send(MakePacket(1, 3));
  h.StartRun();
  auto first = peer.ReadPacket();
  ASSERT_TRUE(first);
  EXPECT_EQ(*first, MakePacket(1, 3));
  ASSERT_TRUE(peer.Write(MakePacket(7, 20)));
  ASSERT_TRUE(h.recorder.WaitPackets(1));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.packets[0]; }), MakePacket(7, 20));
  h.Send(MakePacket(7, 5, 0x11));
  auto reply = peer.ReadPacket();
  ASSERT_TRUE(reply);
  EXPECT_EQ(*reply, MakePacket(7, 5, 0x11));
}

// The protocol trace times a reply by OnWritten: once per packet, after its last byte.
TEST(Transport, OnWrittenReportsEachPacketOnceWhenWritten) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  uint16_t port = h.transport->port();
  auto debugger = std::async(std::launch::async, [port] {
    Peer peer = Peer::Connect(port);
    bool ok = peer.Handshake();
    return std::make_pair(ok, std::move(peer));
  });
  ASSERT_TRUE(h.transport->Accept());
  auto [handshake_ok, peer] = debugger.get();
  ASSERT_TRUE(handshake_ok);
  h.StartRun();
  h.Send(MakePacket(1, 3));
  h.Send(MakePacket(2, 4, 0x80));
  ASSERT_TRUE(peer.ReadPacket());
  ASSERT_TRUE(peer.ReadPacket());
  ASSERT_TRUE(h.recorder.WaitFor([&] { return h.recorder.written.size() >= 2; }));
  EXPECT_THAT(h.recorder.Locked([&] { return h.recorder.written; }),
              ElementsAre(MakePacket(1, 3), MakePacket(2, 4, 0x80)));
}

TEST(Transport, ClientModeAttachesToListeningDebugger) {
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  socklen_t size = sizeof(a);
  getsockname(listener, reinterpret_cast<sockaddr*>(&a), &size);
  uint16_t port = ntohs(a.sin_port);

  Config config;
  config.server = false;
  config.address = "127.0.0.1:" + std::to_string(port);
  Harness h(config);
  ASSERT_TRUE(h.transport);
  auto attached = std::async(std::launch::async, [&] { return h.transport->Attach(); });
  pollfd p{listener, POLLIN, 0};
  ASSERT_EQ(poll(&p, 1, 10000), 1);
  Peer debugger(accept(listener, nullptr, nullptr));
  close(listener);
  // The agent speaks first in client mode.
  auto hello = debugger.Read(kHandshake.size());
  ASSERT_TRUE(hello);
  EXPECT_EQ(std::string(hello->begin(), hello->end()), kHandshake);
  ASSERT_TRUE(debugger.Write(kHandshake));
  ASSERT_EQ(attached.wait_for(kWait), std::future_status::ready);
  auto result = attached.get();
  ASSERT_TRUE(result) << result.error().message;
  EXPECT_EQ(h.recorder.attached.size(), 1u);

  h.StartRun();
  ASSERT_TRUE(debugger.Write(MakePacket(3, 0)));
  ASSERT_TRUE(h.recorder.WaitPackets(1));
  h.Send(MakePacket(3, 9));
  auto reply = debugger.ReadPacket();
  ASSERT_TRUE(reply);
  EXPECT_EQ(*reply, MakePacket(3, 9));
  // In client mode the end of the connection ends Run().
  debugger.Close();
  EXPECT_TRUE(h.recorder.WaitDetached(1));
  EXPECT_TRUE(h.RunReturned());
}

TEST(Transport, ClientModeConnectRefusedIs202) {
  Config config;
  config.address = "127.0.0.1:" + std::to_string(ClosedPort());
  Recorder recorder;
  auto opened = Transport::Open(config, &recorder);
  ASSERT_TRUE(opened);
  auto attached = (*opened)->Attach();
  ASSERT_FALSE(attached);
  EXPECT_EQ(attached.error().code, 202);
  EXPECT_EQ(attached.error().message, "connect failed: Connection refused");
  EXPECT_TRUE(recorder.attached.empty());
}

TEST(Transport, ClientModeBadHandshakeReplyFails) {
  int listener = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  socklen_t size = sizeof(a);
  getsockname(listener, reinterpret_cast<sockaddr*>(&a), &size);
  Config config;
  config.address = "localhost:" + std::to_string(ntohs(a.sin_port));
  Recorder recorder;
  auto opened = Transport::Open(config, &recorder);
  ASSERT_TRUE(opened);
  auto attached = std::async(std::launch::async, [&] { return (*opened)->Attach(); });
  Peer debugger(accept(listener, nullptr, nullptr));
  close(listener);
  ASSERT_TRUE(debugger.Write(std::string_view("HELLO-Handshake")));
  auto result = attached.get();
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, 202);
  EXPECT_EQ(result.error().message, "handshake failed - received >HELLO-Handshak< - expected >JDWP-Handshake<");
}

TEST(Transport, ClientModeWithoutAddressIsRejected) {
  Recorder recorder;
  auto opened = Transport::Open(Config{}, &recorder);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, 103);
}

TEST(Transport, BadHandshakeThenGoodDebuggerIsServed) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer bad = Peer::Connect(h.transport->port());
  ASSERT_TRUE(bad.Write(std::string_view("GET / HTTP/1.1\r\nHost: x\r\n\r\n")));
  EXPECT_TRUE(bad.WaitClosed());
  ASSERT_TRUE(h.recorder.WaitWarnings(1));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.warnings[0]; }),
            "Debugger failed to attach: handshake failed - received >GET / HTTP/1.1< - expected >JDWP-Handshake<");
  Peer good = h.AttachDebugger();
  ASSERT_TRUE(good.Write(MakePacket(1, 0)));
  EXPECT_TRUE(h.recorder.WaitPackets(1));
}

TEST(Transport, HandshakeCutShortIsReported) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer bad = Peer::Connect(h.transport->port());
  ASSERT_TRUE(bad.Write(std::string_view("JDWP-Hand")));
  shutdown(bad.fd(), SHUT_WR);
  EXPECT_TRUE(bad.WaitClosed());
  ASSERT_TRUE(h.recorder.WaitWarnings(1));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.warnings[0]; }),
            "Debugger failed to attach: handshake failed - connection prematurally closed");
  h.AttachDebugger();
}

TEST(Transport, SlowHandshakeTimesOutAndListeningGoesOn) {
  Config config = Harness::Server();
  config.handshake_timeout_ms = 200;
  Harness h(config);
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer silent = Peer::Connect(h.transport->port());
  ASSERT_TRUE(silent.connected());
  EXPECT_TRUE(silent.WaitClosed());
  ASSERT_TRUE(h.recorder.WaitWarnings(1));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.warnings[0]; }),
            "Debugger failed to attach: timeout during handshake");
  h.AttachDebugger();
}

TEST(Transport, SplitFramesAreReassembled) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  auto packet = MakePacket(42, 30);
  for (uint8_t byte : packet) ASSERT_TRUE(peer.Write(&byte, 1));
  ASSERT_TRUE(h.recorder.WaitPackets(1));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.packets; }), std::vector<std::vector<uint8_t>>{packet});
}

TEST(Transport, MergedFramesAreSeparated) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  std::vector<uint8_t> all;
  for (uint32_t id : {1u, 2u, 3u}) {
    auto p = MakePacket(id, id * 7, uint8_t(id));
    all.insert(all.end(), p.begin(), p.end());
  }
  ASSERT_TRUE(peer.Write(all));
  ASSERT_TRUE(h.recorder.WaitPackets(3));
  EXPECT_THAT(h.recorder.Locked([&] { return h.recorder.packets; }),
              ElementsAre(MakePacket(1, 7, 1), MakePacket(2, 14, 2), MakePacket(3, 21, 3)));
}

TEST(Transport, PacketLargerThanTheReadBufferArrivesWhole) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  auto big = MakePacket(9, 3 * 1024 * 1024 + 17, 0x77);
  auto small = MakePacket(10, 1);
  std::vector<uint8_t> both = big;
  both.insert(both.end(), small.begin(), small.end());
  ASSERT_TRUE(peer.Write(both));
  ASSERT_TRUE(h.recorder.WaitPackets(2));
  EXPECT_TRUE(h.recorder.Locked([&] { return h.recorder.packets[0] == big && h.recorder.packets[1] == small; }));
  // And the other way.
  h.Send(big);
  auto echoed = peer.ReadPacket();
  ASSERT_TRUE(echoed);
  EXPECT_TRUE(*echoed == big);
}

TEST(Transport, FlushWaitsUntilQueuedPacketsAreWritten) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  EXPECT_TRUE(h.transport->Flush(std::chrono::milliseconds(0))) << "nothing queued, nothing to wait for";
  Peer peer = h.AttachDebugger();
  // Larger than any socket buffer: cannot be written until the peer reads.
  auto big = MakePacket(11, 32 * 1024 * 1024, 0x5a);
  auto last = MakePacket(12, 3);
  h.Send(big);
  h.Send(last);
  EXPECT_FALSE(h.transport->Flush(std::chrono::milliseconds(200))) << "the peer has read nothing yet";
  auto first = peer.ReadPacket();
  ASSERT_TRUE(first);
  EXPECT_TRUE(*first == big);
  EXPECT_TRUE(h.transport->Flush(std::chrono::seconds(10)));
  auto second = peer.ReadPacket();
  ASSERT_TRUE(second);
  EXPECT_TRUE(*second == last);
}

// A debugger that reads nothing: beyond kSendWindow unwritten bytes a Send()
// holds its caller back (a second at most) until the debugger reads again.
TEST(Transport, SendHoldsItsCallerBackWhileTheDebuggerReadsNothing) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  // Larger than the socket buffers and the window together: most of it stays queued.
  auto big = MakePacket(13, 4 * transport::kSendWindow, 0x5a);
  auto after = MakePacket(14, 3);
  auto sending = std::async(std::launch::async, [&] {
    h.Send(big);
    h.Send(after);
  });
  EXPECT_EQ(sending.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout)
      << "the debugger has read nothing: the sender waits";
  auto first = peer.ReadPacket();
  ASSERT_TRUE(first);
  EXPECT_TRUE(*first == big);
  EXPECT_EQ(sending.wait_for(std::chrono::seconds(10)), std::future_status::ready);
  auto second = peer.ReadPacket();
  ASSERT_TRUE(second);
  EXPECT_TRUE(*second == after);
}

// Packets a sender sends behind one that fills the window: each would hold it up to
// kSendHoldBack, so all of them together far longer than the tests below wait.
constexpr int kPacketsBehind = 30;
constexpr auto kWellUnderTheHoldBacks = std::chrono::seconds(10);
static_assert(kPacketsBehind * transport::kSendHoldBack > 2 * kWellUnderTheHoldBacks);

std::vector<uint8_t> Reply(std::vector<uint8_t> packet) {
  packet[8] = 0x80;  // the flags byte: a reply, its error code 0x0101 left as it is
  return packet;
}

// One packet larger than the socket buffers and the window together (most of it stays
// queued while the debugger reads nothing), then kPacketsBehind small ones; ids from `id`.
std::vector<std::vector<uint8_t>> FullWindowThenMore(uint32_t id, bool replies) {
  std::vector<std::vector<uint8_t>> packets{MakePacket(id, 4 * transport::kSendWindow)};
  for (int i = 1; i <= kPacketsBehind; ++i) packets.push_back(MakePacket(id + i, 3));
  if (replies) {
    for (auto& packet : packets) packet = Reply(std::move(packet));
  }
  return packets;
}

// The debugger reads them all, in the order sent.
void ExpectReadInOrder(Peer& peer, const std::vector<std::vector<uint8_t>>& packets) {
  for (size_t i = 0; i < packets.size(); ++i) {
    auto packet = peer.ReadPacket();
    ASSERT_TRUE(packet) << "packet " << i;
    EXPECT_TRUE(*packet == packets[i]) << "packet " << i;  // not EXPECT_EQ: the first is 16 MB
  }
}

// A reply is never held: the debugger's own commands bound how many it gets
// (transport.h, Send). Behind a window full of unread bytes, replies go straight on.
TEST(Transport, SendNeverHoldsAReplyBack) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  const auto replies = FullWindowThenMore(20, true);
  auto sending = std::async(std::launch::async, [&] {
    for (const auto& reply : replies) h.Send(reply);
  });
  EXPECT_EQ(sending.wait_for(kWellUnderTheHoldBacks), std::future_status::ready)
      << "the debugger has read nothing, yet replies are not held back";
  ExpectReadInOrder(peer, replies);
}

// A sender serving several debuggers (the event reporter with sessions=N):
// SendUnheld never waits, and it and Backlogged say when Send would have, until
// the debugger has read enough; nothing is dropped.
TEST(Transport, SendUnheldNeverHoldsItsCallerAndBackloggedSaysWhenSendWould) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  const uint64_t session = h.LastSession();
  EXPECT_FALSE(h.transport->Backlogged(session)) << "nothing unwritten yet";
  const auto events = FullWindowThenMore(60, false);
  std::vector<bool> answers;
  auto sending = std::async(std::launch::async, [&] {
    for (const auto& event : events) answers.push_back(h.transport->SendUnheld(session, event));
  });
  EXPECT_EQ(sending.wait_for(kWellUnderTheHoldBacks), std::future_status::ready)
      << "the debugger has read nothing, yet SendUnheld does not wait";
  EXPECT_EQ(answers, std::vector<bool>(events.size(), true)) << "each said the connection is backlogged";
  EXPECT_TRUE(h.transport->Backlogged(session)) << "more than the window unwritten";
  EXPECT_FALSE(h.transport->Backlogged(session + 1)) << "no such connection";
  ExpectReadInOrder(peer, events);
  // The last write's completion (which counts it written) may run just after the peer read it.
  const auto deadline = std::chrono::steady_clock::now() + kWellUnderTheHoldBacks;
  while (h.transport->Backlogged(session) && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
  EXPECT_FALSE(h.transport->Backlogged(session)) << "all of it read";
}

// SendSoon (a probe's output, sent by a thread of the program) is never held
// back either, and says when the connection is backlogged: the probe then drops
// its lines rather than waiting for a client that reads nothing.
TEST(Transport, SendSoonNeverHoldsItsCallerAndSaysWhenBacklogged) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  const uint64_t session = h.LastSession();
  const auto lines = FullWindowThenMore(60, false);
  std::vector<bool> answers;
  auto sending = std::async(std::launch::async, [&] {
    for (const auto& line : lines) answers.push_back(h.transport->SendSoon(session, line));
  });
  EXPECT_EQ(sending.wait_for(kWellUnderTheHoldBacks), std::future_status::ready)
      << "the debugger has read nothing, yet SendSoon does not wait";
  EXPECT_TRUE(answers.back()) << "the last one said the connection is backlogged";
  EXPECT_TRUE(h.transport->Backlogged(session));
  ExpectReadInOrder(peer, lines);
}

// VM death: after StopHoldingBack no packet holds its sender back (the one waiting
// then is woken; this test only shows that none of the 30 after it waits), and nothing
// is dropped (the debugger may still read it all).
TEST(Transport, StopHoldingBackLetsAHeldSenderGo) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  const auto events = FullWindowThenMore(40, false);
  auto sending = std::async(std::launch::async, [&] {
    for (const auto& event : events) h.Send(event);
  });
  EXPECT_EQ(sending.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout)
      << "the debugger has read nothing: the sender waits";
  h.transport->StopHoldingBack();
  EXPECT_EQ(sending.wait_for(kWellUnderTheHoldBacks), std::future_status::ready)
      << "no longer held back, the sender goes on";
  ExpectReadInOrder(peer, events);
}

void ExpectBadLengthClosesAndListensAgain(uint32_t length) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  std::vector<uint8_t> header = {uint8_t(length >> 24), uint8_t(length >> 16), uint8_t(length >> 8), uint8_t(length),
                                 0, 0, 0, 1, 0, 1, 1};
  ASSERT_TRUE(peer.Write(header));
  EXPECT_TRUE(peer.WaitClosed());
  ASSERT_TRUE(h.recorder.WaitDetached(1));
  ASSERT_TRUE(h.recorder.WaitWarnings(1));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.warnings[0]; }),
            "ERROR: transport error 202: Badly formed packet received - invalid length");
  EXPECT_TRUE(h.recorder.packets.empty());
  Peer next = h.AttachDebugger();
  ASSERT_TRUE(next.Write(MakePacket(2, 0)));
  EXPECT_TRUE(h.recorder.WaitPackets(1));
}

TEST(Transport, OversizeLengthClosesTheConnectionAndListensAgain) { ExpectBadLengthClosesAndListensAgain(0x7fffffff); }

TEST(Transport, UndersizeLengthClosesTheConnectionAndListensAgain) { ExpectBadLengthClosesAndListensAgain(10); }

TEST(Transport, PeerClosingMidPacketDetachesAndListensAgain) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  auto packet = MakePacket(5, 100);
  ASSERT_TRUE(peer.Write(packet.data(), 40));
  peer.Close();
  ASSERT_TRUE(h.recorder.WaitDetached(1));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.detached[0]; }), "debugger closed the connection mid-packet");
  EXPECT_TRUE(h.recorder.packets.empty());
  h.AttachDebugger();
}

TEST(Transport, ListensAgainOnTheSamePortAfterDetach) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  uint16_t port = h.transport->port();
  h.StartRun();
  for (int round = 1; round <= 3; ++round) {
    Peer peer = h.AttachDebugger();
    ASSERT_TRUE(peer.Write(MakePacket(round, 0)));
    ASSERT_TRUE(h.recorder.WaitPackets(round));
    peer.Close();
    ASSERT_TRUE(h.recorder.WaitDetached(round));
    EXPECT_EQ(h.transport->port(), port);
  }
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.detached[0]; }), "debugger closed the connection");
}

TEST(Transport, SecondDebuggerIsRefusedWhileTheFirstWorks) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer first = h.AttachDebugger();
  Peer second = Peer::Connect(h.transport->port());
  ASSERT_TRUE(second.connected());
  EXPECT_TRUE(second.WaitClosed());
  ASSERT_TRUE(h.recorder.WaitWarnings(1));
  EXPECT_THAT(h.recorder.Locked([&] { return h.recorder.warnings[0]; }),
              HasSubstr("a debugger is already attached"));
  ASSERT_TRUE(first.Write(MakePacket(8, 2)));
  ASSERT_TRUE(h.recorder.WaitPackets(1));
  h.Send(MakePacket(8, 4));
  auto reply = first.ReadPacket();
  ASSERT_TRUE(reply);
  EXPECT_EQ(*reply, MakePacket(8, 4));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.attached.size(); }), 1u);
}

// As stock: a packet that is neither a command (flags 0) nor a reply (0x80)
// ends the connection (nothing after it is read) and the agent listens again.
TEST(Transport, APacketWithOtherFlagsEndsTheConnection) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  std::vector<uint8_t> odd = MakePacket(5, 0);
  odd[8] = 0x40;
  std::vector<uint8_t> both = odd;
  auto after = MakePacket(6, 0);
  both.insert(both.end(), after.begin(), after.end());
  ASSERT_TRUE(peer.Write(both));
  EXPECT_TRUE(peer.WaitClosed());
  ASSERT_TRUE(h.recorder.WaitDetached(1));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.packets.size(); }), 0u);
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.warnings.at(0); }),
            "ERROR: Received jdwpPacket with flags != 0x0 (actual=0x40) when a jdwpCmdPacket was expected.");
  h.AttachDebugger();
}

// A debugger reconnecting may connect before its previous connection is seen
// closed (or is closed by Dispose): it must be served once that one ends, not refused.
TEST(Transport, ADebuggerConnectingWhileThePreviousEndsIsServedAfterIt) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer first = h.AttachDebugger();
  Peer second = Peer::Connect(h.transport->port());
  ASSERT_TRUE(second.connected());
  ASSERT_TRUE(second.Write(kHandshake));  // sent while the first is still attached
  h.CloseConnection();                    // the first one's Dispose
  EXPECT_TRUE(first.WaitClosed());
  auto answer = second.Read(kHandshake.size());
  ASSERT_TRUE(answer);
  EXPECT_EQ(std::string(answer->begin(), answer->end()), kHandshake);
  ASSERT_TRUE(h.recorder.WaitAttached(2));
  h.Send(MakePacket(4, 1));
  auto reply = second.ReadPacket();
  ASSERT_TRUE(reply);
  EXPECT_EQ(PacketId(*reply), 4u);
  EXPECT_TRUE(h.recorder.warnings.empty());
}

// What is meant for one connection (a late reply or event, Dispose's close)
// never reaches the next one.
TEST(Transport, PacketsAndClosesOfAnEndedSessionDoNotReachTheNext) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer first = h.AttachDebugger();
  const uint64_t first_session = h.LastSession();
  first.Close();
  ASSERT_TRUE(h.recorder.WaitDetached(1));
  Peer second = h.AttachDebugger();
  const uint64_t second_session = h.LastSession();
  EXPECT_NE(first_session, second_session);
  h.transport->Send(first_session, MakePacket(1, 1));
  h.transport->CloseConnection(first_session);
  h.transport->Send(second_session, MakePacket(2, 1));
  auto packet = second.ReadPacket();
  ASSERT_TRUE(packet);
  EXPECT_EQ(PacketId(*packet), 2u);
  ASSERT_TRUE(second.Write(MakePacket(9, 0)));
  ASSERT_TRUE(h.recorder.WaitPackets(1));  // still open and read
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.detached.size(); }), 1u);
}

TEST(Transport, CloseConnectionFlushesQueuedPacketsThenDetaches) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  h.Send(MakePacket(1, 10));
  h.Send(MakePacket(2, 10));
  h.CloseConnection();
  h.Send(MakePacket(3, 10));  // after Dispose: dropped
  auto one = peer.ReadPacket();
  auto two = peer.ReadPacket();
  ASSERT_TRUE(one && two);
  EXPECT_EQ(PacketId(*one), 1u);
  EXPECT_EQ(PacketId(*two), 2u);
  EXPECT_TRUE(peer.WaitClosed());
  ASSERT_TRUE(h.recorder.WaitDetached(1));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.detached[0]; }), "connection closed by the agent");
  h.AttachDebugger();
}

TEST(Transport, AllowListAcceptsMatchingPeer) {
  Config config = Harness::Server();
  config.allow = "10.0.0.0/8+127.0.0.0/8";
  Harness h(config);
  ASSERT_TRUE(h.transport);
  h.StartRun();
  h.AttachDebugger();
  EXPECT_TRUE(h.recorder.warnings.empty());
}

TEST(Transport, AllowListRefusesOtherPeersAndListeningGoesOn) {
  Config config = Harness::Server();
  config.allow = "10.1.2.3+192.168.0.0/16";
  Harness h(config);
  ASSERT_TRUE(h.transport);
  h.StartRun();
  for (size_t attempt = 1; attempt <= 2; ++attempt) {
    Peer peer = Peer::Connect(h.transport->port());
    ASSERT_TRUE(peer.connected());
    EXPECT_TRUE(peer.WaitClosed());
    ASSERT_TRUE(h.recorder.WaitWarnings(attempt));
  }
  EXPECT_THAT(h.recorder.Locked([&] { return h.recorder.warnings; }),
              ElementsAre("Debugger failed to attach: ERROR: Peer not allowed to connect: 127.0.0.1",
                          "Debugger failed to attach: ERROR: Peer not allowed to connect: 127.0.0.1"));
  EXPECT_TRUE(h.recorder.attached.empty());
}

TEST(Transport, AllowListMatchesIpv4PeerOfDualStackListener) {
  Config config = Harness::Server("*:0");
  config.allow = "127.0.0.1/32";
  Harness h(config);
  ASSERT_TRUE(h.transport);
  h.StartRun();
  h.AttachDebugger();
  EXPECT_THAT(h.recorder.attached, ElementsAre(HasSubstr("127.0.0.1:")));
}

TEST(Transport, AllowListIpv6) {
  if (!Ipv6LoopbackAvailable()) GTEST_SKIP() << "no IPv6 loopback";
  Config config = Harness::Server("*:0");
  config.allow = "::1";
  Harness h(config);
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer v6 = Peer::Connect(h.transport->port(), "::1");
  ASSERT_TRUE(v6.connected());
  ASSERT_TRUE(v6.Handshake());
  ASSERT_TRUE(h.recorder.WaitAttached(1));
  EXPECT_THAT(h.recorder.attached, ElementsAre(HasSubstr("[::1]:")));
  v6.Close();
  ASSERT_TRUE(h.recorder.WaitDetached(1));
  Peer v4 = Peer::Connect(h.transport->port(), "127.0.0.1");
  EXPECT_TRUE(v4.WaitClosed());
  ASSERT_TRUE(h.recorder.WaitWarnings(1));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.warnings[0]; }),
            "Debugger failed to attach: ERROR: Peer not allowed to connect: 127.0.0.1");
}

TEST(Transport, Ipv6ListenAddress) {
  if (!Ipv6LoopbackAvailable()) GTEST_SKIP() << "no IPv6 loopback";
  Harness h(Harness::Server("[::1]:0"));
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer v6 = Peer::Connect(h.transport->port(), "::1");
  ASSERT_TRUE(v6.Handshake());
  EXPECT_TRUE(h.recorder.WaitAttached(1));
}

TEST(Transport, MalformedAllowFailsOpen) {
  Config config = Harness::Server();
  config.allow = "10.1.2.3/33";
  Recorder recorder;
  auto opened = Transport::Open(config, &recorder);
  ASSERT_FALSE(opened);
  EXPECT_EQ(opened.error().code, 103);
  EXPECT_EQ(opened.error().message, "invalid netmask in allow option");
  EXPECT_EQ(opened.error().preceding_line, "Error in allow option: '33'");
}

TEST(Transport, BindToPortInUseIs202) {
  Harness first(Harness::Server());
  ASSERT_TRUE(first.transport);
  for (std::string address : {std::to_string(first.transport->port()), "127.0.0.1:" + std::to_string(first.transport->port())}) {
    SCOPED_TRACE(address);
    Recorder recorder;
    auto second = Transport::Open(Harness::Server(address), &recorder);
    ASSERT_FALSE(second);
    EXPECT_EQ(second.error().code, 202);
    EXPECT_EQ(second.error().message, "bind failed: Address already in use");
  }
}

TEST(Transport, BadPortIs103) {
  for (const char* address : {"99999", "-1", "abc", "localhost:"}) {
    SCOPED_TRACE(address);
    Recorder recorder;
    auto opened = Transport::Open(Harness::Server(address), &recorder);
    ASSERT_FALSE(opened);
    EXPECT_EQ(opened.error().code, 103);
    EXPECT_EQ(opened.error().message, "invalid port number specified");
  }
}

TEST(Transport, UnresolvableHostIs202) {
  for (bool server : {true, false}) {
    Config config;
    config.server = server;
    config.address = "nosuchhost.invalid:5005";
    Recorder recorder;
    auto opened = Transport::Open(config, &recorder);
    ASSERT_FALSE(opened);
    EXPECT_EQ(opened.error().code, 202);
    EXPECT_EQ(opened.error().message, "getaddrinfo: failed to parse address");
  }
}

TEST(Transport, AcceptTimesOut) {
  Config config = Harness::Server();
  config.timeout_ms = 150;
  Harness h(config);
  ASSERT_TRUE(h.transport);
  auto start = std::chrono::steady_clock::now();
  auto accepted = h.transport->Accept();
  ASSERT_FALSE(accepted);
  EXPECT_EQ(accepted.error().code, 203);
  EXPECT_EQ(accepted.error().message, "timed out waiting for connection");
  EXPECT_GE(std::chrono::steady_clock::now() - start, 150ms);
}

TEST(Transport, AcceptIgnoresRefusedPeersAndBadHandshakes) {
  Config config = Harness::Server();
  config.handshake_timeout_ms = 5000;
  Harness h(config);
  ASSERT_TRUE(h.transport);
  uint16_t port = h.transport->port();
  auto debuggers = std::async(std::launch::async, [port] {
    Peer bad = Peer::Connect(port);
    bad.Write(std::string_view("not a handshake"));
    bad.WaitClosed();
    Peer good = Peer::Connect(port);
    good.Handshake();
    return good;
  });
  ASSERT_TRUE(h.transport->Accept());
  Peer good = debuggers.get();
  EXPECT_EQ(h.recorder.warnings.size(), 1u);
  EXPECT_EQ(h.recorder.attached.size(), 1u);
  h.StartRun();
  ASSERT_TRUE(good.Write(MakePacket(1, 1)));
  EXPECT_TRUE(h.recorder.WaitPackets(1));
}

TEST(Transport, SendFromAnotherThreadWhileReading) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  constexpr uint32_t kCount = 500;
  std::thread sender([&] {
    for (uint32_t id = 1; id <= kCount; ++id) h.Send(MakePacket(id, id % 50));
  });
  std::thread writer([&] {
    for (uint32_t id = 1; id <= kCount; ++id) peer.Write(MakePacket(100000 + id, id % 70));
  });
  for (uint32_t id = 1; id <= kCount; ++id) {
    auto packet = peer.ReadPacket();
    ASSERT_TRUE(packet) << "packet " << id;
    ASSERT_EQ(*packet, MakePacket(id, id % 50));
  }
  sender.join();
  writer.join();
  ASSERT_TRUE(h.recorder.WaitPackets(kCount));
  h.recorder.Locked([&] {
    for (uint32_t i = 0; i < kCount; ++i) EXPECT_EQ(h.recorder.packets[i], MakePacket(100001 + i, (i + 1) % 70));
    return 0;
  });
}

// Threads sending at once, thread t's packet n being MakePacket(t << 16 | n,
// payload(n), t + 1) through send(t, packet): the peer reads every packet
// whole, each thread's in its order.
template <typename Payload, typename SendBy>
void ExpectEachThreadsOrder(Harness& h, uint32_t threads, uint32_t per_thread, Payload payload, SendBy send) {
  h.StartRun();
  Peer peer = h.AttachDebugger();
  std::vector<std::thread> senders;
  for (uint32_t t = 0; t < threads; ++t) {
    senders.emplace_back([&, t] {
      for (uint32_t n = 0; n < per_thread; ++n) send(t, MakePacket(t << 16 | n, payload(n), uint8_t(t + 1)));
    });
  }
  std::vector<uint32_t> next(threads, 0);
  for (uint32_t i = 0; i < threads * per_thread; ++i) {
    auto packet = peer.ReadPacket();
    ASSERT_TRUE(packet) << "packet " << i;
    const uint32_t t = PacketId(*packet) >> 16;
    ASSERT_LT(t, threads);
    const uint32_t n = next[t]++;
    ASSERT_EQ(*packet, MakePacket(t << 16 | n, payload(n), uint8_t(t + 1))) << "thread " << t << " packet " << n;
  }
  for (auto& sender : senders) sender.join();
  EXPECT_TRUE(h.transport->Flush(std::chrono::seconds(10)));
  EXPECT_TRUE(h.recorder.WaitFor([&] { return h.recorder.written.size() == threads * per_thread; }));
}

// Send() writes on the caller's thread when the writer is idle and queues
// behind a write under way (a packet bigger than the socket buffer): threads
// sending at once (the command thread's replies, the reporter's events) each
// keep their order, and no packet is torn or lost.
TEST(Transport, SendersOnSeveralThreadsKeepTheirOrderAcrossDirectAndQueuedWrites) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  // Every 50th packet is 1 MB: cut short by the socket buffer, finished by the I/O thread.
  auto payload = [](uint32_t n) -> size_t { return n % 50 == 7 ? (1u << 20) : n % 40; };
  ExpectEachThreadsOrder(h, 3, 300, payload, [&](uint32_t, std::vector<uint8_t> packet) { h.Send(std::move(packet)); });
}

// SendSoon (probe output) queues for the writer, which takes everything that
// came within kSendSoonDelay in one write: a lone packet still goes out, in
// order with the Sends around it, and a Send takes the waiting ones along.
TEST(Transport, SendSoonPacketsGoOutInOrderWithTheSendsAroundThem) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  h.SendSoon(MakePacket(1, 3));
  auto lone = peer.ReadPacket();
  ASSERT_TRUE(lone);
  EXPECT_EQ(*lone, MakePacket(1, 3));
  h.Send(MakePacket(2, 5));
  for (uint32_t id = 3; id < 400; ++id) h.SendSoon(MakePacket(id, id % 30));
  h.Send(MakePacket(400, 7));
  h.SendSoon(MakePacket(401, 1));
  for (uint32_t id = 2; id <= 401; ++id) {
    auto packet = peer.ReadPacket();
    ASSERT_TRUE(packet) << "packet " << id;
    const size_t size = id == 2 ? 5 : id == 400 ? 7 : id == 401 ? 1 : id % 30;
    ASSERT_EQ(*packet, MakePacket(id, size)) << "packet " << id;
  }
  EXPECT_TRUE(h.transport->Flush(std::chrono::seconds(10)));
  EXPECT_TRUE(h.recorder.WaitFor([&] { return h.recorder.written.size() == 401; }));
}

// Threads that SendSoon (probes' hitting threads) beside one that Sends (the
// reporter): each keeps its order, nothing is torn or lost.
TEST(Transport, SendSoonAndSendFromSeveralThreadsKeepEachThreadsOrder) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  ExpectEachThreadsOrder(h, 3, 2000, [](uint32_t n) -> size_t { return n % 25; },
                         [&](uint32_t t, std::vector<uint8_t> packet) {
                           if (t == 0) {
                             h.Send(std::move(packet));
                           } else {
                             h.SendSoon(std::move(packet));
                           }
                         });
}

// A peer that has gone while packets are being sent: sends fail quietly, the
// session ends once, Flush does not wait for what can no longer be written.
TEST(Transport, SendingToAVanishedPeerEndsTheSessionOnce) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  {
    Peer peer = h.AttachDebugger();
    h.Send(MakePacket(1, 4));
    ASSERT_TRUE(peer.ReadPacket());
    peer.Close();
  }
  for (uint32_t id = 2; id < 2000; ++id) h.Send(MakePacket(id, id % 3 == 0 ? 100000 : 10));
  ASSERT_TRUE(h.recorder.WaitDetached(1));
  EXPECT_TRUE(h.transport->Flush(std::chrono::seconds(10)));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.detached.size(); }), 1u);
  // Listening again: the next debugger is served.
  Peer next = h.AttachDebugger();
  h.Send(MakePacket(5000, 2));
  auto packet = next.ReadPacket();
  ASSERT_TRUE(packet);
  EXPECT_EQ(PacketId(*packet), 5000u);
}

TEST(Transport, SendWithoutDebuggerIsDropped) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  h.Send(MakePacket(1, 1));
  Peer peer = h.AttachDebugger();
  h.Send(MakePacket(2, 1));
  auto packet = peer.ReadPacket();
  ASSERT_TRUE(packet);
  EXPECT_EQ(PacketId(*packet), 2u);
}

TEST(Transport, LogsPacketsToItsNamedLoggerWhenOneExists) {
  std::ostringstream lines;
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(lines);
  auto logger = std::make_shared<spdlog::logger>("jdwpx.transport", sink);
  logger->set_level(spdlog::level::trace);
  logger->set_pattern("%v");
  spdlog::register_logger(logger);
  {
    Harness h(Harness::Server());
    ASSERT_TRUE(h.transport);
    h.StartRun();
    Peer peer = h.AttachDebugger();
    ASSERT_TRUE(peer.Write(MakePacket(1, 5)));
    ASSERT_TRUE(h.recorder.WaitPackets(1));
    h.Send(MakePacket(1, 2));
    ASSERT_TRUE(peer.ReadPacket());
  }
  spdlog::drop("jdwpx.transport");
  logger->flush();
  std::string text = lines.str();
  EXPECT_THAT(text, HasSubstr("listening on 127.0.0.1:"));
  EXPECT_THAT(text, HasSubstr("debugger attached: 127.0.0.1:"));
  EXPECT_THAT(text, HasSubstr("<- packet len=16"));
  EXPECT_THAT(text, HasSubstr("-> packet len=13"));
  EXPECT_THAT(text, HasSubstr("debugger detached: "));
}

TEST(Transport, ShutdownWhileIdleEndsRun) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  // Prove the loop is running before stopping it.
  h.AttachDebugger().Close();
  ASSERT_TRUE(h.recorder.WaitDetached(1));
  h.transport->Shutdown();
  EXPECT_TRUE(h.RunReturned());
  h.transport->Shutdown();  // idempotent
  EXPECT_FALSE(Peer::Connect(h.transport->port()).connected());
}

TEST(Transport, ShutdownWhileConnectedEndsRunAndDetaches) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  std::thread other([&] { h.transport->Shutdown(); });
  other.join();
  EXPECT_TRUE(h.RunReturned());
  EXPECT_TRUE(peer.WaitClosed());
  ASSERT_TRUE(h.recorder.WaitDetached(1));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.detached[0]; }), "transport shut down");
}

TEST(Transport, ShutdownDuringHandshakeEndsRun) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer silent = Peer::Connect(h.transport->port());
  ASSERT_TRUE(silent.Write(std::string_view("JDWP")));
  h.transport->Shutdown();
  EXPECT_TRUE(h.RunReturned());
  EXPECT_TRUE(silent.WaitClosed());
}

TEST(Transport, ShutdownUnblocksAccept) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  auto accepted = std::async(std::launch::async, [&] { return h.transport->Accept(); });
  EXPECT_EQ(accepted.wait_for(50ms), std::future_status::timeout);
  h.transport->Shutdown();
  ASSERT_EQ(accepted.wait_for(kWait), std::future_status::ready);
  EXPECT_FALSE(accepted.get());
}

TEST(Transport, ShutdownBeforeRunReturnsAtOnce) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.transport->Shutdown();
  h.StartRun();
  EXPECT_TRUE(h.RunReturned());
}

// ---- address=unix:<path>, keepalive, the exposure warning, AcceptWithin (ours) ----

class TempDir {
 public:
  TempDir() {
    char pattern[] = "/tmp/jdwpx-unix-XXXXXX";
    path = mkdtemp(pattern);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  std::string path;
};

Peer ConnectUnix(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof(a.sun_path) - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    close(fd);
    return Peer();
  }
  return Peer(fd);
}

TEST(UnixSocket, ListensWithMode0600AndRemovesTheFileWhenItStops) {
  TempDir dir;
  const std::string path = dir.path + "/jdwp.sock";
  {
    Harness h(Harness::Server("unix:" + path));
    ASSERT_TRUE(h.transport);
    EXPECT_EQ(h.transport->address(), "unix:" + path);
    EXPECT_EQ(h.transport->endpoint_text(), "unix:" + path);
    EXPECT_EQ(h.transport->exposure_warning(), "");
    struct stat st {};
    ASSERT_EQ(lstat(path.c_str(), &st), 0);
    EXPECT_TRUE(S_ISSOCK(st.st_mode));
    EXPECT_EQ(st.st_mode & 0777, 0600u);
    h.StartRun();
    Peer peer = ConnectUnix(path);
    ASSERT_TRUE(peer.connected());
    ASSERT_TRUE(peer.Handshake());
    ASSERT_TRUE(h.recorder.WaitAttached(1));
    EXPECT_THAT(h.recorder.attached[0], ::testing::MatchesRegex("uid [0-9]+ pid [0-9]+"));
    auto packet = MakePacket(7, 3);
    ASSERT_TRUE(peer.Write(packet));
    ASSERT_TRUE(h.recorder.WaitPackets(1));
    EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.packets[0]; }), packet);
    h.transport->Shutdown();
    EXPECT_TRUE(h.RunReturned());
    EXPECT_FALSE(std::filesystem::exists(path));  // not listening any more
  }
}

TEST(UnixSocket, StaleFileIsReplacedLiveOneAndPlainFileAreNot) {
  TempDir dir;
  const std::string path = dir.path + "/jdwp.sock";
  {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un a{};
    a.sun_family = AF_UNIX;
    std::strncpy(a.sun_path, path.c_str(), sizeof(a.sun_path) - 1);
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
    close(fd);  // the file stays: stale
  }
  Harness first(Harness::Server("unix:" + path));
  ASSERT_TRUE(first.transport);
  Recorder recorder;
  auto second = Transport::Open(Harness::Server("unix:" + path), &recorder);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, kErrorIo);
  EXPECT_EQ(second.error().message, "bind failed: " + path + ": Address already in use (a process listens on it)");
  EXPECT_TRUE(std::filesystem::exists(path));
  const std::string plain = dir.path + "/plain";
  { std::ofstream(plain) << "x"; }
  auto refused = Transport::Open(Harness::Server("unix:" + plain), &recorder);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "bind failed: " + plain + " exists and is not a socket (not removed)");
  EXPECT_TRUE(std::filesystem::exists(plain));
}

TEST(UnixSocket, BadPathsAreClearErrors) {
  Recorder recorder;
  auto missing = Transport::Open(Harness::Server("unix:/nonexistent-jdwpx/x/j.sock"), &recorder);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, kErrorIo);
  EXPECT_EQ(missing.error().message,
            "bind failed: /nonexistent-jdwpx/x/j.sock: directory /nonexistent-jdwpx/x: No such file or directory");
  auto empty = Transport::Open(Harness::Server("unix:"), &recorder);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().code, kErrorIllegalArgument);
  EXPECT_EQ(empty.error().message, "unix socket path is missing");
  auto long_path = Transport::Open(Harness::Server("unix:/tmp/" + std::string(120, 'x')), &recorder);
  ASSERT_FALSE(long_path);
  EXPECT_EQ(long_path.error().message, "unix socket path is too long (125 bytes, at most 107)");
}

TEST(UnixSocket, ClientModeAttachesToAUnixListener) {
  TempDir dir;
  const std::string path = dir.path + "/debugger.sock";
  int listener = socket(AF_UNIX, SOCK_STREAM, 0);
  sockaddr_un a{};
  a.sun_family = AF_UNIX;
  std::strncpy(a.sun_path, path.c_str(), sizeof(a.sun_path) - 1);
  ASSERT_EQ(bind(listener, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  ASSERT_EQ(listen(listener, 1), 0);
  Config config;
  config.server = false;
  config.address = "unix:" + path;
  Harness h(config);
  ASSERT_TRUE(h.transport);
  auto attached = std::async(std::launch::async, [&] { return h.transport->Attach(); });
  Peer debugger(accept(listener, nullptr, nullptr));
  ASSERT_TRUE(debugger.connected());
  auto greeting = debugger.Read(kHandshake.size());
  ASSERT_TRUE(greeting);
  ASSERT_TRUE(debugger.Write(kHandshake));
  ASSERT_EQ(attached.wait_for(kWait), std::future_status::ready);
  EXPECT_TRUE(attached.get());
  EXPECT_EQ(h.recorder.attached, std::vector<std::string>{"unix:" + path});
  close(listener);
}

TEST(Exposure, WarnsOnAnyInterfaceWithoutAllowOnly) {
  Harness any(Harness::Server("*:0"));
  ASSERT_TRUE(any.transport);
  // "*" is dual-stack; 0.0.0.0 where the host has no IPv6.
  const std::string where = any.transport->endpoint_text();
  const std::string port = std::to_string(any.transport->port());
  EXPECT_TRUE(where == "*:" + port || where == "0.0.0.0:" + port) << where;
  EXPECT_EQ(any.transport->exposure_warning(),
            "jdwpx: WARNING: listening on " + where + " without allow=: whoever can reach " + where +
                " can run any code in this JVM (JDWP has no authentication). Fix: allow=<ip>[/<bits>], or a "
                "loopback address (127.0.0.1:<port>) reached through a tunnel, or a Unix socket "
                "(address=unix:<path>) with jdwpx-bridge.");
  Config allowed = Harness::Server("*:0");
  allowed.allow = "10.0.0.0/8";
  Harness limited(allowed);
  ASSERT_TRUE(limited.transport);
  EXPECT_EQ(limited.transport->exposure_warning(), "");
  Harness loopback(Harness::Server("0"));
  ASSERT_TRUE(loopback.transport);
  EXPECT_EQ(loopback.transport->endpoint_text(), "127.0.0.1:" + std::to_string(loopback.transport->port()));
  EXPECT_EQ(loopback.transport->exposure_warning(), "");
  Harness named(Harness::Server("localhost:0"));
  ASSERT_TRUE(named.transport);
  EXPECT_EQ(named.transport->exposure_warning(), "");
}

TEST(Keepalive, SessionSocketProbesAfter30sIdle) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer peer = h.AttachDebugger();
  // The agent's side of the connection: the one whose peer port is ours.
  sockaddr_in mine{};
  socklen_t size = sizeof(mine);
  getsockname(peer.fd(), reinterpret_cast<sockaddr*>(&mine), &size);
  // Found through /proc: the transport's fds are this process's.
  bool found = false;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    int fd = std::stoi(entry.path().filename());
    sockaddr_in remote{};
    socklen_t rsize = sizeof(remote);
    if (getpeername(fd, reinterpret_cast<sockaddr*>(&remote), &rsize) != 0 || remote.sin_family != AF_INET) continue;
    if (remote.sin_port != mine.sin_port || fd == peer.fd()) continue;
    int on = 0, idle = 0, interval = 0, count = 0;
    socklen_t n = sizeof(int);
    getsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &on, &n);
    getsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, &n);
    getsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &interval, &n);
    getsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &count, &n);
    EXPECT_EQ(on, 1);
    EXPECT_EQ(idle, kKeepAliveIdleS);
    EXPECT_EQ(interval, kKeepAliveIntervalS);
    EXPECT_EQ(count, kKeepAliveCount);
    found = true;
  }
  EXPECT_TRUE(found);
}

TEST(AcceptWithin, GivesUpButKeepsListeningThenRunAccepts) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  int calls = 0;
  auto result = h.transport->AcceptWithin(120, 50, [&] { ++calls; });
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().code, kErrorSuspendTimeout);
  EXPECT_GE(calls, 2);  // at once, then every 50 ms
  h.StartRun();
  Peer peer = h.AttachDebugger();  // Run() still listens
  EXPECT_TRUE(peer.connected());
}

TEST(AcceptWithin, ReturnsOnceADebuggerAttaches) {
  Harness h(Harness::Server());
  ASSERT_TRUE(h.transport);
  auto accepted = std::async(std::launch::async, [&] { return h.transport->AcceptWithin(60000, 1000, {}); });
  Peer peer = Peer::Connect(h.transport->port());
  ASSERT_TRUE(peer.Handshake());
  ASSERT_EQ(accepted.wait_for(kWait), std::future_status::ready);
  EXPECT_TRUE(accepted.get());
}

TEST(HandshakeTimeout, ConfigurableAndTheNextDebuggerAttaches) {
  Config config = Harness::Server();
  config.handshake_timeout_ms = 100;
  Harness h(config);
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer silent = Peer::Connect(h.transport->port());
  EXPECT_TRUE(silent.WaitClosed());
  ASSERT_TRUE(h.recorder.WaitWarnings(1));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.warnings[0]; }), "Debugger failed to attach: timeout during handshake");
  Peer peer = h.AttachDebugger();
  EXPECT_TRUE(peer.connected());
}

// ---- sessions=N: several debuggers at once (ours) ----

// The ids of the packets connection `session` sent, in arrival order.
std::vector<uint32_t> ArrivalsOf(Harness& h, uint64_t session) {
  return h.recorder.Locked([&] {
    std::vector<uint32_t> ids;
    for (size_t i = 0; i < h.recorder.packets.size(); ++i) {
      if (h.recorder.packet_sessions[i] == session) ids.push_back(PacketId(h.recorder.packets[i]));
    }
    return ids;
  });
}

// The ids of the next `n` packets the debugger reads (0 for one that did not come).
std::vector<uint32_t> ReadIds(Peer& peer, size_t n) {
  std::vector<uint32_t> ids;
  for (size_t i = 0; i < n; ++i) {
    auto packet = peer.ReadPacket();
    ids.push_back(packet ? PacketId(*packet) : 0);
  }
  return ids;
}

constexpr const char* kTwoTaken = "Debugger failed to attach: ERROR: sessions=2: 2 debuggers attached already";

TEST(Sessions, TwoAttachedAtOnceEachGetsItsOwnPacketsAndReplies) {
  Harness h(Harness::Sessions(2));
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer a = h.AttachDebugger();
  const uint64_t sa = h.LastSession();
  Peer b = h.AttachDebugger();
  const uint64_t sb = h.LastSession();
  EXPECT_NE(sa, sb);
  ASSERT_TRUE(a.Write(MakePacket(1, 2)));
  ASSERT_TRUE(b.Write(MakePacket(2, 2)));
  ASSERT_TRUE(a.Write(MakePacket(3, 2)));
  ASSERT_TRUE(b.Write(MakePacket(4, 2)));
  ASSERT_TRUE(h.recorder.WaitPackets(4));
  EXPECT_THAT(ArrivalsOf(h, sa), ElementsAre(1u, 3u));
  EXPECT_THAT(ArrivalsOf(h, sb), ElementsAre(2u, 4u));
  // Interleaved: a packet reaching the wrong debugger would come between its own.
  h.transport->Send(sa, Reply(MakePacket(1, 5)));
  h.transport->Send(sb, Reply(MakePacket(2, 5)));
  h.transport->Send(sa, Reply(MakePacket(3, 5)));
  h.transport->Send(sb, Reply(MakePacket(4, 5)));
  EXPECT_THAT(ReadIds(a, 2), ElementsAre(1u, 3u));
  EXPECT_THAT(ReadIds(b, 2), ElementsAre(2u, 4u));
  EXPECT_TRUE(h.recorder.Locked([&] { return h.recorder.warnings.empty() && h.recorder.detached.empty(); }));
}

TEST(Sessions, OneMoreIsClosedAfterItsHandshakeUntilOneLeaves) {
  Harness h(Harness::Sessions(2));
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer a = h.AttachDebugger();
  const uint64_t sa = h.LastSession();
  Peer b = h.AttachDebugger();
  const uint64_t sb = h.LastSession();
  Peer third = Peer::Connect(h.transport->port());
  ASSERT_TRUE(third.connected());
  EXPECT_TRUE(third.Handshake()) << "the handshake completes";
  EXPECT_TRUE(third.WaitClosed()) << "then the connection is closed";
  ASSERT_TRUE(h.recorder.WaitWarnings(1));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.warnings[0]; }), kTwoTaken);
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.attached.size(); }), 2u);
  // The two go on undisturbed.
  ASSERT_TRUE(a.Write(MakePacket(5, 0)));
  ASSERT_TRUE(b.Write(MakePacket(6, 0)));
  ASSERT_TRUE(h.recorder.WaitPackets(2));
  EXPECT_THAT(ArrivalsOf(h, sa), ElementsAre(5u));
  EXPECT_THAT(ArrivalsOf(h, sb), ElementsAre(6u));
  h.transport->Send(sa, MakePacket(7, 1));
  h.transport->Send(sb, MakePacket(8, 1));
  EXPECT_THAT(ReadIds(a, 1), ElementsAre(7u));
  EXPECT_THAT(ReadIds(b, 1), ElementsAre(8u));
  // One leaves: there is room for one more.
  a.Close();
  ASSERT_TRUE(h.recorder.WaitDetached(1));
  EXPECT_THAT(h.recorder.Locked([&] { return h.recorder.detached_sessions; }), ElementsAre(sa));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.detached[0]; }), "debugger closed the connection");
  Peer d = h.AttachDebugger();
  const uint64_t sd = h.LastSession();
  EXPECT_GT(sd, sb);
  ASSERT_TRUE(d.Write(MakePacket(9, 0)));
  ASSERT_TRUE(h.recorder.WaitPackets(3));
  EXPECT_THAT(ArrivalsOf(h, sd), ElementsAre(9u));
  h.transport->Send(sd, MakePacket(10, 1));
  h.transport->Send(sb, MakePacket(11, 1));
  EXPECT_THAT(ReadIds(d, 1), ElementsAre(10u));
  EXPECT_THAT(ReadIds(b, 1), ElementsAre(11u));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.warnings.size(); }), 1u);
}

TEST(Sessions, CloseConnectionEndsOnlyTheNamedOne) {
  Harness h(Harness::Sessions(2));
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer a = h.AttachDebugger();
  const uint64_t sa = h.LastSession();
  Peer b = h.AttachDebugger();
  const uint64_t sb = h.LastSession();
  h.transport->Send(sa, MakePacket(1, 10));
  h.transport->CloseConnection(sa);
  h.transport->Send(sa, MakePacket(2, 10));  // after Dispose: dropped, and not sent to b
  EXPECT_THAT(ReadIds(a, 1), ElementsAre(1u));
  EXPECT_TRUE(a.WaitClosed());
  ASSERT_TRUE(h.recorder.WaitDetached(1));
  EXPECT_THAT(h.recorder.Locked([&] { return h.recorder.detached_sessions; }), ElementsAre(sa));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.detached[0]; }), "connection closed by the agent");
  ASSERT_TRUE(b.Write(MakePacket(3, 0)));
  ASSERT_TRUE(h.recorder.WaitPackets(1));
  EXPECT_THAT(ArrivalsOf(h, sb), ElementsAre(3u));
  h.transport->Send(sb, MakePacket(4, 1));
  EXPECT_THAT(ReadIds(b, 1), ElementsAre(4u));
}

TEST(Sessions, ShutdownDetachesEachOne) {
  Harness h(Harness::Sessions(2));
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer a = h.AttachDebugger();
  const uint64_t sa = h.LastSession();
  Peer b = h.AttachDebugger();
  const uint64_t sb = h.LastSession();
  h.transport->Shutdown();
  EXPECT_TRUE(h.RunReturned());
  ASSERT_TRUE(h.recorder.WaitDetached(2));
  auto detached_sessions = h.recorder.Locked([&] { return h.recorder.detached_sessions; });
  std::sort(detached_sessions.begin(), detached_sessions.end());  // in either order
  EXPECT_THAT(detached_sessions, ElementsAre(sa, sb));  // numbers grow: sa < sb
  EXPECT_THAT(h.recorder.Locked([&] { return h.recorder.detached; }),
              ElementsAre("transport shut down", "transport shut down"));
  EXPECT_TRUE(a.WaitClosed());
  EXPECT_TRUE(b.WaitClosed());
}

// kSendWindow and the hold-back are per connection: a debugger that reads
// nothing holds back only what is sent to it. Flush waits for every connection.
TEST(Sessions, ADebuggerReadingNothingHoldsBackOnlyItsOwnSenders) {
  Harness h(Harness::Sessions(2));
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer a = h.AttachDebugger();
  const uint64_t sa = h.LastSession();
  Peer b = h.AttachDebugger();
  const uint64_t sb = h.LastSession();
  const auto to_a = FullWindowThenMore(40, false);
  auto sending_a = std::async(std::launch::async, [&] {
    for (const auto& event : to_a) h.transport->Send(sa, event);
  });
  EXPECT_EQ(sending_a.wait_for(std::chrono::milliseconds(200)), std::future_status::timeout)
      << "a has read nothing: its sender waits";
  std::vector<std::vector<uint8_t>> to_b;
  for (uint32_t i = 1; i <= kPacketsBehind; ++i) to_b.push_back(MakePacket(100 + i, 3));
  auto sending_b = std::async(std::launch::async, [&] {
    for (const auto& event : to_b) h.transport->Send(sb, event);
  });
  EXPECT_EQ(sending_b.wait_for(kWellUnderTheHoldBacks), std::future_status::ready)
      << "b's window is empty: a's full one holds none of b's events";
  ExpectReadInOrder(b, to_b);
  EXPECT_FALSE(h.transport->Flush(std::chrono::milliseconds(0))) << "a's packets are not written yet";
  ExpectReadInOrder(a, to_a);
  EXPECT_EQ(sending_a.wait_for(kWait), std::future_status::ready);
  EXPECT_TRUE(h.transport->Flush(kWait));
}

// timeout= (the accept timeout) runs only while no debugger at all is attached.
TEST(Sessions, AcceptTimeoutRunsOnlyOnceNoneIsAttached) {
  Config config = Harness::Sessions(2);
  config.timeout_ms = 100;
  Harness h(config);
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer a = h.AttachDebugger();
  Peer b = h.AttachDebugger();
  // On a loaded machine the timeout may have run out before the first attached.
  const size_t before = h.recorder.Locked([&] { return h.recorder.accept_failures.size(); });
  a.Close();
  ASSERT_TRUE(h.recorder.WaitDetached(1));
  auto failed = [&] { return h.recorder.accept_failures.size() > before; };
  // A bounded wait for what must not come: several times the timeout.
  EXPECT_FALSE(h.recorder.WaitFor(failed, std::chrono::milliseconds(10 * config.timeout_ms)))
      << "b is still attached";
  b.Close();
  ASSERT_TRUE(h.recorder.WaitDetached(2));
  ASSERT_TRUE(h.recorder.WaitFor(failed));
  EXPECT_THAT(h.recorder.Locked([&] { return h.recorder.accept_failures; }), ::testing::Each(kErrorTimeout));
}

// sessions=1 set explicitly is stock's one debugger: one more waits for the
// attached one's end (kWaitForSessionEndMs), then is closed with no handshake.
TEST(Sessions, OneWaitsForTheAttachedOneThenRefusesBeforeTheHandshake) {
  Harness h(Harness::Sessions(1));
  ASSERT_TRUE(h.transport);
  h.StartRun();
  Peer first = h.AttachDebugger();
  const auto start = std::chrono::steady_clock::now();
  Peer second = Peer::Connect(h.transport->port());
  ASSERT_TRUE(second.connected());
  ASSERT_TRUE(second.Write(kHandshake));
  EXPECT_FALSE(second.Read(kHandshake.size())) << "closed without the handshake's reply";
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(kWaitForSessionEndMs));
  ASSERT_TRUE(h.recorder.WaitWarnings(1));
  const std::string first_peer = h.recorder.Locked([&] { return h.recorder.attached[0]; });
  EXPECT_THAT(h.recorder.Locked([&] { return h.recorder.warnings[0]; }),
              ::testing::AllOf(::testing::StartsWith("Debugger failed to attach: refused 127.0.0.1:"),
                               ::testing::EndsWith(", a debugger is already attached (" + first_peer + ")")));
  ASSERT_TRUE(first.Write(MakePacket(8, 2)));
  ASSERT_TRUE(h.recorder.WaitPackets(1));
  h.Send(MakePacket(8, 4));
  EXPECT_THAT(ReadIds(first, 1), ElementsAre(8u));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.attached.size(); }), 1u);
}

TEST(Sessions, TwoOnAUnixSocketAndOneMoreRefused) {
  TempDir dir;
  const std::string path = dir.path + "/jdwp.sock";
  Harness h(Harness::Sessions(2, "unix:" + path));
  ASSERT_TRUE(h.transport);
  h.StartRun();
  auto connect = [&] { return ConnectUnix(path); };
  Peer a = h.AttachDebugger(connect);
  const uint64_t sa = h.LastSession();
  Peer b = h.AttachDebugger(connect);
  const uint64_t sb = h.LastSession();
  ASSERT_TRUE(b.Write(MakePacket(2, 0)));
  ASSERT_TRUE(a.Write(MakePacket(1, 0)));
  ASSERT_TRUE(h.recorder.WaitPackets(2));
  EXPECT_THAT(ArrivalsOf(h, sa), ElementsAre(1u));
  EXPECT_THAT(ArrivalsOf(h, sb), ElementsAre(2u));
  Peer third = ConnectUnix(path);
  ASSERT_TRUE(third.connected());
  EXPECT_TRUE(third.Handshake());
  EXPECT_TRUE(third.WaitClosed());
  ASSERT_TRUE(h.recorder.WaitWarnings(1));
  EXPECT_EQ(h.recorder.Locked([&] { return h.recorder.warnings[0]; }), kTwoTaken);
  h.transport->Send(sb, MakePacket(4, 1));
  h.transport->Send(sa, MakePacket(3, 1));
  EXPECT_THAT(ReadIds(a, 1), ElementsAre(3u));
  EXPECT_THAT(ReadIds(b, 1), ElementsAre(4u));
}

}  // namespace
}  // namespace jdwpx::transport
