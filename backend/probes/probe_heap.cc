#include "backend/probes/probe_heap.h"

#include <cstring>

#include <algorithm>
#include <vector>

#include "backend/probes/java_names.h"

namespace jdwpx::backend::probes {
namespace {

tl::unexpected<std::string> Fail(std::string message) { return tl::unexpected(std::move(message)); }

// Short enough to need no allocation (it is what a failed allocation returns).
tl::unexpected<std::string> OutOfMemory() { return tl::unexpected(std::string("out of memory")); }

std::string Describe(const vmcore::VmError& error) {
  return std::string(error.function) + ": " + vmcore::JvmtiErrorName(error.code);
}

// The descriptor's return type: what follows ')'.
char ReturnKind(std::string_view signature) {
  size_t close = signature.find(')');
  return close == std::string_view::npos || close + 1 >= signature.size() ? 'V' : signature[close + 1];
}

bool TwoSlots(const expr::Type& type) {
  return type.kind == expr::Type::Kind::kPrimitive && (type.prim == expr::Prim::kLong || type.prim == expr::Prim::kDouble);
}

// A primitive local from its slot's bits: an int-sized one in the low 32 bits.
expr::Value PrimitiveValue(const expr::Type& type, uint64_t bits) {
  expr::Value value;
  value.type = type;
  const auto low = static_cast<uint32_t>(bits);
  switch (type.prim) {
    case expr::Prim::kLong: value.prim.j = static_cast<int64_t>(bits); break;
    case expr::Prim::kDouble: std::memcpy(&value.prim.d, &bits, sizeof(double)); break;
    case expr::Prim::kFloat: std::memcpy(&value.prim.f, &low, sizeof(float)); break;
    case expr::Prim::kBoolean: value.prim.z = low != 0; break;
    case expr::Prim::kByte: value.prim.i = static_cast<int8_t>(low); break;
    case expr::Prim::kChar: value.prim.i = static_cast<uint16_t>(low); break;
    case expr::Prim::kShort: value.prim.i = static_cast<int16_t>(low); break;
    case expr::Prim::kInt: value.prim.i = static_cast<int32_t>(low); break;
  }
  return value;
}

// The same primitive value, bit for bit (a NaN equals itself).
bool SameBits(const expr::Value& a, const expr::Value& b) {
  switch (a.type.prim) {
    case expr::Prim::kLong: return a.prim.j == b.prim.j;
    case expr::Prim::kDouble: return std::memcmp(&a.prim.d, &b.prim.d, sizeof(double)) == 0;
    case expr::Prim::kFloat: return std::memcmp(&a.prim.f, &b.prim.f, sizeof(float)) == 0;
    case expr::Prim::kBoolean: return a.prim.z == b.prim.z;
    default: return a.prim.i == b.prim.i;
  }
}

}  // namespace

expr::Value ReferenceValue(jobject ref, const expr::Type& type) {
  expr::Value value;
  if (!ref) return value;  // Type::Null()
  value.type = type;
  value.ref = ref;
  return value;
}

JniHeap::JniHeap(const vmcore::Jvmti& jvmti, JNIEnv* jni, jthread thread, const JvmtiScope& scope, jint depth)
    : jvmti_(jvmti), jni_(jni), thread_(thread), scope_(scope), depth_(depth),
      frame_pushed_(jni->PushLocalFrame(256) == 0) {
  if (!frame_pushed_) jni_->ExceptionClear();  // the OutOfMemoryError is ours, not the program's
}

JniHeap::~JniHeap() {
  if (frame_pushed_) jni_->PopLocalFrame(nullptr);
}

expr::Result<expr::Value> JniHeap::Local(const expr::LocalInfo& local) try {
  // One variable is live in a slot at the probe's place: the slot is the key.
  if (auto it = locals_.find(local.slot); it != locals_.end()) return it->second;
  auto value = ReadLocal(local);
  if (value) locals_[local.slot] = *value;
  return value;
} catch (...) {  // bad_alloc: this read fails, the program goes on
  jni_->ExceptionClear();
  return OutOfMemory();
}

std::optional<expr::Value> JniHeap::ReadLiveLocal(const expr::LocalInfo& local) {
  if (depth_ != 0) return std::nullopt;
  if (live_state_ == Live::kUntried) {
    const std::string& name = scope_.method_name();
    live_state_ = !name.empty() && live_.Read(jni_, name, static_cast<int32_t>(scope_.location())) ? Live::kRead
                                                                                                    : Live::kFailed;
  }
  if (live_state_ != Live::kRead) return std::nullopt;
  const expr::Type& type = local.type;
  if (type.kind != expr::Type::Kind::kPrimitive) {
    jobject ref = nullptr;
    if (!live_.Object(jni_, local.slot, ref)) return std::nullopt;
    return ReferenceValue(ref, type);
  }
  auto bits = live_.Primitive(jni_, local.slot, TwoSlots(type));
  if (!bits) return std::nullopt;
  return PrimitiveValue(type, static_cast<uint64_t>(*bits));
}

const hotspot::InterpreterFrame* JniHeap::Frame() {
  if (frame_state_ == FrameState::kUntried) {
    frame_state_ = FrameState::kAbsent;
    const hotspot::InterpreterFrames* frames = depth_ == 0 ? hotspot::InterpreterFrames::Get(jni_) : nullptr;
    const hotspot::FrameShape* shape =
        frames ? scope_.frame_slots().Shape(*frames, jni_, static_cast<int32_t>(scope_.location())) : nullptr;
    if (auto frame = shape ? frames->Top(jni_, *shape) : std::nullopt) {
      frame_ = *frame;
      frame_state_ = FrameState::kFound;
    }
  }
  return frame_state_ == FrameState::kFound ? &frame_ : nullptr;
}

std::optional<expr::Value> JniHeap::ReadFromFrame(const expr::LocalInfo& local) {
  using Verdict = FrameSlots::Verdict;
  const expr::Type& type = local.type;
  const bool object = type.kind != expr::Type::Kind::kPrimitive;
  const Verdict kind = object ? Verdict::kObject : Verdict::kPrimitive;
  FrameSlots& slots = scope_.frame_slots();
  const Verdict verdict = slots.Of(local.slot);
  if (verdict == Verdict::kRefused || local.slot < 0) return std::nullopt;
  const hotspot::InterpreterFrame* frame = Frame();
  const int32_t last = local.slot + (TwoSlots(type) ? 1 : 0);
  if (!frame || last >= frame->max_locals()) return std::nullopt;
  if (verdict == kind) {
    if (object) return ReferenceValue(frame->Object(jni_, local.slot), type);
    return PrimitiveValue(type, frame->SlotBits(last));
  }
  if (verdict != Verdict::kUnchecked) return std::nullopt;  // checked as the other kind
  // Not checked yet: the walk's value, and the frame's slot trusted from now
  // on when the walk says the slot holds this kind and both read the same.
  // (The frame's object is read only once the walk has said it is one.)
  auto walked = ReadLiveLocal(local);
  if (!walked) {
    if (live_state_ == Live::kRead) slots.Set(local.slot, Verdict::kRefused);  // the slot holds the other kind
    return std::nullopt;
  }
  const bool same = object ? jni_->IsSameObject(frame->Object(jni_, local.slot), static_cast<jobject>(walked->ref))
                           : SameBits(*walked, PrimitiveValue(type, frame->SlotBits(last)));
  slots.Set(local.slot, same ? kind : Verdict::kRefused);
  return walked;
}

expr::Result<expr::Value> JniHeap::ReadLocal(const expr::LocalInfo& local) {
  if (auto from_frame = ReadFromFrame(local)) return *from_frame;
  if (auto live = ReadLiveLocal(local)) return *live;
  const expr::Type& type = local.type;
  if (type.kind != expr::Type::Kind::kPrimitive) {
    auto ref = jvmti_.GetLocalObject(thread_, depth_, local.slot);
    if (!ref) return Fail("local in slot " + std::to_string(local.slot) + ": " + Describe(ref.error()));
    return ReferenceValue(*ref, type);
  }
  expr::Value value;
  value.type = type;
  switch (type.prim) {
    case expr::Prim::kLong: {
      auto v = jvmti_.GetLocalLong(thread_, depth_, local.slot);
      if (!v) return Fail("local in slot " + std::to_string(local.slot) + ": " + Describe(v.error()));
      value.prim.j = *v;
      return value;
    }
    case expr::Prim::kFloat: {
      auto v = jvmti_.GetLocalFloat(thread_, depth_, local.slot);
      if (!v) return Fail("local in slot " + std::to_string(local.slot) + ": " + Describe(v.error()));
      value.prim.f = *v;
      return value;
    }
    case expr::Prim::kDouble: {
      auto v = jvmti_.GetLocalDouble(thread_, depth_, local.slot);
      if (!v) return Fail("local in slot " + std::to_string(local.slot) + ": " + Describe(v.error()));
      value.prim.d = *v;
      return value;
    }
    default: {  // boolean, byte, char, short and int live in an int slot
      auto v = jvmti_.GetLocalInt(thread_, depth_, local.slot);
      if (!v) return Fail("local in slot " + std::to_string(local.slot) + ": " + Describe(v.error()));
      if (type.prim == expr::Prim::kBoolean) value.prim.z = *v != 0;
      else value.prim.i = *v;
      return value;
    }
  }
}

expr::Result<expr::Value> JniHeap::This() try {
  auto type = scope_.This();
  // HotSpot's GetLocalInstance reads slot 0 of an instance method's frame.
  if (type)
    if (auto from_frame = ReadFromFrame(expr::LocalInfo{0, *type})) return *from_frame;
  auto ref = jvmti_.GetLocalInstance(thread_, depth_);
  if (!ref) return Fail("this: " + Describe(ref.error()));
  return ReferenceValue(*ref, type ? *type : expr::Type::Reference(scope_.location_class()));
} catch (...) {  // bad_alloc: this read fails, the program goes on
  jni_->ExceptionClear();
  return OutOfMemory();
}

// One JNI getter per primitive, instance or static.
#define JDWPX_FIELD_READ(PRIM, JniType, member)                                               \
  case expr::Prim::PRIM:                                                                      \
    value.prim.member = object ? jni_->Get##JniType##Field(static_cast<jobject>(object), id) \
                               : jni_->GetStatic##JniType##Field(holder, id);                 \
    break;

expr::Result<expr::Value> JniHeap::GetField(expr::Ref object, const expr::FieldInfo& field) try {
  auto id = reinterpret_cast<jfieldID>(field.handle);
  jclass holder = nullptr;
  if (field.is_static) {
    object = nullptr;
    holder = scope_.ClassRef(field.declaring_class);
    if (!holder) return Fail("class " + field.declaring_class + " is not loaded");
  } else if (!object) {
    return Fail("null dereference (a field of " + field.declaring_class + ")");
  }
  if (field.type.kind != expr::Type::Kind::kPrimitive) {
    jobject ref = object ? jni_->GetObjectField(static_cast<jobject>(object), id) : jni_->GetStaticObjectField(holder, id);
    if (jni_->ExceptionCheck()) return Fail(TakeException());
    return ReferenceValue(ref, field.type);
  }
  expr::Value value;
  value.type = field.type;
  switch (field.type.prim) {
    JDWPX_FIELD_READ(kBoolean, Boolean, z)
    JDWPX_FIELD_READ(kByte, Byte, i)
    JDWPX_FIELD_READ(kChar, Char, i)
    JDWPX_FIELD_READ(kShort, Short, i)
    JDWPX_FIELD_READ(kInt, Int, i)
    JDWPX_FIELD_READ(kLong, Long, j)
    JDWPX_FIELD_READ(kFloat, Float, f)
    JDWPX_FIELD_READ(kDouble, Double, d)
  }
  if (jni_->ExceptionCheck()) return Fail(TakeException());
  return value;
} catch (...) {  // bad_alloc: this read fails, the program goes on
  jni_->ExceptionClear();
  return OutOfMemory();
}
#undef JDWPX_FIELD_READ

expr::Result<int32_t> JniHeap::ArrayLength(expr::Ref array) try {
  if (!array) return Fail("null dereference (array length)");
  return jni_->GetArrayLength(static_cast<jarray>(array));
} catch (...) {  // bad_alloc: this read fails, the program goes on
  jni_->ExceptionClear();
  return OutOfMemory();
}

expr::Result<expr::Value> JniHeap::ArrayElement(expr::Ref array, int32_t index, const expr::Type& element) try {
  if (!array) return Fail("null dereference (array element)");
  jint length = jni_->GetArrayLength(static_cast<jarray>(array));
  if (index < 0 || index >= length)
    return Fail("index " + std::to_string(index) + " out of bounds for length " + std::to_string(length));
  if (element.kind != expr::Type::Kind::kPrimitive) {
    jobject ref = jni_->GetObjectArrayElement(static_cast<jobjectArray>(array), index);
    if (jni_->ExceptionCheck()) return Fail(TakeException());
    return ReferenceValue(ref, element);
  }
  expr::Value value;
  value.type = element;
  switch (element.prim) {
    case expr::Prim::kBoolean: {
      jboolean b = JNI_FALSE;
      jni_->GetBooleanArrayRegion(static_cast<jbooleanArray>(array), index, 1, &b);
      value.prim.z = b != JNI_FALSE;
      break;
    }
    case expr::Prim::kByte: {
      jbyte v = 0;
      jni_->GetByteArrayRegion(static_cast<jbyteArray>(array), index, 1, &v);
      value.prim.i = v;
      break;
    }
    case expr::Prim::kChar: {
      jchar v = 0;
      jni_->GetCharArrayRegion(static_cast<jcharArray>(array), index, 1, &v);
      value.prim.i = v;
      break;
    }
    case expr::Prim::kShort: {
      jshort v = 0;
      jni_->GetShortArrayRegion(static_cast<jshortArray>(array), index, 1, &v);
      value.prim.i = v;
      break;
    }
    case expr::Prim::kInt: {
      jint v = 0;
      jni_->GetIntArrayRegion(static_cast<jintArray>(array), index, 1, &v);
      value.prim.i = v;
      break;
    }
    case expr::Prim::kLong: {
      jlong v = 0;
      jni_->GetLongArrayRegion(static_cast<jlongArray>(array), index, 1, &v);
      value.prim.j = v;
      break;
    }
    case expr::Prim::kFloat: {
      jfloat v = 0;
      jni_->GetFloatArrayRegion(static_cast<jfloatArray>(array), index, 1, &v);
      value.prim.f = v;
      break;
    }
    case expr::Prim::kDouble: {
      jdouble v = 0;
      jni_->GetDoubleArrayRegion(static_cast<jdoubleArray>(array), index, 1, &v);
      value.prim.d = v;
      break;
    }
  }
  // A region read of the wrong array type raises an exception in JNI.
  if (jni_->ExceptionCheck()) return Fail(TakeException());
  return value;
} catch (...) {  // bad_alloc: this read fails, the program goes on
  jni_->ExceptionClear();
  return OutOfMemory();
}

expr::Result<std::u16string> JniHeap::StringText(expr::Ref string, size_t max_units) try {
  if (!string) return Fail("null dereference (string)");
  auto str = static_cast<jstring>(string);
  jsize length = jni_->GetStringLength(str);
  auto units = static_cast<jsize>(std::min<size_t>(static_cast<size_t>(length), max_units));
  std::u16string text(static_cast<size_t>(units), u'\0');
  if (units > 0) jni_->GetStringRegion(str, 0, units, reinterpret_cast<jchar*>(text.data()));
  if (jni_->ExceptionCheck()) return Fail(TakeException());
  return text;
} catch (...) {  // bad_alloc: this read fails, the program goes on
  jni_->ExceptionClear();
  return OutOfMemory();
}

std::string JniHeap::RuntimeClass(expr::Ref object) try {
  if (!object) return "null";
  vmcore::LocalRef klass(jni_, jni_->GetObjectClass(static_cast<jobject>(object)));
  auto signature = jvmti_.GetClassSignatureOnly(static_cast<jclass>(klass.get()));
  return signature ? JavaName(*signature) : std::string("<unknown class>");
} catch (...) {  // bad_alloc: this read fails, the program goes on
  jni_->ExceptionClear();
  return std::string();
}

bool JniHeap::IsBootClass(expr::Ref object) {
  if (!object) return false;
  vmcore::LocalRef klass(jni_, jni_->GetObjectClass(static_cast<jobject>(object)));
  auto loader = jvmti_.GetClassLoader(static_cast<jclass>(klass.get()));
  if (!loader) return false;
  if (*loader) jni_->DeleteLocalRef(*loader);
  return *loader == nullptr;
}

bool JniHeap::SameObject(expr::Ref a, expr::Ref b) {
  return jni_->IsSameObject(static_cast<jobject>(a), static_cast<jobject>(b)) == JNI_TRUE;
}

bool JniHeap::ClassIs(jclass klass, std::string_view java_name, int hops) {
  if (!klass || hops > 64) return false;  // 64: far deeper than any real hierarchy
  auto signature = jvmti_.GetClassSignatureOnly(klass);
  if (signature && JavaName(*signature) == java_name) return true;
  if (auto interfaces = jvmti_.GetImplementedInterfaces(klass)) {
    bool found = false;
    for (jclass interface : *interfaces) {
      if (!found) found = ClassIs(interface, java_name, hops + 1);
      jni_->DeleteLocalRef(interface);
    }
    if (found) return true;
  }
  vmcore::LocalRef super(jni_, jni_->GetSuperclass(klass));
  return ClassIs(static_cast<jclass>(super.get()), java_name, hops + 1);
}

bool JniHeap::InstanceOf(expr::Ref object, std::string_view class_name) try {
  if (!object) return false;
  auto obj = static_cast<jobject>(object);
  if (jclass target = scope_.ClassRef(class_name)) return jni_->IsInstanceOf(obj, target) == JNI_TRUE;
  // Not visible from the probe's place: the object's own hierarchy, by name.
  std::string runtime = RuntimeClass(object);
  auto key = std::make_pair(runtime, std::string(class_name));
  if (auto it = instance_of_.find(key); it != instance_of_.end()) return it->second;
  vmcore::LocalRef klass(jni_, jni_->GetObjectClass(obj));
  bool answer = ClassIs(static_cast<jclass>(klass.get()), class_name, 0);
  instance_of_.emplace(std::move(key), answer);
  return answer;
} catch (...) {  // bad_alloc: this read fails, the program goes on
  jni_->ExceptionClear();
  return false;
}

int32_t JniHeap::IdentityHash(expr::Ref object) {
  if (!object) return 0;
  auto hash = jvmti_.GetObjectHashCode(static_cast<jobject>(object));
  return hash ? *hash : 0;
}

expr::Result<expr::Ref> JniHeap::NewString(std::u16string_view text) try {
  jstring string = jni_->NewString(reinterpret_cast<const jchar*>(text.data()), static_cast<jsize>(text.size()));
  if (jni_->ExceptionCheck() || !string) return Fail(jni_->ExceptionCheck() ? TakeException() : "NewString failed");
  return static_cast<expr::Ref>(string);
} catch (...) {  // bad_alloc: this read fails, the program goes on
  jni_->ExceptionClear();
  return OutOfMemory();
}

std::string JniHeap::TakeException() {
  jthrowable thrown = jni_->ExceptionOccurred();
  jni_->ExceptionClear();  // the program never sees it
  if (!thrown) return "unknown error";
  std::string name = RuntimeClass(thrown);
  std::string message;
  // Throwable.getMessage of a JDK exception runs JDK code only.
  if (IsBootClass(thrown)) {
    vmcore::LocalRef klass(jni_, jni_->GetObjectClass(thrown));
    jmethodID get_message = jni_->GetMethodID(static_cast<jclass>(klass.get()), "getMessage", "()Ljava/lang/String;");
    jobject text = get_message ? jni_->CallObjectMethod(thrown, get_message) : nullptr;
    if (jni_->ExceptionCheck()) {
      jni_->ExceptionClear();
    } else if (text) {
      auto units = StringText(text, 200);
      if (units) message = ": " + expr::Utf8(*units);
      jni_->DeleteLocalRef(text);
    }
  }
  jni_->DeleteLocalRef(thrown);
  return name + message;
}

expr::Result<expr::Value> JniHeap::Call(const expr::MethodRef& method, expr::Ref receiver,
                                        std::span<const expr::Value> args, const expr::Type& result) try {
  std::string name(method.name);
  std::string signature(method.signature);
  std::string java_class(method.jni_class);
  std::replace(java_class.begin(), java_class.end(), '/', '.');
  jclass klass = nullptr;
  vmcore::LocalRef receiver_class(jni_, receiver ? jni_->GetObjectClass(static_cast<jobject>(receiver)) : nullptr);
  if (method.is_static) {
    klass = scope_.ClassRef(java_class);
    if (!klass) return Fail("class " + java_class + " is not loaded");
    // GetStaticMethodID would run the class's static initializer: a change.
    auto status = jvmti_.GetClassStatus(klass);
    if (!status || !(*status & JVMTI_CLASS_STATUS_INITIALIZED))
      return Fail("class " + java_class + " is not initialized yet");
  } else {
    if (!receiver) return Fail("null dereference (" + java_class + "." + name + ")");
    // The receiver's own class: its override, and no class lookup (nor loading).
    klass = static_cast<jclass>(receiver_class.get());
  }
  jmethodID id = method.is_static ? jni_->GetStaticMethodID(klass, name.c_str(), signature.c_str())
                                  : jni_->GetMethodID(klass, name.c_str(), signature.c_str());
  if (!id || jni_->ExceptionCheck()) {
    if (jni_->ExceptionCheck()) jni_->ExceptionClear();
    return Fail("no method " + java_class + "." + name + signature);
  }
  // Only the JDK's own code runs: a method the program's class declares (an
  // override of Map.get in its subclass) is refused, whatever expr checked.
  if (auto holder = jvmti_.GetMethodDeclaringClass(id)) {
    vmcore::LocalRef holder_ref(jni_, *holder);
    auto loader = jvmti_.GetClassLoader(*holder);
    if (!loader || *loader) {
      if (loader && *loader) jni_->DeleteLocalRef(*loader);
      return Fail(java_class + "." + name + " of this object is not the JDK's: not called");
    }
  } else {
    return Fail("no method " + java_class + "." + name + signature);
  }
  std::vector<jvalue> values(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const expr::Value& arg = args[i];
    jvalue& out = values[i];
    if (arg.type.kind == expr::Type::Kind::kPrimitive) {
      switch (arg.type.prim) {
        case expr::Prim::kBoolean: out.z = arg.prim.z ? JNI_TRUE : JNI_FALSE; break;
        case expr::Prim::kByte: out.b = static_cast<jbyte>(arg.prim.i); break;
        case expr::Prim::kChar: out.c = static_cast<jchar>(arg.prim.i); break;
        case expr::Prim::kShort: out.s = static_cast<jshort>(arg.prim.i); break;
        case expr::Prim::kInt: out.i = arg.prim.i; break;
        case expr::Prim::kLong: out.j = arg.prim.j; break;
        case expr::Prim::kFloat: out.f = arg.prim.f; break;
        case expr::Prim::kDouble: out.d = arg.prim.d; break;
      }
    } else if (arg.text) {
      auto made = NewString(*arg.text);
      if (!made) return tl::unexpected(made.error());
      out.l = static_cast<jobject>(*made);
    } else {
      out.l = static_cast<jobject>(arg.ref);
    }
  }
  auto object = static_cast<jobject>(receiver);
  const jvalue* argv = values.data();
  expr::Value value;
  value.type = result;
  switch (ReturnKind(signature)) {
    case 'Z': {
      jboolean r = method.is_static ? jni_->CallStaticBooleanMethodA(klass, id, argv) : jni_->CallBooleanMethodA(object, id, argv);
      value.prim.z = r != JNI_FALSE;
      break;
    }
    case 'B': value.prim.i = method.is_static ? jni_->CallStaticByteMethodA(klass, id, argv) : jni_->CallByteMethodA(object, id, argv); break;
    case 'C': value.prim.i = method.is_static ? jni_->CallStaticCharMethodA(klass, id, argv) : jni_->CallCharMethodA(object, id, argv); break;
    case 'S': value.prim.i = method.is_static ? jni_->CallStaticShortMethodA(klass, id, argv) : jni_->CallShortMethodA(object, id, argv); break;
    case 'I': value.prim.i = method.is_static ? jni_->CallStaticIntMethodA(klass, id, argv) : jni_->CallIntMethodA(object, id, argv); break;
    case 'J': value.prim.j = method.is_static ? jni_->CallStaticLongMethodA(klass, id, argv) : jni_->CallLongMethodA(object, id, argv); break;
    case 'F': value.prim.f = method.is_static ? jni_->CallStaticFloatMethodA(klass, id, argv) : jni_->CallFloatMethodA(object, id, argv); break;
    case 'D': value.prim.d = method.is_static ? jni_->CallStaticDoubleMethodA(klass, id, argv) : jni_->CallDoubleMethodA(object, id, argv); break;
    case 'V':
      if (method.is_static) jni_->CallStaticVoidMethodA(klass, id, argv);
      else jni_->CallVoidMethodA(object, id, argv);
      value = expr::Value{};
      break;
    default: {
      jobject r = method.is_static ? jni_->CallStaticObjectMethodA(klass, id, argv) : jni_->CallObjectMethodA(object, id, argv);
      if (!jni_->ExceptionCheck()) return ReferenceValue(r, result);
      break;
    }
  }
  if (jni_->ExceptionCheck()) return Fail(TakeException());
  return value;
} catch (...) {  // bad_alloc: this read fails, the program goes on
  jni_->ExceptionClear();
  return OutOfMemory();
}

}  // namespace jdwpx::backend::probes
