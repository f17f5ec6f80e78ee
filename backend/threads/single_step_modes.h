// A thread's JVMTI SINGLE_STEP mode, decided in one place for everyone who
// wants single steps of a thread: its step request (stepping.cc), a
// StackFrame.PopFrames waiting for the thread's next bytecode (frame_pop.cc),
// and a step that ended while its thread waits at that step's event.
//
// Why the last one: turning single stepping on or off costs the VM a VM
// operation (VM_ChangeSingleStep, a safepoint, whenever no other thread single
// steps) and, on, a handshake that puts the thread in interpreter-only mode.
// A debugger stepping line after line deletes the step at its event and sets
// the next one before it resumes the thread (JDI: Clear, Set, Resume): the
// mode stays on in between (kLinger) and the next step goes on with it, so a
// step costs no mode change. The thread runs no bytecode meanwhile (it waits in
// its event's callback), so it meets no single step of the ended one. When its
// callback ends with no step set (resumed, or the debugger left), the mode goes
// off before the thread returns to Java code (EndWait): a resumed thread never
// runs on with single steps of an ended step. A debugger that sends anything
// else first (it looks at the stop: frames, values) turns it off then
// (DropLingers), as stock would have at the step's end.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <vector>

#include "backend/session_slot.h"
#include "vmcore/jvmti.h"

namespace jdwpx::backend {

class SingleStepModes {
 public:
  // Who wants single steps: bits of an owner set.
  using Owner = uint32_t;
  static constexpr Owner kPopFrames = 2;  // StackFrame.PopFrames waits for the thread's next bytecode
  static constexpr Owner kLinger = 4;     // left on by a step that ended while its thread waits at its event
  // The thread's step request of session `session` single steps now (one step
  // per thread and session: sessions=N).
  static constexpr Owner StepOf(SessionSlot session) { return Owner{1} << (8 + session); }

  explicit SingleStepModes(vmcore::Jvmti jvmti) : jvmti_(jvmti) {}

  // `owner` wants single steps of `thread` (or no longer does); JVMTI's mode
  // follows whether anyone does, and is set only when that changes.
  void Want(JNIEnv* jni, jthread thread, Owner owner, bool on);
  // A new step of `thread` (by `session`) begins: it single steps (`on`) or
  // waits for a frame pop; the mode left on by an ended step is its own now.
  void BeginStep(JNIEnv* jni, jthread thread, SessionSlot session, bool on);
  // That step ends: off, unless the thread waits at that step's event
  // (BeginWait): then left on until EndWait.
  void EndStep(JNIEnv* jni, jthread thread, SessionSlot session);
  // The current thread reports a completed step and will wait at its event
  // (its callback), / its callback ends: whatever an ended step left on goes off.
  void BeginWait(JNIEnv* jni, jthread self);
  void EndWait(JNIEnv* jni, jthread self);
  // A single step of a thread with no step request: a mode left on (an invoke
  // the thread runs while it waits) goes off.
  void DropLinger(JNIEnv* jni, jthread self);
  // Before a command that does not go on stepping (anything but EventRequest.Set
  // and Clear and the resumes; session.cc): every mode left on goes off. While one
  // is on, other threads' interpreted code dispatches through HotSpot's
  // safepoint table (a VM call per bytecode, as during any step): a debugger
  // that looks at the stop instead of stepping on does not keep it so while its
  // user reads. One atomic load when none is left on.
  void DropLingers(JNIEnv* jni);

 private:
  struct Entry {
    jobject thread = nullptr;  // global reference
    Owner owners = 0;
    bool waiting = false;      // between BeginWait and EndWait
    bool applied = false;      // JVMTI's mode as last set by us
  };
  Entry* Find(JNIEnv* jni, jthread thread);   // mu_ held
  Entry& FindOrAdd(JNIEnv* jni, jthread thread);  // mu_ held
  // Sets JVMTI's mode after a change of `e`, and forgets an entry no one needs (mu_ held).
  void Apply(JNIEnv* jni, Entry& e);

  vmcore::Jvmti jvmti_;
  // Held across the JVMTI call that applies a change (so that two changes of one
  // thread apply in order); a thread waiting for it is in native code, which
  // the VM operation and handshake that call may make do not wait for. Taken
  // under EventManager's mu_ and without it; no other lock is taken under it.
  std::mutex mu_;
  std::vector<Entry> entries_;  // the threads stepping now: a handful at most
  std::atomic<bool> maybe_lingering_{false};  // set with any kLinger, cleared by DropLingers
};

}  // namespace jdwpx::backend
