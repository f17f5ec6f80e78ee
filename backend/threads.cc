#include "backend/threads.h"

#include "backend/errors.h"
#include "backend/log.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;

namespace {
thread_local bool t_is_agent = false;
thread_local void* t_self_state = nullptr;
}  // namespace

void ThreadControl::MarkCurrentAsAgent() { t_is_agent = true; }
bool ThreadControl::CurrentIsAgent() { return t_is_agent; }

void ThreadControl::AddAgentThread(JNIEnv* jni, jthread thread) {
  std::lock_guard lock(agent_mu_);
  agent_threads_.push_back(jni->NewGlobalRef(thread));
}

bool ThreadControl::IsAgentThread(JNIEnv* jni, jthread thread) {
  std::lock_guard lock(agent_mu_);
  for (jobject t : agent_threads_)
    if (jni->IsSameObject(t, thread)) return true;
  return false;
}

jdwp::Result<std::vector<jthread>> ThreadControl::DebuggeeThreads(JNIEnv* jni) {
  VM_ASSIGN_OR_RETURN(auto all, jvmti_.GetAllThreads());
  std::vector<jthread> out;
  out.reserve(all.size());
  for (jthread t : all) {
    if (IsAgentThread(jni, t)) {
      jni->DeleteLocalRef(t);
      continue;
    }
    out.push_back(t);
  }
  return out;
}

ThreadControl::State& ThreadControl::StateOf(JNIEnv* jni, jthread thread) {
  for (auto& s : states_)
    if (jni->IsSameObject(s->thread, thread)) return *s;
  auto s = std::make_unique<State>();
  s->thread = jni->NewGlobalRef(thread);
  states_.push_back(std::move(s));
  return *states_.back();
}

jdwp::Result<void> ThreadControl::SuspendLocked(JNIEnv* jni, State& s) {
  if (s.suspended) return {};
  auto r = jvmti_.SuspendThread(s.thread);
  if (!r && r.error().code != JVMTI_ERROR_THREAD_SUSPENDED) return tl::unexpected(FromVm(r.error()));
  s.suspended = true;
  return {};
}

jdwp::Result<void> ThreadControl::ResumeLocked(JNIEnv* jni, State& s) {
  if (!s.suspended) return {};
  auto r = jvmti_.ResumeThread(s.thread);
  s.suspended = false;
  s.generation = next_generation_++;
  cv_.notify_all();
  if (!r && r.error().code != JVMTI_ERROR_THREAD_NOT_SUSPENDED && r.error().code != JVMTI_ERROR_THREAD_NOT_ALIVE)
    return tl::unexpected(FromVm(r.error()));
  return {};
}

jdwp::Result<void> ThreadControl::Suspend(JNIEnv* jni, jthread thread) {
  std::lock_guard lock(mu_);
  State& s = StateOf(jni, thread);
  if (s.count == 0) {
    // A dead or not yet started thread: JVMTI refuses; stock reports no error for those.
    auto r = SuspendLocked(jni, s);
    if (!r && r.error().code != ErrorCode::kInvalidThread) return r;
    if (!r) return {};
  }
  ++s.count;
  return {};
}

jdwp::Result<void> ThreadControl::Resume(JNIEnv* jni, jthread thread) {
  std::lock_guard lock(mu_);
  State& s = StateOf(jni, thread);
  if (s.count == 0) return {};
  if (--s.count == 0) {
    if (s.invoking) return {};  // the invoke's end re-suspends only while the count is positive
    return ResumeLocked(jni, s);
  }
  return {};
}

jdwp::Result<void> ThreadControl::SuspendAll(JNIEnv* jni) {
  ASSIGN_OR_RETURN(auto threads, DebuggeeThreads(jni));
  std::lock_guard lock(mu_);
  for (jthread t : threads) {
    State& s = StateOf(jni, t);
    if (s.count == 0) {
      auto r = SuspendLocked(jni, s);
      if (!r) {
        jni->DeleteLocalRef(t);
        continue;  // thread ended meanwhile
      }
    }
    ++s.count;
    jni->DeleteLocalRef(t);
  }
  return {};
}

jdwp::Result<void> ThreadControl::ResumeAll(JNIEnv* jni) {
  std::lock_guard lock(mu_);
  for (auto& s : states_) {
    if (s->count == 0) continue;
    if (--s->count == 0 && !s->invoking) (void)ResumeLocked(jni, *s);
  }
  return {};
}

int32_t ThreadControl::SuspendCount(JNIEnv* jni, jthread thread) {
  std::lock_guard lock(mu_);
  for (auto& s : states_)
    if (jni->IsSameObject(s->thread, thread)) return s->count;
  return 0;
}

uint64_t ThreadControl::Generation(JNIEnv* jni, jthread thread) {
  std::lock_guard lock(mu_);
  return StateOf(jni, thread).generation;
}

void ThreadControl::ResumeEverything(JNIEnv* jni) {
  std::lock_guard lock(mu_);
  for (auto& s : states_) {
    s->count = 0;
    if (!s->invoking) (void)ResumeLocked(jni, *s);
  }
  cv_.notify_all();
}

void ThreadControl::SuspendForEvent(JNIEnv* jni, jthread event_thread, jdwp::SuspendPolicy policy) {
  if (policy == jdwp::SuspendPolicy::kNone) return;
  if (policy == jdwp::SuspendPolicy::kAll) {
    (void)SuspendAll(jni);
    // The event thread must be counted even if GetAllThreads missed it (it is starting or ending).
    std::lock_guard lock(mu_);
    State& s = StateOf(jni, event_thread);
    if (s.count == 0) {
      (void)SuspendLocked(jni, s);
      ++s.count;
    }
    return;
  }
  std::lock_guard lock(mu_);
  State& s = StateOf(jni, event_thread);
  if (s.count == 0) (void)SuspendLocked(jni, s);
  ++s.count;
}

void* ThreadControl::PrepareToPark(JNIEnv* jni, jthread self) {
  // This thread may be suspended at any JNI call (another thread's SUSPEND_ALL),
  // so it compares references with mu_ released and only takes mu_ for plain stores.
  State* s = static_cast<State*>(t_self_state);
  if (!s) {
    std::vector<State*> snapshot;
    {
      std::lock_guard lock(mu_);
      for (auto& st : states_) snapshot.push_back(st.get());
    }
    for (State* st : snapshot)
      if (jni->IsSameObject(st->thread, self)) s = st;
    if (!s) {
      auto fresh = std::make_unique<State>();
      fresh->thread = jni->NewGlobalRef(self);
      std::lock_guard lock(mu_);
      states_.push_back(std::move(fresh));
      s = states_.back().get();
    }
    t_self_state = s;
  }
  std::lock_guard lock(mu_);
  s->parked = true;
  return s;
}

void ThreadControl::Park(JNIEnv* jni, void* token) {
  auto* s = static_cast<State*>(token);
  std::unique_lock lock(mu_);
  while (true) {
    cv_.wait(lock, [&] { return s->count == 0 || s->invoke; });
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
                                               std::function<void(JNIEnv*)> work) {
  std::lock_guard lock(mu_);
  State& s = StateOf(jni, thread);
  if (s.invoking || s.invoke) return jdwp::Fail(ErrorCode::kAlreadyInvoking, "thread is already invoking");
  if (!s.parked || s.count == 0) return jdwp::Fail(ErrorCode::kInvalidThread, "thread not suspended by an event");
  s.invoke = std::move(work);
  if (!single_threaded) {
    for (auto& other : states_) {
      if (other.get() == &s || other->count != 1 || !other->suspended) continue;
      if (jvmti_.ResumeThread(other->thread)) {
        other->suspended = false;
        s.resumed_for_invoke.push_back(jni->NewGlobalRef(other->thread));
      }
    }
  }
  if (s.suspended) {
    (void)jvmti_.ResumeThread(s.thread);
    s.suspended = false;
  }
  cv_.notify_all();
  return {};
}

void ThreadControl::ResuspendAfterInvoke(JNIEnv* jni, jthread thread) {
  std::lock_guard lock(mu_);
  State& s = StateOf(jni, thread);
  for (jobject t : s.resumed_for_invoke) {
    for (auto& other : states_) {
      if (jni->IsSameObject(other->thread, t) && other->count > 0) (void)SuspendLocked(jni, *other);
    }
    jni->DeleteGlobalRef(t);
  }
  s.resumed_for_invoke.clear();
  if (s.count > 0) (void)SuspendLocked(jni, s);
}

}  // namespace jdwpx::backend
