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
  // Many threads in one call, one answer each (JVMTI_ERROR_NONE or why not).
  // JDK 21+ makes a single-thread call wait for every virtual-thread transition
  // in the VM (O(threads) each); a list call waits once for the whole list.
  Result<std::vector<jvmtiError>> SuspendThreadList(const std::vector<jthread>& threads) const;
  Result<std::vector<jvmtiError>> ResumeThreadList(const std::vector<jthread>& threads) const;
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
  // The identity hash (what System.identityHashCode answers).
  Result<jint> GetObjectHashCode(jobject object) const;
  Result<void> SetBreakpoint(jmethodID method, jlocation location) const;
  Result<void> ClearBreakpoint(jmethodID method, jlocation location) const;
  Result<void> SetEventMode(bool enable, jvmtiEvent event, jthread thread = nullptr) const;

  // Properties and misc
  Result<std::optional<std::string>> GetSystemProperty(const char* name) const;
  Result<std::pair<jint, jint>> GetVersion() const;  // major, minor of JVMTI (major = JDK feature release)

  // Heap, modules, class loaders, constant pool
  // GetConstantPool: constant_pool_count and the raw constant_pool[] bytes.
  struct ConstantPoolBytes {
    jint count = 0;
    std::vector<uint8_t> bytes;
  };
  Result<jvmtiCapabilities> GetCapabilities() const;
  // GetClassSignature without the generic signature (one JVMTI allocation less).
  Result<std::string> GetClassSignatureOnly(jclass klass) const;
  // The first character of a field's signature (its type: 'I', 'L', '['...),
  // from GetFieldName asked for the signature alone: one JVMTI allocation, no copy.
  Result<char> GetFieldTypeChar(jclass klass, jfieldID field) const;
  Result<std::vector<jobject>> GetAllModules() const;                      // local references
  Result<std::vector<jclass>> GetClassLoaderClasses(jobject loader) const;  // local references; null = bootstrap
  Result<ConstantPoolBytes> GetConstantPool(jclass klass) const;

  // Heap walks (JVMTI FollowReferences: only objects reachable from the GC roots).
  // Each runs in a scratch JVMTI environment made for the call and disposed after
  // it, so its tags live in their own tag space: the tags of every other
  // environment (the agent's object IDs) are never read or changed, and none of
  // the walk's tags outlive it.
  // Reachable instances of each class (exact class, as JVMTI's klass filter);
  // a null entry counts 0; counts[i] belongs to classes[i].
  static Result<std::vector<jlong>> CountReachableInstances(JNIEnv* jni, const std::vector<jclass>& classes);
  // Up to `max` (0 = all) reachable instances of exactly `klass`, as local references.
  static Result<std::vector<jobject>> ReachableInstances(JNIEnv* jni, jclass klass, jint max);
  // Up to `max` (0 = all) heap objects holding a reference to `object` (the object
  // itself when it refers to itself; roots such as stack slots are not objects),
  // as local references.
  static Result<std::vector<jobject>> Referrers(JNIEnv* jni, jobject object, jint max);
  // (end of heap section)

  // Monitors and objects
  // GetObjectMonitorUsage (can_get_monitor_info). Thread references are local
  // references the caller deletes. Which threads `waiters` holds depends on the
  // JDK: up to 22 HotSpot lists the threads in Object.wait() there as well.
  struct MonitorUsage {
    jthread owner = nullptr;  // null when unowned
    jint entry_count = 0;
    std::vector<jthread> waiters;         // waiting to enter (or re-enter)
    std::vector<jthread> notify_waiters;  // waiting to be notified
  };
  Result<MonitorUsage> GetObjectMonitorUsage(jobject object) const;
  // (end of monitors section)

  // Virtual threads and stacks
  // Monitors a thread owns or waits for (can_get_owned_monitor_info,
  // can_get_owned_monitor_stack_depth_info, can_get_current_contended_monitor);
  // objects are local references the caller deletes.
  struct OwnedMonitor {
    jobject monitor = nullptr;
    jint stack_depth = -1;  // -1 when not tied to a frame (JNI MonitorEnter)
  };
  Result<std::vector<jobject>> GetOwnedMonitorInfo(jthread thread) const;
  Result<std::vector<OwnedMonitor>> GetOwnedMonitorStackDepthInfo(jthread thread) const;
  Result<jobject> GetCurrentContendedMonitor(jthread thread) const;  // null when none

  // JDK 21+ (JVMTI and JNI 21). Our headers are JDK 17's, so the capability bit,
  // the functions and the events are reached by their place in the JDK 21 layouts
  // (jvmti-21.txt), and only when the running JVMTI is 21 or newer.
  static constexpr jint kVirtualThreadsVersion = 21;
  static constexpr jvmtiEvent kEventVirtualThreadStart = static_cast<jvmtiEvent>(87);
  static constexpr jvmtiEvent kEventVirtualThreadEnd = static_cast<jvmtiEvent>(88);
  bool HasVirtualThreads() const;  // the running JVMTI is 21+
  // can_support_virtual_threads: bit 44 of jvmtiCapabilities (after
  // can_generate_sampled_object_alloc_events), i.e. byte 5, mask 0x10 on x86-64 and aarch64.
  static bool CanSupportVirtualThreads(const jvmtiCapabilities& caps);
  static void SetCanSupportVirtualThreads(jvmtiCapabilities& caps, bool on);
  // Function table slots 118 and 119 (reserved118/119 in JDK 17's header).
  Result<void> SuspendAllVirtualThreads(const std::vector<jthread>& except) const;
  Result<void> ResumeAllVirtualThreads(const std::vector<jthread>& except) const;
  // JNI IsVirtualThread (JNI function table index 234, JNI_VERSION_21); false before 21.
  static bool IsVirtualThread(JNIEnv* jni, jobject thread);
  // JVMTI thread-local storage; works for virtual threads on 21+ (null = current thread).
  Result<void*> GetThreadLocalStorage(jthread thread) const;
  Result<void> SetThreadLocalStorage(jthread thread, const void* data) const;
  // (end of virtual threads section)

  // Frames and thread control (locals, pop, early return, stop, redefine)
  Result<void> SetLocalInt(jthread thread, jint depth, jint slot, jint value) const;
  Result<void> SetLocalLong(jthread thread, jint depth, jint slot, jlong value) const;
  Result<void> SetLocalFloat(jthread thread, jint depth, jint slot, jfloat value) const;
  Result<void> SetLocalDouble(jthread thread, jint depth, jint slot, jdouble value) const;
  Result<void> SetLocalObject(jthread thread, jint depth, jint slot, jobject value) const;
  Result<void> PopFrame(jthread thread) const;
  // The value's kind picks the JVMTI function: 'V' void, 'I' (and Z B C S), 'J', 'F', 'D', 'L'.
  Result<void> ForceEarlyReturn(jthread thread, char kind, jvalue value) const;
  Result<void> StopThread(jthread thread, jobject exception) const;
  Result<void> InterruptThread(jthread thread) const;
  Result<void> RedefineClasses(const std::vector<jvmtiClassDefinition>& definitions) const;
  // (end of frames and thread control section)

 private:
  jvmtiEnv* env_;
};

// The JVMTI name of an error (JVMTI_ERROR_INVALID_THREAD), for logs.
const char* JvmtiErrorName(jvmtiError error);

}  // namespace jdwpx::vmcore
