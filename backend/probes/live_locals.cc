#include "backend/probes/live_locals.h"

#include <mutex>
#include <string>

namespace jdwpx::backend::probes {
namespace {

// The classes and methods of a walk, looked up once (global references kept
// for the agent's life); `ok` is false when this JDK lacks any of them.
struct Walk {
  bool ok = false;
  jobject walker = nullptr;  // LiveStackFrame.getStackWalker()
  jmethodID for_each = nullptr;
  jclass stream = nullptr;
  jmethodID builder = nullptr;
  jmethodID build = nullptr;
  jmethodID to_array = nullptr;
  jmethodID get_locals = nullptr;
  jmethodID method_name = nullptr;
  jmethodID bci = nullptr;
  jclass primitive_slot = nullptr;
  jmethodID long_value = nullptr;
};

bool Cleared(JNIEnv* jni) {
  if (!jni->ExceptionCheck()) return false;
  jni->ExceptionClear();
  return true;
}

jclass GlobalClass(JNIEnv* jni, const char* name) {
  jclass local = jni->FindClass(name);
  if (!local || Cleared(jni)) return nullptr;
  auto global = static_cast<jclass>(jni->NewGlobalRef(local));
  jni->DeleteLocalRef(local);
  return global;
}

Walk LookUp(JNIEnv* jni) {
  Walk w;
  jclass live = GlobalClass(jni, "java/lang/LiveStackFrame");
  jclass stack_walker = GlobalClass(jni, "java/lang/StackWalker");
  jclass frame = GlobalClass(jni, "java/lang/StackWalker$StackFrame");
  jclass builder = GlobalClass(jni, "java/util/stream/Stream$Builder");
  w.stream = GlobalClass(jni, "java/util/stream/Stream");
  w.primitive_slot = GlobalClass(jni, "java/lang/LiveStackFrame$PrimitiveSlot");
  if (!live || !stack_walker || !frame || !builder || !w.stream || !w.primitive_slot) return w;
  jmethodID get_walker = jni->GetStaticMethodID(live, "getStackWalker", "()Ljava/lang/StackWalker;");
  w.for_each = jni->GetMethodID(stack_walker, "forEach", "(Ljava/util/function/Consumer;)V");
  w.builder = jni->GetStaticMethodID(w.stream, "builder", "()Ljava/util/stream/Stream$Builder;");
  w.build = jni->GetMethodID(builder, "build", "()Ljava/util/stream/Stream;");
  w.to_array = jni->GetMethodID(w.stream, "toArray", "()[Ljava/lang/Object;");
  w.get_locals = jni->GetMethodID(live, "getLocals", "()[Ljava/lang/Object;");
  w.method_name = jni->GetMethodID(frame, "getMethodName", "()Ljava/lang/String;");
  w.bci = jni->GetMethodID(frame, "getByteCodeIndex", "()I");
  w.long_value = jni->GetMethodID(w.primitive_slot, "longValue", "()J");
  if (Cleared(jni) || !get_walker || !w.for_each || !w.builder || !w.build || !w.to_array || !w.get_locals ||
      !w.method_name || !w.bci || !w.long_value)
    return w;
  jobject walker = jni->CallStaticObjectMethod(live, get_walker);
  if (!walker || Cleared(jni)) return w;
  w.walker = jni->NewGlobalRef(walker);
  jni->DeleteLocalRef(walker);
  w.ok = w.walker != nullptr;
  return w;
}

const Walk& TheWalk(JNIEnv* jni) {
  static std::once_flag once;
  static Walk walk;
  std::call_once(once, [&] { walk = LookUp(jni); });
  return walk;
}

}  // namespace

namespace {
// The walk is not used for this hit (the caller reads through JVMTI); `why`
// documents the case.
bool NotUsed(const char* /*why*/) { return false; }
}  // namespace

bool LiveLocals::Read(JNIEnv* jni, std::string_view method_name, int32_t bci) {
  const Walk& w = TheWalk(jni);
  if (!w.ok) return NotUsed("java.lang.LiveStackFrame is not there");
  jobject builder = jni->CallStaticObjectMethod(w.stream, w.builder);
  if (!builder || Cleared(jni)) return false;
  jni->CallVoidMethod(w.walker, w.for_each, builder);
  if (Cleared(jni)) return NotUsed("the walk threw");
  jobject stream = jni->CallObjectMethod(builder, w.build);
  if (!stream || Cleared(jni)) return false;
  auto frames = static_cast<jobjectArray>(jni->CallObjectMethod(stream, w.to_array));
  if (!frames || Cleared(jni) || jni->GetArrayLength(frames) == 0) return NotUsed("the walk found no frame");
  // The walk starts at the innermost Java frame: the native callback has none,
  // and StackWalker leaves out its own. It must be the probe's place.
  jobject top = jni->GetObjectArrayElement(frames, 0);
  if (!top || Cleared(jni)) return false;
  if (jni->CallIntMethod(top, w.bci) != bci || Cleared(jni)) return NotUsed("the innermost frame is not at the probe's bci");
  auto name = static_cast<jstring>(jni->CallObjectMethod(top, w.method_name));
  if (!name || Cleared(jni)) return false;
  const char* chars = jni->GetStringUTFChars(name, nullptr);
  if (!chars) {
    Cleared(jni);
    return false;
  }
  const bool same = method_name == chars;
  jni->ReleaseStringUTFChars(name, chars);
  if (!same) return NotUsed("the innermost frame is not the probe's method");
  locals_ = static_cast<jobjectArray>(jni->CallObjectMethod(top, w.get_locals));
  if (!locals_ || Cleared(jni)) {
    locals_ = nullptr;
    return false;
  }
  count_ = jni->GetArrayLength(locals_);
  return true;
}

std::optional<int64_t> LiveLocals::Primitive(JNIEnv* jni, int32_t slot, bool two_slots) const {
  const int32_t at = two_slots ? slot + 1 : slot;
  if (!locals_ || at < 0 || at >= count_) return std::nullopt;
  const Walk& w = TheWalk(jni);
  jobject value = jni->GetObjectArrayElement(locals_, at);
  if (Cleared(jni) || !value || !jni->IsInstanceOf(value, w.primitive_slot)) return std::nullopt;
  const jlong bits = jni->CallLongMethod(value, w.long_value);
  jni->DeleteLocalRef(value);
  if (Cleared(jni)) return std::nullopt;
  return bits;
}

bool LiveLocals::Object(JNIEnv* jni, int32_t slot, jobject& out) const {
  if (!locals_ || slot < 0 || slot >= count_) return false;
  jobject value = jni->GetObjectArrayElement(locals_, slot);
  if (Cleared(jni)) return false;
  if (value && jni->IsInstanceOf(value, TheWalk(jni).primitive_slot)) return false;
  out = value;
  return true;
}

}  // namespace jdwpx::backend::probes
