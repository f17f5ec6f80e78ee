// What every command set's handlers share (backend/commands/<set>.cc, one file
// per JDWP command set), and each set's Bind function (bind_all.cc lists them).
// Handlers run on the command thread only, one command at a time.
#pragma once

#include <jni.h>

#include "backend/context.h"
#include "backend/commands/dispatcher.h"
#include "backend/session_slot.h"

namespace jdwpx::backend {

class EventManager;
class EventReporter;
class SessionControl;
namespace probes {
class Probes;
}

// The context the handlers work in, the event path's two ends they talk to
// (EventRequest's table, the reporter that resumes and sends), the command
// thread's JNIEnv (set once that thread runs, after the handlers are bound, so
// read through its slot) and the session of the command being handled (set by
// the command loop before each one).
struct CommandEnv {
  Context& ctx;
  EventManager& events;
  EventReporter& reporter;
  probes::Probes& probes;
  JNIEnv** jni_slot;
  const SessionSlot* session_slot;
};

// The base of each set's handler class: `ctx_`, `events_`, `reporter_` and
// `env()` for the handlers.
class HandlerBase {
 public:
  explicit HandlerBase(const CommandEnv& env)
      : ctx_(env.ctx),
        events_(env.events),
        reporter_(env.reporter),
        probes_(env.probes),
        jni_slot_(env.jni_slot),
        session_slot_(env.session_slot) {}

 protected:
  JNIEnv* env() const { return *jni_slot_; }
  // The session whose command is being handled (sessions=N; 0 with one).
  SessionSlot session() const { return *session_slot_; }
  Context& ctx_;
  EventManager& events_;
  EventReporter& reporter_;
  probes::Probes& probes_;

 private:
  JNIEnv** jni_slot_;
  const SessionSlot* session_slot_;
};

// Each binds its set's commands, in the spec's order.
void BindVirtualMachine(Dispatcher& d, const CommandEnv& env, SessionControl& session);
void BindReferenceType(Dispatcher& d, const CommandEnv& env);
void BindClassType(Dispatcher& d, const CommandEnv& env);
void BindArrayType(Dispatcher& d, const CommandEnv& env);
void BindInterfaceType(Dispatcher& d, const CommandEnv& env);
void BindMethod(Dispatcher& d, const CommandEnv& env);
void BindObjectReference(Dispatcher& d, const CommandEnv& env);
void BindStringReference(Dispatcher& d, const CommandEnv& env);
void BindThreadReference(Dispatcher& d, const CommandEnv& env);
void BindThreadGroupReference(Dispatcher& d, const CommandEnv& env);
void BindArrayReference(Dispatcher& d, const CommandEnv& env);
void BindClassLoaderReference(Dispatcher& d, const CommandEnv& env);
void BindEventRequest(Dispatcher& d, const CommandEnv& env);
void BindStackFrame(Dispatcher& d, const CommandEnv& env);
void BindClassObjectReference(Dispatcher& d, const CommandEnv& env);
void BindModuleReference(Dispatcher& d, const CommandEnv& env);
// jdwpx's own sets (command sets 128 and up).
void BindProbe(Dispatcher& d, const CommandEnv& env);

}  // namespace jdwpx::backend
