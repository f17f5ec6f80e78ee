// The agent's life: capabilities and callbacks at load, the transport's start
// and its failures, the agent threads, and VM death. The ways to start are
// agent_start.cc; serving a session session.cc; the callbacks vm_callbacks.cc;
// the exported functions entry_points.cc.
#include "backend/start/agent.h"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <thread>

#include <fmt/format.h>

#include "backend/start/address_file.h"
#include "backend/start/capabilities.h"
#include "backend/start/container.h"
#include "backend/session/launch_debugger.h"
#include "backend/log.h"
#include "backend/messages.h"
#include "backend/start/vm_callbacks.h"
#include "backend/ids/wire_string.h"

namespace jdwpx::backend {
namespace {

constexpr const char* kSourceFile = "backend/start/agent.cc";
// suspendtimeout=: how often "waiting for a debugger" is repeated.
constexpr int64_t kWaitingLogEveryMs = 5000;

}  // namespace

int JdkFeatureVersion(jvmtiEnv* jvmti) {
  auto v = vmcore::Jvmti(jvmti).GetVersion();
  return v ? v->first : 17;
}

Agent::Agent(JavaVM* vm, jvmtiEnv* jvmti, Options options, bool late)
    : ctx_(vm, jvmti, std::move(options)),
      session_(ctx_, events_, reporter_, probes_, *this),
      reporter_(ctx_, session_),
      events_(ctx_, session_, reporter_),
      probes_(ctx_, events_.requests(), session_),
      late_(late) {
  ctx_.jdk_feature_version = JdkFeatureVersion(jvmti);
  SetWireModifiedUtf8(ctx_.options.mutf8);
  if (ctx_.options.onthrow) {
    // As stock: the name as written with '.' -> '/', matched against the exact class.
    std::string name = *ctx_.options.onthrow;
    std::replace(name.begin(), name.end(), '.', '/');
    trigger_signature_ = "L" + name + ";";
  }
}

bool Agent::Initialize() {
  jvmtiEnv* env = ctx_.jvmti.raw();
  jvmtiCapabilities potential{};
  if (env->GetPotentialCapabilities(&potential) != JVMTI_ERROR_NONE) return false;
  jvmtiCapabilities caps = DebuggerCapabilities(potential);
  // Thread.resume0's bind (vm_callbacks.h), when there is one to hold up.
  const bool holds_app_resume = FindJvmResumeThread(env);
  caps.can_generate_native_method_bind_events =
      holds_app_resume ? potential.can_generate_native_method_bind_events : 0;
  // JDK 21+: without it, virtual threads cannot be suspended nor their frames read.
  bool virtual_threads = ctx_.jvmti.HasVirtualThreads() && vmcore::Jvmti::CanSupportVirtualThreads(potential);
  vmcore::Jvmti::SetCanSupportVirtualThreads(caps, virtual_threads);
  if (env->AddCapabilities(&caps) != JVMTI_ERROR_NONE) return false;
  if (virtual_threads) ctx_.threads.EnableVirtualThreads(ctx_.options.include_virtual_threads);
  virtual_threads_ = virtual_threads;

  if (!SetAgentCallbacks(env, virtual_threads)) return false;
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
  events_.requests().ActivateSession(jni);
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
  events_.requests().DeactivateSession(jni);
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

bool Agent::Start(JNIEnv* jni, jthread thread, const StartingException* trigger) {
  const Options& o = ctx_.options;
  bool suspend = o.suspend;  // false once suspendtimeout= ran out
  start_error_transport_ = false;
  if (transport_) {
    // Dormant again after a session (GoDormant): the old I/O thread leaves Run()
    // after Shutdown. Its transport is kept, not destroyed: another thread may
    // still hold a pointer the session took through transport() (SendTo).
    std::unique_lock lock(threads_mu_);
    if (!io_ended_cv_.wait_for(lock, std::chrono::seconds(5), [&] { return !io_running_; })) {
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
  config.max_sessions = o.sessions;
  auto opened = transport::Transport::Open(config, &session_);
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
  // Before the Listening line, as stock makes its own: a debugger that attaches
  // at once (suspend=y, server=n) does not wait for them.
  StartJavaThreads(jni);
  // The VM waits for a debugger, and JDI asks for ClassUnload inside attach():
  // the scan that tracking starts with is made now, off the debugger's time.
  if (o.suspend && !StartsLate()) events_.requests().TrackUnloadsBeforeDebugger(jni);
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
             session_.tracing() ? trace::ExpandPath(*o.trace, static_cast<uint32_t>(getpid()))
                                : std::string(o.trace ? "(not writable)" : "none"),
             session_.tracing() ? fmt::format(" (tracebytes={} tracesize={})", o.trace_bytes ? 'y' : 'n',
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
        events_.requests().WaitForDebuggerEnded(jni);
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
  StartIoThread();
  if (!o.server || suspend) {
    // A debugger is attached now: report the start; with suspend=y this parks the
    // initial thread (and suspends all others) until the debugger resumes.
    if (!EnableSessionEvents(jni)) Log().error("cannot enable the JVMTI events a debugger needs");
    events_.BeginSession(SessionSlot{0});  // the first debugger's slot (the session took it at the attach)
    const auto policy = o.suspend ? jdwp::SuspendPolicy::kAll : jdwp::SuspendPolicy::kNone;
    if (trigger) {
      events_.ReportStartingException(jni, thread, trigger->method, trigger->location, trigger->exception,
                                      trigger->catch_method, trigger->catch_location, policy,
                                      [this] { session_.OpenCommands(); });
    } else {
      events_.ReportVmStart(jni, thread, policy, [this] { session_.OpenCommands(); });
    }
  } else {
    session_.OpenCommands();
  }
  return true;
}

void Agent::GoDormant() {
  // Close the port until the next jcmd start (this is the I/O thread, in the
  // session's OnDetached: Run() returns after that callback).
  transport_->Shutdown();
  started_ = false;
  Log().info("back to dormant: no port open until the next jcmd start");
}

void Agent::OnVmDeath(JNIEnv* jni) {
  // From here nothing waits for a debugger that reads nothing (transport.h).
  if (transport_) transport_->StopHoldingBack();
  bool attached = reporter_.attached();
  if (attached) {
    events_.ReportVmDeath(jni);
    reporter_.Drain(2000);
  }
  ctx_.vm_dead = true;
  if (!attached) EndIdleThreads();
  if (!attached || !transport_) {
    // A session that just ended may have replies not yet written (Dispose's,
    // whose resume let the program end): the process must not end before them.
    if (transport_) transport_->Flush(std::chrono::seconds(2));
    session_.FlushTrace(/*close=*/true);
    return;
  }
  // The connection stays open until the process exits (as stock); the session
  // finishes what the debugger sent and closes the trace.
  session_.EndAtVmDeath();
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
    std::lock_guard lock(threads_mu_);
    ++running_threads_;
  }
  if (ctx_.jvmti.raw()->RunAgentThread(thread, fn, this, JVMTI_THREAD_MAX_PRIORITY) != JVMTI_ERROR_NONE) {
    Log().error("cannot start the agent thread {}", name);
    AgentThreadEnded();
    return false;
  }
  return true;
}

void Agent::StartJavaThreads(JNIEnv* jni) {
  // A start after going dormant again (jcmd) has them already.
  if (threads_started_) return;
  StartAgentThread(jni, "jdwpx events", ReporterThreadMain);
  StartAgentThread(jni, "jdwpx commands", CommandThreadMain);
  threads_started_ = true;
}

void Agent::StartIoThread() {
  {
    std::lock_guard lock(threads_mu_);
    io_running_ = true;
  }
  // The I/O thread is not a Java thread: it makes no JNI or JVMTI call, and the
  // VM's exit never waits for it (see EndIdleThreads). Detached: it ends with
  // the transport or with the process.
  try {
    std::thread([this] {
      // Named as its Java threads are, for `top -H`, perf and gdb (15 characters at most).
      pthread_setname_np(pthread_self(), "jdwpx io");
      IoThreadMain(nullptr, nullptr, this);
    }).detach();
  } catch (const std::exception& e) {
    Log().error("cannot start the I/O thread: {}", e.what());
    std::lock_guard lock(threads_mu_);
    io_running_ = false;
  }
}

void Agent::AgentThreadEnded() {
  {
    std::lock_guard lock(threads_mu_);
    --running_threads_;
  }
  threads_ended_cv_.notify_all();
}

void Agent::EndIdleThreads() {
  // HotSpot's exit waits up to ~300 ms for Java threads in native code
  // (VM_Exit::wait_for_threads_in_native_to_block), and the command and reporter
  // threads idle in native waits (an eventfd, a condition variable). With no
  // debugger attached they have nothing left to do at VM death: end them, and
  // wait (bounded) until they have left their loops, so that none is in native
  // when the VM exits.
  session_.StopCommands();
  reporter_.Stop();
  std::unique_lock lock(threads_mu_);
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
    std::lock_guard lock(agent->threads_mu_);
    agent->io_running_ = false;
  }
  agent->io_ended_cv_.notify_all();
}

void JNICALL Agent::CommandThreadMain(jvmtiEnv*, JNIEnv* jni, void* arg) {
  ThreadControl::MarkCurrentAsAgent();
  try {
    static_cast<Agent*>(arg)->session_.RunCommands(jni);
  } catch (...) {
    Log().error("command loop ended by an exception");
  }
  static_cast<Agent*>(arg)->AgentThreadEnded();
}

void JNICALL Agent::ReporterThreadMain(jvmtiEnv*, JNIEnv* jni, void* arg) {
  ThreadControl::MarkCurrentAsAgent();
  try {
    static_cast<Agent*>(arg)->reporter_.Run(jni);
  } catch (...) {
    Log().error("event reporter ended by an exception");
  }
  static_cast<Agent*>(arg)->AgentThreadEnded();
}

}  // namespace jdwpx::backend
