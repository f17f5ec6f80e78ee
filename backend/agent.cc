#include "backend/agent.h"

#include <dlfcn.h>
#include <sched.h>
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
#include <thread>

#include <fmt/format.h>
#include <spdlog/details/null_mutex.h>
#include <spdlog/sinks/base_sink.h>

#include "backend/address_file.h"
#include "backend/container.h"
#include "backend/attach_options.h"
#include "backend/errors.h"
#include "backend/frame_pop.h"
#include "backend/log.h"
#include "backend/messages.h"
#include "backend/streamed_reply.h"
#include "backend/wire_string.h"
#include "jdwp/print.h"

namespace jdwpx::backend {
namespace {

Agent* g_agent = nullptr;
bool g_loaded = false;

constexpr const char* kSourceFile = "backend/agent.cc";
// suspendtimeout=: how often "waiting for a debugger" is repeated.
constexpr int64_t kWaitingLogEveryMs = 5000;

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

// The application's own Thread.resume() of a thread the debugger suspended
// (JDK 19 and older): as stock, which stops Thread.resume with an internal
// breakpoint, the caller waits until the debugger resumes that thread, which
// stays suspended meanwhile. Thread.resume0 is bound to JVM_ResumeThread (the
// JDK's Thread.c registers it early, in the primordial phase, when no JVMTI
// function may name the method): the bind of that address is redirected to
// this wrapper around it (a RegisterNatives of our own would make the VM warn).
using JvmResumeThread = void(JNICALL*)(JNIEnv*, jobject);
void* g_jvm_resume_thread_symbol = nullptr;  // dlsym("JVM_ResumeThread"), at load
JvmResumeThread g_jvm_resume_thread = nullptr;  // what Thread.resume0 was bound to

void JNICALL AppResume0(JNIEnv* jni, jobject target) {
  Agent* agent = g_agent;
  if (!agent) return g_jvm_resume_thread(jni, target);
  auto self = agent->context().jvmti.GetCurrentThread();
  if (!self) return g_jvm_resume_thread(jni, target);
  bool resumed = false;
  GuardThread("Thread.resume", jni, *self, [&](Agent& a) {
    a.context().threads.HoldAppResume(jni, static_cast<jthread>(target), [&] {
      resumed = true;
      g_jvm_resume_thread(jni, target);
    });
  }, OnAgentThread::kHandle);
  if (!resumed) g_jvm_resume_thread(jni, target);
  jni->DeleteLocalRef(*self);
}

void JNICALL CbNativeMethodBind(jvmtiEnv*, JNIEnv*, jthread, jmethodID, void* address, void** new_address) {
  if (!address || address != g_jvm_resume_thread_symbol || g_jvm_resume_thread) return;
  g_jvm_resume_thread = reinterpret_cast<JvmResumeThread>(address);
  *new_address = reinterpret_cast<void*>(&AppResume0);
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

// launch=: "<command> <transport> <address>" split on blanks and exec'd without a
// shell, stdin/stdout/stderr inherited, other descriptors closed, never waited
// for: all as stock (so a command that cannot run fails silently in the child).
// False only when no child could be created.
bool LaunchDebugger(const std::string& command, const std::string& transport, const std::string& address) {
  const std::string line = command + " " + transport + " " + address;
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
    // __NR_ (the kernel's number), not SYS_: glibc 2.31, which the agent is built
    // against (cmake/glibc_floor.cmake), predates close_range and has no SYS_ name.
    if (syscall(__NR_close_range, 3U, ~0U, 0U) != 0) {
      for (long fd = 3; fd < max_fd && fd <= INT_MAX; ++fd) close(static_cast<int>(fd));
    }
    if (argv[0] != nullptr) execvp(argv[0], argv.data());
    _exit(errno);
  }
  return pid != -1;
}

// Errors the agent logs go into the protocol trace too (AgentError records).
class TraceErrorSink : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 public:
  explicit TraceErrorSink(trace::Writer* writer) : writer_(writer) { set_level(spdlog::level::err); }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    writer_->Error(std::string_view(msg.payload.data(), msg.payload.size()));
  }
  void flush_() override {}

 private:
  trace::Writer* writer_;  // lives as long as the agent (never destroyed)
};

std::string SystemProperty(jvmtiEnv* jvmti, const char* name) {
  char* value = nullptr;
  if (jvmti->GetSystemProperty(name, &value) != JVMTI_ERROR_NONE || !value) return {};
  std::string text(value);
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(value));
  return text;
}

int JdkFeatureVersion(jvmtiEnv* jvmti) {
  auto v = vmcore::Jvmti(jvmti).GetVersion();
  return v ? v->first : 17;
}

}  // namespace

Agent::Agent(JavaVM* vm, jvmtiEnv* jvmti, Options options, bool late)
    : ctx_(vm, jvmti, std::move(options)), events_(ctx_), late_(late) {
  ctx_.events = &events_;
  ctx_.jdk_feature_version = JdkFeatureVersion(jvmti);
  SetWireModifiedUtf8(ctx_.options.mutf8);
  if (ctx_.options.onthrow) {
    // As stock: the name as written with '.' -> '/', matched against the exact class.
    std::string name = *ctx_.options.onthrow;
    std::replace(name.begin(), name.end(), '.', '/');
    trigger_signature_ = "L" + name + ";";
  }
  ctx_.send = [this](std::vector<uint8_t> packet) { SendTo(session_.load(), std::move(packet)); };
  events_.post_command = [this](std::function<void(JNIEnv*)> task) {
    Post({Message::kTask, {}, 0, false, std::move(task)});
  };
  RegisterVirtualMachine(dispatcher_, ctx_, *this, &command_jni_);
  RegisterReferenceTypes(dispatcher_, ctx_, &command_jni_);
  RegisterObjects(dispatcher_, ctx_, &command_jni_);
  RegisterThreads(dispatcher_, ctx_, &command_jni_);
  RegisterHeap(dispatcher_, ctx_, &command_jni_);
  RegisterEventRequests(dispatcher_, ctx_, &command_jni_);
  OpenTrace(jvmti);
}

void Agent::OpenTrace(jvmtiEnv* jvmti) {
  const Options& o = ctx_.options;
  if (!o.trace) return;
  const auto pid = static_cast<uint32_t>(getpid());
  trace::WriterConfig config;
  config.path = trace::ExpandPath(*o.trace, pid);
  config.bodies = o.trace_bytes;
  config.max_bytes = static_cast<uint64_t>(o.trace_size_mb) << 20;
  config.header.jdwpx_version = JDWPX_VERSION;
  config.header.vm_name = SystemProperty(jvmti, "java.vm.name");
  config.header.vm_version = SystemProperty(jvmti, "java.vm.version");
  config.header.pid = pid;
  config.header.options = o.raw;
  // A full disk mid-run: said once, and the debugger's traffic goes on untouched.
  config.on_error = [](const std::string& why) { Log().warn("{}; the agent runs on without a trace", why); };
  auto writer = trace::Writer::Open(std::move(config));
  if (!writer) {
    std::fprintf(stderr, "jdwpx: %s; the agent runs on without a trace\n", writer.error().c_str());
    std::fflush(stderr);
    return;
  }
  trace_ = std::move(*writer);
  auto sink = std::make_shared<TraceErrorSink>(trace_.get());
  for (const char* name : {"jdwpx.backend", "jdwpx.transport", "jdwpx.packets"}) {
    if (auto logger = spdlog::get(name)) logger->sinks().push_back(sink);
  }
}

void Agent::FlushTrace(bool close) {
  if (!trace_) return;
  if (close) {
    trace_->Close();
  } else {
    (void)trace_->Flush(std::chrono::seconds(1));
  }
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
  // Thread.resume0's bind (CbNativeMethodBind), when there is one to hold up.
  g_jvm_resume_thread_symbol = dlsym(RTLD_DEFAULT, "JVM_ResumeThread");
  if (!g_jvm_resume_thread_symbol) {
    // libjvm loaded without RTLD_GLOBAL (an embedding launcher): found by one of its JVMTI functions.
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(env->functions->GetVersionNumber), &info) && info.dli_fname)
      if (void* libjvm = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD)) g_jvm_resume_thread_symbol = dlsym(libjvm, "JVM_ResumeThread");
  }
  caps.can_generate_native_method_bind_events =
      g_jvm_resume_thread_symbol ? potential.can_generate_native_method_bind_events : 0;
  // JDK 21+: without it, virtual threads cannot be suspended nor their frames read.
  bool virtual_threads = ctx_.jvmti.HasVirtualThreads() && vmcore::Jvmti::CanSupportVirtualThreads(potential);
  vmcore::Jvmti::SetCanSupportVirtualThreads(caps, virtual_threads);
  if (env->AddCapabilities(&caps) != JVMTI_ERROR_NONE) return false;
  if (virtual_threads) ctx_.threads.EnableVirtualThreads(ctx_.options.include_virtual_threads);
  virtual_threads_ = virtual_threads;

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
  cb.NativeMethodBind = CbNativeMethodBind;
  all.virtual_thread_start = CbVirtualThreadStart;
  all.virtual_thread_end = CbVirtualThreadEnd;
  jint callbacks_size = virtual_threads ? static_cast<jint>(sizeof(all)) : static_cast<jint>(sizeof(cb));
  if (env->SetEventCallbacks(&cb, callbacks_size) != JVMTI_ERROR_NONE) return false;
  for (jvmtiEvent e : {JVMTI_EVENT_VM_INIT, JVMTI_EVENT_VM_DEATH}) {
    if (!ctx_.jvmti.SetEventMode(true, e)) return false;
  }
  if (caps.can_generate_native_method_bind_events && !ctx_.jvmti.SetEventMode(true, JVMTI_EVENT_NATIVE_METHOD_BIND))
    Log().warn("cannot hold up Thread.resume of threads the debugger suspended");
  // includevirtualthreads=y: AllThreads lists every live virtual thread, and JVMTI cannot
  // enumerate them; only their start and end events tell. Those stay on from here, also
  // while no debugger is attached (the cost of the option).
  if (virtual_threads && ctx_.options.include_virtual_threads) {
    if (!ctx_.jvmti.SetEventMode(true, vmcore::Jvmti::kEventVirtualThreadStart) ||
        !ctx_.jvmti.SetEventMode(true, vmcore::Jvmti::kEventVirtualThreadEnd))
      Log().warn("cannot enable VirtualThreadStart/End events: virtual threads may be missing from AllThreads");
  }
  // Nothing else until a debugger is attached (EnableSessionEvents at the handshake).
  return true;
}

bool Agent::EnableSessionEvents(JNIEnv* jni) {
  std::lock_guard lock(session_events_mu_);
  if (session_events_) return true;
  auto granted = ctx_.jvmti.GetCapabilities();
  if (!granted) return false;
  for (jvmtiEvent e : {JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END, JVMTI_EVENT_BREAKPOINT,
                       JVMTI_EVENT_FRAME_POP}) {
    // A late attach may lack breakpoints and frame pops: those events stay off.
    if (e == JVMTI_EVENT_BREAKPOINT && !granted->can_generate_breakpoint_events) continue;
    if (e == JVMTI_EVENT_FRAME_POP && !granted->can_generate_frame_pop_events) continue;
    if (!ctx_.jvmti.SetEventMode(true, e)) return false;
  }
  if (virtual_threads_) {
    // Failing these only costs the listing and the cleanup, never the agent.
    if (!ctx_.jvmti.SetEventMode(true, vmcore::Jvmti::kEventVirtualThreadEnd))
      Log().warn("cannot enable VirtualThreadEnd events");
    if (ctx_.options.include_virtual_threads &&
        !ctx_.jvmti.SetEventMode(true, vmcore::Jvmti::kEventVirtualThreadStart))
      Log().warn("cannot enable VirtualThreadStart events");
  }
  events_.ActivateSession(jni);
  // ClassPrepare is on now: a class prepared meanwhile is met by one or the other.
  (void)ctx_.classes.Sync(jni);
  session_events_ = true;
  Log().debug("session events on (thread start/end, breakpoints, frame pops{})",
             virtual_threads_ ? ", virtual thread start/end" : "");
  return true;
}

void Agent::DisableSessionEvents(JNIEnv* jni) {
  std::lock_guard lock(session_events_mu_);
  if (!session_events_) return;
  // Everything a session may have switched on: the events above, and those its
  // requests enabled (already off once EventManager::EndSession cleared them).
  for (jvmtiEvent e : {JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END, JVMTI_EVENT_BREAKPOINT,
                       JVMTI_EVENT_FRAME_POP}) {
    (void)ctx_.jvmti.SetEventMode(false, e);
  }
  if (virtual_threads_ && !ctx_.options.include_virtual_threads) {  // else on for the VM's life
    (void)ctx_.jvmti.SetEventMode(false, vmcore::Jvmti::kEventVirtualThreadEnd);
    (void)ctx_.jvmti.SetEventMode(false, vmcore::Jvmti::kEventVirtualThreadStart);
  }
  events_.DeactivateSession(jni);
  session_events_ = false;
  Log().debug("session events off: no debugger attached");
}

void Agent::ExitWithTransportError(const transport::TransportError& error) {
  PrintTransportError(error);
  if (error.code == 203) {
    // Accept/attach timeout: stock leaves with status 0.
    std::fprintf(stderr, "%s\n", fmt::format(messages::kExitCouldNotConnect, kSourceFile, __LINE__).c_str());
    std::fflush(stderr);
    std::exit(messages::kExitOk);
  }
  std::fprintf(stderr, "%s\n",
               fmt::format(messages::kTransportFailed, ctx_.options.transport, "TRANSPORT_INIT", 510).c_str());
  ExitNoTransports();
}

void Agent::ExitNoTransports() {
  std::fprintf(stderr, "%s\n", fmt::format(messages::kExitTransportInit, kSourceFile, __LINE__).c_str());
  std::fflush(stderr);
  std::exit(messages::kExitTransportError);
}

bool Agent::TransportStartFailed(JNIEnv* jni, const transport::TransportError& error) {
  const bool deferred = StartsLate();
  start_error_transport_ = true;
  start_error_ = error.plain ? error.message : fmt::format("transport error {}: {}", error.code, error.message);
  if (error.load_failed) {
    // The library or its entry point is missing: stock's TRANSPORT_LOAD.
    PrintTransportError(error);
    std::fprintf(stderr, "%s\n",
                 fmt::format(messages::kTransportFailed, ctx_.options.transport, "TRANSPORT_LOAD", 509).c_str());
    std::fflush(stderr);
    if (deferred) return true;
    // As stock: no transport at start-up is fatal (JNI FatalError aborts the VM).
    std::fprintf(stderr, "%s\n", fmt::format(messages::kExitTransportLoad, kSourceFile, __LINE__).c_str());
    std::fflush(stderr);
    jni->FatalError(std::string(messages::kFatalNoTransports).c_str());
  }
  // Once the application runs (deferred start), stock reports and carries on undebugged.
  if (!deferred) ExitWithTransportError(error);
  PrintTransportError(error);
  std::fprintf(stderr, "%s\n",
               fmt::format(messages::kTransportFailed, ctx_.options.transport, "TRANSPORT_INIT", 510).c_str());
  std::fflush(stderr);
  return true;
}

void Agent::PrintTransportError(const transport::TransportError& error) {
  if (!error.preceding_line.empty()) std::fprintf(stderr, "%s\n", error.preceding_line.c_str());
  if (error.plain) {
    std::fprintf(stderr, "ERROR: %s\n", error.message.c_str());
  } else {
    std::fprintf(stderr, "ERROR: transport error %d: %s\n", error.code, error.message.c_str());
  }
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
  // Thread.resume0 was bound long before (or never is: JDK 20+).
  (void)ctx_.jvmti.SetEventMode(false, JVMTI_EVENT_NATIVE_METHOD_BIND);
  vm_initialized_ = true;
  if (ctx_.options.onthrow || ctx_.options.onuncaught || ctx_.options.onjcmd) {
    // Nothing starts before the exception or the jcmd (stock neither listens nor attaches).
    return;
  }
  StartSession(jni, thread, nullptr);
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
  if (!StartSession(jni, thread, nullptr)) {
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
  if (!StartSession(jni, thread, nullptr)) {
    started_ = false;
    return start_error_;
  }
  return std::nullopt;
}

std::string Agent::ActiveState() {
  if (events_.attached()) return "a debugger is attached";
  if (ctx_.options.server && transport_) return fmt::format("listening at port {}", transport_->address());
  return "started";
}

bool Agent::StartSession(JNIEnv* jni, jthread thread, const StartingException* trigger) {
  const Options& o = ctx_.options;
  bool suspend = o.suspend;  // false once suspendtimeout= ran out
  start_error_transport_ = false;
  if (transport_) {
    // Dormant again after a session (OnDetached): the old I/O thread leaves Run()
    // after Shutdown. Its transport is kept, not destroyed: another thread may
    // still hold a pointer taken from transport_ in ctx_.send.
    std::unique_lock lock(mu_);
    if (!detached_cv_.wait_for(lock, std::chrono::seconds(5), [&] { return !io_running_; })) {
      start_error_ = "the previous debugger session has not ended yet";
      return false;
    }
    lock.unlock();
    retired_transports_.push_back(std::move(transport_));
  }
  transport::Config config;
  // Any other transport is lib<name>.so, looked for in the JDK's library directory first, as stock.
  config.name = o.transport;
  config.java_vm = ctx_.vm;
  if (auto path = ctx_.jvmti.GetSystemProperty("sun.boot.library.path"); path && *path) config.library_path = **path;
  config.server = o.server;
  config.address = o.address.value_or("");
  config.allow = o.allow.value_or("");
  config.timeout_ms = o.timeout_ms;
  config.handshake_timeout_ms = o.handshake_timeout_ms;
  config.unix_root = o.unix_root;
  auto opened = transport::Transport::Open(config, this);
  if (!opened && o.server && o.onbindfail_continue && opened.error().code == transport::kErrorIo && !StartsLate()) {
    // onbindfail=continue (ours): a JVM that inherited JAVA_TOOL_OPTIONS runs on undebugged.
    std::fprintf(stderr, "jdwpx: cannot listen on %s (%s); onbindfail=continue: the program runs without debugging\n",
                 o.address.value_or("").c_str(), opened.error().message.c_str());
    std::fflush(stderr);
    return true;
  }
  if (!opened) {
    TransportStartFailed(jni, opened.error());
    return false;
  }
  transport_ = std::move(*opened);
  if (o.server) {
    if (std::string warning = transport_->exposure_warning(); !warning.empty()) {
      std::fprintf(stderr, "%s\n", warning.c_str());
      std::fflush(stderr);
    }
    if (o.address_file) {
      auto written = WriteAddressFile(*o.address_file, transport_->address());
      if (!written) {
        std::fprintf(stderr, "jdwpx: addressfile=%s not written: %s\n", o.address_file->c_str(), written.error().c_str());
        std::fflush(stderr);
      }
    }
  }
  // One line with the effective configuration (loglevel=info and below).
  Log().info("jdwpx {}: transport={} server={} address={}{} suspend={} trace={}{} loglevel={}", JDWPX_VERSION,
             o.transport, o.server ? 'y' : 'n', o.address.value_or(""),
             o.server ? fmt::format(" (listening on {})", transport_->address()) : std::string(),
             o.suspend ? 'y' : 'n',
             trace_ ? trace::ExpandPath(*o.trace, static_cast<uint32_t>(getpid()))
                    : std::string(o.trace ? "(not writable)" : "none"),
             trace_ ? fmt::format(" (tracebytes={} tracesize={})", o.trace_bytes ? 'y' : 'n',
                                  o.trace_size_mb ? std::to_string(o.trace_size_mb) + "MB" : "none")
                    : std::string(),
             LogLevelName(o.log_level));

  if (o.server) {
    // jdwpx only: the first line of a container's log, before the Listening line.
    if (auto warning = LoopbackInContainerWarning(transport_->listens_on_loopback_only(), InContainer(),
                                                  o.address.value_or(""), transport_->address())) {
      std::fprintf(stderr, "%s\n", warning->c_str());
      std::fflush(stderr);
    }
    SetListenerAddressProperty(jni, transport_->address());
    if (o.launch) {
      // The launched debugger replaces the "Listening" line (stock prints it only without launch=).
      if (!LaunchDebugger(*o.launch, o.transport, transport_->address())) {
        std::fprintf(stderr, "%s\n",
                     fmt::format(messages::kTransportFailed, o.transport, "TRANSPORT_INIT", 510).c_str());
        std::fflush(stderr);
        if (!trigger) ExitNoTransports();
      }
    } else if (!o.quiet) {
      std::printf("%s\n",
                  fmt::format(messages::kListeningFor, ctx_.options.transport, transport_->address()).c_str());
      std::fflush(stdout);
    }
    if (o.suspend && o.suspend_timeout_ms > 0) {
      // suspendtimeout= (ours): wait that long, saying so, then run on as suspend=n.
      const std::string where = transport_->endpoint_text();
      auto accepted = transport_->AcceptWithin(o.suspend_timeout_ms, kWaitingLogEveryMs, [&] {
        std::fprintf(stderr, "jdwpx: waiting for a debugger on %s (suspend=y, suspendtimeout=%lld ms)\n", where.c_str(),
                     static_cast<long long>(o.suspend_timeout_ms));
        std::fflush(stderr);
      });
      if (!accepted && accepted.error().code == transport::kErrorSuspendTimeout) {
        std::fprintf(stderr, "jdwpx: no debugger attached within %lld ms: the program runs on, still listening on %s\n",
                     static_cast<long long>(o.suspend_timeout_ms), where.c_str());
        std::fflush(stderr);
        suspend = false;
      } else if (!accepted) {
        ExitWithTransportError(accepted.error());
      }
    } else if (o.suspend) {
      auto accepted = transport_->Accept();
      if (!accepted) ExitWithTransportError(accepted.error());
    }
  } else {
    auto attached = transport_->Attach();
    if (!attached) {
      TransportStartFailed(jni, attached.error());
      transport_.reset();
      return false;
    }
  }
  StartThreads(jni);
  if (!o.server || suspend) {
    // A debugger is attached now: report the start; with suspend=y this parks the
    // initial thread (and suspends all others) until the debugger resumes.
    if (!EnableSessionEvents(jni)) Log().error("cannot enable the JVMTI events a debugger needs");
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
  return true;
}

void Agent::OnVmDeath(JNIEnv* jni) {
  bool attached = events_.attached();
  if (attached) {
    events_.ReportVmDeath(jni);
    events_.Drain(2000);
  }
  ctx_.vm_dead = true;
  if (!attached) EndIdleThreads();
  if (!attached || !transport_) {
    // A session that just ended may have replies not yet written (Dispose's,
    // whose resume let the program end): the process must not end before them.
    if (transport_) transport_->Flush(std::chrono::seconds(2));
    FlushTrace(/*close=*/true);
    return;
  }
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
  if (trace_) trace_->SessionEnded("the VM exited");
  // The process ends after this callback (System.exit, kill -TERM, main's end):
  // the trace is written out, VMDeath's packet included.
  FlushTrace(/*close=*/true);
}

void Agent::SetListenerAddressProperty(JNIEnv* jni, const std::string& address) {
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
    std::string value = ctx_.options.transport + ":" + address;
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
  {
    std::lock_guard lock(mu_);
    ++running_threads_;
  }
  if (ctx_.jvmti.raw()->RunAgentThread(thread, fn, this, JVMTI_THREAD_MAX_PRIORITY) != JVMTI_ERROR_NONE) {
    Log().error("cannot start the agent thread {}", name);
    AgentThreadEnded();
    return false;
  }
  return true;
}

void Agent::StartThreads(JNIEnv* jni) {
  // A start after going dormant again (jcmd) needs a new I/O thread only.
  if (!threads_started_) {
    StartAgentThread(jni, "jdwpx events", ReporterThreadMain);
    StartAgentThread(jni, "jdwpx commands", CommandThreadMain);
    threads_started_ = true;
  }
  {
    std::lock_guard lock(mu_);
    io_running_ = true;
  }
  // The I/O thread is not a Java thread: it makes no JNI or JVMTI call, and the
  // VM's exit never waits for it (see EndIdleThreads). Detached: it ends with
  // the transport or with the process.
  try {
    std::thread([this] { IoThreadMain(nullptr, nullptr, this); }).detach();
  } catch (const std::exception& e) {
    Log().error("cannot start the I/O thread: {}", e.what());
    std::lock_guard lock(mu_);
    io_running_ = false;
  }
}

void Agent::AgentThreadEnded() {
  {
    std::lock_guard lock(mu_);
    --running_threads_;
  }
  threads_ended_cv_.notify_all();
}

void Agent::EndIdleThreads() {
  // HotSpot's exit waits up to ~300 ms for Java threads in native code
  // (VM_Exit::wait_for_threads_in_native_to_block), and the command and reporter
  // threads idle in native condition-variable waits. With no debugger attached
  // they have nothing left to do at VM death: end them, and wait (bounded) until
  // they have left their loops, so that none is in native when the VM exits.
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  events_.StopReporter();
  std::unique_lock lock(mu_);
  threads_ended_cv_.wait_for(lock, std::chrono::seconds(1), [&] { return running_threads_ == 0; });
}

void JNICALL Agent::IoThreadMain(jvmtiEnv*, JNIEnv*, void* arg) {
  ThreadControl::MarkCurrentAsAgent();
  auto* agent = static_cast<Agent*>(arg);
  try {
    agent->transport_->Run();
  } catch (...) {
    Log().error("transport loop ended by an exception");
  }
  {
    std::lock_guard lock(agent->mu_);
    agent->io_running_ = false;
  }
  agent->detached_cv_.notify_all();
}

void JNICALL Agent::CommandThreadMain(jvmtiEnv*, JNIEnv* jni, void* arg) {
  ThreadControl::MarkCurrentAsAgent();
  try {
    static_cast<Agent*>(arg)->RunCommands(jni);
  } catch (...) {
    Log().error("command loop ended by an exception");
  }
  static_cast<Agent*>(arg)->AgentThreadEnded();
}

void JNICALL Agent::ReporterThreadMain(jvmtiEnv*, JNIEnv* jni, void* arg) {
  ThreadControl::MarkCurrentAsAgent();
  try {
    static_cast<Agent*>(arg)->events_.RunReporter(jni);
  } catch (...) {
    Log().error("event reporter ended by an exception");
  }
  static_cast<Agent*>(arg)->AgentThreadEnded();
}

// ---- transport::Listener -------------------------------------------------------

void Agent::Post(Message message) {
  std::lock_guard lock(mu_);
  inbox_.push_back(std::move(message));
  inbox_size_.store(inbox_.size(), std::memory_order_release);
  cv_.notify_all();
}

void Agent::OpenCommands() {
  std::lock_guard lock(mu_);
  commands_open_ = true;
  cv_.notify_all();
}

void Agent::OnAttached(const std::string& peer, uint64_t session, std::chrono::nanoseconds handshake) {
  Log().info("debugger attached from {}", peer);
  if (trace_) trace_->SessionAttached(peer, static_cast<uint64_t>(handshake.count()));
  io_session_ = session;
  bool now = false;
  {
    std::lock_guard lock(mu_);
    detached_ = false;
    // No session being served (the previous one is torn down): events may flow
    // from now on. Otherwise the command thread begins it after that teardown.
    now = session_ == 0;
    if (now) session_ = session;
  }
  if (now) events_.BeginSession();
  Post({Message::kAttached, {}, session});
}

void Agent::SendTo(uint64_t session, std::vector<uint8_t> packet) {
  if (auto* log = PacketTraceLog()) log->trace("-> {}", jdwp::DescribePacket(packet));
  if (transport_) transport_->Send(session, std::move(packet));
}

void Agent::BeginServing(uint64_t session) {
  {
    std::lock_guard lock(mu_);
    if (session_ == session) return;  // begun at its attach
    session_ = session;
  }
  events_.BeginSession();
}

void Agent::OnPacket(std::vector<uint8_t> packet) {
  if (trace_) trace_->PacketIn(packet);
  Post({Message::kPacket, std::move(packet), io_session_});
}

void Agent::OnWritten(std::span<const uint8_t> bytes, size_t length) {
  if (trace_) trace_->PacketOut(bytes, length);
}

void Agent::OnDetached(const std::string& reason) {
  Log().info("debugger detached: {}", reason);
  if (trace_) {
    trace_->SessionEnded(reason);
    FlushTrace(/*close=*/false);
  }
  const bool to_dormant = dormant_after_session_ && !ctx_.vm_dead;
  Post({Message::kDetached, {}, io_session_, to_dormant});
  {
    std::lock_guard lock(mu_);
    detached_ = true;
  }
  detached_cv_.notify_all();
  if (to_dormant) {
    // Started by jcmd and so configured: close the port until the next jcmd start
    // (this is the I/O thread: Run() returns after this callback).
    transport_->Shutdown();
    started_ = false;
    Log().info("back to dormant: no port open until the next jcmd start");
  }
}

void Agent::OnWarning(const std::string& message) {
  if (message.starts_with("Debugger failed to attach")) Log().info("debugger refused: {}", message);
  if (trace_) {
    if (message.starts_with("Debugger failed to attach")) {
      trace_->SessionRefused(message);
    } else {
      trace_->Error(message);
    }
  }
  // Tools and people read these on the console, as with stock.
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
}

// ---- commands -------------------------------------------------------------------

void Agent::AwaitNextCommandBriefly() {
  const auto until = std::chrono::steady_clock::now() + kCommandSpin;
  while (inbox_size_.load(std::memory_order_acquire) == 0 && std::chrono::steady_clock::now() < until) {
    // Yielding: a thread runnable here (the I/O thread with the next packet,
    // the debugger itself) runs first; the core is not held from it.
    sched_yield();
  }
}

void Agent::RunCommands(JNIEnv* jni) {
  command_jni_ = jni;
  // When the last packet was done (see kCommandSpin).
  std::chrono::steady_clock::time_point done{};
  bool spin = false;
  while (true) {
    if (spin) AwaitNextCommandBriefly();
    Message message;
    {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return stopping_ || (commands_open_ && !inbox_.empty()); });
      if (inbox_.empty()) return;
      message = std::move(inbox_.front());
      inbox_.pop_front();
      inbox_size_.store(inbox_.size(), std::memory_order_relaxed);
      command_busy_ = true;
    }
    if (message.kind == Message::kPacket) {
      // A debugger in conversation (its next command within kCommandSpinWindow
      // of the last reply): wait for its next one on the CPU for a moment.
      spin = std::chrono::steady_clock::now() - done < kCommandSpinWindow;
    } else {
      spin = false;
    }
    switch (message.kind) {
      case Message::kAttached:
        // Before any of the session's commands (they follow in the inbox).
        if (!EnableSessionEvents(jni)) Log().error("cannot enable the JVMTI events a debugger needs");
        BeginServing(message.session);
        break;
      case Message::kPacket:
        // A packet of a connection no longer served (sent after Dispose) is not run.
        if (message.session == session_.load()) {
          HandlePacket(jni, message.bytes);
        } else {
          Log().debug("dropping a packet of an ended session");
        }
        done = std::chrono::steady_clock::now();
        break;
      case Message::kDetached:
        // Already ended by Dispose, the session served meanwhile is another.
        if (message.session == session_.load()) EndSession(jni);
        if (!message.to_dormant) AnnounceListeningAgain();
        break;
      case Message::kTask: {
        vmcore::LocalFrame frame(jni, 64);
        ctx_.threads.ApplyPendingSuspensions();  // as before a command (HandlePacket)
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

void Agent::AnnounceListeningAgain() {
  // As stock: listening again prints the line again, or runs launch= again,
  // once the session has ended, in order with the commands the debugger sent
  // before leaving: a VirtualMachine.Exit among them ends the process first
  // (a JIT debugger that exits the VM and closes is not launched again).
  if (!ctx_.options.server || ctx_.vm_dead) return;
  if (ctx_.options.launch) {
    (void)LaunchDebugger(*ctx_.options.launch, ctx_.options.transport, transport_->address());
  } else if (!ctx_.options.quiet) {
    std::printf("%s\n", fmt::format(messages::kListeningFor, ctx_.options.transport, transport_->address()).c_str());
    std::fflush(stdout);
  }
}

namespace {

// The resumes and the invokes find their threads by the debugger's count alone
// and make a suspension left pending by a single-threaded invoke moot (the
// next invoke resumes that thread); every other command may look at a thread
// and sees it JVMTI-suspended (ThreadControl::ApplyPendingSuspensions).
bool ResumesOrInvokes(const jdwp::Packet& p) {
  using Set = jdwp::CommandSet;
  switch (static_cast<Set>(p.command_set)) {
    case Set::kVirtualMachine: return p.command == 9;   // Resume
    case Set::kThreadReference: return p.command == 3;  // Resume
    case Set::kClassType: return p.command == 3 || p.command == 4;  // InvokeMethod, NewInstance
    case Set::kInterfaceType: return p.command == 1;    // InvokeMethod
    case Set::kObjectReference: return p.command == 6;  // InvokeMethod
    default: return false;
  }
}

// What a debugger stepping on sends at a step's event (single_step_modes.h):
// the next step, the old one's deletion, the resume.
bool GoesOnStepping(const jdwp::Packet& p) {
  using Set = jdwp::CommandSet;
  switch (static_cast<Set>(p.command_set)) {
    case Set::kEventRequest: return p.command == 1 || p.command == 2;  // Set, Clear
    case Set::kVirtualMachine: return p.command == 9;   // Resume
    case Set::kThreadReference: return p.command == 3;  // Resume
    default: return false;
  }
}

}  // namespace

void Agent::HandlePacket(JNIEnv* jni, const std::vector<uint8_t>& bytes) {
  auto packet = jdwp::ParsePacket(bytes);
  if (!packet) {
    Log().warn("dropping a malformed packet: {}", packet.error().detail);
    return;
  }
  if (packet->is_reply()) {
    // The agent sends no command that expects a reply: a reply from the debugger
    // is a protocol error, and as stock the session ends.
    Log().warn("the debugger sent a reply packet (id {}): closing the connection", packet->id);
    const uint64_t session = session_.load();
    EndSession(jni);
    transport_->CloseConnection(session);
    return;
  }
  if (auto* plog = PacketTraceLog()) plog->trace("<- {}", jdwp::DescribePacket(bytes));
  vmcore::LocalFrame frame(jni, 64);
  uint32_t id = packet->id;
  // A reply goes to the connection its command came from, even when it comes later.
  const uint64_t session = session_.load();
  if (!ResumesOrInvokes(*packet)) ctx_.threads.ApplyPendingSuspensions();
  if (!GoesOnStepping(*packet)) ctx_.single_steps.DropLingers(jni);
  dispatcher_.Dispatch(*packet, ctx_.vm_dead.load(),
                       Responder(
                           [this, id, session](jdwp::ErrorCode error, std::vector<uint8_t> body) {
                             SendTo(session, jdwp::MakeReplyPacketIn(id, error, std::move(body)));
                           },
                           [this, id, session](ReplySource& body) {
                             if (!transport_) return;
                             // Its first part failed, nothing sent: an error reply instead.
                             if (auto error = SendStreamedReply(*transport_, session, id, body)) {
                               SendTo(session, jdwp::MakeReplyPacketIn(id, *error, {}));
                             } else if (auto* log = PacketTraceLog()) {
                               log->trace("-> reply id={} NONE len={} (in parts)", id, jdwp::kHeaderSize + body.size());
                             }
                           }));
  if (exit_code_) {
    CloseConnectionAndWait();
    // exit() posts no VMDeath: the trace is closed here.
    FlushTrace(/*close=*/true);
    std::exit(*exit_code_);
  }
  if (dispose_requested_) {
    dispose_requested_ = false;
    EndSession(jni);
    transport_->CloseConnection(session);
  }
}

void Agent::CloseConnectionAndWait() {
  if (!transport_) return;
  transport_->CloseConnection(session_.load());
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
  ctx_.frame_reads.Clear();
  DisableSessionEvents(jni);
  // Off the next debugger's path: its first class scan finds the IDs given.
  if (!ctx_.vm_dead) ctx_.classes.ReserveIds(jni);
  std::lock_guard lock(mu_);
  session_ = 0;
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
    std::fputs(parsed.error().stderr_text.c_str(), stderr);
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
