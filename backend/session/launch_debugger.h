#pragma once

#include <string>

namespace jdwpx::backend {

// launch=: "<command> <transport> <address>" split on blanks and exec'd without a
// shell, stdin/stdout/stderr inherited, other descriptors closed, never waited
// for: all as stock (so a command that cannot run fails silently in the child).
// False only when no child could be created.
bool LaunchDebugger(const std::string& command, const std::string& transport, const std::string& address);

}  // namespace jdwpx::backend
