// Event requests and event reporting: the event path, one file per job.
//
//   events.cc           the request table: Set, Clear, what a request holds in
//                       the VM (breakpoints, watches, event modes, method hooks),
//                       expiry, session switches
//   event_filters.cc    a request's modifiers against one event (Matches)
//   event_callbacks.cc  the JVMTI callbacks (breakpoint, exception, class prepare,
//                       threads, class unload, fields, monitors) and VMStart/VMDeath
//   method_events.cc    MethodEntry / MethodExit, and entries kept back for a
//                       breakpoint or step at the same place (event_places.h)
//   stepping.cc         StepRequest: the SingleStep and FramePop callbacks
//   single_step_modes.h each thread's JVMTI SINGLE_STEP mode (steps, PopFrames),
//                       kept on from a step's event to the next step
//   event_reporter.h    composite -> suspension -> send, on the reporter thread
//   event_request.h     what the table holds per request (Request, Step)
//
// A breakpoint hit: vm_callbacks.cc's callback -> EventManager::OnBreakpoint
// (event_callbacks.cc) -> Matches (event_filters.cc) -> Report (events.cc:
// expired requests let go) -> EventReporter::Report (event_reporter.cc), which
// hands the composite to the reporter thread and parks the event thread; a
// SUSPEND_EVENT_THREAD hit with nothing ahead of it is sent by the event
// thread itself, which then parks (event_reporter.h: the direct path).
//
// Requests live in one table guarded by mu_ (rank: below ThreadControl's lock;
// never held while a thread waits for the reporter). JVMTI callbacks run on the
// event's own Java thread: they match requests, build one composite for all
// requests that match at that point (newest request first, as stock lists
// them), hand it to the reporter thread, and wait
// (parked in ThreadControl) only when the suspend policy says so
// (event_reporter.h: who suspends, and the order of events after a SUSPEND_ALL
// one).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "backend/class_unload.h"
#include "backend/context.h"
#include "backend/event_reporter.h"
#include "backend/method_hooks.h"
#include "backend/outbox.h"
#include "backend/request_table.h"
#include "jdwp/commands/event.h"
#include "jdwp/commands/event_request.h"

namespace jdwpx::backend {

class EventManager {
 public:
  using EventKind = jdwp::EventKind;
  EventManager(Context& ctx, Outbox& outbox);
  ~EventManager();

  // Commands (command thread).
  jdwp::Result<int32_t> Set(JNIEnv* jni, const jdwp::EventRequest::Set::Request& req);
  // Names the JVMTI capability `kind` needs and the VM did not grant (late attach).
  const char* MissingCapability(jdwp::EventKind kind);
  // Once per process, when an Exception request is accepted without the capability (late attach).
  void WarnIfExceptionsCannotFire();
  jdwp::Result<void> Clear(JNIEnv* jni, jdwp::EventKind kind, int32_t request_id);
  void ClearAllBreakpoints(JNIEnv* jni);
  void Hold() { reporter_.Hold(); }
  void Release() { reporter_.Release(); }
  // ThreadReference.Resume / VirtualMachine.Resume: events wait no more for one.
  void UnblockAfterResume() { reporter_.UnblockAfterResume(); }

  // Session lifecycle.
  void BeginSession();            // a debugger attached: new epoch
  void EndSession(JNIEnv* jni);   // clear every request, drop held events, new epoch
  // A session's events are on (Agent::EnableSessionEvents) / off: the class
  // prepares that unload tracking needs are on only in between (classes
  // prepared meanwhile are tagged when the next session activates).
  void ActivateSession(JNIEnv* jni);
  void DeactivateSession(JNIEnv* jni);
  bool attached() const { return reporter_.attached(); }

  // Events the agent reports by itself.
  // `applied` runs once the start's suspend policy is in force (before the
  // initial thread parks): commands may be taken from then on.
  void ReportVmStart(JNIEnv* jni, jthread thread, jdwp::SuspendPolicy policy, const std::function<void()>& applied);
  void ReportVmDeath(JNIEnv* jni);
  // onthrow=/onuncaught=: the exception that started the agent, as request 0 (stock does the same).
  void ReportStartingException(JNIEnv* jni, jthread thread, jmethodID method, jlocation location, jobject exception,
                               jmethodID catch_method, jlocation catch_location, jdwp::SuspendPolicy policy,
                               const std::function<void()>& applied);

  // JVMTI callbacks.
  void OnBreakpoint(JNIEnv* jni, jthread thread, jmethodID method, jlocation location);
  void OnSingleStep(JNIEnv* jni, jthread thread, jmethodID method, jlocation location);
  void OnFramePop(JNIEnv* jni, jthread thread, jmethodID method, bool by_exception);
  void OnException(JNIEnv* jni, jthread thread, jmethodID method, jlocation location, jobject exception,
                   jmethodID catch_method, jlocation catch_location);
  void OnClassPrepare(JNIEnv* jni, jthread thread, jclass klass);
  void OnThreadStart(JNIEnv* jni, jthread thread);
  void OnThreadEnd(JNIEnv* jni, jthread thread);
  void OnMethodEntry(JNIEnv* jni, jthread thread, jmethodID method);
  void OnMethodExit(JNIEnv* jni, jthread thread, jmethodID method, bool by_exception, jvalue return_value);
  // `value_sig` and `new_value`: FieldModification only (value_sig 0 for an access).
  void OnFieldEvent(JNIEnv* jni, jthread thread, jmethodID method, jlocation location, jclass field_klass,
                    jobject object, jfieldID field, char value_sig, jvalue new_value);
  // kind: one of the four monitor event kinds; `extra` is the wait's timeout or
  // the waited's timed_out.
  void OnMonitorEvent(JNIEnv* jni, jthread thread, jobject object, jdwp::EventKind kind, jlong extra);

  // The reporter thread's loop and its stop.
  void RunReporter(JNIEnv* jni) { reporter_.Run(jni); }
  void StopReporter() { reporter_.Stop(); }
  // Sends `packet` after re-suspending `thread` (end of an InvokeMethod), waiting for it.
  // Takes ownership of `thread`, a global reference.
  void SendAfterInvoke(JNIEnv* jni, jthread thread, std::vector<uint8_t> packet) {
    reporter_.SendAfterInvoke(jni, thread, std::move(packet));
  }
  void SendInvokeReply(uint64_t epoch, std::vector<uint8_t> packet) { reporter_.SendInvokeReply(epoch, std::move(packet)); }
  uint64_t epoch() const { return reporter_.epoch(); }
  // At the end of a callback whose thread's suspension was deferred: has the
  // reporter suspend it, then parks it until resumed.
  void SuspendDeferred(JNIEnv* jni, void* token) { reporter_.SuspendDeferred(jni, token); }
  // Waits (bounded) until every queued packet has been handed to the transport.
  void Drain(int timeout_ms) { reporter_.Drain(timeout_ms); }
  // After RedefineClasses of `classes` (JVMTI cleared their breakpoints): deletes
  // the breakpoint requests located in them, as stock does, so that a breakpoint
  // set there again is set in the VM again; the method hooks are set again.
  void ForgetBreakpointsIn(JNIEnv* jni, const std::vector<jclass>& classes);
  // Whether method requests are served by hooks: RedefineClasses then runs with
  // the VM suspended (method_hooks.h).
  bool HasMethodHooks() const { return !hooks_.Empty(); }
  // After StackFrame.PopFrames (no event reports the popped frames): the method
  // hooks forget them, and a step request on `thread` starts again from its new
  // top frame. Answers whether one does (the thread must keep single-stepping).
  bool AfterFramesPopped(JNIEnv* jni, jthread thread);

 private:
  bool Matches(JNIEnv* jni, Request& r, jthread thread, jclass klass, const jdwp::Location* loc,
               jobject exception, bool caught, jobject instance, jfieldID field = nullptr,
               jclass field_klass = nullptr);
  // Field watches, counted over the requests that ask for them (mu_ held).
  jdwp::Result<void> AddWatch(EventKind kind, jclass klass, jfieldID field);
  void RemoveWatch(EventKind kind, jclass klass, jfieldID field);
  // Events a callback kept back for a breakpoint or step at the same location
  // (co-located events, one composite): prepended to `events` when `method` and
  // `location` are where they were kept, otherwise reported alone first.
  void TakeDeferred(JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                    std::vector<jdwp::events::EventData>& events, jdwp::SuspendPolicy& policy);
  // Lets expired requests go, then hands the composite to the reporter
  // (EventReporter::Report: it may park `thread`).
  void Report(JNIEnv* jni, jthread thread, std::vector<jdwp::events::EventData> events,
              jdwp::SuspendPolicy policy, const std::function<void()>& applied = nullptr);
  template <class Event>
  void ReportThreadEvent(JNIEnv* jni, jthread thread, jdwp::EventKind kind);
  void UpdateEventModes(JNIEnv* jni);  // mu_ held
  // A global JVMTI event mode, set only when it changes (mu_ held).
  void SetGlobalMode(jvmtiEvent event, bool on);
  // Method requests changed (mu_ held): which are hooked (method_hooks.h), and
  // the event modes. `reset_breakpoints` after a redefinition.
  void RefreshHooks(JNIEnv* jni, bool reset_breakpoints = false);
  bool UserBreakpointAt(jmethodID method, jlocation location);  // mu_ held
  // At the first instruction of a hooked method (a breakpoint, or a step that
  // ends there): the MethodEntry events of hooked requests, added to `events`
  // (the caller orders the entries of its composite: OrderLeadingEntries).
  void ReportHookedEntry(JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                         std::vector<jdwp::events::EventData>& events, jdwp::SuspendPolicy& policy);
  // The MethodEntry events of an entry of `method` on `thread`, for the entry
  // requests the hooks serve (`hooked`) or those JVMTI's events serve, newest
  // request first (mu_ held). Nothing when no such request exists; else where
  // the entry is reported (the method's first index, -1 for a native one).
  struct EntryPlace {
    jlocation start = 0;
    bool has_code = false;
  };
  std::optional<EntryPlace> AddEntryEvents(JNIEnv* jni, jthread thread, jmethodID method, bool hooked,
                                           std::vector<jdwp::events::EventData>& events,
                                           jdwp::SuspendPolicy& policy);
  void DeleteRequest(JNIEnv* jni, Request& r);  // mu_ held
  // Requests whose Count ran out release what they hold in the VM (breakpoints,
  // watches, event modes, method hooks) and are deleted, as stock deletes them.
  // Called by Report (mu_ not held); the method requests go to the command
  // thread (ReleaseExpiredMethodRequests), which changes the hooks as Clear does.
  void ReleaseExpired(JNIEnv* jni);
  void ReleaseExpiredMethodRequests(JNIEnv* jni);
  void StopStepping(JNIEnv* jni, Step& step);   // mu_ held
  void StopWatchingEntries(Step& step);          // mu_ held (see Step::watching_entries)
  void SingleStepAgain(JNIEnv* jni, Step& step);  // mu_ held: watching entries ends, single steps on
  bool CachedMayStopIn(JNIEnv* jni, Step& step, jmethodID method);  // mu_ held; StepMayStopIn, once per method
  // `frame_count`: the thread's, when it was read on the way (else left as is).
  bool StepCompletes(JNIEnv* jni, Step& step, jthread thread, jmethodID method, jlocation location,
                     int32_t& frame_count);
  bool StepMayStopIn(JNIEnv* jni, Step& step, jmethodID method);  // mu_ held
  std::string ClassNameOf(jclass klass);
  // Reports the classes unloaded since the last call (ClassUnload requests);
  // called at the start of event callbacks, as stock does.
  void ReportUnloads(JNIEnv* jni, jthread thread);
  // `this` of the top frame running `method` (a local reference), null when static.
  jobject FrameThis(jthread thread, jmethodID method);

  Context& ctx_;
  Outbox& outbox_;
  std::mutex mu_;
  RequestTable requests_;  // mu_
  ClassTracker unloads_;  // started by the first ClassUnload request
  bool session_active_ = false;  // mu_; between ActivateSession and DeactivateSession
  MethodHooks hooks_;
  // The global mode last applied per JVMTI event (-1: not yet); mu_.
  std::array<int8_t, JVMTI_MAX_EVENT_TYPE_VAL - JVMTI_MIN_EVENT_TYPE_VAL + 1> global_modes_ = MakeUnknownModes();
  static constexpr std::array<int8_t, JVMTI_MAX_EVENT_TYPE_VAL - JVMTI_MIN_EVENT_TYPE_VAL + 1> MakeUnknownModes() {
    std::array<int8_t, JVMTI_MAX_EVENT_TYPE_VAL - JVMTI_MIN_EVENT_TYPE_VAL + 1> modes{};
    modes.fill(-1);
    return modes;
  }
  // An exit request the hooks do not serve exists: JVMTI MethodExit events are
  // on for every thread (read by callbacks without mu_).
  std::atomic<bool> global_method_exit_{false};
  // One JVMTI watch per (kind, class, field), shared by the requests on it. The
  // class is part of the key: an instance field's ID is only its offset, so two
  // classes' fields may share one.
  struct Watch {
    EventKind kind{};
    jclass klass = nullptr;  // global
    jfieldID field = nullptr;
    int count = 0;
  };
  std::vector<Watch> watches_;
  std::vector<Watch>::iterator FindWatch(JNIEnv* jni, EventKind kind, jclass klass, jfieldID field);
  int32_t next_request_id_ = 1;
  // A Count ran out since the last ReleaseExpired (set under mu_, read without it).
  std::atomic<bool> expired_pending_{false};

  EventReporter reporter_;
};

}  // namespace jdwpx::backend
