// Reading and converting Java values between JNI/JVMTI and the wire.
#pragma once

#include <jni.h>

#include <string>

#include "backend/context.h"
#include "jdwp/types.h"

namespace jdwpx::backend {

// The value of a field; `obj` is null for a static field.
jdwp::Value ReadField(Context& ctx, JNIEnv* jni, jobject obj, jclass klass, jfieldID field, char sig0);
// The value in a local slot of a frame, read as `tag` says.
jdwp::Result<jdwp::Value> ReadLocal(Context& ctx, JNIEnv* jni, jthread thread, jint depth, jint slot, jdwp::Tag tag);
// A wire value as a JNI argument for a parameter whose signature starts with sig0.
jdwp::Result<jvalue> ToJValue(Context& ctx, JNIEnv* jni, const jdwp::Value& value, char sig0);
// Elements [first, first+length) of an array (length -1: to the end) as a region
// in wire form (jdwp::ArrayRegion::wire), with stock's INVALID_INDEX / INVALID_LENGTH edges.
jdwp::Result<jdwp::ArrayRegion> ReadArray(Context& ctx, JNIEnv* jni, jarray array, jint first, jint length);
// A string's value as the wire's UTF-8, byte for byte as stock sends it by default.
jdwp::Result<std::string> ReadString(JNIEnv* jni, jstring s);
// Parameter signature characters of a method signature "(I[JLjava/lang/String;)V" -> "I[L", and the return char.
std::string ParameterKinds(const std::string& signature, char* return_kind);

}  // namespace jdwpx::backend
