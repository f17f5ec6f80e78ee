#include "backend/threads/single_step_modes.h"

#include <algorithm>

namespace jdwpx::backend {

SingleStepModes::Entry* SingleStepModes::Find(JNIEnv* jni, jthread thread) {
  for (Entry& e : entries_)
    if (jni->IsSameObject(e.thread, thread)) return &e;
  return nullptr;
}

SingleStepModes::Entry& SingleStepModes::FindOrAdd(JNIEnv* jni, jthread thread) {
  if (Entry* e = Find(jni, thread)) return *e;
  entries_.push_back(Entry{jni->NewGlobalRef(thread)});
  return entries_.back();
}

void SingleStepModes::Apply(JNIEnv* jni, Entry& e) {
  const bool on = e.owners != 0;
  if (on != e.applied) {
    auto set = jvmti_.SetEventMode(on, JVMTI_EVENT_SINGLE_STEP, static_cast<jthread>(e.thread));
    // Off also when that failed: a thread that has ended has no mode to keep.
    e.applied = on && set;
  }
  if (e.owners != 0 || e.waiting || e.applied) return;
  jni->DeleteGlobalRef(e.thread);
  entries_.erase(entries_.begin() + (&e - entries_.data()));
}

void SingleStepModes::Want(JNIEnv* jni, jthread thread, Owner owner, bool on) {
  std::lock_guard lock(mu_);
  Entry* e = on ? &FindOrAdd(jni, thread) : Find(jni, thread);
  if (!e) return;
  e->owners = on ? (e->owners | owner) : (e->owners & ~owner);
  Apply(jni, *e);
}

void SingleStepModes::BeginStep(JNIEnv* jni, jthread thread, SessionSlot session, bool on) {
  std::lock_guard lock(mu_);
  Entry& e = FindOrAdd(jni, thread);
  const Owner step = StepOf(session);
  e.owners = (e.owners & ~(kLinger | step)) | (on ? step : 0);
  Apply(jni, e);
}

void SingleStepModes::EndStep(JNIEnv* jni, jthread thread, SessionSlot session) {
  std::lock_guard lock(mu_);
  Entry* e = Find(jni, thread);
  if (!e) return;
  const Owner step = StepOf(session);
  const bool linger = e->waiting && e->applied && (e->owners & step);
  if (linger) maybe_lingering_.store(true, std::memory_order_relaxed);
  e->owners = (e->owners & ~step) | (linger ? kLinger : 0);
  Apply(jni, *e);
}

void SingleStepModes::BeginWait(JNIEnv* jni, jthread self) {
  std::lock_guard lock(mu_);
  FindOrAdd(jni, self).waiting = true;
}

void SingleStepModes::EndWait(JNIEnv* jni, jthread self) {
  std::lock_guard lock(mu_);
  Entry* e = Find(jni, self);
  if (!e) return;
  e->waiting = false;
  e->owners &= ~kLinger;
  Apply(jni, *e);
}

void SingleStepModes::DropLinger(JNIEnv* jni, jthread self) {
  std::lock_guard lock(mu_);
  Entry* e = Find(jni, self);
  if (!e || !(e->owners & kLinger)) return;
  e->owners &= ~kLinger;
  Apply(jni, *e);
}

void SingleStepModes::DropLingers(JNIEnv* jni) {
  if (!maybe_lingering_.load(std::memory_order_relaxed)) return;
  std::lock_guard lock(mu_);
  maybe_lingering_.store(false, std::memory_order_relaxed);
  // Backwards: Apply may erase the entry it is given.
  for (size_t i = entries_.size(); i-- > 0;) {
    if (!(entries_[i].owners & kLinger)) continue;
    entries_[i].owners &= ~kLinger;
    Apply(jni, entries_[i]);
  }
}

}  // namespace jdwpx::backend
