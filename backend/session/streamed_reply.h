// Sending a reply whose body is made while it is sent (reply_source.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "backend/values/reply_source.h"
#include "jdwp/error.h"
#include "transport/transport.h"

namespace jdwpx::backend {

// The parts a streamed reply is made and sent in: with the transport's window
// (transport::kPartsWindow) all the agent holds of it at any time.
inline constexpr size_t kReplyPartSize = size_t{256} << 10;

// Reply `id` (NONE) to one connection: its header first (its length is
// known), then its body part by part, each part made when the transport takes
// more. Stops making parts when the connection ends.
// The first part is made before anything goes to the transport (Start): when
// it cannot be made, nothing is sent and the error the caller should answer
// with instead is returned (OUT_OF_MEMORY, INTERNAL). A part after the first
// that fails cannot change the error code already sent: that ends the
// session, with a log line.
// Without an on_room, Continue() gives every part, its thread waiting while
// the debugger reads slower than they are made (one debugger: nothing else
// for the command thread to do meanwhile). With one, the reply is resumable:
// Continue() stops when the transport's window is full (parked), and is
// called again after on_room was called (sessions=N: the command thread
// serves the others meanwhile). Destroyed unfinished, it ends the session.
// Lives on the command thread (its source may hold JNI references).
class StreamedReply {
 public:
  // `body` stays the caller's and must outlive the reply.
  StreamedReply(uint32_t id, ReplySource& body) : id_(id), body_(body) {}
  // The reply owns `body`.
  StreamedReply(uint32_t id, std::unique_ptr<ReplySource> body) : id_(id), owned_(std::move(body)), body_(*owned_) {}

  // Makes the first part and hands the reply to the transport: nullopt, or
  // the error to answer with instead (nothing sent).
  [[nodiscard]] std::optional<jdwp::ErrorCode> Start(transport::Transport& transport, uint64_t session,
                                                     std::function<void()> on_room = {});
  // Gives the transport parts until the last, the connection's end, a part
  // that cannot be made (the session ends), or (with on_room) a full window.
  // True: parked, parts remain; call again once on_room was called.
  [[nodiscard]] bool Continue();

 private:
  const uint32_t id_;
  std::unique_ptr<ReplySource> owned_;
  ReplySource& body_;
  size_t size_ = 0;
  size_t made_ = 0;              // body bytes made so far
  std::vector<uint8_t> part_;    // made, not yet given to the writer
  std::unique_ptr<transport::PacketWriter> writer_;
};

// A streamed reply sent whole on the calling thread (StreamedReply without
// an on_room): Start, then Continue until the end.
[[nodiscard]] std::optional<jdwp::ErrorCode> SendStreamedReply(transport::Transport& transport, uint64_t session,
                                                               uint32_t id, ReplySource& body);

}  // namespace jdwpx::backend
