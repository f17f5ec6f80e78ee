// The methods a probe may call: one table (allowed_methods.cc), as data. Each
// is either evaluated natively (String's methods on the UTF-16 text, boxed
// values' `value` field, getClass().getName() from the object's class name) or
// called through Heap::Call on a JDK collection class known to run no
// application code and never to block.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "expr/expr.h"

namespace jdwpx::expr {

// What a method is called on, statically.
enum class ReceiverKind : uint8_t {
  kString,      // java.lang.String
  kBoxed,       // java.lang.Integer, ... (the primitive's wrapper)
  kNumberBox,   // the numeric wrappers only (Byte, Short, Integer, Long, Float, Double)
  kCollection,  // java.util.Collection and its subtypes
  kMap,         // java.util.Map and its subtypes
  kAnyObject,   // getClass()
  kClassOf,     // the result of getClass()
};

// An argument's static type, as the method declares it.
enum class ArgKind : uint8_t { kInt, kString, kObject, kCharOrInt };

enum class Operation : uint8_t {
  kStringLength, kStringIsEmpty, kStringCharAt, kStringEquals, kStringStartsWith, kStringEndsWith,
  kStringContains, kStringIndexOfString, kStringIndexOfChar, kStringSubstring, kStringSubstringRange,
  kBoxedValue, kBoxedEquals,
  kCollectionSize, kCollectionIsEmpty, kMapSize, kMapIsEmpty, kMapGet, kMapContainsKey,
  kGetClass, kClassGetName, kClassGetSimpleName,
};

struct AllowedMethod {
  ReceiverKind receiver;
  std::string_view name;
  std::span<const ArgKind> args;
  Operation operation;
  // The result's Java type; empty for kBoxedValue (named by the method) and
  // kGetClass (a marker type only getName may follow).
  std::string_view result;
  MethodRef jni;  // for the methods called through Heap::Call
};

// The whole table (overloads are rows of their own: the checker picks by argument type).
std::span<const AllowedMethod> AllowedMethods();

// Whether a receiver of this run-time class may have its allow-listed
// Collection/Map method called: a boot class from the fixed list of JDK
// collections whose size/isEmpty/get/containsKey run no application code and
// never block.
bool IsSafeJdkCollection(std::string_view runtime_class);

// The unmodifiable wrappers delegate to the collection they wrap, which must
// be checked in turn; TreeMap's get/containsKey run its comparator, if any.
inline constexpr std::string_view kUnmodifiablePrefix = "java.util.Collections$Unmodifiable";
inline constexpr std::string_view kUnmodifiableCollection = "java.util.Collections$UnmodifiableCollection";
inline constexpr std::string_view kUnmodifiableMap = "java.util.Collections$UnmodifiableMap";
inline constexpr std::string_view kTreeMap = "java.util.TreeMap";
// How many wrappers deep a receiver is followed.
inline constexpr int kMaxWrappers = 4;

// The wrapper class of a primitive ("java.lang.Integer") and back.
std::string_view BoxName(Prim prim);
std::optional<Prim> UnboxedPrim(std::string_view class_name);
// The JNI name and signature of the wrapper's static valueOf, for boxing a Map key.
MethodRef ValueOfMethod(Prim prim);

// The marker type of `x.getClass()`: a java.lang.Class whose only use is getName/getSimpleName.
inline constexpr std::string_view kClassOfType = "java.lang.Class";

}  // namespace jdwpx::expr
