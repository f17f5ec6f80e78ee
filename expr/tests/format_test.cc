// Java's formatting: Double.toString and Float.toString (the expected strings
// were printed by OpenJDK 17 and 25, which agree on all of them, from the same
// bits), integers, chars, objects as Class@hash, and UTF-16 to UTF-8.
#include "expr/tests/test_world.h"

#include <bit>
#include <climits>

#include "expr/java_string.h"

namespace jdwpx::expr::testing {
namespace {

TEST(FormatTest, DoubleToStringAsJavaPrintsIt) {
  const std::pair<int64_t, const char*> cases[] = {
      {0LL, "0.0"},
      {INT64_MIN, "-0.0"},
      {4607182418800017408LL, "1.0"},
      {-4616189618054758400LL, "-1.0"},
      {4602678819172646912LL, "0.5"},
      {4591870180066957722LL, "0.1"},
      {4562254508917369340LL, "0.001"},
      {4547007122018943789LL, "1.0E-4"},
      {4547007122018943789LL, "1.0E-4"},
      {4638387860618067575LL, "123.456"},
      {4698053236609777664LL, "1234567.0"},
      {4711630319185297408LL, "9999999.0"},
      {4711630319722168320LL, "1.0E7"},
      {4757767320795873280LL, "1.234E10"},
      {4712889646492470477LL, "1.23456789E7"},
      {9221120237041090560LL, "NaN"},
      {9218868437227405312LL, "Infinity"},
      {-4503599627370496LL, "-Infinity"},
      {9218868437227405311LL, "1.7976931348623157E308"},
      {1LL, "4.9E-324"},
      {4503599627370496LL, "2.2250738585072014E-308"},
      {4599676419421066581LL, "0.3333333333333333"},
      {4604180019048437077LL, "0.6666666666666666"},
      {4636737291354636288LL, "100.0"},
      {4921056587992461136LL, "1.0E21"},
      {118622047889322841LL, "1.0E-300"},
      {4599075939470750515LL, "0.3"},
      {4599075939470750516LL, "0.30000000000000004"},
      {4614256656552045848LL, "3.141592653589793"},
      {6103021453049119613LL, "1.0E100"},
      {4772899269882675200LL, "1.23456789012E11"},
      {-4660056840153168169LL, "-0.00123"},
      {4576912464696564641LL, "0.00999"},
  };
  for (const auto& [bits, java] : cases) {
    EXPECT_EQ(JavaDoubleToString(std::bit_cast<double>(bits)), java) << bits;
  }
}

TEST(FormatTest, FloatToStringAsJavaPrintsIt) {
  const std::pair<int32_t, const char*> cases[] = {
      {0, "0.0"},
      {INT32_MIN, "-0.0"},
      {1065353216, "1.0"},
      {1036831949, "0.1"},
      {953267991, "1.0E-4"},
      {981668463, "0.001"},
      {1066192077, "1.1"},
      {2139095039, "3.4028235E38"},
      {1, "1.4E-45"},
      {1259902592, "1.0E7"},
      {1259902591, "9999999.0"},
      {1266679808, "1.6777216E7"},
      {1051372203, "0.33333334"},
      {2143289344, "NaN"},
      {-8388608, "-Infinity"},
      {1123477881, "123.456"},
      {786163455, "1.0E-10"},
  };
  for (const auto& [bits, java] : cases) {
    EXPECT_EQ(JavaFloatToString(std::bit_cast<float>(bits)), java) << bits;
  }
}

// JDK 17's Double.toString is not always the shortest (JDK-4511638, fixed in
// 19): where they differ, probes print what JDK 19 and later print.
TEST(FormatTest, ShortestDigitsAsJdk19AndLater) {
  EXPECT_EQ(JavaDoubleToString(2e23), "2.0E23");     // JDK 17: 1.9999999999999998E23
  EXPECT_EQ(JavaDoubleToString(8.41e21), "8.41E21");  // JDK 17: 8.409999999999999E21
  EXPECT_EQ(JavaDoubleToString(2e-323), "2.0E-323");
  EXPECT_EQ(JavaFloatToString(2.0e-3f), "0.002");
}

TEST(FormatTest, Utf8) {
  EXPECT_EQ(Utf8(u"abc"), "abc");
  EXPECT_EQ(Utf8(u"\u00e9"), "\xc3\xa9");
  EXPECT_EQ(Utf8(u"\u20ac"), "\xe2\x82\xac");
  EXPECT_EQ(Utf8(u"\U0001F600"), "\xf0\x9f\x98\x80");
  const char16_t lone_high[] = {u'a', 0xD800, u'b', 0};
  EXPECT_EQ(Utf8(lone_high), "a\xef\xbf\xbd" "b");
  const char16_t lone_low[] = {0xDC00, 0};
  EXPECT_EQ(Utf8(lone_low), "\xef\xbf\xbd");
  const char16_t high_at_end[] = {u'x', 0xDBFF, 0};
  EXPECT_EQ(Utf8(high_at_end), "x\xef\xbf\xbd");
}

using ToJavaStringTest = ExprTest;

TEST_F(ToJavaStringTest, Values) {
  EXPECT_EQ(Show("c"), "x");
  EXPECT_EQ(Show("b"), "-3");
  EXPECT_EQ(Show("sh"), "300");
  EXPECT_EQ(Show("j"), "10000000000");
  EXPECT_EQ(Show("f"), "1.5");
  EXPECT_EQ(Show("z"), "true");
  EXPECT_EQ(Show("nothing"), "null");
  EXPECT_EQ(Show("s"), "hello");
  EXPECT_EQ(Show("dbl"), "1.5");
  EXPECT_EQ(Show("\"\" + 1e7 + ' ' + 1e-4f + ' ' + 100.0 / 3"), "1.0E7 1.0E-4 33.333333333333336");
  EXPECT_EQ(Show("\"\" + c + b + z + null"), "x-3truenull");
}

TEST_F(ToJavaStringTest, ObjectsAreClassAtIdentityHash) {
  char expected[64];
  std::snprintf(expected, sizeof expected, "demo.Order@%x", static_cast<unsigned>(world.Get(second_order).hash));
  EXPECT_EQ(Show("order"), expected);
  EXPECT_EQ(Show("\"o=\" + order"), std::string("o=") + expected);
  world.Get(second_order).hash = -1;
  EXPECT_EQ(Show("order"), "demo.Order@ffffffff");
}

TEST_F(ToJavaStringTest, StringsAreCut) {
  auto expression = Expression::Compile("s", scope);
  ASSERT_TRUE(expression);
  auto value = expression->Evaluate(heap);
  ASSERT_TRUE(value);
  auto text = ToJavaString(*value, heap, 3);
  ASSERT_TRUE(text);
  EXPECT_EQ(Utf8(*text), "hel");
}

}  // namespace
}  // namespace jdwpx::expr::testing
