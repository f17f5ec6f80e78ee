// Reading and converting Java values between JNI/JVMTI and the wire.
#pragma once

#include <jni.h>

#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "backend/context.h"
#include "backend/values/reply_source.h"
#include "jdwp/types.h"

namespace jdwpx::backend {

// The value of a field; `obj` is null for a static field.
jdwp::Value ReadField(Context& ctx, JNIEnv* jni, jobject obj, jclass klass, jfieldID field, char sig0);
// The value in a local slot of a frame, read as `tag` says.
jdwp::Result<jdwp::Value> ReadLocal(Context& ctx, JNIEnv* jni, jthread thread, jint depth, jint slot, jdwp::Tag tag);
// A JNI value of a type whose signature starts with sig0 as a wire value ('V' or unknown: void).
jdwp::Value FromJValue(Context& ctx, JNIEnv* jni, const jvalue& value, char sig0);
// A wire value as a JNI argument for a parameter whose signature starts with sig0.
jdwp::Result<jvalue> ToJValue(Context& ctx, JNIEnv* jni, const jdwp::Value& value, char sig0);
// Elements [first, first+length) of an array (length -1: to the end), checked
// with stock's INVALID_INDEX / INVALID_LENGTH / INVALID_ARRAY edges before a
// byte is made, then read in wire form (tag, count, items), whole or in parts.
// Holds `array` (a local reference), `ctx` and `jni` as given; a source from
// ReadInParts holds a global reference of the array (it may outlive the
// local one).
class ArrayRegionReader {
 public:
  static constexpr size_t kHeadSize = 5;  // the region's tag and count
  static jdwp::Result<ArrayRegionReader> Open(Context& ctx, JNIEnv* jni, jarray array, jint first, jint length);

  // The region in wire form, in bytes.
  size_t wire_size() const { return kHeadSize + item_size_ * static_cast<size_t>(length_); }
  jint length() const { return length_; }
  size_t item_size() const { return item_size_; }

  // The whole region (jdwp::ArrayRegion::wire), after room for a reply header.
  jdwp::Result<jdwp::ArrayRegion> ReadWhole();
  // The region as a reply body made in pieces while it is sent (a huge array).
  std::unique_ptr<ReplySource> ReadInParts() &&;

  // The region's tag and count: kHeadSize bytes.
  void EncodeHead(uint8_t* out) const;
  // Items [from, from + count) of the region: count * item_size() bytes. False:
  // the VM failed (out of memory: a pending exception, cleared).
  [[nodiscard]] bool EncodeItems(jint from, jint count, uint8_t* out);

 private:
  ArrayRegionReader(Context& ctx, JNIEnv* jni, jarray array, jint first, jint length, char component, size_t item_size)
      : ctx_(&ctx), jni_(jni), array_(array), first_(first), length_(length), component_(component), item_size_(item_size) {}
  Context* ctx_;
  JNIEnv* jni_;
  jarray array_;
  jint first_;
  jint length_;
  char component_;
  size_t item_size_;
};

// ArrayRegionReader::Open, then ReadWhole.
jdwp::Result<jdwp::ArrayRegion> ReadArray(Context& ctx, JNIEnv* jni, jarray array, jint first, jint length);
// Whether `value` (null fits) may be stored where type `signature` is expected
// ("Ljava/lang/Runnable;", "[I") in code of class `context` (a method's or a
// field's declaring class): a widening reference conversion to the class that
// name denotes in `context`'s class loader, as the JVM would resolve it; two
// classes of one name from two loaders are two types. No Java code runs.
bool IsAssignableToSignature(Context& ctx, JNIEnv* jni, jobject value, std::string_view signature, jclass context);
// The tag of a value of a type whose signature starts with sig0 (how its untagged form is read).
jdwp::Tag TagOfSignature(char sig0);
// Stores an untagged wire value into a field (`obj` null: a static field of
// `klass`). An object ID must be known (INVALID_OBJECT) and its object must fit
// the field's type (TYPE_MISMATCH).
jdwp::Result<void> WriteField(Context& ctx, JNIEnv* jni, jobject obj, jclass klass, jfieldID field,
                              std::string_view signature, const jdwp::UntaggedValue& value);
// ArrayReference.SetValues: `tail` is `repeat int values { untagged-value }` of
// the array's component type, stored from `first`, with stock's edges.
jdwp::Result<void> WriteArray(Context& ctx, JNIEnv* jni, jarray array, jint first, std::span<const uint8_t> tail);
// Parameter signatures of a method signature: "(I[JLjava/lang/String;)V" -> {"I", "[J", "Ljava/lang/String;"}.
std::vector<std::string> ParameterSignatures(const std::string& signature);
// Parameter signature characters of a method signature "(I[JLjava/lang/String;)V" -> "I[L", and the return char.
std::string ParameterKinds(const std::string& signature, char* return_kind);

}  // namespace jdwpx::backend
