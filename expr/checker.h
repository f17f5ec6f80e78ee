// Resolves the parsed tree against a Scope and types it as Java's compiler
// would: names to locals, fields and classes; operators with numeric promotion,
// unboxing and string concatenation; calls to the allow-list only. Refusals
// name the part of the source and why.
#pragma once

#include <string_view>

#include "expr/node.h"

namespace jdwpx::expr {

tl::expected<void, Problem> Check(Expression::Node& root, const Scope& scope, std::string_view text);

}  // namespace jdwpx::expr
