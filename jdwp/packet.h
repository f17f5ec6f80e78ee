// JDWP packet framing: the 11-byte header of commands and replies.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "jdwp/error.h"

namespace jdwpx::jdwp {

enum class CommandSet : uint8_t {
  kVirtualMachine = 1,
  kReferenceType = 2,
  kClassType = 3,
  kArrayType = 4,
  kInterfaceType = 5,
  kMethod = 6,
  kField = 8,
  kObjectReference = 9,
  kStringReference = 10,
  kThreadReference = 11,
  kThreadGroupReference = 12,
  kArrayReference = 13,
  kClassLoaderReference = 14,
  kEventRequest = 15,
  kStackFrame = 16,
  kClassObjectReference = 17,
  kModuleReference = 18,
  kEvent = 64,
  // jdwpx's own (a vendor set, >= 128): probes evaluated in the agent (commands/probe.h).
  kProbe = 128,
};

struct CommandId {
  CommandSet set;
  uint8_t command;
  friend constexpr bool operator==(const CommandId&, const CommandId&) = default;
};

inline constexpr size_t kHeaderSize = 11;
inline constexpr uint8_t kReplyFlag = 0x80;
inline constexpr std::string_view kHandshake = "JDWP-Handshake";

// A parsed packet; `data` points into the buffer it was parsed from.
struct Packet {
  uint32_t id = 0;
  uint8_t flags = 0;
  // Command packets:
  uint8_t command_set = 0;
  uint8_t command = 0;
  // Reply packets:
  ErrorCode error = ErrorCode::kNone;
  std::span<const uint8_t> data;

  bool is_reply() const { return (flags & kReplyFlag) != 0; }
};

// Parses one whole packet (header included). Fails on a short buffer or a
// length field that disagrees with the buffer.
Result<Packet> ParsePacket(std::span<const uint8_t> bytes);

std::vector<uint8_t> MakeCommandPacket(uint32_t id, CommandId command, std::span<const uint8_t> data);
std::vector<uint8_t> MakeReplyPacket(uint32_t id, ErrorCode error, std::span<const uint8_t> data);
// The packet made in `room_and_body` itself: its first kHeaderSize bytes are
// room for the header (EncodeBody(reply, kHeaderSize)), so the body, however
// large, is neither copied nor moved. Empty: a reply without a body.
std::vector<uint8_t> MakeReplyPacketIn(uint32_t id, ErrorCode error, std::vector<uint8_t>&& room_and_body);
// The header alone of a reply whose body of `body_size` bytes follows in parts
// (a streamed reply): the same 11 bytes MakeReplyPacket puts first.
std::vector<uint8_t> MakeReplyHeader(uint32_t id, ErrorCode error, size_t body_size);

}  // namespace jdwpx::jdwp
