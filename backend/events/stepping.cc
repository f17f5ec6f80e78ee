// Stepping (stepping.h): the SingleStep and FramePop callbacks that drive the
// step requests; where a step ends: StepControl (step_control.cc).
#include "backend/events/stepping.h"

#include <algorithm>
#include <array>
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
  Answers answers;
  if (!t_deferred.events.empty() && (t_deferred.method != method || t_deferred.location != location))
    method_events_.TakeDeferred(jni, thread, nullptr, -1, events, answers);
  bool breakpoint_here = false;
  bool step_reported = false;
  bool waits = false;  // at the step's event: single_steps.BeginWait
  [&] {
    std::lock_guard lock(requests_.mu());
    breakpoint_here = requests_.UserBreakpointAt(method, location) || requests_.hooks().BreakpointAt(method, location);
    bool stepping = false;
    // What the events read of the place: once, for the first step that reports here.
    jdwp::Location loc{};
    jclass klass = nullptr;
    bool place_read = false;
    jdwp::ThreadId thread_id{};
    // The steps that reported here, with the frame count their check read (-1: none).
    std::array<std::pair<Request*, int32_t>, kMaxSessions> reported{};
    size_t reported_count = 0;
    // One step per thread and session (sessions=N): each goes its own way.
    for (Request* step_request : requests_.table().Steps()) {
      if (!jni->IsSameObject(step_request->step->thread, thread)) continue;
      stepping = true;
      if (step_request->expired || step_request->step->frame_pop_depth >= 0) continue;
      Step& step = *step_request->step;
      // The thread's frame count, once StepCompletes has read it (-1: not read).
      int32_t frame_count = -1;
      if (!steps_.Completes(jni, step, thread, method, location, frame_count)) continue;
      auto read_frame_count = [&]() -> std::optional<int32_t> {
        if (frame_count >= 0) return frame_count;
        auto count = ctx_.jvmti.GetFrameCount(thread);
        return count ? std::optional<int32_t>(*count) : std::nullopt;
      };
      if (!place_read) {
        place_read = true;
        loc = ctx_.LocationOf(jni, method, location);
        if (auto k = ctx_.jvmti.GetMethodDeclaringClass(method)) klass = *k;
      }
      if (!requests_.Matches(jni, *step_request, thread, klass, &loc, nullptr, false, nullptr)) {
        // Filtered out (ClassExclude such as java.*): the same step goes on from
        // here, as stock (a step out waits again for this frame to pop).
        steps_.Restart(jni, step, method, location, read_frame_count().value_or(-1));
        steps_.WaitForPop(jni, step, thread);
        continue;
      }
      if (thread_id.is_null()) thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
      events.push_back(ev::SingleStep{step_request->id, thread_id, loc});
      answers.Add(*step_request);
      step_reported = true;
      if (reported_count < reported.size()) reported[reported_count++] = {step_request, frame_count};
    }
    // Left on by a step that ended while this thread waited (it runs an invoke meanwhile).
    if (!stepping) ctx_.single_steps.DropLinger(jni, thread);
    if (step_reported) {
      // `this` only for an InstanceOnly filter (a JVMTI call per step otherwise).
      const RequestTable::View& breakpoints = requests_.table().BreakpointsAt(method, location);
      const bool wants_instance =
          std::any_of(breakpoints.begin(), breakpoints.end(), [](const Request* r) { return r->HasInstanceFilter(); });
      jobject instance = wants_instance ? FrameThis(ctx_, thread, method) : nullptr;
      // Breakpoints at this very location are reported in the same set (spec:
      // co-located events), after the step as stock orders them.
      for (Request* r : NewestFirst(breakpoints)) {
        if (!requests_.Matches(jni, *r, thread, klass, &loc, nullptr, false, instance)) continue;
        events.push_back(ev::Breakpoint{r->id, thread_id, loc});
        answers.Add(*r);
      }
      if (instance) jni->DeleteLocalRef(instance);
      t_step_place = StepPlace{method, location};
      // The thread waits at this event: the mode stays on for a next step set meanwhile.
      if (answers.policy() != SuspendPolicy::kNone) {
        waits = true;
        ctx_.single_steps.BeginWait(jni, thread);
      }
    }
    // The steps are done: the thread runs freely until the debugger steps again.
    for (size_t i = 0; i < reported_count; ++i) {
      auto [step_request, frame_count] = reported[i];
      if (frame_count < 0) {
        if (auto count = ctx_.jvmti.GetFrameCount(thread)) frame_count = *count;
      }
      steps_.Restart(jni, *step_request->step, method, location, frame_count);
      if (step_request->expired) steps_.Stop(jni, *step_request->step);
    }
    if (klass) jni->DeleteLocalRef(klass);
  }();
  // The step reports this place: a hooked method's entry here goes first in its
  // composite (the breakpoint callback that follows reports nothing here).
  if (step_reported) {
    std::vector<ev::EventData> entries;
    method_events_.ReportHookedEntry(jni, thread, method, location, entries, answers);
    events.insert(events.begin(), std::make_move_iterator(entries.begin()), std::make_move_iterator(entries.end()));
  }
  // A method entry kept back for this place goes first in the step's composite;
  // kept further for a breakpoint here; otherwise alone.
  if (!t_deferred.events.empty()) {
    bool has_step = std::any_of(events.begin(), events.end(),
                                [](const ev::EventData& e) { return std::holds_alternative<ev::SingleStep>(e); });
    if (has_step || !breakpoint_here) method_events_.TakeDeferred(jni, thread, method, location, events, answers);
  }
  OrderLeadingEntries(events);
  ReportComposite(requests_, reporter_, jni, thread, std::move(events), answers);
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
  bool stepping = false;
  for (Request* r : requests_.table().Steps()) {
    if (r->expired || !jni->IsSameObject(r->step->thread, thread)) continue;
    steps_.FramesPopped(jni, *r->step, thread);  // each session's step on it
    stepping = true;
  }
  return stepping;
}

}  // namespace jdwpx::backend
