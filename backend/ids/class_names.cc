#include "backend/ids/class_names.h"

#include <algorithm>
#include <string_view>

namespace jdwpx::backend {

std::string DottedName(const std::string& signature) {
  std::string name = signature.size() >= 2 && signature.front() == 'L' && signature.back() == ';'
                         ? signature.substr(1, signature.size() - 2)
                         : signature;
  std::replace(name.begin(), name.end(), '/', '.');
  return name;
}

bool PatternMatches(const std::string& pattern, const std::string& name) {
  if (pattern.empty()) return name.empty();
  if (pattern.front() == '*') {
    std::string_view tail(pattern.data() + 1, pattern.size() - 1);
    return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  }
  if (pattern.back() == '*') {
    std::string_view head(pattern.data(), pattern.size() - 1);
    return name.compare(0, head.size(), head) == 0;
  }
  return pattern == name;
}

}  // namespace jdwpx::backend
