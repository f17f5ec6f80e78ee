// StepControl (step_control.h): where a step ends, as stock's step control
// decides it, and what a step asks of the VM for its thread.
#include "backend/events/step_control.h"

#include <chrono>
#include <string>
#include <utility>

#include "backend/ids/class_names.h"
#include "backend/errors.h"
#include "backend/events/event_facts.h"

namespace jdwpx::backend {

namespace mod = jdwp::modifiers;
using jdwp::ErrorCode;

jdwp::Result<std::unique_ptr<Step>> StepControl::Start(JNIEnv* jni, const mod::Step& modifier, jthread& held) {
  auto t = ctx_.Thread(jni, modifier.thread, ThreadNeeds::kAlive);
  if (!t) return tl::unexpected(t.error());
  // As stock: a thread that has not started or has ended has no step (INVALID_THREAD).
  auto state = ctx_.jvmti.GetThreadState(*t);
  if (!state || (*state & JVMTI_THREAD_STATE_ALIVE) == 0)
    return jdwp::Fail(ErrorCode::kInvalidThread, "step thread not alive");
  // A step out asks for a frame pop, which JVMTI takes of a suspended
  // thread only: a thread parked at its event gets its JVMTI suspension
  // now (session.cc leaves it pending for a request's Set).
  if (modifier.depth == jdwp::StepDepth::kOut) ctx_.threads.ApplyPendingSuspensions();
  // As stock: a running thread is suspended while its step starts
  // (where it is, and single steps on), then resumed.
  // (Not held by any session: the agent's own hold, in slot 0, is let go in
  // the same command: EventRequests::Set's ResumeHeld.)
  if (!ctx_.threads.SuspendedByAny(jni, *t) && ctx_.threads.Suspend(jni, *t, SessionSlot{0})) {
    held = static_cast<jthread>(jni->NewGlobalRef(*t));
    (void)ctx_.threads.WaitUntilSuspended(jni, *t, std::chrono::seconds(5));
  }
  auto count = ctx_.jvmti.GetFrameCount(*t);
  if (!count) return tl::unexpected(FromVm(count.error()));
  auto step = std::make_unique<Step>();
  step->thread = jni->NewGlobalRef(*t);
  step->size = modifier.size;
  step->depth = modifier.depth;
  step->start_depth = *count;
  if (*count > 0) {
    if (auto loc = ctx_.jvmti.GetFrameLocation(*t, 0)) {
      step->start_method = loc->first;
      step->start_location = loc->second;
      step->start_line = ctx_.StepLineOf(jni, loc->first, loc->second);
    }
  }
  return step;
}

void StepControl::Arm(JNIEnv* jni, Step& step) {
  // Step out, as stock: the frame runs at full speed; stepping starts when it pops.
  bool armed = false;
  if (step.depth == jdwp::StepDepth::kOut && step.start_depth > 0) {
    jvmtiError e = ctx_.jvmti.raw()->NotifyFramePop(step.thread, 0);
    if (e == JVMTI_ERROR_NONE || e == JVMTI_ERROR_DUPLICATE) {
      step.frame_pop_depth = step.start_depth;
      armed = true;
    }
  }
  ctx_.single_steps.BeginStep(jni, static_cast<jthread>(step.thread), step.owner->session, !armed);
}

void StepControl::StopWatchingEntries(Step& step) {
  if (!step.watching_entries) return;
  step.watching_entries = false;
  step.watch_depth = -1;
  (void)ctx_.jvmti.SetEventMode(false, JVMTI_EVENT_METHOD_ENTRY, step.thread);
}

void StepControl::SingleStepAgain(JNIEnv* jni, Step& step) {
  StopWatchingEntries(step);
  ctx_.single_steps.Want(jni, static_cast<jthread>(step.thread), SingleStepModes::StepOf(step.owner->session), true);
}

bool StepControl::CachedMayStopIn(JNIEnv* jni, Step& step, jmethodID method) {
  auto [it, fresh] = step.may_stop_in.try_emplace(method, false);
  if (fresh) it->second = MayStopIn(jni, step, method);
  return it->second;
}

void StepControl::Stop(JNIEnv* jni, Step& step) {
  StopWatchingEntries(step);
  // Left on while the thread waits at this step's event (single_step_modes.h).
  ctx_.single_steps.EndStep(jni, static_cast<jthread>(step.thread), step.owner->session);
  step.frame_pop_depth = -1;
  step.skip_handler_entry = false;
}

bool StepControl::Completes(JNIEnv* jni, Step& step, jthread thread, jmethodID method, jlocation location,
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
      // body called by java.util, met by MethodEntry events (MethodEntered), or
      // return, met by a FramePop (FramePopped).
      jvmtiError e = ctx_.jvmti.raw()->NotifyFramePop(thread, 0);
      if (e == JVMTI_ERROR_NONE || e == JVMTI_ERROR_DUPLICATE) {
        if (depth == step.start_depth + 1) step.callee_armed = true;
        step.watching_entries = true;
        step.watch_depth = depth;
        ctx_.single_steps.Want(jni, thread, SingleStepModes::StepOf(step.owner->session), false);
        (void)ctx_.jvmti.SetEventMode(true, JVMTI_EVENT_METHOD_ENTRY, thread);
      }
      return false;
    }
    // Over or out: the callee runs at full speed until it returns.
    jvmtiError e = ctx_.jvmti.raw()->NotifyFramePop(thread, 0);
    if (e == JVMTI_ERROR_NONE || e == JVMTI_ERROR_DUPLICATE) {
      step.frame_pop_depth = depth;
      ctx_.single_steps.Want(jni, thread, SingleStepModes::StepOf(step.owner->session), false);
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

bool StepControl::MayStopIn(JNIEnv* jni, Step& step, jmethodID method) {
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
            if (name.empty()) name = ClassNameOf(ctx_, klass);
            bool match = PatternMatches(x.class_pattern, name);
            pass = std::is_same_v<T, mod::ClassMatch> ? match : !match;
          }
        },
        r.modifiers[i]);
  }
  jni->DeleteLocalRef(klass);
  return pass;
}

void StepControl::Restart(JNIEnv* jni, Step& step, jmethodID method, jlocation location, int32_t depth) {
  if (depth >= 0) step.start_depth = depth;
  step.start_method = method;
  step.start_location = location;
  step.start_line = ctx_.StepLineOf(jni, method, location);
}

void StepControl::WaitForPop(JNIEnv* jni, Step& step, jthread thread) {
  if (step.depth != jdwp::StepDepth::kOut || step.start_depth <= 0) return;
  jvmtiError e = ctx_.jvmti.raw()->NotifyFramePop(thread, 0);
  if (e == JVMTI_ERROR_NONE || e == JVMTI_ERROR_DUPLICATE) {
    step.frame_pop_depth = step.start_depth;
    ctx_.single_steps.Want(jni, thread, SingleStepModes::StepOf(step.owner->session), false);
  }
}

void StepControl::FramePopped(JNIEnv* jni, Step& step, jthread thread, int32_t depth, bool by_exception) {
  if (step.frame_pop_depth < 0) {
    // Step into: the code it may not stop in returns (or an exception leaves
    // it): single steps again from the next instruction in its caller; a
    // handler's first instruction is skipped as when stepping resumes below.
    if (step.watching_entries && depth <= step.watch_depth) SingleStepAgain(jni, step);
    if (by_exception && step.callee_armed && depth == step.start_depth + 1) step.skip_handler_entry = true;
    return;
  }
  // The frame waited for (a callee stepped over, or the frame stepped out of)
  // is leaving: step again from the next instruction in its caller.
  if (depth <= step.frame_pop_depth) {
    step.frame_pop_depth = -1;
    step.skip_handler_entry = by_exception;
    ctx_.single_steps.Want(jni, thread, SingleStepModes::StepOf(step.owner->session), true);
  }
}

void StepControl::MethodEntered(JNIEnv* jni, Step& step, jmethodID method) {
  // A step into, in code it may not stop in, enters a method it may stop in:
  // single steps again; the step ends at this method's first instruction.
  if (CachedMayStopIn(jni, step, method)) SingleStepAgain(jni, step);
}

void StepControl::FramesPopped(JNIEnv* jni, Step& step, jthread thread) {
  step.frame_pop_depth = -1;
  step.skip_handler_entry = false;
  step.callee_armed = false;
  StopWatchingEntries(step);
  ctx_.single_steps.Want(jni, thread, SingleStepModes::StepOf(step.owner->session), true);
  if (auto count = ctx_.jvmti.GetFrameCount(thread)) step.start_depth = *count;
  if (auto top = ctx_.jvmti.GetFrameLocation(thread, 0)) {
    step.start_method = top->first;
    step.start_location = top->second;
    step.start_line = ctx_.StepLineOf(jni, top->first, top->second);
  }
}

}  // namespace jdwpx::backend
