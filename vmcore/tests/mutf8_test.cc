#include "vmcore/mutf8.h"

#include <gtest/gtest.h>

namespace jdwpx::vmcore {
namespace {

TEST(Mutf8, AsciiIsUnchanged) {
  EXPECT_EQ(ModifiedUtf8ToUtf8("java/lang/String"), "java/lang/String");
  EXPECT_EQ(Utf8ToModifiedUtf8("java/lang/String"), "java/lang/String");
}

TEST(Mutf8, NulIsTwoBytesInModifiedUtf8) {
  EXPECT_EQ(Utf8ToModifiedUtf8(std::string("a\0b", 3)), "a\xC0\x80" "b");
  EXPECT_EQ(ModifiedUtf8ToUtf8("a\xC0\x80" "b"), std::string("a\0b", 3));
}

TEST(Mutf8, SupplementaryCharacterIsASurrogatePairInModifiedUtf8) {
  const std::string utf8 = "\xF0\x9F\x98\x80";              // U+1F600
  const std::string mutf8 = "\xED\xA0\xBD\xED\xB8\x80";     // D83D DE00, each as 3 bytes
  EXPECT_EQ(Utf8ToModifiedUtf8(utf8), mutf8);
  EXPECT_EQ(ModifiedUtf8ToUtf8(mutf8), utf8);
}

TEST(Mutf8, TwoAndThreeByteCharactersPassThrough) {
  const std::string text = "caf\xC3\xA9 \xE2\x82\xAC";  // café €
  EXPECT_EQ(ModifiedUtf8ToUtf8(text), text);
  EXPECT_EQ(Utf8ToModifiedUtf8(text), text);
}

TEST(Mutf8, LoneSurrogateBecomesReplacementCharacter) {
  EXPECT_EQ(ModifiedUtf8ToUtf8("\xED\xA0\xBD" "x"), "\xEF\xBF\xBD" "x");
}

TEST(Mutf8, TruncatedSequenceBecomesReplacementCharacter) {
  EXPECT_EQ(ModifiedUtf8ToUtf8("a\xE2\x82"), "a\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(Mutf8, ModifiedUtf8IsLeftAsItIsByTheConversionToIt) {
  const std::string mutf8 = "a\xC0\x80" "b\xED\xA0\xBD\xED\xB8\x80";
  EXPECT_EQ(Utf8ToModifiedUtf8(mutf8), mutf8);
}

TEST(Utf16, EitherEncodingDecodes) {
  const std::u16string expected{'a', 0, 'b', 0xD83D, 0xDE00};
  EXPECT_EQ(Utf8ToUtf16(std::string("a\0b\xF0\x9F\x98\x80", 7)), expected);
  EXPECT_EQ(Utf8ToUtf16("a\xC0\x80" "b\xED\xA0\xBD\xED\xB8\x80"), expected);
}

TEST(Utf16, PairsAndLoneSurrogates) {
  const uint16_t pair[] = {0xD83D, 0xDE00, 'A'};
  EXPECT_EQ(Utf16ToUtf8(pair, 3), "\xF0\x9F\x98\x80" "A");
  const uint16_t lone[] = {0xDC00};
  EXPECT_EQ(Utf16ToUtf8(lone, 1), "\xEF\xBF\xBD");
  EXPECT_EQ(Utf8ToUtf16("\xF0\x9F\x98\x80"), (std::u16string{0xD83D, 0xDE00}));
}

}  // namespace
}  // namespace jdwpx::vmcore
