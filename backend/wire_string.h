// Strings on the wire. JDWP sends standard UTF-8; with mutf8=y (as stock) the
// JVM's own modified UTF-8 travels unchanged in both directions instead.
// Set once at load, before any debugger can attach; read-only afterwards.
#pragma once

#include <string>
#include <string_view>

namespace jdwpx::backend {

void SetWireModifiedUtf8(bool on);
bool WireIsModifiedUtf8();
// A JVM (modified UTF-8) string as the debugger receives it.
std::string ToWireString(std::string_view mutf8);
// A string from the debugger as the JVM takes it (modified UTF-8).
std::string FromWireString(std::string_view wire);
// A standard UTF-8 string (decoded from UTF-16) as the debugger receives it.
std::string Utf8ToWireString(std::string utf8);
// A string from the debugger as standard UTF-8 (for UTF-16 conversion).
std::string WireStringToUtf8(std::string wire);

}  // namespace jdwpx::backend
