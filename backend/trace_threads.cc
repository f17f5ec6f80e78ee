#include "backend/trace_threads.h"

#include "trace/writer.h"
#include "vmcore/mutf8.h"

namespace jdwpx::backend {

void TraceThreadNames::Saw(JNIEnv* jni, jthread thread, uint64_t id) {
  // The ID this native thread named or met last: a thread's own events.
  struct Last {
    const TraceThreadNames* owner;
    uint64_t id;
  };
  static thread_local Last last{nullptr, 0};
  if (last.owner == this && last.id == id) return;
  last = {this, id};
  {
    std::lock_guard lock(mu_);
    if (!named_.insert(id).second) return;
  }
  auto info = jvmti_.GetThreadInfo(thread);
  if (!info) return;  // named "thread 0x..." by the reader, as before this record
  if (info->group) jni->DeleteLocalRef(info->group);
  if (info->context_loader) jni->DeleteLocalRef(info->context_loader);
  // JVMTI's strings are modified UTF-8 (surrogate pairs, C0 80), which
  // protobuf's parsers refuse in a string field.
  writer_->ThreadNamed(id, vmcore::ModifiedUtf8ToUtf8(info->name));
}

}  // namespace jdwpx::backend
