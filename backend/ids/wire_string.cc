#include "backend/ids/wire_string.h"

#include <atomic>

#include "vmcore/mutf8.h"

namespace jdwpx::backend {
namespace {
std::atomic<bool> g_modified_utf8{false};
}  // namespace

void SetWireModifiedUtf8(bool on) { g_modified_utf8.store(on, std::memory_order_relaxed); }
bool WireIsModifiedUtf8() { return g_modified_utf8.load(std::memory_order_relaxed); }

std::string ToWireString(std::string_view mutf8) {
  return WireIsModifiedUtf8() ? std::string(mutf8) : vmcore::ModifiedUtf8ToUtf8(mutf8);
}

std::string FromWireString(std::string_view wire) {
  // Whatever mutf8 says, as stock: modified UTF-8 passes unchanged.
  return vmcore::Utf8ToModifiedUtf8(wire);
}

}  // namespace jdwpx::backend
