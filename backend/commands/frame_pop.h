// StackFrame.PopFrames across several frames.
//
// JVMTI PopFrame pops one frame, and only once the thread runs again: a second
// PopFrame before that fails. So, as the stock agent does, each frame is popped
// and then the thread is let run to its next bytecode (a SingleStep on that
// thread alone), where it is suspended again for the next pop.
//
// Within ThreadControl's rules: the command thread sets the thread's debugger
// suspensions aside, every session's (LendForPop; SuspendCount unchanged), the
// thread runs, pops, and reaches the SingleStep callback; there it waits
// (OnSingleStep) until the command thread has brought the counts back
// (ReturnAfterPop), which, the thread being in our callback, suspends it when
// the callback ends (GuardThread -> SuspendDeferred), and the thread parks.
// Once JVMTI reports it suspended, the next frame is popped. At the end every
// session's suspend count is what it was, and the thread's frame IDs are new
// (it resumed).
//
// Lock rank: mu_ is a leaf; the Java thread makes one JNI call (IsSameObject)
// under it, never a call that may suspend it for the debugger (it is in our
// callback, so no suspension reaches it there).
#pragma once

#include <jni.h>

#include <atomic>
#include <condition_variable>
#include <mutex>

#include "backend/context.h"
#include "jdwp/error.h"

namespace jdwpx::backend {

class EventManager;

class FramePopper {
 public:
  // Command thread: pops frames 0..depth of a thread session `slot` suspended
  // (whoever else holds it too).
  jdwp::Result<void> PopFrames(Context& c, EventManager& events, JNIEnv* jni, jthread thread, int32_t depth,
                               SessionSlot slot);
  // SingleStep callback (inside GuardThread): true when the step is the end of
  // one pop of ours (the step is not the debugger's; it is consumed).
  bool OnSingleStep(JNIEnv* jni, jthread thread);

 private:
  jdwp::Result<void> RunToNextBytecode(Context& c, JNIEnv* jni, jthread thread);

  std::atomic<bool> armed_{false};
  std::mutex mu_;
  std::condition_variable cv_;
  jobject target_ = nullptr;  // global ref while armed_
  bool arrived_ = false;
  bool proceed_ = false;
};

// One per process (the agent is loaded once).
FramePopper& FramePops();

}  // namespace jdwpx::backend
