// The library's exported functions (exports.map): Agent_OnLoad (-agentpath,
// -agentlib), Agent_OnAttach (jcmd JVMTI.agent_load), Agent_OnUnload, and
// debugInit_startDebuggingViaCommand (jcmd VM.start_java_debugging). Each
// catches everything: nothing the command line or jcmd sends ends the JVM here.
#include <dlfcn.h>
#include <jni.h>
#include <jvmti.h>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include "backend/start/agent.h"
#include "backend/start/attach_options.h"
#include "backend/start/load_errors.h"
#include "backend/log.h"
#include "backend/messages.h"
#include "backend/options.h"
#include "backend/start/vm_callbacks.h"
#include "vmcore/jvmti.h"

namespace jdwpx::backend {
namespace {
// Agent_OnLoad ran (once per process: a second load is refused, as stock).
bool g_loaded = false;
}  // namespace
}  // namespace jdwpx::backend

using jdwpx::backend::Agent;

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void*) {
  namespace be = jdwpx::backend;
  try {
    if (jdwpx::backend::g_loaded) {
      std::fprintf(stderr, "%s\n", std::string(be::messages::kLoadedTwice).c_str());
      return JNI_ERR;
    }
    jdwpx::backend::g_loaded = true;
    jvmtiEnv* jvmti = nullptr;
    if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_1_2) != JNI_OK || !jvmti) {
      std::fprintf(stderr, "ERROR: JDWP unable to access JVMTI Version 1.2\n");
      return JNI_ERR;
    }
    int feature = jdwpx::backend::JdkFeatureVersion(jvmti);
    const char* env_options = std::getenv("_JAVA_JDWP_OPTIONS");
    auto parsed = be::ParseOptions(options ? options : "", feature,
                                   env_options ? std::optional<std::string_view>(env_options) : std::nullopt);
    if (!parsed) {
      const std::string invocation = be::Invocation(be::LoadedAs(jvmti), options ? options : "",
                                                    env_options ? std::optional<std::string_view>(env_options)
                                                                : std::nullopt);
      std::fputs(be::ErrorText(parsed.error(), invocation).c_str(), stderr);
      std::fflush(stderr);
      std::exit(parsed.error().exit_code);
    }
    if (parsed->help) {
      std::fputs(be::HelpText(feature).c_str(), stdout);
      std::fflush(stdout);
      std::exit(0);
    }
    if (auto error = be::TransportLibraryError(jvmti, *parsed)) {
      std::fputs(error->c_str(), stderr);
      std::fflush(stderr);
      std::exit(be::messages::kExitAbort);
    }
    be::ConfigureLogging(std::string(be::LogLevelName(parsed->log_level)), parsed->logfile.value_or(""));
    jdwpx::vmcore::SetJavaVm(vm);
    auto* agent = new Agent(vm, jvmti, std::move(*parsed));
    if (!agent->Initialize() || !agent->InstallStartTrigger(vm)) {
      std::fprintf(stderr, "ERROR: JDWP unable to get necessary JVMTI capabilities.\n");
      return JNI_ERR;
    }
    jdwpx::backend::g_agent = agent;
    return JNI_OK;
  } catch (...) {
    std::fprintf(stderr, "ERROR: JDWP agent failed to initialize\n");
    return JNI_ERR;
  }
}

namespace {

// jcmd JVMTI.agent_load prints "return code: N" with N from Agent_OnAttach, and
// nothing of the agent's text (which goes to the JVM's stderr).
enum AttachCode : jint {
  kAttachOk = 0,
  kAttachFailed = 1,        // no JVMTI, the JVM refused capabilities or events
  kAttachBadOptions = 2,    // the option string (stderr has stock's text)
  kAttachAlreadyActive = 3, // listening, or a debugger is attached
  kAttachStartFailed = 4,   // the transport did not start (port taken, refused...)
};

// A library whose Agent_OnAttach fails is unloaded by HotSpot (dlclose), and
// one that ran any code may have left JVMTI callbacks or loggers pointing into
// it: once loaded, jdwpx stays mapped for the life of the process.
void PinLibrary() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&PinLibrary), &info) && info.dli_fname) {
    (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
}

void AttachError(const std::string& text) {
  std::fprintf(stderr, "ERROR: JDWP %s\n", text.c_str());
  std::fflush(stderr);
  // Into the log too, unless the log is stderr (the line is there already).
  if (!jdwpx::backend::LogGoesToStderr()) jdwpx::backend::Log().error("{}", text);
}

jthread CurrentThread(jvmtiEnv* jvmti) {
  jthread thread = nullptr;
  return jvmti->GetCurrentThread(&thread) == JVMTI_ERROR_NONE ? thread : nullptr;
}

// Options given to jcmd JVMTI.agent_load (attach_options.h), never exiting: an
// error is printed and returned as nullopt, as is `help` (after the help text).
std::optional<jdwpx::backend::Options> ParseAttachOptions(const char* text, int feature) {
  namespace be = jdwpx::backend;
  auto parsed = be::ParseAttachOptions(text ? text : "", feature);
  if (!parsed) {
    std::fputs(be::ErrorText(parsed.error(), be::AttachInvocation(text ? text : "")).c_str(), stderr);
    std::fflush(stderr);
    return std::nullopt;
  }
  if (parsed->help) {
    std::fputs(be::HelpText(feature).c_str(), stdout);
    std::fflush(stdout);
    return std::nullopt;
  }
  for (const std::string& warning : parsed->warnings) std::fputs(warning.c_str(), stderr);
  std::fflush(stderr);
  return std::move(parsed->options);
}

}  // namespace

// onjcmd=y: HotSpot's `jcmd <pid> VM.start_java_debugging` (JDK 17 to 23) looks
// this up in the agent library named "jdwp" and prints "Debugging has been
// started." (first_start) or "Debugging is already active.", then the transport
// and address; a returned text is printed as "Debugging has not been started: <text>".
extern "C" JNIEXPORT const char* JNICALL debugInit_startDebuggingViaCommand(JNIEnv* jni, jthread thread,
                                                                           const char** transport_name,
                                                                           const char** address,
                                                                           jboolean* first_start) {
  Agent* agent = jdwpx::backend::g_agent;
  if (!agent) return "Not yet initialized. Try again later.";
  // The text handed back must outlive this call: one buffer, jcmds come one at a time.
  static std::string error_text;
  try {
    bool first = false;
    bool transport_failed = false;
    auto error = agent->StartOnDemand(jni, thread, nullptr, &first, &transport_failed);
    if (first_start) *first_start = first ? JNI_TRUE : JNI_FALSE;
    // As stock (JDK 17): a transport that fails to start (the port is taken) is
    // reported on the JVM's stderr only, and jcmd answers "Debugging has been
    // started." with the configured transport and address. Unlike stock, the
    // agent stays startable: the next jcmd tries again.
    if (error && !transport_failed) {
      error_text = *error;
      return error_text.c_str();
    }
    const auto& o = agent->context().options;
    if (transport_name && address) {
      *transport_name = o.transport.c_str();
      *address = o.address ? o.address->c_str() : nullptr;
    }
    return nullptr;
  } catch (...) {
    return "jdwpx failed to start";
  }
}

// jcmd <pid> JVMTI.agent_load <path to libjdwpx.so> ["<options>"]: starts a
// dormant jdwpx (onjcmd=y; the options, if any, replace the transport spec), or
// loads jdwpx into a JVM started without it (late attach, limited mode). Never
// exits the JVM: every error is a return code and a line on stderr.
extern "C" JNIEXPORT jint JNICALL Agent_OnAttach(JavaVM* vm, char* options, void*) {
  namespace be = jdwpx::backend;
  try {
    PinLibrary();
    JNIEnv* jni = nullptr;
    if (vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_2) != JNI_OK || !jni) return kAttachFailed;
    if (Agent* agent = be::g_agent) {
      jvmtiEnv* jvmti = agent->context().jvmti.raw();
      std::optional<be::Options> spec;
      if (options && *options) {
        spec = ParseAttachOptions(options, be::JdkFeatureVersion(jvmti));
        if (!spec) return kAttachBadOptions;
      }
      if (!agent->context().options.onjcmd && !agent->late()) {
        AttachError("jdwpx is already loaded and running (" + agent->ActiveState() +
                    "); load it with onjcmd=y to start it by jcmd");
        return kAttachAlreadyActive;
      }
      bool first = false;
      jthread thread = CurrentThread(jvmti);
      auto error = agent->StartOnDemand(jni, thread, spec ? &*spec : nullptr, &first);
      if (thread) jni->DeleteLocalRef(thread);
      if (error) {
        AttachError("debugging has not been started: " + *error);
        return agent->vm_initialized() ? kAttachStartFailed : kAttachFailed;
      }
      if (!first) {
        AttachError("debugging is already active (" + agent->ActiveState() + ")");
        return kAttachAlreadyActive;
      }
      return kAttachOk;
    }
    if (be::g_loaded) {
      AttachError("jdwpx failed to load before; it cannot be loaded again");
      return kAttachFailed;
    }
    // Late attach: a JVM that never had jdwpx.
    jvmtiEnv* jvmti = nullptr;
    if (vm->GetEnv(reinterpret_cast<void**>(&jvmti), JVMTI_VERSION_1_2) != JNI_OK || !jvmti) {
      AttachError("unable to access JVMTI Version 1.2");
      return kAttachFailed;
    }
    auto parsed = ParseAttachOptions(options, be::JdkFeatureVersion(jvmti));
    if (!parsed) {
      jvmti->DisposeEnvironment();
      return kAttachBadOptions;
    }
    be::ConfigureLogging(std::string(be::LogLevelName(parsed->log_level)), parsed->logfile.value_or(""));
    jdwpx::vmcore::SetJavaVm(vm);
    auto* agent = new Agent(vm, jvmti, std::move(*parsed), /*late=*/true);
    if (!agent->Initialize()) {
      AttachError("unable to get the JVMTI capabilities and events a debugger needs");
      jvmti->DisposeEnvironment();
      delete agent;
      return kAttachFailed;
    }
    be::g_loaded = true;
    be::g_agent = agent;
    jthread thread = CurrentThread(jvmti);
    auto error = agent->StartLate(jni, thread);
    if (thread) jni->DeleteLocalRef(thread);
    if (error) {
      // The agent stays loaded but idle; a later load reports it (g_loaded).
      AttachError("debugging has not been started: " + *error);
      return kAttachStartFailed;
    }
    return kAttachOk;
  } catch (...) {
    std::fprintf(stderr, "ERROR: JDWP agent failed to attach\n");
    return kAttachFailed;
  }
}

extern "C" JNIEXPORT void JNICALL Agent_OnUnload(JavaVM*) {
  // The VM is going away; the agent's threads are daemon threads and end with it.
}
