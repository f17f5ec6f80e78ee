// Templates: holes, literal braces, errors at compile time (with offsets into
// the template) and at format time ("<error: why>" and the errors list).
#include "expr/tests/test_world.h"

namespace jdwpx::expr::testing {
namespace {

using TemplateTest = ExprTest;

TEST_F(TemplateTest, Holes) {
  auto compiled = Template::Compile("x={i} s={s.length()} total={order.total}", scope);
  ASSERT_TRUE(compiled) << compiled.error().message;
  std::vector<std::string> errors;
  EXPECT_EQ(compiled->Format(heap, &errors), "x=7 s=5 total=5");
  EXPECT_TRUE(errors.empty());
}

TEST_F(TemplateTest, LiteralBraces) {
  auto compiled = Template::Compile("{{i}} = {i} }}{{", scope);
  ASSERT_TRUE(compiled) << compiled.error().message;
  EXPECT_EQ(compiled->Format(heap), "{i} = 7 }{");
  auto plain = Template::Compile("no holes", scope);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->Format(heap), "no holes");
  auto empty = Template::Compile("", scope);
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->Format(heap), "");
}

TEST_F(TemplateTest, BracesInsideStringLiteralsOfHoles) {
  auto compiled = Template::Compile("[{\"}\" + s}] [{'{'}]", scope);
  ASSERT_TRUE(compiled) << compiled.error().message;
  EXPECT_EQ(compiled->Format(heap), "[}hello] [{]");
}

TEST_F(TemplateTest, CompileProblemsPointIntoTheTemplate) {
  auto unclosed = Template::Compile("a={i", scope);
  ASSERT_FALSE(unclosed);
  EXPECT_EQ(unclosed.error().message, "`{i`: unclosed `{`");
  EXPECT_EQ(unclosed.error().begin, 2u);
  EXPECT_EQ(unclosed.error().end, 4u);

  auto lone = Template::Compile("a} {i}", scope);
  ASSERT_FALSE(lone);
  EXPECT_EQ(lone.error().message, "`}`: a lone `}`; write `}}` for a brace");
  EXPECT_EQ(lone.error().begin, 1u);

  auto empty = Template::Compile("x={ }", scope);
  ASSERT_FALSE(empty);
  EXPECT_EQ(empty.error().message, "`{}`: an empty hole; write `{{}}` for braces");

  auto unknown = Template::Compile("n={i} c={cnt}", scope);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message, "`cnt`: no local variable, field or class of that name at this location");
  EXPECT_EQ(unknown.error().begin, 9u);
  EXPECT_EQ(unknown.error().end, 12u);

  auto call = Template::Compile("t={order.total()}", scope);
  ASSERT_FALSE(call);
  EXPECT_EQ(call.error().message, "`order.total()`: calls to application methods are not allowed; probes only read");
  EXPECT_EQ(call.error().begin, 3u);
  EXPECT_EQ(call.error().end, 16u);
}

TEST_F(TemplateTest, EvaluationErrorsReadAsErrorAndAreListed) {
  auto compiled = Template::Compile("a={i / zero} b={nothing.total} c={i}", scope);
  ASSERT_TRUE(compiled) << compiled.error().message;
  std::vector<std::string> errors;
  EXPECT_EQ(compiled->Format(heap, &errors),
            "a=<error: / by zero> b=<error: `nothing.total`: nothing is null> c=7");
  EXPECT_EQ(errors, (std::vector<std::string>{"/ by zero", "`nothing.total`: nothing is null"}));
  EXPECT_EQ(compiled->Format(heap), "a=<error: / by zero> b=<error: `nothing.total`: nothing is null> c=7");
}

TEST_F(TemplateTest, StepLimitPerHole) {
  auto compiled = Template::Compile("{i + i} {i}", scope);
  ASSERT_TRUE(compiled);
  std::vector<std::string> errors;
  EXPECT_EQ(compiled->Format(heap, &errors, 2), "<error: step limit (2) exceeded> 7");
  EXPECT_EQ(errors.size(), 1u);
}

TEST_F(TemplateTest, LongStringsAreCutInTheMessage) {
  Ref long_string = world.NewString(std::u16string(1000, u'a'));
  world.SetLocal("long_text", Type::Reference("java.lang.String"), Object(long_string, "java.lang.String"));
  auto compiled = Template::Compile("{long_text}|{long_text.length()}", scope);
  ASSERT_TRUE(compiled);
  EXPECT_EQ(compiled->Format(heap), std::string(256, 'a') + "|1000");
}

}  // namespace
}  // namespace jdwpx::expr::testing
