// Stepping (StepRequest): the SingleStep and FramePop callbacks that drive the
// step requests (one per thread at most), deciding with StepControl
// (step_control.h) where each step ends, and reporting a step's completion
// with the breakpoints and hooked method entries at the same place in one
// composite (spec: co-located events), as stock orders them.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include "backend/context.h"
#include "backend/events/event_reporter.h"
#include "backend/events/event_requests.h"
#include "backend/events/method_events.h"
#include "backend/events/step_control.h"
#include "backend/events/unload_events.h"

namespace jdwpx::backend {

class Stepping {
 public:
  Stepping(Context& ctx, EventRequests& requests, StepControl& steps, MethodEvents& method_events,
           UnloadEvents& unloads, EventReporter& reporter)
      : ctx_(ctx),
        requests_(requests),
        steps_(steps),
        method_events_(method_events),
        unloads_(unloads),
        reporter_(reporter) {}

  // JVMTI callbacks (the event's Java thread).
  void OnSingleStep(JNIEnv* jni, jthread thread, jmethodID method, jlocation location);
  void OnFramePop(JNIEnv* jni, jthread thread, jmethodID method, bool by_exception);

  // Whether a step of `thread` completed at this place, in the frame it is in
  // now: a breakpoint hit there was reported with the step.
  bool CompletedAt(JNIEnv* jni, jthread thread, jmethodID method, jlocation location);
  // After StackFrame.PopFrames (no event reports the popped frames): a step
  // request on `thread` starts again from its new top frame. Answers whether
  // one does (the thread must keep single-stepping).
  bool AfterFramesPopped(JNIEnv* jni, jthread thread);

 private:
  Context& ctx_;
  EventRequests& requests_;
  StepControl& steps_;
  MethodEvents& method_events_;
  UnloadEvents& unloads_;
  EventReporter& reporter_;
};

}  // namespace jdwpx::backend
