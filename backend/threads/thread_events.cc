// ThreadControl (threads.h), the event threads' side: suspension for an
// event's policy, the callbacks' enter and exit, parking until resumed, and
// invocations run on a suspended thread. The debugger's side (suspend and
// resume counts, all threads, virtual threads): threads.cc.
#include "backend/threads/threads.h"

#include <algorithm>

#include "backend/errors.h"
#include "backend/log.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;

namespace {
// The calling thread's State, once found (SelfState); cleared as it ends (ForgetSelf).
thread_local void* t_self_state = nullptr;
}  // namespace

void ThreadControl::ResumeEverything(JNIEnv* jni, SessionSlot slot) {
  std::lock_guard lock(mu_);
  suspend_all_total_ -= std::exchange(suspend_all_count_[slot], 0);
  // ResumeAllVirtualThreads follows (no session left with a VM-level count):
  // it resumes the uncounted by_all threads.
  const bool all_virtual_resume = suspend_all_total_ == 0 && all_virtual_suspended_;
  std::vector<State*> batch;
  for (auto& [tid, s] : states_) {
    while (s->held[slot] > 0) (void)ReleaseLocked(*s, slot);
    if (s->invoke_slot == slot) s->invoke_resuspend = false;
    if (s->count > 0) continue;  // another session holds it
    if (s->by_all && s->suspended && all_virtual_resume) continue;  // ResumeUnknownVirtualLocked
    if (s->suspended && !s->deferred)
      batch.push_back(s.get());
    else
      (void)ResumeLocked(jni, *s);
  }
  ResumeBatchLocked(batch);
  if (suspend_all_total_ == 0) ResumeUnknownVirtualLocked();
  cv_.notify_all();
}

void ThreadControl::SuspendForEvent(JNIEnv* jni, jthread event_thread, jdwp::SuspendPolicy policy,
                                    SessionSlot slot) {
  if (policy == jdwp::SuspendPolicy::kNone) return;
  if (policy == jdwp::SuspendPolicy::kAll) {
    // The event thread is known (its callback made its State), so
    // SuspendAllVirtualThreads excepts it.
    (void)SuspendAll(jni, slot);
    if (!event_thread) return;  // an event of no thread, or of an agent thread (never suspended)
    // The event thread must be counted even if GetAllThreads missed it (it is starting or ending).
    std::lock_guard lock(mu_);
    State& s = StateOf(jni, event_thread);
    if (EnforcedLocked(s, slot) == 0) CountLocked(s, slot);
    // The event thread waits for the reporter, holding no lock: suspend it now.
    (void)ForceSuspendLocked(s);
    return;
  }
  if (!event_thread) return;
  std::lock_guard lock(mu_);
  State& s = StateOf(jni, event_thread);
  CountLocked(s, slot);
  (void)ForceSuspendLocked(s);
}

ThreadControl::State* ThreadControl::SelfState(JNIEnv* jni, jthread self) {
  // This thread may be suspended at any JNI call, so it makes its JNI calls
  // (its tid, a global reference) with mu_ released and takes mu_ only for
  // plain reads and stores. An agent thread may add this thread's State
  // meanwhile (StateOf): the fresh one is added only if none is there by then.
  // A virtual thread runs on a carrier whose thread_local cache names the
  // carrier (or another virtual thread): its cache is its JVMTI thread-local slot.
  bool is_virtual = IsVirtual(jni, self);
  VirtualSlot* slot = nullptr;
  if (is_virtual) {
    slot = CurrentSlot(true);
    if (slot && slot->state) return slot->state;
  } else if (auto* cached = static_cast<State*>(t_self_state)) {
    return cached;
  }
  auto remember = [&](State* s) {
    if (!is_virtual)
      t_self_state = s;
    else if (slot)
      slot->state = s;
  };
  jlong tid = TidOf(jni, self);
  {
    std::lock_guard lock(mu_);
    if (State* found = FindLocked(tid)) {
      found->maybe_dead = false;  // it runs
      remember(found);
      return found;
    }
  }
  auto fresh = std::make_unique<State>();
  fresh->thread = jni->NewGlobalRef(self);
  fresh->tid = tid;
  fresh->is_virtual = is_virtual;
  State* s = nullptr;
  {
    std::lock_guard lock(mu_);
    s = FindLocked(tid);
    if (!s) {
      // Inside a callback: a VM-level suspension in force applies when it ends.
      fresh->generation = next_generation_++;
      StartCountsLocked(*fresh);
      // A virtual thread never met is JVMTI-suspended by SuspendAllVirtualThreads
      // (EnterCallback lets that take effect holding no lock); others wait for the callback's end.
      if (fresh->is_virtual && all_virtual_suspended_) {
        fresh->suspended = true;
        fresh->by_all = fresh->count > 0;
      } else
        fresh->deferred = fresh->count > 0;
      s = fresh.get();
      AddStateLocked(std::move(fresh));
    }
  }
  if (fresh) jni->DeleteGlobalRef(fresh->thread);  // an agent thread made one meanwhile
  remember(s);
  return s;
}

void* ThreadControl::PrepareToPark(JNIEnv* jni, jthread self, bool for_event) {
  State* s = SelfState(jni, self);
  std::lock_guard lock(mu_);
  s->parked = true;
  s->event_pending = for_event;
  return s;
}

void* ThreadControl::SuspendAllForOwnEvent(JNIEnv* jni, jthread self, std::vector<jthread>& listed,
                                           SessionSlot slot) {
  State* me = SelfState(jni, self);
  std::vector<jlong> tids;
  if (auto all = DebuggeeThreads(jni, &tids)) listed = std::move(*all);
  const bool carrier_listed = virtual_threads_ && !vthreads_seen_.load() && AnyCarrier(jni, listed);
  // The States of threads not met yet are made with mu_ released (JNI), as SelfState does.
  std::vector<size_t> unknown;
  {
    std::lock_guard lock(mu_);
    for (size_t i = 0; i < tids.size(); ++i)
      if (!FindLocked(tids[i])) unknown.push_back(i);
  }
  std::vector<std::unique_ptr<State>> fresh;
  for (size_t i : unknown) fresh.push_back(NewState(jni, listed[i], tids[i]));  // no agent threads listed
  // From its count on, this thread makes no JNI or JVMTI call of its own until
  // Park returns (it is suspended); the JVMTI suspension of the others is made here.
  std::lock_guard lock(mu_);
  for (auto& s : fresh) {
    if (FindLocked(s->tid)) {
      graveyard_.push_back(std::move(s));  // made meanwhile; the reference is freed later
      continue;
    }
    AdoptLocked(std::move(s));
  }
  std::vector<State*> states;
  states.reserve(tids.size());
  // A thread whose State was dropped meanwhile has ended: nothing to suspend.
  for (jlong tid : tids)
    if (State* s = FindLocked(tid)) states.push_back(s);
  me->parked = true;
  me->event_pending = false;
  // `me` is in states_ (SelfState): counted whether the list had it or not.
  SuspendListedLocked(states, carrier_listed, me, slot);
  cv_.notify_all();  // WaitUntilSuspended (a pending thread counts as suspended there)
  return me;
}

void ThreadControl::AfterOwnSuspendAll(JNIEnv* jni, std::vector<jthread>& listed) {
  for (jthread t : listed) jni->DeleteLocalRef(t);
  listed.clear();
  FreeGraveyard(jni);
}

void* ThreadControl::SuspendSelfForEvent(JNIEnv* jni, jthread self, std::span<const SessionSlot> slots) {
  State* s = SelfState(jni, self);
  std::lock_guard lock(mu_);
  s->parked = true;
  s->event_pending = false;
  const bool counted_before = s->count > 0;
  for (SessionSlot slot : slots) CountLocked(*s, slot);
  // Suspended already (a virtual thread met under SuspendAllVirtualThreads) or
  // pending: nothing more. A suspension deferred to this callback's end
  // (VirtualMachine.Suspend meanwhile) is pending as well, as at an invoke's end.
  if (!s->suspended) MarkPendingLocked(*s);
  // Only a thread counted before can have a WaitUntilSuspended waiting for it
  // (a count of 0 ends that wait); the other parked threads are not woken.
  if (counted_before) cv_.notify_all();
  return s;
}

void ThreadControl::EventHandled(void* token) {
  auto* s = static_cast<State*>(token);
  std::lock_guard lock(mu_);
  s->event_pending = false;
  // Suspended by its event (the usual case): Park waits on for a resume, whose
  // notify wakes it; no wake-up now.
  if (s->count == 0) cv_.notify_all();
}

void* ThreadControl::EnterCallback(JNIEnv* jni, jthread self) {
  State* s = SelfState(jni, self);
  bool suspended_on_entry = false;
  {
    std::lock_guard lock(mu_);
    ++s->in_callback;
    suspended_on_entry = s->suspended;
  }
  // JVMTI-suspended before it counted itself in (VirtualMachine.Suspend, another
  // thread's SUSPEND_ALL event): a thread in native code stops at its next JNI or
  // JVMTI call. Make that call here, holding none of our locks, instead of later
  // inside the callback while it holds one (which would block every command
  // needing that lock until the thread is resumed).
  if (suspended_on_entry) (void)jvmti_.GetThreadState(self);
  return s;
}

bool ThreadControl::ExitCallback(void* token) {
  auto* s = static_cast<State*>(token);
  std::lock_guard lock(mu_);
  --s->in_callback;
  return s->in_callback == 0 && s->deferred && s->count > 0;
}

std::vector<std::unique_ptr<ThreadControl::State>> ThreadControl::TakeGraveyardLocked() {
  std::vector<std::unique_ptr<State>> dead;
  dead.swap(graveyard_);
  return dead;
}

void ThreadControl::ForgetSelf(JNIEnv* jni, void* token) {
  auto* s = static_cast<State*>(token);
  const bool is_virtual = s->is_virtual;  // s may be freed by another thread once buried
  // Unlisted first, so that no VirtualMachine.Suspend lists the ending thread
  // and makes it a new State after this one is dropped.
  if (is_virtual) UnlistCurrentVirtual(jni);
  std::vector<std::unique_ptr<State>> dead;
  {
    std::lock_guard lock(mu_);
    if (s->count > 0 || s->in_callback > 0 || s->invoking || s->invoke) {
      s->maybe_dead = true;  // at its end: JVMTI may refuse it from now on
      return;
    }
    BuryLocked(s);
    dead = TakeGraveyardLocked();
  }
  if (t_self_state == s) t_self_state = nullptr;
  if (is_virtual)
    if (VirtualSlot* slot = CurrentSlot(false); slot && slot->state == s) slot->state = nullptr;
  for (auto& d : dead) jni->DeleteGlobalRef(d->thread);
}

ThreadControl::HookedFrames& ThreadControl::SelfHookedFrames(JNIEnv* jni, jthread self) {
  return SelfState(jni, self)->hooked;
}

void ThreadControl::WithHookedFrames(JNIEnv* jni, jthread thread, const std::function<void(HookedFrames&)>& fn) {
  std::lock_guard lock(mu_);
  fn(StateOf(jni, thread).hooked);
}

void ThreadControl::ApplyDeferred(void* token) {
  auto* s = static_cast<State*>(token);
  std::lock_guard lock(mu_);
  if (s->deferred && s->count > 0 && s->in_callback == 0) (void)ForceSuspendLocked(*s);
  s->deferred = false;
}

void ThreadControl::Park(JNIEnv* jni, void* token) {
  auto* s = static_cast<State*>(token);
  std::unique_lock lock(mu_);
  while (true) {
    // A pending invoke runs only once the thread is resumed (as stock).
    cv_.wait(lock, [&] { return s->count == 0 && !s->event_pending; });
    if (s->invoke) {
      auto work = std::move(s->invoke);
      s->invoke = nullptr;
      s->invoking = true;
      lock.unlock();
      try {
        work(jni);
      } catch (...) {
        Log().error("invoke failed with an exception");
      }
      lock.lock();
      s->invoking = false;
      continue;
    }
    break;
  }
  s->parked = false;
}

jdwp::Result<void> ThreadControl::StartInvoke(JNIEnv* jni, jthread thread, bool single_threaded,
                                               std::function<void(JNIEnv*)> work, SessionSlot slot) {
  std::lock_guard lock(mu_);
  State& s = StateOf(jni, thread);
  if (s.invoking || s.invoke) return jdwp::Fail(ErrorCode::kAlreadyInvoking, "thread is already invoking");
  if (!s.parked || s.held[slot] == 0) return jdwp::Fail(ErrorCode::kInvalidThread, "thread not suspended by an event");
  s.invoke = std::move(work);
  s.invoke_single = single_threaded;
  s.invoke_resuspend = true;
  s.invoke_slot = slot;
  // As stock (and the spec): the call starts with a resume that acts exactly
  // like ThreadReference.Resume or VirtualMachine.Resume of the session. A
  // thread whose count stays above 0 (the invoking one included) stays
  // suspended, and an event inside the call stops the thread again; Park runs
  // the call at count 0 (the invoking thread's other sessions lend theirs:
  // ReleaseLocked).
  if (single_threaded) {
    if (ReleaseLocked(s, slot)) (void)ResumeLocked(jni, s);
  } else {
    ResumeAllLocked(jni, slot);
  }
  cv_.notify_all();
  return {};
}

void ThreadControl::ResuspendAfterInvoke(JNIEnv* jni, jthread thread) {
  bool all = false;
  SessionSlot slot = 0;
  {
    std::lock_guard lock(mu_);
    State& s = StateOf(jni, thread);
    all = s.invoke_resuspend && !s.invoke_single;
    slot = s.invoke_slot;
  }
  // As stock: a call that resumed every thread ends with every thread suspended,
  // whatever its state before (VirtualMachine.Suspend; JDI counts on it).
  std::vector<jthread> threads;
  bool carrier_listed = false;
  if (all) {
    if (auto listed = DebuggeeThreads(jni)) threads = std::move(*listed);
    carrier_listed = virtual_threads_ && !vthreads_seen_.load() && AnyCarrier(jni, threads);
  }
  {
    std::lock_guard lock(mu_);
    State& s = StateOf(jni, thread);
    // The reply is sent right after this: the debugger may invoke again before the
    // invoking thread is back in Park, and must not be told it is still invoking.
    s.invoking = false;
    // Back in the Park of the event that stopped it (an event inside the call
    // parked it again and cleared the flag on its way out).
    s.parked = true;
    // Other sessions' counts come back; unless the session ended meanwhile
    // (ResumeEverything), its suspensions too.
    ReturnLentLocked(s);
    if (s.invoke_resuspend) {
      if (!s.invoke_single) {
        SuspendAllLocked(jni, threads, carrier_listed, slot);
        threads.clear();
        if (s.held[slot] == 0) CountLocked(s, slot);  // the list missed it (ending)
      } else {
        CountLocked(s, slot);
      }
    }
    s.invoke_resuspend = false;
    // The invoking thread waits for the reporter, holding no lock.
    if (s.count > 0) (void)ForceSuspendLocked(s);
  }
  for (jthread t : threads) jni->DeleteLocalRef(t);
  FreeGraveyard(jni);
}

void ThreadControl::EndSingleThreadedInvoke(void* token) {
  auto* s = static_cast<State*>(token);
  std::lock_guard lock(mu_);
  // As ResuspendAfterInvoke: the debugger may invoke again as soon as it has the reply.
  s->invoking = false;
  ReturnLentLocked(*s);  // other sessions' counts
  if (s->invoke_resuspend) CountLocked(*s, s->invoke_slot);  // unless the session ended meanwhile
  s->invoke_resuspend = false;
  // A suspension deferred since the call (VirtualMachine.Suspend) is pending as well.
  if (s->count > 0 && !s->suspended) MarkPendingLocked(*s);
  cv_.notify_all();  // WaitUntilSuspended
}

void ThreadControl::ApplyPendingSuspensions() {
  if (!any_pending_.load(std::memory_order_acquire)) return;
  std::lock_guard lock(mu_);
  // Each leaves pending_ (ForceSuspendLocked), also when JVMTI refuses (it ended).
  while (!pending_.empty()) (void)ForceSuspendLocked(*pending_.back());
}

void ThreadControl::RunInvokedCode(JNIEnv* jni, jthread self, const std::function<void()>& run) {
  State* s = SelfState(jni, self);
  int depth = 0;
  {
    std::lock_guard lock(mu_);
    // A suspension deferred before the call (a narrow window) keeps the bracket:
    // it is applied at the callback's end, as before.
    if (!s->deferred) depth = std::exchange(s->in_callback, 0);
  }
  run();
  bool suspended = false;
  {
    std::lock_guard lock(mu_);
    s->in_callback += depth;
    suspended = s->suspended;
  }
  // JVMTI-suspended during the call: it takes effect at this call, holding no lock.
  if (suspended) (void)jvmti_.GetThreadState(self);
}

void ThreadControl::HoldAppResume(JNIEnv* jni, jthread target, const std::function<void()>& resume) {
  jlong tid = TidOf(jni, target);
  std::unique_lock lock(mu_);
  // Looked up again at each wake-up: an ended thread's State may be dropped meanwhile.
  cv_.wait(lock, [&] {
    State* s = FindLocked(tid);
    return !s || s->count == 0;
  });
  resume();
}

}  // namespace jdwpx::backend
