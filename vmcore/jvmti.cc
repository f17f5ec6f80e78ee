#include "vmcore/jvmti.h"

namespace jdwpx::vmcore {
namespace {

// Copies a JVMTI-allocated C string and deallocates it.
std::string TakeString(jvmtiEnv* env, char* s) {
  if (!s) return {};
  std::string out(s);
  env->Deallocate(reinterpret_cast<unsigned char*>(s));
  return out;
}

template <class T>
std::vector<T> TakeArray(jvmtiEnv* env, T* p, jint n) {
  std::vector<T> out;
  if (p) {
    out.assign(p, p + n);
    env->Deallocate(reinterpret_cast<unsigned char*>(p));
  }
  return out;
}

}  // namespace

#define VM_CALL(fn, ...)                                      \
  do {                                                        \
    jvmtiError err_ = env_->fn(__VA_ARGS__);                  \
    if (err_ != JVMTI_ERROR_NONE) return VmFail(err_, #fn);   \
  } while (0)

Result<std::vector<jclass>> Jvmti::LoadedClasses() const {
  jint n = 0;
  jclass* classes = nullptr;
  VM_CALL(GetLoadedClasses, &n, &classes);
  return TakeArray(env_, classes, n);
}

Result<ClassSignature> Jvmti::GetClassSignature(jclass klass) const {
  char* sig = nullptr;
  char* gen = nullptr;
  VM_CALL(GetClassSignature, klass, &sig, &gen);
  return ClassSignature{TakeString(env_, sig), TakeString(env_, gen)};
}

Result<jint> Jvmti::GetClassStatus(jclass klass) const {
  jint status = 0;
  VM_CALL(GetClassStatus, klass, &status);
  return status;
}

Result<jint> Jvmti::GetClassModifiers(jclass klass) const {
  jint mods = 0;
  VM_CALL(GetClassModifiers, klass, &mods);
  return mods;
}

Result<std::vector<jmethodID>> Jvmti::GetClassMethods(jclass klass) const {
  jint n = 0;
  jmethodID* methods = nullptr;
  VM_CALL(GetClassMethods, klass, &n, &methods);
  return TakeArray(env_, methods, n);
}

Result<std::vector<jfieldID>> Jvmti::GetClassFields(jclass klass) const {
  jint n = 0;
  jfieldID* fields = nullptr;
  VM_CALL(GetClassFields, klass, &n, &fields);
  return TakeArray(env_, fields, n);
}

Result<std::vector<jclass>> Jvmti::GetImplementedInterfaces(jclass klass) const {
  jint n = 0;
  jclass* ifaces = nullptr;
  VM_CALL(GetImplementedInterfaces, klass, &n, &ifaces);
  return TakeArray(env_, ifaces, n);
}

Result<std::string> Jvmti::GetSourceFileName(jclass klass) const {
  char* name = nullptr;
  VM_CALL(GetSourceFileName, klass, &name);
  return TakeString(env_, name);
}

Result<std::string> Jvmti::GetSourceDebugExtension(jclass klass) const {
  char* ext = nullptr;
  VM_CALL(GetSourceDebugExtension, klass, &ext);
  return TakeString(env_, ext);
}

Result<jobject> Jvmti::GetClassLoader(jclass klass) const {
  jobject loader = nullptr;
  VM_CALL(GetClassLoader, klass, &loader);
  return loader;
}

Result<bool> Jvmti::IsInterface(jclass klass) const {
  jboolean b = JNI_FALSE;
  VM_CALL(IsInterface, klass, &b);
  return b == JNI_TRUE;
}

Result<bool> Jvmti::IsArrayClass(jclass klass) const {
  jboolean b = JNI_FALSE;
  VM_CALL(IsArrayClass, klass, &b);
  return b == JNI_TRUE;
}

Result<std::pair<jint, jint>> Jvmti::GetClassVersionNumbers(jclass klass) const {
  jint minor = 0, major = 0;
  VM_CALL(GetClassVersionNumbers, klass, &minor, &major);
  return std::make_pair(minor, major);
}

Result<MethodName> Jvmti::GetMethodName(jmethodID method) const {
  char* name = nullptr;
  char* sig = nullptr;
  char* gen = nullptr;
  VM_CALL(GetMethodName, method, &name, &sig, &gen);
  return MethodName{TakeString(env_, name), TakeString(env_, sig), TakeString(env_, gen)};
}

Result<jclass> Jvmti::GetMethodDeclaringClass(jmethodID method) const {
  jclass klass = nullptr;
  VM_CALL(GetMethodDeclaringClass, method, &klass);
  return klass;
}

Result<jint> Jvmti::GetMethodModifiers(jmethodID method) const {
  jint mods = 0;
  VM_CALL(GetMethodModifiers, method, &mods);
  return mods;
}

Result<bool> Jvmti::IsMethodNative(jmethodID method) const {
  jboolean b = JNI_FALSE;
  VM_CALL(IsMethodNative, method, &b);
  return b == JNI_TRUE;
}

Result<bool> Jvmti::IsMethodSynthetic(jmethodID method) const {
  jboolean b = JNI_FALSE;
  VM_CALL(IsMethodSynthetic, method, &b);
  return b == JNI_TRUE;
}

Result<bool> Jvmti::IsMethodObsolete(jmethodID method) const {
  jboolean b = JNI_FALSE;
  VM_CALL(IsMethodObsolete, method, &b);
  return b == JNI_TRUE;
}

Result<jint> Jvmti::GetMaxLocals(jmethodID method) const {
  jint n = 0;
  VM_CALL(GetMaxLocals, method, &n);
  return n;
}

Result<jint> Jvmti::GetArgumentsSize(jmethodID method) const {
  jint n = 0;
  VM_CALL(GetArgumentsSize, method, &n);
  return n;
}

Result<std::pair<jlocation, jlocation>> Jvmti::GetMethodLocation(jmethodID method) const {
  jlocation start = 0, end = 0;
  VM_CALL(GetMethodLocation, method, &start, &end);
  return std::make_pair(start, end);
}

Result<std::vector<LineEntry>> Jvmti::GetLineNumberTable(jmethodID method) const {
  jint n = 0;
  jvmtiLineNumberEntry* table = nullptr;
  VM_CALL(GetLineNumberTable, method, &n, &table);
  std::vector<LineEntry> out;
  out.reserve(n);
  for (jint i = 0; i < n; ++i) out.push_back({table[i].start_location, table[i].line_number});
  env_->Deallocate(reinterpret_cast<unsigned char*>(table));
  return out;
}

Result<std::vector<LocalVariable>> Jvmti::GetLocalVariableTable(jmethodID method) const {
  jint n = 0;
  jvmtiLocalVariableEntry* table = nullptr;
  VM_CALL(GetLocalVariableTable, method, &n, &table);
  std::vector<LocalVariable> out;
  out.reserve(n);
  for (jint i = 0; i < n; ++i) {
    auto& e = table[i];
    out.push_back({e.start_location, e.length, TakeString(env_, e.name), TakeString(env_, e.signature),
                   TakeString(env_, e.generic_signature), e.slot});
  }
  env_->Deallocate(reinterpret_cast<unsigned char*>(table));
  return out;
}

Result<std::vector<uint8_t>> Jvmti::GetBytecodes(jmethodID method) const {
  jint n = 0;
  unsigned char* code = nullptr;
  VM_CALL(GetBytecodes, method, &n, &code);
  return TakeArray(env_, reinterpret_cast<uint8_t*>(code), n);
}

Result<FieldName> Jvmti::GetFieldName(jclass klass, jfieldID field) const {
  char* name = nullptr;
  char* sig = nullptr;
  char* gen = nullptr;
  VM_CALL(GetFieldName, klass, field, &name, &sig, &gen);
  return FieldName{TakeString(env_, name), TakeString(env_, sig), TakeString(env_, gen)};
}

Result<jint> Jvmti::GetFieldModifiers(jclass klass, jfieldID field) const {
  jint mods = 0;
  VM_CALL(GetFieldModifiers, klass, field, &mods);
  return mods;
}

Result<bool> Jvmti::IsFieldSynthetic(jclass klass, jfieldID field) const {
  jboolean b = JNI_FALSE;
  VM_CALL(IsFieldSynthetic, klass, field, &b);
  return b == JNI_TRUE;
}

Result<jclass> Jvmti::GetFieldDeclaringClass(jclass klass, jfieldID field) const {
  jclass decl = nullptr;
  VM_CALL(GetFieldDeclaringClass, klass, field, &decl);
  return decl;
}

Result<std::vector<jthread>> Jvmti::GetAllThreads() const {
  jint n = 0;
  jthread* threads = nullptr;
  VM_CALL(GetAllThreads, &n, &threads);
  return TakeArray(env_, threads, n);
}

Result<ThreadInfo> Jvmti::GetThreadInfo(jthread thread) const {
  jvmtiThreadInfo info{};
  VM_CALL(GetThreadInfo, thread, &info);
  ThreadInfo out;
  out.name = TakeString(env_, info.name);
  out.priority = info.priority;
  out.daemon = info.is_daemon == JNI_TRUE;
  out.group = info.thread_group;
  out.context_loader = info.context_class_loader;
  return out;
}

Result<jint> Jvmti::GetThreadState(jthread thread) const {
  jint state = 0;
  VM_CALL(GetThreadState, thread, &state);
  return state;
}

Result<std::vector<Frame>> Jvmti::GetStackTrace(jthread thread, jint start, jint max) const {
  std::vector<jvmtiFrameInfo> buf(static_cast<size_t>(max > 0 ? max : 0));
  jint n = 0;
  VM_CALL(GetStackTrace, thread, start, max, buf.data(), &n);
  std::vector<Frame> out;
  out.reserve(n);
  for (jint i = 0; i < n; ++i) out.push_back({buf[i].method, buf[i].location});
  return out;
}

Result<jint> Jvmti::GetFrameCount(jthread thread) const {
  jint n = 0;
  VM_CALL(GetFrameCount, thread, &n);
  return n;
}

Result<std::pair<jmethodID, jlocation>> Jvmti::GetFrameLocation(jthread thread, jint depth) const {
  jmethodID method = nullptr;
  jlocation location = 0;
  VM_CALL(GetFrameLocation, thread, depth, &method, &location);
  return std::make_pair(method, location);
}

Result<void> Jvmti::SuspendThread(jthread thread) const {
  VM_CALL(SuspendThread, thread);
  return {};
}

Result<void> Jvmti::ResumeThread(jthread thread) const {
  VM_CALL(ResumeThread, thread);
  return {};
}

Result<std::vector<jvmtiError>> Jvmti::SuspendThreadList(const std::vector<jthread>& threads) const {
  std::vector<jvmtiError> results(threads.size(), JVMTI_ERROR_NONE);
  if (threads.empty()) return results;  // JVMTI refuses a count of 0
  VM_CALL(SuspendThreadList, static_cast<jint>(threads.size()), threads.data(), results.data());
  return results;
}

Result<std::vector<jvmtiError>> Jvmti::ResumeThreadList(const std::vector<jthread>& threads) const {
  std::vector<jvmtiError> results(threads.size(), JVMTI_ERROR_NONE);
  if (threads.empty()) return results;
  VM_CALL(ResumeThreadList, static_cast<jint>(threads.size()), threads.data(), results.data());
  return results;
}

Result<std::vector<jthreadGroup>> Jvmti::GetTopThreadGroups() const {
  jint n = 0;
  jthreadGroup* groups = nullptr;
  VM_CALL(GetTopThreadGroups, &n, &groups);
  return TakeArray(env_, groups, n);
}

Result<ThreadGroupInfo> Jvmti::GetThreadGroupInfo(jthreadGroup group) const {
  jvmtiThreadGroupInfo info{};
  VM_CALL(GetThreadGroupInfo, group, &info);
  return ThreadGroupInfo{info.parent, TakeString(env_, info.name), info.max_priority, info.is_daemon == JNI_TRUE};
}

Result<ThreadGroupChildren> Jvmti::GetThreadGroupChildren(jthreadGroup group) const {
  jint nt = 0, ng = 0;
  jthread* threads = nullptr;
  jthreadGroup* groups = nullptr;
  VM_CALL(GetThreadGroupChildren, group, &nt, &threads, &ng, &groups);
  return ThreadGroupChildren{TakeArray(env_, threads, nt), TakeArray(env_, groups, ng)};
}

Result<jthread> Jvmti::GetCurrentThread() const {
  jthread t = nullptr;
  VM_CALL(GetCurrentThread, &t);
  return t;
}

Result<jint> Jvmti::GetLocalInt(jthread thread, jint depth, jint slot) const {
  jint v = 0;
  VM_CALL(GetLocalInt, thread, depth, slot, &v);
  return v;
}

Result<jlong> Jvmti::GetLocalLong(jthread thread, jint depth, jint slot) const {
  jlong v = 0;
  VM_CALL(GetLocalLong, thread, depth, slot, &v);
  return v;
}

Result<jfloat> Jvmti::GetLocalFloat(jthread thread, jint depth, jint slot) const {
  jfloat v = 0;
  VM_CALL(GetLocalFloat, thread, depth, slot, &v);
  return v;
}

Result<jdouble> Jvmti::GetLocalDouble(jthread thread, jint depth, jint slot) const {
  jdouble v = 0;
  VM_CALL(GetLocalDouble, thread, depth, slot, &v);
  return v;
}

Result<jobject> Jvmti::GetLocalObject(jthread thread, jint depth, jint slot) const {
  jobject v = nullptr;
  VM_CALL(GetLocalObject, thread, depth, slot, &v);
  return v;
}

Result<jobject> Jvmti::GetLocalInstance(jthread thread, jint depth) const {
  jobject v = nullptr;
  VM_CALL(GetLocalInstance, thread, depth, &v);
  return v;
}

Result<jlong> Jvmti::GetTag(jobject object) const {
  jlong tag = 0;
  VM_CALL(GetTag, object, &tag);
  return tag;
}

Result<void> Jvmti::SetTag(jobject object, jlong tag) const {
  VM_CALL(SetTag, object, tag);
  return {};
}

Result<jint> Jvmti::GetObjectHashCode(jobject object) const {
  jint hash = 0;
  VM_CALL(GetObjectHashCode, object, &hash);
  return hash;
}

Result<void> Jvmti::SetBreakpoint(jmethodID method, jlocation location) const {
  VM_CALL(SetBreakpoint, method, location);
  return {};
}

Result<void> Jvmti::ClearBreakpoint(jmethodID method, jlocation location) const {
  VM_CALL(ClearBreakpoint, method, location);
  return {};
}

Result<void> Jvmti::SetEventMode(bool enable, jvmtiEvent event, jthread thread) const {
  VM_CALL(SetEventNotificationMode, enable ? JVMTI_ENABLE : JVMTI_DISABLE, event, thread);
  return {};
}

Result<std::optional<std::string>> Jvmti::GetSystemProperty(const char* name) const {
  char* value = nullptr;
  jvmtiError err = env_->GetSystemProperty(name, &value);
  if (err == JVMTI_ERROR_NOT_AVAILABLE) return std::optional<std::string>();
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "GetSystemProperty");
  return std::optional<std::string>(TakeString(env_, value));
}

Result<std::pair<jint, jint>> Jvmti::GetVersion() const {
  jint version = 0;
  VM_CALL(GetVersionNumber, &version);
  return std::make_pair((version & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR,
                        (version & JVMTI_VERSION_MASK_MINOR) >> JVMTI_VERSION_SHIFT_MINOR);
}

const char* JvmtiErrorName(jvmtiError error) {
  switch (error) {
    case JVMTI_ERROR_NONE: return "JVMTI_ERROR_NONE";
    case JVMTI_ERROR_INVALID_THREAD: return "JVMTI_ERROR_INVALID_THREAD";
    case JVMTI_ERROR_INVALID_THREAD_GROUP: return "JVMTI_ERROR_INVALID_THREAD_GROUP";
    case JVMTI_ERROR_INVALID_PRIORITY: return "JVMTI_ERROR_INVALID_PRIORITY";
    case JVMTI_ERROR_THREAD_NOT_SUSPENDED: return "JVMTI_ERROR_THREAD_NOT_SUSPENDED";
    case JVMTI_ERROR_THREAD_SUSPENDED: return "JVMTI_ERROR_THREAD_SUSPENDED";
    case JVMTI_ERROR_THREAD_NOT_ALIVE: return "JVMTI_ERROR_THREAD_NOT_ALIVE";
    case JVMTI_ERROR_INVALID_OBJECT: return "JVMTI_ERROR_INVALID_OBJECT";
    case JVMTI_ERROR_INVALID_CLASS: return "JVMTI_ERROR_INVALID_CLASS";
    case JVMTI_ERROR_CLASS_NOT_PREPARED: return "JVMTI_ERROR_CLASS_NOT_PREPARED";
    case JVMTI_ERROR_INVALID_METHODID: return "JVMTI_ERROR_INVALID_METHODID";
    case JVMTI_ERROR_INVALID_LOCATION: return "JVMTI_ERROR_INVALID_LOCATION";
    case JVMTI_ERROR_INVALID_FIELDID: return "JVMTI_ERROR_INVALID_FIELDID";
    case JVMTI_ERROR_NO_MORE_FRAMES: return "JVMTI_ERROR_NO_MORE_FRAMES";
    case JVMTI_ERROR_OPAQUE_FRAME: return "JVMTI_ERROR_OPAQUE_FRAME";
    case JVMTI_ERROR_TYPE_MISMATCH: return "JVMTI_ERROR_TYPE_MISMATCH";
    case JVMTI_ERROR_INVALID_SLOT: return "JVMTI_ERROR_INVALID_SLOT";
    case JVMTI_ERROR_DUPLICATE: return "JVMTI_ERROR_DUPLICATE";
    case JVMTI_ERROR_NOT_FOUND: return "JVMTI_ERROR_NOT_FOUND";
    case JVMTI_ERROR_ABSENT_INFORMATION: return "JVMTI_ERROR_ABSENT_INFORMATION";
    case JVMTI_ERROR_NATIVE_METHOD: return "JVMTI_ERROR_NATIVE_METHOD";
    case JVMTI_ERROR_NOT_AVAILABLE: return "JVMTI_ERROR_NOT_AVAILABLE";
    case JVMTI_ERROR_MUST_POSSESS_CAPABILITY: return "JVMTI_ERROR_MUST_POSSESS_CAPABILITY";
    case JVMTI_ERROR_NULL_POINTER: return "JVMTI_ERROR_NULL_POINTER";
    case JVMTI_ERROR_ILLEGAL_ARGUMENT: return "JVMTI_ERROR_ILLEGAL_ARGUMENT";
    case JVMTI_ERROR_OUT_OF_MEMORY: return "JVMTI_ERROR_OUT_OF_MEMORY";
    case JVMTI_ERROR_WRONG_PHASE: return "JVMTI_ERROR_WRONG_PHASE";
    case JVMTI_ERROR_INTERNAL: return "JVMTI_ERROR_INTERNAL";
    case JVMTI_ERROR_UNATTACHED_THREAD: return "JVMTI_ERROR_UNATTACHED_THREAD";
    case JVMTI_ERROR_INVALID_ENVIRONMENT: return "JVMTI_ERROR_INVALID_ENVIRONMENT";
    default: return "JVMTI_ERROR_OTHER";
  }
}

#undef VM_CALL

}  // namespace jdwpx::vmcore

// ---- Heap, modules, class loaders, constant pool ----------------------------

#include <algorithm>
#include <cstdint>

namespace jdwpx::vmcore {
namespace {

// A JVMTI environment of its own for one heap walk: its tag space is separate
// from every other environment's, and disposing it drops all its tags at once.
class ScratchTagEnv {
 public:
  explicit ScratchTagEnv(JNIEnv* jni) {
    JavaVM* vm = nullptr;
    if (jni->GetJavaVM(&vm) != JNI_OK || vm == nullptr) return;
    if (vm->GetEnv(reinterpret_cast<void**>(&env_), JVMTI_VERSION_1_2) != JNI_OK) {
      env_ = nullptr;
      return;
    }
    jvmtiCapabilities caps{};
    caps.can_tag_objects = 1;
    error_ = env_->AddCapabilities(&caps);
  }
  ~ScratchTagEnv() {
    if (env_) env_->DisposeEnvironment();
  }
  ScratchTagEnv(const ScratchTagEnv&) = delete;
  ScratchTagEnv& operator=(const ScratchTagEnv&) = delete;

  // JVMTI_ERROR_NONE when the environment is usable.
  jvmtiError status() const { return env_ ? error_ : JVMTI_ERROR_INTERNAL; }
  jvmtiEnv* operator->() const { return env_; }
  jvmtiEnv* get() const { return env_; }

  // Every object tagged `tag`, as local references (the JVMTI array is freed).
  Result<std::vector<jobject>> ObjectsWithTag(jlong tag) const {
    jint n = 0;
    jobject* objects = nullptr;
    jvmtiError err = env_->GetObjectsWithTags(1, &tag, &n, &objects, nullptr);
    if (err != JVMTI_ERROR_NONE) return VmFail(err, "GetObjectsWithTags");
    std::vector<jobject> out(objects, objects + n);
    env_->Deallocate(reinterpret_cast<unsigned char*>(objects));
    return out;
  }

 private:
  jvmtiEnv* env_ = nullptr;
  jvmtiError error_ = JVMTI_ERROR_INTERNAL;
};

// Heap callbacks run on the VM thread at a safepoint: plain arithmetic on the
// tags only, no JNI, nothing that can throw.

// Instance counts without tagging the instances: the heap walk visits every
// reachable object once, and each visit of an instance or array reports exactly
// one JVMTI_HEAP_REFERENCE_CLASS reference, from the object to its class, with
// referrer_class_tag = the tag of the object's class. With the listed classes'
// mirrors tagged index+1, counting those references counts the instances, and
// the walk adds one tag per listed class, not one per object (a million-object
// answer costs no tag-map growth in the debuggee).
// Objects of class java.lang.Class are the exception: a visited class reports
// its superclass, loader, interfaces and statics, but no CLASS reference.
struct ClassEdgeCount {
  std::vector<jlong>* counts;
};

jint JNICALL CountClassEdge(jvmtiHeapReferenceKind kind, const jvmtiHeapReferenceInfo*, jlong, jlong referrer_class_tag,
                            jlong, jlong*, jlong*, jint, void* user_data) {
  if (kind != JVMTI_HEAP_REFERENCE_CLASS || referrer_class_tag <= 0) return JVMTI_VISIT_OBJECTS;
  auto* state = static_cast<ClassEdgeCount*>(user_data);
  auto index = static_cast<size_t>(referrer_class_tag - 1);
  if (index < state->counts->size()) ++(*state->counts)[index];
  return JVMTI_VISIT_OBJECTS;
}

// One class (JVMTI's klass filter picks its instances without any tag lookup for
// other objects); also collects instances, stopping after `max` (0 = no limit).
struct ClassWalk {
  jlong found = 0;
  jlong max = 0;
};

jint JNICALL TagInstance(jvmtiHeapReferenceKind, const jvmtiHeapReferenceInfo*, jlong, jlong, jlong, jlong* tag_ptr,
                         jlong*, jint, void* user_data) {
  auto* state = static_cast<ClassWalk*>(user_data);
  if (state->max != 0 && state->found >= state->max) return JVMTI_VISIT_ABORT;
  if (*tag_ptr != 0) return JVMTI_VISIT_OBJECTS;
  *tag_ptr = 1;
  ++state->found;
  return JVMTI_VISIT_OBJECTS;
}

Result<jlong> WalkOneClass(const ScratchTagEnv& env, jclass klass, jint max) {
  jvmtiHeapCallbacks callbacks{};
  callbacks.heap_reference_callback = TagInstance;
  ClassWalk state;
  state.max = max;
  jvmtiError err = env->FollowReferences(0, klass, nullptr, &callbacks, &state);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "FollowReferences");
  return state.found;
}

// Referrers: the object of interest carries kTarget; each object found holding a
// reference to it gets kReferrer. Only references to tagged objects reach the
// callback (JVMTI_HEAP_FILTER_UNTAGGED).
constexpr jlong kTarget = 1;
constexpr jlong kReferrer = 2;

struct ReferrerWalk {
  jlong found = 0;
  jlong max = 0;
  bool self = false;
};

jint JNICALL TagReferrer(jvmtiHeapReferenceKind, const jvmtiHeapReferenceInfo*, jlong, jlong, jlong, jlong* tag_ptr,
                         jlong* referrer_tag_ptr, jint, void* user_data) {
  auto* state = static_cast<ReferrerWalk*>(user_data);
  if (state->max != 0 && state->found >= state->max) return JVMTI_VISIT_ABORT;
  if (*tag_ptr != kTarget) return JVMTI_VISIT_OBJECTS;
  if (referrer_tag_ptr == tag_ptr) {
    // A reference from the object to itself: its tag must stay kTarget for the
    // rest of the walk, so it is re-tagged as a referrer afterwards.
    if (!state->self) {
      state->self = true;
      ++state->found;
    }
    return JVMTI_VISIT_OBJECTS;
  }
  // Roots (stack slots, JNI references, system classes) have no referrer object.
  if (referrer_tag_ptr != nullptr && *referrer_tag_ptr == 0) {
    *referrer_tag_ptr = kReferrer;
    ++state->found;
  }
  return JVMTI_VISIT_OBJECTS;
}

}  // namespace

Result<jvmtiCapabilities> Jvmti::GetCapabilities() const {
  jvmtiCapabilities caps{};
  jvmtiError err = env_->GetCapabilities(&caps);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "GetCapabilities");
  return caps;
}

Result<std::string> Jvmti::GetClassSignatureOnly(jclass klass) const {
  char* sig = nullptr;
  jvmtiError err = env_->GetClassSignature(klass, &sig, nullptr);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "GetClassSignature");
  return TakeString(env_, sig);
}

Result<char> Jvmti::GetFieldTypeChar(jclass klass, jfieldID field) const {
  char* sig = nullptr;
  jvmtiError err = env_->GetFieldName(klass, field, nullptr, &sig, nullptr);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "GetFieldName");
  const char type = sig ? sig[0] : '\0';
  if (sig) env_->Deallocate(reinterpret_cast<unsigned char*>(sig));
  return type;
}

Result<std::vector<jobject>> Jvmti::GetAllModules() const {
  jint n = 0;
  jobject* modules = nullptr;
  jvmtiError err = env_->GetAllModules(&n, &modules);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "GetAllModules");
  return TakeArray(env_, modules, n);
}

Result<std::vector<jclass>> Jvmti::GetClassLoaderClasses(jobject loader) const {
  jint n = 0;
  jclass* classes = nullptr;
  jvmtiError err = env_->GetClassLoaderClasses(loader, &n, &classes);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "GetClassLoaderClasses");
  return TakeArray(env_, classes, n);
}

Result<Jvmti::ConstantPoolBytes> Jvmti::GetConstantPool(jclass klass) const {
  jint count = 0;
  jint size = 0;
  unsigned char* bytes = nullptr;
  jvmtiError err = env_->GetConstantPool(klass, &count, &size, &bytes);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "GetConstantPool");
  ConstantPoolBytes out;
  out.count = count;
  out.bytes = TakeArray(env_, reinterpret_cast<uint8_t*>(bytes), size);
  return out;
}

Result<std::vector<jlong>> Jvmti::CountReachableInstances(JNIEnv* jni, const std::vector<jclass>& classes) {
  std::vector<jlong> counts(classes.size(), 0);
  jclass class_class = nullptr;  // java.lang.Class, when listed: counted apart
  for (jclass k : classes) {
    if (k == nullptr) continue;
    jclass of_class = jni->GetObjectClass(k);
    if (jni->IsSameObject(of_class, k)) class_class = k;
    jni->DeleteLocalRef(of_class);
  }
  if (std::all_of(classes.begin(), classes.end(), [](jclass k) { return k == nullptr; })) return counts;

  jlong class_instances = 0;
  if (class_class != nullptr) {
    // Its own environment: the instances it tags must not look like listed classes below.
    ScratchTagEnv env(jni);
    if (env.status() != JVMTI_ERROR_NONE) return VmFail(env.status(), "AddCapabilities(can_tag_objects)");
    auto found = WalkOneClass(env, class_class, 0);
    if (!found) return tl::unexpected(found.error());
    class_instances = *found;
  }

  ScratchTagEnv env(jni);
  if (env.status() != JVMTI_ERROR_NONE) return VmFail(env.status(), "AddCapabilities(can_tag_objects)");
  // Each distinct class's mirror is tagged with its first index + 1; a class
  // listed again shares that slot.
  std::vector<size_t> same_as(classes.size(), SIZE_MAX);
  for (size_t i = 0; i < classes.size(); ++i) {
    if (classes[i] == nullptr) continue;
    jlong existing = 0;
    jvmtiError err = env->GetTag(classes[i], &existing);
    if (err != JVMTI_ERROR_NONE) return VmFail(err, "GetTag");
    if (existing != 0) {
      same_as[i] = static_cast<size_t>(existing - 1);
      continue;
    }
    err = env->SetTag(classes[i], static_cast<jlong>(i + 1));
    if (err != JVMTI_ERROR_NONE) return VmFail(err, "SetTag");
  }
  // No heap filter: with JVMTI_HEAP_FILTER_UNTAGGED HotSpot would skip
  // re-materializing objects that compiled code scalar-replaced, and miss them.
  jvmtiHeapCallbacks callbacks{};
  callbacks.heap_reference_callback = CountClassEdge;
  ClassEdgeCount state{&counts};
  jvmtiError err = env->FollowReferences(0, nullptr, nullptr, &callbacks, &state);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "FollowReferences");

  for (size_t i = 0; i < classes.size(); ++i) {
    if (same_as[i] != SIZE_MAX) counts[i] = counts[same_as[i]];
    if (classes[i] != nullptr && jni->IsSameObject(classes[i], class_class)) counts[i] = class_instances;
  }
  return counts;
}

Result<std::vector<jobject>> Jvmti::ReachableInstances(JNIEnv* jni, jclass klass, jint max) {
  if (max < 0) return VmFail(JVMTI_ERROR_ILLEGAL_ARGUMENT, "ReachableInstances");
  ScratchTagEnv env(jni);
  if (env.status() != JVMTI_ERROR_NONE) return VmFail(env.status(), "AddCapabilities(can_tag_objects)");
  auto found = WalkOneClass(env, klass, max);
  if (!found) return tl::unexpected(found.error());
  if (*found == 0) return std::vector<jobject>{};
  return env.ObjectsWithTag(1);
}

Result<std::vector<jobject>> Jvmti::Referrers(JNIEnv* jni, jobject object, jint max) {
  if (max < 0) return VmFail(JVMTI_ERROR_ILLEGAL_ARGUMENT, "Referrers");
  ScratchTagEnv env(jni);
  if (env.status() != JVMTI_ERROR_NONE) return VmFail(env.status(), "AddCapabilities(can_tag_objects)");
  jvmtiError err = env->SetTag(object, kTarget);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "SetTag");
  jvmtiHeapCallbacks callbacks{};
  callbacks.heap_reference_callback = TagReferrer;
  ReferrerWalk state;
  state.max = max;
  err = env->FollowReferences(JVMTI_HEAP_FILTER_UNTAGGED, nullptr, nullptr, &callbacks, &state);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "FollowReferences");
  if (state.self) {
    err = env->SetTag(object, kReferrer);
    if (err != JVMTI_ERROR_NONE) return VmFail(err, "SetTag");
  }
  if (state.found == 0) return std::vector<jobject>{};
  return env.ObjectsWithTag(kReferrer);
}

// ---- Monitors and objects ----------------------------------------------------

Result<Jvmti::MonitorUsage> Jvmti::GetObjectMonitorUsage(jobject object) const {
  jvmtiMonitorUsage usage{};
  jvmtiError err = env_->GetObjectMonitorUsage(object, &usage);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "GetObjectMonitorUsage");
  MonitorUsage out;
  out.owner = usage.owner;
  out.entry_count = usage.entry_count;
  out.waiters = TakeArray(env_, usage.waiters, usage.waiter_count);
  out.notify_waiters = TakeArray(env_, usage.notify_waiters, usage.notify_waiter_count);
  return out;
}

}  // namespace jdwpx::vmcore

// ---- Virtual threads and stacks ----------------------------------------------

namespace jdwpx::vmcore {

Result<std::vector<jobject>> Jvmti::GetOwnedMonitorInfo(jthread thread) const {
  jint n = 0;
  jobject* monitors = nullptr;
  jvmtiError err = env_->GetOwnedMonitorInfo(thread, &n, &monitors);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "GetOwnedMonitorInfo");
  return TakeArray(env_, monitors, n);
}

Result<std::vector<Jvmti::OwnedMonitor>> Jvmti::GetOwnedMonitorStackDepthInfo(jthread thread) const {
  jint n = 0;
  jvmtiMonitorStackDepthInfo* info = nullptr;
  jvmtiError err = env_->GetOwnedMonitorStackDepthInfo(thread, &n, &info);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "GetOwnedMonitorStackDepthInfo");
  std::vector<OwnedMonitor> out;
  if (info) {
    out.reserve(static_cast<size_t>(n));
    for (jint i = 0; i < n; ++i) out.push_back({info[i].monitor, info[i].stack_depth});
    env_->Deallocate(reinterpret_cast<unsigned char*>(info));
  }
  return out;
}

Result<jobject> Jvmti::GetCurrentContendedMonitor(jthread thread) const {
  jobject monitor = nullptr;
  jvmtiError err = env_->GetCurrentContendedMonitor(thread, &monitor);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "GetCurrentContendedMonitor");
  return monitor;
}

namespace {
// Place of can_support_virtual_threads in jvmtiCapabilities: the 45th one-bit
// field. GCC and Clang fill bit-fields from the low bit of each 32-bit unit on
// little-endian ABIs, so it is bit 12 of the second unit: byte 5, mask 0x10.
constexpr size_t kVirtualThreadsCapByte = 5;
constexpr unsigned char kVirtualThreadsCapMask = 0x10;
static_assert(sizeof(jvmtiCapabilities) >= 8, "jvmtiCapabilities too small");

// JDK 21 function-table slots (0-based; the spec numbers them from 1).
using SuspendOrResumeAllVirtualFn = jvmtiError(JNICALL*)(jvmtiEnv*, jint, const jthread*);
constexpr size_t kSuspendAllVirtualThreadsSlot = 117;
constexpr size_t kResumeAllVirtualThreadsSlot = 118;
constexpr size_t kJniIsVirtualThreadSlot = 234;
constexpr jint kJniVersion21 = 0x00150000;

template <class Fn>
Fn FunctionAt(const void* table, size_t slot) {
  void* const* slots = static_cast<void* const*>(table);
  return reinterpret_cast<Fn>(slots[slot]);
}
}  // namespace

bool Jvmti::HasVirtualThreads() const {
  auto v = GetVersion();
  return v && v->first >= kVirtualThreadsVersion;
}

bool Jvmti::CanSupportVirtualThreads(const jvmtiCapabilities& caps) {
  return (reinterpret_cast<const unsigned char*>(&caps)[kVirtualThreadsCapByte] & kVirtualThreadsCapMask) != 0;
}

void Jvmti::SetCanSupportVirtualThreads(jvmtiCapabilities& caps, bool on) {
  auto* bytes = reinterpret_cast<unsigned char*>(&caps);
  if (on)
    bytes[kVirtualThreadsCapByte] |= kVirtualThreadsCapMask;
  else
    bytes[kVirtualThreadsCapByte] &= static_cast<unsigned char>(~kVirtualThreadsCapMask);
}

Result<void> Jvmti::SuspendAllVirtualThreads(const std::vector<jthread>& except) const {
  if (!HasVirtualThreads()) return VmFail(JVMTI_ERROR_NOT_AVAILABLE, "SuspendAllVirtualThreads");
  auto fn = FunctionAt<SuspendOrResumeAllVirtualFn>(env_->functions, kSuspendAllVirtualThreadsSlot);
  jvmtiError err = fn(env_, static_cast<jint>(except.size()), except.data());
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "SuspendAllVirtualThreads");
  return {};
}

Result<void> Jvmti::ResumeAllVirtualThreads(const std::vector<jthread>& except) const {
  if (!HasVirtualThreads()) return VmFail(JVMTI_ERROR_NOT_AVAILABLE, "ResumeAllVirtualThreads");
  auto fn = FunctionAt<SuspendOrResumeAllVirtualFn>(env_->functions, kResumeAllVirtualThreadsSlot);
  jvmtiError err = fn(env_, static_cast<jint>(except.size()), except.data());
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "ResumeAllVirtualThreads");
  return {};
}

bool Jvmti::IsVirtualThread(JNIEnv* jni, jobject thread) {
  if (!thread || jni->GetVersion() < kJniVersion21) return false;
  using IsVirtualThreadFn = jboolean(JNICALL*)(JNIEnv*, jobject);
  auto fn = FunctionAt<IsVirtualThreadFn>(jni->functions, kJniIsVirtualThreadSlot);
  return fn(jni, thread) == JNI_TRUE;
}

Result<void*> Jvmti::GetThreadLocalStorage(jthread thread) const {
  void* data = nullptr;
  jvmtiError err = env_->GetThreadLocalStorage(thread, &data);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "GetThreadLocalStorage");
  return data;
}

Result<void> Jvmti::SetThreadLocalStorage(jthread thread, const void* data) const {
  jvmtiError err = env_->SetThreadLocalStorage(thread, data);
  if (err != JVMTI_ERROR_NONE) return VmFail(err, "SetThreadLocalStorage");
  return {};
}

// Frames and thread control (locals, pop, early return, stop, redefine)
#define FRAMES_CALL(fn, ...)                                   \
  do {                                                         \
    jvmtiError err_ = env_->fn(__VA_ARGS__);                   \
    if (err_ != JVMTI_ERROR_NONE) return VmFail(err_, #fn);    \
  } while (0)

Result<void> Jvmti::SetLocalInt(jthread thread, jint depth, jint slot, jint value) const {
  FRAMES_CALL(SetLocalInt, thread, depth, slot, value);
  return {};
}

Result<void> Jvmti::SetLocalLong(jthread thread, jint depth, jint slot, jlong value) const {
  FRAMES_CALL(SetLocalLong, thread, depth, slot, value);
  return {};
}

Result<void> Jvmti::SetLocalFloat(jthread thread, jint depth, jint slot, jfloat value) const {
  FRAMES_CALL(SetLocalFloat, thread, depth, slot, value);
  return {};
}

Result<void> Jvmti::SetLocalDouble(jthread thread, jint depth, jint slot, jdouble value) const {
  FRAMES_CALL(SetLocalDouble, thread, depth, slot, value);
  return {};
}

Result<void> Jvmti::SetLocalObject(jthread thread, jint depth, jint slot, jobject value) const {
  FRAMES_CALL(SetLocalObject, thread, depth, slot, value);
  return {};
}

Result<void> Jvmti::PopFrame(jthread thread) const {
  FRAMES_CALL(PopFrame, thread);
  return {};
}

Result<void> Jvmti::ForceEarlyReturn(jthread thread, char kind, jvalue value) const {
  switch (kind) {
    case 'V': FRAMES_CALL(ForceEarlyReturnVoid, thread); return {};
    case 'J': FRAMES_CALL(ForceEarlyReturnLong, thread, value.j); return {};
    case 'F': FRAMES_CALL(ForceEarlyReturnFloat, thread, value.f); return {};
    case 'D': FRAMES_CALL(ForceEarlyReturnDouble, thread, value.d); return {};
    case 'L': FRAMES_CALL(ForceEarlyReturnObject, thread, value.l); return {};
    default: FRAMES_CALL(ForceEarlyReturnInt, thread, value.i); return {};
  }
}

Result<void> Jvmti::StopThread(jthread thread, jobject exception) const {
  FRAMES_CALL(StopThread, thread, exception);
  return {};
}

Result<void> Jvmti::InterruptThread(jthread thread) const {
  FRAMES_CALL(InterruptThread, thread);
  return {};
}

Result<void> Jvmti::RedefineClasses(const std::vector<jvmtiClassDefinition>& definitions) const {
  FRAMES_CALL(RedefineClasses, static_cast<jint>(definitions.size()), definitions.data());
  return {};
}
#undef FRAMES_CALL

}  // namespace jdwpx::vmcore
