#include "backend/streamed_reply.h"

#include <exception>
#include <utility>
#include <vector>

#include "backend/log.h"
#include "jdwp/packet.h"

namespace jdwpx::backend {

void SendStreamedReply(transport::Transport& transport, uint64_t session, uint32_t id, ReplySource& body) {
  const size_t size = body.size();
  std::unique_ptr<transport::PacketWriter> writer = transport.SendInParts(session, jdwp::kHeaderSize + size);
  std::vector<uint8_t> part = jdwp::MakeReplyHeader(id, jdwp::ErrorCode::kNone, size);
  part.reserve(kReplyPartSize);
  size_t made = 0;
  while (made < size) {
    const size_t before = part.size();
    bool ok = false;
    try {
      ok = body.Next(kReplyPartSize - before, part) && part.size() > before;
    } catch (const std::exception& e) {
      Log().error("reply id={}: {}", id, e.what());  // out of memory for a part
    }
    if (!ok) {
      // The header said NONE; a short reply would leave the debugger waiting
      // for the rest. The writer, dropped unfinished, ends the session.
      Log().error("reply id={} could not be finished after {} of {} bytes: ending the session", id, made, size);
      return;
    }
    made += part.size() - before;
    if (!writer->Write(std::move(part))) {
      Log().debug("reply id={}: the session ended after {} of {} bytes", id, made, size);
      return;
    }
    part = {};
    if (made < size) part.reserve(kReplyPartSize);
  }
  if (size == 0) (void)writer->Write(std::move(part));
}

}  // namespace jdwpx::backend
