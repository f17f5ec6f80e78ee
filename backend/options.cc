#include "backend/options.h"

#include <cstddef>
#include <limits>

#include "backend/messages.h"

namespace jdwpx::backend {
namespace {

// Stock reads an option name into `char buf[100]` and a y/n value into
// `char buf[80]`; a token that does not fit (terminator included) is a syntax
// error. String values go to a buffer that can always hold them.
constexpr std::size_t kNameCapacity = 100;
constexpr std::size_t kBooleanCapacity = 80;
constexpr std::size_t kUnlimited = std::numeric_limits<std::size_t>::max();

// One token up to `separator` or the end, consuming the separator. Mirrors
// stock's get_tok: nothing is returned when nothing at all is left (so "x=" at
// the very end is an error while "x=," gives an empty value) or on overflow.
std::optional<std::string_view> NextToken(std::string_view& rest, char separator, std::size_t capacity) {
  for (std::size_t i = 0; i < capacity; ++i) {
    if (i == rest.size() || rest[i] == separator) {
      const std::string_view token = rest.substr(0, i);
      const std::size_t consumed = i < rest.size() ? i + 1 : i;
      rest.remove_prefix(consumed);
      if (consumed == 0) return std::nullopt;
      return token;
    }
  }
  return std::nullopt;
}

std::optional<bool> NextBoolean(std::string_view& rest) {
  const auto token = NextToken(rest, ',', kBooleanCapacity);
  if (!token) return std::nullopt;
  if (*token == "y") return true;
  if (*token == "n") return false;
  return std::nullopt;
}

bool IsCSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'; }

int DigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'z') return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z') return c - 'A' + 10;
  return 99;
}

// C's strtol(text, NULL, base) on LP64 (atol is base 10): leading blanks, a
// sign, for base 0 a 0x/0 prefix, digits until the first non-digit; saturates.
int64_t CStrtol(std::string_view text, int base) {
  std::size_t i = 0;
  while (i < text.size() && IsCSpace(text[i])) ++i;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  if (base == 0) {
    if (i + 1 < text.size() && text[i] == '0' && (text[i + 1] == 'x' || text[i + 1] == 'X') &&
        i + 2 < text.size() && DigitValue(text[i + 2]) < 16) {
      base = 16;
      i += 2;
    } else if (i < text.size() && text[i] == '0') {
      base = 8;
    } else {
      base = 10;
    }
  }
  // Accumulate as a negative number so that INT64_MIN is reachable.
  int64_t value = 0;
  bool overflow = false;
  for (; i < text.size() && DigitValue(text[i]) < base; ++i) {
    const int digit = DigitValue(text[i]);
    if (value < (std::numeric_limits<int64_t>::min() + digit) / base) {
      overflow = true;
    } else {
      value = value * base - digit;
    }
  }
  if (negative) return overflow ? std::numeric_limits<int64_t>::min() : value;
  if (overflow || value == std::numeric_limits<int64_t>::min()) return std::numeric_limits<int64_t>::max();
  return -value;
}

std::optional<LogLevel> ParseLogLevel(std::string_view text) {
  for (LogLevel level : {LogLevel::kTrace, LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn, LogLevel::kError,
                         LogLevel::kOff}) {
    if (LogLevelName(level) == text) return level;
  }
  return std::nullopt;
}

// Replaces the first "{}" of a messages.h pattern.
std::string Substitute(std::string_view pattern, std::string_view argument) {
  const std::size_t at = pattern.find("{}");
  std::string out(pattern.substr(0, at));
  out += argument;
  out += pattern.substr(at + 2);
  return out;
}

// A whole number of milliseconds, 1 to Options::kMaxMillis; digits only.
std::optional<int64_t> ParseMillis(std::string_view text) {
  if (text.empty() || text.size() > 8) return std::nullopt;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  if (value < 1 || value > Options::kMaxMillis) return std::nullopt;
  return value;
}

tl::unexpected<OptionsError> Fail(std::string text) {
  text += '\n';
  return tl::unexpected(OptionsError{std::move(text), messages::kExitOptionError});
}

}  // namespace

std::string_view LogLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kTrace: return "trace";
    case LogLevel::kDebug: return "debug";
    case LogLevel::kInfo: return "info";
    case LogLevel::kWarn: return "warn";
    case LogLevel::kError: return "error";
    case LogLevel::kOff: return "off";
  }
  return "warn";
}

tl::expected<Options, OptionsError> ParseOptions(std::string_view text, int jdk_feature_version,
                                                 std::optional<std::string_view> environment_options) {
  Options options;
  // Stock looks for help before it adds the environment's options.
  if (text == "help") {
    options.raw = "help";
    options.help = true;
    return options;
  }
  options.raw = std::string(text);
  if (environment_options) {
    // Always a ',' (even after an empty string), exactly like stock.
    options.raw += ',';
    options.raw += *environment_options;
  }
  const std::string& all = options.raw;
  const auto syntax_error = [&] { return Fail(Substitute(messages::kOptionSyntaxError, all)); };
  const auto bad_option = [&](std::string_view pattern) { return Fail(Substitute(pattern, all)); };
  // Our options: a line saying what is wrong, then stock's syntax error line
  // (the exit code tools know).
  const auto bad_value = [&](std::string_view detail) {
    return Fail("ERROR: JDWP option " + std::string(detail) + "\n" + Substitute(messages::kOptionSyntaxError, all));
  };

  int transport_count = 0;
  std::string_view rest = all;
  while (!rest.empty()) {
    const auto name = NextToken(rest, '=', kNameCapacity);
    if (!name) return syntax_error();

    // Options whose value is any string (possibly empty when a ',' follows).
    const auto string_value = [&]() { return NextToken(rest, ',', kUnlimited); };

    if (*name == "transport") {
      const auto value = string_value();
      if (!value) return syntax_error();
      ++transport_count;
      options.transport = std::string(*value);
      // Stock starts a fresh transport spec: its address/allow/timeout go with it.
      options.address.reset();
      options.allow.reset();
      options.timeout_ms = 0;
    } else if (*name == "address" || *name == "allow" || *name == "timeout") {
      if (transport_count == 0) {
        return bad_option(*name == "address" ? messages::kAddressWithoutTransport
                          : *name == "allow" ? messages::kAllowWithoutTransport
                                             : messages::kTimeoutWithoutTransport);
      }
      const auto value = string_value();
      if (!value) return syntax_error();
      if (*name == "address") {
        options.address = std::string(*value);
      } else if (*name == "allow") {
        options.allow = std::string(*value);
      } else {
        options.timeout_ms = CStrtol(*value, 10);
      }
    } else if (*name == "includevirtualthreads" && jdk_feature_version >= 19) {
      const auto value = string_value();
      if (!value || (*value != "y" && *value != "n")) return syntax_error();
      options.include_virtual_threads = *value == "y";
    } else if (*name == "launch") {
      const auto value = string_value();
      if (!value) return syntax_error();
      options.launch = std::string(*value);
    } else if (*name == "onthrow") {
      const auto value = string_value();
      if (!value) return syntax_error();
      options.onthrow = std::string(*value);
    } else if (*name == "assert") {
      const auto value = string_value();
      if (!value || (*value != "y" && *value != "n" && *value != "fatal")) return syntax_error();
    } else if (*name == "exitpause") {
      return bad_option(messages::kExitpauseRemoved);
    } else if (*name == "precrash") {
      return bad_option(messages::kPrecrashRemoved);
    } else if (*name == "logfile") {
      const auto value = string_value();
      if (!value) return syntax_error();
      options.logfile = std::string(*value);
    } else if (*name == "logflags") {
      const auto value = string_value();
      if (!value) return syntax_error();
      options.logflags = static_cast<uint32_t>(CStrtol(*value, 0));
    } else if (*name == "debugflags") {
      if (!string_value()) return syntax_error();
    } else if (*name == "trace") {
      const auto value = string_value();
      if (!value || value->empty()) return syntax_error();
      options.trace = std::string(*value);
    } else if (*name == "tracesize") {
      // Whole megabytes, at least 1: anything else is a syntax error.
      const auto value = string_value();
      if (!value || value->empty() || value->size() > 7) return syntax_error();
      int64_t megabytes = 0;
      for (char c : *value) {
        if (c < '0' || c > '9') return syntax_error();
        megabytes = megabytes * 10 + (c - '0');
      }
      if (megabytes == 0) return syntax_error();
      options.trace_size_mb = megabytes;
    } else if (*name == "handshaketimeout" || *name == "suspendtimeout") {
      const auto value = string_value();
      const auto ms = value ? ParseMillis(*value) : std::nullopt;
      if (!ms) {
        return bad_value(std::string(*name) + "=" + std::string(value.value_or("")) +
                         ": expected milliseconds, 1 to " + std::to_string(Options::kMaxMillis));
      }
      (*name == "handshaketimeout" ? options.handshake_timeout_ms : options.suspend_timeout_ms) = *ms;
    } else if (*name == "onbindfail") {
      const auto value = string_value();
      if (!value || (*value != "abort" && *value != "continue")) {
        return bad_value("onbindfail=" + std::string(value.value_or("")) + ": expected abort or continue");
      }
      options.onbindfail_continue = *value == "continue";
    } else if (*name == "addressfile") {
      const auto value = string_value();
      if (!value || value->empty()) return bad_value("addressfile= needs a path");
      options.address_file = std::string(*value);
    } else if (*name == "unixroot") {
      const auto value = string_value();
      if (!value || (*value != "y" && *value != "n")) {
        return bad_value("unixroot=" + std::string(value.value_or("")) + ": expected y or n");
      }
      options.unix_root = *value == "y";
    } else if (*name == "loglevel") {
      const auto value = string_value();
      if (!value) return syntax_error();
      const auto level = ParseLogLevel(*value);
      if (!level) return syntax_error();
      options.log_level = *level;
    } else {
      // The y/n options.
      bool* target = nullptr;
      bool ignored = false;
      if (*name == "suspend") {
        target = &options.suspend;
      } else if (*name == "server") {
        target = &options.server;
      } else if (*name == "quiet") {
        target = &options.quiet;
      } else if (*name == "onuncaught") {
        target = &options.onuncaught;
      } else if (*name == "mutf8") {
        target = &options.mutf8;
      } else if (*name == "strict") {
        target = &options.strict;
      } else if (*name == "stdalloc") {
        target = &options.stdalloc;
      } else if (*name == "tracebytes") {
        target = &options.trace_bytes;
      } else if (*name == "onjcmd") {
        // Stock has it before JDK 24 only; jdwpx on every JDK (the jcmd
        // JVMTI.agent_load start works everywhere).
        target = &options.onjcmd;
      } else if (*name == "pause" || *name == "coredump" || *name == "errorexit" ||
                 (*name == "datadump" && jdk_feature_version >= 25)) {
        target = &ignored;
      } else {
        return syntax_error();
      }
      const auto value = NextBoolean(rest);
      if (!value) return syntax_error();
      *target = *value;
    }
  }

  // Whole-string checks, in stock's order.
  if (transport_count == 0) return bad_option(messages::kNoTransport);
  if (transport_count > 1) return bad_option(messages::kMultipleTransports);
  if (!options.server && !options.address) {
    return Fail(Substitute(messages::kNonServerNeedsAddress, options.transport) + "\n" +
                Substitute(messages::kInvalidOption, all));
  }
  if ((options.onthrow || options.onuncaught) && !options.launch) return bad_option(messages::kLaunchRequired);
  if (options.suspend_timeout_ms > 0 && (!options.server || !options.suspend || options.onjcmd)) {
    return bad_value("suspendtimeout= applies with server=y and suspend=y only");
  }
  if (options.onjcmd) {
    if (options.launch) return bad_option(messages::kOnjcmdWithLaunch);
    if (!options.server) return bad_option(messages::kOnjcmdNeedsServer);
    options.suspend = false;  // as stock: the application runs on until the start
  }
  return options;
}

std::string HelpText(int jdk_feature_version) {
  std::string text =
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
      "timeout=<timeout value>          for listen/attach in milliseconds n\n";
  if (jdk_feature_version >= 19) {
    text +=
        "includevirtualthreads=y|n        List of all threads includes virtual threads as well as platform "
        "threads.\n"
        "                                                                   n\n";
  }
  text +=
      "mutf8=y|n                        output modified utf-8             n\n"
      "quiet=y|n                        control over terminal messages    n\n"
      // jdwpx's own row, in the table's columns (33 / 34 characters).
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
  return text;
}

}  // namespace jdwpx::backend
