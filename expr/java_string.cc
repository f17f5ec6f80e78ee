#include "expr/java_string.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "expr/allowed_methods.h"
#include "expr/primitives.h"

namespace jdwpx::expr {
namespace {

// Java's layout of the shortest round-trip digits. `scientific` is what
// std::to_chars writes in scientific form ("1.234e+10", "5e-324").
std::string JavaLayout(std::string_view scientific) {
  std::string out;
  size_t pos = 0;
  if (scientific[0] == '-') {
    out.push_back('-');
    pos = 1;
  }
  const size_t e = scientific.find('e');
  std::string digits;
  for (size_t k = pos; k < e; ++k) {
    if (scientific[k] != '.') digits.push_back(scientific[k]);
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  int exponent = 0;
  std::from_chars(scientific.data() + e + 1 + (scientific[e + 1] == '+'), scientific.data() + scientific.size(), exponent);
  // Value is 0.d1d2... x 10^(exponent + 1); Java writes plain decimals for 1e-3 <= |v| < 1e7.
  if (exponent >= -3 && exponent < 7) {
    if (exponent < 0) {
      out += "0.";
      out.append(static_cast<size_t>(-exponent - 1), '0');
      out += digits;
    } else {
      const size_t integer_digits = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= integer_digits) {
        out += digits;
        out.append(integer_digits - digits.size(), '0');
        out += ".0";
      } else {
        out += digits.substr(0, integer_digits);
        out += '.';
        out += digits.substr(integer_digits);
      }
    }
    return out;
  }
  out += digits[0];
  out += '.';
  out += digits.size() > 1 ? digits.substr(1) : "0";
  out += 'E';
  out += std::to_string(exponent);
  return out;
}

template <class F>
std::string FloatingToString(F value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  if (value == 0) return std::signbit(value) ? "-0.0" : "0.0";
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific);
  std::string_view shortest(buffer, static_cast<size_t>(end - buffer));
  // Java picks, when one digit would do, the closest of the one- and two-digit
  // decimals that round-trip: Double.MIN_VALUE is 4.9E-324, not 5.0E-324.
  if (shortest.find('.') == std::string_view::npos) {
    char two[64];
    auto [two_end, two_ec] = std::to_chars(two, two + sizeof two, value, std::chars_format::scientific, 1);
    F back = 0;
    std::from_chars(two, two_end, back);
    if (back == value) return JavaLayout(std::string_view(two, static_cast<size_t>(two_end - two)));
  }
  return JavaLayout(shortest);
}

}  // namespace

std::string JavaDoubleToString(double d) { return FloatingToString(d); }
std::string JavaFloatToString(float f) { return FloatingToString(f); }

std::u16string Utf16FromAscii(std::string_view ascii) { return std::u16string(ascii.begin(), ascii.end()); }

std::u16string PrimitiveToJavaString(const Value& value) {
  switch (value.type.prim) {
    case Prim::kBoolean: return value.prim.z ? u"true" : u"false";
    case Prim::kChar: return std::u16string(1, static_cast<char16_t>(value.prim.i));
    case Prim::kByte:
    case Prim::kShort:
    case Prim::kInt: return Utf16FromAscii(std::to_string(value.prim.i));
    case Prim::kLong: return Utf16FromAscii(std::to_string(value.prim.j));
    case Prim::kFloat: return Utf16FromAscii(JavaFloatToString(value.prim.f));
    case Prim::kDouble: return Utf16FromAscii(JavaDoubleToString(value.prim.d));
  }
  return {};
}

int32_t IndexOfCodePoint(std::u16string_view text, int32_t code_point) {
  if (code_point >= 0 && code_point < 0x10000) {
    const size_t at = text.find(static_cast<char16_t>(code_point));
    return at == std::u16string_view::npos ? -1 : static_cast<int32_t>(at);
  }
  if (code_point < 0 || code_point > 0x10FFFF) return -1;
  const char32_t offset = static_cast<char32_t>(code_point) - 0x10000;
  const char16_t pair[2] = {static_cast<char16_t>(0xD800 + (offset >> 10)), static_cast<char16_t>(0xDC00 + (offset & 0x3FF))};
  return IndexOfText(text, std::u16string_view(pair, 2));
}

int32_t IndexOfText(std::u16string_view text, std::u16string_view part) {
  const size_t at = text.find(part);
  return at == std::u16string_view::npos ? -1 : static_cast<int32_t>(at);
}

std::string Utf8(std::u16string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t k = 0; k < text.size(); ++k) {
    char32_t cp = text[k];
    if (cp >= 0xD800 && cp <= 0xDBFF && k + 1 < text.size() && text[k + 1] >= 0xDC00 && text[k + 1] <= 0xDFFF) {
      cp = 0x10000 + ((cp - 0xD800) << 10) + (text[k + 1] - 0xDC00);
      ++k;
    } else if (cp >= 0xD800 && cp <= 0xDFFF) {
      cp = 0xFFFD;  // an unpaired surrogate
    }
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
  return out;
}

Result<std::u16string> ToJavaString(const Value& value, Heap& heap, size_t max_units) {
  auto cut = [&](std::u16string text) {
    if (text.size() > max_units) text.resize(max_units);
    return text;
  };
  switch (value.type.kind) {
    case Type::Kind::kNull: return cut(u"null");
    case Type::Kind::kPrimitive: return cut(PrimitiveToJavaString(value));
    case Type::Kind::kReference: break;
  }
  if (value.text) return cut(*value.text);
  if (value.ref == nullptr) return cut(u"null");
  const std::string runtime_class = IsString(value.type) ? std::string("java.lang.String") : heap.RuntimeClass(value.ref);
  if (runtime_class == "java.lang.String") return heap.StringText(value.ref, max_units);
  if (auto prim = UnboxedPrim(runtime_class)) {
    // A boot wrapper class is final: its xxxValue is the JDK's own trivial getter.
    std::string jni_class = runtime_class;
    for (char& c : jni_class) c = c == '.' ? '/' : c;
    const std::string name = std::string(PrimName(*prim)) + "Value";
    const char signature[] = {'(', ')', "ZBCSIJFD"[static_cast<size_t>(*prim)], '\0'};
    auto unboxed = heap.Call(MethodRef{jni_class, name, signature, false}, value.ref, {}, Type::Primitive(*prim));
    if (!unboxed) return tl::unexpected(unboxed.error());
    return cut(PrimitiveToJavaString(*unboxed));
  }
  char hash[16];
  std::snprintf(hash, sizeof hash, "%x", static_cast<uint32_t>(heap.IdentityHash(value.ref)));
  return cut(Utf16FromAscii(runtime_class + "@" + hash));
}

}  // namespace jdwpx::expr
