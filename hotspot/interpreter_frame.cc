#include "hotspot/interpreter_frame.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>

#include "hotspot/vm_structs.h"

namespace jdwpx::hotspot {
namespace {

#if defined(__x86_64__) || defined(__aarch64__)
constexpr bool kKnownCpu = true;
#else
constexpr bool kKnownCpu = false;
#endif

// The interpreter frame's header, in words below the frame pointer (frame_x86.hpp,
// frame_aarch64.hpp): the Method, and the two places the bytecode pointer has
// been in (the locals pointer is always the word above it).
constexpr int32_t kMethodSlot = 3;
constexpr int32_t kBcpSlots[] = {8, 9};
constexpr int32_t kHeaderWords = 10;

template <typename T>
T Load(const char* address) {
  T value;
  std::memcpy(&value, address, sizeof(T));
  return value;
}

// Copies `size` bytes from an address that may not be mapped: the kernel
// copies them through a pipe and answers EFAULT rather than raising a signal.
// A few system calls: only for learning a place's frame, never per hit.
bool SafeCopy(const void* from, size_t size, void* to) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) return false;
  const bool ok = write(fds[1], from, size) == static_cast<ssize_t>(size) &&
                  read(fds[0], to, size) == static_cast<ssize_t>(size);
  close(fds[0]);
  close(fds[1]);
  return ok;
}

bool Cleared(JNIEnv* jni) {
  if (!jni->ExceptionCheck()) return false;
  jni->ExceptionClear();
  return true;
}

// The current thread's JavaThread, from java.lang.Thread.eetop: 0 for a
// virtual thread (or when anything fails).
jlong Eetop(JNIEnv* jni) {
  jclass thread_class = jni->FindClass("java/lang/Thread");
  if (!thread_class || Cleared(jni)) return 0;
  jmethodID current = jni->GetStaticMethodID(thread_class, "currentThread", "()Ljava/lang/Thread;");
  jfieldID eetop = jni->GetFieldID(thread_class, "eetop", "J");
  jlong value = 0;
  if (!Cleared(jni) && current && eetop) {
    jobject thread = jni->CallStaticObjectMethod(thread_class, current);
    if (thread && !Cleared(jni)) value = jni->GetLongField(thread, eetop);
    if (thread) jni->DeleteLocalRef(thread);
  }
  Cleared(jni);
  jni->DeleteLocalRef(thread_class);
  return value;
}

}  // namespace

uint64_t InterpreterFrame::SlotBits(int32_t slot) const {
  uint64_t bits;
  std::memcpy(&bits, locals_ - slot, sizeof(bits));
  return bits;
}

jobject InterpreterFrame::Object(JNIEnv* jni, int32_t slot) const {
  if (SlotBits(slot) == 0) return nullptr;  // a handle must not point at null
  return jni->NewLocalRef(reinterpret_cast<jobject>(const_cast<intptr_t*>(locals_ - slot)));
}

const InterpreterFrames* InterpreterFrames::Get(JNIEnv* jni) {
  static std::atomic<const InterpreterFrames*> ready{nullptr};
  if (const InterpreterFrames* frames = ready.load(std::memory_order_acquire)) return frames;
  static std::mutex mu;
  static const InterpreterFrames* learnt = nullptr;
  static bool unknown = !kKnownCpu;
  std::lock_guard lock(mu);
  if (learnt || unknown) return learnt;
  auto structs = VmStructs::Of(reinterpret_cast<const void*>(jni->functions->GetVersion));
  if (!structs) {
    unknown = true;
    return nullptr;
  }
  auto anchor = structs->FieldOffset("JavaThread", "_anchor");
  auto fp = structs->FieldOffset("JavaFrameAnchor", "_last_Java_fp");
  auto base = structs->FieldOffset("JavaThread", "_stack_base");
  auto size = structs->FieldOffset("JavaThread", "_stack_size");
  auto const_method = structs->FieldOffset("Method", "_constMethod");
  auto max_locals = structs->FieldOffset("ConstMethod", "_max_locals");
  auto bytecodes = structs->TypeSize("ConstMethod");
  auto thread_size = structs->TypeSize("JavaThread");
  if (!anchor || !fp || !base || !size || !const_method || !max_locals || !bytecodes || !thread_size) {
    unknown = true;
    return nullptr;
  }
  const jlong thread = Eetop(jni);
  if (thread == 0) return nullptr;  // a virtual thread: the next call tries again
  const ptrdiff_t env_in_thread = reinterpret_cast<const char*>(jni) - reinterpret_cast<const char*>(thread);
  if (env_in_thread <= 0 || static_cast<size_t>(env_in_thread) >= *thread_size) {
    unknown = true;
    return nullptr;
  }
  auto* frames = new InterpreterFrames;  // for the process's life
  frames->env_in_thread_ = env_in_thread;
  frames->last_java_fp_ = *anchor + *fp;
  frames->stack_base_ = *base;
  frames->stack_size_ = *size;
  frames->const_method_ = *const_method;
  frames->bytecodes_ = *bytecodes;
  frames->max_locals_ = *max_locals;
  learnt = frames;
  ready.store(frames, std::memory_order_release);
  return learnt;
}

std::optional<InterpreterFrames::Stack> InterpreterFrames::Frame(JNIEnv* jni) const {
  const char* thread = reinterpret_cast<const char*>(jni) - env_in_thread_;
  Stack stack;
  stack.high = Load<const char*>(thread + stack_base_);
  stack.low = stack.high - Load<size_t>(thread + stack_size_);
  stack.fp = Load<const intptr_t*>(thread + last_java_fp_);
  const auto* here = static_cast<const char*>(__builtin_frame_address(0));
  const auto* fp = reinterpret_cast<const char*>(stack.fp);
  // This code runs on the thread's stack, below its last Java frame, whose
  // header and saved frame pointer and return address lie above this code.
  if (!stack.fp || here <= stack.low || here >= stack.high) return std::nullopt;
  if (reinterpret_cast<uintptr_t>(fp) % sizeof(intptr_t) != 0) return std::nullopt;
  if (fp - kHeaderWords * sizeof(intptr_t) <= here || fp + 2 * sizeof(intptr_t) > stack.high) return std::nullopt;
  return stack;
}

const intptr_t* InterpreterFrames::Locals(const Stack& stack, int32_t bcp_slot, int32_t max_locals) const {
  const intptr_t word = stack.fp[-(bcp_slot - 1)];
  const auto fp = reinterpret_cast<intptr_t>(stack.fp);
  const auto high = reinterpret_cast<intptr_t>(stack.high);
  const intptr_t* locals = nullptr;
  if (word > fp && word < high) {
    locals = reinterpret_cast<const intptr_t*>(word);  // absolute (JDK 20 and before)
  } else if (word > 0 && word < (high - fp) / static_cast<intptr_t>(sizeof(intptr_t))) {
    locals = stack.fp + word;  // relative to the frame pointer (JDK 21 on)
  } else {
    return nullptr;
  }
  if (reinterpret_cast<uintptr_t>(locals) % sizeof(intptr_t) != 0) return nullptr;
  // Every slot lies above the frame's saved frame pointer and return address,
  // and within the stack.
  const auto* lowest = reinterpret_cast<const char*>(locals - (max_locals > 0 ? max_locals - 1 : 0));
  if (lowest < reinterpret_cast<const char*>(stack.fp + 2) ||
      reinterpret_cast<const char*>(locals + 1) > stack.high)
    return nullptr;
  return locals;
}

std::optional<FrameShape> InterpreterFrames::Learn(JNIEnv* jni, int32_t bci) const {
  auto stack = Frame(jni);
  if (!stack || bci < 0) return std::nullopt;
  FrameShape shape;
  shape.method = reinterpret_cast<const void*>(stack->fp[-kMethodSlot]);
  const char* const_method = nullptr;
  if (!shape.method ||
      !SafeCopy(static_cast<const char*>(shape.method) + const_method_, sizeof(const_method), &const_method) ||
      !const_method)
    return std::nullopt;
  uint16_t max_locals = 0;
  if (!SafeCopy(const_method + max_locals_, sizeof(max_locals), &max_locals)) return std::nullopt;
  shape.max_locals = max_locals;
  shape.bcp = const_method + bytecodes_ + bci;
  for (int32_t slot : kBcpSlots) {
    if (reinterpret_cast<const void*>(stack->fp[-slot]) != shape.bcp) continue;
    shape.bcp_slot = slot;
    if (!Locals(*stack, slot, shape.max_locals)) return std::nullopt;
    return shape;
  }
  return std::nullopt;
}

std::optional<InterpreterFrame> InterpreterFrames::Top(JNIEnv* jni, const FrameShape& shape) const {
  auto stack = Frame(jni);
  if (!stack || reinterpret_cast<const void*>(stack->fp[-kMethodSlot]) != shape.method ||
      reinterpret_cast<const void*>(stack->fp[-shape.bcp_slot]) != shape.bcp)
    return std::nullopt;
  InterpreterFrame frame;
  frame.locals_ = Locals(*stack, shape.bcp_slot, shape.max_locals);
  if (!frame.locals_) return std::nullopt;
  frame.max_locals_ = shape.max_locals;
  return frame;
}

}  // namespace jdwpx::hotspot
