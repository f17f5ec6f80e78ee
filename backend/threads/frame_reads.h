// What the debugger has read of a suspended thread's stack, kept for the rest
// of that suspension: an IDE asks the same locals and `this` several
// times at every stop, and each JVMTI local read is a VM operation (on JDK 17
// a safepoint).
//
// Entries are keyed by the thread's generation (threads.h): unique across
// threads, changed whenever the thread resumes (an invoke, a step, a Resume of
// any kind, a PopFrames, a session's end), and carried by every frame ID. A
// read is cached only while the thread is JVMTI-suspended by us in that
// generation (ThreadControl::FrozenGeneration), so once it runs again nothing
// of the old suspension can match: neither its frame IDs (FrameDepth refuses
// them) nor its generation. What changes a frame while its thread stays
// suspended (StackFrame.SetValues, PopFrames, ThreadReference.ForceEarlyReturn
// and Stop, RedefineClasses, a session's end) calls Clear.
//
// Object values are kept as IDs: the caller serves one only if the object
// table still knows it and its object is alive (ObjectTable::ResendLive), and
// reads again otherwise, so a reply is the same as the uncached one.
//
// Bounded: kThreads suspensions (the oldest dropped first), each with at most
// kEntries locals and `this` values.
//
// Locking: mu_ is a leaf (no JVM call is made under it).
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <vector>

#include "jdwp/types.h"

namespace jdwpx::backend {

class FrameReads {
 public:
  static constexpr size_t kThreads = 8;
  static constexpr size_t kEntries = 512;

  // A local of the frame at `depth`, read with `tag`.
  std::optional<jdwp::Value> Local(uint64_t generation, int32_t depth, int32_t slot, jdwp::Tag tag);
  void PutLocal(uint64_t generation, int32_t depth, int32_t slot, jdwp::Tag tag, const jdwp::Value& value);
  // `this` of the frame at `depth` (null for a static or native method).
  std::optional<jdwp::TaggedObjectId> This(uint64_t generation, int32_t depth);
  void PutThis(uint64_t generation, int32_t depth, const jdwp::TaggedObjectId& self);

  void Clear();
  size_t threads();  // suspensions held (tests)

 private:
  struct Read {
    int32_t depth;
    int32_t slot;     // -1: `this`
    jdwp::Tag tag;    // the tag asked for (kObject for `this`)
    jdwp::Value value;
  };
  struct Suspension {
    uint64_t generation = 0;
    std::vector<Read> reads;  // a handful per frame: a linear search beats a map
  };
  Suspension* FindLocked(uint64_t generation);
  Suspension& TakeLocked(uint64_t generation);  // found or made (dropping the oldest)
  std::optional<jdwp::Value> ReadLocked(uint64_t generation, int32_t depth, int32_t slot, jdwp::Tag tag);
  void PutLocked(uint64_t generation, const Read& read);

  std::mutex mu_;
  std::vector<Suspension> held_;  // oldest first
};

}  // namespace jdwpx::backend
