#include "vmcore/refs.h"

#include <atomic>

namespace jdwpx::vmcore {
namespace {
std::atomic<JavaVM*> g_vm{nullptr};
}

void SetJavaVm(JavaVM* vm) { g_vm.store(vm); }

JNIEnv* CurrentJni() {
  JavaVM* vm = g_vm.load();
  if (!vm) return nullptr;
  void* env = nullptr;
  if (vm->GetEnv(&env, JNI_VERSION_1_6) != JNI_OK) return nullptr;
  return static_cast<JNIEnv*>(env);
}

GlobalRef::~GlobalRef() {
  if (!ref_) return;
  if (JNIEnv* jni = CurrentJni()) jni->DeleteGlobalRef(ref_);
}

void GlobalRef::Reset(JNIEnv* jni) {
  if (ref_) jni->DeleteGlobalRef(ref_);
  ref_ = nullptr;
}

}  // namespace jdwpx::vmcore
