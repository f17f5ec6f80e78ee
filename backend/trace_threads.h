// trace=: the threads of the protocol trace get their names. Every thread ID
// the agent gives the debugger (in an event, a reply) is made by
// Context::IdOf<ThreadId>, which hands it here; the first time an ID goes out,
// the thread's name (JVMTI GetThreadInfo, made standard UTF-8) is recorded
// with it (a ThreadName record, trace/trace.proto), so that a timeline names
// the thread's track "main" rather than "thread 0x1".
//
// Cost: nothing without trace= (Context holds no TraceThreadNames). With it,
// an ID seen again costs a thread_local compare (a thread's events carry its
// own ID) or a leaf mutex and a set lookup; a new one a GetThreadInfo and a
// push onto the trace's queue (never blocking: trace/writer.h).
//
// Lock rank: mu_ is a leaf, held for the set alone (no JNI or JVMTI call
// under it), so it may be taken from any callback with any of our locks held.
#pragma once

#include <jni.h>

#include <cstdint>
#include <mutex>
#include <unordered_set>

#include "vmcore/jvmti.h"

namespace jdwpx::trace {
class Writer;
}

namespace jdwpx::backend {

class TraceThreadNames {
 public:
  // `writer` outlives this (the agent never destroys its trace writer).
  TraceThreadNames(vmcore::Jvmti jvmti, trace::Writer* writer) : jvmti_(jvmti), writer_(writer) {}

  // `thread` is about to go out as `id` (not 0). IDs are never reused (ids.h),
  // so a thread is named once for the whole trace, with the name it has now.
  void Saw(JNIEnv* jni, jthread thread, uint64_t id);

 private:
  vmcore::Jvmti jvmti_;
  trace::Writer* writer_;
  std::mutex mu_;
  std::unordered_set<uint64_t> named_;  // mu_
};

}  // namespace jdwpx::backend
