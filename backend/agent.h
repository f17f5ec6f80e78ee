// The composition root: one Agent per process, created in Agent_OnLoad.
//
// Threads (all agent threads, hidden from the debugger):
//   jdwpx I/O       runs the transport's io_context (accept, read, write)
//   jdwpx commands  executes commands in arrival order, one at a time, and the
//                   session transitions (attach, detach, dispose) in order with them
//   jdwpx events    the reporter: applies suspend policies and sends events
// Java threads enter only through JVMTI callbacks (EventManager).
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

#include "backend/context.h"
#include "backend/dispatcher.h"
#include "backend/events.h"
#include "transport/transport.h"

namespace jdwpx::backend {

class Agent : public transport::Listener {
 public:
  Agent(JavaVM* vm, jvmtiEnv* jvmti, Options options);

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
  void OnVmDeath(JNIEnv* jni);

  Context& context() { return ctx_; }
  EventManager& events() { return events_; }

  // transport::Listener (I/O thread)
  void OnAttached(const std::string& peer) override;
  void OnPacket(std::vector<uint8_t> packet) override;
  void OnDetached(const std::string& reason) override;
  void OnWarning(const std::string& message) override;

  // Called by the Dispose handler: end the session once the reply is out.
  void RequestDispose() { dispose_requested_ = true; }
  // Called by the Exit handler: exit the process once the reply is out.
  void RequestExit(int code) { exit_code_ = code; }
  // Session end: clear requests, resume what the debugger suspended, forget IDs.
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
  void StartSession(JNIEnv* jni, jthread thread, const StartingException* trigger);
  // The transport could not start: stock exits when the application has not run
  // yet, and only reports it on a deferred start. True when it returns.
  bool TransportStartFailed(const transport::TransportError& error);
  [[noreturn]] void ExitNoTransports();

  struct Message {
    enum Kind { kPacket, kAttached, kDetached, kTask } kind;
    std::vector<uint8_t> bytes;
    std::function<void(JNIEnv*)> task;  // kTask: work of the agent's own (Context::post_command)
  };
  // Flushes and closes the debugger connection, waiting (bounded) for the detach.
  void CloseConnectionAndWait();
  void Post(Message message);
  void RunCommands(JNIEnv* jni);
  void HandlePacket(JNIEnv* jni, const std::vector<uint8_t>& bytes);
  bool StartAgentThread(JNIEnv* jni, const char* name, jvmtiStartFunction fn);
  void StartThreads(JNIEnv* jni);
  void SetListenerAddressProperty(JNIEnv* jni, uint16_t port);
  [[noreturn]] void ExitWithTransportError(const transport::TransportError& error);

  static void JNICALL IoThreadMain(jvmtiEnv*, JNIEnv*, void* arg);
  static void JNICALL CommandThreadMain(jvmtiEnv*, JNIEnv*, void* arg);
  static void JNICALL ReporterThreadMain(jvmtiEnv*, JNIEnv*, void* arg);

  Context ctx_;
  EventManager events_;
  Dispatcher dispatcher_;
  std::unique_ptr<transport::Transport> transport_;
  bool dispose_requested_ = false;
  // Deferred start (onthrow=/onuncaught=): exceptions before VMInit do not count;
  // the first matching one starts the agent, once.
  std::atomic<bool> vm_initialized_{false};
  std::atomic<bool> started_{false};
  std::string trigger_signature_;  // "Ljava/lang/Foo;" for onthrow=java.lang.Foo
  std::optional<int> exit_code_;
  JNIEnv* command_jni_ = nullptr;

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Message> inbox_;
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
};

// Registers every command handler (backend/commands/*.cc).
void RegisterVirtualMachine(Dispatcher& d, Context& ctx, Agent& agent, JNIEnv** jni);
void RegisterReferenceTypes(Dispatcher& d, Context& ctx, JNIEnv** jni);
void RegisterObjects(Dispatcher& d, Context& ctx, JNIEnv** jni);
void RegisterThreads(Dispatcher& d, Context& ctx, JNIEnv** jni);
void RegisterHeap(Dispatcher& d, Context& ctx, JNIEnv** jni);
void RegisterEventRequests(Dispatcher& d, Context& ctx, JNIEnv** jni);

}  // namespace jdwpx::backend
