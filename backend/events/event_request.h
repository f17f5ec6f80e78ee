// What the request table holds (request_table.h): one entry per
// EventRequest.Set, with its modifiers resolved, and a step request's
// progress. Internal to the event code (event_requests.cc, event_filters.cc,
// step_control.cc, stepping.cc, the callbacks).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <unordered_map>
#include <variant>
#include <vector>

#include "backend/session_slot.h"
#include "jdwp/commands/event_request.h"

namespace jdwpx::backend {

inline bool IsFieldEvent(jdwp::EventKind kind) {
  return kind == jdwp::EventKind::kFieldAccess || kind == jdwp::EventKind::kFieldModification;
}

inline bool IsMethodEvent(jdwp::EventKind kind) {
  return kind == jdwp::EventKind::kMethodEntry || kind == jdwp::EventKind::kMethodExit ||
         kind == jdwp::EventKind::kMethodExitWithReturnValue;
}

struct Request;

struct Step {
  jobject thread = nullptr;  // global
  jdwp::StepSize size = jdwp::StepSize::kLine;
  jdwp::StepDepth depth = jdwp::StepDepth::kOver;
  int32_t start_depth = 0;
  int32_t start_line = -1;
  jmethodID start_method = nullptr;
  jlocation start_location = -1;
  int32_t frame_pop_depth = -1;  // >= 0 while waiting for a callee to return
  const Request* owner = nullptr;  // the request holding this step (its class filters)
  // Stepping resumed by a frame popped by an exception: the next single step
  // (the catch block's first instruction) is not a place to stop. Stock resumes
  // there on ExceptionCatch, after the VM has chosen to dispatch the handler
  // without a single step, so its steps end one instruction later.
  bool skip_handler_entry = false;
  // Step into through a callee it may not stop in: a FramePop is asked for that
  // callee (depth start + 1), to learn when an exception leaves it.
  bool callee_armed = false;
  // Step into, inside code it may not stop in (filtered classes, no line
  // numbers): single stepping is off and MethodEntry events are on for the
  // thread alone, as stock does, until a method it may stop in is entered or
  // the frame at watch_depth (the first such callee) returns.
  bool watching_entries = false;
  int32_t watch_depth = -1;
  // Step into: whether the step may stop in a method (class filters pass and,
  // for a line step, it has line numbers), per method met deeper than the start.
  std::unordered_map<jmethodID, bool> may_stop_in;
};

struct Request {
  int32_t id = 0;
  SessionSlot session = 0;  // the debugger that set it (sessions=N): its events go there alone
  jdwp::EventKind kind{};
  jdwp::SuspendPolicy policy{};
  std::vector<jdwp::modifiers::Modifier> modifiers;
  std::vector<int32_t> counts;      // remaining Count per modifier position (0 when not a Count)
  std::vector<jobject> refs;        // global refs owned by the request (threads, classes, instances)
  std::vector<jobject> resolved;    // per modifier position: the resolved reference, or null
  bool expired = false;
  bool release_posted = false;  // an expired method request, handed to the command thread (ReleaseExpired)
  bool hooked = false;  // a method request served by the method hooks (method_hooks.h)
  // Breakpoint location
  jmethodID bp_method = nullptr;
  jlocation bp_location = 0;
  // Field watch (FieldAccess / FieldModification): the FieldOnly field.
  jclass watch_klass = nullptr;  // one of refs
  jfieldID watch_field = nullptr;
  bool watching = false;
  std::unique_ptr<Step> step;

  // An InstanceOnly filter: only then does an event need the frame's `this`
  // (a JVMTI call per event, skipped otherwise).
  bool HasInstanceFilter() const {
    return std::any_of(modifiers.begin(), modifiers.end(), [](const jdwp::modifiers::Modifier& m) {
      return std::holds_alternative<jdwp::modifiers::InstanceOnly>(m);
    });
  }
};

}  // namespace jdwpx::backend
