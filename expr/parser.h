// Recursive descent over the tokens, with Java's operator precedence. Builds the
// syntax tree only (names unresolved); refuses what the language leaves out
// (assignment, ++/--, `new`, lambdas, casts, method references) by name.
#pragma once

#include <memory>
#include <string_view>

#include "expr/node.h"

namespace jdwpx::expr {

// How deeply expressions may nest: bounds the parser's, checker's and
// evaluator's recursion so that no input can exhaust the stack.
inline constexpr int kMaxNesting = 64;

tl::expected<std::unique_ptr<Expression::Node>, Problem> Parse(std::string_view text);

}  // namespace jdwpx::expr
