#include "vmcore/bytecode.h"

namespace jdwpx::vmcore {
namespace {

int32_t S16(std::span<const uint8_t> code, size_t at) {
  return static_cast<int16_t>((code[at] << 8) | code[at + 1]);
}

int32_t S32(std::span<const uint8_t> code, size_t at) {
  return static_cast<int32_t>((uint32_t{code[at]} << 24) | (uint32_t{code[at + 1]} << 16) |
                              (uint32_t{code[at + 2]} << 8) | code[at + 3]);
}

// Length of the fixed-size instruction `op`; 0 for the variable ones and for
// opcodes that are not in the JVMS.
size_t FixedLength(uint8_t op) {
  if (op <= 0x0f) return 1;                    // nop .. dconst_1
  if (op == 0x10 || op == 0x12) return 2;      // bipush, ldc
  if (op == 0x11 || op == 0x13 || op == 0x14) return 3;  // sipush, ldc_w, ldc2_w
  if (op >= 0x15 && op <= 0x19) return 2;      // iload .. aload
  if (op >= 0x1a && op <= 0x35) return 1;      // xload_n, array loads
  if (op >= 0x36 && op <= 0x3a) return 2;      // istore .. astore
  if (op >= 0x3b && op <= 0x83) return 1;      // xstore_n, array stores, stack, arithmetic
  if (op == 0x84) return 3;                    // iinc
  if (op >= 0x85 && op <= 0x98) return 1;      // conversions, compares
  if (op >= 0x99 && op <= 0xa8) return 3;      // if*, goto, jsr
  if (op == 0xa9) return 2;                    // ret
  if (op >= 0xac && op <= 0xb1) return 1;      // returns
  if (op >= 0xb2 && op <= 0xb8) return 3;      // field access, invokevirtual/special/static
  if (op == 0xb9 || op == 0xba) return 5;      // invokeinterface, invokedynamic
  if (op == 0xbb || op == 0xbd) return 3;      // new, anewarray
  if (op == 0xbc) return 2;                    // newarray
  if (op >= 0xbe && op <= 0xbf) return 1;      // arraylength, athrow
  if (op == 0xc0 || op == 0xc1) return 3;      // checkcast, instanceof
  if (op == 0xc2 || op == 0xc3) return 1;      // monitorenter, monitorexit
  if (op == 0xc5) return 4;                    // multianewarray
  if (op == 0xc6 || op == 0xc7) return 3;      // ifnull, ifnonnull
  if (op == 0xc8 || op == 0xc9) return 5;      // goto_w, jsr_w
  return 0;
}

bool Branch16(uint8_t op) { return (op >= 0x99 && op <= 0xa8) || op == 0xc6 || op == 0xc7; }

}  // namespace

bool BranchesTo(std::span<const uint8_t> code, int64_t target) {
  size_t pc = 0;
  while (pc < code.size()) {
    const uint8_t op = code[pc];
    size_t length = FixedLength(op);
    if (op == 0xaa || op == 0xab) {  // tableswitch, lookupswitch: 4-byte aligned operands
      size_t at = (pc + 4) & ~size_t{3};
      if (at + (op == 0xaa ? 12 : 8) > code.size()) return true;
      const auto here = static_cast<int64_t>(pc);
      if (here + S32(code, at) == target) return true;
      size_t targets = 0;
      size_t stride = 4;
      if (op == 0xaa) {
        int64_t low = S32(code, at + 4), high = S32(code, at + 8);
        if (high < low) return true;
        targets = static_cast<size_t>(high - low + 1);
        at += 12;
      } else {
        int64_t pairs = S32(code, at + 4);
        if (pairs < 0) return true;
        targets = static_cast<size_t>(pairs);
        at += 8 + 4;  // the first pair's offset follows its match
        stride = 8;
      }
      if (targets > code.size() || at + (targets ? (targets - 1) * stride + 4 : 0) > code.size()) return true;
      for (size_t i = 0; i < targets; ++i)
        if (here + S32(code, at + i * stride) == target) return true;
      length = op == 0xaa ? at + targets * 4 - pc : at - 4 + targets * 8 - pc;
    } else if (op == 0xc4) {  // wide
      if (pc + 1 >= code.size()) return true;
      length = code[pc + 1] == 0x84 ? 6 : 4;
    } else if (length == 0) {
      return true;
    }
    if (pc + length > code.size()) return true;
    if (Branch16(op) && static_cast<int64_t>(pc) + S16(code, pc + 1) == target) return true;
    if ((op == 0xc8 || op == 0xc9) && static_cast<int64_t>(pc) + S32(code, pc + 1) == target) return true;
    pc += length;
  }
  return false;
}

}  // namespace jdwpx::vmcore
