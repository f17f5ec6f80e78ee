// The agent's option string (-agentpath:libjdwpx.so=<options>), parsed with the
// JDK agent's exact rules and error texts (see messages.h), except timeout=,
// which must be a number, and a line of jdwpx's after stock's error line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

#include "backend/session_slot.h"

namespace jdwpx::backend {

// Our extension `loglevel=`; the names are spdlog's level names.
enum class LogLevel { kTrace, kDebug, kInfo, kWarn, kError, kOff };

struct Options {
  // The string that was parsed: the Agent_OnLoad text plus ",<_JAVA_JDWP_OPTIONS>".
  std::string raw;
  // `help` alone: print HelpText() on stdout and exit(0); nothing else is set.
  bool help = false;

  std::string transport;  // always set on success; any name (only the transport knows which exist)
  // Unset and empty differ: server=n needs one; server=y with "" listens on an OS-chosen port.
  std::optional<std::string> address;
  bool server = false;
  bool suspend = true;
  // Digits only (stock takes atol() of anything: "abc" -> 0, "5s" -> 5); 0 = no timeout.
  int64_t timeout_ms = 0;
  std::optional<std::string> allow;    // server=y: '+'-separated IPs/subnets; checked by the transport
  // server=y: once listening, run "<launch> <transport> <port>" (split on blanks,
  // no shell) instead of printing the "Listening" line; ignored with server=n, as stock.
  std::optional<std::string> launch;
  // Start nothing (no listen, no attach) until an exception of exactly this class
  // (java.lang.Foo, as written) is thrown; needs launch=, as stock.
  std::optional<std::string> onthrow;
  bool onuncaught = false;             // the same, on the first uncaught exception
  // Start nothing (dormant: no port, no events) until `jcmd VM.start_java_debugging`
  // or `jcmd JVMTI.agent_load`; needs server=y, excludes launch=, forces suspend=n.
  bool onjcmd = false;
  bool quiet = false;                  // suppresses the "Listening for transport" line
  bool mutf8 = false;                  // strings on the wire in modified UTF-8 (stock's mutf8=y)
  std::optional<std::string> logfile;  // stock writes <logfile>.<pid>
  uint32_t logflags = 0;               // strtol(text, 0, 0): 0x.. hex and 0.. octal too
  bool strict = false;                 // obsolete in stock: accepted, ignored
  bool stdalloc = false;               // obsolete in stock: accepted, ignored
  bool include_virtual_threads = false;  // accepted only on JDK 19+, as stock
  LogLevel log_level = LogLevel::kWarn;  // jdwpx extension
  // jdwpx extensions: the protocol trace (trace/). `trace` is the file ("%p" =
  // the pid); tracebytes=y records packet bodies; tracesize=<MB> keeps only the
  // newest MB, as a ring of files.
  std::optional<std::string> trace;
  bool trace_bytes = false;
  int64_t trace_size_mb = 0;  // 0 = no bound
  // jdwpx extensions for orchestrators and safer exposure (docs/options.md, "Options for
  // orchestrators"). Absent, behaviour is stock's.
  int64_t handshake_timeout_ms = kDefaultHandshakeTimeoutMs;  // handshaketimeout=<ms>
  int64_t suspend_timeout_ms = 0;    // suspendtimeout=<ms>: server=y,suspend=y only; 0 = wait forever
  bool onbindfail_continue = false;  // onbindfail=continue|abort
  std::optional<std::string> address_file;  // addressfile=<path>, "%p" = pid; server=y only
  bool unix_root = false;            // unixroot=y: root peers may attach to address=unix:<path>
  // sessions=N: up to N debuggers attached at once, each as if alone
  // (docs/sessions.md); 1, the default, is stock's one debugger.
  int sessions = 1;

  // jdwpx's handshake timeout when handshaketimeout= is absent.
  static constexpr int64_t kDefaultHandshakeTimeoutMs = 2000;  // stock's fixed limit
  // The largest value the millisecond options take: one day.
  static constexpr int64_t kMaxMillis = 86'400'000;
};

// What stock would print before exiting, and the code it exits with, plus
// jdwpx's line saying what is wrong. The caller prints ErrorText(error, <how the
// agent was loaded>) on stderr and calls exit(exit_code) from Agent_OnLoad
// (stock never returns JNI_ERR for option errors).
struct OptionsError {
  std::string stderr_text;  // stock's lines, each ending in '\n'; tools parse the first
  int exit_code = 1;
  // Which option, its value and what it may be ("suspend=maybe: must be y or n");
  // empty when there is nothing to add to stderr_text.
  std::string detail;
};

// The text to print: stock's first line as is (tools parse it; like stock it
// names -agentlib:jdwp whatever loaded the agent), then
// "jdwpx: <detail> (in <invocation>)", then stock's other lines.
// `invocation` is how the user gave the options, e.g.
// "-agentpath:/opt/jdwpx/libjdwpx.so=transport=dt_socket,suspend=maybe".
[[nodiscard]] std::string ErrorText(const OptionsError& error, std::string_view invocation);

// "jdwpx <release> (<build>)", as HelpText shows it under its title.
[[nodiscard]] std::string VersionText();

// `text` is Agent_OnLoad's options (pass "" for a null pointer).
// `environment_options` is getenv("_JAVA_JDWP_OPTIONS") when set; like stock it
// is appended after a ',' unless `text` is exactly "help".
// `jdk_feature_version` is the running JVM's feature version (17, 21, 25...);
// at OnLoad it is the major field of JVMTI GetVersionNumber (JDK 9+ encode it there):
// (version & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR.
// it decides includevirtualthreads= (19+) and datadump= (25+); onjcmd= is
// accepted on every JDK (stock: before 24 only).
//
// Besides the options in `Options`, stock's hidden debugging options are
// accepted with stock's syntax and ignored: assert=y|n|fatal, pause=, coredump=,
// errorexit=, debugflags=.
[[nodiscard]] tl::expected<Options, OptionsError> ParseOptions(
    std::string_view text, int jdk_feature_version,
    std::optional<std::string_view> environment_options = std::nullopt);

// The `help` text: the running JDK's stock output (the includevirtualthreads
// entry appears from JDK 19) with a line naming jdwpx and its version under the
// title, and jdwpx's own options as the last rows of the option table. Ends
// with the blank line stock prints.
[[nodiscard]] std::string HelpText(int jdk_feature_version);

[[nodiscard]] std::string_view LogLevelName(LogLevel level);

}  // namespace jdwpx::backend
