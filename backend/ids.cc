#include "backend/ids.h"

#include "backend/log.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;

std::optional<jdwp::ObjectId> ObjectTable::Known(jlong tag) {
  if (tag == 0) return std::nullopt;
  std::lock_guard lock(mu_);
  auto it = entries_.find(static_cast<uint64_t>(tag));
  if (it == entries_.end()) return std::nullopt;
  ++it->second.refs;
  return jdwp::ObjectId{static_cast<uint64_t>(tag)};
}

jdwp::ObjectId ObjectTable::IdOf(JNIEnv* jni, jobject obj) {
  if (obj == nullptr) return jdwp::ObjectId{};
  // JVM calls happen with mu_ released: a Java thread calling this from an event
  // callback may be suspended inside any of them, and must not hold mu_ then.
  auto tag = jvmti_.GetTag(obj);
  if (tag) {
    if (auto id = Known(*tag)) return *id;
  }
  // First sight: assignments are serialized so two threads tagging the same
  // object at once cannot give it two IDs. Holding assign_mu_ across JVM calls
  // is safe: Java threads only get here inside our callbacks, where no other
  // thread JVMTI-suspends them (see threads.h).
  std::lock_guard assign(assign_mu_);
  tag = jvmti_.GetTag(obj);
  if (tag) {
    if (auto id = Known(*tag)) return *id;
  }
  jweak weak = jni->NewWeakGlobalRef(obj);
  if (!weak) return jdwp::ObjectId{};
  uint64_t id;
  {
    std::lock_guard lock(mu_);
    id = next_id_++;
    Entry entry;
    entry.weak = weak;
    entry.refs = 1;
    entries_.emplace(id, entry);
  }
  if (!jvmti_.SetTag(obj, static_cast<jlong>(id))) {
    {
      std::lock_guard lock(mu_);
      entries_.erase(id);
    }
    jni->DeleteWeakGlobalRef(weak);
    return jdwp::ObjectId{};
  }
  return jdwp::ObjectId{id};
}

jdwp::Result<jobject> ObjectTable::Resolve(JNIEnv* jni, jdwp::ObjectId id) {
  if (id.is_null()) return nullptr;
  std::lock_guard lock(mu_);
  auto it = entries_.find(id.value);
  if (it == entries_.end()) return jdwp::Fail(ErrorCode::kInvalidObject, "unknown object id");
  jobject local = jni->NewLocalRef(it->second.pinned ? it->second.pinned : it->second.weak);
  if (local == nullptr) return jdwp::Fail(ErrorCode::kInvalidObject, "object collected");
  return local;
}

bool ObjectTable::IsCollected(JNIEnv* jni, jdwp::ObjectId id, bool* known) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id.value);
  *known = it != entries_.end();
  if (!*known) return false;
  if (it->second.pinned) return false;
  return jni->IsSameObject(it->second.weak, nullptr) == JNI_TRUE;
}

void ObjectTable::Release(JNIEnv* jni, jdwp::ObjectId id, int32_t count) {
  size_t remaining = 0;
  {
    std::lock_guard lock(mu_);
    auto it = entries_.find(id.value);
    if (it == entries_.end()) return;
    it->second.refs -= count;
    if (it->second.refs > 0) return;
    // The ID is freed, but never reused: a fresh ID is assigned if the object is seen again.
    jobject local = jni->NewLocalRef(it->second.weak);
    if (local) {
      (void)jvmti_.SetTag(local, 0);
      jni->DeleteLocalRef(local);
    }
    if (it->second.pinned) jni->DeleteGlobalRef(it->second.pinned);
    jni->DeleteWeakGlobalRef(it->second.weak);
    entries_.erase(it);
    remaining = entries_.size();
  }
  // Tests read this line (loglevel=debug) to see the table return to its baseline.
  Log().debug("object table: released id {}, {} ids left", id.value, remaining);
}

jdwp::Result<void> ObjectTable::DisableCollection(JNIEnv* jni, jdwp::ObjectId id) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id.value);
  if (it == entries_.end()) return jdwp::Fail(ErrorCode::kInvalidObject, "unknown object id");
  if (it->second.pinned) return {};
  jobject strong = jni->NewGlobalRef(it->second.weak);
  if (!strong) return jdwp::Fail(ErrorCode::kInvalidObject, "object collected");
  it->second.pinned = strong;
  return {};
}

jdwp::Result<void> ObjectTable::EnableCollection(JNIEnv* jni, jdwp::ObjectId id) {
  std::lock_guard lock(mu_);
  auto it = entries_.find(id.value);
  if (it == entries_.end()) return jdwp::Fail(ErrorCode::kInvalidObject, "unknown object id");
  if (it->second.pinned) {
    jni->DeleteGlobalRef(it->second.pinned);
    it->second.pinned = nullptr;
  }
  return {};
}

void ObjectTable::Reset(JNIEnv* jni) {
  size_t dropped = 0;
  {
    std::lock_guard lock(mu_);
    dropped = entries_.size();
    ResetLocked(jni);
  }
  Log().debug("object table: reset, {} ids dropped, {} ids left", dropped, size());
}

void ObjectTable::ResetLocked(JNIEnv* jni) {
  for (auto& [id, entry] : entries_) {
    jobject local = jni->NewLocalRef(entry.weak);
    if (local) {
      (void)jvmti_.SetTag(local, 0);
      jni->DeleteLocalRef(local);
    }
    if (entry.pinned) jni->DeleteGlobalRef(entry.pinned);
    jni->DeleteWeakGlobalRef(entry.weak);
  }
  entries_.clear();
  // clear() keeps the bucket array (8 bytes per bucket, sized for the peak); a
  // fresh table gives that memory back.
  std::unordered_map<uint64_t, Entry>().swap(entries_);
}

size_t ObjectTable::size() {
  std::lock_guard lock(mu_);
  return entries_.size();
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
