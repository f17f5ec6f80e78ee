#include "expr/allowed_methods.h"

#include <array>

namespace jdwpx::expr {
namespace {

constexpr std::array<ArgKind, 0> kNone{};
constexpr std::array<ArgKind, 1> kInt{ArgKind::kInt};
constexpr std::array<ArgKind, 2> kIntInt{ArgKind::kInt, ArgKind::kInt};
constexpr std::array<ArgKind, 1> kString{ArgKind::kString};
constexpr std::array<ArgKind, 1> kCharOrInt{ArgKind::kCharOrInt};
constexpr std::array<ArgKind, 1> kObject{ArgKind::kObject};

// The allow-list. docs/probes.md ("The expression language") lists it for users.
//
// Evaluated natively, no Java code runs:
//   String: length() isEmpty() charAt(int) equals(Object) startsWith(String)
//           endsWith(String) contains(CharSequence: a String) indexOf(String)
//           indexOf(int ch) substring(int) substring(int, int)
//   Boolean, Character, Byte, Short, Integer, Long, Float, Double: equals(Object),
//           booleanValue() / charValue() on their own wrapper, and on the numeric
//           ones intValue() longValue() floatValue() doubleValue() shortValue()
//           byteValue(): the `value` field, converted as Java converts
//   any object: getClass().getName(), getClass().getSimpleName(): the class's name
// Called through Heap::Call, only when the receiver's run-time class is a boot
// class on the list in IsSafeJdkCollection below:
//   Collection: size() isEmpty()     Map: size() isEmpty() get(Object) containsKey(Object)
//   (Map keys only Strings and boxed primitives, so that no application
//   hashCode/equals/compareTo runs; an unmodifiable wrapper only if what it
//   wraps passes too; TreeMap.get/containsKey only without a comparator.
//   The evaluator checks these at each call.)
constexpr AllowedMethod kAllowed[] = {
    {ReceiverKind::kString, "length", kNone, Operation::kStringLength, "int", {}},
    {ReceiverKind::kString, "isEmpty", kNone, Operation::kStringIsEmpty, "boolean", {}},
    {ReceiverKind::kString, "charAt", kInt, Operation::kStringCharAt, "char", {}},
    {ReceiverKind::kString, "equals", kObject, Operation::kStringEquals, "boolean", {}},
    {ReceiverKind::kString, "startsWith", kString, Operation::kStringStartsWith, "boolean", {}},
    {ReceiverKind::kString, "endsWith", kString, Operation::kStringEndsWith, "boolean", {}},
    {ReceiverKind::kString, "contains", kString, Operation::kStringContains, "boolean", {}},
    {ReceiverKind::kString, "indexOf", kString, Operation::kStringIndexOfString, "int", {}},
    {ReceiverKind::kString, "indexOf", kCharOrInt, Operation::kStringIndexOfChar, "int", {}},
    {ReceiverKind::kString, "substring", kInt, Operation::kStringSubstring, "java.lang.String", {}},
    {ReceiverKind::kString, "substring", kIntInt, Operation::kStringSubstringRange, "java.lang.String", {}},
    {ReceiverKind::kBoxed, "equals", kObject, Operation::kBoxedEquals, "boolean", {}},
    {ReceiverKind::kBoxed, "booleanValue", kNone, Operation::kBoxedValue, "boolean", {}},
    {ReceiverKind::kBoxed, "charValue", kNone, Operation::kBoxedValue, "char", {}},
    {ReceiverKind::kNumberBox, "intValue", kNone, Operation::kBoxedValue, "int", {}},
    {ReceiverKind::kNumberBox, "longValue", kNone, Operation::kBoxedValue, "long", {}},
    {ReceiverKind::kNumberBox, "floatValue", kNone, Operation::kBoxedValue, "float", {}},
    {ReceiverKind::kNumberBox, "doubleValue", kNone, Operation::kBoxedValue, "double", {}},
    {ReceiverKind::kNumberBox, "shortValue", kNone, Operation::kBoxedValue, "short", {}},
    {ReceiverKind::kNumberBox, "byteValue", kNone, Operation::kBoxedValue, "byte", {}},
    {ReceiverKind::kCollection, "size", kNone, Operation::kCollectionSize, "int",
     {"java/util/Collection", "size", "()I"}},
    {ReceiverKind::kCollection, "isEmpty", kNone, Operation::kCollectionIsEmpty, "boolean",
     {"java/util/Collection", "isEmpty", "()Z"}},
    {ReceiverKind::kMap, "size", kNone, Operation::kMapSize, "int", {"java/util/Map", "size", "()I"}},
    {ReceiverKind::kMap, "isEmpty", kNone, Operation::kMapIsEmpty, "boolean", {"java/util/Map", "isEmpty", "()Z"}},
    {ReceiverKind::kMap, "get", kObject, Operation::kMapGet, "java.lang.Object",
     {"java/util/Map", "get", "(Ljava/lang/Object;)Ljava/lang/Object;"}},
    {ReceiverKind::kMap, "containsKey", kObject, Operation::kMapContainsKey, "boolean",
     {"java/util/Map", "containsKey", "(Ljava/lang/Object;)Z"}},
    {ReceiverKind::kAnyObject, "getClass", kNone, Operation::kGetClass, kClassOfType, {}},
    {ReceiverKind::kClassOf, "getName", kNone, Operation::kClassGetName, "java.lang.String", {}},
    {ReceiverKind::kClassOf, "getSimpleName", kNone, Operation::kClassGetSimpleName, "java.lang.String", {}},
};

// JDK collections whose size/isEmpty/get/containsKey neither lock nor call
// into application code (given String or boxed keys). Not Collections$Synchronized*:
// they lock the collection.
constexpr std::string_view kSafeCollections[] = {
    "java.util.ArrayList", "java.util.LinkedList", "java.util.HashMap", "java.util.LinkedHashMap",
    "java.util.TreeMap", "java.util.HashSet", "java.util.LinkedHashSet", "java.util.TreeSet",
    "java.util.ArrayDeque", "java.util.concurrent.ConcurrentHashMap",
    "java.util.concurrent.CopyOnWriteArrayList", "java.util.Arrays$ArrayList",
};
// Families of nested JDK classes, by prefix.
constexpr std::string_view kSafeCollectionPrefixes[] = {
    "java.util.ImmutableCollections$", "java.util.Collections$Unmodifiable", "java.util.Collections$Empty",
    "java.util.Collections$Singleton",
};

struct Box {
  Prim prim;
  std::string_view name;
  MethodRef value_of;
};
constexpr Box kBoxes[] = {
    {Prim::kBoolean, "java.lang.Boolean", {"java/lang/Boolean", "valueOf", "(Z)Ljava/lang/Boolean;", true}},
    {Prim::kByte, "java.lang.Byte", {"java/lang/Byte", "valueOf", "(B)Ljava/lang/Byte;", true}},
    {Prim::kChar, "java.lang.Character", {"java/lang/Character", "valueOf", "(C)Ljava/lang/Character;", true}},
    {Prim::kShort, "java.lang.Short", {"java/lang/Short", "valueOf", "(S)Ljava/lang/Short;", true}},
    {Prim::kInt, "java.lang.Integer", {"java/lang/Integer", "valueOf", "(I)Ljava/lang/Integer;", true}},
    {Prim::kLong, "java.lang.Long", {"java/lang/Long", "valueOf", "(J)Ljava/lang/Long;", true}},
    {Prim::kFloat, "java.lang.Float", {"java/lang/Float", "valueOf", "(F)Ljava/lang/Float;", true}},
    {Prim::kDouble, "java.lang.Double", {"java/lang/Double", "valueOf", "(D)Ljava/lang/Double;", true}},
};

}  // namespace

std::span<const AllowedMethod> AllowedMethods() { return kAllowed; }

bool IsSafeJdkCollection(std::string_view runtime_class) {
  for (std::string_view name : kSafeCollections) {
    if (runtime_class == name) return true;
  }
  for (std::string_view prefix : kSafeCollectionPrefixes) {
    if (runtime_class.starts_with(prefix)) return true;
  }
  return false;
}

std::string_view BoxName(Prim prim) {
  for (const Box& box : kBoxes) {
    if (box.prim == prim) return box.name;
  }
  return {};
}

std::optional<Prim> UnboxedPrim(std::string_view class_name) {
  for (const Box& box : kBoxes) {
    if (box.name == class_name) return box.prim;
  }
  return std::nullopt;
}

MethodRef ValueOfMethod(Prim prim) {
  for (const Box& box : kBoxes) {
    if (box.prim == prim) return box.value_of;
  }
  return {};
}

}  // namespace jdwpx::expr
