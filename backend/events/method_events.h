// MethodEntry and MethodExit (and MethodExitWithReturnValue): from JVMTI's
// events, or from the method hooks (method_hooks.h), which serve the requests
// they can at a breakpoint on the method's first instruction. An entry is kept
// back (event_places.h) when a breakpoint or step will report at the same
// place, to go in that one composite; the breakpoint and step callbacks take
// what was kept (TakeDeferred) and the hooked entries (ReportHookedEntry).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <optional>
#include <vector>

#include "backend/context.h"
#include "backend/events/answers.h"
#include "backend/events/event_reporter.h"
#include "backend/events/event_requests.h"
#include "backend/events/step_control.h"
#include "backend/events/unload_events.h"
#include "jdwp/commands/event.h"

namespace jdwpx::backend {

class MethodEvents {
 public:
  MethodEvents(Context& ctx, EventRequests& requests, StepControl& steps, UnloadEvents& unloads,
               EventReporter& reporter)
      : ctx_(ctx), requests_(requests), steps_(steps), unloads_(unloads), reporter_(reporter) {}

  // JVMTI callbacks (the event's Java thread).
  void OnMethodEntry(JNIEnv* jni, jthread thread, jmethodID method);
  void OnMethodExit(JNIEnv* jni, jthread thread, jmethodID method, bool by_exception, jvalue return_value);

  // At the first instruction of a hooked method (a breakpoint, or a step that
  // ends there): the MethodEntry events of hooked requests, added to `events`
  // (the caller orders the entries of its composite: OrderLeadingEntries).
  void ReportHookedEntry(JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                         std::vector<jdwp::events::EventData>& events, Answers& answers);
  // Events this thread kept back for a breakpoint or step at the same location:
  // prepended to `events` when `method` and `location` are where they were
  // kept, otherwise reported alone first.
  void TakeDeferred(JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                    std::vector<jdwp::events::EventData>& events, Answers& answers);

 private:
  // The MethodEntry events of an entry of `method` on `thread`, for the entry
  // requests the hooks serve (`hooked`) or those JVMTI's events serve, newest
  // request first (mu() held). Nothing when no such request exists; else where
  // the entry is reported (the method's first index, -1 for a native one).
  struct EntryPlace {
    jlocation start = 0;
    bool has_code = false;
  };
  std::optional<EntryPlace> AddEntryEvents(JNIEnv* jni, jthread thread, jmethodID method, bool hooked,
                                           std::vector<jdwp::events::EventData>& events,
                                           Answers& answers);
  void Report(JNIEnv* jni, jthread thread, std::vector<jdwp::events::EventData> events, const Answers& answers) {
    ReportComposite(requests_, reporter_, jni, thread, std::move(events), answers);
  }

  Context& ctx_;
  EventRequests& requests_;
  StepControl& steps_;
  UnloadEvents& unloads_;
  EventReporter& reporter_;
};

}  // namespace jdwpx::backend
