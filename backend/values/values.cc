#include "backend/values/values.h"

#include <sys/mman.h>

#include <cstdint>

#include <algorithm>
#include <array>
#include <new>
#include <type_traits>

#include "backend/errors.h"
#include "jdwp/codec.h"
#include "jdwp/byte_order.h"
#include "jdwp/packet.h"
#include "vmcore/refs.h"

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

jdwp::Value FromJValue(Context& ctx, JNIEnv* jni, const jvalue& value, char sig0) {
  switch (sig0) {
    case 'Z': return Value::Boolean(value.z != 0);
    case 'B': return Value::Byte(value.b);
    case 'C': return Value::Char(value.c);
    case 'S': return Value::Short(value.s);
    case 'I': return Value::Int(value.i);
    case 'J': return Value::Long(value.j);
    case 'F': return Value::Float(value.f);
    case 'D': return Value::Double(value.d);
    case 'L': case '[': return ctx.ObjectValue(jni, value.l);
    default: return Value::Void();
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

namespace {

// Elements are read through a small buffer, so a huge array is never copied
// whole anywhere but into the reply.
// Elements read per JNI call: a stack buffer of at most 8 KiB.
constexpr jint kChunkElements = 1024;

// Sizes a reply's buffer (huge for a long[10M] or a 50 MB string). Faulting in
// the fresh pages of 80 MB costs more than writing them: from 8 MB on the
// buffer asks for transparent huge pages (where the kernel gives them on
// madvise), 40 faults instead of 20,000. bad_alloc passes on.
template <class Buffer>
void ResizeReplyBuffer(Buffer& buffer, size_t size) {
  constexpr size_t kHugePagesFrom = size_t{8} << 20;
  constexpr uintptr_t kPage = 4096;
  buffer.reserve(size);
  if (size >= kHugePagesFrom) {
    const auto base = reinterpret_cast<uintptr_t>(buffer.data());
    const uintptr_t start = (base + kPage - 1) & ~(kPage - 1);
    if (base + size > start) (void)madvise(reinterpret_cast<void*>(start), base + size - start, MADV_HUGEPAGE);
  }
  buffer.resize(size);
}

template <class T, class ArrayT, class GetRegion>
void EncodePrimitives(JNIEnv* jni, ArrayT array, jint first, jint length, GetRegion get, uint8_t* out) {
  T buf[kChunkElements];
  for (jint done = 0; done < length;) {
    jint n = std::min(kChunkElements, length - done);
    (jni->*get)(array, first + done, n, buf);
    for (jint i = 0; i < n; ++i, out += sizeof(T)) jdwp::PutBigEndian(out, buf[i]);
    done += n;
  }
}

// The object tag of an instance of `klass` (s t g l c [ or L).
jdwp::Tag TagOfClass(Context& ctx, JNIEnv* jni, jclass klass) {
  if (jni->IsAssignableFrom(klass, ctx.string_class)) return Tag::kString;
  if (jni->IsAssignableFrom(klass, ctx.thread_class)) return Tag::kThread;
  if (jni->IsAssignableFrom(klass, ctx.thread_group_class)) return Tag::kThreadGroup;
  if (jni->IsAssignableFrom(klass, ctx.class_loader_class)) return Tag::kClassLoader;
  if (jni->IsAssignableFrom(klass, ctx.class_class)) return Tag::kClassObject;
  if (auto is_array = ctx.jvmti.IsArrayClass(klass); is_array && *is_array) return Tag::kArray;
  return Tag::kObject;
}

// False: a local frame could not be had (OutOfMemoryError pending).
bool EncodeObjects(Context& ctx, JNIEnv* jni, jobjectArray array, jint first, jint length, uint8_t* out) {
  // Elements are read in batches, so the object table looks their IDs up
  // together (ObjectTable::IdsOf); each batch's local references live in a
  // local frame of their own.
  constexpr jint kBatch = 256;
  std::array<jobject, kBatch> elements;
  std::array<jdwp::ObjectId, kBatch> ids;
  std::array<Tag, kBatch> tags;
  // Elements of one class usually come in runs: the tag of the last class is
  // kept (its reference in the outer frame, carried out of each batch's).
  // An instance of that class or of a subclass has its tag, unless the class
  // is java.lang.Object (every tag's classes are final or direct subclasses
  // of Object), and one JNI call (IsInstanceOf) tells, where GetObjectClass,
  // IsSameObject and DeleteLocalRef took three (each a VM transition).
  jclass kept_class = nullptr;
  Tag kept_tag = Tag::kObject;
  bool kept_narrow = false;  // kept_class is not java.lang.Object
  for (jint done = 0; done < length;) {
    const jint n = std::min(kBatch, length - done);
    if (jni->PushLocalFrame(n + 3) != JNI_OK) {
      if (kept_class) jni->DeleteLocalRef(kept_class);
      return false;
    }
    jclass last_class = kept_class;
    Tag last_tag = kept_tag;
    bool last_narrow = kept_narrow;
    for (jint i = 0; i < n; ++i) {
      jobject e = jni->GetObjectArrayElement(array, first + done + i);
      elements[i] = e;
      tags[i] = Tag::kObject;
      if (!e) continue;
      if (last_narrow && jni->IsInstanceOf(e, last_class)) {
        tags[i] = last_tag;
        continue;
      }
      jclass k = jni->GetObjectClass(e);
      if (last_class && jni->IsSameObject(k, last_class)) {
        jni->DeleteLocalRef(k);
      } else {
        if (last_class && last_class != kept_class) jni->DeleteLocalRef(last_class);
        last_class = k;
        last_tag = TagOfClass(ctx, jni, k);
        jclass super = jni->GetSuperclass(k);
        last_narrow = super != nullptr;
        if (super) jni->DeleteLocalRef(super);
      }
      tags[i] = last_tag;
    }
    ctx.objects.IdsOf(jni, elements.data(), static_cast<size_t>(n), ids.data());
    for (jint i = 0; i < n; ++i, out += 9) {
      out[0] = static_cast<uint8_t>(tags[i]);
      jdwp::PutBigEndian(out + 1, ids[i].value);
    }
    if (last_class != kept_class) {
      jobject carried = jni->PopLocalFrame(last_class);
      if (kept_class) jni->DeleteLocalRef(kept_class);
      kept_class = static_cast<jclass>(carried);
      kept_tag = last_tag;
      kept_narrow = last_narrow;
    } else {
      jni->PopLocalFrame(nullptr);
    }
    done += n;
  }
  if (kept_class) jni->DeleteLocalRef(kept_class);
  return true;
}

// The body of an ArrayReference.GetValues reply made in pieces while it is
// sent: the region's tag and count, then as many whole items as fit. It holds
// the array by a global reference of its own: a parked reply outlives the
// command's local frame (streamed_reply.h).
class ArrayRegionSource final : public ReplySource {
 public:
  ArrayRegionSource(ArrayRegionReader reader, vmcore::GlobalRef array)
      : reader_(std::move(reader)), array_(std::move(array)) {}
  size_t size() const override { return reader_.wire_size(); }
  bool Next(size_t room, std::vector<uint8_t>& out) override {
    if (!head_done_) {
      if (room < ArrayRegionReader::kHeadSize) return true;
      const size_t at = out.size();
      out.resize(at + ArrayRegionReader::kHeadSize);
      reader_.EncodeHead(out.data() + at);
      head_done_ = true;
      room -= ArrayRegionReader::kHeadSize;
    }
    const jint n = static_cast<jint>(std::min<size_t>(reader_.length() - done_, room / reader_.item_size()));
    if (n == 0) return true;
    const size_t at = out.size();
    out.resize(at + static_cast<size_t>(n) * reader_.item_size());
    if (!reader_.EncodeItems(done_, n, out.data() + at)) return false;
    done_ += n;
    return true;
  }

 private:
  ArrayRegionReader reader_;  // reads array_
  vmcore::GlobalRef array_;
  bool head_done_ = false;
  jint done_ = 0;  // items made
};

}  // namespace

jdwp::Result<ArrayRegionReader> ArrayRegionReader::Open(Context& ctx, JNIEnv* jni, jarray array, jint first,
                                                        jint length) {
  // Edges as stock: length -1 means "to the end"; `first` must name an element
  // (so any request on an empty array is INVALID_INDEX); 64-bit sums, so no
  // overflow slips through (stock crashes the VM on first + length > INT_MAX).
  const jint size = jni->GetArrayLength(array);
  if (first < 0 || first >= size) return jdwp::Fail(ErrorCode::kInvalidIndex, "first index out of range");
  if (length == -1) length = size - first;
  if (length < 0 || static_cast<int64_t>(first) + length > size) {
    return jdwp::Fail(ErrorCode::kInvalidLength, "length out of range");
  }
  jclass klass = jni->GetObjectClass(array);
  auto sig = ctx.jvmti.GetClassSignature(klass);
  jni->DeleteLocalRef(klass);
  if (!sig || sig->signature.size() < 2 || sig->signature[0] != '[') {
    return jdwp::Fail(ErrorCode::kInvalidArray, "not an array");
  }
  const char component = sig->signature[1];
  const bool objects = component == 'L' || component == '[';
  const size_t item_size = objects ? 9 : jdwp::TagDataSize(static_cast<Tag>(component));
  if (item_size == 0) return jdwp::Fail(ErrorCode::kInvalidArray, "unknown component type");
  if (kHeadSize + item_size * static_cast<size_t>(length) > kMaxReplyBody) {
    // Would not fit in one packet (a long[] of 300M elements); debuggers ask in slices.
    return jdwp::Fail(ErrorCode::kOutOfMemory, "array region larger than a packet can hold");
  }
  return ArrayRegionReader(ctx, jni, array, first, length, component, item_size);
}

void ArrayRegionReader::EncodeHead(uint8_t* out) const {
  out[0] = static_cast<uint8_t>(component_);
  jdwp::PutBigEndian(out + 1, static_cast<int32_t>(length_));
}

bool ArrayRegionReader::EncodeItems(jint from, jint count, uint8_t* out) {
  JNIEnv* jni = jni_;
  const jint first = first_ + from;
  bool complete = true;
  switch (component_) {
    case 'Z': EncodePrimitives<jboolean>(jni, static_cast<jbooleanArray>(array_), first, count, &JNIEnv::GetBooleanArrayRegion, out); break;
    case 'B': EncodePrimitives<jbyte>(jni, static_cast<jbyteArray>(array_), first, count, &JNIEnv::GetByteArrayRegion, out); break;
    case 'C': EncodePrimitives<jchar>(jni, static_cast<jcharArray>(array_), first, count, &JNIEnv::GetCharArrayRegion, out); break;
    case 'S': EncodePrimitives<jshort>(jni, static_cast<jshortArray>(array_), first, count, &JNIEnv::GetShortArrayRegion, out); break;
    case 'I': EncodePrimitives<jint>(jni, static_cast<jintArray>(array_), first, count, &JNIEnv::GetIntArrayRegion, out); break;
    case 'J': EncodePrimitives<jlong>(jni, static_cast<jlongArray>(array_), first, count, &JNIEnv::GetLongArrayRegion, out); break;
    case 'F': EncodePrimitives<jfloat>(jni, static_cast<jfloatArray>(array_), first, count, &JNIEnv::GetFloatArrayRegion, out); break;
    case 'D': EncodePrimitives<jdouble>(jni, static_cast<jdoubleArray>(array_), first, count, &JNIEnv::GetDoubleArrayRegion, out); break;
    default: complete = EncodeObjects(*ctx_, jni, static_cast<jobjectArray>(array_), first, count, out); break;
  }
  if (jni->ExceptionCheck()) {
    jni->ExceptionClear();
    return false;
  }
  return complete;
}

jdwp::Result<jdwp::ArrayRegion> ArrayRegionReader::ReadWhole() {
  // Built straight in wire form (see jdwp::ArrayRegion): the reply's bytes are
  // the only copy of the elements the agent makes.
  // Room for the reply's packet header first: the reply is the region alone,
  // and its packet is made in this buffer (jdwp::MakeReplyPacketIn).
  jdwp::ArrayRegion region;
  region.tag = static_cast<Tag>(component_);
  region.wire_offset = jdwp::kHeaderSize;
  std::vector<uint8_t>& wire = region.wire;
  try {
    ResizeReplyBuffer(wire, region.wire_offset + wire_size());
  } catch (const std::bad_alloc&) {
    return jdwp::Fail(ErrorCode::kOutOfMemory, "array region too large");
  }
  uint8_t* head = wire.data() + region.wire_offset;
  EncodeHead(head);
  if (!EncodeItems(0, length_, head + kHeadSize)) {
    return jdwp::Fail(ErrorCode::kInternal, "exception while reading the array");
  }
  return region;
}

std::unique_ptr<ReplySource> ArrayRegionReader::ReadInParts() && {
  vmcore::GlobalRef array(jni_, array_);
  array_ = static_cast<jarray>(array.get());
  return std::make_unique<ArrayRegionSource>(std::move(*this), std::move(array));
}

jdwp::Result<jdwp::ArrayRegion> ReadArray(Context& ctx, JNIEnv* jni, jarray array, jint first, jint length) {
  ASSIGN_OR_RETURN(ArrayRegionReader reader, ArrayRegionReader::Open(ctx, jni, array, first, length));
  return reader.ReadWhole();
}

namespace {

// Whether `loader` is `ancestor` or delegates to it through its `parent` chain
// (the boot loader, null, is everyone's). A field read: no Java code runs.
bool DelegatesTo(Context& ctx, JNIEnv* jni, jobject loader, jobject ancestor) {
  if (!ancestor) return true;
  jfieldID parent = jni->GetFieldID(ctx.class_loader_class, "parent", "Ljava/lang/ClassLoader;");
  if (!parent) {
    jni->ExceptionClear();
    return false;
  }
  jobject l = loader ? jni->NewLocalRef(loader) : nullptr;
  bool found = false;
  for (int depth = 0; l && !found && depth < 64; ++depth) {
    found = jni->IsSameObject(l, ancestor);
    jobject next = jni->GetObjectField(l, parent);
    jni->DeleteLocalRef(l);
    l = next;
  }
  if (l) jni->DeleteLocalRef(l);
  return found;
}

// Whether code of `context` resolving the type `signature` gets `k` (a class of
// that name), as the JVM would, with no Java code run: same defining loader;
// else the class of that name the context's loader has loaded, if any (JVMTI
// GetClassLoaderClasses, JDI's "visible classes"); else `k` if the context's
// loader delegates to `k`'s (parent first, as loaders do by default).
bool ResolvesTo(Context& ctx, JNIEnv* jni, jclass k, std::string_view signature, jclass context) {
  auto k_loader = ctx.jvmti.GetClassLoader(k);
  auto context_loader = ctx.jvmti.GetClassLoader(context);
  if (!k_loader || !context_loader) return false;
  vmcore::LocalRef hold_k(jni, *k_loader), hold_context(jni, *context_loader);
  if (jni->IsSameObject(*k_loader, *context_loader)) return true;
  // Only the boot loader defines java.* classes: everyone resolves them there.
  if (!*k_loader && signature.starts_with("Ljava/")) return true;
  if (auto visible = ctx.jvmti.GetClassLoaderClasses(*context_loader)) {
    int listed = -1;  // -1: not listed; 0: another class of that name; 1: k
    for (jclass v : *visible) {
      if (listed < 0) {
        auto sig = ctx.jvmti.GetClassSignatureOnly(v);
        if (sig && *sig == signature) listed = jni->IsSameObject(v, k) ? 1 : 0;
      }
      jni->DeleteLocalRef(v);
    }
    if (listed >= 0) return listed == 1;
  }
  return DelegatesTo(ctx, jni, *context_loader, *k_loader);
}

// Supertypes of `klass` (itself included) whose signature is `signature` and
// that `context` resolves that name to; interfaces are walked recursively.
// `klass` is not deleted.
bool HasSupertype(Context& ctx, JNIEnv* jni, jclass klass, std::string_view signature, jclass context, int depth = 0) {
  if (depth > 64) return false;  // no hierarchy is this deep; guards a cycle we cannot have
  jclass k = static_cast<jclass>(jni->NewLocalRef(klass));
  while (k) {
    auto sig = ctx.jvmti.GetClassSignatureOnly(k);
    if (sig && *sig == signature && ResolvesTo(ctx, jni, k, signature, context)) {
      jni->DeleteLocalRef(k);
      return true;
    }
    bool found = false;
    if (auto interfaces = ctx.jvmti.GetImplementedInterfaces(k)) {
      for (jclass i : *interfaces) {
        if (!found && HasSupertype(ctx, jni, i, signature, context, depth + 1)) found = true;
        jni->DeleteLocalRef(i);
      }
    }
    if (found) {
      jni->DeleteLocalRef(k);
      return true;
    }
    jclass super = jni->GetSuperclass(k);
    jni->DeleteLocalRef(k);
    k = super;
  }
  return false;
}

bool IsPrimitiveSignature(std::string_view sig) { return !sig.empty() && sig[0] != 'L' && sig[0] != '['; }

// Array covariance over signatures; `klass` is the class of the value.
bool ClassFitsSignature(Context& ctx, JNIEnv* jni, jclass klass, std::string_view signature, jclass context,
                        int depth = 0) {
  if (signature == "Ljava/lang/Object;") return true;
  auto own = ctx.jvmti.GetClassSignatureOnly(klass);
  if (!own) return false;
  if ((*own)[0] != '[') return HasSupertype(ctx, jni, klass, signature, context);
  // An array: Object, Cloneable, Serializable, or an array of a supertype of its component.
  if (signature == "Ljava/lang/Cloneable;" || signature == "Ljava/io/Serializable;") return true;
  if (signature[0] != '[' || depth > 255) return false;
  std::string_view own_component = std::string_view(*own).substr(1);
  std::string_view wanted_component = signature.substr(1);
  if (IsPrimitiveSignature(own_component) || IsPrimitiveSignature(wanted_component)) return own_component == wanted_component;
  // The component class: Class.getComponentType is an intrinsic that takes no lock.
  jmethodID get_component = jni->GetMethodID(ctx.class_class, "getComponentType", "()Ljava/lang/Class;");
  if (!get_component) {
    jni->ExceptionClear();
    return false;
  }
  auto component = static_cast<jclass>(jni->CallObjectMethod(klass, get_component));
  if (jni->ExceptionCheck()) jni->ExceptionClear();
  if (!component) return false;
  bool fits = ClassFitsSignature(ctx, jni, component, wanted_component, context, depth + 1);
  jni->DeleteLocalRef(component);
  return fits;
}

}  // namespace

bool IsAssignableToSignature(Context& ctx, JNIEnv* jni, jobject value, std::string_view signature, jclass context) {
  if (!value) return true;
  jclass k = jni->GetObjectClass(value);
  bool fits = ClassFitsSignature(ctx, jni, k, signature, context);
  jni->DeleteLocalRef(k);
  return fits;
}

jdwp::Tag TagOfSignature(char sig0) {
  if (sig0 == '[') return Tag::kArray;
  if (sig0 == 'L') return Tag::kObject;
  return static_cast<Tag>(sig0);
}

jdwp::Result<void> WriteField(Context& ctx, JNIEnv* jni, jobject obj, jclass klass, jfieldID f,
                              std::string_view signature, const jdwp::UntaggedValue& v) {
  const bool s = obj == nullptr;
  const char sig0 = signature.empty() ? 'V' : signature[0];
  switch (sig0) {
#define JDWPX_SET(Type, expr)                    \
  if (s) jni->SetStatic##Type##Field(klass, f, expr); \
  else jni->Set##Type##Field(obj, f, expr);      \
  break;
    case 'Z': JDWPX_SET(Boolean, static_cast<jboolean>(v.bits != 0))
    case 'B': JDWPX_SET(Byte, static_cast<jbyte>(v.bits))
    case 'C': JDWPX_SET(Char, static_cast<jchar>(v.bits))
    case 'S': JDWPX_SET(Short, static_cast<jshort>(v.bits))
    case 'I': JDWPX_SET(Int, static_cast<jint>(v.bits))
    case 'J': JDWPX_SET(Long, static_cast<jlong>(v.bits))
    case 'F': JDWPX_SET(Float, (Value{Tag::kFloat, v.bits}.as_float()))
    case 'D': JDWPX_SET(Double, (Value{Tag::kDouble, v.bits}.as_double()))
    case 'L':
    case '[': {
      ASSIGN_OR_RETURN(jobject value, ctx.Object(jni, jdwp::ObjectId{v.bits}));
      // JNI stores whatever it is given: a wrong type would corrupt the heap.
      if (!IsAssignableToSignature(ctx, jni, value, signature, klass)) {
        if (value) jni->DeleteLocalRef(value);
        return jdwp::Fail(ErrorCode::kTypeMismatch, "value does not fit the field's type");
      }
      if (s) jni->SetStaticObjectField(klass, f, value);
      else jni->SetObjectField(obj, f, value);
      if (value) jni->DeleteLocalRef(value);
      break;
    }
#undef JDWPX_SET
    default:
      return jdwp::Fail(ErrorCode::kInvalidFieldid, "field of unknown type");
  }
  if (jni->ExceptionCheck()) {
    jni->ExceptionClear();
    return jdwp::Fail(ErrorCode::kInternal, "exception while setting a field");
  }
  return {};
}

namespace {

// Decodes up to a chunk of elements at a time and stores what was decoded, so a
// body cut short leaves the whole elements before the cut written (as stock,
// which stores element by element). False: the body was cut short.
template <class T, class ArrayT, class SetRegion, class Convert>
bool StorePrimitives(JNIEnv* jni, jdwp::Reader& r, Tag tag, ArrayT array, jint first, jint count, SetRegion set,
                     Convert convert) {
  T buf[kChunkElements];
  for (jint done = 0; done < count;) {
    const jint n = std::min(kChunkElements, count - done);
    jint decoded = 0;
    jdwp::UntaggedValue v;
    while (decoded < n && jdwp::DecodeUntagged(r, tag, v)) buf[decoded++] = convert(v.bits);
    if (decoded > 0) (jni->*set)(array, first + done, decoded, buf);
    if (decoded < n) return false;
    done += n;
  }
  return true;
}

}  // namespace

jdwp::Result<void> WriteArray(Context& ctx, JNIEnv* jni, jarray array, jint first, std::span<const uint8_t> tail) {
  // As stock: the count and the range are checked before any value is read,
  // then values are stored in order; the elements before a bad one stay stored.
  jdwp::Reader r(tail);
  uint32_t raw_count = 0;
  if (!r.U32(raw_count)) return jdwp::Fail(ErrorCode::kInternal, "value count missing");
  const auto count = static_cast<jint>(raw_count);
  const jint size = jni->GetArrayLength(array);
  if (first < 0 || first >= size) return jdwp::Fail(ErrorCode::kInvalidIndex, "first index out of range");
  if (count < 0 || static_cast<int64_t>(first) + count > size) {
    return jdwp::Fail(ErrorCode::kInvalidLength, "values run past the end");
  }
  jclass klass = jni->GetObjectClass(array);
  auto sig = ctx.jvmti.GetClassSignatureOnly(klass);
  jni->DeleteLocalRef(klass);
  if (!sig || sig->size() < 2 || (*sig)[0] != '[') return jdwp::Fail(ErrorCode::kInvalidArray, "not an array");
  const char component = (*sig)[1];
  const Tag tag = TagOfSignature(component);
  auto as_float = [](uint64_t b) { return Value{Tag::kFloat, b}.as_float(); };
  auto as_double = [](uint64_t b) { return Value{Tag::kDouble, b}.as_double(); };
  bool complete = true;
  switch (component) {
    case 'Z': complete = StorePrimitives<jboolean>(jni, r, tag, static_cast<jbooleanArray>(array), first, count, &JNIEnv::SetBooleanArrayRegion, [](uint64_t b) { return static_cast<jboolean>(b != 0); }); break;
    case 'B': complete = StorePrimitives<jbyte>(jni, r, tag, static_cast<jbyteArray>(array), first, count, &JNIEnv::SetByteArrayRegion, [](uint64_t b) { return static_cast<jbyte>(b); }); break;
    case 'C': complete = StorePrimitives<jchar>(jni, r, tag, static_cast<jcharArray>(array), first, count, &JNIEnv::SetCharArrayRegion, [](uint64_t b) { return static_cast<jchar>(b); }); break;
    case 'S': complete = StorePrimitives<jshort>(jni, r, tag, static_cast<jshortArray>(array), first, count, &JNIEnv::SetShortArrayRegion, [](uint64_t b) { return static_cast<jshort>(b); }); break;
    case 'I': complete = StorePrimitives<jint>(jni, r, tag, static_cast<jintArray>(array), first, count, &JNIEnv::SetIntArrayRegion, [](uint64_t b) { return static_cast<jint>(b); }); break;
    case 'J': complete = StorePrimitives<jlong>(jni, r, tag, static_cast<jlongArray>(array), first, count, &JNIEnv::SetLongArrayRegion, [](uint64_t b) { return static_cast<jlong>(b); }); break;
    case 'F': complete = StorePrimitives<jfloat>(jni, r, tag, static_cast<jfloatArray>(array), first, count, &JNIEnv::SetFloatArrayRegion, as_float); break;
    case 'D': complete = StorePrimitives<jdouble>(jni, r, tag, static_cast<jdoubleArray>(array), first, count, &JNIEnv::SetDoubleArrayRegion, as_double); break;
    default: {
      // One by one, as stock. The VM checks each element's type
      // (ArrayStoreException -> TYPE_MISMATCH). From an unknown object ID or
      // the cut of a short body on, stock stores null into every remaining
      // element of the range and then answers the error; so does this.
      auto objects = static_cast<jobjectArray>(array);
      jdwp::Result<void> failed;
      for (jint i = 0; i < count; ++i) {
        jobject e = nullptr;
        if (failed) {
          jdwp::UntaggedValue v;
          if (!jdwp::DecodeUntagged(r, tag, v)) {
            failed = jdwp::Fail(ErrorCode::kInternal, "array values cut short");
          } else if (auto known = ctx.Object(jni, jdwp::ObjectId{v.bits})) {
            e = *known;
          } else {
            failed = tl::unexpected(known.error());
          }
        }
        jni->SetObjectArrayElement(objects, first + i, e);
        if (e) jni->DeleteLocalRef(e);
        if (jni->ExceptionCheck()) {
          jni->ExceptionClear();
          return jdwp::Fail(ErrorCode::kTypeMismatch, "element does not fit the array's component type");
        }
      }
      return failed;
    }
  }
  if (jni->ExceptionCheck()) {
    jni->ExceptionClear();
    return jdwp::Fail(ErrorCode::kInternal, "exception while storing array elements");
  }
  if (!complete) return jdwp::Fail(ErrorCode::kInternal, "array values cut short");
  return {};
}

std::vector<std::string> ParameterSignatures(const std::string& sig) {
  std::vector<std::string> out;
  size_t i = 1;
  while (i < sig.size() && sig[i] != ')') {
    size_t start = i;
    while (i < sig.size() && sig[i] == '[') ++i;
    if (i < sig.size() && sig[i] == 'L') {
      while (i < sig.size() && sig[i] != ';') ++i;
    }
    ++i;
    out.push_back(sig.substr(start, i - start));
  }
  return out;
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
