#include "backend/commands/frame_pop.h"

#include <chrono>

#include "backend/errors.h"
#include "backend/events/events.h"
#include "backend/log.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;

namespace {
// A popped thread reaches its next bytecode at once; this only bounds a thread
// that cannot (stopped by something else), so that the command fails instead of hanging.
constexpr auto kArrivalTimeout = std::chrono::seconds(10);
}  // namespace

FramePopper& FramePops() {
  static FramePopper popper;
  return popper;
}

bool FramePopper::OnSingleStep(JNIEnv* jni, jthread thread) {
  if (!armed_.load(std::memory_order_acquire)) return false;
  std::unique_lock lock(mu_);
  if (!target_ || arrived_ || !jni->IsSameObject(target_, thread)) return false;
  arrived_ = true;
  cv_.notify_all();
  // The command thread counts a suspension while we are still in the callback,
  // so that it is applied when the callback ends.
  cv_.wait_for(lock, kArrivalTimeout, [&] { return proceed_ || !armed_.load(); });
  return true;
}

jdwp::Result<void> FramePopper::RunToNextBytecode(Context& c, JNIEnv* jni, jthread thread) {
  {
    std::lock_guard lock(mu_);
    if (target_) jni->DeleteGlobalRef(target_);
    target_ = jni->NewGlobalRef(thread);
    arrived_ = false;
    proceed_ = false;
    armed_.store(true, std::memory_order_release);
  }
  // Every session's counts, not only the popping one's: another's hold would keep it from running.
  auto lent = c.threads.LendForPop(jni, thread);
  bool arrived = false;
  if (lent) {
    std::unique_lock lock(mu_);
    arrived = cv_.wait_for(lock, kArrivalTimeout, [&] { return arrived_; });
  }
  // Back while the thread is in our callback (arrived) or wherever it is.
  c.threads.ReturnAfterPop(jni, thread);
  {
    std::lock_guard lock(mu_);
    proceed_ = true;
    armed_.store(false, std::memory_order_release);
    cv_.notify_all();
  }
  RETURN_IF_ERROR(lent);
  if (!arrived) return jdwp::Fail(ErrorCode::kInternal, "popped thread did not reach its next bytecode");
  // The reporter JVMTI-suspends it once its callback ends.
  if (!c.threads.WaitUntilSuspended(jni, thread, kArrivalTimeout))
    return jdwp::Fail(ErrorCode::kInternal, "popped thread was not suspended again");
  return {};
}

jdwp::Result<void> FramePopper::PopFrames(Context& c, EventManager& events, JNIEnv* jni, jthread thread, int32_t depth,
                                          SessionSlot slot) {
  if (c.threads.SuspendCount(jni, thread, slot) == 0)
    return jdwp::Fail(ErrorCode::kThreadNotSuspended, "thread not suspended");
  VM_ASSIGN_OR_RETURN(jint frames, c.jvmti.GetFrameCount(thread));
  if (depth >= frames) return jdwp::Fail(ErrorCode::kInvalidFrameid, "no such frame");
  c.single_steps.Want(jni, thread, SingleStepModes::kPopFrames, true);
  jdwp::Result<void> result;
  for (int32_t i = 0; i <= depth && result; ++i) {
    auto popped = c.jvmti.PopFrame(thread);
    if (!popped) {
      result = tl::unexpected(FromVm(popped.error()));
      break;
    }
    result = RunToNextBytecode(c, jni, thread);
  }
  // A step request of the debugger on this thread goes on from the new top frame (as stock keeps its mode).
  events.AfterFramesPopped(jni, thread);
  c.single_steps.Want(jni, thread, SingleStepModes::kPopFrames, false);
  {
    std::lock_guard lock(mu_);
    if (target_) jni->DeleteGlobalRef(target_);
    target_ = nullptr;
  }
  if (!result) Log().debug("PopFrames: {}", result.error().detail);
  return result;
}

}  // namespace jdwpx::backend
