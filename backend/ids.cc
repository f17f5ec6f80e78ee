#include "backend/ids.h"

#include "backend/log.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;

std::optional<jdwp::ObjectId> ObjectTable::Known(jlong tag, int64_t sent) {
  if (tag == 0) return std::nullopt;
  std::lock_guard lock(mu_);
  auto* slot = slots_.Find(static_cast<uint64_t>(tag));
  if (!slot) return std::nullopt;
  slot->refs += sent;
  return jdwp::ObjectId{static_cast<uint64_t>(tag)};
}

jdwp::ObjectId ObjectTable::Assign(JNIEnv* jni, jobject obj, int64_t sent) {
  if (obj == nullptr) return jdwp::ObjectId{};
  // JVM calls happen with mu_ released: a Java thread calling this from an event
  // callback may be suspended inside any of them, and must not hold mu_ then.
  auto tag = jvmti_.GetTag(obj);
  if (tag) {
    if (auto id = Known(*tag, sent)) return *id;
  }
  // First sight: assignments are serialized so two threads tagging the same
  // object at once cannot give it two IDs. Holding assign_mu_ across JVM calls
  // is safe: Java threads only get here inside our callbacks, where no other
  // thread JVMTI-suspends them (see threads.h).
  std::lock_guard assign(assign_mu_);
  tag = jvmti_.GetTag(obj);
  if (tag) {
    if (auto id = Known(*tag, sent)) return *id;
  }
  jweak weak = jni->NewWeakGlobalRef(obj);
  if (!weak) return jdwp::ObjectId{};
  uint64_t id;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
    slots_.Insert(id, weak).refs = sent;
  }
  if (!jvmti_.SetTag(obj, static_cast<jlong>(id))) {
    {
      std::lock_guard lock(mu_);
      slots_.Erase(id);
    }
    jni->DeleteWeakGlobalRef(weak);
    return jdwp::ObjectId{};
  }
  return jdwp::ObjectId{id};
}

jdwp::Result<jobject> ObjectTable::Resolve(JNIEnv* jni, jdwp::ObjectId id) {
  if (id.is_null()) return nullptr;
  std::lock_guard lock(mu_);
  auto* slot = slots_.Find(id.value);
  if (!slot) return jdwp::Fail(ErrorCode::kInvalidObject, "unknown object id");
  jobject local = jni->NewLocalRef(slot->ref);
  if (local == nullptr) {
    // A pinned object is never collected; its weak reference cannot be cleared.
    return jdwp::Fail(ErrorCode::kInvalidObject, "object collected");
  }
  return local;
}

bool ObjectTable::IsCollected(JNIEnv* jni, jdwp::ObjectId id, bool* known) {
  std::lock_guard lock(mu_);
  auto* slot = slots_.Find(id.value);
  *known = slot != nullptr;
  if (!*known) return false;
  return jni->IsSameObject(slot->ref, nullptr) == JNI_TRUE;
}

void ObjectTable::Drop(JNIEnv* jni, uint64_t id, IdSlots<jweak>::Slot& slot) {
  jobject local = jni->NewLocalRef(slot.ref);
  if (local) {
    (void)jvmti_.SetTag(local, 0);
    jni->DeleteLocalRef(local);
  }
  if (auto it = pinned_.find(id); it != pinned_.end()) {
    jni->DeleteGlobalRef(it->second);
    pinned_.erase(it);
  }
  jni->DeleteWeakGlobalRef(slot.ref);
}

void ObjectTable::Release(JNIEnv* jni, jdwp::ObjectId id, int32_t count) {
  size_t remaining = 0;
  {
    std::lock_guard lock(mu_);
    auto* slot = slots_.Find(id.value);
    if (!slot) return;
    slot->refs -= count;
    if (slot->refs > 0) return;
    // The ID is freed, but never reused: a fresh ID is assigned if the object is seen again.
    Drop(jni, id.value, *slot);
    slots_.Erase(id.value);
    remaining = slots_.size();
  }
  // Tests read this line (loglevel=debug) to see the table return to its baseline.
  Log().debug("object table: released id {}, {} ids left", id.value, remaining);
}

jdwp::Result<void> ObjectTable::DisableCollection(JNIEnv* jni, jdwp::ObjectId id) {
  std::lock_guard lock(mu_);
  auto* slot = slots_.Find(id.value);
  if (!slot) return jdwp::Fail(ErrorCode::kInvalidObject, "unknown object id");
  if (pinned_.contains(id.value)) return {};
  jobject strong = jni->NewGlobalRef(slot->ref);
  if (!strong) return jdwp::Fail(ErrorCode::kInvalidObject, "object collected");
  pinned_.emplace(id.value, strong);
  return {};
}

jdwp::Result<void> ObjectTable::EnableCollection(JNIEnv* jni, jdwp::ObjectId id) {
  std::lock_guard lock(mu_);
  if (!slots_.Find(id.value)) return jdwp::Fail(ErrorCode::kInvalidObject, "unknown object id");
  if (auto it = pinned_.find(id.value); it != pinned_.end()) {
    jni->DeleteGlobalRef(it->second);
    pinned_.erase(it);
  }
  return {};
}

void ObjectTable::Reset(JNIEnv* jni) {
  size_t dropped = 0;
  {
    std::lock_guard lock(mu_);
    dropped = slots_.size();
    slots_.ForEach([&](uint64_t id, IdSlots<jweak>::Slot& slot) { Drop(jni, id, slot); });
    slots_.Clear();
    pinned_.clear();
    ++generation_;
  }
  Log().debug("object table: reset, {} ids dropped, {} ids left", dropped, size());
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
  auto* slot = slots_.Find(id.value);
  if (!slot) return false;
  ++slot->refs;
  return true;
}

void ObjectTable::ResendEach(std::vector<uint64_t>& ids) {
  std::lock_guard lock(mu_);
  for (uint64_t& id : ids) {
    if (id == 0) continue;
    if (auto* slot = slots_.Find(id))
      ++slot->refs;
    else
      id = 0;
  }
}

bool ObjectTable::ResendLive(JNIEnv* jni, jdwp::ObjectId id) {
  std::lock_guard lock(mu_);
  auto* slot = slots_.Find(id.value);
  if (!slot || jni->IsSameObject(slot->ref, nullptr) == JNI_TRUE) return false;
  ++slot->refs;
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
