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

std::optional<jdwp::ErrorCode> StreamedReply::Start(transport::Transport& transport, uint64_t session,
                                                   std::function<void()> on_room) {
  size_ = body_.size();
  part_ = jdwp::MakeReplyHeader(id_, jdwp::ErrorCode::kNone, size_);
  // The first part before the transport hears of the reply: while nothing is
  // on the wire, a failure can still be answered with an error reply.
  if (size_ > 0) {
    if (const jdwp::ErrorCode error = MakePart(id_, body_, part_); error != jdwp::ErrorCode::kNone) {
      Log().error("reply id={}: its first part could not be made: answering {}", id_, jdwp::ErrorName(error));
      return error;
    }
  }
  made_ = part_.size() - jdwp::kHeaderSize;
  if (made_ > size_) {
    Log().error("reply id={}: its first part overran the body's size ({} bytes): answering INTERNAL", id_, size_);
    return jdwp::ErrorCode::kInternal;
  }
  writer_ = transport.SendInParts(session, jdwp::kHeaderSize + size_, std::move(on_room));
  return std::nullopt;
}

bool StreamedReply::Continue() {
  if (!writer_) return false;
  for (;;) {
    if (!part_.empty()) {
      if (!writer_->Write(std::move(part_))) {
        Log().debug("reply id={}: the session ended after {} of {} bytes", id_, made_, size_);
        return false;
      }
      part_ = {};
      if (made_ == size_) {
        if (auto* log = PacketTraceLog()) {
          log->trace("-> reply id={} NONE len={} (in parts)", id_, jdwp::kHeaderSize + size_);
        }
        return false;
      }
    }
    // Parked: the debugger has more than the window unread.
    if (writer_->Full()) return true;
    if (MakePart(id_, body_, part_) != jdwp::ErrorCode::kNone || made_ + part_.size() > size_) {
      // The header said NONE; a short reply would leave the debugger waiting
      // for the rest. The writer, dropped unfinished, ends the session.
      Log().error("reply id={} could not be finished after {} of {} bytes: ending the session", id_, made_, size_);
      part_ = {};
      writer_.reset();
      return false;
    }
    made_ += part_.size();
  }
}

std::optional<jdwp::ErrorCode> SendStreamedReply(transport::Transport& transport, uint64_t session, uint32_t id,
                                                 ReplySource& body) {
  StreamedReply reply(id, body);
  if (auto error = reply.Start(transport, session)) return error;
  // Without an on_room the writer is never Full(): one call gives every part.
  (void)reply.Continue();
  return std::nullopt;
}

}  // namespace jdwpx::backend
