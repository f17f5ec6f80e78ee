// The dispatcher's protocol edges, bytes in and bytes out: a handler's reply
// body, error replies without a body, NOT_IMPLEMENTED, VM_DEAD, malformed bodies.
#include "backend/commands/dispatcher.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>

#include "jdwp/commands/array_reference.h"
#include "jdwp/commands/reference_type.h"
#include "jdwp/commands/virtual_machine.h"

namespace jdwpx::backend {
namespace {

namespace VM = jdwp::VirtualMachine;
namespace RT = jdwp::ReferenceType;
using jdwp::ErrorCode;

struct Answer {
  ErrorCode error;
  std::vector<uint8_t> body;
};

class DispatcherTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dispatcher_.Bind<VM::IDSizes>([](const VM::IDSizes::Request&) -> jdwp::Result<VM::IDSizes::Reply> {
      return VM::IDSizes::Reply{8, 8, 8, 8, 8};
    });
    dispatcher_.Bind<RT::Signature>([this](const RT::Signature::Request& req) -> jdwp::Result<RT::Signature::Reply> {
      last_type_ = req.ref_type.value;
      if (req.ref_type.value == 0) return jdwp::Fail(ErrorCode::kInvalidClass, "null type");
      return RT::Signature::Reply{"Ljava/lang/String;"};
    });
  }

  // Runs one command packet, built from raw bytes, and returns its single answer.
  Answer Run(uint8_t set, uint8_t command, std::vector<uint8_t> data, bool vm_dead = false) {
    auto bytes = jdwp::MakeCommandPacket(7, jdwp::CommandId{static_cast<jdwp::CommandSet>(set), command}, data);
    auto packet = jdwp::ParsePacket(bytes);
    EXPECT_TRUE(packet.has_value());
    std::optional<Answer> answer;
    int calls = 0;
    dispatcher_.Dispatch(*packet, vm_dead, [&](ErrorCode error, std::vector<uint8_t> body) {
      ++calls;
      // The body comes after room for the packet header (Responder).
      if (!body.empty()) {
        EXPECT_GE(body.size(), jdwp::kHeaderSize);
        body.erase(body.begin(), body.begin() + jdwp::kHeaderSize);
      }
      answer = Answer{error, std::move(body)};
    });
    EXPECT_EQ(calls, 1) << "a command is answered exactly once";
    return answer.value_or(Answer{ErrorCode::kNone, {}});
  }

  Dispatcher dispatcher_;
  uint64_t last_type_ = ~0ull;
};

TEST_F(DispatcherTest, ReplyBodyIsTheEncodedReply) {
  auto a = Run(1, 7, {});
  EXPECT_EQ(a.error, ErrorCode::kNone);
  std::vector<uint8_t> expected;
  for (int i = 0; i < 5; ++i) expected.insert(expected.end(), {0, 0, 0, 8});
  EXPECT_EQ(a.body, expected);
}

TEST_F(DispatcherTest, RequestIsDecodedFromTheData) {
  auto a = Run(2, 1, {0, 0, 0, 0, 0, 0, 0x01, 0x02});
  EXPECT_EQ(last_type_, 0x0102u);
  EXPECT_EQ(a.error, ErrorCode::kNone);
  std::vector<uint8_t> expected{0, 0, 0, 18};
  for (char ch : std::string("Ljava/lang/String;")) expected.push_back(static_cast<uint8_t>(ch));
  EXPECT_EQ(a.body, expected);
}

TEST_F(DispatcherTest, HandlerErrorGivesItsCodeAndNoBody) {
  auto a = Run(2, 1, std::vector<uint8_t>(8, 0));
  EXPECT_EQ(a.error, ErrorCode::kInvalidClass);
  EXPECT_TRUE(a.body.empty());
}

TEST_F(DispatcherTest, UnknownCommandsAreNotImplemented) {
  EXPECT_EQ(Run(1, 99, {}).error, ErrorCode::kNotImplemented);
  EXPECT_EQ(Run(200, 1, {}).error, ErrorCode::kNotImplemented);
  EXPECT_EQ(Run(2, 2, std::vector<uint8_t>(8, 0)).error, ErrorCode::kNotImplemented);
  EXPECT_TRUE(dispatcher_.Has(1, 7));
  EXPECT_FALSE(dispatcher_.Has(2, 2));
}

TEST_F(DispatcherTest, ShortBodyIsAnErrorAndTheHandlerDoesNotRun) {
  for (size_t len = 0; len < 8; ++len) {
    last_type_ = ~0ull;
    auto a = Run(2, 1, std::vector<uint8_t>(len, 1));
    EXPECT_EQ(a.error, kMalformedBody) << "length " << len;
    EXPECT_TRUE(a.body.empty());
    EXPECT_EQ(last_type_, ~0ull) << "handler ran on a short body of " << len;
  }
}

// A negative repeat count is a malformed body (kMalformedBody), except in
// the requests whose spec names ILLEGAL_ARGUMENT for it (kNegativeCountIsIllegal).
TEST_F(DispatcherTest, NegativeCountIsIllegalArgumentOnlyWhereTheCommandSaysSo) {
  bool ran = false;
  dispatcher_.Bind<VM::InstanceCounts>([&](const VM::InstanceCounts::Request&) -> jdwp::Result<VM::InstanceCounts::Reply> {
    ran = true;
    return VM::InstanceCounts::Reply{};
  });
  dispatcher_.Bind<VM::DisposeObjects>([&](const VM::DisposeObjects::Request&) -> jdwp::Result<VM::DisposeObjects::Reply> {
    ran = true;
    return VM::DisposeObjects::Reply{};
  });
  const std::vector<uint8_t> minus_one = {0xff, 0xff, 0xff, 0xff};
  EXPECT_EQ(Run(1, 21, minus_one).error, ErrorCode::kIllegalArgument);  // InstanceCounts
  EXPECT_EQ(Run(1, 14, minus_one).error, ErrorCode::kInternal);         // DisposeObjects
  EXPECT_EQ(Run(1, 21, {0, 0, 0, 2}).error, ErrorCode::kInternal);      // a count past the end stays malformed
  EXPECT_FALSE(ran);
}

TEST_F(DispatcherTest, TrailingBytesAreTolerated) {
  // As stock: extra data after a complete request is ignored.
  auto a = Run(2, 1, {0, 0, 0, 0, 0, 0, 0, 5, 0xff, 0xff});
  EXPECT_EQ(a.error, ErrorCode::kNone);
  EXPECT_EQ(last_type_, 5u);
}

TEST_F(DispatcherTest, AfterVmDeathOnlyTheVirtualMachineSetAnswers) {
  EXPECT_EQ(Run(1, 7, {}, /*vm_dead=*/true).error, ErrorCode::kNone);
  last_type_ = ~0ull;
  EXPECT_EQ(Run(2, 1, std::vector<uint8_t>(8, 1), /*vm_dead=*/true).error, ErrorCode::kVmDead);
  EXPECT_EQ(last_type_, ~0ull);
  EXPECT_EQ(Run(64, 100, {}, /*vm_dead=*/true).error, ErrorCode::kVmDead);
}

TEST_F(DispatcherTest, AsyncHandlersReplyLaterWithTheRequestId) {
  std::optional<Dispatcher::Later<VM::IDSizes::Reply>> pending;
  dispatcher_.BindAsync<VM::IDSizes>(
      [&](const VM::IDSizes::Request&, Dispatcher::Later<VM::IDSizes::Reply> later) { pending = later; });
  auto bytes = jdwp::MakeCommandPacket(0x01020304, VM::IDSizes::kId, {});
  auto packet = jdwp::ParsePacket(bytes);
  ASSERT_TRUE(packet.has_value());
  int calls = 0;
  dispatcher_.Dispatch(*packet, false, [&](ErrorCode, std::vector<uint8_t>) { ++calls; });
  EXPECT_EQ(calls, 0) << "nothing is sent until the handler is ready";
  ASSERT_TRUE(pending.has_value());
  auto reply = pending->Packet(VM::IDSizes::Reply{1, 2, 3, 4, 5});
  auto parsed = jdwp::ParsePacket(reply);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_TRUE(parsed->is_reply());
  EXPECT_EQ(parsed->id, 0x01020304u);
  EXPECT_EQ(parsed->error, ErrorCode::kNone);
  EXPECT_EQ(parsed->data.size(), 20u);
  EXPECT_EQ(parsed->data[19], 5);
}

// A body made in pieces of at most `piece` bytes: byte i is uint8_t(i * 7).
class PatternSource final : public ReplySource {
 public:
  PatternSource(size_t size, size_t piece, size_t fail_at = SIZE_MAX) : size_(size), piece_(piece), fail_at_(fail_at) {}
  size_t size() const override { return size_; }
  bool Next(size_t room, std::vector<uint8_t>& out) override {
    if (made_ >= fail_at_) return false;
    const size_t n = std::min({room, piece_, size_ - made_});
    for (size_t i = 0; i < n; ++i) out.push_back(static_cast<uint8_t>((made_ + i) * 7));
    made_ += n;
    return true;
  }

 private:
  size_t size_, piece_, fail_at_, made_ = 0;
};

namespace AR = jdwp::ArrayReference;

// Streamed replies: the handler's errors come first, as with Bind; a source
// goes to the streamed sender, or is made whole where there is none.
TEST_F(DispatcherTest, StreamedHandlersGiveTheirSourceOrAWholeReply) {
  size_t size = 0;
  size_t fail_at = SIZE_MAX;
  dispatcher_.BindStreamed<AR::GetValues>(
      [&](const AR::GetValues::Request& req) -> jdwp::Result<Streamable<AR::GetValues::Reply>> {
        if (req.first_index < 0) return jdwp::Fail(ErrorCode::kInvalidIndex, "negative");
        if (size == 0) {
          jdwp::ArrayRegion region;
          region.tag = jdwp::Tag::kInt;
          region.values = {jdwp::Value::Int(7)};
          return AR::GetValues::Reply{std::move(region)};
        }
        return std::make_unique<PatternSource>(size, 1000, fail_at);
      });
  auto request = [](int32_t first) {
    std::vector<uint8_t> data(8, 0);
    data[7] = 1;
    for (int shift = 24; shift >= 0; shift -= 8) data.push_back(static_cast<uint8_t>(first >> shift));
    for (int i = 0; i < 4; ++i) data.push_back(0xff);
    return data;
  };
  EXPECT_EQ(Run(13, 2, request(-1)).error, ErrorCode::kInvalidIndex);
  // Small: built whole, as with Bind.
  auto small = Run(13, 2, request(0));
  EXPECT_EQ(small.error, ErrorCode::kNone);
  EXPECT_EQ(small.body, (std::vector<uint8_t>{'I', 0, 0, 0, 1, 0, 0, 0, 7}));
  // No streamed sender: made whole from the source.
  size = 5000;
  auto whole = Run(13, 2, request(0));
  EXPECT_EQ(whole.error, ErrorCode::kNone);
  ASSERT_EQ(whole.body.size(), 5000u);
  for (size_t i = 0; i < whole.body.size(); ++i) ASSERT_EQ(whole.body[i], static_cast<uint8_t>(i * 7)) << i;
  fail_at = 3000;
  EXPECT_EQ(Run(13, 2, request(0)).error, ErrorCode::kInternal) << "a source that fails before anything is sent";
  // With one: the sender gets the source, and nothing goes the whole way.
  fail_at = SIZE_MAX;
  auto bytes = jdwp::MakeCommandPacket(9, AR::GetValues::kId, request(0));
  auto packet = jdwp::ParsePacket(bytes);
  ASSERT_TRUE(packet.has_value());
  int whole_calls = 0;
  size_t streamed_size = 0;
  dispatcher_.Dispatch(*packet, false,
                       Responder([&](ErrorCode, std::vector<uint8_t>) { ++whole_calls; },
                                 [&](std::unique_ptr<ReplySource> source) { streamed_size = source->size(); }));
  EXPECT_EQ(whole_calls, 0);
  EXPECT_EQ(streamed_size, 5000u);
}

}  // namespace
}  // namespace jdwpx::backend
