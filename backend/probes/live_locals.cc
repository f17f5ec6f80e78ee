#include "backend/probes/live_locals.h"

#include <algorithm>
#include <mutex>
#include <string>

namespace jdwpx::backend::probes {
namespace {

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

jobject GlobalObject(JNIEnv* jni, jobject local) {
  if (!local || Cleared(jni)) return nullptr;
  jobject global = jni->NewGlobalRef(local);
  jni->DeleteLocalRef(local);
  return global;
}

// The public route: LiveStackFrame.getStackWalker().forEach(builder). It fills
// every frame of the stack, batch by batch, with its locals, operands and
// monitors, and the first batch holds at least 6 frames (JDK 17) or 7 (JDK 25).
struct PublicWalk {
  bool ok = false;
  jmethodID for_each = nullptr;
  jclass stream = nullptr;
  jmethodID builder = nullptr;
  jmethodID build = nullptr;
  jmethodID to_array = nullptr;
};

// The route that fills the top frame alone: StackStreamFactory's own private
// native callStackWalk, called through JNI (which checks no access) with a batch
// of one frame, on a LiveStackInfoTraverser whose function is
// Function.identity(), so that nothing walks on. Worth it because filling a
// frame is the walk's cost: on JDK 17 every interpreted frame filled costs two
// abstract interpretations of its whole method (Method::mask_for computes the
// oop map anew outside GC, without OopMapCache: GenerateOopMap), and on JDK 25
// each primitive slot of each frame is a Java upcall (asPrimitive). Only the two
// shapes of callStackWalk known (JDK 17's, and JDK 25's with its continuation
// arguments) are used, matched by signature; any other JDK takes the public
// route.
struct DirectWalk {
  enum class Shape : uint8_t { kNone, kJdk17, kJdk25 } shape = Shape::kNone;
  jclass traverser = nullptr;  // StackStreamFactory$LiveStackInfoTraverser
  jmethodID make = nullptr;    // (StackWalker, Function)
  jmethodID init_buffer = nullptr;
  jfieldID buffer = nullptr;  // AbstractStackWalker.frameBuffer
  jmethodID frames = nullptr;  // FrameBuffer.frames()
  jfieldID mode = nullptr;     // long on JDK 17, int on 25
  jfieldID scope = nullptr;    // 25: the continuation scope and continuation
  jfieldID continuation = nullptr;
  jmethodID call = nullptr;  // callStackWalk
  jint start = 0;            // FrameBuffer.START_POS: the slots before it are the VM's
  jobject identity = nullptr;
  // For more than the frame buffer's first batch (7 frames or so): a larger
  // array of LiveStackFrameInfo put in place of the buffer's own before the walk,
  // since the walk's Java side reads the frames back from the buffer.
  jclass frame_info = nullptr;  // java.lang.LiveStackFrameInfo
  jmethodID make_frame_info = nullptr;
};

// The classes and methods of a walk, looked up once (global references kept
// for the agent's life); `ok` is false when this JDK lacks LiveStackFrame.
struct Walk {
  bool ok = false;
  jobject walker = nullptr;  // LiveStackFrame.getStackWalker()
  jmethodID method_name = nullptr;
  jmethodID bci = nullptr;
  jmethodID get_locals = nullptr;
  jclass primitive_slot = nullptr;
  jmethodID long_value = nullptr;
  PublicWalk by_stream;
  DirectWalk direct;
};

PublicWalk LookUpPublic(JNIEnv* jni) {
  PublicWalk p;
  jclass stack_walker = GlobalClass(jni, "java/lang/StackWalker");
  jclass builder = GlobalClass(jni, "java/util/stream/Stream$Builder");
  p.stream = GlobalClass(jni, "java/util/stream/Stream");
  if (!stack_walker || !builder || !p.stream) return p;
  p.for_each = jni->GetMethodID(stack_walker, "forEach", "(Ljava/util/function/Consumer;)V");
  p.builder = jni->GetStaticMethodID(p.stream, "builder", "()Ljava/util/stream/Stream$Builder;");
  p.build = jni->GetMethodID(builder, "build", "()Ljava/util/stream/Stream;");
  p.to_array = jni->GetMethodID(p.stream, "toArray", "()[Ljava/lang/Object;");
  p.ok = !Cleared(jni) && p.for_each && p.builder && p.build && p.to_array;
  return p;
}

DirectWalk LookUpDirect(JNIEnv* jni) {
  DirectWalk d;
  d.traverser = GlobalClass(jni, "java/lang/StackStreamFactory$LiveStackInfoTraverser");
  jclass buffer = GlobalClass(jni, "java/lang/StackStreamFactory$FrameBuffer");
  jclass function = GlobalClass(jni, "java/util/function/Function");
  if (!d.traverser || !buffer || !function) return d;
  d.make = jni->GetMethodID(d.traverser, "<init>", "(Ljava/lang/StackWalker;Ljava/util/function/Function;)V");
  d.init_buffer = jni->GetMethodID(d.traverser, "initFrameBuffer", "()V");
  d.buffer = jni->GetFieldID(d.traverser, "frameBuffer", "Ljava/lang/StackStreamFactory$FrameBuffer;");
  d.frames = jni->GetMethodID(buffer, "frames", "()[Ljava/lang/Object;");
  jfieldID start = jni->GetStaticFieldID(buffer, "START_POS", "I");
  jmethodID identity = jni->GetStaticMethodID(function, "identity", "()Ljava/util/function/Function;");
  if (Cleared(jni) || !d.make || !d.init_buffer || !d.buffer || !d.frames || !start || !identity) return d;
  d.start = jni->GetStaticIntField(buffer, start);
  d.frame_info = GlobalClass(jni, "java/lang/LiveStackFrameInfo");
  if (d.frame_info) d.make_frame_info = jni->GetMethodID(d.frame_info, "<init>", "(Ljava/lang/StackWalker;)V");
  if (Cleared(jni)) d.make_frame_info = nullptr;
  d.identity = GlobalObject(jni, jni->CallStaticObjectMethod(function, identity));
  if (!d.identity || d.start < 1) return d;

  d.call = jni->GetMethodID(d.traverser, "callStackWalk", "(JIII[Ljava/lang/Object;)Ljava/lang/Object;");
  if (d.call && !Cleared(jni)) {
    d.mode = jni->GetFieldID(d.traverser, "mode", "J");
    if (d.mode && !Cleared(jni)) d.shape = DirectWalk::Shape::kJdk17;
    return d;
  }
  Cleared(jni);
  d.call = jni->GetMethodID(d.traverser, "callStackWalk",
                            "(IILjdk/internal/vm/ContinuationScope;Ljdk/internal/vm/Continuation;II[Ljava/lang/Object;)"
                            "Ljava/lang/Object;");
  if (!d.call || Cleared(jni)) return d;
  d.mode = jni->GetFieldID(d.traverser, "mode", "I");
  d.scope = jni->GetFieldID(d.traverser, "contScope", "Ljdk/internal/vm/ContinuationScope;");
  d.continuation = jni->GetFieldID(d.traverser, "continuation", "Ljdk/internal/vm/Continuation;");
  if (!Cleared(jni) && d.mode && d.scope && d.continuation) d.shape = DirectWalk::Shape::kJdk25;
  return d;
}

Walk LookUp(JNIEnv* jni) {
  Walk w;
  jclass live = GlobalClass(jni, "java/lang/LiveStackFrame");
  jclass frame = GlobalClass(jni, "java/lang/StackWalker$StackFrame");
  w.primitive_slot = GlobalClass(jni, "java/lang/LiveStackFrame$PrimitiveSlot");
  if (!live || !frame || !w.primitive_slot) return w;
  jmethodID get_walker = jni->GetStaticMethodID(live, "getStackWalker", "()Ljava/lang/StackWalker;");
  w.get_locals = jni->GetMethodID(live, "getLocals", "()[Ljava/lang/Object;");
  w.method_name = jni->GetMethodID(frame, "getMethodName", "()Ljava/lang/String;");
  w.bci = jni->GetMethodID(frame, "getByteCodeIndex", "()I");
  w.long_value = jni->GetMethodID(w.primitive_slot, "longValue", "()J");
  if (Cleared(jni) || !get_walker || !w.get_locals || !w.method_name || !w.bci || !w.long_value) return w;
  w.walker = GlobalObject(jni, jni->CallStaticObjectMethod(live, get_walker));
  if (!w.walker) return w;
  w.by_stream = LookUpPublic(jni);
  w.direct = LookUpDirect(jni);
  w.ok = w.by_stream.ok || w.direct.shape != DirectWalk::Shape::kNone;
  return w;
}

const Walk& TheWalk(JNIEnv* jni) {
  static std::once_flag once;
  static Walk walk;
  std::call_once(once, [&] { walk = LookUp(jni); });
  return walk;
}

// The buffer's array field: LiveStackFrameBuffer.stackFrames on JDK 17,
// StackFrameBuffer.stackFrames (erased to ClassFrameInfo[]) on 25.
jfieldID BufferArrayField(JNIEnv* jni, jobject buffer) {
  jclass type = jni->GetObjectClass(buffer);
  jfieldID field = nullptr;
  for (const char* signature : {"[Ljava/lang/LiveStackFrameInfo;", "[Ljava/lang/ClassFrameInfo;"}) {
    field = jni->GetFieldID(type, "stackFrames", signature);
    if (field && !Cleared(jni)) break;
    Cleared(jni);
    field = nullptr;
  }
  jni->DeleteLocalRef(type);
  return field;
}

// `count` new LiveStackFrameInfo after the buffer's reserved slots, in place of
// the buffer's own array; null when anything fails.
jobjectArray LargerBuffer(JNIEnv* jni, const Walk& w, jobject buffer, jint count) {
  const DirectWalk& d = w.direct;
  if (!d.make_frame_info) return nullptr;
  jfieldID field = BufferArrayField(jni, buffer);
  if (!field) return nullptr;
  jobjectArray frames = jni->NewObjectArray(d.start + count, d.frame_info, nullptr);
  if (!frames || Cleared(jni)) return nullptr;
  for (jint i = d.start; i < d.start + count; ++i) {
    jobject info = jni->NewObject(d.frame_info, d.make_frame_info, w.walker);
    if (!info || Cleared(jni)) {
      jni->DeleteLocalRef(frames);
      return nullptr;
    }
    jni->SetObjectArrayElement(frames, i, info);
    jni->DeleteLocalRef(info);
  }
  jni->SetObjectField(buffer, field, frames);
  if (Cleared(jni)) {
    jni->DeleteLocalRef(frames);
    return nullptr;
  }
  return frames;
}

// The `count` innermost Java frames filled alone, in an array from index
// d.start (its length bounds them; unfilled ones have no method), or null (an
// exception, a JDK whose internals differ after all).
jobjectArray FramesDirect(JNIEnv* jni, const Walk& w, jint count) {
  const DirectWalk& d = w.direct;
  if (d.shape == DirectWalk::Shape::kNone || count < 1) return nullptr;
  jobject traverser = jni->NewObject(d.traverser, d.make, w.walker, d.identity);
  if (!traverser || Cleared(jni)) return nullptr;
  jni->CallVoidMethod(traverser, d.init_buffer);
  jobject buffer = Cleared(jni) ? nullptr : jni->GetObjectField(traverser, d.buffer);
  auto frames = static_cast<jobjectArray>(buffer ? jni->CallObjectMethod(buffer, d.frames) : nullptr);
  if (frames && !Cleared(jni) && jni->GetArrayLength(frames) < d.start + count) {
    jni->DeleteLocalRef(frames);
    frames = LargerBuffer(jni, w, buffer, count);
  }
  if (!frames || Cleared(jni) || jni->GetArrayLength(frames) < d.start + count) {
    for (jobject used : {static_cast<jobject>(frames), buffer, traverser})
      if (used) jni->DeleteLocalRef(used);
    return nullptr;
  }
  jvalue args[7];
  jobject scope = nullptr;
  jobject continuation = nullptr;
  if (d.shape == DirectWalk::Shape::kJdk17) {
    // (mode, skip, frame count, start index, frames)
    args[0].j = jni->GetLongField(traverser, d.mode);
    args[1].i = 0;
    args[2].i = count;
    args[3].i = d.start;
    args[4].l = frames;
  } else {
    // (mode, skip, scope, continuation, buffer size, start index, frames):
    // the scope is a virtual thread's when the hit is in one.
    scope = jni->GetObjectField(traverser, d.scope);
    continuation = jni->GetObjectField(traverser, d.continuation);
    args[0].i = jni->GetIntField(traverser, d.mode);
    args[1].i = 0;
    args[2].l = scope;
    args[3].l = continuation;
    args[4].i = d.start + count;
    args[5].i = d.start;
    args[6].l = frames;
  }
  jobject result = jni->CallObjectMethodA(traverser, d.call, args);
  const bool threw = Cleared(jni);
  for (jobject used : {result, scope, continuation, buffer, traverser})
    if (used) jni->DeleteLocalRef(used);
  if (threw) {
    jni->DeleteLocalRef(frames);
    return nullptr;
  }
  return frames;
}

// Every Java frame of the stack through the public API, from index 0, or null.
jobjectArray FramesPublic(JNIEnv* jni, const Walk& w) {
  const PublicWalk& p = w.by_stream;
  if (!p.ok) return nullptr;
  jobject builder = jni->CallStaticObjectMethod(p.stream, p.builder);
  if (!builder || Cleared(jni)) return nullptr;
  jni->CallVoidMethod(w.walker, p.for_each, builder);
  if (Cleared(jni)) return nullptr;
  jobject stream = jni->CallObjectMethod(builder, p.build);
  if (!stream || Cleared(jni)) return nullptr;
  auto frames = static_cast<jobjectArray>(jni->CallObjectMethod(stream, p.to_array));
  if (!frames || Cleared(jni)) return nullptr;
  return frames;
}

}  // namespace

namespace {
// The walk is not used for this hit (the caller reads through JVMTI); `why`
// documents the case.
bool NotUsed(const char* /*why*/) { return false; }

// Whether a walked frame is `method_name` at `bci`.
bool Is(JNIEnv* jni, const Walk& w, jobject frame, std::string_view method_name, int32_t bci) {
  const jint frame_bci = jni->CallIntMethod(frame, w.bci);
  if (Cleared(jni) || frame_bci != bci) return false;
  auto name = static_cast<jstring>(jni->CallObjectMethod(frame, w.method_name));
  if (!name || Cleared(jni)) return false;
  const char* chars = jni->GetStringUTFChars(name, nullptr);
  const bool same = chars && method_name == chars;
  if (chars) jni->ReleaseStringUTFChars(name, chars);
  else Cleared(jni);
  jni->DeleteLocalRef(name);
  return same;
}
}  // namespace

void LiveLocals::Prepare(JNIEnv* jni) { TheWalk(jni); }

int LiveLocals::Walk(JNIEnv* jni, int count) {
  frames_ = nullptr;
  first_ = filled_ = 0;
  locals_ = nullptr;
  count_ = 0;
  const struct Walk& w = TheWalk(jni);
  if (!w.ok || count < 1) return 0;
  // The walk starts at the innermost Java frame: the native callback has none,
  // and the walk leaves out its own.
  frames_ = FramesDirect(jni, w, count);
  direct_ = frames_ != nullptr;
  if (frames_) {
    first_ = w.direct.start;
  } else {
    frames_ = FramesPublic(jni, w);
    if (!frames_) return 0;
  }
  filled_ = std::min<jsize>(jni->GetArrayLength(frames_) - first_, count);
  return filled_;
}

bool LiveLocals::Select(JNIEnv* jni, int index, std::string_view method_name, int32_t bci) {
  locals_ = nullptr;
  count_ = 0;
  if (!frames_ || index < 0 || index >= filled_) return false;
  const struct Walk& w = TheWalk(jni);
  jobject frame = jni->GetObjectArrayElement(frames_, first_ + index);
  if (!frame || Cleared(jni)) return false;
  // A frame the walk did not fill (the stack is shallower) has no method: its
  // getters throw or answer nothing, and it is not selected.
  const bool same = Is(jni, w, frame, method_name, bci);
  if (same) locals_ = static_cast<jobjectArray>(jni->CallObjectMethod(frame, w.get_locals));
  jni->DeleteLocalRef(frame);
  if (!same) return NotUsed("the frame is not the probe's method at its bci");
  if (!locals_ || Cleared(jni)) {
    locals_ = nullptr;
    return false;
  }
  count_ = jni->GetArrayLength(locals_);
  return true;
}

bool LiveLocals::Read(JNIEnv* jni, std::string_view method_name, int32_t bci) {
  if (Walk(jni, 1) < 1) return NotUsed("the walk threw or found no frame");
  return Select(jni, 0, method_name, bci);
}

std::optional<int64_t> LiveLocals::Primitive(JNIEnv* jni, int32_t slot, bool two_slots) const {
  const int32_t at = two_slots ? slot + 1 : slot;
  if (!locals_ || at < 0 || at >= count_) return std::nullopt;
  const struct Walk& w = TheWalk(jni);
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
