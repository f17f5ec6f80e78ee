// The loaded classes as VirtualMachine.AllClasses, AllClassesWithGeneric and
// ClassesBySignature list them: every prepared class and interface, and every
// array class (as stock). A class's signature, type tag and, once initialized
// (or failed), its status do not change: the table keeps them, so a scan
// costs no JVMTI string per class.
//
// The table lives from the first session on and survives between sessions
// (no reference type ID does: each entry's ID is tied to the object table's
// generation, which a session's end bumps). While a debugger is attached it is
// kept current: every ClassPrepare adds its class (Prepared, before the event
// is reported) and a session's start (Sync) adds what was prepared while no
// debugger was there (ClassPrepare is off then: the agent is dormant) and
// drops what was unloaded. Array classes have no ClassPrepare: AllClasses
// asks the VM for its loaded classes (one JVMTI call) and finds each one's
// entry by a tag of the table's own JVMTI environment; ClassesBySignature of a
// class or interface reads the signature index alone, of an array first scans.
// An unloaded class is dropped when a scan no longer sees it, or when its weak
// reference is found cleared.
//
// A full scan finds each class's entry without the tag map's lock where it
// can: the VM lists its classes in the same order each time (class loader
// data, then load order), so the entry that followed the previous class in
// the last scan is checked first (one JNI IsSameObject); a class in a new
// place (one prepared, created or unloaded meanwhile) is found by its tag.
//
// Each class's signature and generic signature are kept in wire form (JDWP
// strings): a scan writes its reply's list straight from the table while it
// holds mu_ (jdwp::WireListBuilder), a copy per class and no typed reply; no
// view of an entry may outlive mu_ (a ClassPrepare moves entries).
//
// Locking: mu_ is taken by the command thread (scans) and by Java threads in
// ClassPrepare callbacks; while held, only JVMTI/JNI calls that never wait on
// an agent thread are made, and the object table's locks may be taken (they
// rank after mu_).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "backend/ids/ids.h"
#include "jdwp/codec.h"
#include "jdwp/error.h"
#include "jdwp/types.h"
#include "vmcore/jvmti.h"

namespace jdwpx::backend {

class ClassTable {
 public:
  explicit ClassTable(ObjectTable& objects) : objects_(objects) {}
  ClassTable(const ClassTable&) = delete;
  ClassTable& operator=(const ClassTable&) = delete;

  // One class found by signature.
  struct Listed {
    jdwp::TypeTag tag;
    jdwp::ReferenceTypeId id;
    int32_t status;  // JDWP ClassStatus bits
  };
  using Visit = std::function<void(const Listed&)>;

  // Brings the table up to date with the VM (ClassPrepare must be on): adds
  // the classes prepared since the last session and drops those unloaded.
  // Only once the table is built, or with `build`: builds it, opening its
  // JVMTI environment. False when the VM offers no tagging (the table stays
  // off: scans ask the VM each time) or when not built.
  //
  // The first build costs about what one scan of stock's does per class (a
  // signature, a status, a tag, a weak reference: ~10 ms for 10,000
  // classes), so it is kept off the debugger's path: the first scan of the
  // first session that asks asks the VM directly, and the build is posted
  // to run after it (TakeBuild). Each later session's start only re-syncs
  // (one tag lookup per class: ~1 ms for 10,000).
  bool Sync(JNIEnv* jni, bool build = false);
  // True once, when the table is not built yet: the caller posts Sync(jni, true).
  bool TakeBuild();
  bool ready() const;
  // A class was prepared (ClassPrepare callback, any thread): its entry.
  void Prepared(JNIEnv* jni, jclass klass);
  // A session ended (the object table reset): every listed class gets its ID
  // for the next session now, while no debugger waits, so that the next
  // session's first scan finds them (counted as sent only when they go out).
  void ReserveIds(JNIEnv* jni);
  // After RedefineClasses: a generic signature may have changed.
  void ForgetGenerics();

  // Every loaded prepared class and array class, each with this session's ID
  // (counted as sent), added to `out` as the items of AllClasses' reply
  // (refTypeTag, typeID, signature, status) or, with `generic`,
  // AllClassesWithGeneric's (the generic signature after the signature).
  jdwp::Result<void> All(JNIEnv* jni, bool generic, jdwp::WireListBuilder& out);
  // The loaded ones of signature `wire_signature` (as the debugger sent it).
  jdwp::Result<void> BySignature(JNIEnv* jni, std::string_view wire_signature, const Visit& visit);

  size_t size() const;

 private:
  static constexpr uint32_t kNoEntry = UINT32_MAX;

  struct Entry {
    jweak klass = nullptr;  // null: a free slot
    // The signature's JDWP string (4-byte length, wire-form bytes), then, once
    // known, the generic signature's ("" when none): copied as they are into
    // scan replies.
    std::vector<uint8_t> strings;
    uint32_t signature_bytes = 0;  // the signature's JDWP string, at the start of `strings`
    bool generic_known = false;
    bool status_final = false;  // INITIALIZED or ERROR: never changes again
    jdwp::TypeTag tag = jdwp::TypeTag::kClass;
    int32_t status = 0;
    uint32_t next = kNoEntry;  // the entry listed after it by the last full scan (a guess, checked)
    uint64_t id = 0;          // its reference type ID, valid in id_generation only
    uint64_t id_generation = 0;
    uint64_t seen = 0;        // the last full scan that met it
    std::string_view signature() const {
      return {reinterpret_cast<const char*>(strings.data()) + 4, signature_bytes - 4};
    }
  };

  // All under mu_.
  bool SyncLocked(JNIEnv* jni, jvmtiEnv* env);
  // The entry of a loaded class (tagged), or nullptr.
  Entry* Find(jvmtiEnv* env, jclass klass);
  // A new entry for a prepared class or array of JVMTI status `jvmti_status`; nullptr on failure.
  Entry* Add(JNIEnv* jni, jvmtiEnv* env, jclass klass, jint jvmti_status);
  // Where a full scan is in the VM's list: the entry expected next and the last one met.
  struct Cursor {
    uint32_t expected;
    uint32_t last = kNoEntry;
  };
  Cursor BeginScan() const { return Cursor{first_listed_}; }
  // A class of a full scan, at `at`: its entry, added now if it was not met
  // before (an array class, which has no ClassPrepare, or one prepared just
  // now) and is listable; nullptr for one not yet prepared (not kept). `met`
  // tells which.
  Entry* MeetInScan(JNIEnv* jni, jvmtiEnv* env, jclass klass, Cursor& at, bool* met);
  void EndScan(const Cursor& at);
  void Free(JNIEnv* jni, jvmtiEnv* env, uint32_t index);
  // Frees what scan number `scan` did not meet: the VM no longer lists it (unloaded).
  void FreeUnmet(JNIEnv* jni, jvmtiEnv* env, uint64_t scan);
  void RefreshStatus(jvmtiEnv* env, jclass klass, Entry& e);
  void FillGeneric(jvmtiEnv* env, jclass klass, Entry& e);
  // Puts `generic` (JVMTI's, null for none: sent as "") after the entry's
  // signature in `strings`, as a JDWP string.
  static void StoreGeneric(Entry& e, const char* generic);
  // This session's ID of `klass` (counted as one more sent), cached in `e`.
  jdwp::ReferenceTypeId IdOf(JNIEnv* jni, jclass klass, Entry& e);

  ObjectTable& objects_;
  mutable std::mutex mu_;
  jvmtiEnv* env_ = nullptr;  // the table's own environment (tags = index + 1); null until Sync
  bool unavailable_ = false;
  bool build_posted_ = false;
  std::vector<Entry> entries_;
  std::vector<uint32_t> free_;
  std::unordered_multimap<std::string, uint32_t> by_signature_;
  uint64_t scan_ = 0;
  uint32_t first_listed_ = kNoEntry;  // the first entry the last full scan met
  // A scan's working lists, kept between scans (10,000s of items).
  struct Listing {
    int32_t loaded;  // index in the VM's list
    uint32_t entry;
    size_t id_at;    // where its ID is in the reply
  };
  std::vector<Listing> listed_;
  std::vector<uint64_t> listed_ids_;
  size_t last_reply_bytes_[2] = {0, 0};  // the last All's reply size, without and with generics
};

}  // namespace jdwpx::backend
