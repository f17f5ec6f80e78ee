#include "backend/agent.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>

#include <fmt/format.h>

#include "backend/errors.h"
#include "backend/frame_pop.h"
#include "backend/log.h"
#include "backend/messages.h"
#include "backend/wire_string.h"
#include "jdwp/print.h"

namespace jdwpx::backend {
namespace {

Agent* g_agent = nullptr;
bool g_loaded = false;

constexpr const char* kSourceFile = "backend/agent.cc";

// Every JVMTI callback enters through Guard: no C++ exception reaches the JVM.
template <class Fn>
void Guard(const char* what, Fn fn) {
  try {
    if (g_agent) fn(*g_agent);
  } catch (const std::exception& e) {
    Log().error("{}: {}", what, e.what());
  } catch (...) {
    Log().error("{}: unknown exception", what);
  }
}

// Events in the agent's own threads (the command thread runs Java code for
// some commands: Version, ModuleReference.Name) are not the debugger's: as
// stock, only a ClassPrepare there is handled (and reported without a thread).
enum class OnAgentThread { kIgnore, kHandle };

// Callbacks on a Java thread also tell ThreadControl they are running, so that
// a suspension requested meanwhile waits for their end (see threads.h).
template <class Fn>
void GuardThread(const char* what, JNIEnv* jni, jthread thread, Fn fn,
                 OnAgentThread on_agent_thread = OnAgentThread::kIgnore, bool thread_ends = false) {
  Agent* agent = g_agent;
  if (!agent) return;
  if (agent->context().threads.CurrentIsAgent(jni, thread)) {
    if (on_agent_thread == OnAgentThread::kHandle) Guard(what, fn);
    return;
  }
  void* token = nullptr;
  try {
    token = agent->context().threads.EnterCallback(jni, thread);
  } catch (...) {
  }
  Guard(what, fn);
  if (token && agent->context().threads.ExitCallback(token)) agent->events().SuspendDeferred(jni, token);
  if (token && thread_ends) agent->context().threads.ForgetSelf(jni, token);
}

void JNICALL CbVmInit(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  GuardThread("VMInit", jni, thread, [&](Agent& a) { a.OnVmInit(jni, thread); });
}
void JNICALL CbVmDeath(jvmtiEnv*, JNIEnv* jni) {
  Guard("VMDeath", [&](Agent& a) { a.OnVmDeath(jni); });
}
void JNICALL CbThreadStart(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  GuardThread("ThreadStart", jni, thread, [&](Agent& a) { a.events().OnThreadStart(jni, thread); });
}
void JNICALL CbThreadEnd(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  GuardThread("ThreadEnd", jni, thread, [&](Agent& a) { a.events().OnThreadEnd(jni, thread); },
              OnAgentThread::kIgnore, true);
}
void JNICALL CbClassPrepare(jvmtiEnv*, JNIEnv* jni, jthread thread, jclass klass) {
  GuardThread("ClassPrepare", jni, thread, [&](Agent& a) { a.events().OnClassPrepare(jni, thread, klass); },
              OnAgentThread::kHandle);
}
void JNICALL CbBreakpoint(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  GuardThread("Breakpoint", jni, thread, [&](Agent& a) { a.events().OnBreakpoint(jni, thread, method, location); });
}
void JNICALL CbSingleStep(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  // A step of StackFrame.PopFrames' own (frame_pop.h) is not the debugger's.
  GuardThread("SingleStep", jni, thread, [&](Agent& a) {
    if (!FramePops().OnSingleStep(jni, thread)) a.events().OnSingleStep(jni, thread, method, location);
  });
}
void JNICALL CbFramePop(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jboolean by_exception) {
  GuardThread("FramePop", jni, thread, [&](Agent& a) { a.events().OnFramePop(jni, thread, method, by_exception == JNI_TRUE); });
}
void JNICALL CbException(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                         jobject exception, jmethodID catch_method, jlocation catch_location) {
  GuardThread("Exception", jni, thread, [&](Agent& a) {
    a.events().OnException(jni, thread, method, location, exception, catch_method, catch_location);
  });
}

void JNICALL CbMethodEntry(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method) {
  GuardThread("MethodEntry", jni, thread, [&](Agent& a) { a.events().OnMethodEntry(jni, thread, method); });
}
void JNICALL CbMethodExit(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jboolean by_exception,
                          jvalue return_value) {
  GuardThread("MethodExit", jni, thread, [&](Agent& a) {
    a.events().OnMethodExit(jni, thread, method, by_exception == JNI_TRUE, return_value);
  });
}
void JNICALL CbFieldAccess(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                           jclass field_klass, jobject object, jfieldID field) {
  GuardThread("FieldAccess", jni, thread, [&](Agent& a) {
    a.events().OnFieldEvent(jni, thread, method, location, field_klass, object, field, 0, jvalue{});
  });
}
void JNICALL CbFieldModification(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                                 jclass field_klass, jobject object, jfieldID field, char signature_type,
                                 jvalue new_value) {
  GuardThread("FieldModification", jni, thread, [&](Agent& a) {
    a.events().OnFieldEvent(jni, thread, method, location, field_klass, object, field,
                            signature_type ? signature_type : 'L', new_value);
  });
}
void JNICALL CbMonitorWait(jvmtiEnv*, JNIEnv* jni, jthread thread, jobject object, jlong timeout) {
  GuardThread("MonitorWait", jni, thread, [&](Agent& a) {
    a.events().OnMonitorEvent(jni, thread, object, jdwp::EventKind::kMonitorWait, timeout);
  });
}
void JNICALL CbMonitorWaited(jvmtiEnv*, JNIEnv* jni, jthread thread, jobject object, jboolean timed_out) {
  GuardThread("MonitorWaited", jni, thread, [&](Agent& a) {
    a.events().OnMonitorEvent(jni, thread, object, jdwp::EventKind::kMonitorWaited, timed_out == JNI_TRUE);
  });
}
void JNICALL CbMonitorContendedEnter(jvmtiEnv*, JNIEnv* jni, jthread thread, jobject object) {
  GuardThread("MonitorContendedEnter", jni, thread, [&](Agent& a) {
    a.events().OnMonitorEvent(jni, thread, object, jdwp::EventKind::kMonitorContendedEnter, 0);
  });
}
void JNICALL CbMonitorContendedEntered(jvmtiEnv*, JNIEnv* jni, jthread thread, jobject object) {
  GuardThread("MonitorContendedEntered", jni, thread, [&](Agent& a) {
    a.events().OnMonitorEvent(jni, thread, object, jdwp::EventKind::kMonitorContendedEntered, 0);
  });
}

// Virtual threads: JVMTI 21 posts VirtualThreadStart/End on the virtual thread
// itself. Started ones are listed only with includevirtualthreads=y (the event
// is enabled only then) and reported as ThreadStart, as stock does.
void JNICALL CbVirtualThreadStart(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  GuardThread("VirtualThreadStart", jni, thread, [&](Agent& a) {
    a.context().threads.VirtualThreadStarted(jni, thread);
    a.events().OnThreadStart(jni, thread);
  });
}
// Enabled whenever virtual threads are supported, to drop the state of those
// that met the debugger; one JVMTI call for the others.
void JNICALL CbVirtualThreadEnd(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  Agent* agent = g_agent;
  if (!agent) return;
  ThreadControl& threads = agent->context().threads;
  try {
    if (!threads.CurrentVirtualHasSlot()) return;
  } catch (...) {
    return;
  }
  GuardThread("VirtualThreadEnd", jni, thread, [&](Agent& a) {
    if (a.context().options.include_virtual_threads) a.events().OnThreadEnd(jni, thread);
  }, OnAgentThread::kIgnore, true);
  Guard("VirtualThreadEnd", [&](Agent& a) { a.context().threads.VirtualThreadEnded(jni); });
}

// jvmtiEventCallbacks as of JVMTI 21: JDK 17's struct ends at event 86.
struct CallbacksWithVirtualThreads {
  jvmtiEventCallbacks base;
  void(JNICALL* virtual_thread_start)(jvmtiEnv*, JNIEnv*, jthread);  // event 87
  void(JNICALL* virtual_thread_end)(jvmtiEnv*, JNIEnv*, jthread);    // event 88
};
static_assert(offsetof(CallbacksWithVirtualThreads, virtual_thread_start) == sizeof(jvmtiEventCallbacks));

// The start trigger's environment (onthrow=/onuncaught=): not one of the debugger's callbacks.
void JNICALL StartTriggerException(jvmtiEnv* env, JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                                   jobject exception, jmethodID catch_method, jlocation catch_location) {
  GuardThread("Exception (start trigger)", jni, thread, [&](Agent& a) {
    a.OnStartTrigger(env, jni, thread, method, location, exception, catch_method, catch_location);
  });
}

// launch=: "<command> dt_socket <address>" split on blanks and exec'd without a
// shell, stdin/stdout/stderr inherited, other descriptors closed, never waited
// for: all as stock (so a command that cannot run fails silently in the child).
// False only when no child could be created.
bool LaunchDebugger(const std::string& command, const std::string& address) {
  const std::string line = command + " dt_socket " + address;
  std::vector<std::string> words;
  for (std::size_t i = 0; i < line.size();) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) words.push_back(line.substr(start, i - start));
  }
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  const long max_fd = sysconf(_SC_OPEN_MAX);
  // Everything the child needs is prepared before fork: after it, only
  // async-signal-safe calls (the JVM is multithreaded).
  const pid_t pid = fork();
  if (pid == 0) {
    if (syscall(SYS_close_range, 3U, ~0U, 0U) != 0) {
      for (long fd = 3; fd < max_fd && fd <= INT_MAX; ++fd) close(static_cast<int>(fd));
    }
    if (argv[0] != nullptr) execvp(argv[0], argv.data());
    _exit(errno);
  }
  return pid != -1;
}

int JdkFeatureVersion(jvmtiEnv* jvmti) {
  auto v = vmcore::Jvmti(jvmti).GetVersion();
  return v ? v->first : 17;
}

}  // namespace

Agent::Agent(JavaVM* vm, jvmtiEnv* jvmti, Options options)
    : ctx_(vm, jvmti, std::move(options)), events_(ctx_) {
  ctx_.events = &events_;
  ctx_.jdk_feature_version = JdkFeatureVersion(jvmti);
  SetWireModifiedUtf8(ctx_.options.mutf8);
  if (ctx_.options.onthrow) {
    // As stock: the name as written with '.' -> '/', matched against the exact class.
    std::string name = *ctx_.options.onthrow;
    std::replace(name.begin(), name.end(), '.', '/');
    trigger_signature_ = "L" + name + ";";
  }
  ctx_.send = [this](std::vector<uint8_t> packet) {
    if (auto* log = spdlog::get("jdwpx.packets").get(); log && log->should_log(spdlog::level::trace))
      log->trace("-> {}", jdwp::DescribePacket(packet));
    if (transport_) transport_->Send(std::move(packet));
  };
  events_.post_command = [this](std::function<void(JNIEnv*)> task) {
    Post({Message::kTask, {}, std::move(task)});
  };
  RegisterVirtualMachine(dispatcher_, ctx_, *this, &command_jni_);
  RegisterReferenceTypes(dispatcher_, ctx_, &command_jni_);
  RegisterObjects(dispatcher_, ctx_, &command_jni_);
  RegisterThreads(dispatcher_, ctx_, &command_jni_);
  RegisterHeap(dispatcher_, ctx_, &command_jni_);
  RegisterEventRequests(dispatcher_, ctx_, &command_jni_);
}

bool Agent::Initialize() {
  jvmtiEnv* env = ctx_.jvmti.raw();
  jvmtiCapabilities potential{};
  if (env->GetPotentialCapabilities(&potential) != JVMTI_ERROR_NONE) return false;
  // Everything that helps a debugger, nothing that only costs (allocation sampling, GC events...).
  jvmtiCapabilities caps{};
  caps.can_tag_objects = potential.can_tag_objects;
  caps.can_get_owned_monitor_info = potential.can_get_owned_monitor_info;
  caps.can_get_current_contended_monitor = potential.can_get_current_contended_monitor;
  caps.can_get_monitor_info = potential.can_get_monitor_info;
  caps.can_pop_frame = potential.can_pop_frame;
  caps.can_redefine_classes = potential.can_redefine_classes;
  caps.can_signal_thread = potential.can_signal_thread;
  caps.can_get_source_file_name = potential.can_get_source_file_name;
  caps.can_get_line_numbers = potential.can_get_line_numbers;
  caps.can_get_source_debug_extension = potential.can_get_source_debug_extension;
  caps.can_access_local_variables = potential.can_access_local_variables;
  caps.can_maintain_original_method_order = potential.can_maintain_original_method_order;
  caps.can_generate_single_step_events = potential.can_generate_single_step_events;
  caps.can_generate_exception_events = potential.can_generate_exception_events;
  caps.can_generate_frame_pop_events = potential.can_generate_frame_pop_events;
  caps.can_generate_breakpoint_events = potential.can_generate_breakpoint_events;
  caps.can_suspend = potential.can_suspend;
  caps.can_get_bytecodes = potential.can_get_bytecodes;
  caps.can_get_synthetic_attribute = potential.can_get_synthetic_attribute;
  caps.can_generate_field_modification_events = potential.can_generate_field_modification_events;
  caps.can_generate_field_access_events = potential.can_generate_field_access_events;
  caps.can_generate_method_entry_events = potential.can_generate_method_entry_events;
  caps.can_generate_method_exit_events = potential.can_generate_method_exit_events;
  caps.can_generate_monitor_events = potential.can_generate_monitor_events;
  caps.can_get_constant_pool = potential.can_get_constant_pool;
  caps.can_force_early_return = potential.can_force_early_return;
  caps.can_get_owned_monitor_stack_depth_info = potential.can_get_owned_monitor_stack_depth_info;
  caps.can_generate_all_class_hook_events = potential.can_generate_all_class_hook_events;
  // JDK 21+: without it, virtual threads cannot be suspended nor their frames read.
  bool virtual_threads = ctx_.jvmti.HasVirtualThreads() && vmcore::Jvmti::CanSupportVirtualThreads(potential);
  vmcore::Jvmti::SetCanSupportVirtualThreads(caps, virtual_threads);
  if (env->AddCapabilities(&caps) != JVMTI_ERROR_NONE) return false;
  if (virtual_threads) ctx_.threads.EnableVirtualThreads(ctx_.options.include_virtual_threads);

  CallbacksWithVirtualThreads all{};
  jvmtiEventCallbacks& cb = all.base;
  cb.VMInit = CbVmInit;
  cb.VMDeath = CbVmDeath;
  cb.ThreadStart = CbThreadStart;
  cb.ThreadEnd = CbThreadEnd;
  cb.ClassPrepare = CbClassPrepare;
  cb.Breakpoint = CbBreakpoint;
  cb.SingleStep = CbSingleStep;
  cb.FramePop = CbFramePop;
  cb.Exception = CbException;
  cb.MethodEntry = CbMethodEntry;
  cb.MethodExit = CbMethodExit;
  cb.FieldAccess = CbFieldAccess;
  cb.FieldModification = CbFieldModification;
  cb.MonitorWait = CbMonitorWait;
  cb.MonitorWaited = CbMonitorWaited;
  cb.MonitorContendedEnter = CbMonitorContendedEnter;
  cb.MonitorContendedEntered = CbMonitorContendedEntered;
  all.virtual_thread_start = CbVirtualThreadStart;
  all.virtual_thread_end = CbVirtualThreadEnd;
  jint callbacks_size = virtual_threads ? static_cast<jint>(sizeof(all)) : static_cast<jint>(sizeof(cb));
  if (env->SetEventCallbacks(&cb, callbacks_size) != JVMTI_ERROR_NONE) return false;
  for (jvmtiEvent e : {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH, JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END,
                       JVMTI_EVENT_BREAKPOINT, JVMTI_EVENT_FRAME_POP}) {
    if (!ctx_.jvmti.SetEventMode(true, e)) return false;
  }
  if (virtual_threads) {
    // Failing these only costs the listing and the cleanup, never the agent.
    if (!ctx_.jvmti.SetEventMode(true, vmcore::Jvmti::kEventVirtualThreadEnd))
      Log().warn("cannot enable VirtualThreadEnd events");
    if (ctx_.options.include_virtual_threads &&
        !ctx_.jvmti.SetEventMode(true, vmcore::Jvmti::kEventVirtualThreadStart))
      Log().warn("cannot enable VirtualThreadStart events");
  }
  return true;
}

void Agent::ExitWithTransportError(const transport::TransportError& error) {
  if (!error.preceding_line.empty()) std::fprintf(stderr, "%s\n", error.preceding_line.c_str());
  std::fprintf(stderr, "ERROR: transport error %d: %s\n", error.code, error.message.c_str());
  if (error.code == 203) {
    // Accept/attach timeout: stock leaves with status 0.
    std::fprintf(stderr, "%s\n", fmt::format(messages::kExitCouldNotConnect, kSourceFile, __LINE__).c_str());
    std::fflush(stderr);
    std::exit(messages::kExitOk);
  }
  std::fprintf(stderr, "%s\n", fmt::format(messages::kTransportFailed, "dt_socket", "TRANSPORT_INIT", 510).c_str());
  ExitNoTransports();
}

void Agent::ExitNoTransports() {
  std::fprintf(stderr, "%s\n", fmt::format(messages::kExitTransportInit, kSourceFile, __LINE__).c_str());
  std::fflush(stderr);
  std::exit(messages::kExitTransportError);
}

bool Agent::TransportStartFailed(const transport::TransportError& error) {
  // Once the application runs (deferred start), stock reports and carries on undebugged.
  if (!ctx_.options.onthrow && !ctx_.options.onuncaught) ExitWithTransportError(error);
  if (!error.preceding_line.empty()) std::fprintf(stderr, "%s\n", error.preceding_line.c_str());
  std::fprintf(stderr, "ERROR: transport error %d: %s\n", error.code, error.message.c_str());
  std::fprintf(stderr, "%s\n", fmt::format(messages::kTransportFailed, "dt_socket", "TRANSPORT_INIT", 510).c_str());
  std::fflush(stderr);
  return true;
}

bool Agent::InstallStartTrigger(JavaVM* vm) {
  if (!ctx_.options.onthrow && !ctx_.options.onuncaught) return true;
  jvmtiEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JVMTI_VERSION_1_2) != JNI_OK || !env) return false;
  jvmtiCapabilities caps{};
  caps.can_generate_exception_events = 1;
  if (env->AddCapabilities(&caps) != JVMTI_ERROR_NONE) return false;
  jvmtiEventCallbacks callbacks{};
  callbacks.Exception = StartTriggerException;
  if (env->SetEventCallbacks(&callbacks, static_cast<jint>(sizeof(callbacks))) != JVMTI_ERROR_NONE) return false;
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
  StartSession(jni, thread, &trigger);
  if (pending) jni->Throw(pending);
}

void Agent::OnVmInit(JNIEnv* jni, jthread thread) {
  if (!ctx_.InitClasses(jni)) {
    Log().error("cannot find core JDK classes; the debugger interface is disabled");
    return;
  }
  if (ctx_.options.onthrow || ctx_.options.onuncaught) {
    // Nothing starts before the exception (stock neither listens nor attaches).
    vm_initialized_ = true;
    return;
  }
  StartSession(jni, thread, nullptr);
}

void Agent::StartSession(JNIEnv* jni, jthread thread, const StartingException* trigger) {
  const Options& o = ctx_.options;
  if (o.transport != "dt_socket") {
    // As stock: no such transport library; JNI FatalError aborts the VM.
    std::fprintf(stderr, "%s\n", fmt::format(messages::kTransportLibraryNotFound, o.transport).c_str());
    std::fprintf(stderr, "%s\n", fmt::format(messages::kTransportFailed, o.transport, "TRANSPORT_LOAD", 509).c_str());
    std::fprintf(stderr, "%s\n", fmt::format(messages::kExitTransportLoad, kSourceFile, __LINE__).c_str());
    std::fflush(stderr);
    jni->FatalError(std::string(messages::kFatalNoTransports).c_str());
  }
  transport::Config config;
  config.server = o.server;
  config.address = o.address.value_or("");
  config.allow = o.allow.value_or("");
  config.timeout_ms = o.timeout_ms;
  auto opened = transport::Transport::Open(config, this);
  if (!opened) {
    TransportStartFailed(opened.error());
    return;
  }
  transport_ = std::move(*opened);

  if (o.server) {
    SetListenerAddressProperty(jni, transport_->port());
    if (o.launch) {
      // The launched debugger replaces the "Listening" line (stock prints it only without launch=).
      if (!LaunchDebugger(*o.launch, std::to_string(transport_->port()))) {
        std::fprintf(stderr, "%s\n",
                     fmt::format(messages::kTransportFailed, "dt_socket", "TRANSPORT_INIT", 510).c_str());
        std::fflush(stderr);
        if (!trigger) ExitNoTransports();
      }
    } else if (!o.quiet) {
      std::printf("%s\n", fmt::format(messages::kListening, transport_->port()).c_str());
      std::fflush(stdout);
    }
    if (o.suspend) {
      auto accepted = transport_->Accept();
      if (!accepted) ExitWithTransportError(accepted.error());
    }
  } else {
    auto attached = transport_->Attach();
    if (!attached) {
      TransportStartFailed(attached.error());
      return;
    }
  }
  StartThreads(jni);
  if (!o.server || o.suspend) {
    // A debugger is attached now: report the start; with suspend=y this parks the
    // initial thread (and suspends all others) until the debugger resumes.
    events_.BeginSession();
    const auto policy = o.suspend ? jdwp::SuspendPolicy::kAll : jdwp::SuspendPolicy::kNone;
    if (trigger) {
      events_.ReportStartingException(jni, thread, trigger->method, trigger->location, trigger->exception,
                                      trigger->catch_method, trigger->catch_location, policy,
                                      [this] { OpenCommands(); });
    } else {
      events_.ReportVmStart(jni, thread, policy, [this] { OpenCommands(); });
    }
  } else {
    OpenCommands();
  }
}

void Agent::OnVmDeath(JNIEnv* jni) {
  bool attached = events_.attached();
  if (attached) {
    events_.ReportVmDeath(jni);
    events_.Drain(2000);
  }
  ctx_.vm_dead = true;
  if (!attached || !transport_) return;
  // As stock, the connection stays open until the process exits: a debugger may
  // still send commands after reading VMDeath (Eclipse resumes), and those are
  // answered (VM_DEAD outside the VirtualMachine set) rather than cut off.
  // Commands already received are finished and every reply is written first.
  {
    std::unique_lock lock(mu_);
    idle_cv_.wait_for(lock, std::chrono::seconds(2),
                      [&] { return !commands_open_ || stopping_ || (inbox_.empty() && !command_busy_); });
  }
  transport_->Flush(std::chrono::seconds(2));
}

void Agent::SetListenerAddressProperty(JNIEnv* jni, uint16_t port) {
  // Stock publishes the address as an agent property (read by jcmd / attach tools).
  jclass vm_support = jni->FindClass("jdk/internal/vm/VMSupport");
  if (!vm_support) {
    jni->ExceptionClear();
    return;
  }
  jmethodID get_props = jni->GetStaticMethodID(vm_support, "getAgentProperties", "()Ljava/util/Properties;");
  if (!get_props) {
    jni->ExceptionClear();
    return;
  }
  jobject props = jni->CallStaticObjectMethod(vm_support, get_props);
  if (jni->ExceptionCheck() || !props) {
    jni->ExceptionClear();
    return;
  }
  jclass props_class = jni->GetObjectClass(props);
  jmethodID set = jni->GetMethodID(props_class, "setProperty", "(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/Object;");
  if (set) {
    std::string value = "dt_socket:" + std::to_string(port);
    jstring key = jni->NewStringUTF("sun.jdwp.listenerAddress");
    jstring val = jni->NewStringUTF(value.c_str());
    jni->CallObjectMethod(props, set, key, val);
  }
  jni->ExceptionClear();
}

bool Agent::StartAgentThread(JNIEnv* jni, const char* name, jvmtiStartFunction fn) {
  jclass thread_class = jni->FindClass("java/lang/Thread");
  jmethodID ctor = thread_class ? jni->GetMethodID(thread_class, "<init>", "(Ljava/lang/String;)V") : nullptr;
  jstring jname = jni->NewStringUTF(name);
  jobject thread = ctor ? jni->NewObject(thread_class, ctor, jname) : nullptr;
  if (!thread || jni->ExceptionCheck()) {
    jni->ExceptionClear();
    Log().error("cannot create the agent thread {}", name);
    return false;
  }
  ctx_.threads.AddAgentThread(jni, thread);
  if (ctx_.jvmti.raw()->RunAgentThread(thread, fn, this, JVMTI_THREAD_MAX_PRIORITY) != JVMTI_ERROR_NONE) {
    Log().error("cannot start the agent thread {}", name);
    return false;
  }
  return true;
}

void Agent::StartThreads(JNIEnv* jni) {
  StartAgentThread(jni, "jdwpx events", ReporterThreadMain);
  StartAgentThread(jni, "jdwpx commands", CommandThreadMain);
  StartAgentThread(jni, "jdwpx I/O", IoThreadMain);
}

void JNICALL Agent::IoThreadMain(jvmtiEnv*, JNIEnv*, void* arg) {
  ThreadControl::MarkCurrentAsAgent();
  try {
    static_cast<Agent*>(arg)->transport_->Run();
  } catch (...) {
    Log().error("transport loop ended by an exception");
  }
}

void JNICALL Agent::CommandThreadMain(jvmtiEnv*, JNIEnv* jni, void* arg) {
  ThreadControl::MarkCurrentAsAgent();
  try {
    static_cast<Agent*>(arg)->RunCommands(jni);
  } catch (...) {
    Log().error("command loop ended by an exception");
  }
}

void JNICALL Agent::ReporterThreadMain(jvmtiEnv*, JNIEnv* jni, void* arg) {
  ThreadControl::MarkCurrentAsAgent();
  try {
    static_cast<Agent*>(arg)->events_.RunReporter(jni);
  } catch (...) {
    Log().error("event reporter ended by an exception");
  }
}

// ---- transport::Listener -------------------------------------------------------

void Agent::Post(Message message) {
  std::lock_guard lock(mu_);
  inbox_.push_back(std::move(message));
  cv_.notify_all();
}

void Agent::OpenCommands() {
  std::lock_guard lock(mu_);
  commands_open_ = true;
  cv_.notify_all();
}

void Agent::OnAttached(const std::string& peer) {
  Log().info("debugger attached from {}", peer);
  {
    std::lock_guard lock(mu_);
    detached_ = false;
  }
  // Events may flow from now on; the command thread sees the attach in order.
  events_.BeginSession();
  Post({Message::kAttached, {}, {}});
}

void Agent::OnPacket(std::vector<uint8_t> packet) { Post({Message::kPacket, std::move(packet), {}}); }

void Agent::OnDetached(const std::string& reason) {
  Log().info("debugger detached: {}", reason);
  if (ctx_.options.server && !ctx_.vm_dead) {
    // As stock: listening again prints the line again, or runs launch= again.
    if (ctx_.options.launch) {
      (void)LaunchDebugger(*ctx_.options.launch, std::to_string(transport_->port()));
    } else if (!ctx_.options.quiet) {
      std::printf("%s\n", fmt::format(messages::kListening, transport_->port()).c_str());
      std::fflush(stdout);
    }
  }
  Post({Message::kDetached, {}, {}});
  {
    std::lock_guard lock(mu_);
    detached_ = true;
  }
  detached_cv_.notify_all();
}

void Agent::OnWarning(const std::string& message) {
  // Tools and people read these on the console, as with stock.
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
}

// ---- commands -------------------------------------------------------------------

void Agent::RunCommands(JNIEnv* jni) {
  command_jni_ = jni;
  while (true) {
    Message message;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || (commands_open_ && !inbox_.empty()); });
      if (inbox_.empty()) return;
      message = std::move(inbox_.front());
      inbox_.pop_front();
      command_busy_ = true;
    }
    switch (message.kind) {
      case Message::kAttached:
        break;
      case Message::kPacket:
        HandlePacket(jni, message.bytes);
        break;
      case Message::kDetached:
        EndSession(jni);
        break;
      case Message::kTask: {
        vmcore::LocalFrame frame(jni, 64);
        message.task(jni);
        break;
      }
    }
    {
      std::lock_guard lock(mu_);
      command_busy_ = false;
    }
    idle_cv_.notify_all();
  }
}

void Agent::HandlePacket(JNIEnv* jni, const std::vector<uint8_t>& bytes) {
  auto packet = jdwp::ParsePacket(bytes);
  if (!packet) {
    Log().warn("dropping a malformed packet: {}", packet.error().detail);
    return;
  }
  if (packet->is_reply()) return;  // we send no commands that expect replies
  auto* plog = spdlog::get("jdwpx.packets").get();
  if (plog && plog->should_log(spdlog::level::trace)) plog->trace("<- {}", jdwp::DescribePacket(bytes));
  vmcore::LocalFrame frame(jni, 64);
  uint32_t id = packet->id;
  dispatcher_.Dispatch(*packet, ctx_.vm_dead.load(), [this, id](jdwp::ErrorCode error, std::vector<uint8_t> body) {
    ctx_.send(jdwp::MakeReplyPacketIn(id, error, std::move(body)));
  });
  if (exit_code_) {
    CloseConnectionAndWait();
    std::exit(*exit_code_);
  }
  if (dispose_requested_) {
    dispose_requested_ = false;
    EndSession(jni);
    transport_->CloseConnection();
  }
}

void Agent::CloseConnectionAndWait() {
  if (!transport_) return;
  transport_->CloseConnection();
  std::unique_lock lock(mu_);
  detached_cv_.wait_for(lock, std::chrono::seconds(2), [&] { return detached_; });
}

void Agent::EndSession(JNIEnv* jni) {
  events_.EndSession(jni);
  // The reporter may have found an event current just before the new epoch and
  // be applying its suspension now: let it finish, so that ResumeEverything
  // comes after it (later items see the new epoch and suspend nothing).
  events_.Drain(2000);
  ctx_.threads.ResumeEverything(jni);
  ctx_.objects.Reset(jni);
}

}  // namespace jdwpx::backend

// ---- entry points -------------------------------------------------------------------

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
      std::fputs(parsed.error().stderr_text.c_str(), stderr);
      std::fflush(stderr);
      std::exit(parsed.error().exit_code);
    }
    if (parsed->help) {
      std::fputs(be::HelpText(feature).c_str(), stdout);
      std::fflush(stdout);
      std::exit(0);
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

extern "C" JNIEXPORT void JNICALL Agent_OnUnload(JavaVM*) {
  // The VM is going away; the agent's threads are daemon threads and end with it.
}
