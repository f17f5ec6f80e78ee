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
// object has one ID whoever asked), and each ID's count is what all of them
// were sent. While several are attached it is also counted per session, so
// that one session's DisposeObjects takes off no more than that session was
// sent, and a session's end takes off all it was sent: an ID is freed when no
// session holds it any longer. The first session's part is the total less the
// others' (`others_`), so that one debugger costs nothing more. Who an ID is
// counted for: the session of the command being answered (CreditScope, on
// the command thread and on an invoking thread). An event's IDs are made in
// a JVMTI callback (EventScope) before it is known which sessions the event
// goes to: they are counted at once for every session attached, as one
// debugger's are counted at once, so that no DisposeObjects or session end
// meanwhile frees them; once the events are split (SettleEventIds) the
// sessions that got none of them are counted down again. An error in these
// counts only ever keeps an ID longer, never frees one a session holds.
// DisableCollection pins per session: an object stays pinned while any
// session pins it, and a session's end unpins what it pinned.
//
// Locking: one mutex (rank: leaf) guards each table; no JVM call that can block
// on another thread of ours is made while holding it. ObjectTable's mutex is
// held across IsSameObject, NewLocalRef, DeleteWeakGlobalRef and JVMTI
// GetObjectHashCode (the index asks it when it relists its entries): none of them
// waits on another thread of ours, and a Java thread (in one of our
// callbacks) is never JVMTI-suspended by us meanwhile (see threads.h).
#pragma once

#include <jni.h>

#include <atomic>
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

  // DisposeObjects of `session`: the ID is freed when the debuggers' count
  // reaches 0. With several sessions attached no more than `session`'s own
  // count is taken off, whatever count it sends: it never frees an ID another holds.
  void Release(JNIEnv* jni, jdwp::ObjectId id, int32_t count, SessionSlot session);
  jdwp::Result<void> DisableCollection(JNIEnv* jni, jdwp::ObjectId id, SessionSlot session);
  jdwp::Result<void> EnableCollection(JNIEnv* jni, jdwp::ObjectId id, SessionSlot session);
  // A debugger attached in `session`.
  void BeginSession(SessionSlot session);
  // A session ended while others stay: what it pinned is let go (unless another
  // pins it too), and the IDs that no other session holds are freed.
  void EndSession(JNIEnv* jni, SessionSlot session);
  // The events this thread made are split: `sent` holds, for each session
  // that gets some, the object IDs of its events. The IDs this thread made
  // for events since its last settling were counted for every session then
  // attached: those that got none of them are counted down; a session that
  // gets one it was not counted for (attached meanwhile) is counted up.
  struct SessionIds {
    SessionSlot session;
    std::vector<uint64_t> ids;
  };
  void SettleEventIds(JNIEnv* jni, const std::vector<SessionIds>& sent);
  // Whether SettleEventIds has anything to do on this thread (several
  // sessions attached, or IDs made for events while they were).
  bool EventIdsToSettle() const;
  // While alive, the IDs this thread gives out are an event's (a JVMTI callback).
  class EventScope {
   public:
    EventScope();
    ~EventScope();
    EventScope(const EventScope&) = delete;
    EventScope& operator=(const EventScope&) = delete;

   private:
    int previous_;
  };
  // While alive, the IDs this thread gives out are counted for `session` (a
  // command's reply, an invocation's).
  class CreditScope {
   public:
    explicit CreditScope(SessionSlot session);
    ~CreditScope();
    CreditScope(const CreditScope&) = delete;
    CreditScope& operator=(const CreditScope&) = delete;

   private:
    int previous_;
  };

  // Forgets every ID (the end of `session`, the last one): frees all references.
  // IDs are still never reused: the next session's IDs continue the count.
  void Reset(JNIEnv* jni, SessionSlot session);
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
  // Counts `sent` for the session this thread gives IDs to (mu_ held): the
  // total with one session attached; with several, that session's part too,
  // and for an event's ID (EventScope) every session's, noted for SettleEventIds.
  void CountLocked(uint64_t id, int32_t sent);
  // `more` (may be negative) added to `session`'s part and the total (mu_ held, several attached).
  void CreditLocked(uint64_t id, SessionSlot session, int64_t more);
  // `session`'s part of a live ID's count (mu_ held, several attached).
  int32_t OwnCountLocked(uint64_t id, SessionSlot session) const;
  bool SeveralLocked() const { return (attached_ & (attached_ - 1)) != 0; }
  bool AttachedLocked(SessionSlot session) const { return (attached_ >> session) & 1; }
  // Forgets a live ID: unpins it and frees its reference (mu_ held).
  void FreeLocked(JNIEnv* jni, uint64_t id);
  // Unpins `id` and frees its reference `ref` (mu_ held).
  void Drop(JNIEnv* jni, uint64_t id, jweak ref);
  // Forgets every ID (mu_ held); returns how many there were.
  size_t ResetLocked(JNIEnv* jni);

  vmcore::Jvmti jvmti_;
  std::mutex mu_;
  IdSlots<jweak, WeakHash> slots_;  // each ID's weak reference and debugger count; the index
  // While DisableCollection is in force: a strong reference, and the sessions that pin it (a bit each).
  struct Pin {
    jobject strong = nullptr;
    uint32_t sessions = 0;
  };
  std::unordered_map<uint64_t, Pin> pinned_;
  // Several sessions: the parts of an ID's count that sessions other than
  // `primary_` were sent (no entry: none; never 0).
  struct Part {
    SessionSlot session;
    int32_t count;
  };
  std::unordered_map<uint64_t, std::vector<Part>> others_;
  uint32_t attached_ = 0;  // a bit per session attached
  std::atomic<bool> several_{false};  // SeveralLocked(), for EventIdsToSettle()
  SessionSlot primary_ = 0;  // whose part of each count is the total less others_
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
