// The JVMTI callbacks of every event kind but steps (stepping.cc) and method
// entry and exit (method_events.cc): each matches the requests of its kind
// (EventRequests::Matches), builds one composite of all that match, newest
// request first, and hands it to the reporter (ReportComposite). Also the
// events the agent reports by itself (VMStart, VMDeath, the onthrow= exception).
#include "backend/events/events.h"

#include <algorithm>
#include <ranges>
#include <string>
#include <utility>

#include "backend/events/event_facts.h"
#include "backend/events/event_places.h"
#include "backend/events/event_request.h"
#include "backend/values/values.h"
#include "backend/ids/wire_string.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;
using jdwp::EventKind;
using jdwp::SuspendPolicy;
namespace ev = jdwp::events;
namespace mod = jdwp::modifiers;

void EventManager::ReportVmStart(JNIEnv* jni, jthread thread, SuspendPolicy policy,
                                 const std::function<void()>& applied) {
  std::vector<ev::EventData> events;
  events.push_back(ev::VMStart{0, ctx_.IdOf<jdwp::ThreadId>(jni, thread)});
  reporter_.Report(jni, thread, std::move(events), policy, SessionSlot{0}, applied);
}

void EventManager::ReportStartingException(JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                                           jobject exception, jmethodID catch_method, jlocation catch_location,
                                           SuspendPolicy policy, const std::function<void()>& applied) {
  jdwp::Location catch_loc{};
  if (catch_method) catch_loc = ctx_.LocationOf(jni, catch_method, catch_location);
  std::vector<ev::EventData> events;
  events.push_back(ev::Exception{0, ctx_.IdOf<jdwp::ThreadId>(jni, thread), ctx_.LocationOf(jni, method, location),
                                 ctx_.TaggedId(jni, exception), catch_loc});
  reporter_.Report(jni, thread, std::move(events), policy, SessionSlot{0}, applied);
}

void EventManager::ReportVmDeath(JNIEnv* jni) {
  reporter_.CloseForVmDeath();  // other threads' events, met from now on, are not sent
  reporter_.ReleaseAll();  // events held until now go first (and those waiting for a resume): VMDeath is the last
  // Every debugger attached gets its own set.
  std::vector<EventReporter::SessionComposite> composites;
  for (int s = 0; s < kMaxSessions; ++s) {
    if (reporter_.attached(static_cast<SessionSlot>(s))) composites.push_back({static_cast<SessionSlot>(s), {}, {}});
  }
  bool suspends = false;
  {
    std::lock_guard lock(requests_.mu());
    for (Request* r : NewestFirst(requests_.table().OfKind(EventKind::kVmDeath))) {
      auto it = std::find_if(composites.begin(), composites.end(),
                             [&](const EventReporter::SessionComposite& c) { return c.session == r->session; });
      if (it == composites.end()) continue;
      if (!requests_.Matches(jni, *r, nullptr, nullptr, nullptr, nullptr, false, nullptr)) continue;
      it->events.push_back(ev::VMDeath{r->id});
      it->policy = std::max(it->policy, r->policy);
      suspends = suspends || r->policy != SuspendPolicy::kNone;
    }
  }
  // As stock: the requested events and the automatic one (request 0, always
  // sent) in one set with the requests' policy. A policy that suspends holds
  // the dying VM, this thread included, until the debugger resumes it: that is
  // what a VMDeath request is for (JDI's VMDeathRequest).
  for (auto& c : composites) c.events.push_back(ev::VMDeath{0});
  jthread self = nullptr;
  if (suspends) {
    if (auto current = ctx_.jvmti.GetCurrentThread()) self = *current;
  }
  reporter_.ReportEach(jni, self, std::move(composites));
  if (self) jni->DeleteLocalRef(self);
}

void EventManager::OnBreakpoint(JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  // Probes first: they never suspend, and a step that reported this place
  // (below) must not hide them.
  bool requests_here = true;
  for (const auto& probe : requests_.ProbesAt(method, location, &requests_here))
    probe->OnHit(jni, thread, method, location);
  unloads_.ReportPending(jni, thread);
  std::vector<ev::EventData> events;
  Answers answers;
  // Events kept back for this place (a method entry at its first instruction)
  // go first in the breakpoint's composite, as stock sends them.
  if (!t_deferred.events.empty()) method_events_.TakeDeferred(jni, thread, method, location, events, answers);
  StepPlace step_place = std::exchange(t_step_place, StepPlace{});
  [&] {
    if (step_place.method == method && step_place.location == location) return;
    // A step that completed here already reported these breakpoints (and a
    // hooked method's entry) with it.
    if (stepping_.CompletedAt(jni, thread, method, location)) return;
    method_events_.ReportHookedEntry(jni, thread, method, location, events, answers);
    // A place with probes and no breakpoint request: nothing below to match
    // (about a tenth of a probe's hit on JDK 25, docs/probes.md).
    if (!requests_here) return;
    // What the filters read of the place, before the lock: no JVM call under it
    // but those a filter itself needs.
    jdwp::Location loc = ctx_.LocationOf(jni, method, location);
    jclass klass = nullptr;
    if (auto k = ctx_.jvmti.GetMethodDeclaringClass(method)) klass = *k;
    std::lock_guard lock(requests_.mu());
    jdwp::ThreadId thread_id{};
    jobject instance = nullptr;
    bool instance_read = false;
    for (Request* r : NewestFirst(requests_.table().BreakpointsAt(method, location))) {
      if (!instance_read && r->HasInstanceFilter()) {
        instance_read = true;
        instance = FrameThis(ctx_, thread, method);
      }
      if (!requests_.Matches(jni, *r, thread, klass, &loc, nullptr, false, instance)) continue;
      if (thread_id.is_null()) thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
      events.push_back(ev::Breakpoint{r->id, thread_id, loc});
      answers.Add(*r);
    }
    if (instance) jni->DeleteLocalRef(instance);
    if (klass) jni->DeleteLocalRef(klass);
  }();
  OrderLeadingEntries(events);  // kept-back entries, then the hooked ones: the newest request first
  Report(jni, thread, std::move(events), answers);
}

void EventManager::OnException(JNIEnv* jni, jthread thread, jmethodID method, jlocation location, jobject exception,
                               jmethodID catch_method, jlocation catch_location) {
  unloads_.ReportPending(jni, thread);
  std::vector<ev::EventData> events;
  Answers answers;
  {
    std::lock_guard lock(requests_.mu());
    jdwp::Location loc = ctx_.LocationOf(jni, method, location);
    jdwp::Location catch_loc{};
    if (catch_method) catch_loc = ctx_.LocationOf(jni, catch_method, catch_location);
    jclass klass = nullptr;
    if (auto k = ctx_.jvmti.GetMethodDeclaringClass(method)) klass = *k;
    jdwp::ThreadId thread_id{};
    jdwp::TaggedObjectId exception_id{};
    jobject instance = nullptr;
    bool instance_read = false;
    for (Request* r : NewestFirst(requests_.table().OfKind(EventKind::kException))) {
      if (!instance_read && r->HasInstanceFilter()) {
        instance_read = true;
        instance = FrameThis(ctx_, thread, method);
      }
      if (!requests_.Matches(jni, *r, thread, klass, &loc, exception, catch_method != nullptr, instance)) continue;
      if (thread_id.is_null()) {
        thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
        exception_id = ctx_.TaggedId(jni, exception);
      }
      events.push_back(ev::Exception{r->id, thread_id, loc, exception_id, catch_loc});
      answers.Add(*r);
    }
    if (instance) jni->DeleteLocalRef(instance);
    if (klass) jni->DeleteLocalRef(klass);
  }
  Report(jni, thread, std::move(events), answers);
}

void EventManager::OnClassPrepare(JNIEnv* jni, jthread thread, jclass klass) {
  ctx_.classes.Prepared(jni, klass);  // listed before the debugger hears of it
  requests_.unloads().Track(klass);
  unloads_.ReportPending(jni, thread);
  std::vector<ev::EventData> events;
  Answers answers;
  bool agent = thread && ThreadControl::CurrentIsAgent();
  {
    std::lock_guard lock(requests_.mu());
    // Before the class's code can run: its methods' hooks.
    if (!requests_.hooks().AddClass(jni, klass)) requests_.RefreshHooks(jni);
    ev::ClassPrepare base{};
    bool filled = false;
    for (Request* r : NewestFirst(requests_.table().OfKind(EventKind::kClassPrepare))) {
      if (!requests_.Matches(jni, *r, thread, klass, nullptr, nullptr, false, nullptr)) continue;
      if (!filled) {
        auto sig = ctx_.jvmti.GetClassSignature(klass);
        base.thread = agent ? jdwp::ThreadId{} : ctx_.IdOf<jdwp::ThreadId>(jni, thread);
        base.ref_type_tag = ctx_.TypeTagOf(klass);
        base.type_id = ctx_.IdOf<jdwp::ReferenceTypeId>(jni, klass);
        base.signature = sig ? ToWireString(sig->signature) : std::string();
        base.status = ctx_.ClassStatusOf(klass);
        filled = true;
      }
      ev::ClassPrepare e = base;
      e.request_id = r->id;
      events.push_back(std::move(e));
      answers.Add(*r);
    }
  }
  // Deferred probes (probe_places.h): before the class's code can run.
  if (ClassPrepareListener* listener = requests_.class_prepare_listener()) listener->OnClassPrepared(jni, klass);
  Report(jni, thread, std::move(events), answers);
}

template <class Event>
void EventManager::ReportThreadEvent(JNIEnv* jni, jthread thread, EventKind kind) {
  unloads_.ReportPending(jni, thread);
  std::vector<ev::EventData> events;
  Answers answers;
  {
    std::lock_guard lock(requests_.mu());
    for (Request* r : NewestFirst(requests_.table().OfKind(kind))) {
      if (!requests_.Matches(jni, *r, thread, nullptr, nullptr, nullptr, false, nullptr)) continue;
      events.push_back(Event{r->id, ctx_.IdOf<jdwp::ThreadId>(jni, thread)});
      answers.Add(*r);
    }
  }
  Report(jni, thread, std::move(events), answers);
}

void EventManager::OnThreadStart(JNIEnv* jni, jthread thread) {
  ReportThreadEvent<ev::ThreadStart>(jni, thread, EventKind::kThreadStart);
}

void EventManager::OnThreadEnd(JNIEnv* jni, jthread thread) {
  ReportThreadEvent<ev::ThreadDeath>(jni, thread, EventKind::kThreadDeath);
}

void EventManager::OnFieldEvent(JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                                jclass field_klass, jobject object, jfieldID field, char value_sig,
                                jvalue new_value) {
  unloads_.ReportPending(jni, thread);
  EventKind kind = value_sig ? EventKind::kFieldModification : EventKind::kFieldAccess;
  std::vector<ev::EventData> events;
  Answers answers;
  {
    std::lock_guard lock(requests_.mu());
    jdwp::Location loc = ctx_.LocationOf(jni, method, location);
    jclass klass = nullptr;
    if (auto k = ctx_.jvmti.GetMethodDeclaringClass(method)) klass = *k;
    jdwp::ThreadId thread_id{};
    jdwp::TaggedObjectId object_id{};
    jdwp::Value value_to_be;
    for (Request* r : NewestFirst(requests_.table().OfKind(kind))) {
      if (!requests_.Matches(jni, *r, thread, klass, &loc, nullptr, false, object, field, field_klass)) continue;
      if (thread_id.is_null()) {
        thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
        object_id = object ? ctx_.TaggedId(jni, object) : jdwp::TaggedObjectId{jdwp::Tag::kObject, {}};
        if (value_sig) value_to_be = FromJValue(ctx_, jni, new_value, value_sig);
      }
      auto tag = ctx_.TypeTagOf(field_klass);
      auto type_id = ctx_.IdOf<jdwp::ReferenceTypeId>(jni, field_klass);
      ctx_.members.AddField(field);
      if (kind == EventKind::kFieldAccess)
        events.push_back(ev::FieldAccess{r->id, thread_id, loc, tag, type_id, ToWire(field), object_id});
      else
        events.push_back(
            ev::FieldModification{r->id, thread_id, loc, tag, type_id, ToWire(field), object_id, value_to_be});
      answers.Add(*r);
    }
    if (klass) jni->DeleteLocalRef(klass);
  }
  Report(jni, thread, std::move(events), answers);
}

void EventManager::OnMonitorEvent(JNIEnv* jni, jthread thread, jobject object, EventKind kind, jlong extra) {
  unloads_.ReportPending(jni, thread);
  std::vector<ev::EventData> events;
  Answers answers;
  {
    std::lock_guard lock(requests_.mu());
    if (!requests_.table().AnyLive(kind)) return;
    // As stock: the location is where the thread's top frame is. The class
    // filters see the monitor's class for a wait or waited (the top frame is
    // Object.wait's), the code's class for a contended enter or entered; a
    // contended enter with no Java frame (a thread's exit) has no class.
    const bool wait_event = kind == EventKind::kMonitorWait || kind == EventKind::kMonitorWaited;
    jdwp::Location loc{};
    jclass klass = wait_event && object ? jni->GetObjectClass(object) : nullptr;
    jmethodID frame_method = nullptr;
    if (auto frame = ctx_.jvmti.GetFrameLocation(thread, 0); frame && frame->first) {
      frame_method = frame->first;
      loc = ctx_.LocationOf(jni, frame->first, frame->second);
      if (!wait_event) {
        if (auto k = ctx_.jvmti.GetMethodDeclaringClass(frame->first)) klass = *k;
      }
    }
    jdwp::ThreadId thread_id{};
    jdwp::TaggedObjectId object_id{};
    // As stock: InstanceOnly tests the top frame's `this` (for a wait, the
    // receiver of the native Object.wait: the monitor).
    const RequestTable::View& requests = requests_.table().OfKind(kind);
    const bool wants_instance =
        std::any_of(requests.begin(), requests.end(), [](const Request* r) { return r->HasInstanceFilter(); });
    jobject instance = frame_method && wants_instance ? FrameThis(ctx_, thread, frame_method) : nullptr;
    for (Request* r : NewestFirst(requests)) {
      if (!requests_.Matches(jni, *r, thread, klass, &loc, nullptr, false, instance)) continue;
      if (thread_id.is_null()) {
        thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
        object_id = ctx_.TaggedId(jni, object);
      }
      switch (kind) {
        case EventKind::kMonitorContendedEnter:
          events.push_back(ev::MonitorContendedEnter{r->id, thread_id, object_id, loc});
          break;
        case EventKind::kMonitorContendedEntered:
          events.push_back(ev::MonitorContendedEntered{r->id, thread_id, object_id, loc});
          break;
        case EventKind::kMonitorWait:
          events.push_back(ev::MonitorWait{r->id, thread_id, object_id, loc, static_cast<int64_t>(extra)});
          break;
        default:
          events.push_back(ev::MonitorWaited{r->id, thread_id, object_id, loc, extra != 0});
          break;
      }
      answers.Add(*r);
    }
    if (instance) jni->DeleteLocalRef(instance);
    if (klass) jni->DeleteLocalRef(klass);
  }
  Report(jni, thread, std::move(events), answers);
}

}  // namespace jdwpx::backend
