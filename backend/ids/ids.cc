#include "backend/ids/ids.h"

#include <algorithm>
#include <array>
#include <bit>
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

// The session the IDs this thread gives out are counted for (CreditScope); -1:
// an event's (EventScope), or a thread that answers no session.
thread_local int t_credit = -1;

// The IDs this thread made for events while several sessions were attached,
// each with the sessions it was counted for, until SettleEventIds.
struct Made {
  uint64_t id;
  uint32_t sessions;
};
thread_local std::vector<Made> t_made;
// A callback that makes IDs for more events than this before it settles
// forgets them: they stay counted for all, kept longer, never freed early.
constexpr size_t kMaxMade = 1024;

}  // namespace

ObjectTable::CreditScope::CreditScope(SessionSlot session) : previous_(t_credit) { t_credit = session; }

ObjectTable::CreditScope::~CreditScope() { t_credit = previous_; }

// A callback settles only the IDs it made itself: what an earlier one made and
// did not settle (an event reported another way) stays counted for all.
ObjectTable::EventScope::EventScope() : previous_(t_credit) {
  t_credit = -1;
  t_made.clear();
}

ObjectTable::EventScope::~EventScope() {
  t_credit = previous_;
  t_made.clear();
}

std::optional<jdwp::ObjectId> ObjectTable::Known(JNIEnv* jni, jobject obj, uint32_t hash, int32_t sent) {
  // A collected object's weak reference is the same as no live object: its ID
  // is never found again (it stays listed until it is released).
  auto id = slots_.FindObject(hash, [&](jweak ref) { return jni->IsSameObject(ref, obj) == JNI_TRUE; });
  if (!id) return std::nullopt;
  CountLocked(*id, sent);
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

void ObjectTable::CountLocked(uint64_t id, int32_t sent) {
  if (sent == 0) return;
  if (!SeveralLocked()) {
    AddToCountLocked(id, sent);
    return;
  }
  if (t_credit >= 0) {
    if (AttachedLocked(static_cast<SessionSlot>(t_credit))) CreditLocked(id, static_cast<SessionSlot>(t_credit), sent);
    return;
  }
  for (uint32_t left = attached_; left != 0; left &= left - 1) {
    CreditLocked(id, static_cast<SessionSlot>(std::countr_zero(left)), sent);
  }
  if (t_made.size() >= kMaxMade) t_made.clear();
  t_made.push_back({id, attached_});
}

void ObjectTable::CreditLocked(uint64_t id, SessionSlot session, int64_t more) {
  AddToCountLocked(id, more);
  if (session == primary_) return;
  auto it = others_.find(id);
  if (it == others_.end()) {
    if (more <= 0) return;
    it = others_.emplace(id, std::vector<Part>{}).first;
  }
  std::vector<Part>& parts = it->second;
  auto part = std::find_if(parts.begin(), parts.end(), [&](const Part& p) { return p.session == session; });
  if (part == parts.end()) {
    if (more > 0) parts.push_back({session, AddCount(0, more)});
  } else {
    part->count = AddCount(part->count, more);
    if (part->count <= 0) parts.erase(part);
  }
  if (parts.empty()) others_.erase(it);
}

int32_t ObjectTable::OwnCountLocked(uint64_t id, SessionSlot session) const {
  int64_t others = 0;
  if (auto it = others_.find(id); it != others_.end()) {
    for (const Part& p : it->second) {
      if (p.session == session) return p.count;
      others += p.count;
    }
  }
  if (session != primary_) return 0;
  return static_cast<int32_t>(std::clamp<int64_t>(int64_t{slots_.Count(id)} - others, 0, INT32_MAX));
}

ObjectTable::Added ObjectTable::KnownOrAdd(JNIEnv* jni, jobject obj, uint32_t hash, jweak weak, int32_t sent) {
  if (auto id = Known(jni, obj, hash, sent)) return {*id, false};
  const uint64_t id = next_id_++;
  slots_.Insert(id, weak, hash, 0);
  CountLocked(id, sent);
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

void ObjectTable::FreeLocked(JNIEnv* jni, uint64_t id) {
  // The ID is freed, but never reused: a fresh ID is assigned if the object is seen again.
  const jweak ref = slots_.RefOf(id);
  slots_.Erase(id);
  others_.erase(id);
  Drop(jni, id, ref);
}

void ObjectTable::Release(JNIEnv* jni, jdwp::ObjectId id, int32_t count, SessionSlot session) {
  size_t remaining = 0;
  {
    std::lock_guard lock(mu_);
    if (!slots_.Contains(id.value)) return;
    if (SeveralLocked()) {
      const int64_t taken = std::clamp<int64_t>(count, 0, OwnCountLocked(id.value, session));
      if (taken == 0) return;
      CreditLocked(id.value, session, -taken);
      if (slots_.Count(id.value) > 0) return;
    } else {
      const int32_t left = AddCount(slots_.Count(id.value), -int64_t{count});
      if (left > 0) {
        slots_.SetCount(id.value, left);
        return;
      }
    }
    FreeLocked(jni, id.value);
    remaining = slots_.size();
  }
  // Tests read this line (loglevel=debug) to see the table return to its baseline.
  Log().debug("object table: released id {}, {} ids left", id.value, remaining);
}

bool ObjectTable::EventIdsToSettle() const { return several_.load(std::memory_order_relaxed) || !t_made.empty(); }

void ObjectTable::SettleEventIds(JNIEnv* jni, const std::vector<SessionIds>& sent) {
  size_t freed_count = 0;
  {
    std::lock_guard lock(mu_);
    // Who gets each ID.
    std::vector<std::pair<uint64_t, uint32_t>> receivers;
    for (const SessionIds& s : sent) {
      for (uint64_t id : s.ids) {
        auto it = std::find_if(receivers.begin(), receivers.end(), [&](const auto& r) { return r.first == id; });
        if (it == receivers.end()) it = receivers.insert(receivers.end(), {id, 0});
        it->second |= uint32_t{1} << s.session;
      }
    }
    // Up first, so that no count passes 0 on the way: a session that gets an
    // ID it was not counted for when the ID was made.
    for (const auto& [id, got] : receivers) {
      if (!slots_.Contains(id)) continue;
      uint32_t counted = 0;
      for (const Made& m : t_made) {
        if (m.id == id) counted |= m.sessions;
      }
      for (uint32_t up = got & attached_ & ~counted; up != 0; up &= up - 1) {
        CreditLocked(id, static_cast<SessionSlot>(std::countr_zero(up)), 1);
      }
    }
    // Then down: the sessions counted when an ID was made that get none of it.
    std::vector<uint64_t> freed;
    for (const Made& m : t_made) {
      if (!slots_.Contains(m.id)) continue;
      uint32_t got = 0;
      for (const auto& [id, sessions] : receivers) {
        if (id == m.id) got = sessions;
      }
      for (uint32_t down = m.sessions & attached_ & ~got; down != 0; down &= down - 1) {
        const auto session = static_cast<SessionSlot>(std::countr_zero(down));
        if (OwnCountLocked(m.id, session) > 0) CreditLocked(m.id, session, -1);
      }
      // Made for an event that went to nobody, and held by none.
      if (slots_.Count(m.id) <= 0 && std::find(freed.begin(), freed.end(), m.id) == freed.end()) {
        freed.push_back(m.id);
      }
    }
    t_made.clear();
    for (uint64_t id : freed) FreeLocked(jni, id);
    freed_count = freed.size();
  }
  if (freed_count != 0) Log().debug("object table: {} ids of events that went to nobody freed", freed_count);
}

void ObjectTable::BeginSession(SessionSlot session) {
  std::lock_guard lock(mu_);
  if (attached_ == 0) {
    primary_ = session;  // the whole count is its own
    others_.clear();
  }
  attached_ |= uint32_t{1} << session;
  several_.store(SeveralLocked());
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
  size_t freed_count = 0;
  size_t remaining = 0;
  {
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
    attached_ &= ~(uint32_t{1} << session);
    several_.store(SeveralLocked());
    if (attached_ == 0) {
      // None is left after all (one that attached meanwhile is counted as
      // attached before this): as at the last session's end.
      freed_count = ResetLocked(jni);
    } else {
      // Each ID loses `session`'s part; those that no session holds any longer go.
      std::vector<uint64_t> freed;
      if (session == primary_) {
        slots_.ForEach([&](uint64_t id, jweak) {
          // An ID counted for nobody (one reserved ahead of need) is left to
          // the last session's end.
          if (slots_.Count(id) <= 0) return;
          int64_t rest = 0;
          if (auto it = others_.find(id); it != others_.end()) {
            for (const Part& p : it->second) rest += p.count;
          }
          slots_.SetCount(id, AddCount(0, rest));
          if (rest <= 0) freed.push_back(id);
        });
        // The next primary's parts become the rest of each total.
        primary_ = static_cast<SessionSlot>(std::countr_zero(attached_));
        for (auto it = others_.begin(); it != others_.end();) {
          std::erase_if(it->second, [&](const Part& p) { return p.session == primary_; });
          it = it->second.empty() ? others_.erase(it) : std::next(it);
        }
      } else {
        for (auto it = others_.begin(); it != others_.end();) {
          auto part = std::find_if(it->second.begin(), it->second.end(),
                                   [&](const Part& p) { return p.session == session; });
          if (part != it->second.end()) {
            AddToCountLocked(it->first, -int64_t{part->count});
            if (slots_.Count(it->first) <= 0) freed.push_back(it->first);
            it->second.erase(part);
          }
          it = it->second.empty() ? others_.erase(it) : std::next(it);
        }
      }
      for (uint64_t id : freed) FreeLocked(jni, id);
      freed_count = freed.size();
    }
    remaining = slots_.size();
  }
  Log().debug("object table: session {} ended, {} ids freed, {} ids left", session, freed_count, remaining);
}

size_t ObjectTable::ResetLocked(JNIEnv* jni) {
  const size_t dropped = slots_.size();
  slots_.ForEach([&](uint64_t id, jweak ref) { Drop(jni, id, ref); });
  slots_.Clear();
  pinned_.clear();
  others_.clear();
  ++generation_;
  return dropped;
}

void ObjectTable::Reset(JNIEnv* jni, SessionSlot session) {
  size_t dropped = 0;
  size_t far = 0;
  size_t big = 0;
  {
    std::lock_guard lock(mu_);
    far = slots_.far_refs();
    big = slots_.big_counts();
    dropped = ResetLocked(jni);
    // A debugger that attached meanwhile has been sent no ID yet (its commands
    // wait for this end, on this thread): its part of every count is 0.
    attached_ &= ~(uint32_t{1} << session);
    if (attached_ != 0) primary_ = static_cast<SessionSlot>(std::countr_zero(attached_));
    several_.store(SeveralLocked());
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
  CountLocked(id.value, 1);
  return true;
}

void ObjectTable::ResendEach(std::vector<uint64_t>& ids) {
  std::lock_guard lock(mu_);
  for (uint64_t& id : ids) {
    if (id == 0) continue;
    if (slots_.Contains(id))
      CountLocked(id, 1);
    else
      id = 0;
  }
}

bool ObjectTable::ResendLive(JNIEnv* jni, jdwp::ObjectId id) {
  std::lock_guard lock(mu_);
  if (!slots_.Contains(id.value) || jni->IsSameObject(slots_.RefOf(id.value), nullptr) == JNI_TRUE) return false;
  CountLocked(id.value, 1);
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
