// Conversions between the JVM's modified UTF-8, standard UTF-8 (the wire) and UTF-16.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace jdwpx::vmcore {

// Modified UTF-8 (C0 80 for NUL, surrogate pairs as two 3-byte sequences) -> UTF-8.
std::string ModifiedUtf8ToUtf8(std::string_view mutf8);
// UTF-8 -> modified UTF-8; invalid bytes become U+FFFD. Modified UTF-8 input
// is left as it is (C0 80 and 3-byte surrogates decode and encode back alike).
std::string Utf8ToModifiedUtf8(std::string_view utf8);
// UTF-16 code units -> UTF-8; an unpaired surrogate becomes U+FFFD.
std::string Utf16ToUtf8(const uint16_t* units, size_t count);
// UTF-8 or modified UTF-8 -> UTF-16 code units; invalid bytes become U+FFFD.
std::u16string Utf8ToUtf16(std::string_view utf8);

}  // namespace jdwpx::vmcore
