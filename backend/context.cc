#include "backend/context.h"

#include <algorithm>

#include "backend/errors.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;

namespace {
jclass GlobalClass(JNIEnv* jni, const char* name) {
  jclass local = jni->FindClass(name);
  if (!local) {
    jni->ExceptionClear();
    return nullptr;
  }
  auto global = static_cast<jclass>(jni->NewGlobalRef(local));
  jni->DeleteLocalRef(local);
  return global;
}
}  // namespace

bool Context::InitClasses(JNIEnv* jni) {
  class_class = GlobalClass(jni, "java/lang/Class");
  thread_class = GlobalClass(jni, "java/lang/Thread");
  thread_group_class = GlobalClass(jni, "java/lang/ThreadGroup");
  string_class = GlobalClass(jni, "java/lang/String");
  class_loader_class = GlobalClass(jni, "java/lang/ClassLoader");
  throwable_class = GlobalClass(jni, "java/lang/Throwable");
  return class_class && thread_class && thread_group_class && string_class && class_loader_class && throwable_class;
}

jdwp::Result<jobject> Context::Object(JNIEnv* jni, jdwp::ObjectId id) { return objects.Resolve(jni, id); }

jdwp::Result<jobject> Context::NonNullObject(JNIEnv* jni, jdwp::ObjectId id) {
  if (id.is_null()) return jdwp::Fail(ErrorCode::kInvalidObject, "null object");
  return objects.Resolve(jni, id);
}

jdwp::Result<jthread> Context::Thread(JNIEnv* jni, jdwp::ThreadId id, ThreadNeeds needs) {
  if (id.is_null()) return jdwp::Fail(ErrorCode::kInvalidThread, "null thread");
  ASSIGN_OR_RETURN(jobject obj, objects.Resolve(jni, jdwp::IdCast<jdwp::ObjectId>(id)));
  if (!jni->IsInstanceOf(obj, thread_class)) {
    jni->DeleteLocalRef(obj);
    return jdwp::Fail(ErrorCode::kInvalidThread, "not a thread");
  }
  // As stock: the agent's own threads (whose objects the debugger can find) are none of the debuggee's.
  auto thread = static_cast<jthread>(obj);
  if (threads.IsAgentThread(jni, thread)) {
    jni->DeleteLocalRef(obj);
    return jdwp::Fail(ErrorCode::kInvalidThread, "one of the agent's threads");
  }
  auto suspended = [&]() -> jdwp::Result<void> {
    // Whoever suspended it: a session reads any thread that is actually suspended.
    if (!threads.SuspendedByAny(jni, thread)) return jdwp::Fail(ErrorCode::kThreadNotSuspended, "thread not suspended");
    return {};
  };
  auto alive = [&]() -> jdwp::Result<void> {
    VM_ASSIGN_OR_RETURN(jint state, jvmti.GetThreadState(thread));
    if (!(state & JVMTI_THREAD_STATE_ALIVE)) return jdwp::Fail(ErrorCode::kInvalidThread, "thread not alive");
    return {};
  };
  jdwp::Result<void> checked;
  switch (needs) {
    case ThreadNeeds::kNothing: break;
    case ThreadNeeds::kSuspended: checked = suspended().and_then(alive); break;
    case ThreadNeeds::kAlive: checked = alive(); break;
    case ThreadNeeds::kAliveThenSuspended: checked = alive().and_then(suspended); break;
  }
  if (!checked) {
    jni->DeleteLocalRef(obj);
    return tl::unexpected(checked.error());
  }
  return thread;
}

jdwp::Result<jthreadGroup> Context::ThreadGroup(JNIEnv* jni, jdwp::ThreadGroupId id) {
  if (id.is_null()) return jdwp::Fail(ErrorCode::kInvalidThreadGroup, "null thread group");
  ASSIGN_OR_RETURN(jobject obj, objects.Resolve(jni, jdwp::IdCast<jdwp::ObjectId>(id)));
  if (!jni->IsInstanceOf(obj, thread_group_class))
    return jdwp::Fail(ErrorCode::kInvalidThreadGroup, "not a thread group");
  return static_cast<jthreadGroup>(obj);
}

jdwp::Result<jstring> Context::String(JNIEnv* jni, jdwp::StringId id) {
  if (id.is_null()) return jdwp::Fail(ErrorCode::kInvalidString, "null string");
  ASSIGN_OR_RETURN(jobject obj, objects.Resolve(jni, jdwp::IdCast<jdwp::ObjectId>(id)));
  if (!jni->IsInstanceOf(obj, string_class)) return jdwp::Fail(ErrorCode::kInvalidString, "not a string");
  return static_cast<jstring>(obj);
}

jdwp::Result<jobject> Context::ClassLoader(JNIEnv* jni, jdwp::ClassLoaderId id) {
  if (id.is_null()) return nullptr;  // the bootstrap loader
  ASSIGN_OR_RETURN(jobject obj, objects.Resolve(jni, jdwp::IdCast<jdwp::ObjectId>(id)));
  if (!jni->IsInstanceOf(obj, class_loader_class))
    return jdwp::Fail(ErrorCode::kInvalidClassLoader, "not a class loader");
  return obj;
}

jdwp::Result<jarray> Context::Array(JNIEnv* jni, jdwp::ArrayId id) {
  if (id.is_null()) return jdwp::Fail(ErrorCode::kInvalidArray, "null array");
  ASSIGN_OR_RETURN(jobject obj, objects.Resolve(jni, jdwp::IdCast<jdwp::ObjectId>(id)));
  jclass klass = jni->GetObjectClass(obj);
  auto is_array = jvmti.IsArrayClass(klass);
  jni->DeleteLocalRef(klass);
  if (!is_array || !*is_array) return jdwp::Fail(ErrorCode::kInvalidArray, "not an array");
  return static_cast<jarray>(obj);
}

jdwp::Result<jclass> Context::Class(JNIEnv* jni, jdwp::ReferenceTypeId id) {
  if (id.is_null()) return jdwp::Fail(ErrorCode::kInvalidClass, "null class");
  ASSIGN_OR_RETURN(jobject obj, objects.Resolve(jni, jdwp::IdCast<jdwp::ObjectId>(id)));
  if (!jni->IsInstanceOf(obj, class_class)) return jdwp::Fail(ErrorCode::kInvalidClass, "not a reference type");
  return static_cast<jclass>(obj);
}

jdwp::Result<jmethodID> Context::Method(jdwp::MethodId id) {
  if (!members.IsMethod(id.value)) return jdwp::Fail(ErrorCode::kInvalidMethodid, "unknown method id");
  return ToMethod(id);
}

jdwp::Result<jfieldID> Context::Field(jdwp::FieldId id) {
  if (!members.IsField(id.value)) return jdwp::Fail(ErrorCode::kInvalidFieldid, "unknown field id");
  return ToField(id);
}

jdwp::TypeTag Context::TypeTagOf(jclass klass) {
  if (auto a = jvmti.IsArrayClass(klass); a && *a) return jdwp::TypeTag::kArray;
  if (auto i = jvmti.IsInterface(klass); i && *i) return jdwp::TypeTag::kInterface;
  return jdwp::TypeTag::kClass;
}

jdwp::Tag Context::ObjectTagOf(JNIEnv* jni, jobject obj) {
  if (!obj) return jdwp::Tag::kObject;
  if (jni->IsInstanceOf(obj, string_class)) return jdwp::Tag::kString;
  if (jni->IsInstanceOf(obj, thread_class)) return jdwp::Tag::kThread;
  if (jni->IsInstanceOf(obj, thread_group_class)) return jdwp::Tag::kThreadGroup;
  if (jni->IsInstanceOf(obj, class_loader_class)) return jdwp::Tag::kClassLoader;
  if (jni->IsInstanceOf(obj, class_class)) return jdwp::Tag::kClassObject;
  jclass klass = jni->GetObjectClass(obj);
  auto is_array = jvmti.IsArrayClass(klass);
  jni->DeleteLocalRef(klass);
  if (is_array && *is_array) return jdwp::Tag::kArray;
  return jdwp::Tag::kObject;
}

jdwp::Value Context::ObjectValue(JNIEnv* jni, jobject obj) {
  return jdwp::Value::Object(ObjectTagOf(jni, obj), objects.IdOf(jni, obj));
}

jdwp::TaggedObjectId Context::TaggedId(JNIEnv* jni, jobject obj) {
  return jdwp::TaggedObjectId{ObjectTagOf(jni, obj), objects.IdOf(jni, obj)};
}

jdwp::Location Context::LocationOf(JNIEnv* jni, jmethodID method, jlocation index) {
  // As stock: a place in the old version of a redefined method (obsolete, not
  // in the class's method list) carries method ID 0, which JDI turns into an
  // obsolete Method; the class and the code index stay.
  const bool obsolete = jvmti.IsMethodObsolete(method).value_or(false);
  if (!obsolete) members.AddMethod(method);
  jdwp::Location loc;
  loc.method_id = obsolete ? jdwp::MethodId{} : ToWire(method);
  loc.index = static_cast<uint64_t>(index);
  auto klass = jvmti.GetMethodDeclaringClass(method);
  if (!klass) return loc;
  // The class ID comes from the object table every time: a cached ID would
  // outlive the session whose table issued it (the table is reset at its end)
  // and would skip the debugger's reference count (DisposeObjects). Only the
  // type tag, which never changes for a method, is cached.
  loc.class_id = IdOf<jdwp::ClassId>(jni, *klass);
  {
    std::lock_guard lock(cache_mu_);
    if (auto it = declaring_tags_.find(method); it != declaring_tags_.end()) {
      loc.type_tag = it->second;
      jni->DeleteLocalRef(*klass);
      return loc;
    }
  }
  loc.type_tag = TypeTagOf(*klass);
  jni->DeleteLocalRef(*klass);
  std::lock_guard lock(cache_mu_);
  declaring_tags_[method] = loc.type_tag;
  return loc;
}

int32_t Context::ClassStatusOf(jclass klass) {
  auto status = jvmti.GetClassStatus(klass);
  if (!status) return 0;
  int32_t out = 0;
  if (*status & JVMTI_CLASS_STATUS_VERIFIED) out |= jdwp::ClassStatus::kVerified;
  if (*status & JVMTI_CLASS_STATUS_PREPARED) out |= jdwp::ClassStatus::kPrepared;
  if (*status & JVMTI_CLASS_STATUS_INITIALIZED) out |= jdwp::ClassStatus::kInitialized;
  if (*status & JVMTI_CLASS_STATUS_ERROR) out |= jdwp::ClassStatus::kError;
  return out;
}

std::shared_ptr<const std::vector<vmcore::LineEntry>> Context::LineTable(jmethodID method) {
  uint64_t generation;
  {
    std::lock_guard lock(cache_mu_);
    auto it = line_tables_.find(method);
    if (it != line_tables_.end()) return it->second;
    generation = method_caches_generation_;
  }
  auto table = jvmti.GetLineNumberTable(method);
  auto lines = std::make_shared<std::vector<vmcore::LineEntry>>(table ? std::move(*table) : std::vector<vmcore::LineEntry>{});
  std::sort(lines->begin(), lines->end(), [](auto& a, auto& b) { return a.start < b.start; });
  std::lock_guard lock(cache_mu_);
  // Read before a redefine that happened meanwhile: may be the old code's.
  if (generation == method_caches_generation_) line_tables_[method] = lines;
  return lines;
}

int32_t Context::LineOf(jmethodID method, jlocation location) {
  auto lines = LineTable(method);
  int32_t line = -1;
  for (const auto& e : *lines) {
    if (e.start > location) break;
    line = e.line;
  }
  return line;
}

void Context::ForgetMethodCaches() {
  std::lock_guard lock(cache_mu_);
  line_tables_.clear();
  step_lines_.clear();
  ++method_caches_generation_;
}

void Context::SetDefaultStratum(std::string stratum) {
  std::lock_guard lock(cache_mu_);
  default_stratum_ = std::move(stratum);
  step_lines_.clear();
}

std::shared_ptr<const Smap> Context::SourceMapOf(jclass klass) {
  auto text = jvmti.GetSourceDebugExtension(klass);
  if (!text) return nullptr;
  auto map = Smap::Parse(*text);
  return map ? std::make_shared<const Smap>(std::move(*map)) : nullptr;
}

bool Context::AnySourceMapName(jclass klass, const std::function<bool(std::string_view)>& matches) {
  auto map = SourceMapOf(klass);
  return map && map->AnySourceName(matches);
}

int32_t Context::StepLineOf(JNIEnv* jni, jmethodID method, jlocation location) {
  StepLines cached;
  std::string stratum;
  uint64_t generation;
  {
    std::lock_guard lock(cache_mu_);
    if (auto it = step_lines_.find(method); it != step_lines_.end()) cached = it->second;
    stratum = default_stratum_;
    generation = method_caches_generation_;
  }
  if (!cached.lines) {
    if (jvmti.IsMethodObsolete(method).value_or(false)) {
      // As stock, a step does not ask for an obsolete method's lines: it has none (-1).
      // A method ID never turns obsolete (a redefinition gives the old code new IDs).
      cached.lines = std::make_shared<const std::vector<Smap::LineEntry>>();
    } else {
      auto java = LineTable(method);
      auto klass = jvmti.GetMethodDeclaringClass(method);
      if (klass) {
        cached.map = SourceMapOf(*klass);
        jni->DeleteLocalRef(*klass);
      }
      std::vector<Smap::LineEntry> entries;
      entries.reserve(java->size());
      for (const auto& e : *java) entries.push_back({e.start, e.line});
      cached.lines = std::make_shared<const std::vector<Smap::LineEntry>>(
          cached.map ? cached.map->StepLines(stratum, entries) : std::move(entries));
    }
    std::lock_guard lock(cache_mu_);
    if (generation == method_caches_generation_ && stratum == default_stratum_) step_lines_[method] = cached;
  }
  if (cached.lines->empty()) return -1;
  // As stock, code ahead of the first entry counts as the first line: under a stratum
  // that does not map the method's first Java lines, they belong to its first line.
  int32_t line = cached.lines->front().line;
  for (const auto& e : *cached.lines) {
    if (e.start > location) break;
    line = e.line;
  }
  return line;
}

// A frame ID is the thread's generation (unique across threads, new at every
// resume) and the frame's depth: no table to grow with every Frames reply, and
// an ID goes stale by itself when its thread resumes.
namespace {
constexpr int kDepthBits = 24;
constexpr uint64_t kDepthMask = (uint64_t{1} << kDepthBits) - 1;
}  // namespace

jdwp::FrameId Context::FrameIdOf(JNIEnv* jni, jthread thread, int32_t depth) {
  uint64_t generation = threads.Generation(jni, thread);
  return jdwp::FrameId{generation << kDepthBits | (static_cast<uint64_t>(depth) & kDepthMask)};
}

jdwp::Result<int32_t> Context::FrameDepth(JNIEnv* jni, jthread thread, jdwp::FrameId frame) {
  uint64_t generation = frame.value >> kDepthBits;
  auto depth = static_cast<int32_t>(frame.value & kDepthMask);
  // As stock: the thread's suspension first, even for a frame ID never issued.
  if (!threads.SuspendedByAny(jni, thread)) return jdwp::Fail(ErrorCode::kThreadNotSuspended, "thread not suspended");
  if (generation == 0) return jdwp::Fail(ErrorCode::kInvalidFrameid, "unknown frame");
  if (generation != threads.Generation(jni, thread)) return jdwp::Fail(ErrorCode::kInvalidFrameid, "stale frame or another thread's");
  return depth;
}

uint64_t Context::FrameReadsGeneration(JNIEnv* jni, jthread thread, jdwp::FrameId frame) {
  uint64_t generation = frame.value >> kDepthBits;
  return generation != 0 && threads.FrozenGeneration(jni, thread) == generation ? generation : 0;
}

bool Context::Reusable(JNIEnv* jni, const jdwp::Value& value) {
  if (!jdwp::IsObjectTag(value.tag) || value.object().is_null()) return true;
  return objects.ResendLive(jni, value.object());
}

}  // namespace jdwpx::backend
