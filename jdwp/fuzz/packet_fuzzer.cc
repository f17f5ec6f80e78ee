// libFuzzer target: arbitrary bytes through packet parsing, every command's
// Request decoder, the select layouts, the context helpers and the printer.
// Invariant checked besides "no crash": whatever decodes re-encodes to bytes that
// decode again to the same encoding.
#include <cstdint>
#include <cstdlib>
#include <span>

#include "jdwp/codec.h"
#include "jdwp/commands/all.h"
#include "jdwp/packet.h"
#include "jdwp/print.h"

namespace {

using namespace jdwpx::jdwp;

template <class T>
void DecodeAndRecheck(std::span<const uint8_t> body) {
  auto decoded = DecodeBody<T>(body);
  if (!decoded) return;
  (void)Describe(*decoded);
  const std::vector<uint8_t> once = EncodeBody(*decoded);
  auto again = DecodeBody<T>(once);
  if (!again || EncodeBody(*again) != once) std::abort();
}

// Decodes `body` as the Request (and Reply) of the command (set, command).
void DecodeAsCommand(uint8_t set, uint8_t command, std::span<const uint8_t> body) {
  VisitCommand(set, command, [&]<class C>(std::type_identity<C>) {
    DecodeAndRecheck<typename C::Request>(body);
    DecodeAndRecheck<typename C::Reply>(body);
  });
}

void DecodeTails(std::span<const uint8_t> body) {
  if (body.empty()) return;
  const auto tag = static_cast<Tag>(body[0]);
  (void)DecodeUntaggedValues(body.subspan(1), tag);
  (void)DecodeFieldValues(body.subspan(1), [&](FieldId field) -> Result<Tag> {
    if (field.value == 0) return Fail(ErrorCode::kInvalidFieldid);
    return static_cast<Tag>(field.value & 0xff);
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> input(data, size);
  (void)DescribePacket(input);
  auto packet = ParsePacket(input);
  if (packet) {
    if (packet->is_reply()) {
      // A reply does not name its command; let the id pick one.
      DecodeAsCommand(static_cast<uint8_t>(packet->id >> 8), static_cast<uint8_t>(packet->id), packet->data);
    } else {
      DecodeAsCommand(packet->command_set, packet->command, packet->data);
      (void)DescribeCommandData(packet->command_set, packet->command, packet->data);
    }
    return 0;
  }
  // Not a well-framed packet: still exercise the body decoders, so the fuzzer
  // need not first learn to get the length field right. Two leading bytes pick the command.
  if (size >= 2) DecodeAsCommand(data[0], data[1], input.subspan(2));
  DecodeAndRecheck<Event::Composite::Request>(input);
  DecodeAndRecheck<EventRequest::Set::Request>(input);
  DecodeAndRecheck<ArrayRegion>(input);
  DecodeAndRecheck<Value>(input);
  DecodeTails(input);
  return 0;
}
