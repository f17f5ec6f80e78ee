#include "backend/start/load_errors.h"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>

#include <fmt/format.h>

#include "backend/messages.h"
#include "transport/transport.h"

namespace jdwpx::backend {
namespace {

constexpr const char* kSourceFile = "backend/start/load_errors.cc";

// This library's file as the JVM opened it: the -agentpath: text (relative
// paths stay relative), or the path the JVM built for -agentlib:.
std::string OwnFile() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&OwnFile), &info) != 0 && info.dli_fname != nullptr) return info.dli_fname;
  return {};
}

std::string RealPath(const std::string& path) {
  char resolved[PATH_MAX];
  return ::realpath(path.c_str(), resolved) != nullptr ? std::string(resolved) : std::string();
}

std::optional<std::string> SystemProperty(jvmtiEnv* jvmti, const char* name) {
  char* value = nullptr;
  if (jvmti->GetSystemProperty(name, &value) != JVMTI_ERROR_NONE || value == nullptr) return std::nullopt;
  std::string copy(value);
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(value));
  return copy;
}

}  // namespace

// Why the library's own file: no JVMTI or JNI call tells an agent which option
// loaded it, and the command line is no better: /proc/self/cmdline misses
// JAVA_TOOL_OPTIONS, JDK_JAVA_OPTIONS, @argfiles and JVMs made through the
// invocation API (IDE launchers), sun.java.command holds only the main class
// and its arguments, and the VM's input arguments are Java-side (RuntimeMXBean),
// out of reach at Agent_OnLoad. The file is always there: HotSpot opens
// -agentpath:<p> as dlopen(<p>), and -agentlib:<n> (and -Xrun<n>) as
// <dir>/lib<n>.so for the first directory of sun.boot.library.path (the JDK's
// lib directory) that has it, which dladdr hands back. Its only blind spots:
// -agentpath: naming a JDK's own lib/libjdwp.so reads as -agentlib:jdwp, and
// -agentlib:<n> found on LD_LIBRARY_PATH reads as -agentpath:<found file>; both
// name a form that loads the same library. Directories are compared by realpath
// (an overlay JDK's lib/libjdwp.so is a link; the link's directory counts).
std::string LoadedAs(std::string_view library_file, std::string_view boot_library_path) {
  const std::size_t slash = library_file.rfind('/');
  const std::string_view base = slash == std::string_view::npos ? library_file : library_file.substr(slash + 1);
  if (slash != std::string_view::npos && base.size() > 6 && base.starts_with("lib") && base.ends_with(".so")) {
    const std::string dir = RealPath(std::string(slash == 0 ? std::string_view("/") : library_file.substr(0, slash)));
    std::string_view rest = boot_library_path;
    while (!dir.empty() && !rest.empty()) {
      const std::size_t colon = rest.find(':');
      const std::string_view entry = rest.substr(0, colon);
      if (!entry.empty() && RealPath(std::string(entry)) == dir) {
        return "-agentlib:" + std::string(base.substr(3, base.size() - 6));
      }
      if (colon == std::string_view::npos) break;
      rest.remove_prefix(colon + 1);
    }
  }
  return "-agentpath:" + std::string(library_file);
}

std::string LoadedAs(jvmtiEnv* jvmti) {
  return LoadedAs(OwnFile(), SystemProperty(jvmti, "sun.boot.library.path").value_or(""));
}

std::string Invocation(std::string_view loaded_as, std::string_view options,
                       std::optional<std::string_view> environment_options) {
  std::string text(loaded_as);
  if (!options.empty()) text += "=" + std::string(options);
  if (environment_options) text += " and _JAVA_JDWP_OPTIONS=" + std::string(*environment_options);
  return text;
}

std::string AttachInvocation(std::string_view options) {
  std::string text = "JVMTI.agent_load " + OwnFile();
  if (!options.empty()) text += " " + std::string(options);
  return text;
}

std::optional<std::string> TransportLibraryError(jvmtiEnv* jvmti, const Options& options) {
  // dt_socket is built in; a deferred start reports a missing library then and
  // runs on, as stock does (Agent::StartsLate).
  if (options.transport == "dt_socket" || options.onthrow || options.onuncaught || options.onjcmd) {
    return std::nullopt;
  }
  const auto problem =
      transport::CheckLibrary(options.transport, SystemProperty(jvmti, "sun.boot.library.path").value_or(""));
  if (!problem) return std::nullopt;
  return fmt::format("ERROR: {}\njdwpx: {}\n{}\n{}\n", problem->error.message, problem->where,
                     fmt::format(messages::kTransportFailed, options.transport, "TRANSPORT_LOAD", 509),
                     fmt::format(messages::kExitTransportLoad, kSourceFile, __LINE__));
}

}  // namespace jdwpx::backend
