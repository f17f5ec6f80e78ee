// Which attached debugger something belongs to (sessions=N): a command, a
// request, a suspension, a pinned object. Slots are 0 .. N-1 and reused once a
// debugger has left; with sessions=1 (the default, and stock's) everything is
// slot 0. A leaf: every part of backend/ may include it.
#pragma once

#include <cstdint>

namespace jdwpx::backend {

using SessionSlot = uint8_t;
// sessions= takes 1 to kMaxSessions.
inline constexpr int kMaxSessions = 16;

}  // namespace jdwpx::backend
