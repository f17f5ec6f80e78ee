// Syntax: literals, precedence, and the refusals the parser makes itself
// (assignment, ++/--, new, lambdas, casts), each with its message and offsets.
#include "expr/tests/test_world.h"

namespace jdwpx::expr::testing {
namespace {

using ParseTest = ExprTest;

TEST_F(ParseTest, IntegerLiterals) {
  EXPECT_EQ(Show("42"), "42");
  EXPECT_EQ(Show("0x1F"), "31");
  EXPECT_EQ(Show("0xFFFFFFFF"), "-1");
  EXPECT_EQ(Show("010"), "8");
  EXPECT_EQ(Show("0b101"), "5");
  EXPECT_EQ(Show("1_000_000"), "1000000");
  EXPECT_EQ(Show("-2147483648"), "-2147483648");
  EXPECT_EQ(Show("2147483647"), "2147483647");
  EXPECT_EQ(Show("-9223372036854775808L"), "-9223372036854775808");
  EXPECT_EQ(Show("0x7fffffffffffffffL"), "9223372036854775807");
  EXPECT_EQ(TypeOf("1L"), "long");
  EXPECT_EQ(TypeOf("1"), "int");
}

TEST_F(ParseTest, IntegerLiteralsOutOfRange) {
  EXPECT_EQ(Show("2147483648"), "refused: `2147483648`: too large for an int [0,10)");
  EXPECT_EQ(Show("4294967296"), "refused: `4294967296`: too large for an int [0,10)");
  EXPECT_EQ(Show("0x100000000"), "refused: `0x100000000`: too large for an int [0,11)");
  EXPECT_EQ(Show("09"), "refused: `09`: not a number [0,2)");
  EXPECT_EQ(Show("1_"), "refused: `1_`: an underscore must sit between digits [0,2)");
}

TEST_F(ParseTest, FloatingLiterals) {
  EXPECT_EQ(Show("1.5"), "1.5");
  EXPECT_EQ(Show("1e3"), "1000.0");
  EXPECT_EQ(Show(".5"), "0.5");
  EXPECT_EQ(Show("2."), "2.0");
  EXPECT_EQ(Show("1.5f"), "1.5");
  EXPECT_EQ(Show("3d"), "3.0");
  EXPECT_EQ(Show("1.5e-3"), "0.0015");
  EXPECT_EQ(TypeOf("1.5f"), "float");
  EXPECT_EQ(TypeOf("1.5"), "double");
  EXPECT_EQ(TypeOf("1e3"), "double");
  EXPECT_EQ(Show("1e40f"), "refused: `1e40f`: out of float's range [0,5)");
}

TEST_F(ParseTest, CharAndStringLiterals) {
  EXPECT_EQ(Show("'a'"), "a");
  EXPECT_EQ(TypeOf("'a'"), "char");
  EXPECT_EQ(Show("'\\n' + 0"), "10");
  EXPECT_EQ(Show("'\\u0041'"), "A");
  EXPECT_EQ(Show("'\\''"), "'");
  EXPECT_EQ(Show("'\\101'"), "A");
  EXPECT_EQ(Show("\"a\\tb\\\\c\\\"\""), "a\tb\\c\"");
  EXPECT_EQ(Show("\"\\u00e9t\\u00e9\""), "\xc3\xa9t\xc3\xa9");
  EXPECT_EQ(Show("\"\xc3\xa9\".length()"), "1");
  EXPECT_EQ(Show("\"\xf0\x9f\x98\x80\".length()"), "2");  // a supplementary character is two units
  EXPECT_EQ(Show("\"abc"), "refused: unclosed string literal [0,4)");
  EXPECT_EQ(Show("'ab'"), "refused: `'ab'`: a char literal holds exactly one UTF-16 unit [0,4)");
  EXPECT_EQ(Show("\"\\q\""), "refused: `\\q`: not an escape sequence [1,3)");
  EXPECT_EQ(Show("true"), "true");
  EXPECT_EQ(Show("null"), "null");
}

TEST_F(ParseTest, Precedence) {
  EXPECT_EQ(Show("1 + 2 * 3"), "7");
  EXPECT_EQ(Show("(1 + 2) * 3"), "9");
  EXPECT_EQ(Show("10 - 4 - 3"), "3");
  EXPECT_EQ(Show("1 << 2 + 1"), "8");
  EXPECT_EQ(Show("1 < 2 == true"), "true");
  EXPECT_EQ(Show("6 & 3 ^ 1 | 8"), "11");
  EXPECT_EQ(Show("true || false && false"), "true");
  EXPECT_EQ(Show("false ? 1 : true ? 2 : 3"), "2");
  EXPECT_EQ(Show("-i * 2"), "-14");
  EXPECT_EQ(Show("!!z"), "true");
  EXPECT_EQ(Show("- -i"), "7");
}

TEST_F(ParseTest, SyntaxErrors) {
  EXPECT_EQ(Show(""), "refused: expected an expression at the end [0,0)");
  EXPECT_EQ(Show("1 +"), "refused: expected an expression at the end [3,3)");
  EXPECT_EQ(Show("(1"), "refused: expected `)` at the end [2,2)");
  EXPECT_EQ(Show("1 2"), "refused: `2`: expected an operator or the end [2,3)");
  EXPECT_EQ(Show("a[1"), "refused: expected `]` at the end [3,3)");
  EXPECT_EQ(Show("i # 2"), "refused: `#`: unexpected character [2,3)");
  EXPECT_EQ(Show("z ? 1"), "refused: expected `:` at the end [5,5)");
}

TEST_F(ParseTest, AssignmentIsRefused) {
  EXPECT_EQ(Show("i = 1"), "refused: `i = 1`: assignment is not allowed; probes only read [0,5)");
  EXPECT_EQ(Show("i += 1"), "refused: `i += 1`: assignment is not allowed; probes only read [0,6)");
  EXPECT_EQ(Show("z && (i >>>= 2) > 0"), "refused: `i >>>= 2`: assignment is not allowed; probes only read [6,14)");
  EXPECT_EQ(Show("order.total = 1 + 2"), "refused: `order.total = 1 + 2`: assignment is not allowed; probes only read [0,19)");
  EXPECT_EQ(Show("i = "), "refused: `i =`: assignment is not allowed; probes only read [0,3)");
}

TEST_F(ParseTest, IncrementAndDecrementAreRefused) {
  EXPECT_EQ(Show("i++"), "refused: `i++`: ++ and -- are not allowed; probes only read [0,3)");
  EXPECT_EQ(Show("--i"), "refused: `--i`: ++ and -- are not allowed; probes only read [0,3)");
  EXPECT_EQ(Show("1 + order.total++"), "refused: `order.total++`: ++ and -- are not allowed; probes only read [4,17)");
}

TEST_F(ParseTest, ConstructorsAreRefused) {
  EXPECT_EQ(Show("new Order()"), "refused: `new Order()`: constructors (`new`) are not allowed; probes only read [0,11)");
  EXPECT_EQ(Show("i + new int[3].length"),
            "refused: `new int[3]`: constructors (`new`) are not allowed; probes only read [4,14)");
  EXPECT_EQ(Show("s.equals(new java.lang.String(\"x\"))"),
            "refused: `new java.lang.String(\"x\")`: constructors (`new`) are not allowed; probes only read [9,34)");
}

TEST_F(ParseTest, LambdasAndMethodReferencesAreRefused) {
  EXPECT_EQ(Show("x -> x"), "refused: `->`: lambdas are not allowed; probes only read [2,4)");
  EXPECT_EQ(Show("String::length"), "refused: `::`: method references are not allowed; probes only read [6,8)");
}

TEST_F(ParseTest, CastsAreRefused) {
  EXPECT_EQ(Show("(int) d"), "refused: `(int) d`: casts are not allowed [0,7)");
  EXPECT_EQ(Show("(long) (i + 1)"), "refused: `(long) (i + 1)`: casts are not allowed [0,14)");
  EXPECT_EQ(Show("(String) obj"), "refused: `(String) obj`: casts are not allowed [0,12)");
  EXPECT_EQ(Show("(java.lang.String) obj"), "refused: `(java.lang.String) obj`: casts are not allowed [0,22)");
  EXPECT_EQ(Show("(i) + 1"), "8");  // a parenthesized name before a binary + is no cast
}

TEST_F(ParseTest, NestingIsBounded) {
  std::string deep(200, '(');
  deep += "1";
  deep += std::string(200, ')');
  EXPECT_TRUE(Show(deep).starts_with("refused: "));
  EXPECT_NE(Show(deep).find("nests deeper than 64 levels"), std::string::npos);
  std::string minus;
  for (int k = 0; k < 300; ++k) minus += "- ";
  EXPECT_NE(Show(minus + "1").find("nests deeper than 64 levels"), std::string::npos);
  std::string sum = "1";
  for (int k = 0; k < 100; ++k) sum += "+1";
  EXPECT_NE(Show(sum).find("nests deeper than 64 levels"), std::string::npos);
  std::string parentheses(60, '(');
  EXPECT_EQ(Show(parentheses + "i" + std::string(60, ')')), "7");
  std::string short_sum = "1";
  for (int k = 0; k < 60; ++k) short_sum += "+1";
  EXPECT_EQ(Show(short_sum), "61");
}

TEST_F(ParseTest, LengthIsBounded) {
  std::string spaces(5000, ' ');
  EXPECT_EQ(Show(spaces + "1"), "refused: the expression is longer than 4096 characters [0,5001)");
}

}  // namespace
}  // namespace jdwpx::expr::testing
