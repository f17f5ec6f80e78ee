// What one Java thread's event callbacks keep between them (callbacks run on
// the event's own thread, so it is thread-local): the events kept back for a
// breakpoint or step at the same place, where the thread's last step ended,
// and whether a method event is being handled (re-entry). Internal to the
// event code (stepping.cc, event_callbacks.cc, method_events.cc).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <algorithm>
#include <cstdint>
#include <variant>
#include <vector>

#include "backend/events/answers.h"
#include "jdwp/commands/event.h"

namespace jdwpx::backend {

// Events a callback kept back for a breakpoint (or a step) at the same place, so
// that they reach the debugger in one composite, as stock sends them. Callbacks
// run on the event's own thread, so the place to keep them is thread-local.
struct Deferred {
  jmethodID method = nullptr;
  jlocation location = -1;
  std::vector<jdwp::events::EventData> events;
  Answers answers;
  uint64_t epoch = 0;
};
extern thread_local Deferred t_deferred;  // method_events.cc

// Where this thread's last step completed: a breakpoint there fires right
// after the step's report (which already carried it, or was before it was set)
// and is not reported again, as stock.
struct StepPlace {
  jmethodID method = nullptr;
  jlocation location = -1;
};
extern thread_local StepPlace t_step_place;  // method_events.cc

// JNI calls from a callback may run Java code whose own method events would
// re-enter the event manager (and its lock) on this thread: they are not reported.
extern thread_local bool t_in_method_event;  // method_events.cc

struct ReentryGuard {
  bool entered;
  ReentryGuard() : entered(!t_in_method_event) { t_in_method_event = true; }
  ~ReentryGuard() {
    if (entered) t_in_method_event = false;
  }
  // Around a Report, which may park the thread: an InvokeMethod run meanwhile
  // runs the debugger's code, whose method events are reported.
  template <class Fn>
  void Outside(Fn fn) {
    if (entered) t_in_method_event = false;
    fn();
    if (entered) t_in_method_event = true;
  }
};

inline bool IsMethodEntry(const jdwp::events::EventData& e) {
  return std::holds_alternative<jdwp::events::MethodEntry>(e);
}

// The MethodEntry events at the front of a composite, the newest request first
// (as stock lists several requests' events of one place), whichever way each came.
inline void OrderLeadingEntries(std::vector<jdwp::events::EventData>& events) {
  namespace ev = jdwp::events;
  auto end = std::find_if_not(events.begin(), events.end(), IsMethodEntry);
  std::stable_sort(events.begin(), end, [](const ev::EventData& a, const ev::EventData& b) {
    return std::get<ev::MethodEntry>(a).request_id > std::get<ev::MethodEntry>(b).request_id;
  });
}

}  // namespace jdwpx::backend
