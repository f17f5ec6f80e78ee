// The composition root: one Agent per process, created in Agent_OnLoad, or in
// Agent_OnAttach when jcmd loads jdwpx into a JVM started without it.
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
// Threads (all agent threads, hidden from the debugger):
//   I/O             runs the transport (accept, read, and the writes a sender
//                   could not finish: replies and events are written by the
//                   thread that sends them when the socket is free); a plain
//                   native thread, not a Java one: it calls no JNI/JVMTI, and
//                   the VM's exit never waits for it
//   jdwpx commands  executes commands in arrival order, one at a time, and the
//                   session transitions (attach, detach, dispose) in order with them
//   jdwpx events    the reporter: applies suspend policies and sends events
// Java threads enter only through JVMTI callbacks (vm_callbacks.h, then EventManager).
// At VM death with no debugger attached, the command and reporter threads end
// (EndIdleThreads), so that no agent thread is in native code when the VM exits.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backend/session/command_spin.h"
#include "backend/commands/session_control.h"
#include "backend/context.h"
#include "backend/commands/dispatcher.h"
#include "backend/session/doorbell.h"
#include "backend/events/events.h"
#include "backend/events/outbox.h"
#include "trace/writer.h"
#include "transport/transport.h"

namespace jdwpx::backend {

class Agent : public transport::Listener, public Outbox, public SessionControl {
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

  // transport::Listener (I/O thread)
  void OnAttached(const std::string& peer, uint64_t session, std::chrono::nanoseconds handshake) override;
  void OnPacket(std::vector<uint8_t> packet) override;
  void OnDetached(const std::string& reason) override;
  void OnWarning(const std::string& message) override;
  void OnWritten(std::span<const uint8_t> bytes, size_t length) override;
  // As stock: timeout= ran out with nobody attached, or accepting failed: exits.
  void OnAcceptFailed(const transport::TransportError& error) override {
    if (!ctx_.vm_dead) ExitWithTransportError(error);
  }

  // SessionControl (the VirtualMachine handlers): Dispose ends the session once
  // the reply is out, Exit the process.
  void RequestDispose() override { dispose_requested_ = true; }
  void RequestExit(int code) override { exit_code_ = code; }
  // Session end: clear requests, resume what the debugger suspended, forget IDs;
  // then no session is served until the next attach.
  void EndSession(JNIEnv* jni);

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
  bool StartSession(JNIEnv* jni, jthread thread, const StartingException* trigger);
  // Events that only a debugger's session needs (thread start/end, breakpoints,
  // frame pops, virtual thread start/end; class prepares for unload tracking):
  // switched on at the handshake, off when the session ends, so that an agent
  // nobody is attached to (listening, or dormant) costs the VM nothing per
  // thread or class. Idempotent; on Java or agent threads only (JVMTI calls).
  bool EnableSessionEvents(JNIEnv* jni);
  void DisableSessionEvents(JNIEnv* jni);
  // Whether the application already runs when the agent starts (every start but
  // the one at VMInit): a failed start must then leave the process alive.
  bool StartsLate() const { return ctx_.options.onthrow || ctx_.options.onuncaught || ctx_.options.onjcmd || late_; }
  // The transport could not start: stock exits when the application has not run
  // yet, and only reports it on a deferred start. True when it returns.
  bool TransportStartFailed(JNIEnv* jni, const transport::TransportError& error);
  // "ERROR: transport error <code>: <message>" (or a library's own "ERROR: <message>").
  void PrintTransportError(const transport::TransportError& error);
  [[noreturn]] void ExitNoTransports();

  struct Message {
    enum Kind { kPacket, kAttached, kDetached, kTask } kind;
    std::vector<uint8_t> bytes;
    uint64_t session = 0;  // the transport connection it came from
    bool to_dormant = false;  // kDetached: the agent goes dormant (no listening again)
    std::function<void(JNIEnv*)> task{};  // kTask: work of the agent's own (Outbox::PostTask)
  };
  // Serves the transport connection `session` from now on (nothing else must be
  // served); opens the event manager's new session.
  void BeginServing(uint64_t session);
  // Sends one packet to connection `session` (dropped unless it is still attached).
  void SendTo(uint64_t session, std::vector<uint8_t> packet);
  // Outbox (the event path's way up): to the connection served now, and to the command thread.
  void Send(std::vector<uint8_t> packet) override { SendTo(session_.load(), std::move(packet)); }
  void PostTask(std::function<void(JNIEnv*)> task) override { Post({Message::kTask, {}, 0, false, std::move(task)}); }
  // Flushes and closes the debugger connection, waiting (bounded) for the detach.
  void CloseConnectionAndWait();
  void Post(Message message);
  void RunCommands(JNIEnv* jni);
  void HandlePacket(JNIEnv* jni, const std::vector<uint8_t>& bytes);
  // Server mode, after a session ended: the Listening line or launch= again.
  void AnnounceListeningAgain();
  bool StartAgentThread(JNIEnv* jni, const char* name, jvmtiStartFunction fn);
  // Called by the command and reporter threads as they end.
  void AgentThreadEnded();
  // VM death, no debugger attached: ends the command and reporter threads and
  // waits (bounded) for them.
  void EndIdleThreads();
  void StartThreads(JNIEnv* jni);
  void SetListenerAddressProperty(JNIEnv* jni, const std::string& address);
  [[noreturn]] void ExitWithTransportError(const transport::TransportError& error);

  static void JNICALL IoThreadMain(jvmtiEnv*, JNIEnv*, void* arg);
  static void JNICALL CommandThreadMain(jvmtiEnv*, JNIEnv*, void* arg);
  static void JNICALL ReporterThreadMain(jvmtiEnv*, JNIEnv*, void* arg);

  // trace=: opens the protocol trace, or says once why not (the agent runs on).
  void OpenTrace(jvmtiEnv* jvmti);
  // Everything recorded so far reaches the file (detach, VM exit); `close` ends the trace.
  void FlushTrace(bool close);

  Context ctx_;
  EventReporter reporter_;  // every composite's way to the debugger (event_reporter.h)
  EventManager events_;
  // The protocol trace (trace=), or null. Fed from the I/O thread (packets in
  // as read, out as written, sessions) and from error logs; it never blocks them.
  std::unique_ptr<trace::Writer> trace_;
  Dispatcher dispatcher_;
  std::unique_ptr<transport::Transport> transport_;
  bool dispose_requested_ = false;
  // Deferred start (onthrow=/onuncaught=): exceptions before VMInit do not count;
  // the first matching one starts the agent, once.
  std::atomic<bool> vm_initialized_{false};
  std::atomic<bool> started_{false};
  bool late_ = false;              // loaded by Agent_OnAttach
  bool virtual_threads_ = false;   // can_support_virtual_threads granted
  std::mutex session_events_mu_;   // leaf: guards session_events_
  bool session_events_ = false;    // EnableSessionEvents in force
  std::mutex start_mu_;            // jcmd starts, one at a time
  std::string start_error_;        // why the last StartSession failed
  bool start_error_transport_ = false;  // ... and it was the transport (start_mu_ or VMInit)
  // Started by jcmd with onjcmd=y in its options (or server=n): when the debugger
  // leaves, the transport shuts down and the agent waits for the next jcmd start.
  std::atomic<bool> dormant_after_session_{false};
  bool threads_started_ = false;   // the command and event threads (they outlive sessions)
  bool io_running_ = false;        // the I/O thread is in Run() (mu_, detached_cv_)
  std::vector<std::unique_ptr<transport::Transport>> retired_transports_;
  std::string trigger_signature_;  // "Ljava/lang/Foo;" for onthrow=java.lang.Foo
  std::optional<int> exit_code_;
  JNIEnv* command_jni_ = nullptr;

  // Sessions. The I/O thread numbers each message with its connection
  // (io_session_, I/O thread only); the command thread serves one connection at
  // a time (session_): packets of another are dropped, replies and events go to
  // it alone, and Dispose closes it alone. A connection accepted before the
  // previous one's teardown has finished is served once that is done (its
  // kAttached comes after the previous kDetached); one accepted after, at once.
  uint64_t io_session_ = 0;
  std::atomic<uint64_t> session_{0};  // written under mu_

  std::mutex mu_;
  Doorbell doorbell_;  // wakes the command thread (doorbell.h): a message, commands open, stopping_
  std::deque<Message> inbox_;
  // inbox_.size(), also read without mu_ (while the command thread spins).
  std::atomic<size_t> inbox_size_{0};
  // Whether, and how long, the command thread waits for the next command on
  // the CPU before it sleeps (command_spin.h). The command thread's alone.
  CommandSpin spin_;
  bool stopping_ = false;
  // Commands wait until VMStart's suspension is in force: a debugger may send
  // VirtualMachine.Resume before it has read VMStart, and that resume must
  // find the VM suspended, not run before the suspension.
  bool commands_open_ = false;
  void OpenCommands();
  bool detached_ = true;
  std::condition_variable detached_cv_;
  // The command thread is handling a message (VM death waits for it to finish
  // what the debugger sent before, as stock does, so no reply is lost).
  bool command_busy_ = false;
  std::condition_variable idle_cv_;
  // The command and reporter threads still in their loops.
  int running_threads_ = 0;
  std::condition_variable threads_ended_cv_;
};

// The JDK's feature version (17, 21...) from JVMTI's version number.
int JdkFeatureVersion(jvmtiEnv* jvmti);

}  // namespace jdwpx::backend
