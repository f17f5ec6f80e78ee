// Stepping (StepRequest): where a step ends, as stock's step control decides
// it; the SingleStep and FramePop callbacks that drive it; a step's own
// JVMTI event modes (single steps, method entries, frame pops) for its thread.
#include "backend/events.h"

#include <algorithm>
#include <optional>
#include <ranges>
#include <string>
#include <utility>

#include "backend/class_names.h"
#include "backend/event_places.h"
#include "backend/event_request.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;
using jdwp::EventKind;
using jdwp::SuspendPolicy;
namespace ev = jdwp::events;
namespace mod = jdwp::modifiers;

void EventManager::StopWatchingEntries(Step& step) {
  if (!step.watching_entries) return;
  step.watching_entries = false;
  step.watch_depth = -1;
  (void)ctx_.jvmti.SetEventMode(false, JVMTI_EVENT_METHOD_ENTRY, step.thread);
}

void EventManager::SingleStepAgain(JNIEnv* jni, Step& step) {
  StopWatchingEntries(step);
  ctx_.single_steps.Want(jni, static_cast<jthread>(step.thread), SingleStepModes::kStep, true);
}

bool EventManager::CachedMayStopIn(JNIEnv* jni, Step& step, jmethodID method) {
  auto [it, fresh] = step.may_stop_in.try_emplace(method, false);
  if (fresh) it->second = StepMayStopIn(jni, step, method);
  return it->second;
}

void EventManager::StopStepping(JNIEnv* jni, Step& step) {
  StopWatchingEntries(step);
  // Left on while the thread waits at this step's event (single_step_modes.h).
  ctx_.single_steps.EndStep(jni, static_cast<jthread>(step.thread));
  step.frame_pop_depth = -1;
  step.skip_handler_entry = false;
}

// Where a step ends, as stock's step control decides it; false: keep going.
bool EventManager::StepCompletes(JNIEnv* jni, Step& step, jthread thread, jmethodID method, jlocation location,
                                 int32_t& frame_count) {
  if (step.skip_handler_entry) {
    step.skip_handler_entry = false;
    return false;
  }
  // A step into by instruction ends at the very next instruction, wherever it is.
  if (step.depth == jdwp::StepDepth::kInto && step.size == jdwp::StepSize::kMin) return true;
  auto count = ctx_.jvmti.GetFrameCount(thread);
  if (!count) return false;
  int32_t depth = *count;
  frame_count = depth;
  if (depth <= step.start_depth) step.callee_armed = false;
  if (depth < step.start_depth) return true;  // returned (or unwound) into a caller
  if (depth > step.start_depth) {
    if (step.depth == jdwp::StepDepth::kInto) {
      if (CachedMayStopIn(jni, step, method)) return true;
      // A callee it may not stop in (a filtered class, no line numbers): it runs
      // without single steps; it may call code to stop in, such as a lambda
      // body called by java.util, met by MethodEntry events (OnMethodEntry), or
      // return, met by a FramePop (OnFramePop).
      jvmtiError e = ctx_.jvmti.raw()->NotifyFramePop(thread, 0);
      if (e == JVMTI_ERROR_NONE || e == JVMTI_ERROR_DUPLICATE) {
        if (depth == step.start_depth + 1) step.callee_armed = true;
        step.watching_entries = true;
        step.watch_depth = depth;
        ctx_.single_steps.Want(jni, thread, SingleStepModes::kStep, false);
        (void)ctx_.jvmti.SetEventMode(true, JVMTI_EVENT_METHOD_ENTRY, thread);
      }
      return false;
    }
    // Over or out: the callee runs at full speed until it returns.
    jvmtiError e = ctx_.jvmti.raw()->NotifyFramePop(thread, 0);
    if (e == JVMTI_ERROR_NONE || e == JVMTI_ERROR_DUPLICATE) {
      step.frame_pop_depth = depth;
      ctx_.single_steps.Want(jni, thread, SingleStepModes::kStep, false);
    }
    return false;
  }
  // Same depth.
  if (step.depth == jdwp::StepDepth::kOut) return false;
  if (step.size == jdwp::StepSize::kMin) return true;
  // From a place without line numbers, as stock: an obsolete method too (StepLineOf),
  // so a line step there ends at its next instruction, as a MIN step (JDWP's StepRequest).
  if (step.start_line == -1) return true;
  // Another method in the same frame (its class was redefined since the step began: the
  // old code, now obsolete and without lines, runs on) is another line: the step ends.
  int32_t line = method == step.start_method ? ctx_.StepLineOf(jni, method, location) : -1;
  return line != step.start_line;
}

bool EventManager::StepMayStopIn(JNIEnv* jni, Step& step, jmethodID method) {
  // A line step stops only where there are lines: none in an obsolete method (as stock).
  if (step.size == jdwp::StepSize::kLine &&
      (ctx_.LineTable(method)->empty() || ctx_.jvmti.IsMethodObsolete(method).value_or(false)))
    return false;
  if (!step.owner) return true;
  jclass klass = nullptr;
  if (auto k = ctx_.jvmti.GetMethodDeclaringClass(method)) klass = *k;
  if (!klass) return true;
  // The request's class filters, as stock predicts them from the class alone.
  bool pass = true;
  std::string name;
  const Request& r = *step.owner;
  for (size_t i = 0; i < r.modifiers.size() && pass; ++i) {
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, mod::ClassOnly>) {
            pass = r.resolved[i] && jni->IsAssignableFrom(klass, static_cast<jclass>(r.resolved[i]));
          } else if constexpr (std::is_same_v<T, mod::ClassMatch> || std::is_same_v<T, mod::ClassExclude>) {
            if (name.empty()) name = ClassNameOf(klass);
            bool match = PatternMatches(x.class_pattern, name);
            pass = std::is_same_v<T, mod::ClassMatch> ? match : !match;
          }
        },
        r.modifiers[i]);
  }
  jni->DeleteLocalRef(klass);
  return pass;
}

void EventManager::OnSingleStep(JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  ReportUnloads(jni, thread);
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  if (!t_deferred.events.empty() && (t_deferred.method != method || t_deferred.location != location))
    TakeDeferred(jni, thread, nullptr, -1, events, policy);
  bool breakpoint_here = false;
  bool step_reported = false;
  bool waits = false;  // at the step's event: single_steps.BeginWait
  [&] {
    std::lock_guard lock(mu_);
    breakpoint_here = UserBreakpointAt(method, location) || hooks_.BreakpointAt(method, location);
    Request* step_request = nullptr;
    for (Request* r : requests_.Steps())
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
    if (!StepCompletes(jni, step, thread, method, location, frame_count)) return;
    auto read_frame_count = [&]() -> std::optional<int32_t> {
      if (frame_count >= 0) return frame_count;
      auto count = ctx_.jvmti.GetFrameCount(thread);
      return count ? std::optional<int32_t>(*count) : std::nullopt;
    };
    jdwp::Location loc = ctx_.LocationOf(jni, method, location);
    jclass klass = nullptr;
    if (auto k = ctx_.jvmti.GetMethodDeclaringClass(method)) klass = *k;
    if (!Matches(jni, *step_request, thread, klass, &loc, nullptr, false, nullptr)) {
      // Filtered out (ClassExclude such as java.*): the same step goes on from
      // here, as stock (a step out waits again for this frame to pop).
      if (auto count = read_frame_count()) step.start_depth = *count;
      step.start_method = method;
      step.start_location = location;
      step.start_line = ctx_.StepLineOf(jni, method, location);
      if (step.depth == jdwp::StepDepth::kOut && step.start_depth > 0) {
        jvmtiError e = ctx_.jvmti.raw()->NotifyFramePop(thread, 0);
        if (e == JVMTI_ERROR_NONE || e == JVMTI_ERROR_DUPLICATE) {
          step.frame_pop_depth = step.start_depth;
          ctx_.single_steps.Want(jni, thread, SingleStepModes::kStep, false);
        }
      }
      if (klass) jni->DeleteLocalRef(klass);
      return;
    }
    auto thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
    // `this` only for an InstanceOnly filter (a JVMTI call per step otherwise).
    const RequestTable::View& breakpoints = requests_.BreakpointsAt(method, location);
    const bool wants_instance =
        std::any_of(breakpoints.begin(), breakpoints.end(), [](const Request* r) { return r->HasInstanceFilter(); });
    jobject instance = wants_instance ? FrameThis(thread, method) : nullptr;
    events.push_back(ev::SingleStep{step_request->id, thread_id, loc});
    policy = step_request->policy;
    // Breakpoints at this very location are reported in the same set (spec:
    // co-located events), after the step as stock orders them.
    for (Request* r : NewestFirst(breakpoints)) {
      if (!Matches(jni, *r, thread, klass, &loc, nullptr, false, instance)) continue;
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
    step.start_method = method;
    step.start_location = location;
    step.start_line = ctx_.StepLineOf(jni, method, location);
    if (auto count = read_frame_count()) step.start_depth = *count;
    if (step_request->expired) StopStepping(jni, step);
    if (klass) jni->DeleteLocalRef(klass);
  }();
  // The step reports this place: a hooked method's entry here goes first in its
  // composite (the breakpoint callback that follows reports nothing here).
  if (step_reported) {
    std::vector<ev::EventData> entries;
    ReportHookedEntry(jni, thread, method, location, entries, policy);
    events.insert(events.begin(), std::make_move_iterator(entries.begin()), std::make_move_iterator(entries.end()));
  }
  // A method entry kept back for this place goes first in the step's composite;
  // kept further for a breakpoint here; otherwise alone.
  if (!t_deferred.events.empty()) {
    bool has_step = std::any_of(events.begin(), events.end(),
                                [](const ev::EventData& e) { return std::holds_alternative<ev::SingleStep>(e); });
    if (has_step || !breakpoint_here) TakeDeferred(jni, thread, method, location, events, policy);
  }
  OrderLeadingEntries(events);
  Report(jni, thread, std::move(events), policy);
  // Resumed: single steps of a step that ended here stop before it runs on.
  if (waits) ctx_.single_steps.EndWait(jni, thread);
}

void EventManager::OnFramePop(JNIEnv* jni, jthread thread, jmethodID, bool by_exception) {
  std::lock_guard lock(mu_);
  for (Request* r : requests_.Steps()) {
    if (!jni->IsSameObject(r->step->thread, thread)) continue;
    Step& step = *r->step;
    auto count = ctx_.jvmti.GetFrameCount(thread);
    if (!count) continue;
    if (step.frame_pop_depth < 0) {
      // Step into: the code it may not stop in returns (or an exception leaves
      // it): single steps again from the next instruction in its caller; a
      // handler's first instruction is skipped as when stepping resumes below.
      if (step.watching_entries && *count <= step.watch_depth) SingleStepAgain(jni, step);
      if (by_exception && step.callee_armed && *count == step.start_depth + 1) step.skip_handler_entry = true;
      continue;
    }
    // The frame waited for (a callee stepped over, or the frame stepped out of)
    // is leaving: step again from the next instruction in its caller.
    if (*count <= step.frame_pop_depth) {
      step.frame_pop_depth = -1;
      step.skip_handler_entry = by_exception;
      ctx_.single_steps.Want(jni, thread, SingleStepModes::kStep, true);
    }
  }
}

bool EventManager::AfterFramesPopped(JNIEnv* jni, jthread thread) {
  hooks_.FramesPopped(jni, thread);
  std::lock_guard lock(mu_);
  for (Request* r : requests_.Steps()) {
    if (r->expired || !jni->IsSameObject(r->step->thread, thread)) continue;
    Step& step = *r->step;
    step.frame_pop_depth = -1;
    step.skip_handler_entry = false;
    step.callee_armed = false;
    StopWatchingEntries(step);
    ctx_.single_steps.Want(jni, thread, SingleStepModes::kStep, true);
    if (auto count = ctx_.jvmti.GetFrameCount(thread)) step.start_depth = *count;
    if (auto top = ctx_.jvmti.GetFrameLocation(thread, 0)) {
      step.start_method = top->first;
      step.start_location = top->second;
      step.start_line = ctx_.StepLineOf(jni, top->first, top->second);
    }
    return true;
  }
  return false;
}

}  // namespace jdwpx::backend
