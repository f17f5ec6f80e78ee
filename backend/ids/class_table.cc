#include "backend/ids/class_table.h"

#include <chrono>

#include "backend/log.h"
#include "backend/ids/wire_string.h"
#include "jdwp/constants.h"
#include "vmcore/refs.h"

namespace jdwpx::backend {

namespace {

int32_t JdwpStatus(jint jvmti_status) {
  int32_t out = 0;
  if (jvmti_status & JVMTI_CLASS_STATUS_VERIFIED) out |= jdwp::ClassStatus::kVerified;
  if (jvmti_status & JVMTI_CLASS_STATUS_PREPARED) out |= jdwp::ClassStatus::kPrepared;
  if (jvmti_status & JVMTI_CLASS_STATUS_INITIALIZED) out |= jdwp::ClassStatus::kInitialized;
  if (jvmti_status & JVMTI_CLASS_STATUS_ERROR) out |= jdwp::ClassStatus::kError;
  return out;
}

// What AllClasses lists (as stock): prepared classes and arrays; the content of
// others cannot be read yet. Primitive classes are never listed.
bool Listable(jint jvmti_status) {
  return (jvmti_status & JVMTI_CLASS_STATUS_PRIMITIVE) == 0 &&
         (jvmti_status & (JVMTI_CLASS_STATUS_PREPARED | JVMTI_CLASS_STATUS_ARRAY)) != 0;
}

bool Final(jint jvmti_status) {
  return (jvmti_status & (JVMTI_CLASS_STATUS_INITIALIZED | JVMTI_CLASS_STATUS_ERROR | JVMTI_CLASS_STATUS_ARRAY)) != 0;
}

// The JVMTI-allocated array of GetLoadedClasses. Its 10,000s of local
// references live in a JNI frame of their own, released at once at the end
// (one DeleteLocalRef each, when no frame could be pushed): so must every
// local reference made while it lives.
class LoadedClasses {
 public:
  LoadedClasses(jvmtiEnv* env, JNIEnv* jni) : env_(env), jni_(jni), frame_(jni, 16) {}
  ~LoadedClasses() {
    if (!frame_.ok())
      for (jint i = 0; i < count; ++i) jni_->DeleteLocalRef(classes[i]);
    if (classes) env_->Deallocate(reinterpret_cast<unsigned char*>(classes));
  }
  LoadedClasses(const LoadedClasses&) = delete;
  LoadedClasses& operator=(const LoadedClasses&) = delete;
  jvmtiError Get() {
    jvmtiError err = env_->GetLoadedClasses(&count, &classes);
    // The frame's capacity as JNI checks count it (-Xcheck:jni warns past it).
    if (err == JVMTI_ERROR_NONE && frame_.ok()) (void)jni_->EnsureLocalCapacity(count + 16);
    return err;
  }

  jclass* classes = nullptr;
  jint count = 0;

 private:
  jvmtiEnv* env_;
  JNIEnv* jni_;
  vmcore::LocalFrame frame_;
};

// A JDWP string of no bytes: the generic signature of a class whose one could not be read.
constexpr uint8_t kEmptyString[4] = {0, 0, 0, 0};

}  // namespace

bool ClassTable::ready() const {
  std::lock_guard lock(mu_);
  return env_ != nullptr;
}

size_t ClassTable::size() const {
  std::lock_guard lock(mu_);
  return entries_.size() - free_.size();
}

bool ClassTable::Sync(JNIEnv* jni, bool build) {
  std::lock_guard lock(mu_);
  if (unavailable_ || (!env_ && !build)) return false;
  if (!env_) {
    JavaVM* vm = nullptr;
    jvmtiEnv* env = nullptr;
    if (jni->GetJavaVM(&vm) != JNI_OK || vm->GetEnv(reinterpret_cast<void**>(&env), JVMTI_VERSION_1_2) != JNI_OK ||
        !env) {
      unavailable_ = true;
      return false;
    }
    jvmtiCapabilities caps{};
    caps.can_tag_objects = 1;
    if (env->AddCapabilities(&caps) != JVMTI_ERROR_NONE) {
      Log().warn("class table unavailable (no object tags): class scans ask the VM each time");
      env->DisposeEnvironment();
      unavailable_ = true;
      return false;
    }
    env_ = env;
  }
  auto start = std::chrono::steady_clock::now();
  size_t before = entries_.size() - free_.size();
  bool ok = SyncLocked(jni, env_);
  Log().debug("class table: {} classes ({} before the session) in {} us", entries_.size() - free_.size(), before,
              std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count());
  return ok;
}

bool ClassTable::SyncLocked(JNIEnv* jni, jvmtiEnv* env) {
  LoadedClasses loaded(env, jni);
  if (loaded.Get() != JVMTI_ERROR_NONE) return false;
  const uint64_t scan = ++scan_;
  entries_.reserve(static_cast<size_t>(loaded.count));
  by_signature_.reserve(static_cast<size_t>(loaded.count));
  Cursor at = BeginScan();
  size_t listed = 0;
  for (jint i = 0; i < loaded.count; ++i) {
    bool met = false;
    if (Entry* e = MeetInScan(jni, env, loaded.classes[i], at, &met)) {
      e->seen = scan;
      ++listed;
    }
  }
  EndScan(at);
  if (listed != entries_.size() - free_.size()) FreeUnmet(jni, env, scan);
  return true;
}

ClassTable::Entry* ClassTable::MeetInScan(JNIEnv* jni, jvmtiEnv* env, jclass klass, Cursor& at, bool* met) {
  Entry* e = nullptr;
  if (at.expected < entries_.size()) {
    Entry& guess = entries_[at.expected];
    if (guess.klass && jni->IsSameObject(klass, guess.klass)) e = &guess;
  }
  if (!e) e = Find(env, klass);
  *met = e != nullptr;
  if (!e) {
    jint status = 0;
    // Not listed (not prepared yet): the next class is still expected where it was.
    if (env->GetClassStatus(klass, &status) != JVMTI_ERROR_NONE || !Listable(status)) return nullptr;
    if (!(e = Add(jni, env, klass, status))) return nullptr;
  }
  const auto index = static_cast<uint32_t>(e - entries_.data());
  at.expected = e->next;  // the last scan's order, read before it is rewritten
  if (at.last == kNoEntry) first_listed_ = index;
  else entries_[at.last].next = index;
  at.last = index;
  return e;
}

void ClassTable::EndScan(const Cursor& at) {
  if (at.last == kNoEntry) first_listed_ = kNoEntry;
  else entries_[at.last].next = kNoEntry;
}

void ClassTable::FreeUnmet(JNIEnv* jni, jvmtiEnv* env, uint64_t scan) {
  for (uint32_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].klass && entries_[i].seen != scan) Free(jni, env, i);
  }
}

bool ClassTable::TakeBuild() {
  std::lock_guard lock(mu_);
  if (env_ || unavailable_ || build_posted_) return false;
  build_posted_ = true;
  return true;
}

ClassTable::Entry* ClassTable::Find(jvmtiEnv* env, jclass klass) {
  jlong tag = 0;
  if (env->GetTag(klass, &tag) != JVMTI_ERROR_NONE || tag <= 0) return nullptr;
  auto index = static_cast<uint64_t>(tag - 1);
  if (index >= entries_.size() || !entries_[index].klass) return nullptr;
  return &entries_[index];
}

ClassTable::Entry* ClassTable::Add(JNIEnv* jni, jvmtiEnv* env, jclass klass, jint jvmti_status) {
  // The generic signature too: JDI asks AllClassesWithGeneric, and it costs
  // the VM a field read.
  char* signature = nullptr;
  char* generic = nullptr;
  if (env->GetClassSignature(klass, &signature, &generic) != JVMTI_ERROR_NONE || !signature) return nullptr;
  Entry fresh;
  {
    const std::string wire_signature = ToWireString(signature);
    jdwp::Writer strings;
    strings.String(wire_signature);
    fresh.strings = strings.Take();
    fresh.signature_bytes = static_cast<uint32_t>(4 + wire_signature.size());
  }
  StoreGeneric(fresh, generic);
  env->Deallocate(reinterpret_cast<unsigned char*>(signature));
  if (generic) env->Deallocate(reinterpret_cast<unsigned char*>(generic));
  if (jvmti_status & JVMTI_CLASS_STATUS_ARRAY) {
    fresh.tag = jdwp::TypeTag::kArray;
  } else {
    jboolean interface = JNI_FALSE;
    if (env->IsInterface(klass, &interface) != JVMTI_ERROR_NONE) return nullptr;
    fresh.tag = interface ? jdwp::TypeTag::kInterface : jdwp::TypeTag::kClass;
  }
  fresh.status = JdwpStatus(jvmti_status);
  fresh.status_final = Final(jvmti_status);
  fresh.klass = jni->NewWeakGlobalRef(klass);
  if (!fresh.klass) return nullptr;
  uint32_t index;
  if (!free_.empty()) {
    index = free_.back();
    free_.pop_back();
  } else {
    index = static_cast<uint32_t>(entries_.size());
    entries_.emplace_back();
  }
  if (env->SetTag(klass, static_cast<jlong>(index) + 1) != JVMTI_ERROR_NONE) {
    jni->DeleteWeakGlobalRef(fresh.klass);
    free_.push_back(index);
    return nullptr;
  }
  by_signature_.emplace(std::string(fresh.signature()), index);
  entries_[index] = std::move(fresh);
  return &entries_[index];
}

void ClassTable::Free(JNIEnv* jni, jvmtiEnv* env, uint32_t index) {
  Entry& e = entries_[index];
  jobject live = jni->NewLocalRef(e.klass);
  if (live) {  // not unloaded after all: its tag must not name a reused slot
    (void)env->SetTag(live, 0);
    jni->DeleteLocalRef(live);
  }
  auto [first, last] = by_signature_.equal_range(std::string(e.signature()));
  for (auto it = first; it != last; ++it) {
    if (it->second == index) {
      by_signature_.erase(it);
      break;
    }
  }
  jni->DeleteWeakGlobalRef(e.klass);
  e = Entry{};
  free_.push_back(index);
}

void ClassTable::Prepared(JNIEnv* jni, jclass klass) {
  std::lock_guard lock(mu_);
  if (!env_ || !klass || Find(env_, klass)) return;
  jint status = 0;
  if (env_->GetClassStatus(klass, &status) != JVMTI_ERROR_NONE || !Listable(status)) return;
  if (Entry* e = Add(jni, env_, klass, status)) e->seen = scan_;
}

void ClassTable::ReserveIds(JNIEnv* jni) {
  std::lock_guard lock(mu_);
  if (!env_) return;
  auto start = std::chrono::steady_clock::now();
  const uint64_t generation = objects_.generation();
  for (uint32_t i = 0; i < entries_.size(); ++i) {
    Entry& e = entries_[i];
    if (!e.klass) continue;
    jobject k = jni->NewLocalRef(e.klass);
    if (!k) {  // unloaded meanwhile
      Free(jni, env_, i);
      continue;
    }
    e.id = objects_.Reserve(jni, k).value;
    e.id_generation = generation;
    jni->DeleteLocalRef(k);
  }
  Log().debug("class table: {} IDs reserved for the next session in {} us", entries_.size() - free_.size(),
              std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count());
}

void ClassTable::ForgetGenerics() {
  std::lock_guard lock(mu_);
  for (Entry& e : entries_) {
    if (e.klass && e.tag != jdwp::TypeTag::kArray) {
      e.generic_known = false;
      e.strings.resize(e.signature_bytes);
    }
  }
}

void ClassTable::RefreshStatus(jvmtiEnv* env, jclass klass, Entry& e) {
  if (e.status_final) return;
  jint status = 0;
  if (env->GetClassStatus(klass, &status) != JVMTI_ERROR_NONE) return;
  e.status = JdwpStatus(status);
  e.status_final = Final(status);
}

void ClassTable::StoreGeneric(Entry& e, const char* generic) {
  const std::string wire_generic = generic ? ToWireString(generic) : std::string();
  jdwp::Writer strings;
  strings.Reserve(e.signature_bytes + 4 + wire_generic.size());
  strings.Bytes(e.strings.data(), e.signature_bytes);
  strings.String(wire_generic);
  e.strings = strings.Take();
  e.generic_known = true;
}

void ClassTable::FillGeneric(jvmtiEnv* env, jclass klass, Entry& e) {
  if (e.generic_known) return;
  char* signature = nullptr;
  char* generic = nullptr;
  if (env->GetClassSignature(klass, &signature, &generic) != JVMTI_ERROR_NONE) return;
  StoreGeneric(e, generic);
  if (signature) env->Deallocate(reinterpret_cast<unsigned char*>(signature));
  if (generic) env->Deallocate(reinterpret_cast<unsigned char*>(generic));
}

namespace {

// The ID of `klass` in the object table's `generation`, counted as sent: the
// cached one (`id`, issued in `id_generation`) if this session issued it and
// the debugger has not disposed of it, else the object table's (then cached).
jdwp::ReferenceTypeId SessionId(ObjectTable& objects, uint64_t generation, JNIEnv* jni, jclass klass, uint64_t& id,
                                uint64_t& id_generation) {
  if (id != 0 && id_generation == generation && objects.Resend(jdwp::ObjectId{id})) return jdwp::ReferenceTypeId{id};
  jdwp::ObjectId fresh = objects.IdOf(jni, klass);
  id = fresh.value;
  id_generation = generation;
  return jdwp::IdCast<jdwp::ReferenceTypeId>(fresh);
}

}  // namespace

jdwp::ReferenceTypeId ClassTable::IdOf(JNIEnv* jni, jclass klass, Entry& e) {
  return SessionId(objects_, objects_.generation(), jni, klass, e.id, e.id_generation);
}

jdwp::Result<void> ClassTable::All(JNIEnv* jni, bool generic, jdwp::WireListBuilder& out) {
  std::lock_guard lock(mu_);
  if (!env_) return jdwp::Fail(jdwp::ErrorCode::kInternal, "class table not ready");
  jvmtiEnv* env = env_;
  LoadedClasses loaded(env, jni);
  if (loaded.Get() != JVMTI_ERROR_NONE) return jdwp::Fail(jdwp::ErrorCode::kInternal, "GetLoadedClasses failed");
  const uint64_t scan = ++scan_;
  // Sessions end on this (the command) thread only: the generation holds for the scan.
  const uint64_t generation = objects_.generation();
  // One pass over the VM's list: each class's entry, and its item of the
  // reply written straight from it (the layouts of VirtualMachine.AllClasses::
  // Class and AllClassesWithGeneric::Class), with the ID this session gave
  // it. Then those IDs are counted as sent again in one pass over the object
  // table (one lock, not one per class); a class that has none yet (new, or
  // its ID disposed of by the debugger) gets one, patched into its item.
  static_assert(sizeof(jdwp::TypeTag) == 1);
  constexpr size_t kIdInItem = 1;  // the ID follows the 1-byte refTypeTag
  listed_.clear();
  listed_ids_.clear();
  listed_.reserve(static_cast<size_t>(loaded.count));
  listed_ids_.reserve(static_cast<size_t>(loaded.count));
  // The last scan's size: one allocation. The first scan with generics of a
  // VM guesses from the last without: 4 more bytes per class (an empty generic
  // signature) and a little for the few generic ones. Without a guess the
  // reply grew by doubling, a copy of the reply each time (+40% of its scan).
  const size_t guess = last_reply_bytes_[generic] != 0 ? last_reply_bytes_[generic]
                       : generic ? last_reply_bytes_[0] + 5 * static_cast<size_t>(loaded.count)
                                 : last_reply_bytes_[1];
  out.Reserve(guess + 4096);
  Cursor at = BeginScan();
  for (jint i = 0; i < loaded.count; ++i) {
    jclass k = loaded.classes[i];
    bool met = false;
    Entry* e = MeetInScan(jni, env, k, at, &met);
    if (!e) continue;
    if (met) RefreshStatus(env, k, *e);
    e->seen = scan;
    if (generic) FillGeneric(env, k, *e);
    const uint64_t id = e->id_generation == generation ? e->id : 0;
    listed_.push_back(Listing{i, static_cast<uint32_t>(e - entries_.data()), out.size() + kIdInItem});
    listed_ids_.push_back(id);
    const jdwp::Raw signature(std::span(e->strings.data(), e->signature_bytes));
    if (!generic) out.Add(e->tag, jdwp::ReferenceTypeId{id}, signature, e->status);
    else if (e->generic_known) out.Add(e->tag, jdwp::ReferenceTypeId{id}, jdwp::Raw(std::span(e->strings)), e->status);
    else out.Add(e->tag, jdwp::ReferenceTypeId{id}, signature, jdwp::Raw(std::span(kEmptyString)), e->status);  // ""
  }
  EndScan(at);
  last_reply_bytes_[generic] = out.size();
  objects_.ResendEach(listed_ids_);
  for (size_t n = 0; n < listed_.size(); ++n) {
    if (listed_ids_[n] != 0) continue;
    Entry& e = entries_[listed_[n].entry];
    e.id = objects_.IdOf(jni, loaded.classes[listed_[n].loaded]).value;
    e.id_generation = generation;
    out.PatchU64(listed_[n].id_at, e.id);
  }
  // Nothing unmet when every live entry was listed: no pass over the table.
  if (listed_.size() != entries_.size() - free_.size()) FreeUnmet(jni, env, scan);
  return {};
}

jdwp::Result<void> ClassTable::BySignature(JNIEnv* jni, std::string_view wire_signature, const Visit& visit) {
  // Compared in wire form: the debugger may send either encoding (wire_string.h).
  const std::string key = ToWireString(FromWireString(wire_signature));
  std::lock_guard lock(mu_);
  if (!env_) return jdwp::Fail(jdwp::ErrorCode::kInternal, "class table not ready");
  jvmtiEnv* env = env_;
  // Array classes come without an event: the VM's list has the new ones.
  if (!key.empty() && key.front() == '[' && !SyncLocked(jni, env))
    return jdwp::Fail(jdwp::ErrorCode::kInternal, "GetLoadedClasses failed");
  std::vector<uint32_t> matches;
  auto [first, last] = by_signature_.equal_range(key);
  for (auto it = first; it != last; ++it) matches.push_back(it->second);
  for (uint32_t index : matches) {
    Entry& e = entries_[index];
    auto k = static_cast<jclass>(jni->NewLocalRef(e.klass));
    if (!k) {  // unloaded (the weak reference cleared with the class)
      Free(jni, env, index);
      continue;
    }
    RefreshStatus(env, k, e);
    visit(Listed{e.tag, IdOf(jni, k, e), e.status});
    jni->DeleteLocalRef(k);
  }
  return {};
}

}  // namespace jdwpx::backend
