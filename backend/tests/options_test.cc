// Option parsing against the texts the JDK's own agent prints (recorded from
// OpenJDK 17.0.21 and Temurin 25.0.3; see messages.h).
#include "backend/options.h"

#include <string>

#include <gtest/gtest.h>
#include <jdwpx_version.h>

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
  return result ? OptionsError{"<parsed>", -1, {}} : result.error();
}

std::string SyntaxError(std::string_view all) {
  return "ERROR: JDWP option syntax error: -agentlib:jdwp=" + std::string(all) + "\n";
}

void ExpectSyntaxError(std::string_view text, int version = kJdk17) {
  const OptionsError error = MustFail(text, version);
  EXPECT_EQ(error.stderr_text, SyntaxError(text));
  EXPECT_EQ(error.exit_code, 1);
}

// Stock's syntax error line, and jdwpx's line saying what is wrong.
void ExpectSyntaxError(std::string_view text, std::string_view detail, int version = kJdk17) {
  const OptionsError error = MustFail(text, version);
  EXPECT_EQ(error.stderr_text, SyntaxError(text));
  EXPECT_EQ(error.detail, detail) << text;
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
  const std::string allowed = ": must be trace, debug, info, warn, error or off";
  ExpectSyntaxError(WithBase("loglevel=verbose"), "loglevel=verbose" + allowed);
  ExpectSyntaxError(WithBase("loglevel=WARN"), "loglevel=WARN" + allowed);
  ExpectSyntaxError(WithBase("loglevel="), "loglevel=" + allowed);
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
  ExpectSyntaxError(WithBase("trace="), "trace=: needs a file path");
  ExpectSyntaxError(WithBase("tracebytes=yes"), "tracebytes=yes: must be y or n");
  const std::string size = ": a size in MB (1 to 9999999)";
  ExpectSyntaxError(WithBase("tracesize=big"), "tracesize=big" + size);
  ExpectSyntaxError(WithBase("tracesize=0"), "tracesize=0" + size);
  ExpectSyntaxError(WithBase("tracesize=-1"), "tracesize=-1" + size);
  ExpectSyntaxError(WithBase("tracesize=1MB"), "tracesize=1MB" + size);
  ExpectSyntaxError(WithBase("tracesize="), "tracesize=" + size);
  ExpectSyntaxError(WithBase("tracesize=99999999"), "tracesize=99999999" + size);
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
  // Stock's syntax error first (stock refuses these options anyway), then what is wrong.
  const std::string range = ": a number of milliseconds (1 to 86400000)";
  ExpectSyntaxError(WithBase("handshaketimeout=abc"), "handshaketimeout=abc" + range);
  ExpectSyntaxError(WithBase("handshaketimeout=0"), "handshaketimeout=0" + range);
  ExpectSyntaxError(WithBase("handshaketimeout=-5"), "handshaketimeout=-5" + range);
  ExpectSyntaxError(WithBase("handshaketimeout=86400001"), "handshaketimeout=86400001" + range);
  ExpectSyntaxError(WithBase("handshaketimeout=5s"), "handshaketimeout=5s" + range);
  ExpectSyntaxError(WithBase("handshaketimeout=,quiet=y"), "handshaketimeout=" + range);
  ExpectSyntaxError(WithBase("handshaketimeout="), "handshaketimeout=" + range);
  ExpectSyntaxError("transport=dt_socket,server=y,address=0,suspendtimeout=1e3", "suspendtimeout=1e3" + range);
  ExpectSyntaxError(WithBase("onbindfail=ignore"), "onbindfail=ignore: must be abort or continue");
  ExpectSyntaxError(WithBase("onbindfail=,quiet=y"), "onbindfail=: must be abort or continue");
  ExpectSyntaxError(WithBase("addressfile=,quiet=y"), "addressfile=: needs a file path");
  ExpectSyntaxError(WithBase("unixroot=yes"), "unixroot=yes: must be y or n");
  // suspendtimeout= bounds suspend=y's wait: meaningless without it.
  const std::string only = "suspendtimeout=1000: applies with server=y and suspend=y only (and not with onjcmd=y)";
  ExpectSyntaxError(WithBase("suspendtimeout=1000"), only);
  ExpectSyntaxError("transport=dt_socket,address=1:2,suspendtimeout=1000", only);
}

TEST(Parse, Sessions) {
  EXPECT_EQ(MustParse(std::string(kBase)).sessions, 1);
  EXPECT_EQ(MustParse(WithBase("sessions=1")).sessions, 1);
  EXPECT_EQ(MustParse(WithBase("sessions=3")).sessions, 3);
  EXPECT_EQ(MustParse(WithBase("sessions=16")).sessions, 16);
  const std::string range = ": debuggers attached at once (1 to 16)";
  ExpectSyntaxError(WithBase("sessions=0"), "sessions=0" + range);
  ExpectSyntaxError(WithBase("sessions=17"), "sessions=17" + range);
  ExpectSyntaxError(WithBase("sessions=-1"), "sessions=-1" + range);
  ExpectSyntaxError(WithBase("sessions=two"), "sessions=two" + range);
  ExpectSyntaxError(WithBase("sessions=,quiet=y"), "sessions=" + range);
  ExpectSyntaxError(WithBase("sessions=100"), "sessions=100" + range);
  // Several debuggers attach to one listening address.
  ExpectSyntaxError("transport=dt_socket,address=1:2,sessions=2",
                    "sessions=2: applies with server=y only (and not with launch=): several debuggers attach to one "
                    "address");
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

TEST(Parse, TimeoutIsANumber) {
  EXPECT_EQ(MustParse(WithBase("timeout=500")).timeout_ms, 500);
  EXPECT_EQ(MustParse(WithBase("timeout=0")).timeout_ms, 0);
  EXPECT_EQ(MustParse(WithBase("timeout=999999999999999999")).timeout_ms, 999999999999999999);
  // Stock takes atol() of anything ("abc" is 0: no timeout, "500ms" is 500); jdwpx refuses.
  const std::string allowed = ": a number of milliseconds (0: no timeout)";
  for (std::string_view value : {"abc", "500ms", " 42", "-7", "0x10", "", "1e3", "9999999999999999999"}) {
    ExpectSyntaxError(WithBase("timeout=" + std::string(value)), "timeout=" + std::string(value) + allowed);
  }
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
  ExpectSyntaxError(WithBase("assert=x"), "assert=x: must be y, n or fatal");
  ExpectSyntaxError(WithBase("strict=yes"), "strict=yes: must be y or n");
  ExpectSyntaxError(WithBase("pause=1"), "pause=1: must be y or n");
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
  ExpectSyntaxError("help,server=y", "help: must be the only option");
  ExpectSyntaxError(WithBase("help"), "help: must be the only option");
  ExpectSyntaxError("help=y", "help=y: unknown option (help lists the options)");
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
      "               jdwpx " +
      std::string(kRelease) + " (" + kBuild + ")\n" +
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
      "sessions=<1-16>                  debuggers attached at once        1\n"
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

TEST(Help, VersionTextNamesTheReleaseAndTheBuild) {
  EXPECT_EQ(VersionText(), std::string("jdwpx ") + kRelease + " (" + kBuild + ")");
  EXPECT_EQ(std::string_view(kRelease).find_first_not_of("0123456789."), std::string_view::npos) << kRelease;
  EXPECT_FALSE(std::string_view(kBuild).empty());
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
  ExpectSyntaxError("foo=1", "foo=1: unknown option (help lists the options)");
  ExpectSyntaxError(WithBase("Server=y"), "Server=y: unknown option (did you mean server?)");
  ExpectSyntaxError(WithBase("=y"), "=y: unknown option (help lists the options)");
}

TEST(SyntaxError, UnknownOptionSuggestsTheNearestName) {
  ExpectSyntaxError("transport=dt_socket,adress=5005", "adress=5005: unknown option (did you mean address?)");
  ExpectSyntaxError(WithBase("suspedn=y"), "suspedn=y: unknown option (did you mean suspend?)");  // two swapped
  ExpectSyntaxError(WithBase("tracesise=4"), "tracesise=4: unknown option (did you mean tracesize?)");
  ExpectSyntaxError(WithBase("handshake=10"), "handshake=10: unknown option (help lists the options)");
  // Short names get one edit at most: "sever" is server, "quit" quiet, "abc" nothing.
  ExpectSyntaxError(WithBase("sever=y"), "sever=y: unknown option (did you mean server?)");
  ExpectSyntaxError(WithBase("quit=y"), "quit=y: unknown option (did you mean quiet?)");
  ExpectSyntaxError(WithBase("abc=y"), "abc=y: unknown option (help lists the options)");
  // The hidden debugging options are not suggested.
  ExpectSyntaxError(WithBase("asert=y"), "asert=y: unknown option (help lists the options)");
}

TEST(SyntaxError, BadBoolean) {
  ExpectSyntaxError("suspend=maybe", "suspend=maybe: must be y or n");
  ExpectSyntaxError("transport=dt_socket,server=x,address=0", "server=x: must be y or n");
  ExpectSyntaxError("transport=dt_socket,server=y,suspend=yes,address=0", "suspend=yes: must be y or n");
  ExpectSyntaxError("transport=dt_socket,server=Y,address=0", "server=Y: must be y or n");
  ExpectSyntaxError("transport=dt_socket,server=,address=0", "server=: must be y or n");
  for (const char* name : {"suspend", "server", "quiet", "onuncaught", "mutf8", "strict", "stdalloc"}) {
    ExpectSyntaxError(WithBase(std::string(name) + "=true"), std::string(name) + "=true: must be y or n");
  }
}

TEST(SyntaxError, MissingEquals) {
  ExpectSyntaxError("transport", "transport: needs a value (transport=...)");
  ExpectSyntaxError(WithBase("server"), "server: needs a value (server=...)");
  ExpectSyntaxError("suspend,transport=dt_socket,server=y", "suspend: needs a value (suspend=...)");
  ExpectSyntaxError("suspnd,transport=dt_socket,server=y", "suspnd: unknown option (did you mean suspend?)");
}

TEST(SyntaxError, EmptyValueAtEnd) {
  ExpectSyntaxError("transport=", "transport=: needs a value");
  ExpectSyntaxError("transport=dt_socket,server=n,suspend=n,address=", "address=: needs a value");
  ExpectSyntaxError(WithBase("allow="), "allow=: needs a value");
  ExpectSyntaxError(WithBase("timeout="), "timeout=: a number of milliseconds (0: no timeout)");
  ExpectSyntaxError(WithBase("logfile="), "logfile=: needs a value");
}

TEST(SyntaxError, DoubleComma) {
  const std::string empty = "an empty option (two commas in a row, or a comma first): remove the extra comma";
  ExpectSyntaxError(std::string(kBase) + ",,", empty);
  ExpectSyntaxError("transport=dt_socket,,server=y", empty);
  ExpectSyntaxError(",transport=dt_socket", empty);
}

TEST(SyntaxError, LaunchOnthrowOnuncaughtWithoutValues) {
  ExpectSyntaxError("transport=dt_socket,server=n,suspend=n,address=1,launch", "launch: needs a value (launch=...)");
  ExpectSyntaxError(WithBase("onthrow"), "onthrow: needs a value (onthrow=...)");
  ExpectSyntaxError(WithBase("onuncaught"), "onuncaught: needs a value (onuncaught=...)");
  ExpectSyntaxError(WithBase("launch="), "launch=: needs a value");
}

TEST(SyntaxError, NameOfHundredCharactersOverflows) {
  ExpectSyntaxError(WithBase(std::string(100, 'a') + "=y"),
                    "aaaaaaaaaaaaaaaaaaaa...: option name too long (100 characters or more)");
  ExpectSyntaxError(WithBase(std::string(99, 'a') + "=y"),  // fits, but unknown
                    std::string(99, 'a') + "=y: unknown option (help lists the options)");
}

TEST(SyntaxError, BooleanOfEightyCharactersOverflows) {
  ExpectSyntaxError(WithBase("quiet=" + std::string(80, 'y')), "quiet=" + std::string(80, 'y') + ": must be y or n");
}

// --- ErrorText: stock's lines with jdwpx's after the first ----------------------------

TEST(ErrorText, OursAfterStocksFirstLineWithTheInvocation) {
  const std::string text = "transport=dt_socket,suspend=maybe";
  EXPECT_EQ(ErrorText(MustFail(text), "-agentpath:/opt/jdwpx/libjdwpx.so=" + text),
            SyntaxError(text) + "jdwpx: suspend=maybe: must be y or n (in -agentpath:/opt/jdwpx/libjdwpx.so=" + text +
                ")\n");
  // Stock's second line stays after ours.
  const std::string client = "transport=dt_socket,server=n";
  EXPECT_EQ(ErrorText(MustFail(client), "-agentlib:jdwp=" + client),
            "ERROR: JDWP Non-server transport dt_socket must have a connection address specified through the "
            "'address=' option\n"
            "jdwpx: server=n attaches to a debugger: it needs address=<host>:<port> (or server=y to listen) "
            "(in -agentlib:jdwp=" + client + ")\n"
            "ERROR: JDWP invalid option: -agentlib:jdwp=" + client + "\n");
  // Nothing to add: stock's text alone.
  EXPECT_EQ(ErrorText(OptionsError{"ERROR: JDWP x\n", 1, ""}, "-agentlib:jdwp=x"), "ERROR: JDWP x\n");
  // No invocation known: no "(in ...)".
  EXPECT_EQ(ErrorText(MustFail("suspend=maybe"), ""), SyntaxError("suspend=maybe") + "jdwpx: suspend=maybe: must be y or n\n");
}

// --- other stock errors -----------------------------------------------------------

TEST(StockError, NoTransport) {
  for (std::string_view text : {"server=y", "", "suspend=n,server=y"}) {
    const OptionsError e = MustFail(text);
    EXPECT_EQ(e.stderr_text, "ERROR: JDWP no transport specified: -agentlib:jdwp=" + std::string(text) + "\n");
    EXPECT_EQ(e.detail, "transport= is missing (transport=dt_socket for a socket)");
    EXPECT_EQ(e.exit_code, 1);
  }
}

TEST(StockError, MultipleTransports) {
  const std::string text = "transport=dt_socket,transport=dt_socket,server=y,suspend=n,address=0";
  const OptionsError e = MustFail(text);
  EXPECT_EQ(e.stderr_text,
            "ERROR: JDWP multiple transports are not supported in this release: -agentlib:jdwp=" + text + "\n");
  EXPECT_EQ(e.detail, "transport= is given 2 times: give it once");
  EXPECT_EQ(e.exit_code, 1);
}

TEST(StockError, TransportSettingsBeforeTransport) {
  struct Case {
    std::string text;
    std::string what;
    std::string item;
  };
  for (const Case& c : {Case{"server=y,suspend=n,address=0", "address", "address=0"},
                        Case{"allow=*,transport=dt_socket,server=y,suspend=n,address=0", "allow", "allow=*"},
                        Case{"timeout=5,transport=dt_socket,server=y,suspend=n,address=0", "timeout", "timeout=5"}}) {
    const OptionsError e = MustFail(c.text);
    EXPECT_EQ(e.stderr_text,
              "ERROR: JDWP " + c.what + " specified without transport: -agentlib:jdwp=" + c.text + "\n");
    EXPECT_EQ(e.detail, c.item + ": comes before transport=, which must come first");
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
    EXPECT_EQ(e.detail, text.ends_with("onuncaught=y") ? "onuncaught=y needs launch=<command> (the debugger to start)"
                                                       : "onthrow= needs launch=<command> (the debugger to start)");
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
  ExpectSyntaxError(WithBase("includevirtualthreads=y"),
                    "includevirtualthreads=y: needs JDK 19 or later (this is JDK 17)", kJdk17);
  ExpectSyntaxError(WithBase("includevirtualthreads=n"), "includevirtualthreads=n: needs JDK 19 or later (this is JDK 18)",
                    18);
  EXPECT_TRUE(MustParse(WithBase("includevirtualthreads=y"), 19).include_virtual_threads);
  EXPECT_TRUE(MustParse(WithBase("includevirtualthreads=y"), kJdk25).include_virtual_threads);
  EXPECT_FALSE(MustParse(WithBase("includevirtualthreads=n"), kJdk25).include_virtual_threads);
  ExpectSyntaxError(WithBase("includevirtualthreads=x"), "includevirtualthreads=x: must be y or n", kJdk25);
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
