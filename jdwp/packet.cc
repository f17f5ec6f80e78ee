#include "jdwp/packet.h"

#include <algorithm>
#include <string>

#include "jdwp/byte_order.h"

namespace jdwpx::jdwp {
namespace {

void PutU32(std::vector<uint8_t>& out, uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<uint8_t>(v >> shift));
}

// A reply's 11 header bytes at `out`: length, id, flags, error code.
void PutReplyHeader(uint8_t* out, size_t length, uint32_t id, ErrorCode error) {
  PutBigEndian(out, static_cast<uint32_t>(length));
  PutBigEndian(out + 4, id);
  out[8] = kReplyFlag;
  PutBigEndian(out + 9, static_cast<uint16_t>(error));
}

}  // namespace

Result<Packet> ParsePacket(std::span<const uint8_t> bytes) {
  if (bytes.size() < kHeaderSize) {
    return Fail(ErrorCode::kIllegalArgument, "packet shorter than its header (" + std::to_string(bytes.size()) + " bytes)");
  }
  const uint32_t length = GetBigEndian32(bytes.data());
  if (length < kHeaderSize) return Fail(ErrorCode::kIllegalArgument, "packet length field below 11: " + std::to_string(length));
  if (length != bytes.size()) {
    return Fail(ErrorCode::kIllegalArgument,
                "packet length field " + std::to_string(length) + " but " + std::to_string(bytes.size()) + " bytes");
  }
  Packet p;
  p.id = GetBigEndian32(bytes.data() + 4);
  p.flags = bytes[8];
  if (p.is_reply()) {
    p.error = static_cast<ErrorCode>((uint16_t{bytes[9]} << 8) | bytes[10]);
  } else {
    p.command_set = bytes[9];
    p.command = bytes[10];
  }
  p.data = bytes.subspan(kHeaderSize);
  return p;
}

std::vector<uint8_t> MakeCommandPacket(uint32_t id, CommandId command, std::span<const uint8_t> data) {
  std::vector<uint8_t> out;
  out.reserve(kHeaderSize + data.size());
  PutU32(out, static_cast<uint32_t>(kHeaderSize + data.size()));
  PutU32(out, id);
  out.push_back(0);
  out.push_back(static_cast<uint8_t>(command.set));
  out.push_back(command.command);
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

std::vector<uint8_t> MakeReplyPacketIn(uint32_t id, ErrorCode error, std::vector<uint8_t>&& room_and_body) {
  if (room_and_body.size() < kHeaderSize) return MakeReplyPacket(id, error, {});
  std::vector<uint8_t> out = std::move(room_and_body);
  PutReplyHeader(out.data(), out.size(), id, error);
  return out;
}

std::vector<uint8_t> MakeReplyHeader(uint32_t id, ErrorCode error, size_t body_size) {
  std::vector<uint8_t> out(kHeaderSize);
  PutReplyHeader(out.data(), kHeaderSize + body_size, id, error);
  return out;
}

std::vector<uint8_t> MakeReplyPacket(uint32_t id, ErrorCode error, std::span<const uint8_t> data) {
  std::vector<uint8_t> out(kHeaderSize + data.size());
  PutReplyHeader(out.data(), out.size(), id, error);
  std::copy(data.begin(), data.end(), out.begin() + kHeaderSize);
  return out;
}

}  // namespace jdwpx::jdwp
