// ClassUnload events. JVMTI has no unload event: the class tracker
// (class_unload.h) learns of unloaded classes as their tags are freed, and the
// next event callback on a Java thread reports them first (as stock does),
// each unloaded class in a composite of its own.
#pragma once

#include <jni.h>

#include "backend/events/event_reporter.h"
#include "backend/events/event_requests.h"

namespace jdwpx::backend {

class UnloadEvents {
 public:
  UnloadEvents(EventRequests& requests, EventReporter& reporter) : requests_(requests), reporter_(reporter) {}

  // Reports the classes unloaded since the last call to the ClassUnload
  // requests they match; nothing on an agent thread.
  void ReportPending(JNIEnv* jni, jthread thread);

 private:
  EventRequests& requests_;
  EventReporter& reporter_;
};

}  // namespace jdwpx::backend
