// The exact texts the JDK's own JDWP agent (libjdwp.so) prints, so that tools
// and scripts that read a debuggee's console see no difference with jdwpx.
//
// Every text below was recorded from OpenJDK 17.0.21 (Debian) and Temurin
// 25.0.3 by running `java -agentlib:jdwp=<options> -version`; each comment says
// when stock prints it, on which stream, and the process exit code that
// follows. Texts here carry no trailing newline; every one is printed as one
// line ("\n" appended). Placeholders are fmt-style `{}`.
//
// How stock leaves the process:
//  - Option errors and `help`: the agent itself calls exit() (stock forceExit)
//    from Agent_OnLoad, so the JVM prints nothing of its own.
//  - "Cannot load ... twice": Agent_OnLoad returns JNI_ERR; the JVM then
//    prints kVmInitFailed and the agent-library line below on STDOUT, exit 1.
//  - Transport start failures happen at VMInit: exit(2) for TRANSPORT_INIT;
//    for any other error (e.g. TRANSPORT_LOAD) JNI FatalError -> abort (134).
//  - Accept/attach timeout: exit(0) (stock treats it as JVMTI_ERROR_NONE).
#pragma once

#include <string_view>

namespace jdwpx::backend::messages {

// ---------------------------------------------------------------------------
// Option parsing. All on stderr, then exit(1). `{}` is the full option string
// (after _JAVA_JDWP_OPTIONS has been appended with a ','). Stock always names
// "-agentlib:jdwp" here, even when loaded with -agentpath, and so do we; jdwpx
// then adds one line of its own, "jdwpx: <option>=<value>: <what is allowed>
// (in <the options as given: -agentpath:<file>=... or -agentlib:jdwp=...>)"
// (options.h ErrorText, load_errors.h).
// ---------------------------------------------------------------------------

// Unknown option name, bad boolean (not exactly y/n), missing '=', value empty
// at the end of the string, ",,", "help" combined with other options,
// includevirtualthreads before JDK 19, a name of 100+ characters, ...
inline constexpr std::string_view kOptionSyntaxError = "ERROR: JDWP option syntax error: -agentlib:jdwp={}";
// No transport= at all (also for an empty or absent option string).
inline constexpr std::string_view kNoTransport = "ERROR: JDWP no transport specified: -agentlib:jdwp={}";
// transport= given twice (even with the same name).
inline constexpr std::string_view kMultipleTransports =
    "ERROR: JDWP multiple transports are not supported in this release: -agentlib:jdwp={}";
// address=/allow=/timeout= before any transport= (reported at that option).
inline constexpr std::string_view kAddressWithoutTransport =
    "ERROR: JDWP address specified without transport: -agentlib:jdwp={}";
inline constexpr std::string_view kAllowWithoutTransport =
    "ERROR: JDWP allow specified without transport: -agentlib:jdwp={}";
inline constexpr std::string_view kTimeoutWithoutTransport =
    "ERROR: JDWP timeout specified without transport: -agentlib:jdwp={}";
// server=n and no address=: two lines, first names the transport.
inline constexpr std::string_view kNonServerNeedsAddress =
    "ERROR: JDWP Non-server transport {} must have a connection address specified through the 'address=' option";
inline constexpr std::string_view kInvalidOption = "ERROR: JDWP invalid option: -agentlib:jdwp={}";
// onthrow=<x> or onuncaught=y without launch=.
inline constexpr std::string_view kLaunchRequired =
    "ERROR: JDWP Specify launch=<command line> when using onthrow or onuncaught suboption: -agentlib:jdwp={}";
// Removed options (reported even without '=').
inline constexpr std::string_view kExitpauseRemoved =
    "ERROR: JDWP The exitpause option removed, use -XX:OnError: -agentlib:jdwp={}";
inline constexpr std::string_view kPrecrashRemoved =
    "ERROR: JDWP The precrash option removed, use -XX:OnError: -agentlib:jdwp={}";
// onjcmd= exists up to JDK 21 (gone in 25).
inline constexpr std::string_view kOnjcmdWithLaunch =
    "ERROR: JDWP Cannot combine onjcmd and launch suboptions: -agentlib:jdwp={}";
inline constexpr std::string_view kOnjcmdNeedsServer = "ERROR: JDWP Can only use onjcmd with server=y: -agentlib:jdwp={}";

// jdwpx only: an option stock accepts but jdwpx cannot honour yet; `{}` is the
// option name. stderr, exit(1). Checked after every stock check, so any input
// stock rejects is rejected with stock's text.
inline constexpr std::string_view kOptionNotSupported = "ERROR: JDWP option '{}' is not supported by jdwpx yet";

// ---------------------------------------------------------------------------
// Loading twice (-agentlib:jdwp twice, or also via JAVA_TOOL_OPTIONS): stderr,
// then Agent_OnLoad returns JNI_ERR and the JVM prints on STDOUT:
//   JDK 17: "Error occurred during initialization of VM"
//           "agent library failed to init: <name>"
//   JDK 25: "Error occurred during initialization of VM"
//           "agent library failed Agent_OnLoad: <name>"
// <name> is "jdwp" for -agentlib:jdwp and the path exactly as written for
// -agentpath. Exit code 1. (With JAVA_TOOL_OPTIONS the JVM first prints
// "Picked up JAVA_TOOL_OPTIONS: <value>" on stderr.)
// ---------------------------------------------------------------------------
inline constexpr std::string_view kLoadedTwice =
    "ERROR: Cannot load this JVM TI agent twice, check your java command line for duplicate jdwp options.";
inline constexpr std::string_view kVmInitFailed = "Error occurred during initialization of VM";  // JVM, stdout
inline constexpr std::string_view kAgentFailedJdk17 = "agent library failed to init: {}";        // JVM, stdout
inline constexpr std::string_view kAgentFailedJdk25 = "agent library failed Agent_OnLoad: {}";   // JVM, stdout

// ---------------------------------------------------------------------------
// Transport (dt_socket). Printed at VMInit, after OnLoad succeeded.
// ---------------------------------------------------------------------------

// server=y once listening: STDOUT, unless quiet=y. `{}` is the bound port
// (the port only, also when address= named a host).
inline constexpr std::string_view kListening = "Listening for transport dt_socket at address: {}";
// The same for any transport: its name, then the address it reports (a transport
// library's StartListening's actual address).
inline constexpr std::string_view kListeningFor = "Listening for transport {} at address: {}";

// One of these first (stderr), then kTransportFailed + kExitTransportInit, exit(2):
//   address port already bound (server=y):
inline constexpr std::string_view kBindFailedInUse = "ERROR: transport error 202: bind failed: Address already in use";
//   server=n, nothing listening:
inline constexpr std::string_view kConnectRefused = "ERROR: transport error 202: connect failed: Connection refused";
//   port not a number or outside 0..65535 (99999, -1, abc), either mode:
inline constexpr std::string_view kInvalidPort = "ERROR: transport error 103: invalid port number specified";
//   host does not resolve (nosuchhost.invalid:5005), either mode:
inline constexpr std::string_view kBadHost = "ERROR: transport error 202: getaddrinfo: failed to parse address";
//   allow=<garbage>: two lines, the first without "ERROR: " (`{}` is the value):
inline constexpr std::string_view kAllowParseError = "Error in allow option: '{}'";
inline constexpr std::string_view kAllowInvalid = "ERROR: transport error 103: invalid IP address in allow option";

// `{}` transport name, then the JDWP error name and number: for dt_socket
// failures "TRANSPORT_INIT" and 510; for an unknown transport "TRANSPORT_LOAD"
// and 509.
inline constexpr std::string_view kTransportFailed = "ERROR: JDWP Transport {} failed to initialize, {}({})";

// Final line, stderr. Stock appends its own source location, which differs by
// build ("[./src/jdk.jdwp.agent/share/native/libjdwp/debugInit.c:744]" on
// Debian's 17, "[src/jdk.jdwp.agent/share/native/libjdwp/debugInit.c:697]" on
// Temurin 25). Decision: jdwpx keeps the " [<file>:<line>]" shape, naming its
// own source file relative to the repository root and the line (pass __FILE__-
// derived "backend/start/agent.cc" and __LINE__), so any parser of the shape still
// works and nobody is sent to a libjdwp file that did not print it. Tests
// compare the line up to " [".
inline constexpr std::string_view kExitErrorFormat = "JDWP exit error {}({}): {} [{}:{}]";
// dt_socket start failed: then exit(2).
inline constexpr std::string_view kExitTransportInit = "JDWP exit error AGENT_ERROR_TRANSPORT_INIT(197): No transports initialized [{}:{}]";

// Unknown transport (e.g. transport=dt_shmem on Linux, or transport= empty):
//   stderr: "ERROR: transport library not found: dt_shmem"
//           "ERROR: JDWP Transport dt_shmem failed to initialize, TRANSPORT_LOAD(509)"
//           "JDWP exit error AGENT_ERROR_TRANSPORT_LOAD(196): No transports initialized [..]"
//   then JNI FatalError(kFatalNoTransports) -> the JVM prints on STDOUT
//   "FATAL ERROR in native method: JDWP No transports initialized, jvmtiError=AGENT_ERROR_TRANSPORT_LOAD(196)"
//   plus native frames, and aborts: exit status 134 (SIGABRT).
// jdwpx looks for the library at Agent_OnLoad already (load_errors.h), prints
// the same three lines with one of its own after the first (which file, where it
// was looked for), and calls exit(134): the status a shell reports for stock,
// without the FatalError report, native frames or core dump (a parent that
// waits sees an exit code rather than a signal). A start deferred by onthrow=,
// onuncaught= or onjcmd= reports it as stock does and runs on.
inline constexpr std::string_view kTransportLibraryNotFound = "ERROR: transport library not found: {}";
// The same sequence when lib<name>.so has no jdwpTransport_OnLoad:
//   "ERROR: transport library missing onLoad entry: <name>"
// A library that refuses both versions 1.1 and 1.0 (OnLoad returns JNI_EVERSION):
//   "ERROR: transport doesn't recognize all supported versions: { 1_1, 1_0 }"
//   then TRANSPORT_INIT(510) and exit(2), as for dt_socket failures. (transport/library_transport.cc)
inline constexpr std::string_view kExitTransportLoad = "JDWP exit error AGENT_ERROR_TRANSPORT_LOAD(196): No transports initialized [{}:{}]";
inline constexpr std::string_view kFatalNoTransports =
    "JDWP No transports initialized, jvmtiError=AGENT_ERROR_TRANSPORT_LOAD(196)";  // argument to JNI FatalError

// server=y,suspend=y,timeout=<ms> with no debugger in time (after kListening):
// stderr, then exit(0) before main runs (stock counts it as no error).
// With suspend=n the same happens later, from the listener thread.
inline constexpr std::string_view kAcceptTimedOut = "ERROR: transport error 203: timed out waiting for connection";
inline constexpr std::string_view kExitCouldNotConnect =
    "JDWP exit error JVMTI_ERROR_NONE(0): could not connect, timeout or fatal error [{}:{}]";

// ---------------------------------------------------------------------------
// Exit codes used above.
// ---------------------------------------------------------------------------
inline constexpr int kExitOk = 0;              // help, accept timeout
inline constexpr int kExitOptionError = 1;     // every option error; also JVM after JNI_ERR
inline constexpr int kExitTransportError = 2;  // AGENT_ERROR_TRANSPORT_INIT
inline constexpr int kExitAbort = 134;         // JNI FatalError (128 + SIGABRT), as the shell reports it;
                                               // jdwpx exit()s with it for a missing transport library

}  // namespace jdwpx::backend::messages
