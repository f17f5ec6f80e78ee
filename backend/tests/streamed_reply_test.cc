// A streamed reply (streamed_reply.h) against a transport that records what it
// is given: header and parts byte for byte; a first part that cannot be made
// sends nothing and names the error to answer with; a later one leaves the
// packet unfinished (the transport then ends the session).
#include "backend/session/streamed_reply.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <memory>
#include <new>
#include <stdexcept>
#include <vector>

#include "jdwp/packet.h"

namespace jdwpx::backend {
namespace {

using jdwp::ErrorCode;

// Records Send() packets and the parts of SendInParts, and whether a packet
// in parts was left unfinished.
class RecordingTransport final : public transport::Transport {
 public:
  struct InParts {
    uint64_t session = 0;
    size_t length = 0;
    std::vector<uint8_t> bytes;
    bool finished = false;
  };
  class Writer final : public transport::PacketWriter {
   public:
    Writer(RecordingTransport& t, InParts& p, bool resumable) : t_(t), p_(p), resumable_(resumable) {}
    ~Writer() override { p_.finished = p_.bytes.size() == p_.length; }
    bool Write(std::vector<uint8_t> part) override {
      p_.bytes.insert(p_.bytes.end(), part.begin(), part.end());
      ++t_.parts_written;
      return t_.parts_written < t_.session_ends_after_parts;
    }
    // Full after every `full_every` parts given, until the test makes room.
    bool Full() override {
      return resumable_ && t_.full_every > 0 && t_.parts_written > 0 && t_.parts_written % t_.full_every == 0 &&
             t_.parts_written != t_.room_at;
    }

   private:
    RecordingTransport& t_;
    InParts& p_;
    const bool resumable_;
  };

  uint16_t port() const override { return 0; }
  tl::expected<void, transport::TransportError> Attach() override { return {}; }
  tl::expected<void, transport::TransportError> Accept() override { return {}; }
  void Run() override {}
  void Send(uint64_t, std::vector<uint8_t> packet) override { sent.push_back(std::move(packet)); }
  std::unique_ptr<transport::PacketWriter> SendInParts(uint64_t session, size_t length,
                                                       std::function<void()> on_room) override {
    in_parts.push_back(std::make_unique<InParts>(InParts{session, length, {}, false}));
    return std::make_unique<Writer>(*this, *in_parts.back(), on_room != nullptr);
  }
  bool Flush(std::chrono::milliseconds) override { return true; }
  void CloseConnection(uint64_t) override {}
  void Shutdown() override {}

  std::vector<std::vector<uint8_t>> sent;
  std::vector<std::unique_ptr<InParts>> in_parts;
  size_t parts_written = 0;
  size_t session_ends_after_parts = SIZE_MAX;
  size_t full_every = 0;  // 0: never Full()
  size_t room_at = 0;     // Full() no longer after this many parts (room made)
};

// A body of `size` bytes, byte i = uint8_t(i * 7), made as the transport asks;
// the `fail_at`-th call to Next (0: the first) fails, by returning false or by
// throwing `thrown`.
class PatternSource final : public ReplySource {
 public:
  enum class How { kFalse, kBadAlloc, kOtherException };
  PatternSource(size_t size, size_t fail_at = SIZE_MAX, How how = How::kFalse)
      : size_(size), fail_at_(fail_at), how_(how) {}
  size_t size() const override { return size_; }
  bool Next(size_t room, std::vector<uint8_t>& out) override {
    if (calls_++ == fail_at_) {
      if (how_ == How::kBadAlloc) throw std::bad_alloc();
      if (how_ == How::kOtherException) throw std::runtime_error("broken");
      return false;
    }
    const size_t n = std::min(room, size_ - made_);
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>((made_ + i) * 7));
    made_ += n;
    return true;
  }
  size_t calls() const { return calls_; }

 private:
  size_t size_, fail_at_;
  How how_;
  size_t made_ = 0, calls_ = 0;
};

constexpr size_t kBody = 3 * kReplyPartSize + 1000;  // four parts

TEST(StreamedReply, HeaderThenEveryPartContiguous) {
  RecordingTransport t;
  PatternSource body(kBody);
  EXPECT_EQ(SendStreamedReply(t, 5, 42, body), std::nullopt);
  EXPECT_TRUE(t.sent.empty());
  ASSERT_EQ(t.in_parts.size(), 1u);
  const auto& p = *t.in_parts[0];
  EXPECT_EQ(p.session, 5u);
  EXPECT_EQ(p.length, jdwp::kHeaderSize + kBody);
  EXPECT_TRUE(p.finished);
  EXPECT_EQ(t.parts_written, 4u) << "parts of kReplyPartSize, the header in the first";
  const auto header = jdwp::MakeReplyHeader(42, ErrorCode::kNone, kBody);
  ASSERT_EQ(p.bytes.size(), jdwp::kHeaderSize + kBody);
  EXPECT_TRUE(std::equal(header.begin(), header.end(), p.bytes.begin()));
  for (size_t i = 0; i < kBody; ++i) ASSERT_EQ(p.bytes[jdwp::kHeaderSize + i], static_cast<uint8_t>(i * 7)) << i;
}

// Nothing on the wire yet: the caller answers with an error reply instead,
// and the session goes on.
TEST(StreamedReply, AFirstPartThatFailsSendsNothingAndNamesTheError) {
  const std::pair<PatternSource::How, ErrorCode> cases[] = {
      {PatternSource::How::kFalse, ErrorCode::kInternal},
      {PatternSource::How::kBadAlloc, ErrorCode::kOutOfMemory},
      {PatternSource::How::kOtherException, ErrorCode::kInternal},
  };
  for (auto [how, want] : cases) {
    RecordingTransport t;
    PatternSource body(kBody, 0, how);
    EXPECT_EQ(SendStreamedReply(t, 5, 42, body), want);
    EXPECT_TRUE(t.sent.empty());
    EXPECT_TRUE(t.in_parts.empty()) << "the transport never heard of the reply";
  }
}

// The header (NONE) is out: the packet is left unfinished, which ends the
// session (the debugger would wait forever for the rest).
TEST(StreamedReply, ALaterPartThatFailsLeavesThePacketUnfinished) {
  RecordingTransport t;
  PatternSource body(kBody, 2);
  EXPECT_EQ(SendStreamedReply(t, 5, 42, body), std::nullopt);
  ASSERT_EQ(t.in_parts.size(), 1u);
  EXPECT_FALSE(t.in_parts[0]->finished);
  EXPECT_EQ(t.in_parts[0]->bytes.size(), 2 * kReplyPartSize);
  EXPECT_TRUE(t.sent.empty());
}

// The session ends mid-reply: no more parts are made.
TEST(StreamedReply, StopsMakingPartsWhenTheSessionEnds) {
  RecordingTransport t;
  t.session_ends_after_parts = 2;
  PatternSource body(kBody);
  EXPECT_EQ(SendStreamedReply(t, 5, 42, body), std::nullopt);
  EXPECT_EQ(t.parts_written, 2u);
  EXPECT_EQ(body.calls(), 2u);
}

// With an on_room the reply parks when the writer is Full(), making no part
// meanwhile, and goes on where it stopped when called again: the same bytes.
TEST(StreamedReply, ParksWhenTheWindowIsFullAndGoesOnWhereItStopped) {
  RecordingTransport t;
  t.full_every = 2;
  PatternSource body(kBody);
  StreamedReply reply(42, body);
  bool rung = false;
  ASSERT_EQ(reply.Start(t, 5, [&] { rung = true; }), std::nullopt);
  EXPECT_TRUE(reply.Continue()) << "parked after two parts";
  EXPECT_EQ(t.parts_written, 2u);
  EXPECT_EQ(body.calls(), 2u) << "no part made ahead while parked";
  EXPECT_TRUE(reply.Continue()) << "still full: parked again, nothing given";
  EXPECT_EQ(t.parts_written, 2u);
  t.room_at = 2;
  EXPECT_FALSE(reply.Continue()) << "the last two parts given";
  EXPECT_EQ(t.parts_written, 4u);
  EXPECT_FALSE(rung) << "the transport calls back, the reply does not";
  ASSERT_EQ(t.in_parts.size(), 1u);
  const auto& p = *t.in_parts[0];
  ASSERT_EQ(p.bytes.size(), jdwp::kHeaderSize + kBody);
  for (size_t i = 0; i < kBody; ++i) ASSERT_EQ(p.bytes[jdwp::kHeaderSize + i], static_cast<uint8_t>(i * 7)) << i;
}

// Without an on_room (one debugger) the reply never parks, whatever the writer says.
TEST(StreamedReply, WithoutACallBackItGivesEveryPart) {
  RecordingTransport t;
  t.full_every = 1;
  PatternSource body(kBody);
  EXPECT_EQ(SendStreamedReply(t, 5, 42, body), std::nullopt);
  EXPECT_EQ(t.parts_written, 4u);
  EXPECT_TRUE(t.in_parts[0]->finished);
}

TEST(StreamedReply, AnEmptyBodyIsItsHeader) {
  RecordingTransport t;
  PatternSource body(0);
  EXPECT_EQ(SendStreamedReply(t, 5, 42, body), std::nullopt);
  ASSERT_EQ(t.in_parts.size(), 1u);
  EXPECT_EQ(t.in_parts[0]->bytes, jdwp::MakeReplyHeader(42, ErrorCode::kNone, 0));
  EXPECT_TRUE(t.in_parts[0]->finished);
}

}  // namespace
}  // namespace jdwpx::backend
