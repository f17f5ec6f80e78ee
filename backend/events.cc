#include "backend/events.h"

#include <algorithm>
#include <chrono>
#include <ranges>
#include <utility>
#include <unordered_map>

#include "backend/class_names.h"
#include "backend/errors.h"
#include "backend/log.h"
#include "backend/request_rules.h"
#include "backend/values.h"
#include "backend/wire_string.h"
#include "jdwp/codec.h"
#include "jdwp/packet.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;
using jdwp::EventKind;
using jdwp::SuspendPolicy;
namespace ev = jdwp::events;
namespace mod = jdwp::modifiers;

struct EventManager::Step {
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

struct EventManager::Request {
  int32_t id = 0;
  EventKind kind{};
  SuspendPolicy policy{};
  std::vector<mod::Modifier> modifiers;
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
};

struct EventManager::Item {
  std::vector<uint8_t> packet;  // empty: nothing to send
  SuspendPolicy policy = SuspendPolicy::kNone;
  jobject thread = nullptr;      // global ref, event thread (may be null)
  bool resuspend_after_invoke = false;
  // A SUSPEND_ALL composite (but VMStart: stock reports it apart): once sent,
  // the events after it wait for a resume (events.h).
  bool blocks_events = false;
  void* deferred_token = nullptr;  // apply a deferred suspension (ThreadControl state)
  uint64_t epoch = 0;
  // Completion signal for a waiting event thread.
  std::mutex* done_mu = nullptr;
  std::condition_variable* done_cv = nullptr;
  bool* done = nullptr;
};

namespace {

// Events a callback kept back for a breakpoint (or a step) at the same place, so
// that they reach the debugger in one composite, as stock sends them. Callbacks
// run on the event's own thread, so the place to keep them is thread-local.
struct Deferred {
  jmethodID method = nullptr;
  jlocation location = -1;
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  uint64_t epoch = 0;
};
thread_local Deferred t_deferred;

// Where this thread's last step completed: a breakpoint there fires right
// after the step's report (which already carried it, or was before it was set)
// and is not reported again, as stock.
struct StepPlace {
  jmethodID method = nullptr;
  jlocation location = -1;
};
thread_local StepPlace t_step_place;

// JNI calls from a callback may run Java code whose own method events would
// re-enter the event manager (and its lock) on this thread: they are not reported.
thread_local bool t_in_method_event = false;

struct ReentryGuard {
  bool entered;
  ReentryGuard() : entered(!t_in_method_event) { t_in_method_event = true; }
  ~ReentryGuard() {
    if (entered) t_in_method_event = false;
  }
  // Around a Report, which may park the thread: an InvokeMethod run meanwhile
  // runs the debugger's code, whose method events are reported.
  template <class Fn>
  void Outside(Fn fn) {
    if (entered) t_in_method_event = false;
    fn();
    if (entered) t_in_method_event = true;
  }
};

bool IsFieldEvent(EventKind kind) {
  return kind == EventKind::kFieldAccess || kind == EventKind::kFieldModification;
}

bool IsMethodEvent(EventKind kind) {
  return kind == EventKind::kMethodEntry || kind == EventKind::kMethodExit ||
         kind == EventKind::kMethodExitWithReturnValue;
}

bool IsMethodEntry(const ev::EventData& e) { return std::holds_alternative<ev::MethodEntry>(e); }

// The MethodEntry events at the front of a composite, the newest request first
// (as stock lists several requests' events of one place), whichever way each came.
void OrderLeadingEntries(std::vector<ev::EventData>& events) {
  auto end = std::find_if_not(events.begin(), events.end(), IsMethodEntry);
  std::stable_sort(events.begin(), end, [](const ev::EventData& a, const ev::EventData& b) {
    return std::get<ev::MethodEntry>(a).request_id > std::get<ev::MethodEntry>(b).request_id;
  });
}

}  // namespace

EventManager::EventManager(Context& ctx) : ctx_(ctx), hooks_(ctx) {}
EventManager::~EventManager() = default;

jobject EventManager::FrameThis(jthread thread, jmethodID method) {
  // As stock: the `this` of a non-static method's top frame (null when static
  // or unreadable), a native frame's too: its receiver, which GetLocalInstance
  // reads where slot 0 (GetLocalObject) is opaque.
  auto modifiers = ctx_.jvmti.GetMethodModifiers(method);
  if (!modifiers || (*modifiers & 0x0008) != 0) return nullptr;
  auto self = ctx_.jvmti.GetLocalInstance(thread, 0);
  return self ? *self : nullptr;
}

std::string EventManager::ClassNameOf(jclass klass) {
  auto sig = ctx_.jvmti.GetClassSignature(klass);
  // Patterns come from the debugger: compare in the wire's encoding.
  return sig ? DottedName(ToWireString(sig->signature)) : std::string();
}

// ---- requests ---------------------------------------------------------------

// The JVMTI capability an event kind cannot do without, when not granted (only
// ever so after a late attach); nullptr when the kind can be requested.
const char* EventManager::MissingCapability(EventKind kind) {
  auto granted = ctx_.jvmti.GetCapabilities();
  if (!granted) return nullptr;
  const jvmtiCapabilities& g = *granted;
  switch (kind) {
    case EventKind::kSingleStep: return g.can_generate_single_step_events ? nullptr : "can_generate_single_step_events";
    case EventKind::kBreakpoint: return g.can_generate_breakpoint_events ? nullptr : "can_generate_breakpoint_events";
    // Exception requests are accepted although they never fire (Set warns once):
    // JDWP has no capability bit for them, so no JDI client can know to not ask,
    // and every one asks at attach (jdb: uncaught Throwable) and dies of any
    // error there (tried: NOT_IMPLEMENTED -> UnsupportedOperationException ->
    // jdb's "Internal exception" before its first prompt).
    case EventKind::kFieldAccess:
      return g.can_generate_field_access_events ? nullptr : "can_generate_field_access_events";
    case EventKind::kFieldModification:
      return g.can_generate_field_modification_events ? nullptr : "can_generate_field_modification_events";
    case EventKind::kMethodEntry:
      return g.can_generate_method_entry_events ? nullptr : "can_generate_method_entry_events";
    case EventKind::kMethodExit:
    case EventKind::kMethodExitWithReturnValue:
      return g.can_generate_method_exit_events ? nullptr : "can_generate_method_exit_events";
    case EventKind::kMonitorContendedEnter:
    case EventKind::kMonitorContendedEntered:
    case EventKind::kMonitorWait:
    case EventKind::kMonitorWaited:
      return g.can_generate_monitor_events ? nullptr : "can_generate_monitor_events";
    default:
      return nullptr;
  }
}

void EventManager::WarnIfExceptionsCannotFire() {
  static std::atomic<bool> warned{false};
  auto granted = ctx_.jvmti.GetCapabilities();
  if (!granted || granted->can_generate_exception_events || warned.exchange(true)) return;
  Log().warn("Exception requests are accepted but never fire: this JVM did not grant "
             "can_generate_exception_events (jdwpx was loaded into a running JVM)");
}

jdwp::Result<int32_t> EventManager::Set(JNIEnv* jni, const jdwp::EventRequest::Set::Request& req) {
  switch (SupportOf(req.event_kind)) {
    case KindSupport::kRequest:
      break;
    case KindSupport::kVmStart: {
      // As stock: the VM has started, so a VMStart request is accepted with an
      // ID (its filters unread) and never reports anything.
      std::lock_guard lock(mu_);
      return next_request_id_++;
    }
    case KindSupport::kInvalid:
      return jdwp::Fail(ErrorCode::kInvalidEventType, "an event kind stock takes no request for");
  }
  if (static_cast<uint8_t>(req.suspend_policy) > 2) return jdwp::Fail(ErrorCode::kIllegalArgument, "bad suspend policy");
  if (const char* missing = MissingCapability(req.event_kind)) {
    // A late attach: the JVM grants a running agent no breakpoints, steps...
    return jdwp::Fail(ErrorCode::kNotImplemented, std::string("the JVM did not grant ") + missing);
  }
  if (req.event_kind == EventKind::kException) WarnIfExceptionsCannotFire();

  auto r = std::make_unique<Request>();
  r->kind = req.event_kind;
  r->policy = req.suspend_policy;
  r->modifiers = req.modifiers;
  r->counts.assign(req.modifiers.size(), 0);
  r->resolved.assign(req.modifiers.size(), nullptr);
  // A running thread suspended for its step's start (below): resumed when Set returns.
  jthread step_thread_held = nullptr;
  struct ResumeHeld {
    EventManager* self;
    JNIEnv* jni;
    jthread* thread;
    ~ResumeHeld() {
      if (!*thread) return;
      (void)self->ctx_.threads.Resume(jni, *thread);
      jni->DeleteGlobalRef(*thread);
    }
  } resume_held{this, jni, &step_thread_held};
  auto own = [&](jobject local) {
    jobject g = jni->NewGlobalRef(local);
    r->refs.push_back(g);
    return g;
  };
  auto cleanup = [&] {
    for (jobject g : r->refs) jni->DeleteGlobalRef(g);
    if (r->step && r->step->thread) jni->DeleteGlobalRef(r->step->thread);
  };

  for (size_t i = 0; i < req.modifiers.size(); ++i) {
    const auto& m = req.modifiers[i];
    jdwp::Result<void> status;
    // As stock: a modifier's IDs are checked as it is read, then whether the
    // kind takes it (LocationOnly's method is ours to check: after).
    const bool allowed = ModifierAllowed(r->kind, m, ctx_.jdk_feature_version);
    const bool ids_first = std::holds_alternative<mod::ThreadOnly>(m) || std::holds_alternative<mod::ClassOnly>(m) ||
                           std::holds_alternative<mod::ExceptionOnly>(m) || std::holds_alternative<mod::FieldOnly>(m) ||
                           std::holds_alternative<mod::InstanceOnly>(m) || std::holds_alternative<mod::Step>(m);
    if (!allowed && !ids_first) {
      cleanup();
      return jdwp::Fail(ErrorCode::kIllegalArgument, "modifier not taken by this event kind");
    }
    std::visit(
        [&](const auto& x) {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, mod::Count>) {
            if (x.count <= 0) status = jdwp::Fail(ErrorCode::kInvalidCount, "count must be positive");
            r->counts[i] = x.count;
          } else if constexpr (std::is_same_v<T, mod::ThreadOnly>) {
            auto t = ctx_.Thread(jni, x.thread);
            if (!t) { status = tl::unexpected(t.error()); return; }
            r->resolved[i] = own(*t);
          } else if constexpr (std::is_same_v<T, mod::ClassOnly>) {
            auto c = ctx_.Class(jni, x.clazz);
            if (!c) { status = tl::unexpected(c.error()); return; }
            r->resolved[i] = own(*c);
          } else if constexpr (std::is_same_v<T, mod::ExceptionOnly>) {
            if (!x.exception_or_null.is_null()) {
              auto c = ctx_.Class(jni, x.exception_or_null);
              if (!c) { status = tl::unexpected(c.error()); return; }
              r->resolved[i] = own(*c);
            }
          } else if constexpr (std::is_same_v<T, mod::InstanceOnly>) {
            auto o = ctx_.Object(jni, x.instance);
            if (!o) { status = tl::unexpected(o.error()); return; }
            if (*o) r->resolved[i] = own(*o);
          } else if constexpr (std::is_same_v<T, mod::LocationOnly>) {
            auto m2 = ctx_.Method(x.loc.method_id);
            if (!m2) { status = tl::unexpected(m2.error()); return; }
            if (r->kind == EventKind::kBreakpoint) {
              r->bp_method = *m2;
              r->bp_location = static_cast<jlocation>(x.loc.index);
            }
          } else if constexpr (std::is_same_v<T, mod::FieldOnly>) {
            auto c = ctx_.Class(jni, x.declaring);
            if (!c) { status = tl::unexpected(c.error()); return; }
            auto f = ctx_.Field(x.field_id);
            if (!f) { status = tl::unexpected(f.error()); return; }
            r->resolved[i] = own(*c);
            if (IsFieldEvent(r->kind)) {
              r->watch_klass = static_cast<jclass>(r->resolved[i]);
              r->watch_field = *f;
            }
          } else if constexpr (std::is_same_v<T, mod::SourceNameMatch>) {
            // As stock: a filter on the prepared class only.
            if (r->kind != EventKind::kClassPrepare)
              status = jdwp::Fail(ErrorCode::kIllegalArgument, "SourceNameMatch is for ClassPrepare only");
          } else if constexpr (std::is_same_v<T, mod::Step>) {
            if (r->kind != EventKind::kSingleStep) return;
            auto t = ctx_.Thread(jni, x.thread, ThreadNeeds::kAlive);
            if (!t) { status = tl::unexpected(t.error()); return; }
            // As stock: a thread that has not started or has ended has no step (INVALID_THREAD).
            auto state = ctx_.jvmti.GetThreadState(*t);
            if (!state || (*state & JVMTI_THREAD_STATE_ALIVE) == 0)
              { status = jdwp::Fail(ErrorCode::kInvalidThread, "step thread not alive"); return; }
            // As stock: a running thread is suspended while its step starts
            // (where it is, and single steps on), then resumed.
            if (ctx_.threads.SuspendCount(jni, *t) == 0 && ctx_.threads.Suspend(jni, *t)) {
              step_thread_held = static_cast<jthread>(jni->NewGlobalRef(*t));
              (void)ctx_.threads.WaitUntilSuspended(jni, *t, std::chrono::seconds(5));
            }
            auto step = std::make_unique<Step>();
            step->thread = jni->NewGlobalRef(*t);
            step->size = x.size;
            step->depth = x.depth;
            auto count = ctx_.jvmti.GetFrameCount(*t);
            if (!count) { status = tl::unexpected(FromVm(count.error())); return; }
            step->start_depth = *count;
            if (*count > 0) {
              auto loc = ctx_.jvmti.GetFrameLocation(*t, 0);
              if (loc) {
                step->start_method = loc->first;
                step->start_location = loc->second;
                step->start_line = ctx_.StepLineOf(jni, loc->first, loc->second);
              }
            }
            r->step = std::move(step);
          }
        },
        m);
    if (!status) {
      cleanup();
      return tl::unexpected(status.error());
    }
    if (!allowed) {
      cleanup();
      return jdwp::Fail(ErrorCode::kIllegalArgument, "modifier not taken by this event kind");
    }
  }
  if (r->kind == EventKind::kBreakpoint && !r->bp_method) {
    cleanup();
    return jdwp::Fail(ErrorCode::kIllegalArgument, "breakpoint without LocationOnly");
  }
  // A SINGLE_STEP request without a Step modifier: stock takes it; it never reports.
  if (IsFieldEvent(r->kind) && !r->watch_field) {
    // JVMTI watches fields one by one: a watchpoint names its field (as stock).
    cleanup();
    return jdwp::Fail(ErrorCode::kIllegalArgument, "field watch without FieldOnly");
  }

  if (r->kind == EventKind::kClassUnload && !unloads_.started()) {
    auto start = std::chrono::steady_clock::now();
    // ClassPrepare first: a class prepared during the scan is tagged by one or the other.
    {
      std::lock_guard lock(mu_);
      SetGlobalMode(JVMTI_EVENT_CLASS_PREPARE, true);
    }
    if (unloads_.Start(ctx_.vm, jni))
      Log().debug("class unload tracking: {} classes tagged in {} us", unloads_.tracked(),
                  std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start)
                      .count());
  }
  // A method request may change the method hooks: no debuggee thread runs Java
  // code until the frames threads are in are followed (method_hooks.h).
  const bool method_request = IsMethodEvent(r->kind);
  ThreadControl::ScopedVmSuspension frozen(ctx_.threads, jni, method_request);
  std::unique_lock lock(mu_);
  if (r->kind == EventKind::kBreakpoint) {
    bool already = false;
    for (auto& other : requests_)
      if (other->kind == EventKind::kBreakpoint && other->bp_method == r->bp_method &&
          other->bp_location == r->bp_location)
        already = true;
    if (!already) {
      auto set = ctx_.jvmti.SetBreakpoint(r->bp_method, r->bp_location);
      if (!set && set.error().code != JVMTI_ERROR_DUPLICATE) {
        cleanup();
        return tl::unexpected(FromVm(set.error()));
      }
    }
  }
  if (r->watch_field) {
    auto watch = AddWatch(r->kind, r->watch_klass, r->watch_field);
    if (!watch) {
      cleanup();
      return tl::unexpected(watch.error());
    }
    r->watching = true;
  }
  if (r->step) {
    for (auto& other : requests_)
      if (other->step && jni->IsSameObject(other->step->thread, r->step->thread)) {
        if (r->watching) RemoveWatch(r->kind, r->watch_klass, r->watch_field);
        cleanup();
        return jdwp::Fail(ErrorCode::kDuplicate, "a step request for this thread exists");
      }
    Step& step = *r->step;
    step.owner = r.get();
    // Step out, as stock: the frame runs at full speed; stepping starts when it pops.
    bool armed = false;
    if (step.depth == jdwp::StepDepth::kOut && step.start_depth > 0) {
      jvmtiError e = ctx_.jvmti.raw()->NotifyFramePop(step.thread, 0);
      if (e == JVMTI_ERROR_NONE || e == JVMTI_ERROR_DUPLICATE) {
        step.frame_pop_depth = step.start_depth;
        armed = true;
      }
    }
    if (!armed) (void)ctx_.jvmti.SetEventMode(true, JVMTI_EVENT_SINGLE_STEP, step.thread);
  }
  r->id = next_request_id_++;
  int32_t id = r->id;
  requests_.push_back(std::move(r));
  if (method_request) {
    RefreshHooks(jni);
    lock.unlock();
    // Frames already running of the methods hooked now (their exits, their loops).
    hooks_.TrackRunningFrames(jni);
    return id;
  }
  UpdateEventModes(jni);
  return id;
}

void EventManager::StopWatchingEntries(Step& step) {
  if (!step.watching_entries) return;
  step.watching_entries = false;
  step.watch_depth = -1;
  (void)ctx_.jvmti.SetEventMode(false, JVMTI_EVENT_METHOD_ENTRY, step.thread);
}

void EventManager::SingleStepAgain(Step& step) {
  StopWatchingEntries(step);
  (void)ctx_.jvmti.SetEventMode(true, JVMTI_EVENT_SINGLE_STEP, step.thread);
}

bool EventManager::CachedMayStopIn(JNIEnv* jni, Step& step, jmethodID method) {
  auto [it, fresh] = step.may_stop_in.try_emplace(method, false);
  if (fresh) it->second = StepMayStopIn(jni, step, method);
  return it->second;
}

void EventManager::StopStepping(JNIEnv* jni, Step& step) {
  StopWatchingEntries(step);
  (void)ctx_.jvmti.SetEventMode(false, JVMTI_EVENT_SINGLE_STEP, step.thread);
  step.frame_pop_depth = -1;
  step.skip_handler_entry = false;
}

void EventManager::DeleteRequest(JNIEnv* jni, Request& r) {
  if (r.kind == EventKind::kBreakpoint && r.bp_method) {
    bool shared = false;
    for (auto& other : requests_)
      if (other.get() != &r && other->kind == EventKind::kBreakpoint && other->bp_method == r.bp_method &&
          other->bp_location == r.bp_location)
        shared = true;
    if (!shared && !hooks_.BreakpointAt(r.bp_method, r.bp_location))
      (void)ctx_.jvmti.ClearBreakpoint(r.bp_method, r.bp_location);
  }
  if (r.step) {
    StopStepping(jni, *r.step);
    jni->DeleteGlobalRef(r.step->thread);
    r.step.reset();
  }
  if (r.watching) {
    RemoveWatch(r.kind, r.watch_klass, r.watch_field);
    r.watching = false;
  }
  for (jobject g : r.refs) jni->DeleteGlobalRef(g);
  r.refs.clear();
}

std::vector<EventManager::Watch>::iterator EventManager::FindWatch(JNIEnv* jni, EventKind kind, jclass klass,
                                                                   jfieldID field) {
  return std::find_if(watches_.begin(), watches_.end(), [&](const Watch& w) {
    return w.kind == kind && w.field == field && jni->IsSameObject(w.klass, klass);
  });
}

jdwp::Result<void> EventManager::AddWatch(EventKind kind, jclass klass, jfieldID field) {
  JNIEnv* jni = nullptr;
  if (ctx_.vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) != JNI_OK || !jni)
    return jdwp::Fail(ErrorCode::kInternal, "no JNI environment");
  if (auto it = FindWatch(jni, kind, klass, field); it != watches_.end()) {
    ++it->count;
    return {};
  }
  jvmtiEnv* env = ctx_.jvmti.raw();
  jvmtiError err = kind == EventKind::kFieldAccess ? env->SetFieldAccessWatch(klass, field)
                                                   : env->SetFieldModificationWatch(klass, field);
  // DUPLICATE: a watch left by an earlier session's request; it is ours now.
  if (err != JVMTI_ERROR_NONE && err != JVMTI_ERROR_DUPLICATE)
    return tl::unexpected(FromVm(vmcore::VmError{err, kind == EventKind::kFieldAccess ? "SetFieldAccessWatch"
                                                                                      : "SetFieldModificationWatch"}));
  watches_.push_back(Watch{kind, static_cast<jclass>(jni->NewGlobalRef(klass)), field, 1});
  return {};
}

void EventManager::RemoveWatch(EventKind kind, jclass klass, jfieldID field) {
  JNIEnv* jni = nullptr;
  if (ctx_.vm->GetEnv(reinterpret_cast<void**>(&jni), JNI_VERSION_1_6) != JNI_OK || !jni) return;
  auto it = FindWatch(jni, kind, klass, field);
  if (it == watches_.end() || --it->count > 0) return;
  jvmtiEnv* env = ctx_.jvmti.raw();
  if (kind == EventKind::kFieldAccess)
    (void)env->ClearFieldAccessWatch(it->klass, field);
  else
    (void)env->ClearFieldModificationWatch(it->klass, field);
  jni->DeleteGlobalRef(it->klass);
  watches_.erase(it);
}

jdwp::Result<void> EventManager::Clear(JNIEnv* jni, EventKind kind, int32_t request_id) {
  // The other method requests may be hooked now (below the limit): as in Set.
  ThreadControl::ScopedVmSuspension frozen(ctx_.threads, jni, IsMethodEvent(kind));
  std::unique_lock lock(mu_);
  for (auto it = requests_.begin(); it != requests_.end(); ++it) {
    if ((*it)->id == request_id && (*it)->kind == kind) {
      DeleteRequest(jni, **it);
      requests_.erase(it);
      if (!IsMethodEvent(kind)) {
        UpdateEventModes(jni);
        return {};
      }
      RefreshHooks(jni);
      lock.unlock();
      hooks_.TrackRunningFrames(jni);
      return {};
    }
  }
  // As stock: clearing an unknown request is not an error.
  return {};
}

void EventManager::ClearAllBreakpoints(JNIEnv* jni) {
  std::lock_guard lock(mu_);
  for (auto it = requests_.begin(); it != requests_.end();) {
    if ((*it)->kind == EventKind::kBreakpoint) {
      DeleteRequest(jni, **it);
      it = requests_.erase(it);
    } else {
      ++it;
    }
  }
  UpdateEventModes(jni);
}

void EventManager::ReleaseExpired(JNIEnv* jni) {
  if (!expired_pending_.exchange(false)) return;
  bool post = false;
  {
    std::lock_guard lock(mu_);
    bool deleted = false;  // or a method request expired: the event modes change
    for (auto it = requests_.begin(); it != requests_.end();) {
      Request& r = **it;
      if (!r.expired) {
        ++it;
        continue;
      }
      if (IsMethodEvent(r.kind)) {
        // The JVMTI events it needed go off now (UpdateEventModes skips expired
        // requests); the method hooks change only with no Java code running
        // (method_hooks.h): on the command thread, before any command that
        // follows this event.
        post |= !std::exchange(r.release_posted, true);
        deleted = true;
        ++it;
        continue;
      }
      DeleteRequest(jni, r);
      it = requests_.erase(it);
      deleted = true;
    }
    if (deleted) UpdateEventModes(jni);
  }
  if (post && post_command) post_command([this](JNIEnv* env) { ReleaseExpiredMethodRequests(env); });
}

void EventManager::ReleaseExpiredMethodRequests(JNIEnv* jni) {
  auto expired_method_request = [](const std::unique_ptr<Request>& r) {
    return r->expired && IsMethodEvent(r->kind);
  };
  {
    std::lock_guard lock(mu_);
    if (std::none_of(requests_.begin(), requests_.end(), expired_method_request)) return;  // cleared meanwhile
  }
  // As Clear does: the other method requests may be hooked now.
  ThreadControl::ScopedVmSuspension frozen(ctx_.threads, jni, true);
  std::unique_lock lock(mu_);
  for (auto it = requests_.begin(); it != requests_.end();) {
    if (!expired_method_request(*it)) {
      ++it;
      continue;
    }
    DeleteRequest(jni, **it);
    it = requests_.erase(it);
  }
  RefreshHooks(jni);
  lock.unlock();
  hooks_.TrackRunningFrames(jni);
}

void EventManager::SetGlobalMode(jvmtiEvent event, bool on) {
  // A JVMTI mode change costs the VM a recomputation over its threads: made
  // only when the mode changes (every request's Set and Clear come here).
  int8_t& applied = global_modes_.at(static_cast<size_t>(event - JVMTI_MIN_EVENT_TYPE_VAL));
  if (applied == static_cast<int8_t>(on)) return;
  if (ctx_.jvmti.SetEventMode(on, event)) applied = static_cast<int8_t>(on);
}

void EventManager::UpdateEventModes(JNIEnv*) {
  // While a session is active every prepared class is met: the class table
  // lists it (class_table.h), and once tracking unloads it is tagged
  // (ActivateSession tags those prepared between sessions): a class loaded in
  // one session may unload in the next one.
  bool exception = false, class_prepare = session_active_, entry = false, exit = false, access = false,
       modification = false;
  bool contended_enter = false, contended_entered = false, wait = false, waited = false;
  for (auto& r : requests_) {
    if (r->expired) continue;
    exception |= r->kind == EventKind::kException;
    class_prepare |= r->kind == EventKind::kClassPrepare;
    // Method events make every thread interpret everything: on only while asked
    // for, and not for the requests the method hooks serve (they need ClassPrepare).
    class_prepare |= r->hooked;
    entry |= r->kind == EventKind::kMethodEntry && !r->hooked;
    exit |= (r->kind == EventKind::kMethodExit || r->kind == EventKind::kMethodExitWithReturnValue) && !r->hooked;
    access |= r->kind == EventKind::kFieldAccess;
    modification |= r->kind == EventKind::kFieldModification;
    contended_enter |= r->kind == EventKind::kMonitorContendedEnter;
    contended_entered |= r->kind == EventKind::kMonitorContendedEntered;
    wait |= r->kind == EventKind::kMonitorWait;
    waited |= r->kind == EventKind::kMonitorWaited;
  }
  SetGlobalMode(JVMTI_EVENT_EXCEPTION, exception);
  SetGlobalMode(JVMTI_EVENT_CLASS_PREPARE, class_prepare);
  SetGlobalMode(JVMTI_EVENT_METHOD_ENTRY, entry);
  SetGlobalMode(JVMTI_EVENT_METHOD_EXIT, exit);
  global_method_exit_ = exit;
  SetGlobalMode(JVMTI_EVENT_FIELD_ACCESS, access);
  SetGlobalMode(JVMTI_EVENT_FIELD_MODIFICATION, modification);
  SetGlobalMode(JVMTI_EVENT_MONITOR_CONTENDED_ENTER, contended_enter);
  SetGlobalMode(JVMTI_EVENT_MONITOR_CONTENDED_ENTERED, contended_entered);
  SetGlobalMode(JVMTI_EVENT_MONITOR_WAIT, wait);
  SetGlobalMode(JVMTI_EVENT_MONITOR_WAITED, waited);
}

void EventManager::RefreshHooks(JNIEnv* jni, bool reset_breakpoints) {
  std::vector<MethodHooks::RequestFilter> filters;
  for (auto& r : requests_) {
    if (!IsMethodEvent(r->kind) || r->expired) continue;
    MethodHooks::RequestFilter f;
    f.id = r->id;
    f.entry = r->kind == EventKind::kMethodEntry;
    for (size_t i = 0; i < r->modifiers.size(); ++i) {
      if (std::holds_alternative<mod::ClassOnly>(r->modifiers[i]) && r->resolved[i])
        f.only.push_back(static_cast<jclass>(r->resolved[i]));
      else if (auto* match = std::get_if<mod::ClassMatch>(&r->modifiers[i]))
        f.match.push_back(match->class_pattern);
      else if (auto* exclude = std::get_if<mod::ClassExclude>(&r->modifiers[i]))
        f.exclude.push_back(exclude->class_pattern);
    }
    filters.push_back(std::move(f));
  }
  // Before the scan of the loaded classes: a class prepared meanwhile is met at its ClassPrepare.
  if (std::any_of(filters.begin(), filters.end(), [](const MethodHooks::RequestFilter& f) { return f.Hookable(); }))
    SetGlobalMode(JVMTI_EVENT_CLASS_PREPARE, true);
  auto hooked = hooks_.Rebuild(jni, std::move(filters), reset_breakpoints,
                               [this](jmethodID m, jlocation l) { return UserBreakpointAt(m, l); });
  for (auto& r : requests_) r->hooked = hooked.contains(r->id);
  UpdateEventModes(jni);
}

bool EventManager::UserBreakpointAt(jmethodID method, jlocation location) {
  return std::any_of(requests_.begin(), requests_.end(), [&](const std::unique_ptr<Request>& r) {
    return r->kind == EventKind::kBreakpoint && r->bp_method == method && r->bp_location == location;
  });
}

void EventManager::Hold() {
  std::lock_guard lock(queue_mu_);
  holding_ = true;
}

void EventManager::Release() {
  std::lock_guard lock(queue_mu_);
  holding_ = false;
  queue_cv_.notify_all();
}

void EventManager::UnblockAfterResume() {
  std::lock_guard lock(queue_mu_);
  blocked_ = false;
  queue_cv_.notify_all();
}

void EventManager::BeginSession() {
  (void)unloads_.TakeUnloaded();  // of no session's concern
  epoch_.fetch_add(1);
  attached_ = true;
  UnblockAfterResume();
}

void EventManager::ActivateSession(JNIEnv* jni) {
  {
    std::lock_guard lock(mu_);
    session_active_ = true;
    UpdateEventModes(jni);
  }
  // After ClassPrepare is on (a class prepared meanwhile is met at its
  // ClassPrepare), and outside mu_, which ClassPrepare callbacks take.
  unloads_.TagLoaded(jni);
}

void EventManager::DeactivateSession(JNIEnv* jni) {
  std::lock_guard lock(mu_);
  session_active_ = false;
  UpdateEventModes(jni);
}

void EventManager::EndSession(JNIEnv* jni) {
  attached_ = false;
  epoch_.fetch_add(1);
  {
    std::lock_guard lock(mu_);
    for (auto& r : requests_) DeleteRequest(jni, *r);
    requests_.clear();
    RefreshHooks(jni);
  }
  // Events queued meanwhile (held ones too) are of the old epoch: dropped,
  // suspending nothing, their threads let go.
  std::lock_guard lock(queue_mu_);
  holding_ = false;
  blocked_ = false;
  queue_cv_.notify_all();
}

// ---- matching ----------------------------------------------------------------

bool EventManager::Matches(JNIEnv* jni, Request& r, jthread thread, jclass klass, const jdwp::Location* loc,
                           jobject exception, bool caught, jobject instance, jfieldID field, jclass field_klass) {
  if (r.expired) return false;
  for (size_t i = 0; i < r.modifiers.size(); ++i) {
    bool ok = std::visit(
        [&](const auto& x) -> bool {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, mod::Count>) {
            if (--r.counts[i] > 0) return false;
            r.expired = true;
            expired_pending_ = true;
            return true;
          } else if constexpr (std::is_same_v<T, mod::ThreadOnly>) {
            return thread && jni->IsSameObject(thread, r.resolved[i]);
          } else if constexpr (std::is_same_v<T, mod::ClassOnly>) {
            return klass && jni->IsAssignableFrom(klass, static_cast<jclass>(r.resolved[i]));
          } else if constexpr (std::is_same_v<T, mod::ClassMatch>) {
            return klass && PatternMatches(x.class_pattern, ClassNameOf(klass));
          } else if constexpr (std::is_same_v<T, mod::ClassExclude>) {
            return klass && !PatternMatches(x.class_pattern, ClassNameOf(klass));
          } else if constexpr (std::is_same_v<T, mod::LocationOnly>) {
            return loc && loc->method_id == x.loc.method_id && loc->index == x.loc.index;
          } else if constexpr (std::is_same_v<T, mod::ExceptionOnly>) {
            if (!exception) return false;
            if (r.resolved[i] && !jni->IsInstanceOf(exception, static_cast<jclass>(r.resolved[i]))) return false;
            return caught ? x.caught : x.uncaught;
          } else if constexpr (std::is_same_v<T, mod::InstanceOnly>) {
            // As stock: an event without an instance (static method or field,
            // thread events) passes.
            return !instance || (r.resolved[i] && jni->IsSameObject(instance, r.resolved[i]));
          } else if constexpr (std::is_same_v<T, mod::Step>) {
            return thread && r.step && jni->IsSameObject(thread, r.step->thread);
          } else if constexpr (std::is_same_v<T, mod::PlatformThreadsOnly>) {
            return !thread || !ctx_.threads.IsVirtual(jni, thread);
          } else if constexpr (std::is_same_v<T, mod::FieldOnly>) {
            return field && field == ToField(x.field_id) && field_klass &&
                   jni->IsSameObject(field_klass, r.resolved[i]);
          } else if constexpr (std::is_same_v<T, mod::SourceNameMatch>) {
            if (!klass) return false;
            auto source = ctx_.jvmti.GetSourceFileName(klass);
            if (source && PatternMatches(x.source_name_pattern, ToWireString(*source))) return true;
            // As stock: the source names of the class's strata (JSR-45 source map) match too.
            return ctx_.AnySourceMapName(klass, [&](std::string_view name) {
              return PatternMatches(x.source_name_pattern, std::string(name));
            });
          } else {
            return true;  // Conditional: reserved by the spec, accepted and ignored (as stock)
          }
        },
        r.modifiers[i]);
    if (!ok) {
      // A Count reached its end only if everything before it matched; later
      // modifiers failing does not undo that (as stock).
      return false;
    }
  }
  return true;
}

// ---- reporting ----------------------------------------------------------------

void EventManager::Enqueue(std::unique_ptr<Item> item) {
  std::lock_guard lock(queue_mu_);
  queue_.push_back(std::move(item));
  queue_cv_.notify_all();
}

void EventManager::EnqueueAndWait(std::unique_ptr<Item> item) {
  std::mutex done_mu;
  std::condition_variable done_cv;
  bool done = false;
  item->done_mu = &done_mu;
  item->done_cv = &done_cv;
  item->done = &done;
  Enqueue(std::move(item));
  std::unique_lock lock(done_mu);
  done_cv.wait(lock, [&] { return done; });
}

void EventManager::Report(JNIEnv* jni, jthread thread, std::vector<ev::EventData> events, SuspendPolicy policy,
                          const std::function<void()>& applied) {
  // Before the event goes (as stock frees a request whose Count ran out right
  // after matching it): what expired requests hold in the VM is let go.
  ReleaseExpired(jni);
  if (events.empty()) return;
  // An agent thread is never suspended: as stock, its event (a ClassPrepare)
  // names no thread, and SUSPEND_EVENT_THREAD becomes SUSPEND_ALL.
  if (thread && ThreadControl::CurrentIsAgent()) {
    thread = nullptr;
    if (policy == SuspendPolicy::kEventThread) policy = SuspendPolicy::kAll;
  }
  // As stock: a set that names no thread (ClassUnload, VMDeath, an agent
  // thread's ClassPrepare) suspends all threads whatever its policy.
  const bool names_a_thread = std::any_of(events.begin(), events.end(), [](const ev::EventData& e) {
    return std::visit([](const auto& x) {
      if constexpr (requires { x.thread; }) return !x.thread.is_null();
      else return false;
    }, e);
  });
  const bool vm_start = events.size() == 1 && std::holds_alternative<ev::VMStart>(events.front());
  jdwp::Event::Composite::Request composite{policy, std::move(events)};
  auto body = jdwp::EncodeBody(composite);
  auto item = std::make_unique<Item>();
  item->packet = jdwp::MakeCommandPacket(next_packet_id_.fetch_add(1), jdwp::Event::Composite::kId, body);
  item->policy = policy != SuspendPolicy::kNone && !names_a_thread ? SuspendPolicy::kAll : policy;
  item->blocks_events = item->policy == SuspendPolicy::kAll && !vm_start;
  item->epoch = epoch_.load();
  if (item->policy == SuspendPolicy::kNone || !thread) {
    if (thread) item->thread = jni->NewGlobalRef(thread);
    Enqueue(std::move(item));
    if (applied) applied();
    return;
  }
  item->thread = jni->NewGlobalRef(thread);
  void* parking = ctx_.threads.PrepareToPark(jni, thread);
  EnqueueAndWait(std::move(item));
  // From here until resumed this thread is suspended: no JNI or JVMTI calls.
  if (applied) applied();
  ctx_.threads.Park(jni, parking);
}

void EventManager::SendAfterInvoke(JNIEnv* jni, jthread thread, std::vector<uint8_t> packet) {
  auto item = std::make_unique<Item>();
  item->packet = std::move(packet);
  item->thread = thread;  // the caller's global reference; the reporter deletes it
  item->resuspend_after_invoke = true;
  item->epoch = epoch_.load();
  EnqueueAndWait(std::move(item));
}

void EventManager::SuspendDeferred(JNIEnv* jni, void* token) {
  auto item = std::make_unique<Item>();
  item->deferred_token = token;
  item->epoch = epoch_.load();
  EnqueueAndWait(std::move(item));
  // Suspended now (or resumed meanwhile): no JNI or JVMTI calls until Park returns.
  ctx_.threads.Park(jni, token);
}

std::deque<std::unique_ptr<EventManager::Item>>::iterator EventManager::NextItemLocked() {
  if ((!holding_ && !blocked_) || stopping_) return queue_.begin();
  // Held: an event waits, with its suspension (as stock, its thread waits in the
  // agent unsuspended); a thread's deferred suspension and the end of an
  // invocation (whose reply stock sends at once) are no events.
  return std::find_if(queue_.begin(), queue_.end(),
                      [](const std::unique_ptr<Item>& i) { return i->deferred_token || i->resuspend_after_invoke; });
}

void EventManager::RunReporter(JNIEnv* jni) {
  while (true) {
    std::unique_ptr<Item> item;
    {
      std::unique_lock lock(queue_mu_);
      auto next = queue_.end();
      queue_cv_.wait(lock, [&] {
        next = NextItemLocked();
        return stopping_ || next != queue_.end();
      });
      if (next == queue_.end()) return;
      item = std::move(*next);
      queue_.erase(next);
      ++in_flight_;
    }
    bool current = item->epoch == epoch_.load() && attached_;
    if (item->deferred_token) {
      ctx_.threads.ApplyDeferred(item->deferred_token);
    } else if (item->resuspend_after_invoke) {
      ctx_.threads.ResuspendAfterInvoke(jni, static_cast<jthread>(item->thread));
    } else if (current && item->policy != SuspendPolicy::kNone) {
      ctx_.threads.SuspendForEvent(jni, static_cast<jthread>(item->thread), item->policy);
    }
    if (current && !item->packet.empty()) {
      if (item->blocks_events) {
        // Before it is sent: a resume that answers it must find the block set.
        std::lock_guard lock(queue_mu_);
        blocked_ = true;
      }
      ctx_.send(std::move(item->packet));
    }
    if (item->thread) jni->DeleteGlobalRef(item->thread);
    if (item->done) {
      std::lock_guard lock(*item->done_mu);
      *item->done = true;
      item->done_cv->notify_all();
    }
    std::lock_guard lock(queue_mu_);
    --in_flight_;
    queue_cv_.notify_all();
  }
}

void EventManager::StopReporter() {
  std::lock_guard lock(queue_mu_);
  stopping_ = true;
  queue_cv_.notify_all();
}

void EventManager::Drain(int timeout_ms) {
  std::unique_lock lock(queue_mu_);
  queue_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                     [&] { return stopping_ || (queue_.empty() && in_flight_ == 0); });
}

void EventManager::ReportVmStart(JNIEnv* jni, jthread thread, SuspendPolicy policy,
                                 const std::function<void()>& applied) {
  std::vector<ev::EventData> events;
  events.push_back(ev::VMStart{0, ctx_.IdOf<jdwp::ThreadId>(jni, thread)});
  Report(jni, thread, std::move(events), policy, applied);
}

void EventManager::ReportStartingException(JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                                           jobject exception, jmethodID catch_method, jlocation catch_location,
                                           SuspendPolicy policy, const std::function<void()>& applied) {
  jdwp::Location catch_loc{};
  if (catch_method) catch_loc = ctx_.LocationOf(jni, catch_method, catch_location);
  std::vector<ev::EventData> events;
  events.push_back(ev::Exception{0, ctx_.IdOf<jdwp::ThreadId>(jni, thread), ctx_.LocationOf(jni, method, location),
                                 ctx_.TaggedId(jni, exception), catch_loc});
  Report(jni, thread, std::move(events), policy, applied);
}

void EventManager::ReportVmDeath(JNIEnv* jni) {
  Release();  // events held until now go first: VMDeath is the last
  UnblockAfterResume();  // and those waiting for a resume
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  {
    std::lock_guard lock(mu_);
    for (auto& r : requests_ | std::views::reverse) {
      if (r->kind != EventKind::kVmDeath) continue;
      if (!Matches(jni, *r, nullptr, nullptr, nullptr, nullptr, false, nullptr)) continue;
      events.push_back(ev::VMDeath{r->id});
      policy = std::max(policy, r->policy);
    }
  }
  // As stock: the requested events and the automatic one (request 0, always
  // sent) in one set with the requests' policy. A policy that suspends holds
  // the dying VM, this thread included, until the debugger resumes it: that is
  // what a VMDeath request is for (JDI's VMDeathRequest).
  events.push_back(ev::VMDeath{0});
  jthread self = nullptr;
  if (policy != SuspendPolicy::kNone) {
    if (auto current = ctx_.jvmti.GetCurrentThread()) self = *current;
  }
  Report(jni, self, std::move(events), policy);
  if (self) jni->DeleteLocalRef(self);
}

// ---- JVMTI callbacks -----------------------------------------------------------

// Where a step ends, as stock's step control decides it; false: keep going.
bool EventManager::StepCompletes(JNIEnv* jni, Step& step, jthread thread, jmethodID method, jlocation location) {
  if (step.skip_handler_entry) {
    step.skip_handler_entry = false;
    return false;
  }
  // A step into by instruction ends at the very next instruction, wherever it is.
  if (step.depth == jdwp::StepDepth::kInto && step.size == jdwp::StepSize::kMin) return true;
  auto count = ctx_.jvmti.GetFrameCount(thread);
  if (!count) return false;
  int32_t depth = *count;
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
        (void)ctx_.jvmti.SetEventMode(false, JVMTI_EVENT_SINGLE_STEP, thread);
        (void)ctx_.jvmti.SetEventMode(true, JVMTI_EVENT_METHOD_ENTRY, thread);
      }
      return false;
    }
    // Over or out: the callee runs at full speed until it returns.
    jvmtiError e = ctx_.jvmti.raw()->NotifyFramePop(thread, 0);
    if (e == JVMTI_ERROR_NONE || e == JVMTI_ERROR_DUPLICATE) {
      step.frame_pop_depth = depth;
      (void)ctx_.jvmti.SetEventMode(false, JVMTI_EVENT_SINGLE_STEP, thread);
    }
    return false;
  }
  // Same depth.
  if (step.depth == jdwp::StepDepth::kOut) return false;
  if (step.size == jdwp::StepSize::kMin) return true;
  if (step.start_line == -1) return true;  // from a place without line numbers, as stock
  // The same frame in another method: its class was redefined since the step began,
  // and the old code (now obsolete) runs on with the lines the step started from.
  if (method != step.start_method && ctx_.jvmti.IsMethodObsolete(method).value_or(false)) {
    step.start_method = method;
  }
  int32_t line = method == step.start_method ? ctx_.StepLineOf(jni, method, location) : -1;
  return line != step.start_line;
}

bool EventManager::StepMayStopIn(JNIEnv* jni, Step& step, jmethodID method) {
  if (step.size == jdwp::StepSize::kLine && ctx_.LineTable(method)->empty()) return false;
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
  [&] {
    std::lock_guard lock(mu_);
    breakpoint_here = UserBreakpointAt(method, location) || hooks_.BreakpointAt(method, location);
    Request* step_request = nullptr;
    for (auto& r : requests_)
      if (r->step && jni->IsSameObject(r->step->thread, thread)) step_request = r.get();
    if (!step_request || step_request->expired || step_request->step->frame_pop_depth >= 0) return;
    Step& step = *step_request->step;
    if (!StepCompletes(jni, step, thread, method, location)) return;
    jdwp::Location loc = ctx_.LocationOf(jni, method, location);
    jclass klass = nullptr;
    if (auto k = ctx_.jvmti.GetMethodDeclaringClass(method)) klass = *k;
    if (!Matches(jni, *step_request, thread, klass, &loc, nullptr, false, nullptr)) {
      // Filtered out (ClassExclude such as java.*): the same step goes on from
      // here, as stock (a step out waits again for this frame to pop).
      auto count = ctx_.jvmti.GetFrameCount(thread);
      if (count) step.start_depth = *count;
      step.start_method = method;
      step.start_location = location;
      step.start_line = ctx_.StepLineOf(jni, method, location);
      if (step.depth == jdwp::StepDepth::kOut && step.start_depth > 0) {
        jvmtiError e = ctx_.jvmti.raw()->NotifyFramePop(thread, 0);
        if (e == JVMTI_ERROR_NONE || e == JVMTI_ERROR_DUPLICATE) {
          step.frame_pop_depth = step.start_depth;
          (void)ctx_.jvmti.SetEventMode(false, JVMTI_EVENT_SINGLE_STEP, thread);
        }
      }
      if (klass) jni->DeleteLocalRef(klass);
      return;
    }
    auto thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
    jobject instance = nullptr;
    instance = FrameThis(thread, method);
    events.push_back(ev::SingleStep{step_request->id, thread_id, loc});
    policy = step_request->policy;
    // Breakpoints at this very location are reported in the same set (spec:
    // co-located events), after the step as stock orders them.
    for (auto& r : requests_ | std::views::reverse) {
      if (r->kind != EventKind::kBreakpoint || r->bp_method != method || r->bp_location != location) continue;
      if (!Matches(jni, *r, thread, klass, &loc, nullptr, false, instance)) continue;
      events.push_back(ev::Breakpoint{r->id, thread_id, loc});
      policy = std::max(policy, r->policy);
    }
    if (instance) jni->DeleteLocalRef(instance);
    t_step_place = StepPlace{method, location};
    step_reported = true;
    // The step is done: the thread runs freely until the debugger steps again.
    step.start_method = method;
    step.start_location = location;
    step.start_line = ctx_.StepLineOf(jni, method, location);
    if (auto count = ctx_.jvmti.GetFrameCount(thread)) step.start_depth = *count;
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
}

void EventManager::ReportHookedEntry(JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                                     std::vector<ev::EventData>& events, SuspendPolicy& policy) {
  if (!hooks_.OnStart(jni, thread, method, location)) return;
  std::lock_guard lock(mu_);
  (void)AddEntryEvents(jni, thread, method, /*hooked=*/true, events, policy);
}

std::optional<EventManager::EntryPlace> EventManager::AddEntryEvents(JNIEnv* jni, jthread thread, jmethodID method,
                                                                     bool hooked, std::vector<ev::EventData>& events,
                                                                     SuspendPolicy& policy) {
  bool wanted = false, wants_instance = false;
  for (auto& r : requests_) {
    if (r->kind != EventKind::kMethodEntry || r->expired || r->hooked != hooked) continue;
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
  jobject instance = wants_instance ? FrameThis(thread, method) : nullptr;
  jdwp::ThreadId thread_id{};
  // Newest request first, as stock orders the events of one place.
  for (auto& r : requests_ | std::views::reverse) {
    if (r->kind != EventKind::kMethodEntry || r->hooked != hooked) continue;
    if (!Matches(jni, *r, thread, klass, &loc, nullptr, false, instance)) continue;
    if (thread_id.is_null()) thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
    events.push_back(ev::MethodEntry{r->id, thread_id, loc});
    policy = std::max(policy, r->policy);
  }
  if (instance) jni->DeleteLocalRef(instance);
  if (klass) jni->DeleteLocalRef(klass);
  return place;
}

void EventManager::OnFramePop(JNIEnv* jni, jthread thread, jmethodID, bool by_exception) {
  std::lock_guard lock(mu_);
  for (auto& r : requests_) {
    if (!r->step || !jni->IsSameObject(r->step->thread, thread)) continue;
    Step& step = *r->step;
    auto count = ctx_.jvmti.GetFrameCount(thread);
    if (!count) continue;
    if (step.frame_pop_depth < 0) {
      // Step into: the code it may not stop in returns (or an exception leaves
      // it): single steps again from the next instruction in its caller; a
      // handler's first instruction is skipped as when stepping resumes below.
      if (step.watching_entries && *count <= step.watch_depth) SingleStepAgain(step);
      if (by_exception && step.callee_armed && *count == step.start_depth + 1) step.skip_handler_entry = true;
      continue;
    }
    // The frame waited for (a callee stepped over, or the frame stepped out of)
    // is leaving: step again from the next instruction in its caller.
    if (*count <= step.frame_pop_depth) {
      step.frame_pop_depth = -1;
      step.skip_handler_entry = by_exception;
      (void)ctx_.jvmti.SetEventMode(true, JVMTI_EVENT_SINGLE_STEP, thread);
    }
  }
}

void EventManager::OnBreakpoint(JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  ReportUnloads(jni, thread);
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  // Events kept back for this place (a method entry at its first instruction)
  // go first in the breakpoint's composite, as stock sends them.
  if (!t_deferred.events.empty()) TakeDeferred(jni, thread, method, location, events, policy);
  StepPlace step_place = std::exchange(t_step_place, StepPlace{});
  [&] {
    if (step_place.method == method && step_place.location == location) return;
    {
      std::lock_guard lock(mu_);
      // A step that completed here already reported these breakpoints (and a
      // hooked method's entry) with it.
      for (auto& r : requests_)
        if (r->step && jni->IsSameObject(r->step->thread, thread) && r->step->start_method == method &&
            r->step->start_location == location && r->step->frame_pop_depth < 0) {
          auto count = ctx_.jvmti.GetFrameCount(thread);
          if (count && *count == r->step->start_depth) return;
        }
    }
    ReportHookedEntry(jni, thread, method, location, events, policy);
    std::lock_guard lock(mu_);
    jdwp::Location loc = ctx_.LocationOf(jni, method, location);
    jclass klass = nullptr;
    if (auto k = ctx_.jvmti.GetMethodDeclaringClass(method)) klass = *k;
    jdwp::ThreadId thread_id{};
    jobject instance = nullptr;
    bool instance_read = false;
    for (auto& r : requests_ | std::views::reverse) {
      if (r->kind != EventKind::kBreakpoint || r->bp_method != method || r->bp_location != location) continue;
      if (!instance_read) {
        instance_read = true;
        instance = FrameThis(thread, method);
      }
      if (!Matches(jni, *r, thread, klass, &loc, nullptr, false, instance)) continue;
      if (thread_id.is_null()) thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
      events.push_back(ev::Breakpoint{r->id, thread_id, loc});
      policy = std::max(policy, r->policy);
    }
    if (instance) jni->DeleteLocalRef(instance);
    if (klass) jni->DeleteLocalRef(klass);
  }();
  OrderLeadingEntries(events);  // kept-back entries, then the hooked ones: the newest request first
  Report(jni, thread, std::move(events), policy);
}

void EventManager::OnException(JNIEnv* jni, jthread thread, jmethodID method, jlocation location, jobject exception,
                               jmethodID catch_method, jlocation catch_location) {
  ReportUnloads(jni, thread);
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  {
    std::lock_guard lock(mu_);
    jdwp::Location loc = ctx_.LocationOf(jni, method, location);
    jdwp::Location catch_loc{};
    if (catch_method) catch_loc = ctx_.LocationOf(jni, catch_method, catch_location);
    jclass klass = nullptr;
    if (auto k = ctx_.jvmti.GetMethodDeclaringClass(method)) klass = *k;
    jdwp::ThreadId thread_id{};
    jdwp::TaggedObjectId exception_id{};
    jobject instance = nullptr;
    bool instance_read = false;
    for (auto& r : requests_ | std::views::reverse) {
      if (r->kind != EventKind::kException) continue;
      if (!instance_read) {
        instance_read = true;
        instance = FrameThis(thread, method);
      }
      if (!Matches(jni, *r, thread, klass, &loc, exception, catch_method != nullptr, instance)) continue;
      if (thread_id.is_null()) {
        thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
        exception_id = ctx_.TaggedId(jni, exception);
      }
      events.push_back(ev::Exception{r->id, thread_id, loc, exception_id, catch_loc});
      policy = std::max(policy, r->policy);
    }
    if (instance) jni->DeleteLocalRef(instance);
    if (klass) jni->DeleteLocalRef(klass);
  }
  Report(jni, thread, std::move(events), policy);
}

void EventManager::OnClassPrepare(JNIEnv* jni, jthread thread, jclass klass) {
  ctx_.classes.Prepared(jni, klass);  // listed before the debugger hears of it
  unloads_.Track(klass);
  ReportUnloads(jni, thread);
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  bool agent = thread && ThreadControl::CurrentIsAgent();
  {
    std::lock_guard lock(mu_);
    // Before the class's code can run: its methods' hooks.
    if (!hooks_.AddClass(jni, klass)) RefreshHooks(jni);
    ev::ClassPrepare base{};
    bool filled = false;
    for (auto& r : requests_ | std::views::reverse) {
      if (r->kind != EventKind::kClassPrepare) continue;
      if (!Matches(jni, *r, thread, klass, nullptr, nullptr, false, nullptr)) continue;
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
      policy = std::max(policy, r->policy);
    }
  }
  Report(jni, thread, std::move(events), policy);
}

template <class Event>
void EventManager::ReportThreadEvent(JNIEnv* jni, jthread thread, EventKind kind) {
  ReportUnloads(jni, thread);
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  {
    std::lock_guard lock(mu_);
    for (auto& r : requests_ | std::views::reverse) {
      if (r->kind != kind) continue;
      if (!Matches(jni, *r, thread, nullptr, nullptr, nullptr, false, nullptr)) continue;
      events.push_back(Event{r->id, ctx_.IdOf<jdwp::ThreadId>(jni, thread)});
      policy = std::max(policy, r->policy);
    }
  }
  Report(jni, thread, std::move(events), policy);
}

void EventManager::OnThreadStart(JNIEnv* jni, jthread thread) {
  ReportThreadEvent<ev::ThreadStart>(jni, thread, EventKind::kThreadStart);
}

void EventManager::OnThreadEnd(JNIEnv* jni, jthread thread) {
  ReportThreadEvent<ev::ThreadDeath>(jni, thread, EventKind::kThreadDeath);
}

// ---- class unloading ------------------------------------------------------------

void EventManager::ReportUnloads(JNIEnv* jni, jthread thread) {
  if (!unloads_.HasUnloaded() || !thread || ThreadControl::CurrentIsAgent()) return;
  for (const std::string& signature : unloads_.TakeUnloaded()) {
    std::vector<ev::EventData> events;
    SuspendPolicy policy = SuspendPolicy::kNone;
    {
      std::lock_guard lock(mu_);
      std::string name = DottedName(ToWireString(signature));
      for (auto& r : requests_ | std::views::reverse) {
        if (r->kind != EventKind::kClassUnload || r->expired) continue;
        // As stock: only Count, ClassMatch and ClassExclude apply to an unloaded class.
        bool ok = true;
        for (size_t i = 0; ok && i < r->modifiers.size(); ++i) {
          if (auto* match = std::get_if<mod::ClassMatch>(&r->modifiers[i])) {
            ok = PatternMatches(match->class_pattern, name);
          } else if (auto* exclude = std::get_if<mod::ClassExclude>(&r->modifiers[i])) {
            ok = !PatternMatches(exclude->class_pattern, name);
          } else if (std::holds_alternative<mod::Count>(r->modifiers[i])) {
            if (--r->counts[i] > 0) {
              ok = false;
            } else {
              r->expired = true;
              expired_pending_ = true;
            }
          }
        }
        if (!ok) continue;
        events.push_back(ev::ClassUnload{r->id, ToWireString(signature)});
        policy = std::max(policy, r->policy);
      }
    }
    // Whatever the policy suspends (all threads: the set names none), the thread
    // reporting included: it waits like an event thread.
    Report(jni, thread, std::move(events), policy);
  }
}

// ---- method, field and monitor events ------------------------------------------

void EventManager::TakeDeferred(JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                                std::vector<ev::EventData>& events, SuspendPolicy& policy) {
  Deferred kept = std::move(t_deferred);
  t_deferred = Deferred{};
  if (kept.events.empty()) return;
  if (kept.epoch != epoch_.load()) return;  // of a debugger gone meanwhile
  if (kept.method == method && kept.location == location) {
    events.insert(events.begin(), std::make_move_iterator(kept.events.begin()),
                  std::make_move_iterator(kept.events.end()));
    policy = std::max(policy, kept.policy);
    return;
  }
  Report(jni, thread, std::move(kept.events), kept.policy);
}

void EventManager::OnMethodEntry(JNIEnv* jni, jthread thread, jmethodID method) {
  ReentryGuard guard;
  if (!guard.entered) return;
  {
    std::lock_guard lock(mu_);
    for (auto& r : requests_) {
      if (!r->step || !r->step->watching_entries || r->expired || !jni->IsSameObject(r->step->thread, thread)) continue;
      // A step into, in code it may not stop in, enters a method it may stop in:
      // single steps again; the step ends at this method's first instruction.
      Step& step = *r->step;
      if (CachedMayStopIn(jni, step, method)) SingleStepAgain(step);
    }
  }
  ReportUnloads(jni, thread);
  t_step_place = StepPlace{};
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  if (!t_deferred.events.empty()) TakeDeferred(jni, thread, nullptr, -1, events, policy);
  guard.Outside([&] { Report(jni, thread, std::move(events), policy); });
  events.clear();
  policy = SuspendPolicy::kNone;
  jlocation start = 0;
  bool defer = false;
  {
    std::lock_guard lock(mu_);
    // The requests the hooks serve report at their breakpoint (ReportHookedEntry).
    auto place = AddEntryEvents(jni, thread, method, /*hooked=*/false, events, policy);
    if (!place) return;
    start = place->start;
    if (!events.empty() && place->has_code) {
      // As stock: kept back when a breakpoint at the first instruction, or the
      // single step of a step in progress, will report at this same place (a
      // native method has no instruction to meet them at: never kept back).
      defer = hooks_.BreakpointAt(method, start) || UserBreakpointAt(method, start);
      for (auto& r : requests_) {
        if (r->step && r->step->frame_pop_depth < 0 && !r->expired && jni->IsSameObject(r->step->thread, thread))
          defer = true;
      }
    }
  }
  if (defer) {
    t_deferred.method = method;
    t_deferred.location = start;
    t_deferred.events = std::move(events);
    t_deferred.policy = policy;
    t_deferred.epoch = epoch_.load();
    return;
  }
  guard.Outside([&] { Report(jni, thread, std::move(events), policy); });
}

void EventManager::OnMethodExit(JNIEnv* jni, jthread thread, jmethodID method, bool by_exception,
                                jvalue return_value) {
  // Every exit counts for the frames the hooks follow, even one of our own calls.
  hooks_.OnExit(jni, thread, method);
  ReentryGuard guard;
  if (!guard.entered) return;
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  if (!t_deferred.events.empty()) TakeDeferred(jni, thread, nullptr, -1, events, policy);
  guard.Outside([&] { Report(jni, thread, std::move(events), policy); });
  events.clear();
  policy = SuspendPolicy::kNone;
  // As stock: a frame popped by an exception reports no method exit.
  if (by_exception) return;
  // A callee of a hooked frame (MethodExit is on for this thread alone): no
  // request can match it.
  if (!global_method_exit_ && !hooks_.MayMatchExit(method)) return;
  {
    std::lock_guard lock(mu_);
    bool wanted = false, wants_instance = false;
    for (auto& r : requests_) {
      if ((r->kind != EventKind::kMethodExit && r->kind != EventKind::kMethodExitWithReturnValue) || r->expired)
        continue;
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
      instance = FrameThis(thread, method);
    jdwp::ThreadId thread_id{};
    std::optional<jdwp::Value> value;
    for (auto& r : requests_ | std::views::reverse) {
      if (r->kind != EventKind::kMethodExit && r->kind != EventKind::kMethodExitWithReturnValue) continue;
      if (!Matches(jni, *r, thread, klass, &loc, nullptr, false, instance)) continue;
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
      policy = std::max(policy, r->policy);
    }
    if (instance) jni->DeleteLocalRef(instance);
    if (klass) jni->DeleteLocalRef(klass);
  }
  guard.Outside([&] { Report(jni, thread, std::move(events), policy); });
}

void EventManager::OnFieldEvent(JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                                jclass field_klass, jobject object, jfieldID field, char value_sig,
                                jvalue new_value) {
  ReportUnloads(jni, thread);
  EventKind kind = value_sig ? EventKind::kFieldModification : EventKind::kFieldAccess;
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  {
    std::lock_guard lock(mu_);
    jdwp::Location loc = ctx_.LocationOf(jni, method, location);
    jclass klass = nullptr;
    if (auto k = ctx_.jvmti.GetMethodDeclaringClass(method)) klass = *k;
    jdwp::ThreadId thread_id{};
    jdwp::TaggedObjectId object_id{};
    jdwp::Value value_to_be;
    for (auto& r : requests_ | std::views::reverse) {
      if (r->kind != kind) continue;
      if (!Matches(jni, *r, thread, klass, &loc, nullptr, false, object, field, field_klass)) continue;
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
      policy = std::max(policy, r->policy);
    }
    if (klass) jni->DeleteLocalRef(klass);
  }
  Report(jni, thread, std::move(events), policy);
}

void EventManager::OnMonitorEvent(JNIEnv* jni, jthread thread, jobject object, EventKind kind, jlong extra) {
  ReportUnloads(jni, thread);
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  {
    std::lock_guard lock(mu_);
    bool wanted = false;
    for (auto& r : requests_) wanted |= r->kind == kind && !r->expired;
    if (!wanted) return;
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
    jobject instance = frame_method ? FrameThis(thread, frame_method) : nullptr;
    for (auto& r : requests_ | std::views::reverse) {
      if (r->kind != kind) continue;
      if (!Matches(jni, *r, thread, klass, &loc, nullptr, false, instance)) continue;
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
      policy = std::max(policy, r->policy);
    }
    if (instance) jni->DeleteLocalRef(instance);
    if (klass) jni->DeleteLocalRef(klass);
  }
  Report(jni, thread, std::move(events), policy);
}

bool EventManager::AfterFramesPopped(JNIEnv* jni, jthread thread) {
  hooks_.FramesPopped(jni, thread);
  std::lock_guard lock(mu_);
  for (auto& r : requests_) {
    if (!r->step || r->expired || !jni->IsSameObject(r->step->thread, thread)) continue;
    Step& step = *r->step;
    step.frame_pop_depth = -1;
    step.skip_handler_entry = false;
    step.callee_armed = false;
    StopWatchingEntries(step);  // the caller keeps single stepping (frame_pop.cc)
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

void EventManager::ForgetBreakpointsIn(JNIEnv* jni, const std::vector<jclass>& classes) {
  std::unique_lock lock(mu_);
  for (auto it = requests_.begin(); it != requests_.end();) {
    Request& r = **it;
    bool in_classes = false;
    if (r.kind == EventKind::kBreakpoint && r.bp_method) {
      if (auto declaring = ctx_.jvmti.GetMethodDeclaringClass(r.bp_method)) {
        for (jclass k : classes) in_classes = in_classes || jni->IsSameObject(*declaring, k);
        jni->DeleteLocalRef(*declaring);
      }
    }
    if (!in_classes) {
      ++it;
      continue;
    }
    DeleteRequest(jni, r);
    it = requests_.erase(it);
  }
  RefreshHooks(jni, /*reset_breakpoints=*/true);
  lock.unlock();
  hooks_.TrackRunningFrames(jni);
}

}  // namespace jdwpx::backend
