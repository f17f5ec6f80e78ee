// Splits probe expression text into tokens. Knows Java's literal syntax
// (numbers with suffixes and underscores, char and string escapes) and the
// operators, including those the language refuses (`=`, `++`, `->`), so that
// the parser can name them in its refusal.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "expr/expr.h"

namespace jdwpx::expr {

enum class TokenKind : uint8_t {
  kEnd,
  kIdentifier,  // also keywords: the parser tells them apart
  kInt,         // `value` holds the digits' value; `fits_int_only_negated` for 2147483648
  kLong,
  kFloat,
  kDouble,
  kChar,
  kString,
  kOperator,  // `text` is the operator: "+", ">>>=", "(", ...
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  size_t begin = 0;
  size_t end = 0;
  std::string text;         // identifier or operator as written
  uint64_t integer = 0;     // kInt, kLong: the literal's bits
  double floating = 0;      // kFloat, kDouble
  std::u16string chars;     // kChar (one unit), kString
  bool decimal_int_min = false;  // 2147483648 / 9223372036854775808L: valid only after unary minus
};

// The longest expression text accepted: bounds the parser's and checker's work.
inline constexpr size_t kMaxExpressionLength = 4096;

tl::expected<std::vector<Token>, Problem> Tokenize(std::string_view text);

}  // namespace jdwpx::expr
