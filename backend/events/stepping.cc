// Stepping (stepping.h): the SingleStep and FramePop callbacks that drive the
// step requests; where a step ends: StepControl (step_control.cc).
#include "backend/events/stepping.h"

#include <algorithm>
#include <optional>
#include <ranges>
#include <string>
#include <utility>

#include "backend/events/event_facts.h"
#include "backend/events/event_places.h"
#include "backend/events/event_request.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;
using jdwp::EventKind;
using jdwp::SuspendPolicy;
namespace ev = jdwp::events;
namespace mod = jdwp::modifiers;

void Stepping::OnSingleStep(JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  unloads_.ReportPending(jni, thread);
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  if (!t_deferred.events.empty() && (t_deferred.method != method || t_deferred.location != location))
    method_events_.TakeDeferred(jni, thread, nullptr, -1, events, policy);
  bool breakpoint_here = false;
  bool step_reported = false;
  bool waits = false;  // at the step's event: single_steps.BeginWait
  [&] {
    std::lock_guard lock(requests_.mu());
    breakpoint_here = requests_.UserBreakpointAt(method, location) || requests_.hooks().BreakpointAt(method, location);
    Request* step_request = nullptr;
    for (Request* r : requests_.table().Steps())
      if (jni->IsSameObject(r->step->thread, thread)) step_request = r;
    if (!step_request) {
      // Left on by a step that ended while this thread waited (it runs an invoke meanwhile).
      ctx_.single_steps.DropLinger(jni, thread);
      return;
    }
    if (step_request->expired || step_request->step->frame_pop_depth >= 0) return;
    Step& step = *step_request->step;
    // The thread's frame count, once StepCompletes has read it (-1: not read).
    int32_t frame_count = -1;
    if (!steps_.Completes(jni, step, thread, method, location, frame_count)) return;
    auto read_frame_count = [&]() -> std::optional<int32_t> {
      if (frame_count >= 0) return frame_count;
      auto count = ctx_.jvmti.GetFrameCount(thread);
      return count ? std::optional<int32_t>(*count) : std::nullopt;
    };
    jdwp::Location loc = ctx_.LocationOf(jni, method, location);
    jclass klass = nullptr;
    if (auto k = ctx_.jvmti.GetMethodDeclaringClass(method)) klass = *k;
    if (!requests_.Matches(jni, *step_request, thread, klass, &loc, nullptr, false, nullptr)) {
      // Filtered out (ClassExclude such as java.*): the same step goes on from
      // here, as stock (a step out waits again for this frame to pop).
      steps_.Restart(jni, step, method, location, read_frame_count().value_or(-1));
      steps_.WaitForPop(jni, step, thread);
      if (klass) jni->DeleteLocalRef(klass);
      return;
    }
    auto thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
    // `this` only for an InstanceOnly filter (a JVMTI call per step otherwise).
    const RequestTable::View& breakpoints = requests_.table().BreakpointsAt(method, location);
    const bool wants_instance =
        std::any_of(breakpoints.begin(), breakpoints.end(), [](const Request* r) { return r->HasInstanceFilter(); });
    jobject instance = wants_instance ? FrameThis(ctx_, thread, method) : nullptr;
    events.push_back(ev::SingleStep{step_request->id, thread_id, loc});
    policy = step_request->policy;
    // Breakpoints at this very location are reported in the same set (spec:
    // co-located events), after the step as stock orders them.
    for (Request* r : NewestFirst(breakpoints)) {
      if (!requests_.Matches(jni, *r, thread, klass, &loc, nullptr, false, instance)) continue;
      events.push_back(ev::Breakpoint{r->id, thread_id, loc});
      policy = std::max(policy, r->policy);
    }
    if (instance) jni->DeleteLocalRef(instance);
    t_step_place = StepPlace{method, location};
    step_reported = true;
    // The thread waits at this event: the mode stays on for a next step set meanwhile.
    if (policy != SuspendPolicy::kNone) {
      waits = true;
      ctx_.single_steps.BeginWait(jni, thread);
    }
    // The step is done: the thread runs freely until the debugger steps again.
    steps_.Restart(jni, step, method, location, read_frame_count().value_or(-1));
    if (step_request->expired) steps_.Stop(jni, step);
    if (klass) jni->DeleteLocalRef(klass);
  }();
  // The step reports this place: a hooked method's entry here goes first in its
  // composite (the breakpoint callback that follows reports nothing here).
  if (step_reported) {
    std::vector<ev::EventData> entries;
    method_events_.ReportHookedEntry(jni, thread, method, location, entries, policy);
    events.insert(events.begin(), std::make_move_iterator(entries.begin()), std::make_move_iterator(entries.end()));
  }
  // A method entry kept back for this place goes first in the step's composite;
  // kept further for a breakpoint here; otherwise alone.
  if (!t_deferred.events.empty()) {
    bool has_step = std::any_of(events.begin(), events.end(),
                                [](const ev::EventData& e) { return std::holds_alternative<ev::SingleStep>(e); });
    if (has_step || !breakpoint_here) method_events_.TakeDeferred(jni, thread, method, location, events, policy);
  }
  OrderLeadingEntries(events);
  ReportComposite(requests_, reporter_, jni, thread, std::move(events), policy);
  // Resumed: single steps of a step that ended here stop before it runs on.
  if (waits) ctx_.single_steps.EndWait(jni, thread);
}

void Stepping::OnFramePop(JNIEnv* jni, jthread thread, jmethodID, bool by_exception) {
  std::lock_guard lock(requests_.mu());
  for (Request* r : requests_.table().Steps()) {
    if (!jni->IsSameObject(r->step->thread, thread)) continue;
    if (auto count = ctx_.jvmti.GetFrameCount(thread)) steps_.FramePopped(jni, *r->step, thread, *count, by_exception);
  }
}

bool Stepping::CompletedAt(JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  if (!requests_.table().MayHaveSteps()) return false;
  std::lock_guard lock(requests_.mu());
  for (Request* r : requests_.table().Steps())
    if (jni->IsSameObject(r->step->thread, thread) && r->step->start_method == method &&
        r->step->start_location == location && r->step->frame_pop_depth < 0) {
      auto count = ctx_.jvmti.GetFrameCount(thread);
      if (count && *count == r->step->start_depth) return true;
    }
  return false;
}

bool Stepping::AfterFramesPopped(JNIEnv* jni, jthread thread) {
  std::lock_guard lock(requests_.mu());
  for (Request* r : requests_.table().Steps()) {
    if (r->expired || !jni->IsSameObject(r->step->thread, thread)) continue;
    steps_.FramesPopped(jni, *r->step, thread);
    return true;
  }
  return false;
}

}  // namespace jdwpx::backend
