// Java's text: numbers formatted as Java prints them (Integer.toString,
// Double.toString's shortest round-trip digits and layout), UTF-16 to UTF-8,
// and String's methods over UTF-16 text, computed here without Java.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "expr/expr.h"

namespace jdwpx::expr {

std::string JavaDoubleToString(double d);  // Double.toString
std::string JavaFloatToString(float f);    // Float.toString
// A primitive value as String.valueOf writes it.
std::u16string PrimitiveToJavaString(const Value& value);
std::u16string Utf16FromAscii(std::string_view ascii);

// String.indexOf(int ch): a code point, supplementary ones as surrogate pairs.
int32_t IndexOfCodePoint(std::u16string_view text, int32_t code_point);
// String.indexOf(String).
int32_t IndexOfText(std::u16string_view text, std::u16string_view part);

}  // namespace jdwpx::expr
