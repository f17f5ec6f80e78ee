// Option parsing against the texts the JDK's own agent prints (recorded from
// OpenJDK 17.0.21 and Temurin 25.0.3; see messages.h).
#include "backend/options.h"

#include <string>

#include <gtest/gtest.h>

namespace jdwpx::backend {
namespace {

constexpr int kJdk17 = 17;
constexpr int kJdk21 = 21;
constexpr int kJdk25 = 25;

Options MustParse(std::string_view text, int version = kJdk17) {
  auto result = ParseOptions(text, version);
  EXPECT_TRUE(result.has_value()) << text << " -> " << (result ? "" : result.error().stderr_text);
  return result ? *result : Options{};
}

OptionsError MustFail(std::string_view text, int version = kJdk17,
                      std::optional<std::string_view> environment = std::nullopt) {
  auto result = ParseOptions(text, version, environment);
  EXPECT_FALSE(result.has_value()) << text;
  return result ? OptionsError{"<parsed>", -1} : result.error();
}

std::string SyntaxError(std::string_view all) {
  return "ERROR: JDWP option syntax error: -agentlib:jdwp=" + std::string(all) + "\n";
}

void ExpectSyntaxError(std::string_view text, int version = kJdk17) {
  const OptionsError error = MustFail(text, version);
  EXPECT_EQ(error.stderr_text, SyntaxError(text));
  EXPECT_EQ(error.exit_code, 1);
}

constexpr std::string_view kBase = "transport=dt_socket,server=y,suspend=n,address=0";

std::string WithBase(std::string_view extra) { return std::string(kBase) + "," + std::string(extra); }

// --- defaults and every option ----------------------------------------------

TEST(Defaults, MinimalServer) {
  const Options o = MustParse("transport=dt_socket,server=y");
  EXPECT_EQ(o.raw, "transport=dt_socket,server=y");
  EXPECT_FALSE(o.help);
  EXPECT_EQ(o.transport, "dt_socket");
  EXPECT_FALSE(o.address.has_value());
  EXPECT_TRUE(o.server);
  EXPECT_TRUE(o.suspend);
  EXPECT_EQ(o.timeout_ms, 0);
  EXPECT_FALSE(o.allow.has_value());
  EXPECT_FALSE(o.launch.has_value());
  EXPECT_FALSE(o.onthrow.has_value());
  EXPECT_FALSE(o.onuncaught);
  EXPECT_FALSE(o.quiet);
  EXPECT_FALSE(o.mutf8);
  EXPECT_FALSE(o.logfile.has_value());
  EXPECT_EQ(o.logflags, 0u);
  EXPECT_FALSE(o.strict);
  EXPECT_FALSE(o.stdalloc);
  EXPECT_FALSE(o.include_virtual_threads);
  EXPECT_EQ(o.log_level, LogLevel::kWarn);
}

TEST(Defaults, ServerDefaultsToNoSoClientNeedsAddress) {
  const Options o = MustParse("transport=dt_socket,address=localhost:8000");
  EXPECT_FALSE(o.server);
  EXPECT_EQ(o.address, "localhost:8000");
  EXPECT_TRUE(o.suspend);
}

TEST(Parse, EveryAcceptedOption) {
  const Options o = MustParse(
      "transport=dt_socket,address=127.0.0.1:0,server=y,suspend=n,timeout=2500,allow=127.0.0.1+10.0.0.0/8,"
      "onuncaught=n,quiet=y,mutf8=n,logfile=/tmp/x.log,logflags=0x1ff,strict=y,stdalloc=y,loglevel=trace");
  EXPECT_EQ(o.transport, "dt_socket");
  EXPECT_EQ(o.address, "127.0.0.1:0");
  EXPECT_TRUE(o.server);
  EXPECT_FALSE(o.suspend);
  EXPECT_EQ(o.timeout_ms, 2500);
  EXPECT_EQ(o.allow, "127.0.0.1+10.0.0.0/8");
  EXPECT_FALSE(o.onuncaught);
  EXPECT_TRUE(o.quiet);
  EXPECT_FALSE(o.mutf8);
  EXPECT_EQ(o.logfile, "/tmp/x.log");
  EXPECT_EQ(o.logflags, 0x1ffu);
  EXPECT_TRUE(o.strict);
  EXPECT_TRUE(o.stdalloc);
  EXPECT_EQ(o.log_level, LogLevel::kTrace);
}

TEST(Parse, LogLevels) {
  const std::pair<std::string_view, LogLevel> cases[] = {
      {"trace", LogLevel::kTrace}, {"debug", LogLevel::kDebug}, {"info", LogLevel::kInfo},
      {"warn", LogLevel::kWarn},   {"error", LogLevel::kError}, {"off", LogLevel::kOff}};
  for (const auto& [name, level] : cases) {
    EXPECT_EQ(MustParse(WithBase("loglevel=" + std::string(name))).log_level, level) << name;
    EXPECT_EQ(LogLevelName(level), name);
  }
  ExpectSyntaxError(WithBase("loglevel=verbose"));
  ExpectSyntaxError(WithBase("loglevel=WARN"));
  ExpectSyntaxError(WithBase("loglevel="));
}

TEST(Parse, TraceOptions) {
  const Options none = MustParse(std::string(kBase));
  EXPECT_FALSE(none.trace);
  EXPECT_FALSE(none.trace_bytes);
  EXPECT_EQ(none.trace_size_mb, 0);
  const Options o = MustParse(WithBase("trace=/tmp/t.%p.bin,tracebytes=y,tracesize=16"));
  EXPECT_EQ(o.trace, "/tmp/t.%p.bin");
  EXPECT_TRUE(o.trace_bytes);
  EXPECT_EQ(o.trace_size_mb, 16);
  EXPECT_FALSE(MustParse(WithBase("trace=x,tracebytes=n")).trace_bytes);
  ExpectSyntaxError(WithBase("trace="));
  ExpectSyntaxError(WithBase("tracebytes=yes"));
  ExpectSyntaxError(WithBase("tracesize=0"));
  ExpectSyntaxError(WithBase("tracesize=-1"));
  ExpectSyntaxError(WithBase("tracesize=1MB"));
  ExpectSyntaxError(WithBase("tracesize="));
  ExpectSyntaxError(WithBase("tracesize=99999999"));
}

void ExpectOurError(std::string_view text, std::string_view detail) {
  const OptionsError error = MustFail(text);
  EXPECT_EQ(error.stderr_text, "ERROR: JDWP option " + std::string(detail) + "\n" + SyntaxError(text));
  EXPECT_EQ(error.exit_code, 1);
}

TEST(Parse, OrchestratorOptionsAbsentAreStocks) {
  const Options o = MustParse(std::string(kBase));
  EXPECT_EQ(o.handshake_timeout_ms, Options::kDefaultHandshakeTimeoutMs);
  EXPECT_EQ(o.suspend_timeout_ms, 0);
  EXPECT_FALSE(o.onbindfail_continue);
  EXPECT_FALSE(o.address_file);
  EXPECT_FALSE(o.unix_root);
}

TEST(Parse, OrchestratorOptions) {
  const Options o = MustParse(
      "transport=dt_socket,server=y,address=unix:/run/j.sock,handshaketimeout=30000,suspendtimeout=120000,"
      "onbindfail=continue,addressfile=/tmp/jdwp.%p,unixroot=y");
  EXPECT_EQ(o.address, "unix:/run/j.sock");
  EXPECT_EQ(o.handshake_timeout_ms, 30000);
  EXPECT_EQ(o.suspend_timeout_ms, 120000);
  EXPECT_TRUE(o.onbindfail_continue);
  EXPECT_EQ(o.address_file, "/tmp/jdwp.%p");
  EXPECT_TRUE(o.unix_root);
  EXPECT_FALSE(MustParse(WithBase("onbindfail=continue,onbindfail=abort")).onbindfail_continue);
  EXPECT_FALSE(MustParse(WithBase("unixroot=n")).unix_root);
  EXPECT_EQ(MustParse(WithBase("handshaketimeout=86400000")).handshake_timeout_ms, 86400000);
}

TEST(Parse, OrchestratorOptionsBadValues) {
  const std::string range = ": expected milliseconds, 1 to 86400000";
  ExpectOurError(WithBase("handshaketimeout=abc"), "handshaketimeout=abc" + range);
  ExpectOurError(WithBase("handshaketimeout=0"), "handshaketimeout=0" + range);
  ExpectOurError(WithBase("handshaketimeout=-5"), "handshaketimeout=-5" + range);
  ExpectOurError(WithBase("handshaketimeout=86400001"), "handshaketimeout=86400001" + range);
  ExpectOurError(WithBase("handshaketimeout=5s"), "handshaketimeout=5s" + range);
  ExpectOurError(WithBase("handshaketimeout=,quiet=y"), "handshaketimeout=" + range);
  ExpectOurError(WithBase("handshaketimeout="), "handshaketimeout=" + range);
  ExpectOurError("transport=dt_socket,server=y,address=0,suspendtimeout=1e3",
                 "suspendtimeout=1e3" + range);
  ExpectOurError(WithBase("onbindfail=ignore"), "onbindfail=ignore: expected abort or continue");
  ExpectOurError(WithBase("onbindfail=,quiet=y"), "onbindfail=: expected abort or continue");
  ExpectOurError(WithBase("addressfile=,quiet=y"), "addressfile= needs a path");
  ExpectOurError(WithBase("unixroot=yes"), "unixroot=yes: expected y or n");
  // suspendtimeout= bounds suspend=y's wait: meaningless without it.
  ExpectOurError(WithBase("suspendtimeout=1000"), "suspendtimeout= applies with server=y and suspend=y only");
  ExpectOurError("transport=dt_socket,address=1:2,suspendtimeout=1000",
                 "suspendtimeout= applies with server=y and suspend=y only");
}

TEST(Parse, DuplicateOptionLastWins) {
  const Options o = MustParse("transport=dt_socket,server=y,server=n,suspend=n,suspend=y,address=1,address=2");
  EXPECT_FALSE(o.server);
  EXPECT_TRUE(o.suspend);
  EXPECT_EQ(o.address, "2");
}

TEST(Parse, TrailingSingleCommaIsAccepted) {
  EXPECT_EQ(MustParse(std::string(kBase) + ",").address, "0");
}

TEST(Parse, EmptyValueBeforeCommaIsAccepted) {
  // Stock: "address=,timeout=1" listens on an OS-chosen port.
  const Options o = MustParse("transport=dt_socket,server=y,address=,timeout=1");
  EXPECT_EQ(o.address, "");
  EXPECT_EQ(o.timeout_ms, 1);
  EXPECT_EQ(MustParse("transport=,server=y").transport, "");
}

TEST(Parse, TimeoutIsAtol) {
  EXPECT_EQ(MustParse(WithBase("timeout=abc")).timeout_ms, 0);
  EXPECT_EQ(MustParse(WithBase("timeout=500ms")).timeout_ms, 500);
  EXPECT_EQ(MustParse(WithBase("timeout= 42")).timeout_ms, 42);
  EXPECT_EQ(MustParse(WithBase("timeout=-7")).timeout_ms, -7);
  EXPECT_EQ(MustParse(WithBase("timeout=0x10")).timeout_ms, 0);
  EXPECT_EQ(MustParse(WithBase("timeout=99999999999999999999")).timeout_ms, INT64_MAX);
}

TEST(Parse, LogflagsIsStrtolBaseZero) {
  EXPECT_EQ(MustParse(WithBase("logflags=0xfff")).logflags, 0xfffu);
  EXPECT_EQ(MustParse(WithBase("logflags=010")).logflags, 8u);
  EXPECT_EQ(MustParse(WithBase("logflags=12")).logflags, 12u);
  EXPECT_EQ(MustParse(WithBase("logflags=junk")).logflags, 0u);
}

TEST(Parse, ObsoleteAndHiddenOptionsAreAccepted) {
  MustParse(WithBase("strict=n,stdalloc=n"));
  MustParse(WithBase("assert=y,assert=fatal,assert=n,pause=n,coredump=n,errorexit=y,debugflags=1"));
  ExpectSyntaxError(WithBase("assert=x"));
  ExpectSyntaxError(WithBase("strict=yes"));
  ExpectSyntaxError(WithBase("pause=1"));
}

TEST(Parse, RawKeepsTheWholeString) {
  const std::string text = WithBase("quiet=y");
  EXPECT_EQ(MustParse(text).raw, text);
}

// --- help ---------------------------------------------------------------------

TEST(Help, OnlyWhenAlone) {
  const Options o = MustParse("help");
  EXPECT_TRUE(o.help);
  EXPECT_EQ(o.raw, "help");
  ExpectSyntaxError("help,server=y");
  ExpectSyntaxError(WithBase("help"));
  ExpectSyntaxError("help=y");
}

TEST(Help, EnvironmentIsNotAddedToHelp) {
  auto result = ParseOptions("help", kJdk17, "server=x");
  ASSERT_TRUE(result.has_value());
  EXPECT_TRUE(result->help);
}

TEST(Help, Jdk17TextIsStockPlusLoglevelRow) {
  const std::string text = HelpText(kJdk17);
  const std::string expected =
      "               Java Debugger JDWP Agent Library\n"
      "               --------------------------------\n"
      "\n"
      "  (See the \"VM Invocation Options\" section of the JPDA\n"
      "   \"Connection and Invocation Details\" document for more information.)\n"
      "\n"
      "jdwp usage: java -agentlib:jdwp=[help]|[<option>=<value>, ...]\n"
      "\n"
      "Option Name and Value            Description                       Default\n"
      "---------------------            -----------                       -------\n"
      "suspend=y|n                      wait on startup?                  y\n"
      "transport=<name>                 transport spec                    none\n"
      "address=<listen/attach address>  transport spec                    \"\"\n"
      "server=y|n                       listen for debugger?              n\n"
      "allow=<IP|IP-list>               If server=y, allows connections only from the IP addresses/subnets "
      "specified.\n"
      "                                 A list of multiple IP address/subnet entries must be separated by '+'.\n"
      "                                                                   * (allows connection from any address)\n"
      "launch=<command line>            run debugger on event             none\n"
      "onthrow=<exception name>         debug on throw                    none\n"
      "onuncaught=y|n                   debug on any uncaught?            n\n"
      "timeout=<timeout value>          for listen/attach in milliseconds n\n"
      "mutf8=y|n                        output modified utf-8             n\n"
      "quiet=y|n                        control over terminal messages    n\n"
      "loglevel=<level>                 trace|debug|info|warn|error|off   warn\n"
      "trace=<path>                     protocol trace file (%p = pid)    none\n"
      "tracebytes=y|n                   trace packet bodies too?          n\n"
      "tracesize=<MB>                   bound the trace (ring of files)   none\n"
      "handshaketimeout=<ms>            debugger's handshake time limit   2000\n"
      "suspendtimeout=<ms>              suspend=y: then run on undebugged none\n"
      "onbindfail=abort|continue        continue: run on if cannot listen abort\n"
      "addressfile=<path>               write the address (%p = pid)      none\n"
      "unixroot=y|n                     address=unix:: root may attach?   n\n"
      "\n"
      "Obsolete Options\n"
      "----------------\n"
      "strict=y|n\n"
      "stdalloc=y|n\n"
      "\n"
      "Examples\n"
      "--------\n"
      "  - Using sockets connect to a debugger at a specific address:\n"
      "    java -agentlib:jdwp=transport=dt_socket,address=localhost:8000 ...\n"
      "  - Using sockets listen for a debugger to attach:\n"
      "    java -agentlib:jdwp=transport=dt_socket,server=y,suspend=y ...\n"
      "\n"
      "Notes\n"
      "-----\n"
      "  - A timeout value of 0 (the default) is no timeout.\n"
      "\n"
      "Warnings\n"
      "--------\n"
      "  - The older -Xrunjdwp interface can still be used, but will be removed in\n"
      "    a future release, for example:\n"
      "        java -Xrunjdwp:[help]|[<option>=<value>, ...]\n"
      "\n";
  EXPECT_EQ(text, expected);
}

TEST(Help, LoglevelRowUsesTheTableColumns) {
  const std::string text = HelpText(kJdk17);
  const auto row = text.find("loglevel=");
  const auto quiet = text.find("quiet=y|n");
  ASSERT_NE(row, std::string::npos);
  // Default column starts at 67 in every stock row.
  EXPECT_EQ(text.find("warn\n", row) - row, text.find("n\n", quiet) - quiet);
  EXPECT_EQ(text.find("trace|", row) - row, 33u);
}

TEST(Help, VirtualThreadRowFromJdk19) {
  const std::string row =
      "timeout=<timeout value>          for listen/attach in milliseconds n\n"
      "includevirtualthreads=y|n        List of all threads includes virtual threads as well as platform threads.\n"
      "                                                                   n\n"
      "mutf8=y|n ";
  EXPECT_EQ(HelpText(kJdk17).find("includevirtualthreads"), std::string::npos);
  EXPECT_EQ(HelpText(18).find("includevirtualthreads"), std::string::npos);
  EXPECT_NE(HelpText(19).find(row), std::string::npos);
  EXPECT_NE(HelpText(kJdk25).find(row), std::string::npos);
}

// --- syntax errors --------------------------------------------------------------

TEST(SyntaxError, UnknownOptionName) {
  ExpectSyntaxError("foo=1");
  ExpectSyntaxError(WithBase("Server=y"));
  ExpectSyntaxError(WithBase("=y"));
}

TEST(SyntaxError, BadBoolean) {
  ExpectSyntaxError("transport=dt_socket,server=x,address=0");
  ExpectSyntaxError("transport=dt_socket,server=y,suspend=yes,address=0");
  ExpectSyntaxError("transport=dt_socket,server=Y,address=0");
  ExpectSyntaxError("transport=dt_socket,server=,address=0");
  for (const char* name : {"suspend", "server", "quiet", "onuncaught", "mutf8", "strict", "stdalloc"}) {
    ExpectSyntaxError(WithBase(std::string(name) + "=true"));
  }
}

TEST(SyntaxError, MissingEquals) {
  ExpectSyntaxError("transport");
  ExpectSyntaxError(WithBase("server"));
  ExpectSyntaxError("suspend,transport=dt_socket,server=y");
}

TEST(SyntaxError, EmptyValueAtEnd) {
  ExpectSyntaxError("transport=");
  ExpectSyntaxError("transport=dt_socket,server=n,suspend=n,address=");
  ExpectSyntaxError(WithBase("allow="));
  ExpectSyntaxError(WithBase("timeout="));
  ExpectSyntaxError(WithBase("logfile="));
}

TEST(SyntaxError, DoubleComma) {
  ExpectSyntaxError(std::string(kBase) + ",,");
  ExpectSyntaxError("transport=dt_socket,,server=y");
}

TEST(SyntaxError, LaunchOnthrowOnuncaughtWithoutValues) {
  ExpectSyntaxError("transport=dt_socket,server=n,suspend=n,address=1,launch");
  ExpectSyntaxError(WithBase("onthrow"));
  ExpectSyntaxError(WithBase("onuncaught"));
  ExpectSyntaxError(WithBase("launch="));
}

TEST(SyntaxError, NameOfHundredCharactersOverflows) {
  ExpectSyntaxError(WithBase(std::string(100, 'a') + "=y"));
  ExpectSyntaxError(WithBase(std::string(99, 'a') + "=y"));  // fits, but unknown
}

TEST(SyntaxError, BooleanOfEightyCharactersOverflows) {
  ExpectSyntaxError(WithBase("quiet=" + std::string(80, 'y')));
}

// --- other stock errors -----------------------------------------------------------

TEST(StockError, NoTransport) {
  for (std::string_view text : {"server=y", "", "suspend=n,server=y"}) {
    const OptionsError e = MustFail(text);
    EXPECT_EQ(e.stderr_text, "ERROR: JDWP no transport specified: -agentlib:jdwp=" + std::string(text) + "\n");
    EXPECT_EQ(e.exit_code, 1);
  }
}

TEST(StockError, MultipleTransports) {
  const std::string text = "transport=dt_socket,transport=dt_socket,server=y,suspend=n,address=0";
  const OptionsError e = MustFail(text);
  EXPECT_EQ(e.stderr_text,
            "ERROR: JDWP multiple transports are not supported in this release: -agentlib:jdwp=" + text + "\n");
  EXPECT_EQ(e.exit_code, 1);
}

TEST(StockError, TransportSettingsBeforeTransport) {
  struct Case {
    std::string text;
    std::string what;
  };
  for (const Case& c : {Case{"server=y,suspend=n,address=0", "address"},
                        Case{"allow=*,transport=dt_socket,server=y,suspend=n,address=0", "allow"},
                        Case{"timeout=5,transport=dt_socket,server=y,suspend=n,address=0", "timeout"}}) {
    const OptionsError e = MustFail(c.text);
    EXPECT_EQ(e.stderr_text,
              "ERROR: JDWP " + c.what + " specified without transport: -agentlib:jdwp=" + c.text + "\n");
    EXPECT_EQ(e.exit_code, 1);
  }
}

TEST(StockError, FirstErrorWins) {
  // address-before-transport is reported at that option, before a later syntax error.
  const std::string text = "address=0,server=x";
  EXPECT_EQ(MustFail(text).stderr_text,
            "ERROR: JDWP address specified without transport: -agentlib:jdwp=" + text + "\n");
  // A syntax error comes before the whole-string checks.
  ExpectSyntaxError("server=x");
}

TEST(StockError, ClientWithoutAddressPrintsTwoLines) {
  const std::string text = "transport=dt_socket,server=n,suspend=n";
  const OptionsError e = MustFail(text);
  EXPECT_EQ(e.stderr_text,
            "ERROR: JDWP Non-server transport dt_socket must have a connection address specified through the "
            "'address=' option\n"
            "ERROR: JDWP invalid option: -agentlib:jdwp=" +
                text + "\n");
  EXPECT_EQ(e.exit_code, 1);
  EXPECT_EQ(MustFail("transport=dt_socket").stderr_text.find("ERROR: JDWP Non-server transport dt_socket"), 0u);
}

TEST(StockError, OnthrowOrOnuncaughtNeedLaunch) {
  for (std::string text : {WithBase("onthrow=java.lang.Foo"), WithBase("onuncaught=y")}) {
    const OptionsError e = MustFail(text);
    EXPECT_EQ(e.stderr_text,
              "ERROR: JDWP Specify launch=<command line> when using onthrow or onuncaught suboption: "
              "-agentlib:jdwp=" +
                  text + "\n");
    EXPECT_EQ(e.exit_code, 1);
  }
}

TEST(StockError, RemovedOptions) {
  const std::string exitpause = WithBase("exitpause=y");
  EXPECT_EQ(MustFail(exitpause).stderr_text,
            "ERROR: JDWP The exitpause option removed, use -XX:OnError: -agentlib:jdwp=" + exitpause + "\n");
  const std::string precrash = WithBase("precrash");  // reported even without a value
  EXPECT_EQ(MustFail(precrash).stderr_text,
            "ERROR: JDWP The precrash option removed, use -XX:OnError: -agentlib:jdwp=" + precrash + "\n");
}

// --- JDK-version-dependent options ------------------------------------------------

TEST(Version, IncludeVirtualThreadsFromJdk19) {
  ExpectSyntaxError(WithBase("includevirtualthreads=y"), kJdk17);
  ExpectSyntaxError(WithBase("includevirtualthreads=n"), 18);
  EXPECT_TRUE(MustParse(WithBase("includevirtualthreads=y"), 19).include_virtual_threads);
  EXPECT_TRUE(MustParse(WithBase("includevirtualthreads=y"), kJdk25).include_virtual_threads);
  EXPECT_FALSE(MustParse(WithBase("includevirtualthreads=n"), kJdk25).include_virtual_threads);
  ExpectSyntaxError(WithBase("includevirtualthreads=x"), kJdk25);
  ExpectSyntaxError(WithBase("includevirtualthreads="), kJdk25);
}

TEST(Version, OnjcmdOnEveryJdk) {
  const std::string with_launch = WithBase("onjcmd=y,launch=x");
  EXPECT_EQ(MustFail(with_launch, kJdk17).stderr_text,
            "ERROR: JDWP Cannot combine onjcmd and launch suboptions: -agentlib:jdwp=" + with_launch + "\n");
  const std::string client = "transport=dt_socket,server=n,suspend=n,address=0,onjcmd=y";
  EXPECT_EQ(MustFail(client, kJdk21).stderr_text,
            "ERROR: JDWP Can only use onjcmd with server=y: -agentlib:jdwp=" + client + "\n");
  // As stock, onjcmd=y makes suspend=n whatever suspend= says.
  const Options o = MustParse(WithBase("suspend=y,onjcmd=y"), kJdk17);
  EXPECT_TRUE(o.onjcmd);
  EXPECT_FALSE(o.suspend);
  EXPECT_FALSE(MustParse(WithBase("onjcmd=n"), kJdk17).onjcmd);
  EXPECT_TRUE(MustParse(WithBase("onjcmd=y"), kJdk25).onjcmd);  // jdwpx extension: stock has no onjcmd on 24+
  // onthrow/onuncaught need launch=, which onjcmd excludes: launch= is asked for first, as stock.
  const std::string with_onthrow = WithBase("onjcmd=y,onthrow=java.lang.Error");
  EXPECT_EQ(MustFail(with_onthrow, kJdk17).stderr_text,
            "ERROR: JDWP Specify launch=<command line> when using onthrow or onuncaught suboption: -agentlib:jdwp=" +
                with_onthrow + "\n");
  EXPECT_EQ(MustFail(with_launch, kJdk25).stderr_text,
            "ERROR: JDWP Cannot combine onjcmd and launch suboptions: -agentlib:jdwp=" + with_launch + "\n");
}

TEST(Version, DatadumpFromJdk25) {
  ExpectSyntaxError(WithBase("datadump=n"), kJdk17);
  ExpectSyntaxError(WithBase("datadump=n"), kJdk21);
  MustParse(WithBase("datadump=n"), kJdk25);
}

// --- _JAVA_JDWP_OPTIONS ----------------------------------------------------------

TEST(Environment, AppendedAfterComma) {
  auto result = ParseOptions("transport=dt_socket,server=y,address=0", kJdk17, "suspend=n");
  ASSERT_TRUE(result.has_value());
  EXPECT_FALSE(result->suspend);
  EXPECT_EQ(result->raw, "transport=dt_socket,server=y,address=0,suspend=n");
}

TEST(Environment, ErrorsShowTheCombinedString) {
  const OptionsError e = MustFail(kBase, kJdk17, "server=x");
  EXPECT_EQ(e.stderr_text, SyntaxError(std::string(kBase) + ",server=x"));
}

TEST(Environment, CommaEvenAfterEmptyOptions) {
  // Stock: `-agentlib:jdwp` + _JAVA_JDWP_OPTIONS=transport=... is a syntax error.
  const OptionsError e = MustFail("", kJdk17, "transport=dt_socket,server=y,address=0,suspend=n");
  EXPECT_EQ(e.stderr_text, SyntaxError(",transport=dt_socket,server=y,address=0,suspend=n"));
}

// --- deferred start, launch, mutf8 ---------------------------------------------------

TEST(DeferredStart, OnthrowKeepsTheNameAsWritten) {
  const Options o = MustParse(WithBase("onthrow=java.lang.IllegalStateException,launch=/bin/echo x"));
  EXPECT_EQ(o.onthrow, "java.lang.IllegalStateException");
  EXPECT_EQ(o.launch, "/bin/echo x");
  EXPECT_FALSE(o.onuncaught);
}

TEST(DeferredStart, OnuncaughtWithLaunch) {
  const Options o = MustParse(WithBase("onuncaught=y,launch=/bin/true"));
  EXPECT_TRUE(o.onuncaught);
  EXPECT_FALSE(o.onthrow.has_value());
}

TEST(DeferredStart, LaunchAloneAndEmpty) {
  EXPECT_EQ(MustParse(WithBase("launch=/bin/true")).launch, "/bin/true");
  // "launch=," gives an empty command, as stock's get_tok does.
  EXPECT_EQ(MustParse(WithBase("launch=,quiet=y")).launch, "");
}

TEST(Mutf8, ParsedAsABoolean) {
  EXPECT_TRUE(MustParse(WithBase("mutf8=y")).mutf8);
  EXPECT_FALSE(MustParse(WithBase("mutf8=n")).mutf8);
  ExpectSyntaxError(WithBase("mutf8=x"));
}

TEST(NotSupported, DefaultValuesAreNotRefused) {
  const Options o = MustParse(WithBase("onuncaught=n,mutf8=n"));
  EXPECT_FALSE(o.onuncaught);
  EXPECT_FALSE(o.mutf8);
}

}  // namespace
}  // namespace jdwpx::backend
