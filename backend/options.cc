#include "backend/options.h"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <vector>

#include <jdwpx_version.h>

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

// The options `help` lists, for "did you mean": stock's, then jdwpx's. The hidden
// debugging options (assert=, pause=, ...) are left out on purpose.
constexpr std::string_view kKnownNames[] = {
    "suspend",  "transport", "address", "server", "allow",    "launch",   "onthrow",
    "onuncaught", "timeout", "includevirtualthreads", "mutf8", "quiet", "strict", "stdalloc",
    "logfile",  "logflags",  "onjcmd",  "loglevel", "trace",  "tracebytes", "tracesize",
    "handshaketimeout", "suspendtimeout", "onbindfail", "addressfile", "unixroot", "sessions"};

bool IsKnownName(std::string_view name) {
  for (std::string_view known : kKnownNames) {
    if (known == name) return true;
  }
  return false;
}

char Lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Edits (insert, delete, replace, swap two neighbours) from a to b, ignoring case.
std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = Lower(a[i - 1]) == Lower(b[j - 1]) ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && Lower(a[i - 1]) == Lower(b[j - 2]) && Lower(a[i - 2]) == Lower(b[j - 1])) {
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    }
  }
  return d[a.size()][b.size()];
}

// The known option `name` was most likely meant as: the nearest within two edits
// (one for names under five letters), the first in kKnownNames on a tie.
std::optional<std::string_view> Suggestion(std::string_view name) {
  const std::size_t limit = name.size() < 5 ? 1 : 2;
  std::optional<std::string_view> best;
  std::size_t best_distance = limit + 1;
  for (std::string_view known : kKnownNames) {
    const std::size_t distance = EditDistance(name, known);
    if (distance < best_distance) {
      best = known;
      best_distance = distance;
    }
  }
  return best;
}

std::string UnknownOption(std::string_view name, std::optional<std::string_view> value) {
  std::string detail(name);
  if (value) detail += "=" + std::string(*value);
  if (const auto suggestion = Suggestion(name)) {
    return detail + ": unknown option (did you mean " + std::string(*suggestion) + "?)";
  }
  return detail + ": unknown option (help lists the options)";
}

// `item` ends at a ',' before any '=': "suspend" in "suspend,server=y", "" in ",,".
std::string WithoutValue(std::string_view item) {
  if (item.empty()) return "an empty option (two commas in a row, or a comma first): remove the extra comma";
  if (item == "help") return "help: must be the only option";
  if (IsKnownName(item)) return std::string(item) + ": needs a value (" + std::string(item) + "=...)";
  return UnknownOption(item, std::nullopt);
}

// What is allowed after `name=`, for the y/n options and those with a closed set.
std::string Allowed(std::string_view name) {
  if (name == "assert") return "must be y, n or fatal";
  if (name == "loglevel") return "must be trace, debug, info, warn, error or off";
  if (name == "onbindfail") return "must be abort or continue";
  if (name == "tracesize") return "a size in MB (1 to 9999999)";
  if (name == "timeout") return "a number of milliseconds (0: no timeout)";
  if (name == "handshaketimeout" || name == "suspendtimeout") {
    return "a number of milliseconds (1 to " + std::to_string(Options::kMaxMillis) + ")";
  }
  if (name == "trace" || name == "addressfile") return "needs a file path";
  if (name == "sessions") return "debuggers attached at once (1 to " + std::to_string(kMaxSessions) + ")";
  return "must be y or n";
}

std::string BadValue(std::string_view name, std::optional<std::string_view> value) {
  return std::string(name) + "=" + std::string(value.value_or("")) + ": " + Allowed(name);
}

tl::unexpected<OptionsError> Fail(std::string text, std::string detail) {
  text += '\n';
  return tl::unexpected(OptionsError{std::move(text), messages::kExitOptionError, std::move(detail)});
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

std::string ErrorText(const OptionsError& error, std::string_view invocation) {
  if (error.detail.empty()) return error.stderr_text;
  const std::string& stock = error.stderr_text;
  const std::size_t newline = stock.find('\n');
  const std::size_t first_end = newline == std::string::npos ? stock.size() : newline + 1;
  std::string text = stock.substr(0, first_end);
  if (!text.empty() && text.back() != '\n') text += '\n';
  text += "jdwpx: " + error.detail;
  if (!invocation.empty()) text += " (in " + std::string(invocation) + ")";
  text += '\n';
  return text + stock.substr(first_end);
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
  // Stock's line, then ours saying what is wrong (ErrorText).
  const auto syntax_error = [&](std::string detail) {
    return Fail(Substitute(messages::kOptionSyntaxError, all), std::move(detail));
  };
  const auto bad_option = [&](std::string_view pattern, std::string detail) {
    return Fail(Substitute(pattern, all), std::move(detail));
  };

  int transport_count = 0;
  std::string_view rest = all;
  while (!rest.empty()) {
    // The option as written, up to the next ',': for the messages.
    const std::string_view item = rest.substr(0, rest.find(','));
    const auto name = NextToken(rest, '=', kNameCapacity);
    if (!name) {
      if (item.find('=') == std::string_view::npos) return syntax_error(WithoutValue(item));
      return syntax_error(std::string(item.substr(0, 20)) + "...: option name too long (" +
                          std::to_string(kNameCapacity) + " characters or more)");
    }
    // "suspend,server=y": an option without '=' before the next one.
    if (name->find(',') != std::string_view::npos) return syntax_error(WithoutValue(item));
    // An option without '=' at the end ("...,suspend") gets a name and no value: say so,
    // whatever check fails on it (stock's removed options still get their own text).
    const bool has_equals = item.find('=') != std::string_view::npos;
    const auto fail = [&](std::string detail) {
      return syntax_error(has_equals ? std::move(detail) : WithoutValue(item));
    };
    // The value as written (up to the next ','), before it is consumed: for the messages.
    const std::optional<std::string_view> written =
        rest.empty() ? std::nullopt : std::optional<std::string_view>(rest.substr(0, rest.find(',')));

    // Options whose value is any string (possibly empty when a ',' follows).
    const auto string_value = [&]() { return NextToken(rest, ',', kUnlimited); };
    const auto needs_value = [&] { return fail(std::string(*name) + "=: needs a value"); };
    const auto bad_value = [&] { return fail(BadValue(*name, written)); };

    if (*name == "transport") {
      const auto value = string_value();
      if (!value) return needs_value();
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
                                             : messages::kTimeoutWithoutTransport,
                          std::string(item) + ": comes before transport=, which must come first");
      }
      const auto value = string_value();
      if (!value) return *name == "timeout" ? bad_value() : needs_value();
      if (*name == "address") {
        options.address = std::string(*value);
      } else if (*name == "allow") {
        options.allow = std::string(*value);
      } else {
        // Stock takes atol() of anything ("abc" is 0: no timeout); jdwpx wants a number.
        if (value->empty() || value->size() > 18 ||
            value->find_first_not_of("0123456789") != std::string_view::npos) {
          return bad_value();
        }
        options.timeout_ms = CStrtol(*value, 10);
      }
    } else if (*name == "includevirtualthreads") {
      if (jdk_feature_version < 19) {
        return fail(std::string(item) + ": needs JDK 19 or later (this is JDK " + std::to_string(jdk_feature_version) +
                    ")");
      }
      const auto value = string_value();
      if (!value || (*value != "y" && *value != "n")) return bad_value();
      options.include_virtual_threads = *value == "y";
    } else if (*name == "launch") {
      const auto value = string_value();
      if (!value) return needs_value();
      options.launch = std::string(*value);
    } else if (*name == "onthrow") {
      const auto value = string_value();
      if (!value) return needs_value();
      options.onthrow = std::string(*value);
    } else if (*name == "assert") {
      const auto value = string_value();
      if (!value || (*value != "y" && *value != "n" && *value != "fatal")) return bad_value();
    } else if (*name == "exitpause") {
      return bad_option(messages::kExitpauseRemoved, "exitpause: no longer an option (-XX:OnError= replaces it)");
    } else if (*name == "precrash") {
      return bad_option(messages::kPrecrashRemoved, "precrash: no longer an option (-XX:OnError= replaces it)");
    } else if (*name == "logfile") {
      const auto value = string_value();
      if (!value) return needs_value();
      options.logfile = std::string(*value);
    } else if (*name == "logflags") {
      const auto value = string_value();
      if (!value) return needs_value();
      options.logflags = static_cast<uint32_t>(CStrtol(*value, 0));
    } else if (*name == "debugflags") {
      if (!string_value()) return needs_value();
    } else if (*name == "trace") {
      const auto value = string_value();
      if (!value || value->empty()) return bad_value();
      options.trace = std::string(*value);
    } else if (*name == "tracesize") {
      // Whole megabytes, at least 1.
      const auto value = string_value();
      if (!value || value->empty() || value->size() > 7) return bad_value();
      int64_t megabytes = 0;
      for (char c : *value) {
        if (c < '0' || c > '9') return bad_value();
        megabytes = megabytes * 10 + (c - '0');
      }
      if (megabytes == 0) return bad_value();
      options.trace_size_mb = megabytes;
    } else if (*name == "handshaketimeout" || *name == "suspendtimeout") {
      const auto value = string_value();
      const auto ms = value ? ParseMillis(*value) : std::nullopt;
      if (!ms) return bad_value();
      (*name == "handshaketimeout" ? options.handshake_timeout_ms : options.suspend_timeout_ms) = *ms;
    } else if (*name == "onbindfail") {
      const auto value = string_value();
      if (!value || (*value != "abort" && *value != "continue")) return bad_value();
      options.onbindfail_continue = *value == "continue";
    } else if (*name == "addressfile") {
      const auto value = string_value();
      if (!value || value->empty()) return bad_value();
      options.address_file = std::string(*value);
    } else if (*name == "sessions") {
      const auto value = string_value();
      if (!value || value->empty() || value->size() > 2) return bad_value();
      int sessions = 0;
      for (char c : *value) {
        if (c < '0' || c > '9') return bad_value();
        sessions = sessions * 10 + (c - '0');
      }
      if (sessions < 1 || sessions > kMaxSessions) return bad_value();
      options.sessions = sessions;
    } else if (*name == "unixroot") {
      const auto value = string_value();
      if (!value || (*value != "y" && *value != "n")) return bad_value();
      options.unix_root = *value == "y";
    } else if (*name == "loglevel") {
      const auto value = string_value();
      const auto level = value ? ParseLogLevel(*value) : std::nullopt;
      if (!level) return bad_value();
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
        return fail(UnknownOption(*name, written));
      }
      const auto value = NextBoolean(rest);
      if (!value) return bad_value();
      *target = *value;
    }
  }

  // Whole-string checks, in stock's order.
  if (transport_count == 0) {
    return bad_option(messages::kNoTransport, "transport= is missing (transport=dt_socket for a socket)");
  }
  if (transport_count > 1) {
    return bad_option(messages::kMultipleTransports,
                      "transport= is given " + std::to_string(transport_count) + " times: give it once");
  }
  if (!options.server && !options.address) {
    return Fail(Substitute(messages::kNonServerNeedsAddress, options.transport) + "\n" +
                    Substitute(messages::kInvalidOption, all),
                "server=n attaches to a debugger: it needs address=<host>:<port> (or server=y to listen)");
  }
  if ((options.onthrow || options.onuncaught) && !options.launch) {
    return bad_option(messages::kLaunchRequired, std::string(options.onthrow ? "onthrow=" : "onuncaught=y") +
                                                     " needs launch=<command> (the debugger to start)");
  }
  if (options.suspend_timeout_ms > 0 && (!options.server || !options.suspend || options.onjcmd)) {
    return syntax_error("suspendtimeout=" + std::to_string(options.suspend_timeout_ms) +
                        ": applies with server=y and suspend=y only (and not with onjcmd=y)");
  }
  if (options.sessions > 1 && (!options.server || options.launch)) {
    return syntax_error("sessions=" + std::to_string(options.sessions) +
                        ": applies with server=y only (and not with launch=): several debuggers attach to one address");
  }
  if (options.onjcmd) {
    if (options.launch) return bad_option(messages::kOnjcmdWithLaunch, "onjcmd=y and launch= exclude each other");
    if (!options.server) return bad_option(messages::kOnjcmdNeedsServer, "onjcmd=y needs server=y");
    options.suspend = false;  // as stock: the application runs on until the start
  }
  return options;
}

std::string VersionText() { return std::string("jdwpx ") + kRelease + " (" + kBuild + ")"; }

std::string HelpText(int jdk_feature_version) {
  std::string text =
      "               Java Debugger JDWP Agent Library\n"
      "               --------------------------------\n"
      "               " + VersionText() + "\n"
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
  return text;
}

}  // namespace jdwpx::backend
