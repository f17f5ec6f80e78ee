// The options given to `jcmd <pid> JVMTI.agent_load <libjdwpx.so> "<options>"`
// (Agent_OnAttach): the load-time rules (options.h) for a JVM that already runs.
// Never exits: every error is returned, for a return code on jcmd's output and
// the text on the JVM's stderr.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "backend/options.h"

namespace jdwpx::backend {

struct AttachOptions {
  Options options;
  // `help` was asked: the caller prints HelpText and starts nothing.
  bool help = false;
  // Lines for the JVM's stderr about options that were given and cannot apply
  // (each ends in '\n'); the start goes on.
  std::vector<std::string> warnings;
};

// `text` is Agent_OnAttach's option string (pass "" for a null pointer). jcmd
// strips the quotes that keep its parser from cutting the argument at its first
// '=' ("\"transport=...\"" or '...'); a caller of the attach API (or one more
// level of quoting in a script) may leave one pair around the whole string:
// that pair and surrounding blanks are dropped. Then, as ParseOptions with no
// _JAVA_JDWP_OPTIONS, and:
//   onthrow= / onuncaught=: refused (the exception that would start it may be long past);
//   suspend=y: ignored with a warning; nothing may hold an application that
//   already runs (stock's onjcmd=y forces suspend=n too, silently).
// The error's stderr_text is what to print; exit_code is unused.
[[nodiscard]] tl::expected<AttachOptions, OptionsError> ParseAttachOptions(std::string_view text,
                                                                           int jdk_feature_version);

}  // namespace jdwpx::backend
