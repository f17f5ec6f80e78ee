// Records the largest single operator-new request of the test binary, to show
// that a forged repeat count is refused before a buffer of that size is asked for.
#pragma once

#include <cstddef>

namespace jdwpx::jdwp {
void ResetLargestAllocation();
size_t LargestAllocation();
}  // namespace jdwpx::jdwp
