#include "backend/ids/ids.h"

#include <algorithm>
#include <array>
#include <climits>

#include "backend/log.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;

namespace {

// The debugger's count of an ID, a 32-bit int as stock's, saturates: wrapped
// around, it would let DisposeObjects free an ID the debugger still holds.
int32_t AddCount(int32_t count, int64_t more) {
  return static_cast<int32_t>(std::clamp<int64_t>(int64_t{count} + more, INT32_MIN, INT32_MAX));
}

}  // namespace

std::optional<jdwp::ObjectId> ObjectTable::Known(JNIEnv* jni, jobject obj, uint32_t hash, int32_t sent) {
  // A collected object's weak reference is the same as no live object: its ID
  // is never found again (it stays listed until it is released).
  auto id = slots_.FindObject(hash, [&](jweak ref) { return jni->IsSameObject(ref, obj) == JNI_TRUE; });
  if (!id) return std::nullopt;
  if (sent != 0) AddToCountLocked(*id, sent);
  return jdwp::ObjectId{*id};
}

jdwp::ObjectId ObjectTable::Assign(JNIEnv* jni, jobject obj, int32_t sent) {
  if (obj == nullptr) return jdwp::ObjectId{};
  auto hash = jvmti_.GetObjectHashCode(obj);
  if (!hash) return jdwp::ObjectId{};
  const auto key = static_cast<uint32_t>(*hash);
  {
    std::lock_guard lock(mu_);
    if (auto id = Known(jni, obj, key, sent)) return *id;
  }
  // First sight. The weak reference is made with mu_ released (its JNI call
  // may wait for the VM, on a GC); another thread may have given the object
  // an ID meanwhile: looked up again before one is assigned, so an object
  // never gets two.
  jweak weak = jni->NewWeakGlobalRef(obj);
  if (!weak) return jdwp::ObjectId{};
  Added added;
  {
    std::lock_guard lock(mu_);
    added = KnownOrAdd(jni, obj, key, weak, sent);
  }
  if (!added.kept) jni->DeleteWeakGlobalRef(weak);
  return added.id;
}

void ObjectTable::AddToCountLocked(uint64_t id, int64_t more) {
  slots_.SetCount(id, AddCount(slots_.Count(id), more));
}

ObjectTable::Added ObjectTable::KnownOrAdd(JNIEnv* jni, jobject obj, uint32_t hash, jweak weak, int32_t sent) {
  if (auto id = Known(jni, obj, hash, sent)) return {*id, false};
  const uint64_t id = next_id_++;
  slots_.Insert(id, weak, hash, sent);
  return {jdwp::ObjectId{id}, true};
}

void ObjectTable::IdsOf(JNIEnv* jni, const jobject* objects, size_t n, jdwp::ObjectId* ids) {
  constexpr size_t kBatch = 256;
  std::array<uint32_t, kBatch> hashes;
  std::array<size_t, kBatch> missing;  // positions without an ID yet
  std::array<jweak, kBatch> weaks;
  for (size_t from = 0; from < n; from += kBatch) {
    const size_t count = std::min(kBatch, n - from);
    const jobject* objs = objects + from;
    jdwp::ObjectId* out = ids + from;
    // Hashes first, with mu_ released (JVM calls).
    size_t looked = 0;
    for (size_t i = 0; i < count; ++i) {
      out[i] = jdwp::ObjectId{};
      if (objs[i] == nullptr) continue;
      auto hash = jvmti_.GetObjectHashCode(objs[i]);
      if (!hash) continue;  // stays null, as IdOf answers then
      hashes[i] = static_cast<uint32_t>(*hash);
      missing[looked++] = i;
    }
    size_t unknown = 0;
    {
      std::lock_guard lock(mu_);
      for (size_t k = 0; k < looked; ++k) slots_.PrefetchIndex(hashes[missing[k]]);
      for (size_t k = 0; k < looked; ++k) slots_.PrefetchSlot(hashes[missing[k]]);
      for (size_t k = 0; k < looked; ++k) {
        const size_t i = missing[k];
        if (auto id = Known(jni, objs[i], hashes[i], 1)) {
          out[i] = *id;
        } else {
          missing[unknown++] = i;
        }
      }
    }
    if (unknown == 0) continue;
    // First sight, as in Assign: weak references made with mu_ released, then
    // looked up again (another thread, or the same object met earlier in this
    // batch, may have an ID by now).
    size_t made = 0;
    for (size_t k = 0; k < unknown; ++k) {
      weaks[k] = jni->NewWeakGlobalRef(objs[missing[k]]);
      made += weaks[k] != nullptr;
    }
    if (made != 0) {
      std::lock_guard lock(mu_);
      for (size_t k = 0; k < unknown; ++k) {
        const size_t i = missing[k];
        if (!weaks[k]) continue;
        const Added added = KnownOrAdd(jni, objs[i], hashes[i], weaks[k], 1);
        out[i] = added.id;
        if (added.kept) weaks[k] = nullptr;  // the others are freed below
      }
    }
    for (size_t k = 0; k < unknown; ++k) {
      if (weaks[k]) jni->DeleteWeakGlobalRef(weaks[k]);
    }
  }
}

jdwp::Result<jobject> ObjectTable::Resolve(JNIEnv* jni, jdwp::ObjectId id) {
  if (id.is_null()) return nullptr;
  std::lock_guard lock(mu_);
  if (!slots_.Contains(id.value)) return jdwp::Fail(ErrorCode::kInvalidObject, "unknown object id");
  jobject local = jni->NewLocalRef(slots_.RefOf(id.value));
  if (local == nullptr) {
    // A pinned object is never collected; its weak reference cannot be cleared.
    return jdwp::Fail(ErrorCode::kInvalidObject, "object collected");
  }
  return local;
}

bool ObjectTable::IsCollected(JNIEnv* jni, jdwp::ObjectId id, bool* known) {
  std::lock_guard lock(mu_);
  *known = slots_.Contains(id.value);
  if (!*known) return false;
  return jni->IsSameObject(slots_.RefOf(id.value), nullptr) == JNI_TRUE;
}

void ObjectTable::Drop(JNIEnv* jni, uint64_t id, jweak ref) {
  if (auto it = pinned_.find(id); it != pinned_.end()) {
    jni->DeleteGlobalRef(it->second.strong);
    pinned_.erase(it);
  }
  jni->DeleteWeakGlobalRef(ref);
}

void ObjectTable::Release(JNIEnv* jni, jdwp::ObjectId id, int32_t count, bool may_free) {
  size_t remaining = 0;
  {
    std::lock_guard lock(mu_);
    if (!slots_.Contains(id.value)) return;
    const int32_t left = AddCount(slots_.Count(id.value), -int64_t{count});
    if (left > 0 || !may_free) {
      slots_.SetCount(id.value, left);
      return;
    }
    // The ID is freed, but never reused: a fresh ID is assigned if the object is seen again.
    const jweak ref = slots_.RefOf(id.value);
    slots_.Erase(id.value);
    Drop(jni, id.value, ref);
    remaining = slots_.size();
  }
  // Tests read this line (loglevel=debug) to see the table return to its baseline.
  Log().debug("object table: released id {}, {} ids left", id.value, remaining);
}

jdwp::Result<void> ObjectTable::DisableCollection(JNIEnv* jni, jdwp::ObjectId id, SessionSlot session) {
  std::lock_guard lock(mu_);
  if (!slots_.Contains(id.value)) return jdwp::Fail(ErrorCode::kInvalidObject, "unknown object id");
  const uint32_t bit = uint32_t{1} << session;
  if (auto it = pinned_.find(id.value); it != pinned_.end()) {
    it->second.sessions |= bit;
    return {};
  }
  jobject strong = jni->NewGlobalRef(slots_.RefOf(id.value));
  if (!strong) return jdwp::Fail(ErrorCode::kInvalidObject, "object collected");
  pinned_.emplace(id.value, Pin{strong, bit});
  return {};
}

jdwp::Result<void> ObjectTable::EnableCollection(JNIEnv* jni, jdwp::ObjectId id, SessionSlot session) {
  std::lock_guard lock(mu_);
  if (!slots_.Contains(id.value)) return jdwp::Fail(ErrorCode::kInvalidObject, "unknown object id");
  if (auto it = pinned_.find(id.value); it != pinned_.end()) {
    it->second.sessions &= ~(uint32_t{1} << session);
    if (it->second.sessions == 0) {
      jni->DeleteGlobalRef(it->second.strong);
      pinned_.erase(it);
    }
  }
  return {};
}

void ObjectTable::EndSession(JNIEnv* jni, SessionSlot session) {
  std::lock_guard lock(mu_);
  for (auto it = pinned_.begin(); it != pinned_.end();) {
    it->second.sessions &= ~(uint32_t{1} << session);
    if (it->second.sessions != 0) {
      ++it;
      continue;
    }
    jni->DeleteGlobalRef(it->second.strong);
    it = pinned_.erase(it);
  }
}

void ObjectTable::Reset(JNIEnv* jni) {
  size_t dropped = 0;
  size_t far = 0;
  size_t big = 0;
  {
    std::lock_guard lock(mu_);
    dropped = slots_.size();
    far = slots_.far_refs();
    big = slots_.big_counts();
    slots_.ForEach([&](uint64_t id, jweak ref) { Drop(jni, id, ref); });
    slots_.Clear();
    pinned_.clear();
    ++generation_;
  }
  // The side maps' sizes tell whether slots stayed small (id_slots.h).
  Log().debug("object table: reset, {} ids dropped, {} ids left ({} references, {} counts kept aside)", dropped, size(),
              far, big);
}

size_t ObjectTable::size() {
  std::lock_guard lock(mu_);
  return slots_.size();
}

uint64_t ObjectTable::generation() {
  std::lock_guard lock(mu_);
  return generation_;
}

bool ObjectTable::Resend(jdwp::ObjectId id) {
  std::lock_guard lock(mu_);
  if (!slots_.Contains(id.value)) return false;
  AddToCountLocked(id.value, 1);
  return true;
}

void ObjectTable::ResendEach(std::vector<uint64_t>& ids) {
  std::lock_guard lock(mu_);
  for (uint64_t& id : ids) {
    if (id == 0) continue;
    if (slots_.Contains(id))
      AddToCountLocked(id, 1);
    else
      id = 0;
  }
}

bool ObjectTable::ResendLive(JNIEnv* jni, jdwp::ObjectId id) {
  std::lock_guard lock(mu_);
  if (!slots_.Contains(id.value) || jni->IsSameObject(slots_.RefOf(id.value), nullptr) == JNI_TRUE) return false;
  AddToCountLocked(id.value, 1);
  return true;
}

void MemberIds::AddMethod(jmethodID m) {
  std::lock_guard lock(mu_);
  methods_.insert(reinterpret_cast<uint64_t>(m));
}

void MemberIds::AddField(jfieldID f) {
  std::lock_guard lock(mu_);
  fields_.insert(reinterpret_cast<uint64_t>(f));
}

bool MemberIds::IsMethod(uint64_t id) {
  std::lock_guard lock(mu_);
  return methods_.count(id) != 0;
}

bool MemberIds::IsField(uint64_t id) {
  std::lock_guard lock(mu_);
  return fields_.count(id) != 0;
}

}  // namespace jdwpx::backend
