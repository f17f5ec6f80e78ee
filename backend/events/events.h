// The event path, assembled: one debugger session's requests and the callbacks
// that report against them, one part per file.
//
//   event_requests.h    the request table and its lock: Set, Clear, what a
//                       request holds in the VM, expiry (event_requests.cc);
//                       whether a request takes an event (event_filters.cc)
//   event_callbacks.cc  the JVMTI callbacks of every kind but steps and method
//                       events (breakpoint, exception, class prepare, threads,
//                       fields, monitors), and VMStart/VMDeath
//   stepping.h          StepRequest: the SingleStep and FramePop callbacks
//   step_control.h      one step's progress: where it ends, what it asks of the VM
//   method_events.h     MethodEntry / MethodExit, and entries kept back for a
//                       breakpoint or step at the same place (event_places.h)
//   unload_events.h     ClassUnload, reported at the start of the next callback
//   single_step_modes.h each thread's JVMTI SINGLE_STEP mode (steps, PopFrames),
//                       kept on from a step's event to the next step
//   event_reporter.h    composite -> suspension -> send, on the reporter thread
//   event_request.h     what the table holds per request (Request, Step)
//
// A breakpoint hit: vm_callbacks.cc's callback -> EventManager::OnBreakpoint
// (event_callbacks.cc) -> EventRequests::Matches (event_filters.cc) ->
// ReportComposite (event_requests.cc: expired requests let go) ->
// EventReporter::Report (event_reporter.cc), which hands the composite to the
// reporter thread and parks the event thread; a SUSPEND_EVENT_THREAD hit with
// nothing ahead of it is sent by the event thread itself, which then parks
// (event_reporter.h: the direct path). docs/event-path.md follows it in full.
//
// Calls go one way: EventManager -> Stepping -> MethodEvents -> UnloadEvents
// -> EventRequests -> StepControl; every part reports to the EventReporter it
// is given (owned by the agent, which runs its thread). JVMTI callbacks run on
// the event's own Java thread: they match requests under the table's lock,
// build one composite for all requests that match at that point (newest
// request first, as stock lists them), hand it to the reporter, and wait
// (parked in ThreadControl) only when the suspend policy says so.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <functional>
#include <vector>

#include "backend/context.h"
#include "backend/events/event_reporter.h"
#include "backend/events/event_requests.h"
#include "backend/events/method_events.h"
#include "backend/events/outbox.h"
#include "backend/events/step_control.h"
#include "backend/events/stepping.h"
#include "backend/events/unload_events.h"
#include "jdwp/commands/event.h"

namespace jdwpx::backend {

class EventManager {
 public:
  using EventKind = jdwp::EventKind;
  // `reporter`: where every composite goes (owned by the agent, which also
  // runs its thread and stops it; handlers resume and hold through it).
  EventManager(Context& ctx, Outbox& outbox, EventReporter& reporter);

  // The parts (handlers set and clear requests; vm_callbacks.cc calls the
  // step and method event callbacks directly).
  EventRequests& requests() { return requests_; }
  Stepping& stepping() { return stepping_; }
  MethodEvents& method_events() { return method_events_; }

  // A debugger attached in `session`: a new epoch of it. Its session ended: its
  // requests cleared, its held events dropped, a new epoch.
  void BeginSession(SessionSlot session);
  void EndSession(JNIEnv* jni, SessionSlot session);

  // Events the agent reports by itself. VMStart and the starting exception go
  // to the first debugger (session 0), VMDeath to every one attached.
  // `applied` runs once the start's suspend policy is in force (before the
  // initial thread parks): commands may be taken from then on.
  void ReportVmStart(JNIEnv* jni, jthread thread, jdwp::SuspendPolicy policy, const std::function<void()>& applied);
  void ReportVmDeath(JNIEnv* jni);
  // onthrow=/onuncaught=: the exception that started the agent, as request 0 (stock does the same).
  void ReportStartingException(JNIEnv* jni, jthread thread, jmethodID method, jlocation location, jobject exception,
                               jmethodID catch_method, jlocation catch_location, jdwp::SuspendPolicy policy,
                               const std::function<void()>& applied);

  // JVMTI callbacks (event_callbacks.cc).
  void OnBreakpoint(JNIEnv* jni, jthread thread, jmethodID method, jlocation location);
  void OnException(JNIEnv* jni, jthread thread, jmethodID method, jlocation location, jobject exception,
                   jmethodID catch_method, jlocation catch_location);
  void OnClassPrepare(JNIEnv* jni, jthread thread, jclass klass);
  void OnThreadStart(JNIEnv* jni, jthread thread);
  void OnThreadEnd(JNIEnv* jni, jthread thread);
  // `value_sig` and `new_value`: FieldModification only (value_sig 0 for an access).
  void OnFieldEvent(JNIEnv* jni, jthread thread, jmethodID method, jlocation location, jclass field_klass,
                    jobject object, jfieldID field, char value_sig, jvalue new_value);
  // kind: one of the four monitor event kinds; `extra` is the wait's timeout or
  // the waited's timed_out.
  void OnMonitorEvent(JNIEnv* jni, jthread thread, jobject object, jdwp::EventKind kind, jlong extra);

  // After StackFrame.PopFrames (no event reports the popped frames): the method
  // hooks forget them, and a step request on `thread` starts again from its new
  // top frame. Answers whether one does (the thread must keep single-stepping).
  bool AfterFramesPopped(JNIEnv* jni, jthread thread);

 private:
  template <class Event>
  void ReportThreadEvent(JNIEnv* jni, jthread thread, jdwp::EventKind kind);
  void Report(JNIEnv* jni, jthread thread, std::vector<jdwp::events::EventData> events, const Answers& answers) {
    ReportComposite(requests_, reporter_, jni, thread, std::move(events), answers);
  }

  Context& ctx_;
  EventReporter& reporter_;
  StepControl step_control_;
  EventRequests requests_;
  UnloadEvents unloads_;
  MethodEvents method_events_;
  Stepping stepping_;
};

}  // namespace jdwpx::backend
