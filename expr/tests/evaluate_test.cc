// Run-time semantics: each operator, overflow, division by zero, shifts,
// short-circuits, null dereference, index bounds, the step limit.
#include "expr/tests/test_world.h"

#include <pthread.h>

namespace jdwpx::expr::testing {
namespace {

using EvaluateTest = ExprTest;

TEST_F(EvaluateTest, Arithmetic) {
  EXPECT_EQ(Show("i + 3"), "10");
  EXPECT_EQ(Show("i - 10"), "-3");
  EXPECT_EQ(Show("i * 6"), "42");
  EXPECT_EQ(Show("i / 2"), "3");
  EXPECT_EQ(Show("-i / 2"), "-3");  // toward zero
  EXPECT_EQ(Show("i % 3"), "1");
  EXPECT_EQ(Show("-i % 3"), "-1");  // the sign of the dividend
  EXPECT_EQ(Show("j * 2"), "20000000000");
  EXPECT_EQ(Show("f * 2"), "3.0");
  EXPECT_EQ(Show("d / 2"), "1.25");
  EXPECT_EQ(Show("d % 1"), "0.5");
  EXPECT_EQ(Show("-d % 2"), "-0.5");
  EXPECT_EQ(Show("c + 1"), "121");
  EXPECT_EQ(Show("b * sh"), "-900");
  EXPECT_EQ(Show("+b"), "-3");
  EXPECT_EQ(Show("~i"), "-8");
  EXPECT_EQ(Show("~j"), "-10000000001");
  EXPECT_EQ(Show("1 / 2.0"), "0.5");
  EXPECT_EQ(Show("1 / 0.0"), "Infinity");
  EXPECT_EQ(Show("0.0 / 0"), "NaN");
  EXPECT_EQ(Show("1 % 0.0"), "NaN");
}

TEST_F(EvaluateTest, IntegerOverflowWraps) {
  EXPECT_EQ(Show("big + 1"), "-2147483648");
  EXPECT_EQ(Show("big * 2"), "-2");
  EXPECT_EQ(Show("-2147483648 - 1"), "2147483647");
  EXPECT_EQ(Show("-(-2147483648)"), "-2147483648");
  EXPECT_EQ(Show("-2147483648 / -1"), "-2147483648");
  EXPECT_EQ(Show("-2147483648 % -1"), "0");
  EXPECT_EQ(Show("-9223372036854775808L / -1"), "-9223372036854775808");
  EXPECT_EQ(Show("9223372036854775807L + 1"), "-9223372036854775808");
  EXPECT_EQ(Show("big + 1L"), "2147483648");  // promoted to long first
}

TEST_F(EvaluateTest, DivisionByZero) {
  EXPECT_EQ(Show("i / zero"), "error: / by zero");
  EXPECT_EQ(Show("i % zero"), "error: / by zero");
  EXPECT_EQ(Show("j / 0"), "error: / by zero");
  EXPECT_EQ(Show("j % 0L"), "error: / by zero");
}

TEST_F(EvaluateTest, ShiftsMaskTheCount) {
  EXPECT_EQ(Show("1 << 33"), "2");
  EXPECT_EQ(Show("1L << 33"), "8589934592");
  EXPECT_EQ(Show("1L << 65"), "2");
  EXPECT_EQ(Show("-16 >> 2"), "-4");
  EXPECT_EQ(Show("-16 >>> 28"), "15");
  EXPECT_EQ(Show("-16L >>> 60"), "15");
  EXPECT_EQ(Show("1 << -1"), "-2147483648");
  EXPECT_EQ(Show("i << 2L"), "28");
  EXPECT_EQ(Show("b >>> 28"), "15");  // byte promoted to int first
}

TEST_F(EvaluateTest, Comparisons) {
  EXPECT_EQ(Show("i < 8"), "true");
  EXPECT_EQ(Show("i <= 7"), "true");
  EXPECT_EQ(Show("i > 7"), "false");
  EXPECT_EQ(Show("i >= 8"), "false");
  EXPECT_EQ(Show("j > i"), "true");
  EXPECT_EQ(Show("c == 'x'"), "true");
  EXPECT_EQ(Show("c == 120"), "true");
  EXPECT_EQ(Show("f == 1.5"), "true");
  EXPECT_EQ(Show("0.1f == 0.1"), "false");
  EXPECT_EQ(Show("0.0 / 0 == 0.0 / 0"), "false");
  EXPECT_EQ(Show("0.0 == -0.0"), "true");
  EXPECT_EQ(Show("0.0 / 0 < 1"), "false");
  EXPECT_EQ(Show("z != false"), "true");
  EXPECT_EQ(Show("boxed == 42"), "true");  // unboxed
  EXPECT_EQ(Show("42 == boxed"), "true");
}

TEST_F(EvaluateTest, ReferenceEquality) {
  EXPECT_EQ(Show("order == order"), "true");
  EXPECT_EQ(Show("order.next == this"), "true");
  EXPECT_EQ(Show("order == this"), "false");
  EXPECT_EQ(Show("nothing == null"), "true");
  EXPECT_EQ(Show("null == nothing"), "true");
  EXPECT_EQ(Show("order != null"), "true");
  EXPECT_EQ(Show("null == null"), "true");
  EXPECT_EQ(Show("obj == order"), "true");
  EXPECT_EQ(Show("s == \"hello\""), "false");  // identity: a string the expression made is no program object
  EXPECT_EQ(Show("nul == null"), "true");
}

TEST_F(EvaluateTest, BooleanOperators) {
  EXPECT_EQ(Show("z & false"), "false");
  EXPECT_EQ(Show("z | false"), "true");
  EXPECT_EQ(Show("z ^ true"), "false");
  EXPECT_EQ(Show("6 & 3"), "2");
  EXPECT_EQ(Show("6 | 3"), "7");
  EXPECT_EQ(Show("6 ^ 3"), "5");
  EXPECT_EQ(Show("j & 0xFFFFFFFFL"), "1410065408");
  EXPECT_EQ(Show("!z"), "false");
}

TEST_F(EvaluateTest, ShortCircuitSkipsTheRightSide) {
  EXPECT_EQ(Show("false && list.size() > 0"), "false");
  EXPECT_EQ(Show("true || list.isEmpty()"), "true");
  EXPECT_EQ(Show("nothing != null && nothing.total > 0"), "false");
  EXPECT_EQ(Show("nothing == null || nothing.total > 0"), "true");
  EXPECT_EQ(Show("z ? 1 : i / zero"), "1");
  EXPECT_EQ(Show("!z ? list.size() : 2"), "2");
  EXPECT_TRUE(world.calls.empty());
  EXPECT_EQ(Show("true && list.size() > 0"), "true");
  EXPECT_EQ(world.calls, std::vector<std::string>{"java/util/Collection.size"});
}

TEST_F(EvaluateTest, Conditional) {
  EXPECT_EQ(Show("z ? i : j"), "7");  // converted to the promoted type, long
  EXPECT_EQ(Show("z ? 1 : 2.0"), "1.0");
  EXPECT_EQ(Show("!z ? s : \"other\""), "other");
  EXPECT_EQ(Show("z ? nothing : order"), "null");
}

TEST_F(EvaluateTest, NullDereference) {
  EXPECT_EQ(Show("nothing.total"), "error: `nothing.total`: nothing is null");
  EXPECT_EQ(Show("order.name.length()"), "error: `order.name.length()`: order.name is null");
  EXPECT_EQ(Show("this.next.next"), "error: `this.next.next`: this.next is null");
  EXPECT_EQ(Show("next.total"), "error: `next.total`: next is null");
  EXPECT_EQ(Show("order.next.next.total + 1"), "error: `order.next.next.total`: order.next.next is null");
  EXPECT_EQ(Show("nullbox + 1"), "error: `nullbox`: is null and cannot be unboxed");
}

TEST_F(EvaluateTest, Arrays) {
  EXPECT_EQ(Show("arr.length"), "3");
  EXPECT_EQ(Show("arr[0] + arr[2]"), "4");
  EXPECT_EQ(Show("arr[c - 'x' + 1]"), "2");
  EXPECT_EQ(Show("names[0]"), "a");
  EXPECT_EQ(Show("names[1]"), "null");
  EXPECT_EQ(Show("arr[3]"), "error: `arr[3]`: index 3 out of bounds for length 3");
  EXPECT_EQ(Show("arr[-1]"), "error: `arr[-1]`: index -1 out of bounds for length 3");
  EXPECT_EQ(Show("names[1].length()"), "error: `names[1].length()`: names[1] is null");
}

TEST_F(EvaluateTest, StepLimit) {
  EXPECT_EQ(Show("i + i + i", 5), "21");  // five nodes
  EXPECT_EQ(Show("i + i + i", 4), "error: step limit (4) exceeded");
  EXPECT_EQ(Show("1", 0), "error: step limit (0) exceeded");
}

// The deepest expressions the parser accepts compile and evaluate within a
// 256 KiB stack (a Java thread's is 1 MiB by default; the evaluation runs on it).
TEST_F(EvaluateTest, DeepestExpressionsFitInASmallStack) {
  struct Job {
    ExprTest* test;
    std::vector<std::string> results;
  } job{this, {}};
  auto run = [](void* arg) -> void* {
    auto* job = static_cast<Job*>(arg);
    std::string parens = std::string(62, '(') + "i" + std::string(62, ')');
    std::string sum = "i";
    for (int k = 0; k < 63; ++k) sum += " + i";
    std::string calls = "s";
    for (int k = 0; k < 20; ++k) calls = "s.substring(" + calls + ".length() - 5)";
    std::string minus = "boxed";
    for (int k = 0; k < 62; ++k) minus = "- " + minus;
    for (const std::string& text : {parens, sum, calls, minus}) job->results.push_back(job->test->Show(text));
    return nullptr;
  };
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_attr_setstacksize(&attributes, 256 * 1024);
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, &attributes, run, &job), 0);
  pthread_join(thread, nullptr);
  pthread_attr_destroy(&attributes);
  EXPECT_EQ(job.results, (std::vector<std::string>{"7", "448", "hello", "42"}));
}

TEST_F(EvaluateTest, HeapErrorsPropagate) {
  world.local_values.erase(world.locals.at("i").slot);
  EXPECT_EQ(Show("1 + i"), "error: slot not live");
}

}  // namespace
}  // namespace jdwpx::expr::testing
