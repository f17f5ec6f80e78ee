// Type names as probes show them: JVM signatures ("[Ljava/lang/String;") to
// Java's names ("java.lang.String[]") and to the expression language's types.
#pragma once

#include <string>
#include <string_view>

#include "expr/expr.h"

namespace jdwpx::backend::probes {

// "I" -> "int", "Ljava/util/Map$Entry;" -> "java.util.Map$Entry", "[[I" -> "int[][]".
std::string JavaName(std::string_view signature);
// The expression language's type of a field or local with this signature.
expr::Type TypeOfSignature(std::string_view signature);
// "java.util.Map$Entry" -> "Ljava/util/Map$Entry;", "int[]" -> "[I", "int" -> "I".
std::string SignatureOf(std::string_view java_name);

}  // namespace jdwpx::backend::probes

namespace jdwpx::backend::probes {

}  // namespace jdwpx::backend::probes
