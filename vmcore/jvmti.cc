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
