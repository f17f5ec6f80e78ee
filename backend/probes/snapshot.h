// A snapshot probe's capture: the hitting thread's frames with their locals and
// `this`, objects expanded a few levels, in the hitting thread, by reads only
// (JVMTI, JNI field and array reads; the only Java code run is the JDK's own
// collection iteration, and only on JDK collection classes).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <string>
#include <vector>

#include "jdwp/commands/probe.h"
#include "vmcore/jvmti.h"

namespace jdwpx::backend::probes {

struct SnapshotLimits {
  int32_t max_frames = 20;
  int32_t max_depth = 3;      // objects at this depth are not expanded (kDeeper); locals are at 0
  int32_t max_string = 256;   // UTF-16 units of a string's text
  int32_t max_elements = 10;  // of an array or a collection
  int32_t max_nodes = 2000;   // in the whole snapshot: a guard against wide objects
};

// The current thread's frames, innermost first, as Probe.Snapshot carries them.
// Call in `thread` itself (its Breakpoint callback); reads frame i's locals at
// depth i. A value that cannot be read becomes a kError node and the rest goes
// on. `budget`, when given, is decremented once per node and the capture stops
// (with a kError node) when it reaches zero: the caller's per-hit step budget.
std::vector<jdwp::Probe::Snapshot::Frame> CaptureSnapshot(const vmcore::Jvmti& jvmti, JNIEnv* jni, jthread thread,
                                                          const SnapshotLimits& limits = {},
                                                          int64_t* budget = nullptr);

}  // namespace jdwpx::backend::probes
