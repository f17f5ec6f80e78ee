// JSR-45 source maps as stock's SDE.c reads them: strata, the default stratum,
// the converted line tables a step follows, and the source names.
#include "backend/ids/smap.h"

#include <gtest/gtest.h>

namespace jdwpx::backend {
namespace {

using Entries = std::vector<Smap::LineEntry>;

// Java lines 10..14 of Hello.java come from two JSP files:
//   greeting.jsp lines 1..3 <- Java 10, 11 (twice: increment 2 below), 14
constexpr const char* kJsp =
    "SMAP\n"
    "Hello.java\n"
    "JSP\n"
    "*S JSP\n"
    "*F\n"
    "+ 1 greeting.jsp\n"
    "/web/greeting.jsp\n"
    "2 footer.jsp\n"
    "*L\n"
    "1#1,2:10\n"      // JSP 1 -> Java 10, JSP 2 -> Java 11
    "3:12,2\n"        // JSP 3 -> Java 12 and 13
    "7#2:14\n"        // footer.jsp 7 -> Java 14
    "*E\n";

constexpr int kGreeting = 1 << 16;
constexpr int kFooter = 2 << 16;

TEST(Smap, NotAnSmap) {
  EXPECT_FALSE(Smap::Parse(""));
  EXPECT_FALSE(Smap::Parse("SMAP"));
  EXPECT_FALSE(Smap::Parse("something else entirely\n"));
}

TEST(Smap, MalformedIsRefused) {
  EXPECT_FALSE(Smap::Parse("SMAP\nHello.java\nJSP\n*S JSP\n*L\n1:10\n"));  // no *E
  EXPECT_FALSE(Smap::Parse("SMAP\nHello.java\nJSP\n*S JSP\n*L\n1;10\n*E\n"));  // no ':'
  EXPECT_FALSE(Smap::Parse("SMAP\nHello.java\nJSP\nS JSP\n*E\n"));  // a section without '*'
}

TEST(Smap, DefaultStratumConvertsTheLineTable) {
  auto map = Smap::Parse(kJsp);
  ASSERT_TRUE(map);
  Entries java{{0, 10}, {4, 11}, {8, 12}, {12, 13}, {16, 14}, {20, 15}};
  // "" and an undeclared stratum both mean the map's default (JSP).
  Entries jsp{{0, kGreeting + 1}, {4, kGreeting + 2}, {8, kGreeting + 3}, {16, kFooter + 7}};
  EXPECT_EQ(map->StepLines("", java), jsp);
  EXPECT_EQ(map->StepLines("Kotlin", java), jsp);
  EXPECT_EQ(map->StepLines("JSP", java), jsp);
  EXPECT_FALSE(map->StepsByJavaLines(""));
}

TEST(Smap, JavaStratumLeavesTheTable) {
  auto map = Smap::Parse(kJsp);
  ASSERT_TRUE(map);
  Entries java{{0, 10}, {4, 11}};
  EXPECT_EQ(map->StepLines("Java", java), java);
  EXPECT_TRUE(map->StepsByJavaLines("Java"));
  // A map whose own default is Java: steps by Java lines unless told otherwise.
  auto java_default = Smap::Parse("SMAP\nA.java\nJava\n*S Kt\n*F\n1 A.kt\n*L\n5:10\n*E\n");
  ASSERT_TRUE(java_default);
  EXPECT_EQ(java_default->StepLines("", java), java);
  // No "#<file id>" in its line section: file id 0, as stock counts it.
  EXPECT_EQ(java_default->StepLines("Kt", java), (Entries{{0, 5}}));
}

TEST(Smap, UndeclaredDefaultStaysJava) {
  // Stock recurses without end here; the Java lines are kept instead.
  auto map = Smap::Parse("SMAP\nA.java\nNowhere\n*S Kt\n*F\n1 A.kt\n*L\n5:10\n*E\n");
  ASSERT_TRUE(map);
  Entries java{{0, 10}};
  EXPECT_EQ(map->StepLines("", java), java);
}

TEST(Smap, CrLfWhitespaceAndUnknownSections) {
  auto map = Smap::Parse("SMAP\r\nHello.java\r\n  JSP\r\n*S JSP\r\n*F\r\n 1 a.jsp\r\n*V\r\nvendor stuff\r\n"
                         "*L\r\n 2 , 2 : 20 \r\n*E\r\n");
  ASSERT_TRUE(map);
  Entries java{{0, 20}, {3, 21}, {6, 22}};
  EXPECT_EQ(map->StepLines("", java), (Entries{{0, 2}, {3, 3}}));
}

TEST(Smap, SourceNamesOfEveryStratum) {
  auto map = Smap::Parse(kJsp);
  ASSERT_TRUE(map);
  std::vector<std::string> names;
  EXPECT_FALSE(map->AnySourceName([&](std::string_view n) {
    names.emplace_back(n);
    return false;
  }));
  EXPECT_EQ(names, (std::vector<std::string>{"Hello.java", "greeting.jsp", "footer.jsp"}));
  EXPECT_TRUE(map->AnySourceName([](std::string_view n) { return n == "footer.jsp"; }));
}

}  // namespace
}  // namespace jdwpx::backend
