// The calling thread's innermost Java frame, read straight from its stack when
// it is an interpreted frame: what a probe's condition reads at a breakpoint
// (HotSpot's breakpoints are interpreted), for a few nanoseconds, where JVMTI's
// GetLocal* is a VM operation at a safepoint and java.lang.LiveStackFrame a
// stack walk of several microseconds (docs/probes.md).
//
// How: the JVM's own tables (vm_structs.h) give where a thread keeps its last
// Java frame's frame pointer and its stack's bounds, and how a Method leads to
// its bytecodes. The interpreter frame's slots below that frame pointer are the
// same on x86_64 and aarch64 in every JDK from 17 on, except where the locals
// pointer sits and whether it is absolute (up to JDK 20) or relative to the
// frame pointer (21 on); so a frame is used only when its Method slot holds
// the method asked for and its bytecode pointer slot points at the bci asked
// for, and the locals slot is read from the slot beside it and checked to lie
// within the thread's stack. Anything else, or another CPU, finds no frame.
//
// What a slot holds (an int, an object) is the caller's to know: reading an
// object from a slot that holds an int would hand the JVM a wild pointer. The
// probes check every slot's kind once per place against the JVM's own oop map
// (through LiveStackFrame) before they read it here (backend/probes/frame_slots.h).
#pragma once

#include <jni.h>

#include <cstdint>
#include <optional>

namespace jdwpx::hotspot {

class InterpreterFrame {
 public:
  int32_t max_locals() const { return max_locals_; }
  // The raw 64 bits of a local slot: an int-sized value in the low 32 bits; a
  // long or a double is the second slot's (slot + 1), as in LiveStackFrame.
  // `slot` must be below max_locals().
  uint64_t SlotBits(int32_t slot) const;
  // An object slot as a JNI local reference (null for Java's null): the slot's
  // address is itself a valid handle, the kind HotSpot gives a native method
  // for its object arguments, so NewLocalRef reads it in the VM, where no
  // collector moves it meanwhile.
  jobject Object(JNIEnv* jni, int32_t slot) const;

 private:
  friend class InterpreterFrames;
  const intptr_t* locals_ = nullptr;  // slot n at locals_[-n]
  int32_t max_locals_ = 0;
};

// What tells one place's frames apart from any other: its Method and the
// address of its bytecode at the place's bci, and where the frame keeps that
// address. Learnt at one hit, compared at the others.
struct FrameShape {
  const void* method = nullptr;
  const void* bcp = nullptr;
  int32_t bcp_slot = 0;  // below the frame pointer, in words
  int32_t max_locals = 0;
};

class InterpreterFrames {
 public:
  // The layout of this VM, learnt once from its tables and from a platform
  // thread's java.lang.Thread.eetop (where a JNIEnv sits in its JavaThread);
  // null when this VM or CPU is not one that this code knows. When the thread
  // is a virtual one (no eetop of its own) it is tried again at the next call.
  static const InterpreterFrames* Get(JNIEnv* jni);

  // The shape of the calling thread's innermost Java frame, taken to be an
  // interpreted frame at `bci`: its Method slot, and a bytecode pointer slot
  // that points at `bci` of that Method's bytecodes. Every read outside the
  // thread's stack is checked first, so a frame that is not so gives none
  // rather than a fault. Call it only inside a JVMTI event callback of that
  // frame (a Breakpoint), where no Java frame of the thread's own has run since.
  std::optional<FrameShape> Learn(JNIEnv* jni, int32_t bci) const;
  // The innermost Java frame when its Method and bytecode pointer are the
  // shape's (reads the thread's stack alone); the same calling rule.
  std::optional<InterpreterFrame> Top(JNIEnv* jni, const FrameShape& shape) const;

 private:
  struct Stack {
    const char* low = nullptr;
    const char* high = nullptr;  // the base: Java frames are below it
    const intptr_t* fp = nullptr;  // the last Java frame's
  };
  // The thread's stack and last Java frame pointer, when the frame's header
  // and the caller (this code, further down the stack) are both within it.
  std::optional<Stack> Frame(JNIEnv* jni) const;
  // The locals of a frame whose bytecode pointer is at fp[-bcp_slot].
  const intptr_t* Locals(const Stack& stack, int32_t bcp_slot, int32_t max_locals) const;

  ptrdiff_t env_in_thread_ = 0;  // where a JavaThread keeps its JNIEnv
  size_t last_java_fp_ = 0;      // JavaThread::_anchor + JavaFrameAnchor::_last_Java_fp
  size_t stack_base_ = 0;        // JavaThread::_stack_base (its highest address)
  size_t stack_size_ = 0;
  size_t const_method_ = 0;      // Method::_constMethod
  size_t bytecodes_ = 0;         // sizeof(ConstMethod): the bytecodes follow it
  size_t max_locals_ = 0;        // ConstMethod::_max_locals (u2)
};

}  // namespace jdwpx::hotspot
