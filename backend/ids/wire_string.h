// Strings on the wire. JDWP sends standard UTF-8; with mutf8=y (as stock) the
// JVM's own modified UTF-8 goes out unchanged instead. What comes in may be
// either, whatever mutf8 says (as stock: standard UTF-8 is the one to convert,
// and modified UTF-8 is left as it is by that conversion).
// Set once at load, before any debugger can attach; read-only afterwards.
#pragma once

#include <string>
#include <string_view>

namespace jdwpx::backend {

void SetWireModifiedUtf8(bool on);
bool WireIsModifiedUtf8();
// A JVM (modified UTF-8) string as the debugger receives it.
std::string ToWireString(std::string_view mutf8);
// A string from the debugger (either encoding) as the JVM takes it (modified UTF-8).
std::string FromWireString(std::string_view wire);

}  // namespace jdwpx::backend
