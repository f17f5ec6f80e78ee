#include "backend/probes/frame_slots.h"

namespace jdwpx::backend::probes {

FrameSlots::Verdict FrameSlots::Of(int32_t slot) const {
  if (slot < 0 || slot >= kSlots) return Verdict::kRefused;
  return verdicts_[slot].load(std::memory_order_relaxed);
}

void FrameSlots::Set(int32_t slot, Verdict verdict) {
  if (slot >= 0 && slot < kSlots) verdicts_[slot].store(verdict, std::memory_order_relaxed);
}

const hotspot::FrameShape* FrameSlots::Shape(const hotspot::InterpreterFrames& frames, JNIEnv* jni, int32_t bci) {
  if (const hotspot::FrameShape* shape = shape_.load(std::memory_order_acquire)) return shape;
  if (tries_.load(std::memory_order_relaxed) >= kTries) return nullptr;
  std::lock_guard lock(learning_);
  if (learnt_) return learnt_.get();
  if (tries_.fetch_add(1, std::memory_order_relaxed) >= kTries) return nullptr;
  auto shape = frames.Learn(jni, bci);
  if (!shape) return nullptr;
  learnt_ = std::make_unique<hotspot::FrameShape>(*shape);
  shape_.store(learnt_.get(), std::memory_order_release);
  return learnt_.get();
}

}  // namespace jdwpx::backend::probes
