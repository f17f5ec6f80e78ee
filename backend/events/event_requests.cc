// EventRequests (event_requests.h): EventRequest.Set and Clear, what a request
// holds in the VM (breakpoints, field watches, JVMTI event modes, method
// hooks), expiry, and the session's switches. The filters: event_filters.cc.
#include "backend/events/event_requests.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "backend/errors.h"
#include "backend/events/event_request.h"
#include "backend/log.h"
#include "backend/events/request_rules.h"
#include "jdwp/object_ids.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;
using jdwp::EventKind;
using jdwp::SuspendPolicy;
namespace ev = jdwp::events;
namespace mod = jdwp::modifiers;

EventRequests::EventRequests(Context& ctx, Outbox& outbox, StepControl& steps)
    : ctx_(ctx), outbox_(outbox), steps_(steps), hooks_(ctx) {}
EventRequests::~EventRequests() = default;

// ---- requests ---------------------------------------------------------------

// The JVMTI capability an event kind cannot do without, when not granted (only
// ever so after a late attach); nullptr when the kind can be requested.
const char* EventRequests::MissingCapability(EventKind kind) {
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

void EventRequests::WarnIfExceptionsCannotFire() {
  static std::atomic<bool> warned{false};
  auto granted = ctx_.jvmti.GetCapabilities();
  if (!granted || granted->can_generate_exception_events || warned.exchange(true)) return;
  Log().warn("Exception requests are accepted but never fire: this JVM did not grant "
             "can_generate_exception_events (jdwpx was loaded into a running JVM)");
}

jdwp::Result<int32_t> EventRequests::Set(JNIEnv* jni, const jdwp::EventRequest::Set::Request& req,
                                         SessionSlot session) {
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
  r->session = session;  // before the step is armed: its single-step mode is the session's
  r->kind = req.event_kind;
  r->policy = req.suspend_policy;
  r->modifiers = req.modifiers;
  r->counts.assign(req.modifiers.size(), 0);
  r->resolved.assign(req.modifiers.size(), nullptr);
  // A running thread suspended for its step's start (below): resumed when Set returns.
  jthread step_thread_held = nullptr;
  struct ResumeHeld {
    EventRequests* self;
    JNIEnv* jni;
    jthread* thread;
    ~ResumeHeld() {
      if (!*thread) return;
      (void)self->ctx_.threads.Resume(jni, *thread, SessionSlot{0});
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
            auto step = steps_.Start(jni, x, step_thread_held);
            if (!step) { status = tl::unexpected(step.error()); return; }
            r->step = std::move(*step);
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

  if (r->kind == EventKind::kClassUnload && !unloads_.started()) StartUnloadTracking(jni);
  // A method request may change the method hooks: no debuggee thread runs Java
  // code until the frames threads are in are followed (method_hooks.h).
  const bool method_request = IsMethodEvent(r->kind);
  ThreadControl::ScopedVmSuspension frozen(ctx_.threads, jni, method_request, SessionSlot{0});
  std::unique_lock lock(mu_);
  if (r->kind == EventKind::kBreakpoint) {
    if (!requests_.HasBreakpointAt(r->bp_method, r->bp_location)) {
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
    // One step per thread and session: another session's step on the thread is its own.
    for (Request* other : requests_.Steps())
      if (other->session == session && jni->IsSameObject(other->step->thread, r->step->thread)) {
        if (r->watching) RemoveWatch(r->kind, r->watch_klass, r->watch_field);
        cleanup();
        return jdwp::Fail(ErrorCode::kDuplicate, "a step request for this thread exists");
      }
    r->step->owner = r.get();
    steps_.Arm(jni, *r->step);
  }
  r->id = next_request_id_++;
  int32_t id = r->id;
  requests_.Add(std::move(r));
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

void EventRequests::DeleteRequest(JNIEnv* jni, Request& r) {
  if (r.kind == EventKind::kBreakpoint && r.bp_method) {
    // Still in the table: shared when another request is at the same place.
    bool shared = requests_.BreakpointsAt(r.bp_method, r.bp_location).size() > 1 ||
                  probe_places_.Has(r.bp_method, r.bp_location);
    if (!shared && !hooks_.BreakpointAt(r.bp_method, r.bp_location))
      (void)ctx_.jvmti.ClearBreakpoint(r.bp_method, r.bp_location);
  }
  if (r.step) {
    steps_.Stop(jni, *r.step);
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

std::vector<EventRequests::Watch>::iterator EventRequests::FindWatch(JNIEnv* jni, EventKind kind, jclass klass,
                                                                   jfieldID field) {
  return std::find_if(watches_.begin(), watches_.end(), [&](const Watch& w) {
    return w.kind == kind && w.field == field && jni->IsSameObject(w.klass, klass);
  });
}

jdwp::Result<void> EventRequests::AddWatch(EventKind kind, jclass klass, jfieldID field) {
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

void EventRequests::RemoveWatch(EventKind kind, jclass klass, jfieldID field) {
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

jdwp::Result<void> EventRequests::Clear(JNIEnv* jni, EventKind kind, int32_t request_id, SessionSlot session) {
  // The other method requests may be hooked now (below the limit): as in Set.
  ThreadControl::ScopedVmSuspension frozen(ctx_.threads, jni, IsMethodEvent(kind), SessionSlot{0});
  std::unique_lock lock(mu_);
  Request* r = requests_.Find(kind, request_id);
  // As stock: clearing an unknown request is not an error; another session's is unknown to this one.
  if (!r || r->session != session) return {};
  DeleteRequest(jni, *r);
  (void)requests_.Remove(*r);
  if (!IsMethodEvent(kind)) {
    UpdateEventModes(jni);
    return {};
  }
  RefreshHooks(jni);
  lock.unlock();
  hooks_.TrackRunningFrames(jni);
  return {};
}

void EventRequests::ClearAllBreakpoints(JNIEnv* jni, SessionSlot session) {
  std::lock_guard lock(mu_);
  for (Request* r : RequestTable::View(requests_.OfKind(EventKind::kBreakpoint))) {
    if (r->session != session) continue;
    DeleteRequest(jni, *r);
    (void)requests_.Remove(*r);
  }
  UpdateEventModes(jni);
}

void EventRequests::ReleaseExpired(JNIEnv* jni) {
  if (!expired_pending_.exchange(false)) return;
  bool post = false;
  {
    std::lock_guard lock(mu_);
    bool deleted = false;  // or a method request expired: the event modes change
    std::vector<Request*> expired;
    for (auto& r : requests_.All())
      if (r->expired) expired.push_back(r.get());
    for (Request* r : expired) {
      if (IsMethodEvent(r->kind)) {
        // The JVMTI events it needed go off now (UpdateEventModes skips expired
        // requests); the method hooks change only with no Java code running
        // (method_hooks.h): on the command thread, before any command that
        // follows this event.
        post |= !std::exchange(r->release_posted, true);
        deleted = true;
        continue;
      }
      DeleteRequest(jni, *r);
      (void)requests_.Remove(*r);
      deleted = true;
    }
    if (deleted) UpdateEventModes(jni);
  }
  if (post) outbox_.PostTask([this](JNIEnv* env) { ReleaseExpiredMethodRequests(env); });
}

void EventRequests::ReleaseExpiredMethodRequests(JNIEnv* jni) {
  auto expired_method_requests = [this] {
    std::vector<Request*> expired;
    for (auto& r : requests_.All())
      if (r->expired && IsMethodEvent(r->kind)) expired.push_back(r.get());
    return expired;
  };
  {
    std::lock_guard lock(mu_);
    if (expired_method_requests().empty()) return;  // cleared meanwhile
  }
  // As Clear does: the other method requests may be hooked now.
  ThreadControl::ScopedVmSuspension frozen(ctx_.threads, jni, true, SessionSlot{0});
  std::unique_lock lock(mu_);
  for (Request* r : expired_method_requests()) {
    DeleteRequest(jni, *r);
    (void)requests_.Remove(*r);
  }
  RefreshHooks(jni);
  lock.unlock();
  hooks_.TrackRunningFrames(jni);
}

void EventRequests::SetGlobalMode(jvmtiEvent event, bool on) {
  // A JVMTI mode change costs the VM a recomputation over its threads: made
  // only when the mode changes (every request's Set and Clear come here).
  int8_t& applied = global_modes_.at(static_cast<size_t>(event - JVMTI_MIN_EVENT_TYPE_VAL));
  if (applied == static_cast<int8_t>(on)) return;
  if (ctx_.jvmti.SetEventMode(on, event)) applied = static_cast<int8_t>(on);
  // Classes prepared from now on go untagged until the next TagLoaded.
  if (event == JVMTI_EVENT_CLASS_PREPARE && applied == 0) unloads_.MarkIncomplete();
}

void EventRequests::StartUnloadTracking(JNIEnv* jni) {
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

void EventRequests::TrackUnloadsBeforeDebugger(JNIEnv* jni) {
  {
    std::lock_guard lock(mu_);
    awaiting_debugger_ = true;  // keeps ClassPrepare on (UpdateEventModes)
  }
  StartUnloadTracking(jni);
}

void EventRequests::WaitForDebuggerEnded(JNIEnv* jni) {
  std::lock_guard lock(mu_);
  if (!awaiting_debugger_) return;
  awaiting_debugger_ = false;
  UpdateEventModes(jni);
}

void EventRequests::UpdateEventModes(JNIEnv*) {
  // While a session is active every prepared class is met: the class table
  // lists it (class_table.h), and once tracking unloads it is tagged
  // (ActivateSession tags those prepared between sessions): a class loaded in
  // one session may unload in the next one.
  bool exception = false, class_prepare = session_active_ || awaiting_debugger_ || class_prepare_listener_.load(),
       entry = false, exit = false, access = false,
       modification = false;
  bool contended_enter = false, contended_entered = false, wait = false, waited = false;
  for (auto& r : requests_.All()) {
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

void EventRequests::RefreshHooks(JNIEnv* jni, bool reset_breakpoints) {
  std::vector<MethodHooks::RequestFilter> filters;
  for (auto& r : requests_.All()) {
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
  for (auto& r : requests_.All()) r->hooked = hooked.contains(r->id);
  UpdateEventModes(jni);
}

void EventRequests::BeginSession() {
  (void)unloads_.TakeUnloaded();  // of no session's concern
}

void EventRequests::ActivateSession(JNIEnv* jni) {
  {
    std::lock_guard lock(mu_);
    session_active_ = true;
    awaiting_debugger_ = false;  // the session keeps ClassPrepare on from here
    UpdateEventModes(jni);
  }
  // After ClassPrepare is on (a class prepared meanwhile is met at its
  // ClassPrepare), and outside mu_, which ClassPrepare callbacks take. Nothing
  // to tag when ClassPrepare stayed on since the last scan (a debugger awaited
  // at start-up, a probe's listener between sessions).
  if (!unloads_.complete()) unloads_.TagLoaded(jni);
}

void EventRequests::DeactivateSession(JNIEnv* jni) {
  std::lock_guard lock(mu_);
  session_active_ = false;
  UpdateEventModes(jni);
}

void EventRequests::EndSession(JNIEnv* jni, SessionSlot session) {
  std::lock_guard lock(mu_);
  std::vector<Request*> ending;
  for (auto& r : requests_.All())
    if (r->session == session) ending.push_back(r.get());
  // One at a time: a breakpoint shared by two requests is cleared in the VM
  // with the last of them (DeleteRequest looks at those still in the table).
  for (Request* r : ending) {
    DeleteRequest(jni, *r);
    (void)requests_.Remove(*r);
  }
  RefreshHooks(jni);
}

namespace {

ObjectTable::SessionIds IdsOf(SessionSlot session, const std::vector<jdwp::events::EventData>& events) {
  ObjectTable::SessionIds s{session, {}};
  jdwp::ForEachObjectId(events, [&](uint64_t id) { s.ids.push_back(id); });
  return s;
}

}  // namespace

void EventRequests::SettleEventIds(JNIEnv* jni, SessionSlot session, const std::vector<jdwp::events::EventData>& events) {
  if (!ctx_.objects.EventIdsToSettle()) return;  // one session: each ID was counted as it was made
  ctx_.objects.SettleEventIds(jni, {IdsOf(session, events)});
}

void EventRequests::SettleEventIds(JNIEnv* jni, const std::vector<EventReporter::SessionComposite>& composites) {
  if (!ctx_.objects.EventIdsToSettle()) return;
  std::vector<ObjectTable::SessionIds> sent;
  for (const auto& c : composites) sent.push_back(IdsOf(c.session, c.events));
  ctx_.objects.SettleEventIds(jni, sent);
}

void ReportComposite(EventRequests& requests, EventReporter& reporter, JNIEnv* jni, jthread thread,
                     std::vector<ev::EventData> events, const Answers& answers) {
  // Before the event goes: what expired requests hold in the VM is let go.
  requests.ReleaseExpired(jni);
  if (answers.OneSession()) {
    requests.SettleEventIds(jni, answers.session(), events);
    reporter.Report(jni, thread, std::move(events), answers.policy(), answers.session());
    return;
  }
  // Each session its own composite, in the events' order, with its own policy.
  std::vector<EventReporter::SessionComposite> composites;
  for (ev::EventData& event : events) {
    const int32_t request = std::visit([](const auto& e) { return e.request_id; }, event);
    const Answers::Answer* answer = answers.Find(request);
    const SessionSlot session = answer ? answer->session : SessionSlot{0};
    auto it = std::find_if(composites.begin(), composites.end(),
                           [&](const EventReporter::SessionComposite& c) { return c.session == session; });
    if (it == composites.end()) it = composites.insert(composites.end(), {session, {}, SuspendPolicy::kNone});
    it->events.push_back(std::move(event));
    if (answer) it->policy = std::max(it->policy, answer->policy);
  }
  requests.SettleEventIds(jni, composites);
  reporter.ReportEach(jni, thread, std::move(composites));
}

void EventRequests::ForgetBreakpointsIn(JNIEnv* jni, const std::vector<jclass>& classes) {
  std::unique_lock lock(mu_);
  for (Request* r : RequestTable::View(requests_.OfKind(EventKind::kBreakpoint))) {
    bool in_classes = false;
    if (!r->bp_method) continue;
    if (auto declaring = ctx_.jvmti.GetMethodDeclaringClass(r->bp_method)) {
      for (jclass k : classes) in_classes = in_classes || jni->IsSameObject(*declaring, k);
      jni->DeleteLocalRef(*declaring);
    }
    if (!in_classes) continue;
    DeleteRequest(jni, *r);
    (void)requests_.Remove(*r);
  }
  RefreshHooks(jni, /*reset_breakpoints=*/true);
  lock.unlock();
  hooks_.TrackRunningFrames(jni);
}

jdwp::Result<void> EventRequests::AddProbePlace(jmethodID method, jlocation location, std::shared_ptr<ProbeHook> hook) {
  std::lock_guard lock(mu_);
  if (!requests_.HasBreakpointAt(method, location) && !probe_places_.Has(method, location) &&
      !hooks_.BreakpointAt(method, location)) {
    auto set = ctx_.jvmti.SetBreakpoint(method, location);
    if (!set && set.error().code != JVMTI_ERROR_DUPLICATE) return tl::unexpected(FromVm(set.error()));
  }
  probe_places_.Add(method, location, std::move(hook));
  any_probes_ = true;
  return {};
}

void EventRequests::RemoveProbePlace(jmethodID method, jlocation location, const ProbeHook* hook) {
  std::lock_guard lock(mu_);
  if (!probe_places_.Has(method, location)) return;
  const bool last = probe_places_.Remove(method, location, hook);
  any_probes_ = !probe_places_.empty();
  if (last && !requests_.HasBreakpointAt(method, location) && !hooks_.BreakpointAt(method, location))
    (void)ctx_.jvmti.ClearBreakpoint(method, location);
}

void EventRequests::DiscardCompiledCode(jmethodID method) {
  constexpr jlocation kFirst = 0;
  std::lock_guard lock(mu_);
  if (requests_.HasBreakpointAt(method, kFirst) || probe_places_.Has(method, kFirst) ||
      hooks_.BreakpointAt(method, kFirst))
    return;
  // Native and abstract methods take no breakpoint (and have no code to discard).
  if (ctx_.jvmti.SetBreakpoint(method, kFirst)) (void)ctx_.jvmti.ClearBreakpoint(method, kFirst);
}

ProbePlaces::Hooks EventRequests::ProbesAt(jmethodID method, jlocation location, bool* requests_here) {
  if (!any_probes_.load(std::memory_order_relaxed)) return {};
  std::lock_guard lock(mu_);
  const ProbePlaces::Hooks* hooks = probe_places_.At(method, location);
  if (!hooks) return {};
  if (requests_here) *requests_here = requests_.HasBreakpointAt(method, location);
  return *hooks;
}

void EventRequests::SetClassPrepareListener(JNIEnv* jni, ClassPrepareListener* listener) {
  std::lock_guard lock(mu_);
  class_prepare_listener_ = listener;
  UpdateEventModes(jni);
}

}  // namespace jdwpx::backend
