// Packet header framing: golden bytes and every header parse error.
#include <gtest/gtest.h>

#include "jdwp/packet.h"

#include <algorithm>
#include "jdwp/tests/populate.h"

namespace jdwpx::jdwp {
namespace {

using testing::Bytes;

TEST(Packet, CommandGoldenAndParse) {
  auto data = Bytes({0, 0, 0, 0, 0, 0, 0, 0x1a, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff});
  auto packet = MakeCommandPacket(7, CommandId{CommandSet::kThreadReference, 6}, data);
  auto header = Bytes({0, 0, 0, 27, 0, 0, 0, 7, 0x00, 11, 6});
  ASSERT_EQ(packet.size(), 27u);
  EXPECT_EQ(std::vector<uint8_t>(packet.begin(), packet.begin() + 11), header);

  auto parsed = ParsePacket(packet);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_FALSE(parsed->is_reply());
  EXPECT_EQ(parsed->id, 7u);
  EXPECT_EQ(parsed->flags, 0);
  EXPECT_EQ(parsed->command_set, 11);
  EXPECT_EQ(parsed->command, 6);
  EXPECT_EQ(std::vector<uint8_t>(parsed->data.begin(), parsed->data.end()), data);
  EXPECT_EQ(parsed->data.data(), packet.data() + 11);  // points into the buffer
}

TEST(Packet, ReplyGoldenAndParse) {
  auto packet = MakeReplyPacket(0x01020304, ErrorCode::kInvalidThread, {});
  EXPECT_EQ(packet, Bytes({0, 0, 0, 11, 1, 2, 3, 4, 0x80, 0, 10}));
  auto parsed = ParsePacket(packet);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_TRUE(parsed->is_reply());
  EXPECT_EQ(parsed->id, 0x01020304u);
  EXPECT_EQ(parsed->error, ErrorCode::kInvalidThread);
  EXPECT_TRUE(parsed->data.empty());

  auto big_error = MakeReplyPacket(1, ErrorCode::kInvalidCount, Bytes({0xaa}));
  EXPECT_EQ(big_error, Bytes({0, 0, 0, 12, 0, 0, 0, 1, 0x80, 0x02, 0x00, 0xaa}));
  EXPECT_EQ(ParsePacket(big_error)->error, ErrorCode::kInvalidCount);
}

TEST(Packet, ShortBufferFails) {
  auto full = MakeCommandPacket(1, CommandId{CommandSet::kVirtualMachine, 1}, {});
  for (size_t n = 0; n < kHeaderSize; ++n) {
    auto r = ParsePacket(std::span<const uint8_t>(full.data(), n));
    ASSERT_FALSE(r.has_value()) << n;
    EXPECT_EQ(r.error().code, ErrorCode::kIllegalArgument);
  }
  EXPECT_TRUE(ParsePacket(full).has_value());
}

TEST(Packet, LengthFieldMustMatchBuffer) {
  auto packet = MakeCommandPacket(1, CommandId{CommandSet::kVirtualMachine, 1}, Bytes({1, 2, 3}));
  ASSERT_TRUE(ParsePacket(packet).has_value());
  auto longer = packet;
  longer.push_back(0);
  EXPECT_FALSE(ParsePacket(longer).has_value());
  auto shorter = packet;
  shorter.pop_back();
  EXPECT_FALSE(ParsePacket(shorter).has_value());
  auto below_header = packet;
  below_header[3] = 10;
  EXPECT_FALSE(ParsePacket(below_header).has_value());
  auto huge = packet;
  huge[0] = 0xff;
  EXPECT_FALSE(ParsePacket(huge).has_value());
}

TEST(Packet, Constants) {
  EXPECT_EQ(kHandshake, "JDWP-Handshake");
  EXPECT_EQ(kHandshake.size(), 14u);
  EXPECT_EQ(kHeaderSize, 11u);
  EXPECT_EQ(kReplyFlag, 0x80);
}

TEST(Packet, ReplyMadeInTheBodysRoomEqualsCopiedReply) {
  std::vector<uint8_t> body(300, 0x5c);
  auto expected = MakeReplyPacket(42, ErrorCode::kNone, body);
  std::vector<uint8_t> room_and_body(kHeaderSize + body.size(), 0);
  std::copy(body.begin(), body.end(), room_and_body.begin() + kHeaderSize);
  const uint8_t* storage = room_and_body.data();
  auto packet = MakeReplyPacketIn(42, ErrorCode::kNone, std::move(room_and_body));
  EXPECT_EQ(packet, expected);
  EXPECT_EQ(packet.data(), storage) << "made in place, not moved";
  // The room alone: a reply without a body; nothing at all: the same.
  EXPECT_EQ(MakeReplyPacketIn(5, ErrorCode::kNone, std::vector<uint8_t>(kHeaderSize)), MakeReplyPacket(5, ErrorCode::kNone, {}));
  EXPECT_EQ(MakeReplyPacketIn(7, ErrorCode::kInvalidThread, {}), MakeReplyPacket(7, ErrorCode::kInvalidThread, {}));
}

// A streamed reply's header, then its body, is the reply made whole.
TEST(Packet, ReplyHeaderThenBodyEqualsTheWholeReply) {
  std::vector<uint8_t> body(70000, 0x3b);
  auto packet = MakeReplyHeader(0x0a0b0c0d, ErrorCode::kNone, body.size());
  ASSERT_EQ(packet.size(), kHeaderSize);
  packet.insert(packet.end(), body.begin(), body.end());
  EXPECT_EQ(packet, MakeReplyPacket(0x0a0b0c0d, ErrorCode::kNone, body));
}

}  // namespace
}  // namespace jdwpx::jdwp
