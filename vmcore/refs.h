// RAII owners for JVM resources: JVMTI buffers, JNI references, local frames, raw monitors.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <memory>
#include <utility>

namespace jdwpx::vmcore {

// Memory allocated by JVMTI (Allocate / out-parameters) is returned with Deallocate.
class JvmtiDeleter {
 public:
  JvmtiDeleter() = default;
  explicit JvmtiDeleter(jvmtiEnv* env) : env_(env) {}
  void operator()(void* p) const {
    if (p && env_) env_->Deallocate(static_cast<unsigned char*>(p));
  }

 private:
  jvmtiEnv* env_ = nullptr;
};
template <class T>
using JvmtiPtr = std::unique_ptr<T, JvmtiDeleter>;

template <class T>
JvmtiPtr<T> Own(jvmtiEnv* env, T* p) { return JvmtiPtr<T>(p, JvmtiDeleter(env)); }

// A JNI global reference (strong), deleted on destruction.
class GlobalRef {
 public:
  GlobalRef() = default;
  GlobalRef(JNIEnv* jni, jobject obj) : ref_(obj ? jni->NewGlobalRef(obj) : nullptr) {}
  GlobalRef(GlobalRef&& o) noexcept : ref_(std::exchange(o.ref_, nullptr)) {}
  GlobalRef& operator=(GlobalRef&& o) noexcept { std::swap(ref_, o.ref_); return *this; }
  GlobalRef(const GlobalRef&) = delete;
  GlobalRef& operator=(const GlobalRef&) = delete;
  ~GlobalRef();  // needs a JNIEnv of the current thread: looked up through the JavaVM
  jobject get() const { return ref_; }
  explicit operator bool() const { return ref_ != nullptr; }
  void Reset(JNIEnv* jni);

 private:
  jobject ref_ = nullptr;
};

// Pushes a JNI local frame so that every local reference made inside is freed at scope exit.
class LocalFrame {
 public:
  LocalFrame(JNIEnv* jni, jint capacity) : jni_(jni), ok_(jni->PushLocalFrame(capacity) == 0) {}
  ~LocalFrame() { if (ok_) jni_->PopLocalFrame(nullptr); }
  LocalFrame(const LocalFrame&) = delete;
  LocalFrame& operator=(const LocalFrame&) = delete;
  bool ok() const { return ok_; }

 private:
  JNIEnv* jni_;
  bool ok_;
};

// Deletes one local reference at scope exit (for loops that make many).
class LocalRef {
 public:
  LocalRef(JNIEnv* jni, jobject obj) : jni_(jni), obj_(obj) {}
  ~LocalRef() { if (obj_) jni_->DeleteLocalRef(obj_); }
  LocalRef(const LocalRef&) = delete;
  LocalRef& operator=(const LocalRef&) = delete;
  jobject get() const { return obj_; }

 private:
  JNIEnv* jni_;
  jobject obj_;
};

// Sets the JavaVM used to find a JNIEnv for destructors that run without one.
void SetJavaVm(JavaVM* vm);
JNIEnv* CurrentJni();

}  // namespace jdwpx::vmcore
