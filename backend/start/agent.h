// The composition root: one Agent per process, created in Agent_OnLoad, or in
// Agent_OnAttach when jcmd loads jdwpx into a JVM started without it. It owns
// the Context, the event path (EventReporter, EventManager) and the debugger
// Session (session.h), starts the transport and the agent threads, and ends
// them at VM death. Start-up and the transport's failures are agent.cc, the
// ways to start agent_start.cc; serving a debugger is the Session's.
//
// Ways to start (Options and docs/running-jvm.md, "Debugging a running JVM"):
//   at VMInit                the usual start
//   onthrow= / onuncaught=   on that exception (InstallStartTrigger)
//   onjcmd=y                 dormant until `jcmd VM.start_java_debugging`
//                            (debugInit_startDebuggingViaCommand) or
//                            `jcmd JVMTI.agent_load` (Agent_OnAttach): no port,
//                            no event enabled but VMInit/VMDeath until then
//   late attach              Agent_OnAttach in a JVM without jdwpx: the live
//                            phase's capabilities only (StartLate)
// The application already runs in every way but the first: a start that
// fails there is reported and the JVM runs on, never exits.
//
// Threads (all agent threads, hidden from the debugger; what each runs of the
// session is in session.h):
//   I/O             runs the transport (accept, read, and the writes a sender
//                   could not finish: replies and events are written by the
//                   thread that sends them when the socket is free); a plain
//                   native thread, not a Java one: it calls no JNI/JVMTI, and
//                   the VM's exit never waits for it
//   jdwpx commands  the Session's command loop: executes commands in arrival
//                   order, one at a time, and the session transitions (attach,
//                   detach, dispose) in order with them (a debugger's commands
//                   wait behind its own streamed reply while that is parked)
//   jdwpx events    the reporter: applies suspend policies and sends events
// Java threads enter only through JVMTI callbacks (vm_callbacks.h, then EventManager).
// At VM death with no debugger attached, the command and reporter threads end
// (EndIdleThreads), so that no agent thread is in native code when the VM exits.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backend/context.h"
#include "backend/events/event_reporter.h"
#include "backend/events/events.h"
#include "backend/session/session.h"
#include "transport/transport.h"

namespace jdwpx::backend {

class Agent : private SessionHost {
 public:
  // `late`: created by Agent_OnAttach in a running JVM (see StartLate).
  Agent(JavaVM* vm, jvmtiEnv* jvmti, Options options, bool late = false);

  // Capabilities and callbacks; false when the VM cannot host the agent.
  bool Initialize();
  // onthrow=/onuncaught=: a JVMTI environment of its own watches exceptions until
  // the one that starts the agent is thrown (the main environment's callbacks
  // stay the debugger's). No-op without those options; false when it cannot.
  bool InstallStartTrigger(JavaVM* vm);
  // That environment's Exception callback (Java thread).
  void OnStartTrigger(jvmtiEnv* trigger_env, JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                      jobject exception, jmethodID catch_method, jlocation catch_location);
  void OnVmInit(JNIEnv* jni, jthread thread);

  // onjcmd=y: starts the dormant agent on a jcmd thread. `spec`, when given,
  // replaces the transport, address, server, allow and timeout of the load-time
  // options. Returns the reason it did not start, nullopt on success; `first`
  // is false when it had started before (nothing is done then).
  // `transport_failed` (optional): set when the error is the transport's (the
  // port is taken...), which stock's VM.start_java_debugging does not report to jcmd.
  std::optional<std::string> StartOnDemand(JNIEnv* jni, jthread thread, const Options* spec, bool* first,
                                           bool* transport_failed = nullptr);
  // Late attach (Agent_OnAttach without Agent_OnLoad): starts at once with the
  // capabilities the live phase grants, and logs what is missing.
  std::optional<std::string> StartLate(JNIEnv* jni, jthread thread);
  // Why another start cannot be made now (listening, or a debugger attached).
  std::string ActiveState();
  bool vm_initialized() const { return vm_initialized_; }
  bool late() const { return late_; }
  void OnVmDeath(JNIEnv* jni);

  Context& context() { return ctx_; }
  EventManager& events() { return events_; }
  EventReporter& reporter() { return reporter_; }

 private:
  // The exception that started the agent (onthrow=/onuncaught=), reported as request 0.
  struct StartingException {
    jmethodID method;
    jlocation location;
    jobject exception;
    jmethodID catch_method;
    jlocation catch_location;
  };
  // Starts the transport (listen + launch=, or attach) and the agent threads, then
  // reports VMStart, or `trigger` when the start was deferred to an exception.
  // False when the transport did not start (reported on stderr, reason in start_error_).
  bool Start(JNIEnv* jni, jthread thread, const StartingException* trigger);
  // Events that only a debugger's session needs (thread start/end, breakpoints,
  // frame pops, virtual thread start/end; class prepares for unload tracking):
  // switched on at the handshake, off when the session ends, so that an agent
  // nobody is attached to (listening, or dormant) costs the VM nothing per
  // thread or class. Idempotent; on Java or agent threads only (JVMTI calls).
  bool EnableSessionEvents(JNIEnv* jni) override;
  void DisableSessionEvents(JNIEnv* jni) override;
  // SessionHost, the rest (session.h).
  transport::Transport* transport() override { return transport_.get(); }
  bool DormantAfterSession() override { return dormant_after_session_; }
  // Started by jcmd and so configured: the port closes until the next jcmd start.
  void GoDormant() override;
  // Whether the application already runs when the agent starts (every start but
  // the one at VMInit): a failed start must then leave the process alive.
  bool StartsLate() const { return ctx_.options.onthrow || ctx_.options.onuncaught || ctx_.options.onjcmd || late_; }
  // The transport could not start: stock exits when the application has not run
  // yet, and only reports it on a deferred start. True when it returns.
  bool TransportStartFailed(JNIEnv* jni, const transport::TransportError& error);
  // "ERROR: transport error <code>: <message>" (or a library's own "ERROR: <message>").
  void PrintTransportError(const transport::TransportError& error);
  [[noreturn]] void ExitWithTransportError(const transport::TransportError& error) override;
  [[noreturn]] void ExitNoTransports();
  void SetListenerAddressProperty(JNIEnv* jni, const std::string& address);

  bool StartAgentThread(JNIEnv* jni, const char* name, jvmtiStartFunction fn);
  // Called by the command and reporter threads as they end.
  void AgentThreadEnded();
  // VM death, no debugger attached: ends the command and reporter threads and
  // waits (bounded) for them.
  void EndIdleThreads();
  // The command and reporter threads (Java threads, each a Thread object made by
  // Java code: the costly part of a start), once; then the I/O thread, at each start.
  void StartJavaThreads(JNIEnv* jni);
  void StartIoThread();
  static void JNICALL IoThreadMain(jvmtiEnv*, JNIEnv*, void* arg);
  static void JNICALL CommandThreadMain(jvmtiEnv*, JNIEnv*, void* arg);
  static void JNICALL ReporterThreadMain(jvmtiEnv*, JNIEnv*, void* arg);

  Context ctx_;
  // Built before the event path, which writes to it (its Outbox): it is given
  // the reporter and the event manager, and only keeps the references until
  // they are built.
  Session session_;
  EventReporter reporter_;  // every composite's way to the debugger (event_reporter.h)
  EventManager events_;
  probes::Probes probes_;  // the probes of the session (probes.h)
  std::unique_ptr<transport::Transport> transport_;
  // Deferred start (onthrow=/onuncaught=): exceptions before VMInit do not count;
  // the first matching one starts the agent, once.
  std::atomic<bool> vm_initialized_{false};
  std::atomic<bool> started_{false};
  bool late_ = false;              // loaded by Agent_OnAttach
  bool virtual_threads_ = false;   // can_support_virtual_threads granted
  std::mutex session_events_mu_;   // leaf: guards session_events_
  bool session_events_ = false;    // EnableSessionEvents in force
  std::mutex start_mu_;            // jcmd starts, one at a time
  std::string start_error_;        // why the last Start failed
  bool start_error_transport_ = false;  // ... and it was the transport (start_mu_ or VMInit)
  // Started by jcmd with onjcmd=y in its options (or server=n): when the debugger
  // leaves, the transport shuts down and the agent waits for the next jcmd start.
  std::atomic<bool> dormant_after_session_{false};
  bool threads_started_ = false;   // the command and event threads (they outlive sessions)
  std::vector<std::unique_ptr<transport::Transport>> retired_transports_;
  std::string trigger_signature_;  // "Ljava/lang/Foo;" for onthrow=java.lang.Foo

  // The agent threads. Leaf: guards io_running_ and running_threads_.
  std::mutex threads_mu_;
  bool io_running_ = false;        // the I/O thread is in Run()
  std::condition_variable io_ended_cv_;
  // The command and reporter threads still in their loops.
  int running_threads_ = 0;
  std::condition_variable threads_ended_cv_;
};

// The JDK's feature version (17, 21...) from JVMTI's version number.
int JdkFeatureVersion(jvmtiEnv* jvmti);

}  // namespace jdwpx::backend
