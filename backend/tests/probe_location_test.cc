// How probe locations are read (backend/probes/probe_location.h): the three
// forms and the messages of what is wrong. The places in classes are tested
// with real classes (integration/test_probes.py).
#include "backend/probes/probe_location.h"

#include <gtest/gtest.h>

namespace jdwpx::backend::probes {
namespace {

TEST(ParseLocation, ClassAndLine) {
  auto spec = ParseLocation("com.shop.Orders$Line:42");
  ASSERT_TRUE(spec) << spec.error();
  EXPECT_EQ(spec->form, LocationSpec::Form::kClassLine);
  EXPECT_EQ(spec->class_name, "com.shop.Orders$Line");
  EXPECT_EQ(spec->line, 42);
  EXPECT_EQ(spec->text, "com.shop.Orders$Line:42");
}

TEST(ParseLocation, SourceFileAndLineDropsTheDirectory) {
  auto spec = ParseLocation("src/main/java/com/shop/Orders.java:7");
  ASSERT_TRUE(spec) << spec.error();
  EXPECT_EQ(spec->form, LocationSpec::Form::kFileLine);
  EXPECT_EQ(spec->file, "Orders.java");
  EXPECT_EQ(spec->line, 7);
}

TEST(ParseLocation, ClassAndMethod) {
  auto spec = ParseLocation("com.shop.Orders.place");
  ASSERT_TRUE(spec) << spec.error();
  EXPECT_EQ(spec->form, LocationSpec::Form::kMethodEntry);
  EXPECT_EQ(spec->class_name, "com.shop.Orders");
  EXPECT_EQ(spec->method, "place");
}

TEST(ParseLocation, RefusalsSayWhatIsExpected) {
  EXPECT_EQ(ParseLocation("Orders:0").error(), "`Orders:0`: the line after ':' must be a positive number");
  EXPECT_EQ(ParseLocation("Orders:4x").error(), "`Orders:4x`: the line after ':' must be a positive number");
  EXPECT_EQ(ParseLocation("Orders:").error(), "`Orders:`: the line after ':' must be a positive number");
  EXPECT_EQ(ParseLocation("Orders").error(), "`Orders`: expected Class:line, File.java:line or Class.method");
  EXPECT_EQ(ParseLocation("a..b:3").error(), "`a..b:3`: expected Class:line, File.java:line or Class.method");
  EXPECT_EQ(ParseLocation("").error(), "``: expected Class:line, File.java:line or Class.method");
  EXPECT_EQ(ParseLocation("x y.z").error(), "`x y.z`: expected Class:line, File.java:line or Class.method");
}

}  // namespace
}  // namespace jdwpx::backend::probes
