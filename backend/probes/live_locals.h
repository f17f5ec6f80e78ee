// The hitting thread's own top frame's locals, read through the JDK's
// java.lang.LiveStackFrame (a stack walk in the walking thread itself) instead
// of JVMTI's GetLocal*, which HotSpot runs as a VM operation at a safepoint for
// every single read (docs/probes.md): tens of microseconds, and every other
// Java thread stops. One walk reads all the frame's locals for a few
// microseconds and stops no thread.
//
// It runs JDK code only, through JNI, which checks no access, so the
// package-private interface needs no --add-opens. On JDK 17 and 25 it fills
// the innermost frame alone, through StackStreamFactory's private
// callStackWalk (live_locals.cc says why); elsewhere, or when that throws, it
// walks with the public StackWalker.forEach. Anything unexpected (the class
// missing, an exception, the innermost frame not the probe's) answers false,
// and the caller reads through JVMTI as before.
#pragma once

#include <jni.h>

#include <cstdint>
#include <optional>
#include <string_view>

namespace jdwpx::backend::probes {

class LiveLocals {
 public:
  // Looks up the walk's classes and methods, once for the agent's life. Called
  // when a probe is set, on the command thread, so that the first hit neither
  // waits for that class loading nor spends the probes' CPU budget on it.
  static void Prepare(JNIEnv* jni);
  // Walks the current thread's stack; true when its innermost Java frame is
  // `method_name` at `bci`, whose locals are then held (JNI local references of
  // the caller's local frame).
  bool Read(JNIEnv* jni, std::string_view method_name, int32_t bci);
  // Walks the current thread's stack once, filling its `count` innermost Java
  // frames (a snapshot's); how many were filled (0: no walk, the caller reads
  // through JVMTI). The frames are JNI local references of the caller's local
  // frame. The walk leaves out hidden frames (lambda forms, reflection's), so
  // frame i of the walk need not be JVMTI's frame i: Select checks each.
  int Walk(JNIEnv* jni, int count);
  // Holds the locals of the walked frame `index` when it is `method_name` at
  // `bci` (false otherwise, and none are held). They are local references of
  // the caller's local frame at the time of the call.
  bool Select(JNIEnv* jni, int index, std::string_view method_name, int32_t bci);
  // A primitive local's bits: an int-sized one in the low 32 bits; a long or a
  // double (two slots) is read from its second slot, where HotSpot keeps it on
  // a 64-bit VM. None when the slot holds no primitive.
  std::optional<int64_t> Primitive(JNIEnv* jni, int32_t slot, bool two_slots) const;
  // An object local (nullptr is Java's null); false when the slot is a primitive's.
  bool Object(JNIEnv* jni, int32_t slot, jobject& out) const;
  // Whether the last Read or Walk filled the frames asked for alone (for tests).
  bool direct() const { return direct_; }

 private:
  jobjectArray frames_ = nullptr;  // of the last Walk, from first_
  jsize first_ = 0;
  jsize filled_ = 0;
  jobjectArray locals_ = nullptr;
  jsize count_ = 0;
  bool direct_ = false;
};

}  // namespace jdwpx::backend::probes
