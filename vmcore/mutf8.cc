#include "vmcore/mutf8.h"

namespace jdwpx::vmcore {
namespace {

void AppendUtf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

// Decodes one UTF-8 (or modified UTF-8) sequence at s[i]; advances i. Returns U+FFFD on error.
uint32_t DecodeOne(std::string_view s, size_t& i, bool allow_four_byte) {
  auto byte = [&](size_t k) { return static_cast<uint8_t>(s[k]); };
  uint8_t b0 = byte(i);
  if (b0 < 0x80) { ++i; return b0; }
  auto cont = [&](size_t k) { return k < s.size() && (byte(k) & 0xC0) == 0x80; };
  if ((b0 & 0xE0) == 0xC0 && cont(i + 1)) {
    uint32_t cp = ((b0 & 0x1F) << 6) | (byte(i + 1) & 0x3F);
    i += 2;
    return cp;
  }
  if ((b0 & 0xF0) == 0xE0 && cont(i + 1) && cont(i + 2)) {
    uint32_t cp = ((b0 & 0x0F) << 12) | ((byte(i + 1) & 0x3F) << 6) | (byte(i + 2) & 0x3F);
    i += 3;
    return cp;
  }
  if (allow_four_byte && (b0 & 0xF8) == 0xF0 && cont(i + 1) && cont(i + 2) && cont(i + 3)) {
    uint32_t cp = ((b0 & 0x07) << 18) | ((byte(i + 1) & 0x3F) << 12) | ((byte(i + 2) & 0x3F) << 6) | (byte(i + 3) & 0x3F);
    i += 4;
    return cp;
  }
  ++i;
  return 0xFFFD;
}

bool IsHigh(uint32_t u) { return u >= 0xD800 && u <= 0xDBFF; }
bool IsLow(uint32_t u) { return u >= 0xDC00 && u <= 0xDFFF; }

}  // namespace

std::string ModifiedUtf8ToUtf8(std::string_view s) {
  // Fast path: plain ASCII without NUL needs no work.
  bool ascii = true;
  for (char c : s) if (static_cast<uint8_t>(c) >= 0x80) { ascii = false; break; }
  if (ascii) return std::string(s);
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp = DecodeOne(s, i, false);
    if (IsHigh(cp)) {
      size_t j = i;
      if (j < s.size()) {
        uint32_t lo = DecodeOne(s, j, false);
        if (IsLow(lo)) {
          AppendUtf8(out, 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00));
          i = j;
          continue;
        }
      }
      cp = 0xFFFD;
    } else if (IsLow(cp)) {
      cp = 0xFFFD;
    }
    AppendUtf8(out, cp);
  }
  return out;
}

std::string Utf8ToModifiedUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp = DecodeOne(s, i, true);
    if (cp == 0) {
      out.push_back(static_cast<char>(0xC0));
      out.push_back(static_cast<char>(0x80));
    } else if (cp >= 0x10000) {
      uint32_t v = cp - 0x10000;
      AppendUtf8(out, 0xD800 + (v >> 10));
      AppendUtf8(out, 0xDC00 + (v & 0x3FF));
    } else {
      AppendUtf8(out, cp);
    }
  }
  return out;
}

std::string Utf16ToUtf8(const uint16_t* u, size_t n) {
  std::string out;
  out.reserve(n);
  for (size_t i = 0; i < n; ++i) {
    uint32_t c = u[i];
    if (IsHigh(c) && i + 1 < n && IsLow(u[i + 1])) {
      AppendUtf8(out, 0x10000 + ((c - 0xD800) << 10) + (u[i + 1] - 0xDC00));
      ++i;
    } else if (IsHigh(c) || IsLow(c)) {
      AppendUtf8(out, 0xFFFD);
    } else {
      AppendUtf8(out, c);
    }
  }
  return out;
}

std::u16string Utf8ToUtf16(std::string_view s) {
  std::u16string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    uint32_t cp = DecodeOne(s, i, true);
    if (cp >= 0x10000) {
      uint32_t v = cp - 0x10000;
      out.push_back(static_cast<char16_t>(0xD800 + (v >> 10)));
      out.push_back(static_cast<char16_t>(0xDC00 + (v & 0x3FF)));
    } else {
      out.push_back(static_cast<char16_t>(cp));
    }
  }
  return out;
}

}  // namespace jdwpx::vmcore
