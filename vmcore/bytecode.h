// Reading a method's bytecode (JVMS chapter 6) as JVMTI GetBytecodes gives it.
#pragma once

#include <cstdint>
#include <span>

namespace jdwpx::vmcore {

// Whether an instruction of `code` branches to index `target` (if*, goto, jsr,
// their wide forms, and the targets of tableswitch and lookupswitch). Code that
// cannot be read to its end (an unknown opcode, a cut instruction) answers
// true: callers take that as "maybe".
bool BranchesTo(std::span<const uint8_t> code, int64_t target);

}  // namespace jdwpx::vmcore
