#include "backend/events/class_unload.h"

#include <utility>

#include "backend/log.h"

namespace jdwpx::backend {

bool ClassTracker::Start(JavaVM* vm, JNIEnv* jni) {
  if (started()) return true;
  jvmtiEnv* env = nullptr;
  if (vm->GetEnv(reinterpret_cast<void**>(&env), JVMTI_VERSION_1_2) != JNI_OK || !env) return false;
  jvmtiCapabilities caps{};
  caps.can_tag_objects = 1;
  caps.can_generate_object_free_events = 1;
  jvmtiEventCallbacks callbacks{};
  callbacks.ObjectFree = OnObjectFree;
  if (env->AddCapabilities(&caps) != JVMTI_ERROR_NONE ||
      env->SetEnvironmentLocalStorage(this) != JVMTI_ERROR_NONE ||
      env->SetEventCallbacks(&callbacks, sizeof(callbacks)) != JVMTI_ERROR_NONE ||
      env->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_OBJECT_FREE, nullptr) != JVMTI_ERROR_NONE) {
    Log().warn("class unload tracking unavailable");
    env->DisposeEnvironment();
    return false;
  }
  env_.store(env, std::memory_order_release);
  TagLoaded(jni);
  return true;
}

void ClassTracker::TagLoaded(JNIEnv* jni) {
  jvmtiEnv* env = env_.load(std::memory_order_acquire);
  if (!env) return;
  jint count = 0;
  jclass* classes = nullptr;
  // Before the VM's list: ClassPrepare going off during the scan is not overwritten.
  complete_.store(true, std::memory_order_release);
  if (env->GetLoadedClasses(&count, &classes) != JVMTI_ERROR_NONE) {
    complete_.store(false, std::memory_order_release);
    return;
  }
  for (jint i = 0; i < count; ++i) {
    Track(classes[i]);
    jni->DeleteLocalRef(classes[i]);
  }
  env->Deallocate(reinterpret_cast<unsigned char*>(classes));
}

void ClassTracker::Track(jclass klass) {
  jvmtiEnv* env = env_.load(std::memory_order_acquire);
  if (!env || !klass) return;
  // The tag first: a handshake's TagLoaded meets mostly classes tagged before,
  // and each JVMTI call is a good part of a class's cost (GetClassStatus about a quarter).
  jlong tag = 0;
  if (env->GetTag(klass, &tag) != JVMTI_ERROR_NONE || tag != 0) return;
  jint status = 0;
  if (env->GetClassStatus(klass, &status) != JVMTI_ERROR_NONE) return;
  // Only prepared classes and interfaces, as stock: arrays and primitives have no ClassPrepare.
  if ((status & (JVMTI_CLASS_STATUS_ARRAY | JVMTI_CLASS_STATUS_PRIMITIVE)) != 0 ||
      (status & JVMTI_CLASS_STATUS_PREPARED) == 0)
    return;
  char* signature = nullptr;
  if (env->GetClassSignature(klass, &signature, nullptr) != JVMTI_ERROR_NONE || !signature) return;
  std::string text(signature);
  env->Deallocate(reinterpret_cast<unsigned char*>(signature));
  {
    std::lock_guard lock(mu_);
    tag = next_tag_++;
    signatures_.emplace(tag, std::move(text));
  }
  if (env->SetTag(klass, tag) != JVMTI_ERROR_NONE) {
    std::lock_guard lock(mu_);
    signatures_.erase(tag);
  }
}

void JNICALL ClassTracker::OnObjectFree(jvmtiEnv* env, jlong tag) {
  void* self = nullptr;
  if (env->GetEnvironmentLocalStorage(&self) != JVMTI_ERROR_NONE || !self) return;
  static_cast<ClassTracker*>(self)->Freed(tag);
}

void ClassTracker::Freed(jlong tag) {
  // No allocation can throw out of here into the GC.
  try {
    std::lock_guard lock(mu_);
    auto it = signatures_.find(tag);
    if (it == signatures_.end()) return;
    unloaded_.push_back(std::move(it->second));
    signatures_.erase(it);
    has_unloaded_.store(true, std::memory_order_release);
  } catch (...) {
  }
}

std::vector<std::string> ClassTracker::TakeUnloaded() {
  std::lock_guard lock(mu_);
  has_unloaded_.store(false, std::memory_order_release);
  return std::exchange(unloaded_, {});
}

size_t ClassTracker::tracked() const {
  std::lock_guard lock(mu_);
  return signatures_.size();
}

}  // namespace jdwpx::backend
