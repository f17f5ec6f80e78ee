// One probe place's trust in reading its frame's locals straight from the
// stack (hotspot/interpreter_frame.h: nanoseconds) rather than through the
// LiveStackFrame walk (live_locals.h: microseconds).
//
// The frame's shape (its Method and bytecode pointer) is learnt at a hit. A
// slot is read from the stack only once a hit has read it both ways and they
// agreed, with the walk, which follows the JVM's own oop map, saying that the
// slot holds what the local's type says (an object, or a primitive). What a
// slot holds at one bci is fixed, so once is enough; reading an object from a
// slot that holds an int is what this check rules out. A slot that disagreed
// is never read from the stack again at this place.
#pragma once

#include <jni.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "hotspot/interpreter_frame.h"

namespace jdwpx::backend::probes {

class FrameSlots {
 public:
  enum class Verdict : uint8_t { kUnchecked, kObject, kPrimitive, kRefused };

  Verdict Of(int32_t slot) const;
  void Set(int32_t slot, Verdict verdict);
  // The place's frame shape: learnt at the first calls (a few tries, then no
  // more, so that a place whose frames do not look as expected costs nothing
  // more), in the hitting thread's Breakpoint callback at `bci`.
  const hotspot::FrameShape* Shape(const hotspot::InterpreterFrames& frames, JNIEnv* jni, int32_t bci);

 private:
  static constexpr int32_t kSlots = 256;  // slots above are read through the walk
  static constexpr int kTries = 4;
  std::array<std::atomic<Verdict>, kSlots> verdicts_{};
  std::atomic<const hotspot::FrameShape*> shape_{nullptr};
  std::atomic<int> tries_{0};
  std::mutex learning_;
  std::unique_ptr<hotspot::FrameShape> learnt_;
};

}  // namespace jdwpx::backend::probes
