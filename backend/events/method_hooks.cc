#include "backend/events/method_hooks.h"

#include <algorithm>

#include "backend/ids/class_names.h"
#include "backend/log.h"
#include "backend/ids/wire_string.h"
#include "vmcore/bytecode.h"

namespace jdwpx::backend {
namespace {

// Each breakpoint costs a VM operation to set; past this many methods the
// JVMTI events serve the requests instead.
constexpr size_t kMaxHookedMethods = 2000;
constexpr jint kAccNative = 0x0100;
constexpr jint kAccAbstract = 0x0400;
constexpr jint kStackChunk = 64;

}  // namespace

MethodHooks::MethodHooks(Context& ctx) : ctx_(ctx), current_(std::make_shared<const Hooks>()) {}

bool MethodHooks::Capable() {
  if (capable_ < 0) {
    auto caps = ctx_.jvmti.GetCapabilities();
    capable_ = caps && caps->can_generate_breakpoint_events && caps->can_generate_method_exit_events;
    can_read_bytecodes_ = caps && caps->can_get_bytecodes;
  }
  return capable_ == 1;
}

std::string MethodHooks::NameOf(jclass klass) const {
  auto sig = ctx_.jvmti.GetClassSignatureOnly(klass);
  // The debugger's patterns are in the wire's encoding (as EventManager::Matches compares).
  return sig ? DottedName(ToWireString(*sig)) : std::string();
}

bool MethodHooks::Accepts(JNIEnv* jni, const RequestFilter& r, jclass klass, const std::string& name) const {
  for (jclass only : r.only)
    if (!jni->IsAssignableFrom(klass, only)) return false;
  for (const auto& pattern : r.match)
    if (!PatternMatches(pattern, name)) return false;
  for (const auto& pattern : r.exclude)
    if (PatternMatches(pattern, name)) return false;
  return true;
}

bool MethodHooks::WantsNames(const std::vector<RequestFilter>& requests) {
  return std::any_of(requests.begin(), requests.end(),
                     [](const RequestFilter& r) { return !r.match.empty() || !r.exclude.empty(); });
}

MethodHooks::Method MethodHooks::Describe(jmethodID method, bool entry, bool exit) const {
  Method m;
  m.entry = entry;
  m.exit = exit;
  if (auto range = ctx_.jvmti.GetMethodLocation(method)) m.start = range->first;
  // Without the bytecode, every frame is followed to its exit (correct, slower).
  m.loops_to_start = true;
  if (can_read_bytecodes_) {
    if (auto code = ctx_.jvmti.GetBytecodes(method)) m.loops_to_start = vmcore::BranchesTo(*code, m.start);
  }
  return m;
}

void MethodHooks::Publish(std::shared_ptr<const Hooks> next) { std::atomic_store(&current_, std::move(next)); }

std::unordered_set<int32_t> MethodHooks::Rebuild(JNIEnv* jni, std::vector<RequestFilter> requests,
                                                 bool reset_breakpoints,
                                                 const std::function<bool(jmethodID, jlocation)>& user_breakpoint_at) {
  std::erase_if(requests, [](const RequestFilter& r) { return !r.Hookable(); });
  if (!requests.empty() && !Capable()) requests.clear();

  // The methods each request may match, over the prepared classes; a native
  // one rules its requests out.
  struct Candidate {
    jmethodID method;
    std::vector<size_t> requests;  // indices into `requests`
  };
  std::vector<Candidate> candidates;
  std::vector<bool> ruled_out(requests.size(), false);
  if (!requests.empty()) {
    const bool wants_names = WantsNames(requests);
    auto loaded = ctx_.jvmti.LoadedClasses();
    for (jclass k : loaded ? *loaded : std::vector<jclass>{}) {
      auto status = ctx_.jvmti.GetClassStatus(k);
      bool usable = status && (*status & JVMTI_CLASS_STATUS_PREPARED) &&
                    !(*status & (JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE));
      std::vector<size_t> accepting;
      if (usable) {
        std::string name = wants_names ? NameOf(k) : std::string();
        for (size_t i = 0; i < requests.size(); ++i)
          if (Accepts(jni, requests[i], k, name)) accepting.push_back(i);
      }
      if (!accepting.empty()) {
        for (jmethodID m : ctx_.jvmti.GetClassMethods(k).value_or(std::vector<jmethodID>{})) {
          auto modifiers = ctx_.jvmti.GetMethodModifiers(m);
          if (!modifiers) continue;
          if (*modifiers & kAccNative) {
            for (size_t i : accepting) ruled_out[i] = true;
          } else if (!(*modifiers & kAccAbstract)) {
            candidates.push_back({m, accepting});
          }
        }
      }
      jni->DeleteLocalRef(k);
    }
  }

  auto next = std::make_shared<Hooks>();
  for (const Candidate& c : candidates) {
    bool entry = false, exit = false;
    for (size_t i : c.requests) {
      if (ruled_out[i]) continue;
      (requests[i].entry ? entry : exit) = true;
    }
    if (!entry && !exit) continue;
    Method& m = next->methods[c.method];
    if (!m.entry && !m.exit) m = Describe(c.method, entry, exit);
    m.entry |= entry;
    m.exit |= exit;
  }
  std::unordered_set<int32_t> hooked;
  if (next->methods.size() > kMaxHookedMethods) {
    next->methods.clear();
  } else {
    for (size_t i = 0; i < requests.size(); ++i) {
      if (ruled_out[i]) continue;
      RequestFilter own = requests[i];
      for (jclass& only : own.only) only = static_cast<jclass>(jni->NewGlobalRef(only));
      next->requests.push_back(std::move(own));
      hooked.insert(requests[i].id);
    }
  }
  for (const auto& [method, m] : next->methods) next->tracks_any |= m.tracked();
  auto previous = Current();
  next->generation = previous->generation + 1;
  next->check_obsolete = previous->check_obsolete || (reset_breakpoints && !next->methods.empty());

  // Breakpoints: the places given up first (unless a breakpoint request holds
  // one), then the new ones (a place already set answers DUPLICATE).
  for (const auto& [method, m] : previous->methods) {
    const Method* kept = next->Find(method);
    if ((!kept || kept->start != m.start) && !user_breakpoint_at(method, m.start))
      (void)ctx_.jvmti.ClearBreakpoint(method, m.start);
  }
  for (const auto& [method, m] : next->methods) {
    const Method* was = previous->Find(method);
    if (reset_breakpoints || !was || was->start != m.start) (void)ctx_.jvmti.SetBreakpoint(method, m.start);
  }
  Publish(next);
  if (!requests.empty() || !previous->methods.empty())
    Log().debug("method hooks: {} methods for {} of {} requests", next->methods.size(), hooked.size(), requests.size());
  for (const RequestFilter& r : previous->requests)
    for (jclass only : r.only) jni->DeleteGlobalRef(only);
  return hooked;
}

bool MethodHooks::AddClass(JNIEnv* jni, jclass klass) {
  auto current = Current();
  if (current->requests.empty()) return true;
  std::string name = WantsNames(current->requests) ? NameOf(klass) : std::string();
  bool entry = false, exit = false;
  for (const RequestFilter& r : current->requests) {
    if (!Accepts(jni, r, klass, name)) continue;
    (r.entry ? entry : exit) = true;
  }
  if (!entry && !exit) return true;
  auto methods = ctx_.jvmti.GetClassMethods(klass);
  if (!methods) return true;
  auto next = std::make_shared<Hooks>(*current);
  std::vector<jmethodID> added;
  for (jmethodID m : *methods) {
    auto modifiers = ctx_.jvmti.GetMethodModifiers(m);
    if (!modifiers || (*modifiers & kAccAbstract)) continue;
    if (*modifiers & kAccNative) return false;
    Method& hook = next->methods[m];
    if (!hook.entry && !hook.exit) {
      hook = Describe(m, entry, exit);
      added.push_back(m);
    }
    hook.entry |= entry;
    hook.exit |= exit;
    next->tracks_any |= hook.tracked();
  }
  if (next->methods.size() > kMaxHookedMethods) return false;
  // Set before the class's code can run: it is being prepared on this thread.
  for (jmethodID m : added) (void)ctx_.jvmti.SetBreakpoint(m, next->methods[m].start);
  Publish(next);
  return true;
}

bool MethodHooks::OnStart(JNIEnv* jni, jthread self, jmethodID method, jlocation location) {
  auto hooks = Current();
  const Method* h = hooks->Find(method);
  if (!h || location != h->start) return false;
  if (!h->tracked()) return h->entry;
  auto depth = ctx_.jvmti.GetFrameCount(self);
  if (!depth) return h->entry;
  auto& frames = ctx_.threads.SelfHookedFrames(jni, self);
  std::lock_guard lock(frames.mu);
  bool again = false;
  std::erase_if(frames.loop_frames, [&](const std::pair<jmethodID, int32_t>& f) {
    if (f.second < *depth) return false;
    if (f.second == *depth && f.first == method) {
      again = true;
      return false;
    }
    return true;  // a frame that ended unseen (popped)
  });
  if (again) {  // the loop at the start went round: no entry
    if (!frames.exit_events && ctx_.jvmti.SetEventMode(true, JVMTI_EVENT_METHOD_EXIT, self)) frames.exit_events = true;
    return false;
  }
  if (h->loops_to_start) frames.loop_frames.emplace_back(method, *depth);
  if (!frames.exit_events && ctx_.jvmti.SetEventMode(true, JVMTI_EVENT_METHOD_EXIT, self)) frames.exit_events = true;
  return h->entry;
}

bool MethodHooks::Followed(const Hooks& hooks, jmethodID method) const {
  if (const Method* h = hooks.Find(method)) return h->tracked();
  if (!hooks.check_obsolete) return false;
  auto obsolete = ctx_.jvmti.IsMethodObsolete(method);
  return obsolete && *obsolete;
}

bool MethodHooks::FollowedFrameFrom(jthread thread, const Hooks& hooks, jint start) const {
  auto count = ctx_.jvmti.GetFrameCount(thread);
  if (!count) return true;  // unknown: keep following
  for (jint at = start; at < *count; at += kStackChunk) {
    auto frames = ctx_.jvmti.GetStackTrace(thread, at, std::min(kStackChunk, *count - at));
    if (!frames) return true;
    for (const auto& f : *frames)
      if (Followed(hooks, f.method)) return true;
  }
  return false;
}

std::vector<vmcore::Frame> MethodHooks::WholeStack(jthread thread) const {
  for (jint room = kStackChunk;; room *= 2) {
    auto count = ctx_.jvmti.GetFrameCount(thread);
    if (!count) return {};
    auto trace = ctx_.jvmti.GetStackTrace(thread, 0, *count + room);
    if (!trace) return {};
    if (static_cast<jint>(trace->size()) < *count + room) return std::move(*trace);
  }
}

void MethodHooks::StopFollowing(jthread thread, ThreadControl::HookedFrames& frames) {
  if (frames.exit_events && !ctx_.jvmti.SetEventMode(false, JVMTI_EVENT_METHOD_EXIT, thread)) return;
  frames.exit_events = false;
  // Nothing would tell their frames' ends from here on.
  frames.loop_frames.clear();
}

void MethodHooks::OnExit(JNIEnv* jni, jthread self, jmethodID method) {
  auto& frames = ctx_.threads.SelfHookedFrames(jni, self);
  {
    auto hooks = Current();
    // A frame not followed (a callee of one that is), and no change of the
    // hooks since this thread's last look: nothing changes.
    if (!Followed(*hooks, method) && frames.generation.load(std::memory_order_acquire) == hooks->generation) return;
  }
  std::lock_guard lock(frames.mu);
  // Read under the lock: a request made meanwhile has followed its frames first.
  auto hooks = Current();
  frames.generation.store(hooks->generation, std::memory_order_release);
  if (!frames.exit_events && frames.loop_frames.empty()) return;
  // The frame ending and any deeper one listed (ended unseen) go, and so do
  // methods no longer hooked as loops.
  auto depth = ctx_.jvmti.GetFrameCount(self);
  std::erase_if(frames.loop_frames, [&](const std::pair<jmethodID, int32_t>& f) {
    const Method* h = hooks->Find(f.first);
    return (depth && f.second >= *depth) || !h || !h->loops_to_start;
  });
  if (!FollowedFrameFrom(self, *hooks, 1)) StopFollowing(self, frames);
}

void MethodHooks::TrackRunningFrames(JNIEnv* jni) {
  auto hooks = Current();
  if (!hooks->tracks_any) return;
  auto threads = ctx_.threads.DebuggeeThreads(jni);
  if (!threads) return;
  for (jthread thread : *threads) {
    // The VM is suspended (threads in our callbacks are in native code): stacks hold still.
    std::vector<vmcore::Frame> stack = WholeStack(thread);
    const auto n = static_cast<int32_t>(stack.size());
    bool any = std::any_of(stack.begin(), stack.end(), [&](const vmcore::Frame& f) { return Followed(*hooks, f.method); });
    if (any) {
      ctx_.threads.WithHookedFrames(jni, thread, [&](ThreadControl::HookedFrames& frames) {
        std::lock_guard lock(frames.mu);
        // What the record says of frames the stack does not have goes.
        std::erase_if(frames.loop_frames, [&](const std::pair<jmethodID, int32_t>& f) {
          return f.second < 1 || f.second > n || stack[n - f.second].method != f.first;
        });
        for (int32_t i = 0; i < n; ++i) {
          const Method* h = hooks->Find(stack[i].method);
          std::pair<jmethodID, int32_t> frame{stack[i].method, n - i};
          if (h && h->loops_to_start &&
              std::find(frames.loop_frames.begin(), frames.loop_frames.end(), frame) == frames.loop_frames.end())
            frames.loop_frames.push_back(frame);
        }
        if (!frames.exit_events && ctx_.jvmti.SetEventMode(true, JVMTI_EVENT_METHOD_EXIT, thread))
          frames.exit_events = true;
        frames.generation.store(hooks->generation, std::memory_order_release);
      });
    }
    jni->DeleteLocalRef(thread);
  }
}

void MethodHooks::FramesPopped(JNIEnv* jni, jthread thread) {
  ctx_.threads.WithHookedFrames(jni, thread, [&](ThreadControl::HookedFrames& frames) {
    std::lock_guard lock(frames.mu);
    auto count = ctx_.jvmti.GetFrameCount(thread);
    if (!count) return;
    std::erase_if(frames.loop_frames, [&](const std::pair<jmethodID, int32_t>& f) { return f.second > *count; });
    if (frames.exit_events && !FollowedFrameFrom(thread, *Current(), 0)) StopFollowing(thread, frames);
  });
}

}  // namespace jdwpx::backend
