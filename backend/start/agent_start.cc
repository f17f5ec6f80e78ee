// The ways the agent starts (agent.h): at VMInit, on an exception
// (onthrow=/onuncaught=), by jcmd (onjcmd=y), and late attach. Each ends in
// Agent::Start (agent.cc), which starts the transport and the agent threads.
#include "backend/start/agent.h"

#include <string>
#include <utility>

#include <fmt/format.h>

#include "backend/log.h"
#include "backend/start/vm_callbacks.h"

namespace jdwpx::backend {

bool Agent::InstallStartTrigger(JavaVM* vm) {
  if (!ctx_.options.onthrow && !ctx_.options.onuncaught) return true;
  jvmtiEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JVMTI_VERSION_1_2) != JNI_OK || !env) return false;
  jvmtiCapabilities caps{};
  caps.can_generate_exception_events = 1;
  if (env->AddCapabilities(&caps) != JVMTI_ERROR_NONE) return false;
  if (!SetStartTriggerCallbacks(env)) return false;
  return env->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_EXCEPTION, nullptr) == JVMTI_ERROR_NONE;
}

void Agent::OnStartTrigger(jvmtiEnv* trigger_env, JNIEnv* jni, jthread thread, jmethodID method,
                           jlocation location, jobject exception, jmethodID catch_method, jlocation catch_location) {
  if (!vm_initialized_ || started_) return;
  const Options& o = ctx_.options;
  bool starts = o.onuncaught && catch_method == nullptr;
  if (!starts && o.onthrow && exception) {
    jclass klass = jni->GetObjectClass(exception);
    char* signature = nullptr;
    if (klass && trigger_env->GetClassSignature(klass, &signature, nullptr) == JVMTI_ERROR_NONE && signature) {
      starts = trigger_signature_ == signature;
      trigger_env->Deallocate(reinterpret_cast<unsigned char*>(signature));
    }
    if (klass) jni->DeleteLocalRef(klass);
  }
  if (!starts || started_.exchange(true)) return;
  (void)trigger_env->SetEventNotificationMode(JVMTI_DISABLE, JVMTI_EVENT_EXCEPTION, nullptr);
  // The start makes JNI calls: keep the thread's pending exception, if any, out of their way.
  jthrowable pending = jni->ExceptionOccurred();
  if (pending) jni->ExceptionClear();
  const StartingException trigger{method, location, exception, catch_method, catch_location};
  Start(jni, thread, &trigger);
  if (pending) jni->Throw(pending);
}

void Agent::OnVmInit(JNIEnv* jni, jthread thread) {
  if (!ctx_.InitClasses(jni)) {
    Log().error("cannot find core JDK classes; the debugger interface is disabled");
    return;
  }
  // Thread.resume0 was bound long before (or never is: JDK 20+).
  (void)ctx_.jvmti.SetEventMode(false, JVMTI_EVENT_NATIVE_METHOD_BIND);
  vm_initialized_ = true;
  if (ctx_.options.onthrow || ctx_.options.onuncaught || ctx_.options.onjcmd) {
    // Nothing starts before the exception or the jcmd (stock neither listens nor attaches).
    return;
  }
  Start(jni, thread, nullptr);
}

std::optional<std::string> Agent::StartOnDemand(JNIEnv* jni, jthread thread, const Options* spec, bool* first,
                                                bool* transport_failed) {
  std::lock_guard lock(start_mu_);
  *first = false;
  if (transport_failed) *transport_failed = false;
  // Stock's texts for these two (jcmd prints "Debugging has not been started: <text>").
  if (!vm_initialized_) return "Not yet initialized. Try again later.";
  // A late attach whose start failed may be started again the same way.
  if (!ctx_.options.onjcmd && !late_) {
    return "Starting debugging via jcmd was not enabled via the onjcmd option of the jdwp agent.";
  }
  if (started_) return std::nullopt;
  // Back to dormant when the debugger leaves: asked by onjcmd=y in the jcmd
  // options, and always for server=n (there is nothing to listen again).
  dormant_after_session_ = spec ? (spec->onjcmd || !spec->server) : !ctx_.options.server;
  if (spec) {
    Options& o = ctx_.options;
    o.transport = spec->transport;
    o.address = spec->address;
    o.server = spec->server;
    o.allow = spec->allow;
    o.timeout_ms = spec->timeout_ms;
  }
  started_ = true;
  *first = true;
  if (!Start(jni, thread, nullptr)) {
    // Back to dormant: a later jcmd may try again (another address, say).
    started_ = false;
    if (transport_failed) *transport_failed = start_error_transport_;
    return start_error_;
  }
  Log().info("started on demand ({}, address {})", ctx_.options.server ? "listening" : "attached",
             ctx_.options.address.value_or("<ephemeral>"));
  return std::nullopt;
}

std::optional<std::string> Agent::StartLate(JNIEnv* jni, jthread thread) {
  std::lock_guard lock(start_mu_);
  if (!ctx_.InitClasses(jni)) return "cannot find core JDK classes";
  vm_initialized_ = true;
  dormant_after_session_ = ctx_.options.onjcmd || !ctx_.options.server;
  auto granted = ctx_.jvmti.GetCapabilities();
  if (!granted) return "cannot read the JVMTI capabilities granted";
  // What a JVM gives an agent loaded while it runs, named as a debugger user knows it.
  const std::pair<bool, const char*> wanted[] = {
      {granted->can_generate_breakpoint_events != 0, "breakpoints"},
      {granted->can_generate_single_step_events != 0, "stepping"},
      {granted->can_access_local_variables != 0, "local variables"},
      {granted->can_generate_exception_events != 0, "exception events"},
      {granted->can_generate_frame_pop_events != 0, "frame pop events"},
      {granted->can_generate_method_entry_events != 0, "method entry events"},
      {granted->can_generate_method_exit_events != 0, "method exit events"},
      {granted->can_generate_field_access_events != 0, "field access watchpoints"},
      {granted->can_generate_field_modification_events != 0, "field modification watchpoints"},
      {granted->can_pop_frame != 0, "pop frames"},
      {granted->can_force_early_return != 0, "early return"},
      {granted->can_get_owned_monitor_info != 0, "owned monitors"},
      {granted->can_get_current_contended_monitor != 0, "contended monitor"},
      {granted->can_generate_monitor_events != 0, "monitor events"},
      {granted->can_get_source_debug_extension != 0, "source debug extension"},
      {granted->can_maintain_original_method_order != 0, "original method order"},
      {granted->can_redefine_classes != 0, "class redefinition"},
  };
  std::string missing;
  for (const auto& [has, name] : wanted) {
    if (has) continue;
    if (!missing.empty()) missing += ", ";
    missing += name;
  }
  if (missing.empty()) {
    Log().warn("loaded into a running JVM (late attach): every capability granted");
  } else {
    Log().warn("loaded into a running JVM (late attach): limited mode, without {}; what needs them answers "
               "NOT_IMPLEMENTED (exception requests are accepted and never fire)", missing);
  }
  started_ = true;
  if (!Start(jni, thread, nullptr)) {
    started_ = false;
    return start_error_;
  }
  return std::nullopt;
}

std::string Agent::ActiveState() {
  if (reporter_.attached()) return "a debugger is attached";
  if (ctx_.options.server && transport_) return fmt::format("listening at port {}", transport_->address());
  return "started";
}

}  // namespace jdwpx::backend
