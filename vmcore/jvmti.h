// Typed access to one JVMTI environment: each call returns a Result and owns
// what JVMTI allocated. Strings come back exactly as JVMTI gives them
// (modified UTF-8); conversion for the wire happens above this layer.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "vmcore/refs.h"
#include "vmcore/result.h"

namespace jdwpx::vmcore {

struct ClassSignature {
  std::string signature;
  std::string generic;  // empty when the class has none
};

struct MethodName {
  std::string name;
  std::string signature;
  std::string generic;
};

struct FieldName {
  std::string name;
  std::string signature;
  std::string generic;
};

struct LineEntry {
  jlocation start;
  jint line;
};

struct LocalVariable {
  jlocation start;
  jint length;
  std::string name;
  std::string signature;
  std::string generic;
  jint slot;
};

struct Frame {
  jmethodID method;
  jlocation location;  // -1 for native frames
};

struct ThreadInfo {
  std::string name;
  jint priority = 0;
  bool daemon = false;
  jobject group = nullptr;         // local reference
  jobject context_loader = nullptr;  // local reference
};

struct ThreadGroupInfo {
  jobject parent = nullptr;  // local reference
  std::string name;
  jint max_priority = 0;
  bool daemon = false;
};

struct ThreadGroupChildren {
  std::vector<jthread> threads;     // local references
  std::vector<jthreadGroup> groups;  // local references
};

class Jvmti {
 public:
  explicit Jvmti(jvmtiEnv* env) : env_(env) {}
  jvmtiEnv* raw() const { return env_; }

  // Classes
  Result<std::vector<jclass>> LoadedClasses() const;  // local references
  Result<ClassSignature> GetClassSignature(jclass klass) const;
  Result<jint> GetClassStatus(jclass klass) const;
  Result<jint> GetClassModifiers(jclass klass) const;
  Result<std::vector<jmethodID>> GetClassMethods(jclass klass) const;
  Result<std::vector<jfieldID>> GetClassFields(jclass klass) const;
  Result<std::vector<jclass>> GetImplementedInterfaces(jclass klass) const;  // local references
  Result<std::string> GetSourceFileName(jclass klass) const;
  Result<std::string> GetSourceDebugExtension(jclass klass) const;
  Result<jobject> GetClassLoader(jclass klass) const;  // local reference or null
  Result<bool> IsInterface(jclass klass) const;
  Result<bool> IsArrayClass(jclass klass) const;
  Result<std::pair<jint, jint>> GetClassVersionNumbers(jclass klass) const;  // minor, major

  // Methods
  Result<MethodName> GetMethodName(jmethodID method) const;
  Result<jclass> GetMethodDeclaringClass(jmethodID method) const;
  Result<jint> GetMethodModifiers(jmethodID method) const;
  Result<bool> IsMethodNative(jmethodID method) const;
  Result<bool> IsMethodSynthetic(jmethodID method) const;
  Result<bool> IsMethodObsolete(jmethodID method) const;
  Result<jint> GetMaxLocals(jmethodID method) const;
  Result<jint> GetArgumentsSize(jmethodID method) const;
  Result<std::pair<jlocation, jlocation>> GetMethodLocation(jmethodID method) const;
  Result<std::vector<LineEntry>> GetLineNumberTable(jmethodID method) const;
  Result<std::vector<LocalVariable>> GetLocalVariableTable(jmethodID method) const;
  Result<std::vector<uint8_t>> GetBytecodes(jmethodID method) const;

  // Fields
  Result<FieldName> GetFieldName(jclass klass, jfieldID field) const;
  Result<jint> GetFieldModifiers(jclass klass, jfieldID field) const;
  Result<bool> IsFieldSynthetic(jclass klass, jfieldID field) const;
  Result<jclass> GetFieldDeclaringClass(jclass klass, jfieldID field) const;

  // Threads and groups
  Result<std::vector<jthread>> GetAllThreads() const;  // local references
  Result<ThreadInfo> GetThreadInfo(jthread thread) const;
  Result<jint> GetThreadState(jthread thread) const;
  Result<std::vector<Frame>> GetStackTrace(jthread thread, jint start, jint max) const;
  Result<jint> GetFrameCount(jthread thread) const;
  Result<std::pair<jmethodID, jlocation>> GetFrameLocation(jthread thread, jint depth) const;
  Result<void> SuspendThread(jthread thread) const;
  Result<void> ResumeThread(jthread thread) const;
  Result<std::vector<jthreadGroup>> GetTopThreadGroups() const;  // local references
  Result<ThreadGroupInfo> GetThreadGroupInfo(jthreadGroup group) const;
  Result<ThreadGroupChildren> GetThreadGroupChildren(jthreadGroup group) const;
  Result<jthread> GetCurrentThread() const;

  // Locals
  Result<jint> GetLocalInt(jthread thread, jint depth, jint slot) const;
  Result<jlong> GetLocalLong(jthread thread, jint depth, jint slot) const;
  Result<jfloat> GetLocalFloat(jthread thread, jint depth, jint slot) const;
  Result<jdouble> GetLocalDouble(jthread thread, jint depth, jint slot) const;
  Result<jobject> GetLocalObject(jthread thread, jint depth, jint slot) const;  // local reference
  Result<jobject> GetLocalInstance(jthread thread, jint depth) const;           // local reference

  // Tags, breakpoints, events
  Result<jlong> GetTag(jobject object) const;
  Result<void> SetTag(jobject object, jlong tag) const;
  Result<void> SetBreakpoint(jmethodID method, jlocation location) const;
  Result<void> ClearBreakpoint(jmethodID method, jlocation location) const;
  Result<void> SetEventMode(bool enable, jvmtiEvent event, jthread thread = nullptr) const;

  // Properties and misc
  Result<std::optional<std::string>> GetSystemProperty(const char* name) const;
  Result<std::pair<jint, jint>> GetVersion() const;  // major, minor of JVMTI (major = JDK feature release)

  // Heap, modules, class loaders, constant pool
  // (end of heap section)

  // Monitors and objects
  // (end of monitors section)

  // Virtual threads and stacks
  // (end of virtual threads section)

 private:
  jvmtiEnv* env_;
};

// The JVMTI name of an error (JVMTI_ERROR_INVALID_THREAD), for logs.
const char* JvmtiErrorName(jvmtiError error);

}  // namespace jdwpx::vmcore
