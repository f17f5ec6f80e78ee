// Class unloading for JDWP ClassUnload events. JVMTI (JDK 17) has no class
// unload event: a second JVMTI environment of our own tags each prepared class,
// and the GC's ObjectFree for a tag says that class is gone (stock does the same).
//
// ObjectFree runs inside the GC and may call no JNI and almost no JVMTI: it only
// moves the class's signature from the tag table to the unloaded list, under
// mu_, which is never held across a JNI or JVMTI call (a thread holding it is
// never stopped by a safepoint). The event manager takes the list from a Java
// thread's next event callback and reports it from there.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace jdwpx::backend {

class ClassTracker {
 public:
  ClassTracker() = default;
  ClassTracker(const ClassTracker&) = delete;
  ClassTracker& operator=(const ClassTracker&) = delete;

  // Creates the environment and tags every prepared class loaded so far.
  // Returns false when the VM offers no tagging or ObjectFree (then nothing is tracked).
  bool Start(JavaVM* vm, JNIEnv* jni);
  bool started() const { return env_.load(std::memory_order_acquire) != nullptr; }
  // Tags every prepared class not tagged yet (those prepared while no debugger
  // was attached, when ClassPrepare is off); no-op when not started. With
  // ClassPrepare on from before it, every prepared class is tagged afterwards:
  // complete() until MarkIncomplete (ClassPrepare went off).
  void TagLoaded(JNIEnv* jni);
  bool complete() const { return complete_.load(std::memory_order_acquire); }
  void MarkIncomplete() { complete_.store(false, std::memory_order_release); }
  // Tags one newly prepared class (no-op when not started or already tagged).
  void Track(jclass klass);
  bool HasUnloaded() const { return has_unloaded_.load(std::memory_order_acquire); }
  // JNI signatures of the classes unloaded since the last call.
  std::vector<std::string> TakeUnloaded();
  size_t tracked() const;

 private:
  static void JNICALL OnObjectFree(jvmtiEnv* env, jlong tag);
  void Freed(jlong tag);

  std::atomic<jvmtiEnv*> env_{nullptr};  // set once by Start; read by class-prepare threads
  mutable std::mutex mu_;
  std::unordered_map<jlong, std::string> signatures_;  // tag -> signature
  jlong next_tag_ = 1;
  std::vector<std::string> unloaded_;
  std::atomic<bool> has_unloaded_{false};
  std::atomic<bool> complete_{false};
};

}  // namespace jdwpx::backend
