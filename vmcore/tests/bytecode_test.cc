#include "vmcore/bytecode.h"

#include <gtest/gtest.h>

#include <vector>

namespace jdwpx::vmcore {
namespace {

// javac's `do { box[0]--; } while (box[0] > 0); return box[0];`
const std::vector<uint8_t> kDoWhileAtStart = {
    0x2a, 0x03, 0x5c, 0x2e, 0x04, 0x64, 0x4f,  // aload_0 iconst_0 dup2 iaload iconst_1 isub iastore
    0x2a, 0x03, 0x2e, 0x9d, 0xff, 0xf6,        // aload_0 iconst_0 iaload ifgt -10 (-> 0)
    0x2a, 0x03, 0x2e, 0xac,                    // aload_0 iconst_0 iaload ireturn
};

TEST(Bytecode, LoopBackToTheFirstInstruction) {
  EXPECT_TRUE(BranchesTo(kDoWhileAtStart, 0));
  EXPECT_FALSE(BranchesTo(kDoWhileAtStart, 7));
}

TEST(Bytecode, NoBranchAtAll) {
  const std::vector<uint8_t> leaf = {0x1a, 0x04, 0x60, 0xac};  // iload_0 iconst_1 iadd ireturn
  EXPECT_FALSE(BranchesTo(leaf, 0));
}

TEST(Bytecode, ForwardBranchesAndOtherTargets) {
  // iload_0 ifeq +5 (-> 6) iconst_1 ireturn nop iconst_0 ireturn   (a branch to 6, none to 0)
  const std::vector<uint8_t> code = {0x1a, 0x99, 0x00, 0x05, 0x04, 0xac, 0x03, 0xac};
  EXPECT_FALSE(BranchesTo(code, 0));
  EXPECT_TRUE(BranchesTo(code, 6));
}

TEST(Bytecode, WideGotoAndWideOperands) {
  // wide iinc 1 1; wide iload 1; pop; goto_w -8 (-> 0)
  const std::vector<uint8_t> code = {0xc4, 0x84, 0x00, 0x01, 0x00, 0x01, 0xc4, 0x15, 0x00, 0x01,
                                     0x57, 0xc8, 0xff, 0xff, 0xff, 0xf5};
  EXPECT_TRUE(BranchesTo(code, 0));
  EXPECT_FALSE(BranchesTo(code, 6));
}

TEST(Bytecode, TableswitchTargetsAfterPadding) {
  // 0: iload_0  1: tableswitch, padded to 4: default +15 (-> 16), low 0, high 1, +15 (-> 16), -1 (-> 0)
  std::vector<uint8_t> code = {0x1a, 0xaa, 0x00, 0x00,
                               0x00, 0x00, 0x00, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
                               0x00, 0x00, 0x00, 0x0f, 0xff, 0xff, 0xff, 0xff, 0xb1};
  // The switch at 1 ends at 24; its targets: 16 (default, case 0) and 0 (case 1).
  EXPECT_TRUE(BranchesTo(code, 0));
  for (size_t i : {20, 21, 22}) code[i] = 0x00;
  code[23] = 0x0f;  // case 1: +15 (-> 16) as well
  EXPECT_FALSE(BranchesTo(code, 0));
}

TEST(Bytecode, LookupswitchTargets) {
  // 0: iload_0  1: lookupswitch, padded: default +7 (-> 8), 1 pair: match 5 -> -1 (-> 0)
  std::vector<uint8_t> code = {0x1a, 0xab, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x01,
                               0x00, 0x00, 0x00, 0x05, 0xff, 0xff, 0xff, 0xff, 0xb1};
  EXPECT_TRUE(BranchesTo(code, 0));
  for (size_t i : {16, 17, 18}) code[i] = 0x00;
  code[19] = 0x07;  // the pair: +7 (-> 8) as well
  EXPECT_FALSE(BranchesTo(code, 0));
}

TEST(Bytecode, UnreadableCodeIsAMaybe) {
  EXPECT_TRUE(BranchesTo(std::vector<uint8_t>{0x1a, 0xca}, 0));        // an opcode outside the JVMS
  EXPECT_TRUE(BranchesTo(std::vector<uint8_t>{0x1a, 0xb6, 0x00}, 0));  // an invokevirtual cut short
  EXPECT_TRUE(BranchesTo(std::vector<uint8_t>{0xaa, 0x00, 0x00}, 0));  // a switch cut short
}

}  // namespace
}  // namespace jdwpx::vmcore
