#include "backend/session/streamed_reply.h"

#include <exception>
#include <new>
#include <utility>
#include <vector>

#include "backend/log.h"
#include "jdwp/packet.h"

namespace jdwpx::backend {
namespace {

// Appends the body's next bytes to `part` (the header already, for the
// first), up to kReplyPartSize in all. NONE, or why they could not be made.
jdwp::ErrorCode MakePart(uint32_t id, ReplySource& body, std::vector<uint8_t>& part) {
  const size_t before = part.size();
  try {
    part.reserve(kReplyPartSize);
    if (body.Next(kReplyPartSize - before, part) && part.size() > before) return jdwp::ErrorCode::kNone;
    return jdwp::ErrorCode::kInternal;
  } catch (const std::bad_alloc& e) {
    Log().error("reply id={}: {}", id, e.what());
    return jdwp::ErrorCode::kOutOfMemory;
  } catch (const std::exception& e) {
    Log().error("reply id={}: {}", id, e.what());
    return jdwp::ErrorCode::kInternal;
  }
}

}  // namespace

std::optional<jdwp::ErrorCode> SendStreamedReply(transport::Transport& transport, uint64_t session, uint32_t id,
                                                 ReplySource& body) {
  const size_t size = body.size();
  std::vector<uint8_t> part = jdwp::MakeReplyHeader(id, jdwp::ErrorCode::kNone, size);
  // The first part before the transport hears of the reply: while nothing is
  // on the wire, a failure can still be answered with an error reply.
  if (size > 0) {
    if (const jdwp::ErrorCode error = MakePart(id, body, part); error != jdwp::ErrorCode::kNone) {
      Log().error("reply id={}: its first part could not be made: answering {}", id, jdwp::ErrorName(error));
      return error;
    }
  }
  size_t made = part.size() - jdwp::kHeaderSize;
  if (made > size) {
    Log().error("reply id={}: its first part overran the body's size ({} bytes): answering INTERNAL", id, size);
    return jdwp::ErrorCode::kInternal;
  }
  std::unique_ptr<transport::PacketWriter> writer = transport.SendInParts(session, jdwp::kHeaderSize + size);
  for (;;) {
    if (!writer->Write(std::move(part))) {
      Log().debug("reply id={}: the session ended after {} of {} bytes", id, made, size);
      return std::nullopt;
    }
    if (made == size) return std::nullopt;
    part = {};
    if (MakePart(id, body, part) != jdwp::ErrorCode::kNone || made + part.size() > size) {
      // The header said NONE; a short reply would leave the debugger waiting
      // for the rest. The writer, dropped unfinished, ends the session.
      Log().error("reply id={} could not be finished after {} of {} bytes: ending the session", id, made, size);
      return std::nullopt;
    }
    made += part.size();
  }
}

}  // namespace jdwpx::backend
