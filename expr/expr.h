// The probe expression language: a safe subset of Java expressions, parsed and
// checked once when a probe is set, evaluated at each hit by reads only.
//
// expr knows no JNI, no JVMTI and no JDWP: what a name means at the probe's
// location comes from a Scope, and every read of the running program goes
// through a Heap. The agent implements both (backend/probes/); the tests
// implement them over plain C++ data. docs/probes.md lists the language: what
// is allowed, the methods that may be called, and why the rest is refused.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

namespace jdwpx::expr {

enum class Prim : uint8_t { kBoolean, kByte, kChar, kShort, kInt, kLong, kFloat, kDouble };

// A static type: a primitive, the null type, or a reference type named as Java
// names it ("java.lang.String", "int[]", "pkg.Outer$Inner", "java.util.Map").
struct Type {
  enum class Kind : uint8_t { kPrimitive, kReference, kNull };
  Kind kind = Kind::kNull;
  Prim prim = Prim::kInt;
  std::string name;  // reference types only
  static Type Primitive(Prim p) { return Type{Kind::kPrimitive, p, {}}; }
  static Type Reference(std::string n) { return Type{Kind::kReference, Prim::kInt, std::move(n)}; }
  static Type Null() { return Type{}; }
  friend bool operator==(const Type&, const Type&) = default;
};

// A local variable or parameter live at the location.
struct LocalInfo {
  int32_t slot = 0;
  Type type;
};

// A field; `handle` is the agent's (a jfieldID), opaque here.
struct FieldInfo {
  uint64_t handle = 0;
  Type type;
  bool is_static = false;
  std::string declaring_class;  // Java name
};

// What a name means at the probe's location: answered when the probe is set.
class Scope {
 public:
  virtual ~Scope() = default;
  // A local variable or parameter live at the location, by name.
  virtual std::optional<LocalInfo> Local(std::string_view name) const = 0;
  // The type of `this`; none in a static method.
  virtual std::optional<Type> This() const = 0;
  // A field declared by `class_name` or inherited by it (superclasses, and
  // interfaces' static fields), private ones too.
  virtual std::optional<FieldInfo> Field(std::string_view class_name, std::string_view name) const = 0;
  // The Java name of a loaded class named as code at the location names it: a
  // fully qualified name, a simple name of the location's own package or of
  // java.lang, a nested class with '.' or '$'. None when no loaded class fits.
  virtual std::optional<std::string> Class(std::string_view name) const = 0;
  // Whether `sub` is `super`, or a subclass or implementation of it.
  virtual bool IsSubtype(std::string_view sub, std::string_view super) const = 0;
  // The Java name of the class whose method holds the location: in a static
  // method, where there is no `this`, it resolves unqualified static fields.
  virtual std::optional<std::string> LocationClass() const { return std::nullopt; }
};

// A reference at run time: the agent's JNI local reference, opaque here.
// nullptr is Java's null.
using Ref = void*;

// A run-time value: a primitive, a Java object, or a string the expression
// made itself (a literal, a concatenation), which is not a Java object.
struct Value {
  Type type;  // kPrimitive with `prim`, kReference (`ref`, or `text` when made here), kNull
  union {
    bool z;
    int32_t i;  // byte, char, short and int
    int64_t j;
    float f;
    double d;
  } prim{.j = 0};
  Ref ref = nullptr;
  std::shared_ptr<const std::u16string> text;
};

// Every read of the running program, at a hit, in the hitting thread. Each may
// fail (a collected object, a slot that is not live): the message says why and
// becomes "<error: message>" in the output.
template <class T>
using Result = tl::expected<T, std::string>;

// An allow-listed JDK method, as JNI names it: "java/util/Map", "get",
// "(Ljava/lang/Object;)Ljava/lang/Object;".
struct MethodRef {
  std::string_view jni_class;
  std::string_view name;
  std::string_view signature;
  bool is_static = false;
};

class Heap {
 public:
  virtual ~Heap() = default;
  virtual Result<Value> Local(const LocalInfo& local) = 0;
  virtual Result<Value> This() = 0;
  // `object` is nullptr for a static field.
  virtual Result<Value> GetField(Ref object, const FieldInfo& field) = 0;
  virtual Result<int32_t> ArrayLength(Ref array) = 0;
  virtual Result<Value> ArrayElement(Ref array, int32_t index, const Type& element) = 0;
  // A java.lang.String's UTF-16 text: its first `max_units` code units.
  virtual Result<std::u16string> StringText(Ref string, size_t max_units) = 0;
  // The Java name of the object's class ("java.util.HashMap", "int[]").
  virtual std::string RuntimeClass(Ref object) = 0;
  // Whether the object's class was loaded by the boot loader (a JDK class).
  virtual bool IsBootClass(Ref object) = 0;
  virtual bool SameObject(Ref a, Ref b) = 0;
  virtual bool InstanceOf(Ref object, std::string_view class_name) = 0;
  virtual int32_t IdentityHash(Ref object) = 0;
  // A java.lang.String for a string the expression made (a Map.get key).
  virtual Result<Ref> NewString(std::u16string_view text) = 0;
  // Calls an allow-listed JDK method (expr has checked the receiver's class);
  // an exception it throws is cleared and returned as an error naming it.
  // `result` is the method's return type.
  virtual Result<Value> Call(const MethodRef& method, Ref receiver, std::span<const Value> args,
                             const Type& result) = 0;
};

// Where in the source text a problem is, and what it is.
struct Problem {
  size_t begin = 0;  // offsets into the expression text
  size_t end = 0;
  std::string message;  // names the part ("`order.total()`") and why it is refused
};

// A parsed and checked expression. Immutable: hits in many threads evaluate it at once.
class Expression {
 public:
  // Parses and checks `text` against `scope`; a refusal names the part and why.
  static tl::expected<Expression, Problem> Compile(std::string_view text, const Scope& scope);
  // Evaluates with at most `max_steps` steps (each node, each element read).
  Result<Value> Evaluate(Heap& heap, int64_t max_steps = 10000) const;
  const Type& type() const;
  const std::string& text() const;

  struct Node;  // the tree (expression.cc)
 private:
  std::shared_ptr<const Node> root_;
  std::string text_;
};

// A value as Java's string concatenation writes it: numbers as Java prints
// them, strings as they are, other objects as Class@hash (their toString is
// never called: it would run application code). Used by templates too.
Result<std::u16string> ToJavaString(const Value& value, Heap& heap, size_t max_units = 256);
std::string Utf8(std::u16string_view text);

// A log template: literal text with {expression} holes ("{{" and "}}" are
// literal braces).
class Template {
 public:
  static tl::expected<Template, Problem> Compile(std::string_view text, const Scope& scope);
  // The message; a hole whose evaluation fails reads "<error: why>" and its
  // message goes to `errors`.
  std::string Format(Heap& heap, std::vector<std::string>* errors = nullptr, int64_t max_steps = 10000) const;

 private:
  struct Part {
    std::string literal;
    std::optional<Expression> hole;
  };
  std::vector<Part> parts_;
};

}  // namespace jdwpx::expr
