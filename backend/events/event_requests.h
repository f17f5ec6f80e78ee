// The event requests of the debugger's session: EventRequest.Set and Clear,
// the request table (request_table.h) with its lock, what each request holds
// in the VM (breakpoints, field watches, JVMTI event modes, method hooks),
// the filters that decide whether a request takes one event (Matches,
// event_filters.cc), and the requests whose Count ran out (expiry).
//
// The callbacks (event_callbacks.cc, stepping.cc, method_events.cc,
// unload_events.cc) take mu() to look at the table, match, and build their
// composite; they release it before the composite goes to the reporter.
// mu() ranks below ThreadControl's lock and is never held while a thread waits
// for the reporter.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "backend/events/answers.h"
#include "backend/events/class_unload.h"
#include "backend/context.h"
#include "backend/events/event_reporter.h"
#include "backend/events/method_hooks.h"
#include "backend/events/outbox.h"
#include "backend/events/probe_places.h"
#include "backend/events/request_table.h"
#include "backend/events/step_control.h"
#include "jdwp/commands/event.h"
#include "jdwp/commands/event_request.h"

namespace jdwpx::backend {

class EventRequests {
 public:
  using EventKind = jdwp::EventKind;
  EventRequests(Context& ctx, Outbox& outbox, StepControl& steps);
  ~EventRequests();

  // Commands (command thread), each of one session: a session sees and clears
  // its own requests only (request IDs are unique across sessions).
  jdwp::Result<int32_t> Set(JNIEnv* jni, const jdwp::EventRequest::Set::Request& req, SessionSlot session);
  jdwp::Result<void> Clear(JNIEnv* jni, EventKind kind, int32_t request_id, SessionSlot session);
  void ClearAllBreakpoints(JNIEnv* jni, SessionSlot session);
  // After RedefineClasses of `classes` (JVMTI cleared their breakpoints): deletes
  // the breakpoint requests located in them, as stock does, so that a breakpoint
  // set there again is set in the VM again; the method hooks are set again.
  void ForgetBreakpointsIn(JNIEnv* jni, const std::vector<jclass>& classes);
  // Whether method requests are served by hooks: RedefineClasses then runs with
  // the VM suspended (method_hooks.h).
  bool HasMethodHooks() const { return !hooks_.Empty(); }

  // Sessions. Begin (the first debugger attached): unloads before it are of no
  // concern. End: every request of that session deleted. Activate / Deactivate:
  // events are on (Agent::EnableSessionEvents, first debugger) / off (last one
  // gone): the class prepares that unload tracking needs are on only in between
  // (classes prepared meanwhile are tagged when the next session activates).
  void BeginSession();
  void EndSession(JNIEnv* jni, SessionSlot session);
  void ActivateSession(JNIEnv* jni);
  void DeactivateSession(JNIEnv* jni);
  // While the VM waits for its first debugger (suspend=y at VMInit): unload
  // tracking starts now, as stock's does at VMInit, not at the debugger's first
  // ClassUnload request (which JDI sends inside attach()); ClassPrepare stays on
  // from here, so the session's activation has no class left to tag.
  // WaitForDebuggerEnded: no debugger came (suspendtimeout=); ClassPrepare goes
  // off as when a session ends.
  void TrackUnloadsBeforeDebugger(JNIEnv* jni);
  void WaitForDebuggerEnded(JNIEnv* jni);

  // For the callbacks: the table and its lock.
  std::mutex& mu() { return mu_; }
  RequestTable& table() { return requests_; }  // mu()
  // Whether `r`'s modifiers pass one event, in order; a Count counts down only
  // when all before it passed, and a request whose Count runs out expires
  // (mu() held). `klass`: the class the class filters see; `instance`: the
  // frame's `this` (event_facts.h), read only for a request that filters on it.
  bool Matches(JNIEnv* jni, Request& r, jthread thread, jclass klass, const jdwp::Location* loc,
               jobject exception, bool caught, jobject instance, jfieldID field = nullptr,
               jclass field_klass = nullptr);
  // A request expired outside Matches (a class unload's Count).
  void NoteExpired() { expired_pending_ = true; }
  // Requests whose Count ran out release what they hold in the VM (breakpoints,
  // watches, event modes, method hooks) and are deleted, as stock deletes them.
  // mu() not held; the method requests go to the command thread (Outbox::PostTask),
  // which changes the hooks as Clear does.
  void ReleaseExpired(JNIEnv* jni);
  // The object IDs of the events this thread made, counted for every session
  // when they were made, are settled on the sessions that get them
  // (ObjectTable::SettleEventIds; nothing to do with one session).
  void SettleEventIds(JNIEnv* jni, SessionSlot session, const std::vector<jdwp::events::EventData>& events);
  void SettleEventIds(JNIEnv* jni, const std::vector<EventReporter::SessionComposite>& composites);
  // A breakpoint request or a probe is set at this place: its breakpoint
  // callback will come (mu() held).
  bool UserBreakpointAt(jmethodID method, jlocation location) {
    return requests_.HasBreakpointAt(method, location) || probe_places_.Has(method, location);
  }

  // Probes (probe_places.h; the command thread sets and removes them). Add sets
  // the VM's breakpoint unless the place has one already; Remove clears it when
  // nothing else holds the place.
  jdwp::Result<void> AddProbePlace(jmethodID method, jlocation location, std::shared_ptr<ProbeHook> hook);
  void RemoveProbePlace(jmethodID method, jlocation location, const ProbeHook* hook);
  // Has HotSpot discard the compiled code of `method` and of every method that
  // inlined it (a JVMTI breakpoint set at its first instruction and cleared at
  // once; HotSpot deoptimizes a method's dependents when a breakpoint is set
  // in it), unless a breakpoint of anyone is there already. For callers of a
  // probe's place, compiled without inlining it while its breakpoint was set.
  // A thread that reaches the place meanwhile gets a breakpoint callback that
  // matches nothing.
  void DiscardCompiledCode(jmethodID method);
  // The probes at a place, for the breakpoint callback (takes mu(); a cheap
  // read without it when no probe is set anywhere). `requests_here`, when
  // there are probes: whether a breakpoint request is at the place too
  // (otherwise left as it was).
  ProbePlaces::Hooks ProbesAt(jmethodID method, jlocation location, bool* requests_here = nullptr);
  // While set, every prepared class is told to `listener` (ClassPrepare on).
  void SetClassPrepareListener(JNIEnv* jni, ClassPrepareListener* listener);
  ClassPrepareListener* class_prepare_listener() const { return class_prepare_listener_.load(); }
  // A new class was prepared that the method hooks could not take in place:
  // hooks rebuilt (mu() held).
  void RefreshHooks(JNIEnv* jni, bool reset_breakpoints = false);
  MethodHooks& hooks() { return hooks_; }
  ClassTracker& unloads() { return unloads_; }
  // An exit request the hooks do not serve exists: JVMTI MethodExit events are
  // on for every thread (read without mu()).
  bool GlobalMethodExit() const { return global_method_exit_; }

 private:
  // Names the JVMTI capability `kind` needs and the VM did not grant (late attach).
  const char* MissingCapability(EventKind kind);
  // Once per process, when an Exception request is accepted without the capability (late attach).
  void WarnIfExceptionsCannotFire();
  // Field watches, counted over the requests that ask for them (mu_ held).
  jdwp::Result<void> AddWatch(EventKind kind, jclass klass, jfieldID field);
  void RemoveWatch(EventKind kind, jclass klass, jfieldID field);
  void UpdateEventModes(JNIEnv* jni);  // mu_ held
  // The first ClassUnload request's (or TrackUnloadsBeforeDebugger's) start of
  // unload tracking, ClassPrepare on first.
  void StartUnloadTracking(JNIEnv* jni);
  // A global JVMTI event mode, set only when it changes (mu_ held).
  void SetGlobalMode(jvmtiEvent event, bool on);
  void DeleteRequest(JNIEnv* jni, Request& r);  // mu_ held; the caller removes it from the table
  void ReleaseExpiredMethodRequests(JNIEnv* jni);

  Context& ctx_;
  Outbox& outbox_;
  StepControl& steps_;
  std::mutex mu_;
  RequestTable requests_;  // mu_
  ClassTracker unloads_;  // started by the first ClassUnload request
  bool session_active_ = false;  // mu_; between ActivateSession and DeactivateSession
  bool awaiting_debugger_ = false;  // mu_; TrackUnloadsBeforeDebugger until the session activates
  MethodHooks hooks_;
  // The global mode last applied per JVMTI event (-1: not yet); mu_.
  using EventModes = std::array<int8_t, JVMTI_MAX_EVENT_TYPE_VAL - JVMTI_MIN_EVENT_TYPE_VAL + 1>;
  static constexpr EventModes MakeUnknownModes() {
    EventModes modes{};
    modes.fill(-1);
    return modes;
  }
  EventModes global_modes_ = MakeUnknownModes();
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
  ProbePlaces probe_places_;  // mu_
  std::atomic<bool> any_probes_{false};  // !probe_places_.empty(), read without mu_
  std::atomic<ClassPrepareListener*> class_prepare_listener_{nullptr};
  // A Count ran out since the last ReleaseExpired (set under mu_, read without it).
  std::atomic<bool> expired_pending_{false};
};

// Hands a composite to the reporter (which may park `thread`: event_reporter.h),
// after the requests whose Count ran out with it have let go of what they hold
// in the VM, as stock frees a request right after matching it. Every callback
// reports through here. Events that answer requests of several sessions are
// split into a composite per session, each with its own policy (answers.h).
void ReportComposite(EventRequests& requests, EventReporter& reporter, JNIEnv* jni, jthread thread,
                     std::vector<jdwp::events::EventData> events, const Answers& answers);

}  // namespace jdwpx::backend
