#include "backend/values.h"

#include "backend/errors.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;
using jdwp::Tag;
using jdwp::Value;

jdwp::Value ReadField(Context& ctx, JNIEnv* jni, jobject obj, jclass klass, jfieldID f, char sig0) {
  bool s = obj == nullptr;
  switch (sig0) {
    case 'Z': return Value::Boolean(s ? jni->GetStaticBooleanField(klass, f) : jni->GetBooleanField(obj, f));
    case 'B': return Value::Byte(s ? jni->GetStaticByteField(klass, f) : jni->GetByteField(obj, f));
    case 'C': return Value::Char(s ? jni->GetStaticCharField(klass, f) : jni->GetCharField(obj, f));
    case 'S': return Value::Short(s ? jni->GetStaticShortField(klass, f) : jni->GetShortField(obj, f));
    case 'I': return Value::Int(s ? jni->GetStaticIntField(klass, f) : jni->GetIntField(obj, f));
    case 'J': return Value::Long(s ? jni->GetStaticLongField(klass, f) : jni->GetLongField(obj, f));
    case 'F': return Value::Float(s ? jni->GetStaticFloatField(klass, f) : jni->GetFloatField(obj, f));
    case 'D': return Value::Double(s ? jni->GetStaticDoubleField(klass, f) : jni->GetDoubleField(obj, f));
    default: {
      jobject v = s ? jni->GetStaticObjectField(klass, f) : jni->GetObjectField(obj, f);
      Value out = ctx.ObjectValue(jni, v);
      if (v) jni->DeleteLocalRef(v);
      return out;
    }
  }
}

jdwp::Result<jdwp::Value> ReadLocal(Context& ctx, JNIEnv* jni, jthread thread, jint depth, jint slot, Tag tag) {
  auto& j = ctx.jvmti;
  switch (tag) {
    case Tag::kBoolean: { VM_ASSIGN_OR_RETURN(jint v, j.GetLocalInt(thread, depth, slot)); return Value::Boolean(v != 0); }
    case Tag::kByte: { VM_ASSIGN_OR_RETURN(jint v, j.GetLocalInt(thread, depth, slot)); return Value::Byte(static_cast<int8_t>(v)); }
    case Tag::kChar: { VM_ASSIGN_OR_RETURN(jint v, j.GetLocalInt(thread, depth, slot)); return Value::Char(static_cast<uint16_t>(v)); }
    case Tag::kShort: { VM_ASSIGN_OR_RETURN(jint v, j.GetLocalInt(thread, depth, slot)); return Value::Short(static_cast<int16_t>(v)); }
    case Tag::kInt: { VM_ASSIGN_OR_RETURN(jint v, j.GetLocalInt(thread, depth, slot)); return Value::Int(v); }
    case Tag::kLong: { VM_ASSIGN_OR_RETURN(jlong v, j.GetLocalLong(thread, depth, slot)); return Value::Long(v); }
    case Tag::kFloat: { VM_ASSIGN_OR_RETURN(jfloat v, j.GetLocalFloat(thread, depth, slot)); return Value::Float(v); }
    case Tag::kDouble: { VM_ASSIGN_OR_RETURN(jdouble v, j.GetLocalDouble(thread, depth, slot)); return Value::Double(v); }
    case Tag::kObject: case Tag::kArray: case Tag::kString: case Tag::kThread: case Tag::kThreadGroup:
    case Tag::kClassLoader: case Tag::kClassObject: {
      VM_ASSIGN_OR_RETURN(jobject v, j.GetLocalObject(thread, depth, slot));
      Value out = ctx.ObjectValue(jni, v);
      if (v) jni->DeleteLocalRef(v);
      return out;
    }
    default:
      return jdwp::Fail(ErrorCode::kInvalidTag, "bad slot tag");
  }
}

jdwp::Result<jvalue> ToJValue(Context& ctx, JNIEnv* jni, const jdwp::Value& v, char sig0) {
  jvalue out{};
  auto want = [&](Tag t) -> jdwp::Result<void> {
    if (v.tag != t) return jdwp::Fail(ErrorCode::kTypeMismatch, "argument type mismatch");
    return {};
  };
  switch (sig0) {
    case 'Z': RETURN_IF_ERROR(want(Tag::kBoolean)); out.z = v.bits != 0; return out;
    case 'B': RETURN_IF_ERROR(want(Tag::kByte)); out.b = static_cast<jbyte>(v.bits); return out;
    case 'C': RETURN_IF_ERROR(want(Tag::kChar)); out.c = static_cast<jchar>(v.bits); return out;
    case 'S': RETURN_IF_ERROR(want(Tag::kShort)); out.s = static_cast<jshort>(v.bits); return out;
    case 'I': RETURN_IF_ERROR(want(Tag::kInt)); out.i = v.as_int(); return out;
    case 'J': RETURN_IF_ERROR(want(Tag::kLong)); out.j = v.as_long(); return out;
    case 'F': RETURN_IF_ERROR(want(Tag::kFloat)); out.f = v.as_float(); return out;
    case 'D': RETURN_IF_ERROR(want(Tag::kDouble)); out.d = v.as_double(); return out;
    default: {
      if (!jdwp::IsObjectTag(v.tag)) return jdwp::Fail(ErrorCode::kTypeMismatch, "object expected");
      ASSIGN_OR_RETURN(out.l, ctx.Object(jni, v.object()));
      return out;
    }
  }
}

jdwp::Result<jdwp::ArrayRegion> ReadArray(Context& ctx, JNIEnv* jni, jarray array, jint first, jint length) {
  jint size = jni->GetArrayLength(array);
  if (first < 0 || first > size) return jdwp::Fail(ErrorCode::kInvalidIndex, "first index out of range");
  if (length == -1) length = size - first;
  if (length < 0 || first + static_cast<int64_t>(length) > size) return jdwp::Fail(ErrorCode::kInvalidLength, "length out of range");
  jclass klass = jni->GetObjectClass(array);
  auto sig = ctx.jvmti.GetClassSignature(klass);
  jni->DeleteLocalRef(klass);
  if (!sig || sig->signature.size() < 2) return jdwp::Fail(ErrorCode::kInvalidArray, "not an array");
  char c = sig->signature[1];
  jdwp::ArrayRegion region;
  region.tag = static_cast<Tag>(c == 'L' ? 'L' : c);
  region.values.reserve(static_cast<size_t>(length));
  switch (c) {
#define JDWPX_PRIM(ch, jt, Name, Make)                                         \
  case ch: {                                                                  \
    std::vector<jt> buf(static_cast<size_t>(length));                         \
    jni->Get##Name##ArrayRegion(static_cast<jt##Array>(array), first, length, buf.data()); \
    for (jt x : buf) region.values.push_back(Make(x));                        \
    return region;                                                            \
  }
    JDWPX_PRIM('Z', jboolean, Boolean, [](jboolean x) { return Value::Boolean(x != 0); })
    JDWPX_PRIM('B', jbyte, Byte, Value::Byte)
    JDWPX_PRIM('C', jchar, Char, Value::Char)
    JDWPX_PRIM('S', jshort, Short, Value::Short)
    JDWPX_PRIM('I', jint, Int, Value::Int)
    JDWPX_PRIM('J', jlong, Long, Value::Long)
    JDWPX_PRIM('F', jfloat, Float, Value::Float)
    JDWPX_PRIM('D', jdouble, Double, Value::Double)
#undef JDWPX_PRIM
    default: {
      auto objects = static_cast<jobjectArray>(array);
      for (jint i = 0; i < length; ++i) {
        jobject e = jni->GetObjectArrayElement(objects, first + i);
        region.values.push_back(ctx.ObjectValue(jni, e));
        if (e) jni->DeleteLocalRef(e);
      }
      return region;
    }
  }
}

std::string ParameterKinds(const std::string& sig, char* return_kind) {
  std::string kinds;
  size_t i = 1;
  while (i < sig.size() && sig[i] != ')') {
    char c = sig[i];
    size_t start = i;
    while (i < sig.size() && sig[i] == '[') ++i;
    if (i < sig.size() && sig[i] == 'L') {
      while (i < sig.size() && sig[i] != ';') ++i;
    }
    ++i;
    kinds.push_back(sig[start] == '[' ? '[' : c);
  }
  if (return_kind) *return_kind = i + 1 < sig.size() ? sig[i + 1] : 'V';
  return kinds;
}

}  // namespace jdwpx::backend
