// A reply body too big to build whole (ArrayReference.GetValues of a long[10M]
// is 80 MB, StringReference.Value of a 50M-char string 50 to 150 MB): its size
// is known before its first byte, and its bytes are made piece by piece while
// the reply is sent (streamed_reply.h), so the agent holds a bounded window of
// it, never all of it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace jdwpx::backend {

// Bodies from this size on are streamed (where a handler can stream them);
// smaller ones are built whole, the fast path of ordinary replies.
inline constexpr size_t kStreamBodiesFrom = size_t{1} << 20;
// The most a reply body can hold: a packet's length field is a signed 32-bit int.
inline constexpr size_t kMaxReplyBody = static_cast<size_t>(INT32_MAX) - 11;

class ReplySource {
 public:
  virtual ~ReplySource() = default;
  // The whole body, in bytes.
  virtual size_t size() const = 0;
  // Appends the body's next bytes to `out`: at most `room`, at least one byte
  // while any are left and `room` allows a whole item. False: they could not
  // be made (the VM ran out of memory making IDs, a string changed): in the
  // first part the reply becomes an error reply (nothing was sent yet), later
  // it cannot be finished, since its header (saying NONE) is out.
  virtual bool Next(size_t room, std::vector<uint8_t>& out) = 0;
};

}  // namespace jdwpx::backend
