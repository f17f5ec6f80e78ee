#include "backend/commands/dispatcher.h"

namespace jdwpx::backend {

void Responder::Stream(std::unique_ptr<ReplySource> source) const {
  if (streamed) {
    streamed(std::move(source));
    return;
  }
  ReplySource& body = *source;
  std::vector<uint8_t> room_and_body(jdwp::kHeaderSize);
  room_and_body.reserve(jdwp::kHeaderSize + body.size());
  while (room_and_body.size() < jdwp::kHeaderSize + body.size()) {
    const size_t before = room_and_body.size();
    if (!body.Next(jdwp::kHeaderSize + body.size() - before, room_and_body) || room_and_body.size() == before) {
      whole(jdwp::ErrorCode::kInternal, {});
      return;
    }
  }
  whole(jdwp::ErrorCode::kNone, std::move(room_and_body));
}

void Dispatcher::Dispatch(const jdwp::Packet& packet, bool vm_dead, Responder respond) const {
  if (vm_dead && packet.command_set != static_cast<uint8_t>(jdwp::CommandSet::kVirtualMachine)) {
    respond(jdwp::ErrorCode::kVmDead, {});
    return;
  }
  if (auto a = async_.find(Key(packet.command_set, packet.command)); a != async_.end()) {
    a->second(packet.id, packet.data, std::move(respond));
    return;
  }
  auto it = table_.find(Key(packet.command_set, packet.command));
  if (it == table_.end()) {
    respond(jdwp::ErrorCode::kNotImplemented, {});
    return;
  }
  it->second(packet.data, std::move(respond));
}

}  // namespace jdwpx::backend
