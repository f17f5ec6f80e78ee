// Sending a reply whose body is made while it is sent (reply_source.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include "backend/values/reply_source.h"
#include "jdwp/error.h"
#include "transport/transport.h"

namespace jdwpx::backend {

// The parts a streamed reply is made and sent in: with the transport's window
// (transport::kPartsWindow) all the agent holds of it at any time.
inline constexpr size_t kReplyPartSize = size_t{256} << 10;

// Sends reply `id` (NONE) to connection `session`: its header first (its
// length is known), then its body part by part, each part made when the
// transport takes more (the maker waits while the debugger reads slower).
// Stops making parts when the session ends.
// The first part is made before anything goes to the transport: when it
// cannot be made, nothing is sent and the error the caller should answer with
// instead is returned (OUT_OF_MEMORY, INTERNAL). A part after the first that
// fails cannot change the error code already sent: that ends the session,
// with a log line.
[[nodiscard]] std::optional<jdwp::ErrorCode> SendStreamedReply(transport::Transport& transport, uint64_t session,
                                                               uint32_t id, ReplySource& body);

}  // namespace jdwpx::backend
