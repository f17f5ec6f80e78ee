// addressfile=<path> (ours): the address the agent listens on, written where
// tools (sidecars, scripts, an IDE's launcher) can read it, e.g. with address=0.
#pragma once

#include <string>
#include <string_view>

#include <tl/expected.hpp>

namespace jdwpx::backend {

// Writes `address` and a newline to `pattern` ("%p" = this process's pid)
// atomically (a temporary file in the same directory, then rename), so that a
// reader never sees half an address; the file is removed at process exit.
// Returns the path written, or why it could not be.
[[nodiscard]] tl::expected<std::string, std::string> WriteAddressFile(std::string_view pattern, std::string_view address);

}  // namespace jdwpx::backend
