// Evaluates a checked tree at a hit, by reads through a Heap only, with Java's
// run-time semantics: wrapping integer arithmetic, "/ by zero", masked shift
// counts, short-circuit && || ?:, and errors (null, index, step limit) that
// name the part of the source.
#pragma once

#include <string_view>

#include "expr/node.h"

namespace jdwpx::expr {

// The longest string a concatenation may make, in UTF-16 units; also how much
// of a string String's methods read.
inline constexpr size_t kMaxStringUnits = size_t{1} << 20;

Result<Value> EvaluateTree(const Expression::Node& root, std::string_view text, Heap& heap, int64_t max_steps);

}  // namespace jdwpx::expr
