// Class names as the debugger's class filters see them (ClassMatch,
// ClassExclude): dotted names and JDWP's patterns.
#pragma once

#include <string>

namespace jdwpx::backend {

// "Lcom/foo/Bar;" -> "com.foo.Bar"; arrays and primitives keep their signature form.
std::string DottedName(const std::string& signature);
// ClassMatch patterns: exact, or one '*' at the start or the end.
bool PatternMatches(const std::string& pattern, const std::string& name);

}  // namespace jdwpx::backend
