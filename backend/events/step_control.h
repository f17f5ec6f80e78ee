// One step's progress (a Step, event_request.h), as stock's step control
// decides it: where a step starts, what it asks of the VM (frame pops, single
// steps, method entries on its thread), and whether the instruction a thread
// has reached ends it. Knows nothing of the request table or the reporter:
// Stepping (stepping.h) calls it from the callbacks, EventRequests from
// EventRequest.Set and Clear. Every function but Start runs with the table's
// lock held (the Step belongs to a request in it).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <memory>

#include "backend/context.h"
#include "backend/events/event_request.h"
#include "jdwp/commands/event_request.h"
#include "jdwp/error.h"

namespace jdwpx::backend {

class RequestTable;

class StepControl {
 public:
  explicit StepControl(Context& ctx) : ctx_(ctx) {}

  // A Step modifier's step, from where its thread is now. As stock: a running
  // thread is suspended while the step starts and resumed once Set returns
  // (`held` then names it, a global reference for the caller to resume and
  // delete); a step out's thread gets the JVMTI suspension a frame pop needs.
  jdwp::Result<std::unique_ptr<Step>> Start(JNIEnv* jni, const jdwp::modifiers::Step& modifier, jthread& held);
  // The step is in the table: a step out waits for its frame to pop, any
  // other single steps from here.
  void Arm(JNIEnv* jni, Step& step);
  // Its request is deleted or expired: the thread stops stepping.
  void Stop(JNIEnv* jni, Step& step);

  // Whether the thread, now at `method`/`location`, has finished the step.
  // False: keep going (the step may have asked for a frame pop or method
  // entries meanwhile). `frame_count`: the thread's, when it was read on the way.
  bool Completes(JNIEnv* jni, Step& step, jthread thread, jmethodID method, jlocation location,
                 int32_t& frame_count);
  // Starts the step again from where the thread is (`depth` frames): after a
  // filtered-out stop, after a completed one, after PopFrames.
  void Restart(JNIEnv* jni, Step& step, jmethodID method, jlocation location, int32_t depth);
  // Step out from a filtered-out stop: waits again for this frame to pop.
  void WaitForPop(JNIEnv* jni, Step& step, jthread thread);
  // The frame a step waited for is popping, or a callee it may not stop in
  // returns (OnFramePop's two cases; `depth` is the thread's frame count).
  void FramePopped(JNIEnv* jni, Step& step, jthread thread, int32_t depth, bool by_exception);
  // A method was entered on a thread stepping into code it may not stop in:
  // single steps again when the step may stop in it.
  void MethodEntered(JNIEnv* jni, Step& step, jmethodID method);
  // StackFrame.PopFrames moved the thread: the step goes on from its new top frame.
  void FramesPopped(JNIEnv* jni, Step& step, jthread thread);

 private:
  void StopWatchingEntries(Step& step);
  void SingleStepAgain(JNIEnv* jni, Step& step);  // watching entries ends, single steps on
  bool CachedMayStopIn(JNIEnv* jni, Step& step, jmethodID method);  // MayStopIn, once per method
  bool MayStopIn(JNIEnv* jni, Step& step, jmethodID method);

  Context& ctx_;
};

}  // namespace jdwpx::backend
