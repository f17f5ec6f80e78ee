// MethodEvents (method_events.h): MethodEntry and MethodExit, and the entries
// kept back for a breakpoint or step at the same place.
#include "backend/events/method_events.h"

#include <algorithm>
#include <optional>
#include <ranges>
#include <utility>

#include "backend/events/event_facts.h"
#include "backend/events/event_places.h"
#include "backend/events/event_request.h"
#include "backend/values/values.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;
using jdwp::EventKind;
using jdwp::SuspendPolicy;
namespace ev = jdwp::events;
namespace mod = jdwp::modifiers;

thread_local Deferred t_deferred;
thread_local StepPlace t_step_place;
thread_local bool t_in_method_event = false;

void MethodEvents::ReportHookedEntry(JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                                     std::vector<ev::EventData>& events, Answers& answers) {
  if (!requests_.hooks().OnStart(jni, thread, method, location)) return;
  std::lock_guard lock(requests_.mu());
  (void)AddEntryEvents(jni, thread, method, /*hooked=*/true, events, answers);
}

std::optional<MethodEvents::EntryPlace> MethodEvents::AddEntryEvents(JNIEnv* jni, jthread thread, jmethodID method,
                                                                     bool hooked, std::vector<ev::EventData>& events,
                                                                     Answers& answers) {
  bool wanted = false, wants_instance = false;
  const RequestTable::View& entries = requests_.table().OfKind(EventKind::kMethodEntry);
  for (Request* r : entries) {
    if (r->expired || r->hooked != hooked) continue;
    wanted = true;
    for (auto& m : r->modifiers) wants_instance |= std::holds_alternative<mod::InstanceOnly>(m);
  }
  if (!wanted) return std::nullopt;
  // As stock: the location of a method entry is the method's first index (-1 for native ones).
  EntryPlace place;
  auto range = ctx_.jvmti.GetMethodLocation(method);
  place.has_code = range && range->first >= 0;
  place.start = place.has_code ? range->first : -1;
  jdwp::Location loc = ctx_.LocationOf(jni, method, place.start);
  jclass klass = nullptr;
  if (auto k = ctx_.jvmti.GetMethodDeclaringClass(method)) klass = *k;
  jobject instance = wants_instance ? FrameThis(ctx_, thread, method) : nullptr;
  jdwp::ThreadId thread_id{};
  // Newest request first, as stock orders the events of one place.
  for (Request* r : NewestFirst(entries)) {
    if (r->hooked != hooked) continue;
    if (!requests_.Matches(jni, *r, thread, klass, &loc, nullptr, false, instance)) continue;
    if (thread_id.is_null()) thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
    events.push_back(ev::MethodEntry{r->id, thread_id, loc});
    answers.Add(*r);
  }
  if (instance) jni->DeleteLocalRef(instance);
  if (klass) jni->DeleteLocalRef(klass);
  return place;
}

void MethodEvents::TakeDeferred(JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                                std::vector<ev::EventData>& events, Answers& answers) {
  Deferred kept = std::move(t_deferred);
  t_deferred = Deferred{};
  if (kept.events.empty()) return;
  if (kept.epoch != reporter_.generation()) return;  // a debugger came or went meanwhile
  if (kept.method == method && kept.location == location) {
    events.insert(events.begin(), std::make_move_iterator(kept.events.begin()),
                  std::make_move_iterator(kept.events.end()));
    answers.Add(kept.answers);
    return;
  }
  Report(jni, thread, std::move(kept.events), kept.answers);
}

void MethodEvents::OnMethodEntry(JNIEnv* jni, jthread thread, jmethodID method) {
  ReentryGuard guard;
  if (!guard.entered) return;
  {
    std::lock_guard lock(requests_.mu());
    for (Request* r : requests_.table().Steps()) {
      if (!r->step->watching_entries || r->expired || !jni->IsSameObject(r->step->thread, thread)) continue;
      steps_.MethodEntered(jni, *r->step, method);
    }
  }
  unloads_.ReportPending(jni, thread);
  t_step_place = StepPlace{};
  std::vector<ev::EventData> events;
  Answers answers;
  if (!t_deferred.events.empty()) TakeDeferred(jni, thread, nullptr, -1, events, answers);
  guard.Outside([&] { Report(jni, thread, std::move(events), answers); });
  events.clear();
  answers.Clear();
  jlocation start = 0;
  bool defer = false;
  {
    std::lock_guard lock(requests_.mu());
    // The requests the hooks serve report at their breakpoint (ReportHookedEntry).
    auto place = AddEntryEvents(jni, thread, method, /*hooked=*/false, events, answers);
    if (!place) return;
    start = place->start;
    if (!events.empty() && place->has_code) {
      // As stock: kept back when a breakpoint at the first instruction, or the
      // single step of a step in progress, will report at this same place (a
      // native method has no instruction to meet them at: never kept back).
      defer = requests_.hooks().BreakpointAt(method, start) || requests_.UserBreakpointAt(method, start);
      for (Request* r : requests_.table().Steps()) {
        if (r->step->frame_pop_depth < 0 && !r->expired && jni->IsSameObject(r->step->thread, thread)) defer = true;
      }
    }
  }
  if (defer) {
    t_deferred.method = method;
    t_deferred.location = start;
    t_deferred.events = std::move(events);
    t_deferred.answers = std::move(answers);
    t_deferred.epoch = reporter_.generation();
    return;
  }
  guard.Outside([&] { Report(jni, thread, std::move(events), answers); });
}

void MethodEvents::OnMethodExit(JNIEnv* jni, jthread thread, jmethodID method, bool by_exception,
                                jvalue return_value) {
  // Every exit counts for the frames the hooks follow, even one of our own calls.
  requests_.hooks().OnExit(jni, thread, method);
  ReentryGuard guard;
  if (!guard.entered) return;
  std::vector<ev::EventData> events;
  Answers answers;
  if (!t_deferred.events.empty()) TakeDeferred(jni, thread, nullptr, -1, events, answers);
  guard.Outside([&] { Report(jni, thread, std::move(events), answers); });
  events.clear();
  answers.Clear();
  // As stock: a frame popped by an exception reports no method exit.
  if (by_exception) return;
  // A callee of a hooked frame (MethodExit is on for this thread alone): no
  // request can match it.
  if (!requests_.GlobalMethodExit() && !requests_.hooks().MayMatchExit(method)) return;
  {
    std::lock_guard lock(requests_.mu());
    bool wanted = false, wants_instance = false;
    // Both kinds, newest first as one list: their events share a composite.
    std::vector<Request*> exits = MergedNewestFirst(requests_.table().OfKind(EventKind::kMethodExit),
                                                    requests_.table().OfKind(EventKind::kMethodExitWithReturnValue));
    for (Request* r : exits) {
      if (r->expired) continue;
      wanted = true;
      for (auto& m : r->modifiers) wants_instance |= std::holds_alternative<mod::InstanceOnly>(m);
    }
    if (!wanted) return;
    // The last instruction executed: the frame is still there, at its return.
    jlocation at = 0;
    if (auto frame = ctx_.jvmti.GetFrameLocation(thread, 0); frame && frame->first == method) at = frame->second;
    if (at < 0) at = 0;
    jdwp::Location loc = ctx_.LocationOf(jni, method, at);
    jclass klass = nullptr;
    if (auto k = ctx_.jvmti.GetMethodDeclaringClass(method)) klass = *k;
    jobject instance = nullptr;
    if (wants_instance)
      instance = FrameThis(ctx_, thread, method);
    jdwp::ThreadId thread_id{};
    std::optional<jdwp::Value> value;
    for (Request* r : exits) {
      if (!requests_.Matches(jni, *r, thread, klass, &loc, nullptr, false, instance)) continue;
      if (thread_id.is_null()) thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
      if (r->kind == EventKind::kMethodExit) {
        events.push_back(ev::MethodExit{r->id, thread_id, loc});
      } else {
        if (!value) {
          char kind = 'V';
          if (auto name = ctx_.jvmti.GetMethodName(method)) (void)ParameterKinds(name->signature, &kind);
          value = FromJValue(ctx_, jni, return_value, kind);
        }
        events.push_back(ev::MethodExitWithReturnValue{r->id, thread_id, loc, *value});
      }
      answers.Add(*r);
    }
    if (instance) jni->DeleteLocalRef(instance);
    if (klass) jni->DeleteLocalRef(klass);
  }
  guard.Outside([&] { Report(jni, thread, std::move(events), answers); });
}

}  // namespace jdwpx::backend
