// Agent_OnAttach's option string (jcmd JVMTI.agent_load): the load-time rules,
// the quoted forms a caller may leave, and what cannot apply to a running JVM.
#include "backend/start/attach_options.h"

#include <string>

#include <gtest/gtest.h>

namespace jdwpx::backend {
namespace {

AttachOptions MustParse(std::string_view text, int version = 17) {
  auto result = ParseAttachOptions(text, version);
  EXPECT_TRUE(result.has_value()) << text << " -> " << (result ? "" : result.error().stderr_text);
  return result ? *result : AttachOptions{};
}

std::string MustFail(std::string_view text, int version = 17) {
  auto result = ParseAttachOptions(text, version);
  EXPECT_FALSE(result.has_value()) << text;
  return result ? "<parsed>" : result.error().stderr_text;
}

TEST(AttachOptions, AsJcmdPassesThem) {
  // jcmd <pid> JVMTI.agent_load lib '"transport=dt_socket,server=y,address=0"': jcmd drops the quotes.
  auto a = MustParse("transport=dt_socket,server=y,address=0");
  EXPECT_EQ(a.options.transport, "dt_socket");
  EXPECT_TRUE(a.options.server);
  EXPECT_EQ(a.options.address, "0");
  EXPECT_FALSE(a.options.suspend);  // the default y does not hold a running application
  EXPECT_TRUE(a.warnings.empty());
  EXPECT_FALSE(a.help);
}

TEST(AttachOptions, OneSurroundingPairOfQuotesAndBlanksDropped) {
  for (std::string_view text : {"\"transport=dt_socket,server=y,address=127.0.0.1:0\"",
                                "'transport=dt_socket,server=y,address=127.0.0.1:0'",
                                "  \"transport=dt_socket,server=y,address=127.0.0.1:0\" \n",
                                "\" transport=dt_socket,server=y,address=127.0.0.1:0 \""}) {
    auto a = MustParse(text);
    EXPECT_EQ(a.options.transport, "dt_socket") << text;
    EXPECT_EQ(a.options.address, "127.0.0.1:0") << text;
  }
}

TEST(AttachOptions, UnmatchedOrInnerQuotesAreTheOptions) {
  // Only a matching pair around the whole string is the caller's quoting.
  EXPECT_EQ(MustFail("\"transport=dt_socket,server=y"),
            "ERROR: JDWP option syntax error: -agentlib:jdwp=\"transport=dt_socket,server=y\n");
  EXPECT_EQ(MustFail("\"transport=dt_socket,server=y'"),
            "ERROR: JDWP option syntax error: -agentlib:jdwp=\"transport=dt_socket,server=y'\n");
  auto a = MustParse("transport=dt_socket,server=y,address=0,launch='x y'");
  EXPECT_EQ(a.options.launch, "'x y'");
}

TEST(AttachOptions, ErrorsAreStockTextsAndNeverExit) {
  EXPECT_EQ(MustFail("transport=dt_socket,bogus=y"),
            "ERROR: JDWP option syntax error: -agentlib:jdwp=transport=dt_socket,bogus=y\n");
  EXPECT_NE(MustFail("server=y").find("ERROR: JDWP no transport specified"), std::string::npos);
  EXPECT_NE(MustFail("transport=dt_socket,server=y,suspend=maybe").find("option syntax error"), std::string::npos);
  EXPECT_NE(MustFail("").find("ERROR: JDWP no transport specified"), std::string::npos);
  EXPECT_NE(MustFail("\"\"").find("ERROR: JDWP no transport specified"), std::string::npos);
}

TEST(AttachOptions, StartTriggersRefused) {
  const std::string text = "ERROR: JDWP onthrow= and onuncaught= cannot be used when loading into a running JVM\n";
  EXPECT_EQ(MustFail("transport=dt_socket,server=y,onthrow=java.io.IOException,launch=x"), text);
  EXPECT_EQ(MustFail("transport=dt_socket,server=y,onuncaught=y,launch=x"), text);
}

TEST(AttachOptions, SuspendYesIgnoredWithAWarning) {
  const std::string warning =
      "WARNING: JDWP suspend=y ignored: the application already runs, and debugging started by jcmd "
      "never suspends it (as onjcmd=y forces suspend=n)\n";
  for (std::string_view text : {"transport=dt_socket,server=y,suspend=y,address=0",
                                "\"transport=dt_socket,server=y,address=0,suspend=y\"",
                                "transport=dt_socket,server=y,address=0,onjcmd=y,suspend=y",
                                "transport=dt_socket,server=y,suspend=n,suspend=y"}) {
    auto a = MustParse(text);
    EXPECT_FALSE(a.options.suspend) << text;
    ASSERT_EQ(a.warnings.size(), 1u) << text;
    EXPECT_EQ(a.warnings[0], warning);
  }
  // Not given, given as n, or overridden by a later n: nothing to say.
  for (std::string_view text : {"transport=dt_socket,server=y", "transport=dt_socket,server=y,suspend=n",
                                "transport=dt_socket,server=y,suspend=y,suspend=n"}) {
    auto a = MustParse(text);
    EXPECT_FALSE(a.options.suspend) << text;
    EXPECT_TRUE(a.warnings.empty()) << text;
  }
}

TEST(AttachOptions, OnjcmdAndServerNKept) {
  auto dormant = MustParse("transport=dt_socket,server=y,address=0,onjcmd=y");
  EXPECT_TRUE(dormant.options.onjcmd);
  auto client = MustParse("transport=dt_socket,server=n,address=127.0.0.1:5005");
  EXPECT_FALSE(client.options.server);
  EXPECT_EQ(client.options.address, "127.0.0.1:5005");
  EXPECT_NE(MustFail("transport=dt_socket,server=n,address=1,onjcmd=y").find("ERROR: JDWP"), std::string::npos);
}

TEST(AttachOptions, Help) {
  auto a = MustParse("help");
  EXPECT_TRUE(a.help);
  EXPECT_TRUE(MustParse("\"help\"").help);
}

TEST(AttachOptions, JdkVersionRulesApply) {
  EXPECT_NE(MustFail("transport=dt_socket,server=y,includevirtualthreads=y", 17).find("option syntax error"),
            std::string::npos);
  EXPECT_TRUE(MustParse("transport=dt_socket,server=y,includevirtualthreads=y", 25).options.include_virtual_threads);
}

}  // namespace
}  // namespace jdwpx::backend
