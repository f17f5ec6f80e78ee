// Object IDs: one per object for the session, never reused, weak (an ID does
// not keep its object alive). Each ID holds a JNI weak reference to its object;
// the ID of an object is found from the object's identity hash (IdIndex) and
// IsSameObject, not from a JVMTI tag: HotSpot's tag map costs ~65 bytes per
// object, the index 4 to 8. Reference type IDs are the object IDs of the
// types' java.lang.Class objects (as stock).
//
// Method and field IDs are JNI IDs; a debugger could send any 8 bytes, and a
// bogus jmethodID crashes HotSpot, so only IDs this agent has handed out are
// accepted (INVALID_METHODID / INVALID_FIELDID otherwise).
//
// Sessions (sessions=N): the debuggers attached at once share the IDs (an
// object has one ID whoever asked), and each ID's debugger count adds up what
// all of them were sent; while several are attached no ID is freed (Release),
// so no DisposeObjects of one frees an ID another holds. DisableCollection pins per session: an object stays
// pinned while any session pins it. A session's end unpins what it pinned
// (EndSession); the IDs themselves are forgotten once the last one has gone (Reset).
//
// Locking: one mutex (rank: leaf) guards each table; no JVM call that can block
// on another thread of ours is made while holding it. ObjectTable's mutex is
// held across IsSameObject, NewLocalRef, DeleteWeakGlobalRef and JVMTI
// GetObjectHashCode (the index asks it when it relists its entries): none of them
// waits on another thread of ours, and a Java thread (in one of our
// callbacks) is never JVMTI-suspended by us meanwhile (see threads.h).
#pragma once

#include <jni.h>

#include <cstdint>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "backend/ids/id_slots.h"
#include "backend/session_slot.h"
#include "jdwp/error.h"
#include "jdwp/types.h"
#include "vmcore/jvmti.h"

namespace jdwpx::backend {

// The identity hash of a weak reference's object, nullopt once it is collected.
struct WeakHash {
  vmcore::Jvmti jvmti;
  std::optional<uint32_t> operator()(jweak ref) const {
    auto hash = jvmti.GetObjectHashCode(ref);
    if (!hash) return std::nullopt;
    return static_cast<uint32_t>(*hash);
  }
};

class ObjectTable {
 public:
  explicit ObjectTable(vmcore::Jvmti jvmti) : jvmti_(jvmti), slots_(WeakHash{jvmti}) {}

  // The ID of `obj` (0 for null), assigning one on first sight.
  jdwp::ObjectId IdOf(JNIEnv* jni, jobject obj) { return Assign(jni, obj, 1); }
  // The same, but not counted as sent to the debugger (an ID given out ahead
  // of need: ClassTable::ReserveIds); Resend counts it when it goes out.
  jdwp::ObjectId Reserve(JNIEnv* jni, jobject obj) { return Assign(jni, obj, 0); }
  // IdOf of each of `n` objects (nulls allowed) into `ids`: the table's
  // memory is fetched for all of them before any is looked up, and its lock
  // taken once per batch (an Object[1M] costs a million random reads of the
  // index otherwise, one after the other).
  void IdsOf(JNIEnv* jni, const jobject* objects, size_t n, jdwp::ObjectId* ids);
  // A new local reference to the object, or INVALID_OBJECT for an unknown or collected ID.
  // ID 0 yields nullptr (the caller decides whether null is legal).
  jdwp::Result<jobject> Resolve(JNIEnv* jni, jdwp::ObjectId id);
  bool IsCollected(JNIEnv* jni, jdwp::ObjectId id, bool* known);

  // DisposeObjects: the ID is dropped when the debuggers' count reaches 0, if
  // `may_free` (one debugger attached): with several, an ID is only counted
  // down, and freed when the last one leaves (Reset), so that no session's
  // DisposeObjects, whatever count it sends, invalidates an ID another holds.
  void Release(JNIEnv* jni, jdwp::ObjectId id, int32_t count, bool may_free);
  jdwp::Result<void> DisableCollection(JNIEnv* jni, jdwp::ObjectId id, SessionSlot session);
  jdwp::Result<void> EnableCollection(JNIEnv* jni, jdwp::ObjectId id, SessionSlot session);
  // A session ended while others stay: what it pinned is let go (unless another pins it too).
  void EndSession(JNIEnv* jni, SessionSlot session);

  // Forgets every ID (session end): frees all references.
  // IDs are still never reused: the next session's IDs continue the count.
  void Reset(JNIEnv* jni);
  size_t size();
  // Bumped by Reset: an ID cached elsewhere is valid only in the generation
  // that issued it (ClassTable).
  uint64_t generation();
  // `id` is sent once more (its debugger count bumped), if it is still known
  // (not disposed, not reset); false otherwise.
  bool Resend(jdwp::ObjectId id);
  // Resend of each ID in one hold of the lock; one no longer known becomes 0.
  void ResendEach(std::vector<uint64_t>& ids);
  // The same, and only while its object is alive (its weak reference not cleared).
  bool ResendLive(JNIEnv* jni, jdwp::ObjectId id);

 private:
  jdwp::ObjectId Assign(JNIEnv* jni, jobject obj, int32_t sent);
  // The ID of `obj` (its identity hash: `hash`), its debugger count bumped by
  // `sent`, if it has one (mu_ held).
  std::optional<jdwp::ObjectId> Known(JNIEnv* jni, jobject obj, uint32_t hash, int32_t sent);
  // A first sighting's second look (mu_ held): the ID another thread gave `obj`
  // meanwhile (`weak` then unused: kept is false), else a new one holding `weak`.
  struct Added {
    jdwp::ObjectId id;
    bool kept;
  };
  Added KnownOrAdd(JNIEnv* jni, jobject obj, uint32_t hash, jweak weak, int32_t sent);
  // A live ID's debugger count, saturating, plus `more` (mu_ held).
  void AddToCountLocked(uint64_t id, int64_t more);
  // Unpins `id` and frees its reference `ref` (mu_ held).
  void Drop(JNIEnv* jni, uint64_t id, jweak ref);

  vmcore::Jvmti jvmti_;
  std::mutex mu_;
  IdSlots<jweak, WeakHash> slots_;  // each ID's weak reference and debugger count; the index
  // While DisableCollection is in force: a strong reference, and the sessions that pin it (a bit each).
  struct Pin {
    jobject strong = nullptr;
    uint32_t sessions = 0;
  };
  std::unordered_map<uint64_t, Pin> pinned_;
  uint64_t next_id_ = 1;
  uint64_t generation_ = 1;  // mu_
};

// Method and field IDs the agent has handed out.
class MemberIds {
 public:
  void AddMethod(jmethodID m);
  void AddField(jfieldID f);
  bool IsMethod(uint64_t id);
  bool IsField(uint64_t id);

 private:
  std::mutex mu_;
  std::unordered_set<uint64_t> methods_;
  std::unordered_set<uint64_t> fields_;
};

inline jdwp::MethodId ToWire(jmethodID m) { return jdwp::MethodId{reinterpret_cast<uint64_t>(m)}; }
inline jdwp::FieldId ToWire(jfieldID f) { return jdwp::FieldId{reinterpret_cast<uint64_t>(f)}; }
inline jmethodID ToMethod(jdwp::MethodId id) { return reinterpret_cast<jmethodID>(id.value); }
inline jfieldID ToField(jdwp::FieldId id) { return reinterpret_cast<jfieldID>(id.value); }

}  // namespace jdwpx::backend
