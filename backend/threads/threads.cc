// ThreadControl (threads.h), the debugger's side: suspend and resume counts,
// all threads at once, virtual threads, agent threads. The event threads' side
// (suspension for an event, callbacks, parking, invocations): thread_events.cc.
#include "backend/threads/threads.h"

#include <algorithm>

#include "backend/errors.h"
#include "backend/log.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;

namespace {
thread_local bool t_is_agent = false;
thread_local bool t_agent_checked = false;
}  // namespace

void ThreadControl::MarkCurrentAsAgent() { t_is_agent = true; }
bool ThreadControl::CurrentIsAgent() { return t_is_agent; }

jlong ThreadControl::TidOf(JNIEnv* jni, jthread thread) {
  jfieldID field = tid_field_.load(std::memory_order_acquire);
  if (!field) {
    // First use (the first callback, at VMInit at the latest): no exception is
    // pending then, but one would be kept for its thread all the same.
    jthrowable pending = jni->ExceptionOccurred();
    if (pending) jni->ExceptionClear();
    jclass klass = jni->FindClass("java/lang/Thread");
    field = klass ? jni->GetFieldID(klass, "tid", "J") : nullptr;
    if (klass) jni->DeleteLocalRef(klass);
    if (!field) {
      jni->ExceptionClear();
      Log().error("java.lang.Thread has no tid field: thread states cannot be told apart");
    } else {
      tid_field_.store(field, std::memory_order_release);
    }
    if (pending) {
      jni->Throw(pending);
      jni->DeleteLocalRef(pending);
    }
    if (!field) return 0;
  }
  return jni->GetLongField(thread, field);
}

bool ThreadControl::CurrentIsAgent(JNIEnv* jni, jthread self) {
  if (t_is_agent || t_agent_checked) return t_is_agent;
  jlong tid = TidOf(jni, self);
  {
    std::lock_guard lock(agent_mu_);
    t_is_agent = std::find(agent_tids_.begin(), agent_tids_.end(), tid) != agent_tids_.end();
  }
  // Agent threads are all registered before any of them runs: the answer is final.
  t_agent_checked = true;
  return t_is_agent;
}

void ThreadControl::AddAgentThread(JNIEnv* jni, jthread thread) {
  jlong tid = TidOf(jni, thread);
  std::lock_guard lock(agent_mu_);
  agent_tids_.push_back(tid);
}

bool ThreadControl::IsAgentThread(JNIEnv* jni, jthread thread) {
  jlong tid = TidOf(jni, thread);
  std::lock_guard lock(agent_mu_);
  return std::find(agent_tids_.begin(), agent_tids_.end(), tid) != agent_tids_.end();
}

jdwp::Result<std::vector<jthread>> ThreadControl::DebuggeeThreads(JNIEnv* jni) {
  return DebuggeeThreads(jni, nullptr);
}

jdwp::Result<std::vector<jthread>> ThreadControl::DebuggeeThreads(JNIEnv* jni, std::vector<jlong>* tids) {
  VM_ASSIGN_OR_RETURN(auto all, jvmti_.GetAllThreads());
  std::vector<jlong> agents;
  {
    std::lock_guard lock(agent_mu_);
    agents = agent_tids_;
  }
  std::vector<jthread> out;
  out.reserve(all.size());
  if (tids) tids->reserve(all.size());
  for (jthread t : all) {
    const jlong tid = TidOf(jni, t);
    if (std::find(agents.begin(), agents.end(), tid) != agents.end()) {
      jni->DeleteLocalRef(t);
      continue;
    }
    out.push_back(t);
    if (tids) tids->push_back(tid);
  }
  if (list_virtual_threads_) {
    // Agent thread: it may make JNI calls under this leaf lock (it is never
    // suspended). SuspendAllForOwnEvent, on a Java thread, does not come here.
    const size_t first = out.size();
    {
      std::lock_guard lock(vthreads_mu_);
      out.reserve(out.size() + vthreads_.size());
      for (jobject v : vthreads_) out.push_back(static_cast<jthread>(jni->NewLocalRef(v)));
    }
    if (tids)
      for (size_t i = first; i < out.size(); ++i) tids->push_back(TidOf(jni, out[i]));
  }
  return out;
}

ThreadControl::VirtualSlot* ThreadControl::CurrentSlot(bool create) {
  auto stored = jvmti_.GetThreadLocalStorage(nullptr);
  if (!stored) return nullptr;
  auto* slot = static_cast<VirtualSlot*>(*stored);
  if (slot || !create) return slot;
  slot = new VirtualSlot();
  if (!jvmti_.SetThreadLocalStorage(nullptr, slot)) {
    delete slot;
    return nullptr;
  }
  return slot;
}

bool ThreadControl::CurrentVirtualHasSlot() {
  return CurrentSlot(false) != nullptr || virtual_states_.load(std::memory_order_acquire) > 0;
}

void ThreadControl::VirtualThreadStarted(JNIEnv* jni, jthread self) {
  if (!list_virtual_threads_) return;
  VirtualSlot* slot = CurrentSlot(true);
  if (!slot || slot->listed) return;
  jobject ref = jni->NewGlobalRef(self);  // before the lock: this thread may be suspended at a JNI call
  std::lock_guard lock(vthreads_mu_);
  slot->at = vthreads_.insert(vthreads_.end(), ref);
  slot->listed = ref;
}

void ThreadControl::UnlistCurrentVirtual(JNIEnv* jni) {
  VirtualSlot* slot = CurrentSlot(false);
  if (!slot || !slot->listed) return;
  {
    std::lock_guard lock(vthreads_mu_);
    vthreads_.erase(slot->at);
  }
  jni->DeleteGlobalRef(slot->listed);
  slot->listed = nullptr;
}

void ThreadControl::VirtualThreadEnded(JNIEnv* jni) {
  UnlistCurrentVirtual(jni);
  VirtualSlot* slot = CurrentSlot(false);
  if (!slot) return;
  (void)jvmti_.SetThreadLocalStorage(nullptr, nullptr);
  delete slot;
}

void ThreadControl::AddStateLocked(std::unique_ptr<State> s) {
  if (s->is_virtual) {
    virtual_states_.fetch_add(1, std::memory_order_release);
    vthreads_seen_ = true;
  }
  jlong tid = s->tid;
  states_.emplace(tid, std::move(s));
}

void ThreadControl::BuryLocked(State* s) {
  auto it = states_.find(s->tid);
  if (it == states_.end() || it->second.get() != s) return;
  if (s->is_virtual) virtual_states_.fetch_sub(1, std::memory_order_release);
  graveyard_.push_back(std::move(it->second));
  states_.erase(it);
}

void ThreadControl::FreeGraveyard(JNIEnv* jni) {
  std::vector<std::unique_ptr<State>> dead;
  {
    std::lock_guard lock(mu_);
    dead = TakeGraveyardLocked();
  }
  for (auto& d : dead) jni->DeleteGlobalRef(d->thread);
}

void ThreadControl::DropIfDeadVirtualLocked(State& s) {
  // JVMTI refused to suspend it: it has ended (or not started; a new State is
  // made if it starts), and nothing of the debugger's is left on it.
  if (!s.is_virtual || s.count > 0 || s.in_callback > 0 || s.parked || s.invoking || s.invoke) return;
  BuryLocked(&s);
}

ThreadControl::State* ThreadControl::FindLocked(jlong tid) {
  auto it = states_.find(tid);
  return it == states_.end() ? nullptr : it->second.get();
}

ThreadControl::State& ThreadControl::StateOf(JNIEnv* jni, jthread thread) {
  jlong tid = TidOf(jni, thread);
  if (State* found = FindLocked(tid)) return *found;
  auto s = NewState(jni, thread, tid);
  s->agent = IsAgentThread(jni, thread);
  return AdoptLocked(std::move(s));
}

std::unique_ptr<ThreadControl::State> ThreadControl::NewState(JNIEnv* jni, jthread thread, jlong tid) {
  auto s = std::make_unique<State>();
  s->thread = jni->NewGlobalRef(thread);
  s->tid = tid;
  s->is_virtual = IsVirtual(jni, thread);
  if (s->is_virtual) {
    auto state = jvmti_.GetThreadState(thread);
    s->maybe_dead = !state || !(*state & JVMTI_THREAD_STATE_ALIVE);
  }
  return s;
}

ThreadControl::State& ThreadControl::AdoptLocked(std::unique_ptr<State> s) {
  s->generation = next_generation_++;
  StartCountsLocked(*s);
  if (s->count > 0 && s->is_virtual && all_virtual_suspended_ && !s->maybe_dead) {
    // Not excepted when SuspendAllVirtualThreads was called (it had no State): suspended by it.
    s->suspended = true;
    s->by_all = true;
  } else if (s->count > 0) {
    (void)ForceSuspendLocked(*s);  // dead or unstarted threads refuse; then it runs when they do
  }
  State& added = *s;
  AddStateLocked(std::move(s));
  return added;
}

void ThreadControl::StartCountsLocked(State& s) const {
  s.held = suspend_all_count_;
  s.count = suspend_all_total_;
}

bool ThreadControl::ReleaseLocked(State& s, SessionSlot slot) {
  --s.held[slot];
  if (s.lent && (*s.lent)[slot] > s.held[slot]) {
    // The session's counts in force go first; with none left, a lent one is
    // taken back, so that it does not return at the invoke's end.
    --(*s.lent)[slot];
    return false;
  }
  if (--s.count == 0) return true;
  // Its own invoke may run now although other sessions hold the thread: their
  // counts are lent to the call (threads.h) until ReturnLentLocked.
  if (s.invoke && !s.invoking && !s.lent && slot == s.invoke_slot && s.held[slot] == 0) {
    s.lent = std::make_unique<std::array<int32_t, kMaxSessions>>(s.held);
    s.count = 0;
    return true;
  }
  return false;
}

void ThreadControl::ReturnLentLocked(State& s) {
  if (!s.lent) return;
  for (int32_t n : *s.lent) s.count += n;
  s.lent.reset();
}

jdwp::Result<void> ThreadControl::LendForPop(JNIEnv* jni, jthread thread) {
  std::lock_guard lock(mu_);
  State& s = StateOf(jni, thread);
  s.lent_by_invoke = std::move(s.lent);
  s.lent = std::make_unique<std::array<int32_t, kMaxSessions>>(s.held);
  s.count = 0;
  auto resumed = ResumeLocked(jni, s);
  cv_.notify_all();  // Park waits for a count of 0
  return resumed;
}

void ThreadControl::ReturnAfterPop(JNIEnv* jni, jthread thread) {
  std::lock_guard lock(mu_);
  State& s = StateOf(jni, thread);
  // A resume meanwhile took its lent count back (ReleaseLocked); an invoke's
  // lent counts are what that leaves, as ReleaseLocked would have taken them.
  s.lent = std::move(s.lent_by_invoke);
  s.count = 0;
  for (size_t i = 0; i < s.held.size(); ++i) {
    if (s.lent) (*s.lent)[i] = std::min((*s.lent)[i], s.held[i]);
    s.count += s.held[i] - (s.lent ? (*s.lent)[i] : 0);
  }
  // In its callback, the suspension is deferred to the callback's end.
  if (s.count > 0) (void)SuspendLocked(jni, s);
}

jdwp::Result<void> ThreadControl::SuspendLocked(JNIEnv* jni, State& s) {
  if (s.suspended || s.deferred || s.pending) return {};
  if (s.in_callback > 0) {
    SuspendInCallbackLocked(s);
    return {};
  }
  return ForceSuspendLocked(s);
}

void ThreadControl::SuspendInCallbackLocked(State& s) {
  // Parked at its event (resumed, but not yet awake), it stays parked now that it
  // is counted again: as an event's own suspension, its JVMTI suspension waits for
  // the next command that may look at it. Deferred to its callback's end, it would
  // stay parked and never be JVMTI-suspended (frames and locals then refused).
  if (s.parked && !s.invoking) {
    MarkPendingLocked(s);
    return;
  }
  // Anywhere else in a callback it may hold our locks: it suspends itself at the end.
  s.deferred = true;
}

void ThreadControl::MarkPendingLocked(State& s) {
  s.deferred = false;
  if (s.pending) return;
  s.pending = true;
  pending_.push_back(&s);
  any_pending_.store(true, std::memory_order_release);
}

void ThreadControl::ClearPendingLocked(State& s) {
  if (!s.pending) return;
  s.pending = false;
  std::erase(pending_, &s);
  any_pending_.store(!pending_.empty(), std::memory_order_release);
}

jdwp::Result<void> ThreadControl::ForceSuspendLocked(State& s) {
  s.deferred = false;
  ClearPendingLocked(s);
  if (s.suspended || s.agent) return {};
  auto r = jvmti_.SuspendThread(s.thread);
  if (!r && r.error().code != JVMTI_ERROR_THREAD_SUSPENDED) return tl::unexpected(FromVm(r.error()));
  s.suspended = true;
  cv_.notify_all();  // WaitUntilSuspended
  return {};
}

void ThreadControl::MarkResumedLocked(State& s) {
  s.suspended = false;
  s.by_all = false;
  s.generation = next_generation_++;  // its frame IDs of this suspension are void
}

jdwp::Result<void> ThreadControl::ResumeLocked(JNIEnv* jni, State& s) {
  if (s.deferred || s.pending) {
    ClearPendingLocked(s);
    s.deferred = false;
    s.generation = next_generation_++;
    NotifyLocked();
    return {};
  }
  if (!s.suspended) return {};
  auto r = jvmti_.ResumeThread(s.thread);
  MarkResumedLocked(s);
  NotifyLocked();
  if (!r && r.error().code != JVMTI_ERROR_THREAD_NOT_SUSPENDED && r.error().code != JVMTI_ERROR_THREAD_NOT_ALIVE)
    return tl::unexpected(FromVm(r.error()));
  return {};
}

jdwp::Result<void> ThreadControl::Suspend(JNIEnv* jni, jthread thread, SessionSlot slot) {
  jdwp::Result<void> result;
  {
    std::lock_guard lock(mu_);
    State& s = StateOf(jni, thread);
    if (s.count == 0) result = SuspendLocked(jni, s);
    if (result) {
      CountLocked(s, slot);
    } else if (result.error().code == ErrorCode::kInvalidThread) {
      // A dead or not yet started thread: JVMTI refuses; stock reports no error
      // for those and counts the suspension of a platform thread (so commands
      // needing a suspended thread then find it not alive: INVALID_THREAD). One
      // not yet started is suspended at its start (its ThreadStart callback ends
      // with the deferred suspension), as stock.
      result = {};
      if (!s.is_virtual) {
        CountLocked(s, slot);
        auto state = jvmti_.GetThreadState(s.thread);
        s.deferred = state && (*state & (JVMTI_THREAD_STATE_ALIVE | JVMTI_THREAD_STATE_TERMINATED)) == 0;
      }
      DropIfDeadVirtualLocked(s);
    }
  }
  FreeGraveyard(jni);
  return result;
}

void ThreadControl::NotifyLocked() {
  if (notify_after_unlock_)
    notify_due_ = true;
  else
    cv_.notify_all();
}

// The resumes wake the parked threads once mu_ is released: a thread woken
// under it would only block on mu_ again (one more context switch per resume).
class ThreadControl::NotifyAfterUnlock {
 public:
  explicit NotifyAfterUnlock(ThreadControl& tc) : tc_(tc), lock_(tc.mu_) { tc_.notify_after_unlock_ = true; }
  ~NotifyAfterUnlock() {
    tc_.notify_after_unlock_ = false;
    const bool due = std::exchange(tc_.notify_due_, false);
    lock_.unlock();
    if (due) tc_.cv_.notify_all();
  }
  NotifyAfterUnlock(const NotifyAfterUnlock&) = delete;
  NotifyAfterUnlock& operator=(const NotifyAfterUnlock&) = delete;

 private:
  ThreadControl& tc_;
  std::unique_lock<std::mutex> lock_;
};

jdwp::Result<void> ThreadControl::Resume(JNIEnv* jni, jthread thread, SessionSlot slot) {
  NotifyAfterUnlock locked(*this);
  State& s = StateOf(jni, thread);
  if (s.held[slot] == 0) return {};  // as stock with a count of 0
  // An invoking thread counts only the suspensions of events inside the call
  // (StartInvoke gave the session's up for it; other sessions' are lent, which
  // ReleaseLocked takes back last): resuming it lets the call go on.
  if (ReleaseLocked(s, slot)) return ResumeLocked(jni, s);
  return {};
}

jdwp::Result<void> ThreadControl::SuspendAll(JNIEnv* jni, SessionSlot slot) {
  ASSIGN_OR_RETURN(auto threads, DebuggeeThreads(jni));
  bool carrier_listed = virtual_threads_ && !vthreads_seen_.load() && AnyCarrier(jni, threads);
  {
    std::lock_guard lock(mu_);
    SuspendAllLocked(jni, threads, carrier_listed, slot);
  }
  FreeGraveyard(jni);
  return {};
}

void ThreadControl::SuspendAllLocked(JNIEnv* jni, const std::vector<jthread>& threads, bool carrier_listed,
                                     SessionSlot slot) {
  std::vector<State*> listed;
  listed.reserve(threads.size());
  for (jthread t : threads) {
    listed.push_back(&StateOf(jni, t));
    jni->DeleteLocalRef(t);
  }
  SuspendListedLocked(listed, carrier_listed, nullptr, slot);
}

void ThreadControl::SuspendListedLocked(const std::vector<State*>& listed, bool carrier_listed, State* self,
                                        SessionSlot slot) {
  if (carrier_listed) vthreads_seen_ = true;
  uint64_t round = ++suspend_round_;
  std::vector<State*> refused;
  // Those to JVMTI-suspend go in one SuspendThreadList, counted once it answers;
  // idle virtual threads known to run, in the SuspendAllVirtualThreads due now.
  std::vector<State*> batch;
  std::vector<State*> riders;
  const bool all_virtual_due = AllVirtualDueLocked();
  auto suspend = [&](State& s) {
    s.round = round;
    if (&s == self) {
      // Its own event: counted, its JVMTI suspension pending (SuspendSelfForEvent).
      CountLocked(s, slot);
      if (!s.suspended) MarkPendingLocked(s);
      return;
    }
    if (s.count == 0 && !s.suspended && !s.deferred && !s.agent) {
      if (s.in_callback == 0) {
        (all_virtual_due && s.is_virtual && !s.maybe_dead ? riders : batch).push_back(&s);
        return;
      }
      SuspendInCallbackLocked(s);  // as SuspendLocked
    }
    CountLocked(s, slot);
  };
  for (State* s : listed)
    if (s->round != round) suspend(*s);
  // Threads we know that the list missed are suspended too (deferred inside a
  // callback): those started since it was taken (their State got the VM-level
  // count of before this suspension), those inside their ThreadStart callback,
  // and the virtual threads we know. An ended one refuses and is not counted;
  // agent threads (with a State when the debugger named one) are not debuggee threads.
  for (auto& [tid, s] : states_)
    if (s->round != round && !s->agent) suspend(*s);
  // The virtual threads never met: all at once (see the header comment); at the
  // VM-level 0 -> 1, or again after an invoke let them run. Before the platform
  // threads, as stock: once their carriers are marked suspended, one that ran on
  // into its last unmount would be held right after it (threads.h).
  SuspendUnknownVirtualLocked(riders, batch, slot);
  SuspendBatchLocked(batch, refused, slot);
  for (State* s : refused) DropIfDeadVirtualLocked(*s);
  ++suspend_all_count_[slot];
  ++suspend_all_total_;
}

bool ThreadControl::AnyCarrier(JNIEnv* jni, const std::vector<jthread>& threads) const {
  // Most threads share a handful of classes (java.lang.Thread above all): a
  // class once found to be no carrier's is not asked for its signature again.
  std::vector<jclass> not_carrier;
  bool found = false;
  for (jthread t : threads) {
    jclass klass = jni->GetObjectClass(t);
    if (!klass) continue;
    if (std::any_of(not_carrier.begin(), not_carrier.end(), [&](jclass k) { return jni->IsSameObject(k, klass); })) {
      jni->DeleteLocalRef(klass);
      continue;
    }
    auto signature = jvmti_.GetClassSignatureOnly(klass);
    if (signature && *signature == "Ljdk/internal/misc/CarrierThread;") {
      jni->DeleteLocalRef(klass);
      found = true;
      break;
    }
    if (not_carrier.size() < 8) {
      not_carrier.push_back(klass);
    } else {
      jni->DeleteLocalRef(klass);
    }
  }
  for (jclass k : not_carrier) jni->DeleteLocalRef(k);
  return found;
}

bool ThreadControl::AllVirtualDueLocked() const {
  return virtual_threads_ && vthreads_seen_ && !all_virtual_suspended_;
}

void ThreadControl::SuspendUnknownVirtualLocked(std::vector<State*>& riders, std::vector<State*>& batch,
                                                SessionSlot slot) {
  if (!AllVirtualDueLocked()) return;  // no riders then (SuspendListedLocked)
  for (State* s : riders) s->by_all = true;
  std::vector<jthread> except;
  for (auto& [tid, s] : states_)
    if (s->is_virtual && !s->by_all) except.push_back(static_cast<jthread>(s->thread));
  if (auto r = jvmti_.SuspendAllVirtualThreads(except); r) {
    all_virtual_suspended_ = true;
    for (State* s : riders) {
      s->suspended = true;
      CountLocked(*s, slot);
    }
    if (!riders.empty()) cv_.notify_all();  // WaitUntilSuspended
  } else {
    Log().warn("SuspendAllVirtualThreads failed: {}", static_cast<int>(r.error().code));
    for (State* s : riders) s->by_all = false;
    batch.insert(batch.end(), riders.begin(), riders.end());
  }
}

void ThreadControl::ResumeUnknownVirtualLocked() {
  if (!all_virtual_suspended_) return;
  // Those the debugger still counts stay suspended (they all have a State); the
  // uncounted ones suspended by SuspendAllVirtualThreads are resumed by this call.
  std::vector<jthread> except;
  std::vector<State*> lifted;
  for (auto& [tid, s] : states_) {
    if (!s->is_virtual) continue;
    if (s->count > 0)
      except.push_back(static_cast<jthread>(s->thread));
    else if (s->by_all && s->suspended)
      lifted.push_back(s.get());
  }
  all_virtual_suspended_ = false;
  if (auto r = jvmti_.ResumeAllVirtualThreads(except); !r) {
    Log().warn("ResumeAllVirtualThreads failed: {}", static_cast<int>(r.error().code));
    ResumeBatchLocked(lifted);  // one by one, then
    return;
  }
  for (State* s : lifted) MarkResumedLocked(*s);
  if (!lifted.empty()) NotifyLocked();
}

jdwp::Result<void> ThreadControl::ResumeAll(JNIEnv* jni, SessionSlot slot) {
  NotifyAfterUnlock locked(*this);
  ResumeAllLocked(jni, slot);
  return {};
}

void ThreadControl::ResumeAllLocked(JNIEnv* jni, SessionSlot slot) {
  if (suspend_all_count_[slot] > 0) {
    --suspend_all_count_[slot];
    --suspend_all_total_;
  }
  // ResumeAllVirtualThreads follows: it resumes the uncounted by_all threads.
  const bool all_virtual_resume = suspend_all_total_ == 0 && all_virtual_suspended_;
  std::vector<State*> batch;
  for (auto& [tid, s] : states_) {
    if (s->held[slot] == 0) continue;
    if (!ReleaseLocked(*s, slot)) continue;
    if (s->by_all && s->suspended && all_virtual_resume) continue;
    if (s->suspended && !s->deferred)
      batch.push_back(s.get());
    else
      (void)ResumeLocked(jni, *s);
  }
  ResumeBatchLocked(batch);
  if (suspend_all_total_ == 0) ResumeUnknownVirtualLocked();
}

void ThreadControl::SuspendBatchLocked(const std::vector<State*>& batch, std::vector<State*>& refused,
                                       SessionSlot slot) {
  if (batch.empty()) return;
  std::vector<jthread> list;
  list.reserve(batch.size());
  for (State* s : batch) list.push_back(static_cast<jthread>(s->thread));
  auto results = jvmti_.SuspendThreadList(list);
  for (size_t i = 0; i < batch.size(); ++i) {
    State& s = *batch[i];
    jvmtiError e = results ? (*results)[i] : results.error().code;
    if (e == JVMTI_ERROR_NONE || e == JVMTI_ERROR_THREAD_SUSPENDED) {
      s.suspended = true;
      CountLocked(s, slot);
    } else if (FromVm(vmcore::VmError{e, "SuspendThreadList"}).code == ErrorCode::kInvalidThread) {
      refused.push_back(&s);  // ended meanwhile: not counted
    }
  }
  cv_.notify_all();  // WaitUntilSuspended
}

void ThreadControl::ResumeBatchLocked(const std::vector<State*>& batch) {
  if (batch.empty()) return;
  std::vector<jthread> list;
  list.reserve(batch.size());
  for (State* s : batch) {
    list.push_back(static_cast<jthread>(s->thread));
    MarkResumedLocked(*s);
  }
  // Threads that ended or were resumed otherwise answer so; as ResumeLocked, nothing to do then.
  (void)jvmti_.ResumeThreadList(list);
  NotifyLocked();
}

bool ThreadControl::WaitUntilSuspended(JNIEnv* jni, jthread thread, std::chrono::milliseconds timeout) {
  std::unique_lock lock(mu_);
  State& s = StateOf(jni, thread);
  // A count of 0 means the debugger resumed it meanwhile: nothing to wait for.
  cv_.wait_for(lock, timeout, [&] {
    if (s.pending) (void)ForceSuspendLocked(s);  // it ended an invoke meanwhile
    return s.suspended || s.count == 0;
  });
  return s.suspended;
}

int32_t ThreadControl::SuspendCount(JNIEnv* jni, jthread thread, SessionSlot slot) {
  jlong tid = TidOf(jni, thread);
  std::lock_guard lock(mu_);
  if (State* s = FindLocked(tid)) return s->held[slot];
  return UnmetCountLocked(jni, thread, suspend_all_count_[slot]);
}

bool ThreadControl::SuspendedByAny(JNIEnv* jni, jthread thread) {
  jlong tid = TidOf(jni, thread);
  std::lock_guard lock(mu_);
  if (State* s = FindLocked(tid)) return s->count > 0;
  return UnmetCountLocked(jni, thread, suspend_all_total_) > 0;
}

int32_t ThreadControl::UnmetCountLocked(JNIEnv* jni, jthread thread, int32_t vm_count) {
  if (vm_count == 0) return 0;
  auto state = jvmti_.GetThreadState(thread);
  if (!state || !(*state & JVMTI_THREAD_STATE_ALIVE)) return 0;
  // A virtual thread never met: suspended by SuspendAllVirtualThreads, unless
  // that is not in force.
  if (IsVirtual(jni, thread)) return (*state & JVMTI_THREAD_STATE_SUSPENDED) ? vm_count : 0;
  // A live platform thread never met under a VM-level suspension is one still
  // starting (every thread listed then was counted; JDK 21+ lists one before its
  // ThreadStart): it runs no Java code before it is counted, at that ThreadStart,
  // with this count.
  return vm_count;
}

uint64_t ThreadControl::Generation(JNIEnv* jni, jthread thread) {
  std::lock_guard lock(mu_);
  return StateOf(jni, thread).generation;
}

uint64_t ThreadControl::FrozenGeneration(JNIEnv* jni, jthread thread) {
  jlong tid = TidOf(jni, thread);
  std::lock_guard lock(mu_);
  State* s = FindLocked(tid);
  // Not deferred nor pending: those threads are counted but not yet JVMTI-suspended.
  if (!s || s->agent || s->count == 0 || !s->suspended || s->deferred || s->pending) return 0;
  return s->generation;
}

}  // namespace jdwpx::backend
