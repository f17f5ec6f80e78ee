#include "backend/events.h"

#include <algorithm>
#include <chrono>

#include "backend/errors.h"
#include "backend/log.h"
#include "jdwp/codec.h"
#include "jdwp/packet.h"
#include "vmcore/mutf8.h"

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
  // Breakpoint location
  jmethodID bp_method = nullptr;
  jlocation bp_location = 0;
  std::unique_ptr<Step> step;
};

struct EventManager::Item {
  std::vector<uint8_t> packet;  // empty: nothing to send
  SuspendPolicy policy = SuspendPolicy::kNone;
  jobject thread = nullptr;      // global ref, event thread (may be null)
  bool resuspend_after_invoke = false;
  void* deferred_token = nullptr;  // apply a deferred suspension (ThreadControl state)
  uint64_t epoch = 0;
  // Completion signal for a waiting event thread.
  std::mutex* done_mu = nullptr;
  std::condition_variable* done_cv = nullptr;
  bool* done = nullptr;
};

namespace {

// "Lcom/foo/Bar;" -> "com.foo.Bar"; arrays and primitives keep their signature form.
std::string DottedName(const std::string& sig) {
  if (sig.size() >= 2 && sig.front() == 'L' && sig.back() == ';') {
    std::string name = sig.substr(1, sig.size() - 2);
    std::replace(name.begin(), name.end(), '/', '.');
    return name;
  }
  std::string name = sig;
  std::replace(name.begin(), name.end(), '/', '.');
  return name;
}

// ClassMatch patterns: exact, or one '*' at the start or the end.
bool PatternMatches(const std::string& pattern, const std::string& name) {
  if (pattern.empty()) return name.empty();
  if (pattern.front() == '*') {
    std::string_view tail(pattern.data() + 1, pattern.size() - 1);
    return name.size() >= tail.size() && name.compare(name.size() - tail.size(), tail.size(), tail) == 0;
  }
  if (pattern.back() == '*') {
    std::string_view head(pattern.data(), pattern.size() - 1);
    return name.compare(0, head.size(), head) == 0;
  }
  return pattern == name;
}

}  // namespace

EventManager::EventManager(Context& ctx) : ctx_(ctx) {}
EventManager::~EventManager() = default;

std::string EventManager::ClassNameOf(jclass klass) {
  auto sig = ctx_.jvmti.GetClassSignature(klass);
  return sig ? DottedName(sig->signature) : std::string();
}

// ---- requests ---------------------------------------------------------------

jdwp::Result<int32_t> EventManager::Set(JNIEnv* jni, const jdwp::EventRequest::Set::Request& req) {
  switch (req.event_kind) {
    case EventKind::kSingleStep:
    case EventKind::kBreakpoint:
    case EventKind::kException:
    case EventKind::kThreadStart:
    case EventKind::kThreadDeath:
    case EventKind::kClassPrepare:
    case EventKind::kVmDeath:
      break;
    case EventKind::kClassUnload:
      // Accepted (every JDI client requests it at attach) but not reported yet:
      // class unloading is not tracked by this version.
      break;
    case EventKind::kFieldAccess:
    case EventKind::kFieldModification:
    case EventKind::kMethodEntry:
    case EventKind::kMethodExit:
    case EventKind::kMethodExitWithReturnValue:
    case EventKind::kMonitorContendedEnter:
    case EventKind::kMonitorContendedEntered:
    case EventKind::kMonitorWait:
    case EventKind::kMonitorWaited:
      return jdwp::Fail(ErrorCode::kNotImplemented, "event kind not implemented yet");
    default:
      return jdwp::Fail(ErrorCode::kInvalidEventType, "unknown event kind");
  }
  if (static_cast<uint8_t>(req.suspend_policy) > 2) return jdwp::Fail(ErrorCode::kIllegalArgument, "bad suspend policy");

  auto r = std::make_unique<Request>();
  r->kind = req.event_kind;
  r->policy = req.suspend_policy;
  r->modifiers = req.modifiers;
  r->counts.assign(req.modifiers.size(), 0);
  r->resolved.assign(req.modifiers.size(), nullptr);
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
          } else if constexpr (std::is_same_v<T, mod::Step>) {
            if (r->kind != EventKind::kSingleStep) return;
            auto t = ctx_.Thread(jni, x.thread);
            if (!t) { status = tl::unexpected(t.error()); return; }
            if (ctx_.threads.SuspendCount(jni, *t) == 0)
              { status = jdwp::Fail(ErrorCode::kThreadNotSuspended, "step thread not suspended"); return; }
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
                step->start_line = ctx_.LineOf(loc->first, loc->second);
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
  }
  if (r->kind == EventKind::kBreakpoint && !r->bp_method) {
    cleanup();
    return jdwp::Fail(ErrorCode::kIllegalArgument, "breakpoint without LocationOnly");
  }
  if (r->kind == EventKind::kSingleStep && !r->step) {
    cleanup();
    return jdwp::Fail(ErrorCode::kIllegalArgument, "step without Step modifier");
  }

  std::lock_guard lock(mu_);
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
  if (r->step) {
    for (auto& other : requests_)
      if (other->step && jni->IsSameObject(other->step->thread, r->step->thread)) {
        cleanup();
        return jdwp::Fail(ErrorCode::kDuplicate, "a step request for this thread exists");
      }
    (void)ctx_.jvmti.SetEventMode(true, JVMTI_EVENT_SINGLE_STEP, r->step->thread);
  }
  r->id = next_request_id_++;
  int32_t id = r->id;
  requests_.push_back(std::move(r));
  UpdateEventModes(jni);
  return id;
}

void EventManager::StopStepping(JNIEnv* jni, Step& step) {
  (void)ctx_.jvmti.SetEventMode(false, JVMTI_EVENT_SINGLE_STEP, step.thread);
  step.frame_pop_depth = -1;
}

void EventManager::DeleteRequest(JNIEnv* jni, Request& r) {
  if (r.kind == EventKind::kBreakpoint && r.bp_method) {
    bool shared = false;
    for (auto& other : requests_)
      if (other.get() != &r && other->kind == EventKind::kBreakpoint && other->bp_method == r.bp_method &&
          other->bp_location == r.bp_location)
        shared = true;
    if (!shared) (void)ctx_.jvmti.ClearBreakpoint(r.bp_method, r.bp_location);
  }
  if (r.step) {
    StopStepping(jni, *r.step);
    jni->DeleteGlobalRef(r.step->thread);
    r.step.reset();
  }
  for (jobject g : r.refs) jni->DeleteGlobalRef(g);
  r.refs.clear();
}

jdwp::Result<void> EventManager::Clear(JNIEnv* jni, EventKind kind, int32_t request_id) {
  std::lock_guard lock(mu_);
  for (auto it = requests_.begin(); it != requests_.end(); ++it) {
    if ((*it)->id == request_id && (*it)->kind == kind) {
      DeleteRequest(jni, **it);
      requests_.erase(it);
      UpdateEventModes(jni);
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

void EventManager::UpdateEventModes(JNIEnv*) {
  bool exception = false, class_prepare = false;
  for (auto& r : requests_) {
    if (r->expired) continue;
    exception |= r->kind == EventKind::kException;
    class_prepare |= r->kind == EventKind::kClassPrepare;
  }
  (void)ctx_.jvmti.SetEventMode(exception, JVMTI_EVENT_EXCEPTION);
  (void)ctx_.jvmti.SetEventMode(class_prepare, JVMTI_EVENT_CLASS_PREPARE);
}

void EventManager::Hold() {
  std::lock_guard lock(queue_mu_);
  holding_ = true;
}

void EventManager::Release() {
  std::lock_guard lock(queue_mu_);
  holding_ = false;
  while (!held_.empty()) {
    ctx_.send(std::move(held_.front()));
    held_.pop_front();
  }
}

void EventManager::BeginSession() {
  epoch_.fetch_add(1);
  attached_ = true;
}

void EventManager::EndSession(JNIEnv* jni) {
  attached_ = false;
  epoch_.fetch_add(1);
  {
    std::lock_guard lock(mu_);
    for (auto& r : requests_) DeleteRequest(jni, *r);
    requests_.clear();
    UpdateEventModes(jni);
  }
  std::lock_guard lock(queue_mu_);
  holding_ = false;
  held_.clear();
}

// ---- matching ----------------------------------------------------------------

bool EventManager::Matches(JNIEnv* jni, Request& r, jthread thread, jclass klass, const jdwp::Location* loc,
                           jobject exception, bool caught, jobject instance) {
  if (r.expired) return false;
  for (size_t i = 0; i < r.modifiers.size(); ++i) {
    bool ok = std::visit(
        [&](const auto& x) -> bool {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, mod::Count>) {
            if (--r.counts[i] > 0) return false;
            r.expired = true;
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
            return instance && r.resolved[i] && jni->IsSameObject(instance, r.resolved[i]);
          } else if constexpr (std::is_same_v<T, mod::Step>) {
            return thread && r.step && jni->IsSameObject(thread, r.step->thread);
          } else if constexpr (std::is_same_v<T, mod::PlatformThreadsOnly>) {
            return !thread || !ctx_.threads.IsVirtual(jni, thread);
          } else {
            return true;  // Conditional, SourceNameMatch: not filtering yet
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
  if (events.empty()) return;
  jdwp::Event::Composite::Request composite{policy, std::move(events)};
  auto body = jdwp::EncodeBody(composite);
  auto item = std::make_unique<Item>();
  item->packet = jdwp::MakeCommandPacket(next_packet_id_.fetch_add(1), jdwp::Event::Composite::kId, body);
  item->policy = policy;
  item->epoch = epoch_.load();
  bool agent_thread = thread && ThreadControl::CurrentIsAgent();
  if (policy == SuspendPolicy::kNone || !thread || agent_thread) {
    if (thread && !agent_thread) item->thread = jni->NewGlobalRef(thread);
    if (agent_thread && policy == SuspendPolicy::kEventThread) item->policy = SuspendPolicy::kAll;
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

void EventManager::RunReporter(JNIEnv* jni) {
  while (true) {
    std::unique_ptr<Item> item;
    {
      std::unique_lock lock(queue_mu_);
      queue_cv_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;
      item = std::move(queue_.front());
      queue_.pop_front();
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
      std::unique_lock lock(queue_mu_);
      if (holding_ && !item->resuspend_after_invoke) {
        held_.push_back(std::move(item->packet));
      } else {
        lock.unlock();
        ctx_.send(std::move(item->packet));
      }
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

void EventManager::ReportVmDeath(JNIEnv* jni) {
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  {
    std::lock_guard lock(mu_);
    for (auto& r : requests_) {
      if (r->kind != EventKind::kVmDeath) continue;
      if (!Matches(jni, *r, nullptr, nullptr, nullptr, nullptr, false, nullptr)) continue;
      events.push_back(ev::VMDeath{r->id});
      policy = std::max(policy, r->policy);
    }
  }
  // The automatic VMDeath (request 0) is always there; stock sends it in its own set.
  if (!events.empty()) Report(jni, nullptr, std::move(events), SuspendPolicy::kNone);
  std::vector<ev::EventData> automatic;
  automatic.push_back(ev::VMDeath{0});
  Report(jni, nullptr, std::move(automatic), SuspendPolicy::kNone);
}

// ---- JVMTI callbacks -----------------------------------------------------------

bool EventManager::StepCompletes(JNIEnv* jni, Step& step, jthread thread, jmethodID method, jlocation location) {
  auto count = ctx_.jvmti.GetFrameCount(thread);
  if (!count) return false;
  int32_t depth = *count;
  if (depth > step.start_depth) {
    // Entered a callee.
    if (step.depth == jdwp::StepDepth::kInto) {
      if (step.size == jdwp::StepSize::kMin) return true;
      if (!ctx_.LineTable(method)->empty()) return true;
    }
    // Run the callee at full speed: wait for it to return.
    if (ctx_.jvmti.raw()->NotifyFramePop(thread, 0) == JVMTI_ERROR_NONE) {
      step.frame_pop_depth = depth;
      (void)ctx_.jvmti.SetEventMode(false, JVMTI_EVENT_SINGLE_STEP, thread);
    }
    return false;
  }
  if (depth < step.start_depth) return true;  // returned (or unwound) into a caller
  // Same depth.
  if (step.depth == jdwp::StepDepth::kOut) return false;
  if (step.size == jdwp::StepSize::kMin) return method != step.start_method || location != step.start_location;
  int32_t line = ctx_.LineOf(method, location);
  if (method != step.start_method) return true;
  return line != -1 && line != step.start_line;
}

void EventManager::OnSingleStep(JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  {
    std::lock_guard lock(mu_);
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
      // Filtered out (ClassExclude such as java.*): keep stepping from here.
      auto count = ctx_.jvmti.GetFrameCount(thread);
      if (count) step.start_depth = *count;
      step.start_method = method;
      step.start_location = location;
      step.start_line = ctx_.LineOf(method, location);
      if (klass) jni->DeleteLocalRef(klass);
      return;
    }
    auto thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
    events.push_back(ev::SingleStep{step_request->id, thread_id, loc});
    policy = step_request->policy;
    // Breakpoints at this very location are reported in the same set (spec: co-located events).
    for (auto& r : requests_) {
      if (r->kind != EventKind::kBreakpoint || r->bp_method != method || r->bp_location != location) continue;
      if (!Matches(jni, *r, thread, klass, &loc, nullptr, false, nullptr)) continue;
      events.insert(events.begin(), ev::Breakpoint{r->id, thread_id, loc});
      policy = std::max(policy, r->policy);
    }
    // The step is done: the thread runs freely until the debugger steps again.
    step.start_method = method;
    step.start_location = location;
    step.start_line = ctx_.LineOf(method, location);
    if (auto count = ctx_.jvmti.GetFrameCount(thread)) step.start_depth = *count;
    if (step_request->expired) StopStepping(jni, step);
    if (klass) jni->DeleteLocalRef(klass);
  }
  Report(jni, thread, std::move(events), policy);
}

void EventManager::OnFramePop(JNIEnv* jni, jthread thread, jmethodID, bool) {
  std::lock_guard lock(mu_);
  for (auto& r : requests_) {
    if (!r->step || !jni->IsSameObject(r->step->thread, thread)) continue;
    auto count = ctx_.jvmti.GetFrameCount(thread);
    if (r->step->frame_pop_depth >= 0 && count && *count <= r->step->frame_pop_depth) {
      r->step->frame_pop_depth = -1;
      (void)ctx_.jvmti.SetEventMode(true, JVMTI_EVENT_SINGLE_STEP, thread);
    }
  }
}

void EventManager::OnBreakpoint(JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  {
    std::lock_guard lock(mu_);
    // A step that completed here already reported these breakpoints with it.
    for (auto& r : requests_)
      if (r->step && jni->IsSameObject(r->step->thread, thread) && r->step->start_method == method &&
          r->step->start_location == location && r->step->frame_pop_depth < 0) {
        auto count = ctx_.jvmti.GetFrameCount(thread);
        if (count && *count == r->step->start_depth) return;
      }
    jdwp::Location loc = ctx_.LocationOf(jni, method, location);
    jclass klass = nullptr;
    if (auto k = ctx_.jvmti.GetMethodDeclaringClass(method)) klass = *k;
    jdwp::ThreadId thread_id{};
    for (auto& r : requests_) {
      if (r->kind != EventKind::kBreakpoint || r->bp_method != method || r->bp_location != location) continue;
      if (!Matches(jni, *r, thread, klass, &loc, nullptr, false, nullptr)) continue;
      if (thread_id.is_null()) thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
      events.push_back(ev::Breakpoint{r->id, thread_id, loc});
      policy = std::max(policy, r->policy);
    }
    if (klass) jni->DeleteLocalRef(klass);
  }
  Report(jni, thread, std::move(events), policy);
}

void EventManager::OnException(JNIEnv* jni, jthread thread, jmethodID method, jlocation location, jobject exception,
                               jmethodID catch_method, jlocation catch_location) {
  if (ThreadControl::CurrentIsAgent()) return;
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
    for (auto& r : requests_) {
      if (r->kind != EventKind::kException) continue;
      if (!Matches(jni, *r, thread, klass, &loc, exception, catch_method != nullptr, nullptr)) continue;
      if (thread_id.is_null()) {
        thread_id = ctx_.IdOf<jdwp::ThreadId>(jni, thread);
        exception_id = ctx_.TaggedId(jni, exception);
      }
      events.push_back(ev::Exception{r->id, thread_id, loc, exception_id, catch_loc});
      policy = std::max(policy, r->policy);
    }
    if (klass) jni->DeleteLocalRef(klass);
  }
  Report(jni, thread, std::move(events), policy);
}

void EventManager::OnClassPrepare(JNIEnv* jni, jthread thread, jclass klass) {
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  bool agent = thread && ThreadControl::CurrentIsAgent();
  {
    std::lock_guard lock(mu_);
    ev::ClassPrepare base{};
    bool filled = false;
    for (auto& r : requests_) {
      if (r->kind != EventKind::kClassPrepare) continue;
      if (!Matches(jni, *r, thread, klass, nullptr, nullptr, false, nullptr)) continue;
      if (!filled) {
        auto sig = ctx_.jvmti.GetClassSignature(klass);
        base.thread = agent ? jdwp::ThreadId{} : ctx_.IdOf<jdwp::ThreadId>(jni, thread);
        base.ref_type_tag = ctx_.TypeTagOf(klass);
        base.type_id = ctx_.IdOf<jdwp::ReferenceTypeId>(jni, klass);
        base.signature = sig ? vmcore::ModifiedUtf8ToUtf8(sig->signature) : std::string();
        base.status = ctx_.ClassStatusOf(klass);
        filled = true;
      }
      ev::ClassPrepare e = base;
      e.request_id = r->id;
      events.push_back(std::move(e));
      policy = std::max(policy, r->policy);
    }
  }
  Report(jni, agent ? nullptr : thread, std::move(events), policy);
}

template <class Event>
void EventManager::ReportThreadEvent(JNIEnv* jni, jthread thread, EventKind kind) {
  if (ThreadControl::CurrentIsAgent()) return;
  std::vector<ev::EventData> events;
  SuspendPolicy policy = SuspendPolicy::kNone;
  {
    std::lock_guard lock(mu_);
    for (auto& r : requests_) {
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

}  // namespace jdwpx::backend
