// Errors at Agent_OnLoad that say what is wrong and where: how the user loaded
// the agent (for the line after stock's option error), and a transport library
// that cannot be used (reported before the VM starts, without a crash).
#pragma once

#include <jvmti.h>

#include <optional>
#include <string>
#include <string_view>

#include "backend/options.h"

namespace jdwpx::backend {

// How the JVM was told to load this library, written as the user would have:
// "-agentlib:<name>" when the library is lib<name>.so in a directory of
// `boot_library_path` (the JDK's lib directory, where -agentlib: and -Xrun look
// first), else "-agentpath:<library_file>". `library_file` is the path the
// library was loaded from (dladdr).
[[nodiscard]] std::string LoadedAs(std::string_view library_file, std::string_view boot_library_path);
// The same for this library in this JVM.
[[nodiscard]] std::string LoadedAs(jvmtiEnv* jvmti);

// The options as the user gave them: "<loaded_as>=<options>", and
// " and _JAVA_JDWP_OPTIONS=<value>" when that variable added some.
[[nodiscard]] std::string Invocation(std::string_view loaded_as, std::string_view options,
                                     std::optional<std::string_view> environment_options);

// "JVMTI.agent_load <this library> <options>": how jcmd loaded it (Agent_OnAttach).
[[nodiscard]] std::string AttachInvocation(std::string_view options);

// transport=<name> other than dt_socket, for an agent that starts its transport
// with the VM (no onthrow=, onuncaught=, onjcmd=): lib<name>.so looked for now,
// where the VM's start will look. When it cannot be used: stock's lines for it
// (TRANSPORT_LOAD), with jdwpx's line naming the file and where it was looked
// for after the first; the caller prints them and exits with
// messages::kExitAbort, stock's status without stock's JNI FatalError.
[[nodiscard]] std::optional<std::string> TransportLibraryError(jvmtiEnv* jvmti, const Options& options);

}  // namespace jdwpx::backend
