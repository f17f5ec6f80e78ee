#include "expr/evaluator.h"

#include <bit>
#include <cmath>
#include <cstring>

#include "expr/allowed_methods.h"
#include "expr/java_string.h"
#include "expr/primitives.h"

namespace jdwpx::expr {
namespace {

using Node = Expression::Node;
using Kind = Node::Kind;

bool IsNull(const Value& value) {
  return value.type.kind == Type::Kind::kNull || (value.type.kind == Type::Kind::kReference && !value.text && !value.ref);
}

// Java's Float.equals / Double.equals: NaN equals NaN, 0.0 differs from -0.0.
bool SameBits(const Value& a, const Value& b) {
  if (a.type.prim == Prim::kFloat) {
    if (std::isnan(a.prim.f) && std::isnan(b.prim.f)) return true;
    return std::bit_cast<uint32_t>(a.prim.f) == std::bit_cast<uint32_t>(b.prim.f);
  }
  if (a.type.prim == Prim::kDouble) {
    if (std::isnan(a.prim.d) && std::isnan(b.prim.d)) return true;
    return std::bit_cast<uint64_t>(a.prim.d) == std::bit_cast<uint64_t>(b.prim.d);
  }
  if (a.type.prim == Prim::kLong) return a.prim.j == b.prim.j;
  if (a.type.prim == Prim::kBoolean) return a.prim.z == b.prim.z;
  return a.prim.i == b.prim.i;
}

std::string SimpleName(std::string name) {
  std::string dims;
  while (name.ends_with("[]")) {
    name.resize(name.size() - 2);
    dims += "[]";
  }
  const size_t cut = name.find_last_of(".$");
  std::string simple = cut == std::string::npos ? name : name.substr(cut + 1);
  // An anonymous class (Outer$1) has an empty simple name.
  if (!simple.empty() && simple.find_first_not_of("0123456789") == std::string::npos) simple.clear();
  return simple + dims;
}

class Evaluator {
 public:
  Evaluator(std::string_view text, Heap& heap, int64_t max_steps) : text_(text), heap_(heap), max_steps_(max_steps) {}

  Result<Value> Eval(const Node& node) {
    if (++steps_ > max_steps_) return Fail("step limit (" + std::to_string(max_steps_) + ") exceeded");
    switch (node.kind) {
      case Kind::kLiteral: return node.value;
      case Kind::kLocal: return heap_.Local(node.local);
      case Kind::kThis: return heap_.This();
      case Kind::kStaticField: return heap_.GetField(nullptr, node.field);
      case Kind::kField: {
        auto object = Object(node, *node.children[0]);
        if (!object) return object;
        return heap_.GetField(object->ref, node.field);
      }
      case Kind::kArrayLength: {
        auto array = Object(node, *node.children[0]);
        if (!array) return array;
        auto length = heap_.ArrayLength(array->ref);
        if (!length) return tl::unexpected(length.error());
        return MakeInt(*length);
      }
      case Kind::kIndex: return Index(node);
      case Kind::kUnbox: {
        auto box = Eval(*node.children[0]);
        if (!box) return box;
        if (IsNull(*box)) return Fail(Part(node) + ": is null and cannot be unboxed");
        return heap_.GetField(box->ref, node.field);
      }
      case Kind::kUnary: return Unary(node);
      case Kind::kBinary: return Binary(node);
      case Kind::kConditional: {
        auto condition = Eval(*node.children[0]);
        if (!condition) return condition;
        auto chosen = Eval(*node.children[condition->prim.z ? 1 : 2]);
        if (!chosen || node.type.kind != Type::Kind::kPrimitive) return chosen;
        return Convert(*chosen, node.type.prim);
      }
      case Kind::kInstanceof: {
        auto object = Eval(*node.children[0]);
        if (!object) return object;
        if (IsNull(*object)) return MakeBoolean(false);
        if (object->text) return MakeBoolean(node.string_is_instance);
        return MakeBoolean(heap_.InstanceOf(object->ref, node.class_name));
      }
      case Kind::kMethod: return Method(node);
      default: return Fail(Part(node) + ": internal: not checked");
    }
  }

 private:
  static tl::unexpected<std::string> Fail(std::string message) { return tl::unexpected(std::move(message)); }
  std::string Part(const Node& node) const { return "`" + std::string(text_.substr(node.begin, node.end - node.begin)) + "`"; }
  std::string Source(const Node& node) const { return std::string(text_.substr(node.begin, node.end - node.begin)); }

  // The object `child` evaluates to, for a read `whole` makes of it: an error when null.
  Result<Value> Object(const Node& whole, const Node& child) {
    auto object = Eval(child);
    if (!object) return object;
    if (IsNull(*object)) return Fail(Part(whole) + ": " + Source(child) + " is null");
    if (object->text) return Fail(Part(whole) + ": a string this expression made has no fields");
    return object;
  }

  Result<Value> Index(const Node& node) {
    auto array = Object(node, *node.children[0]);
    if (!array) return array;
    auto index = Eval(*node.children[1]);
    if (!index) return index;
    auto length = heap_.ArrayLength(array->ref);
    if (!length) return tl::unexpected(length.error());
    const int32_t i = index->prim.i;
    if (i < 0 || i >= *length) {
      return Fail(Part(node) + ": index " + std::to_string(i) + " out of bounds for length " + std::to_string(*length));
    }
    return heap_.ArrayElement(array->ref, i, node.operand_type);
  }

  Result<Value> Unary(const Node& node) {
    auto operand = Eval(*node.children[0]);
    if (!operand) return operand;
    if (node.op == "!") return MakeBoolean(!operand->prim.z);
    Value value = Convert(*operand, node.type.prim);
    if (node.op == "+") return value;
    switch (node.type.prim) {
      case Prim::kInt: value.prim.i = static_cast<int32_t>(node.op == "-" ? 0u - static_cast<uint32_t>(value.prim.i) : ~static_cast<uint32_t>(value.prim.i)); break;
      case Prim::kLong: value.prim.j = static_cast<int64_t>(node.op == "-" ? 0ull - static_cast<uint64_t>(value.prim.j) : ~static_cast<uint64_t>(value.prim.j)); break;
      case Prim::kFloat: value.prim.f = -value.prim.f; break;
      case Prim::kDouble: value.prim.d = -value.prim.d; break;
      default: break;
    }
    return value;
  }

  Result<Value> Binary(const Node& node) {
    const std::string& op = node.op;
    auto left = Eval(*node.children[0]);
    if (!left) return left;
    if (op == "&&" || op == "||") {
      // Short-circuit: the right side is not evaluated (no read, no call) when the left decides.
      if (left->prim.z == (op == "||")) return MakeBoolean(left->prim.z);
      auto right = Eval(*node.children[1]);
      if (!right) return right;
      return MakeBoolean(right->prim.z);
    }
    auto right = Eval(*node.children[1]);
    if (!right) return right;
    if (op == "+" && IsString(node.type)) return Concatenate(node, *left, *right);
    if (op == "==" || op == "!=") {
      auto same = Equal(*left, *right, node.operand_type);
      return MakeBoolean(same == (op == "=="));
    }
    if (op == "<<" || op == ">>" || op == ">>>") return Shift(node, *left, *right);
    const Prim prim = node.operand_type.prim;
    const Value a = Convert(*left, prim);
    const Value b = Convert(*right, prim);
    if (op == "<" || op == "<=" || op == ">" || op == ">=") return MakeBoolean(Compare(op, a, b));
    switch (prim) {
      case Prim::kBoolean:
        return MakeBoolean(op == "&" ? (a.prim.z && b.prim.z) : op == "|" ? (a.prim.z || b.prim.z) : (a.prim.z != b.prim.z));
      case Prim::kInt: {
        auto result = IntegerArithmetic<int32_t, uint32_t>(op, a.prim.i, b.prim.i);
        if (!result) return tl::unexpected(result.error());
        return MakeInt(*result);
      }
      case Prim::kLong: {
        auto result = IntegerArithmetic<int64_t, uint64_t>(op, a.prim.j, b.prim.j);
        if (!result) return tl::unexpected(result.error());
        return MakeLong(*result);
      }
      case Prim::kFloat: {
        Value out = a;
        out.prim.f = FloatingArithmetic(op, a.prim.f, b.prim.f);
        return out;
      }
      case Prim::kDouble: {
        Value out = a;
        out.prim.d = FloatingArithmetic(op, a.prim.d, b.prim.d);
        return out;
      }
      default: return Fail(Part(node) + ": internal: bad operand type");
    }
  }

  template <class Int, class Unsigned>
  static Result<Int> IntegerArithmetic(const std::string& op, Int a, Int b) {
    const auto ua = static_cast<Unsigned>(a), ub = static_cast<Unsigned>(b);
    if (op == "+") return static_cast<Int>(ua + ub);
    if (op == "-") return static_cast<Int>(ua - ub);
    if (op == "*") return static_cast<Int>(ua * ub);
    if (op == "&") return static_cast<Int>(ua & ub);
    if (op == "|") return static_cast<Int>(ua | ub);
    if (op == "^") return static_cast<Int>(ua ^ ub);
    if (b == 0) return Fail("/ by zero");
    // MIN / -1 overflows in C++; in Java it wraps to MIN, and MIN % -1 is 0.
    if (b == -1) return op == "/" ? static_cast<Int>(Unsigned{0} - ua) : Int{0};
    return op == "/" ? a / b : a % b;
  }

  template <class F>
  static F FloatingArithmetic(const std::string& op, F a, F b) {
    if (op == "+") return a + b;
    if (op == "-") return a - b;
    if (op == "*") return a * b;
    if (op == "/") return a / b;
    return std::fmod(a, b);  // Java's % on floating values: the sign of the dividend, as fmod
  }

  static bool Compare(const std::string& op, const Value& a, const Value& b) {
    auto compare = [&](auto x, auto y) {
      return op == "<" ? x < y : op == "<=" ? x <= y : op == ">" ? x > y : x >= y;
    };
    switch (a.type.prim) {
      case Prim::kLong: return compare(a.prim.j, b.prim.j);
      case Prim::kFloat: return compare(a.prim.f, b.prim.f);
      case Prim::kDouble: return compare(a.prim.d, b.prim.d);
      default: return compare(a.prim.i, b.prim.i);
    }
  }

  Result<Value> Shift(const Node& node, const Value& left, const Value& right) {
    const Value count = Convert(right, Prim::kLong);
    if (node.type.prim == Prim::kLong) {
      const int64_t a = Convert(left, Prim::kLong).prim.j;
      const unsigned n = static_cast<unsigned>(count.prim.j & 63);
      if (node.op == "<<") return MakeLong(static_cast<int64_t>(static_cast<uint64_t>(a) << n));
      if (node.op == ">>") return MakeLong(a >> n);
      return MakeLong(static_cast<int64_t>(static_cast<uint64_t>(a) >> n));
    }
    const int32_t a = Convert(left, Prim::kInt).prim.i;
    const unsigned n = static_cast<unsigned>(count.prim.j & 31);
    if (node.op == "<<") return MakeInt(static_cast<int32_t>(static_cast<uint32_t>(a) << n));
    if (node.op == ">>") return MakeInt(a >> n);
    return MakeInt(static_cast<int32_t>(static_cast<uint32_t>(a) >> n));
  }

  bool Equal(const Value& a, const Value& b, const Type& as) {
    if (as.kind == Type::Kind::kPrimitive) {
      const Value x = Convert(a, as.prim), y = Convert(b, as.prim);
      switch (as.prim) {
        case Prim::kBoolean: return x.prim.z == y.prim.z;
        case Prim::kLong: return x.prim.j == y.prim.j;
        case Prim::kFloat: return x.prim.f == y.prim.f;
        case Prim::kDouble: return x.prim.d == y.prim.d;
        default: return x.prim.i == y.prim.i;
      }
    }
    // References: identity. A string the expression made is identical only to itself.
    if (IsNull(a) || IsNull(b)) return IsNull(a) && IsNull(b);
    if (a.text || b.text) return a.text == b.text;
    return heap_.SameObject(a.ref, b.ref);
  }

  Result<Value> Concatenate(const Node& node, const Value& left, const Value& right) {
    auto a = ToJavaString(left, heap_, kMaxStringUnits);
    if (!a) return tl::unexpected(a.error());
    auto b = ToJavaString(right, heap_, kMaxStringUnits);
    if (!b) return tl::unexpected(b.error());
    if (a->size() + b->size() > kMaxStringUnits) {
      return Fail(Part(node) + ": the string would be longer than " + std::to_string(kMaxStringUnits) + " characters");
    }
    return MakeText(*a + *b);
  }

  // A string's whole text (up to kMaxStringUnits), for String's methods.
  Result<std::u16string> Text(const Node& call, const Node& string_node, const Value& value,
                               size_t max_units = kMaxStringUnits) {
    if (value.text) return *value.text;
    if (IsNull(value)) return Fail(Part(call) + ": " + Source(string_node) + " is null");
    return heap_.StringText(value.ref, max_units);
  }

  // Whether `value` (an Object argument) is a String equal to `text`.
  Result<bool> EqualsText(const std::u16string& text, const Value& value) {
    if (value.type.kind != Type::Kind::kReference || IsNull(value)) return false;
    if (value.text) return *value.text == text;
    if (!IsString(value.type) && heap_.RuntimeClass(value.ref) != "java.lang.String") return false;
    auto other = heap_.StringText(value.ref, kMaxStringUnits);
    if (!other) return tl::unexpected(other.error());
    return *other == text;
  }

  Result<Value> Method(const Node& node) {
    const AllowedMethod& method = *node.method;
    const Node& receiver_node = *node.children[0];
    if (method.operation == Operation::kClassGetName || method.operation == Operation::kClassGetSimpleName) {
      // x.getClass().getName(): the class's name, without a call.
      const Node& object_node = *receiver_node.children[0];
      if (++steps_ > max_steps_) return Fail("step limit (" + std::to_string(max_steps_) + ") exceeded");
      auto object = Eval(object_node);
      if (!object) return object;
      if (IsNull(*object)) return Fail(Part(node) + ": " + Source(object_node) + " is null");
      std::string name = object->text ? "java.lang.String" : heap_.RuntimeClass(object->ref);
      if (method.operation == Operation::kClassGetSimpleName) name = SimpleName(std::move(name));
      return MakeText(Utf16FromAscii(name));
    }
    auto receiver = Eval(receiver_node);
    if (!receiver) return receiver;
    std::vector<Value> args;
    for (size_t k = 1; k < node.children.size(); ++k) {
      auto arg = Eval(*node.children[k]);
      if (!arg) return arg;
      args.push_back(std::move(*arg));
    }
    if (IsNull(*receiver)) return Fail(Part(node) + ": " + Source(receiver_node) + " is null");
    switch (method.operation) {
      case Operation::kStringLength:
      case Operation::kStringIsEmpty:
      case Operation::kStringCharAt:
      case Operation::kStringEquals:
      case Operation::kStringStartsWith:
      case Operation::kStringEndsWith:
      case Operation::kStringContains:
      case Operation::kStringIndexOfString:
      case Operation::kStringIndexOfChar:
      case Operation::kStringSubstring:
      case Operation::kStringSubstringRange: return StringMethod(node, *receiver, args);
      case Operation::kBoxedValue: {
        auto value = heap_.GetField(receiver->ref, node.field);
        if (!value) return value;
        return Convert(*value, node.type.prim);
      }
      case Operation::kBoxedEquals: return BoxedEquals(node, *receiver, args[0]);
      case Operation::kCollectionSize:
      case Operation::kCollectionIsEmpty:
      case Operation::kMapSize:
      case Operation::kMapIsEmpty:
      case Operation::kMapGet:
      case Operation::kMapContainsKey: return CollectionMethod(node, *receiver, args);
      default: return Fail(Part(node) + ": internal: not callable");
    }
  }

  Result<Value> StringMethod(const Node& node, const Value& receiver, std::vector<Value>& args) {
    // isEmpty and startsWith need only the string's first units: a long string is not copied whole.
    if (node.method->operation == Operation::kStringIsEmpty) {
      auto first = Text(node, *node.children[0], receiver, 1);
      if (!first) return tl::unexpected(first.error());
      return MakeBoolean(first->empty());
    }
    if (node.method->operation == Operation::kStringStartsWith) {
      auto prefix = Text(node, *node.children[1], args[0]);
      if (!prefix) return tl::unexpected(prefix.error());
      auto start = Text(node, *node.children[0], receiver, prefix->size());
      if (!start) return tl::unexpected(start.error());
      return MakeBoolean(*start == *prefix);
    }
    auto text = Text(node, *node.children[0], receiver);
    if (!text) return tl::unexpected(text.error());
    const std::u16string& s = *text;
    const auto length = static_cast<int32_t>(s.size());
    auto string_arg = [&]() { return Text(node, *node.children[1], args[0]); };
    switch (node.method->operation) {
      case Operation::kStringLength: return MakeInt(length);
      case Operation::kStringIsEmpty: return MakeBoolean(s.empty());
      case Operation::kStringCharAt: {
        const int32_t i = args[0].prim.i;
        if (i < 0 || i >= length) {
          return Fail(Part(node) + ": index " + std::to_string(i) + " out of bounds for length " + std::to_string(length));
        }
        Value c;
        c.type = Type::Primitive(Prim::kChar);
        c.prim.i = s[static_cast<size_t>(i)];
        return c;
      }
      case Operation::kStringEquals: {
        auto equal = EqualsText(s, args[0]);
        if (!equal) return tl::unexpected(equal.error());
        return MakeBoolean(*equal);
      }
      case Operation::kStringStartsWith:
      case Operation::kStringEndsWith:
      case Operation::kStringContains:
      case Operation::kStringIndexOfString: {
        auto part = string_arg();
        if (!part) return tl::unexpected(part.error());
        switch (node.method->operation) {
          case Operation::kStringStartsWith: return MakeBoolean(s.starts_with(*part));
          case Operation::kStringEndsWith: return MakeBoolean(s.ends_with(*part));
          case Operation::kStringContains: return MakeBoolean(IndexOfText(s, *part) >= 0);
          default: return MakeInt(IndexOfText(s, *part));
        }
      }
      case Operation::kStringIndexOfChar: return MakeInt(IndexOfCodePoint(s, Convert(args[0], Prim::kInt).prim.i));
      case Operation::kStringSubstring:
      case Operation::kStringSubstringRange: {
        const int32_t begin = args[0].prim.i;
        const int32_t end = node.method->operation == Operation::kStringSubstring ? length : args[1].prim.i;
        if (begin < 0 || begin > end || end > length) {
          return Fail(Part(node) + ": begin " + std::to_string(begin) + ", end " + std::to_string(end) + ", length " +
                      std::to_string(length));
        }
        return MakeText(s.substr(static_cast<size_t>(begin), static_cast<size_t>(end - begin)));
      }
      default: return Fail(Part(node) + ": internal: not a String method");
    }
  }

  Result<Value> BoxedEquals(const Node& node, const Value& receiver, const Value& arg) {
    auto mine = heap_.GetField(receiver.ref, node.field);
    if (!mine) return mine;
    const Prim prim = mine->type.prim;
    if (arg.type.kind == Type::Kind::kPrimitive) {
      // equals(5) boxes 5 to its own wrapper: equal only if that is the receiver's.
      return MakeBoolean(arg.type.prim == prim && SameBits(*mine, arg));
    }
    if (IsNull(arg) || arg.text) return MakeBoolean(false);
    const std::string_view box = BoxName(prim);
    if (heap_.RuntimeClass(arg.ref) != box) return MakeBoolean(false);
    auto theirs = heap_.GetField(arg.ref, node.field);
    if (!theirs) return theirs;
    return MakeBoolean(SameBits(*mine, *theirs));
  }

  // Whether calling the node's method on `receiver` runs only JDK code that
  // never blocks: its class is on the list, and so is every collection an
  // unmodifiable wrapper delegates to; a TreeMap's lookups have no comparator.
  Result<bool> CheckCollection(const Node& node, Ref receiver) {
    const auto& fields = node.collection_fields;
    const bool is_map = node.method->receiver == ReceiverKind::kMap;
    const bool looks_up = node.method->operation == Operation::kMapGet || node.method->operation == Operation::kMapContainsKey;
    const std::string name(node.method->name);
    for (int depth = 0; depth <= kMaxWrappers; ++depth) {
      const std::string runtime_class = heap_.RuntimeClass(receiver);
      if (!heap_.IsBootClass(receiver) || !IsSafeJdkCollection(runtime_class)) {
        return Fail(name + "() of " + runtime_class + " is not called: not a JDK collection");
      }
      if (looks_up && runtime_class == kTreeMap) {
        if (!fields.comparator) return Fail(name + "() of java.util.TreeMap is not called: its comparator cannot be read here");
        auto comparator = heap_.GetField(receiver, *fields.comparator);
        if (!comparator) return tl::unexpected(comparator.error());
        if (!IsNull(*comparator)) {
          return Fail(name + "() of java.util.TreeMap is not called: its comparator is application code");
        }
      }
      if (!runtime_class.starts_with(kUnmodifiablePrefix)) return true;
      const auto& wrapped_field = is_map ? fields.wrapped_map : fields.wrapped_collection;
      if (!wrapped_field) {
        return Fail(name + "() of " + runtime_class + " is not called: the collection it wraps cannot be read here");
      }
      auto wrapped = heap_.GetField(receiver, *wrapped_field);
      if (!wrapped) return tl::unexpected(wrapped.error());
      if (IsNull(*wrapped) || wrapped->text) return Fail(name + "() of " + runtime_class + " is not called: it wraps null");
      receiver = wrapped->ref;
    }
    return Fail(name + "() is not called: more than " + std::to_string(kMaxWrappers) + " unmodifiable wrappers");
  }

  Result<Value> CollectionMethod(const Node& node, const Value& receiver, std::vector<Value>& args) {
    if (auto safe = CheckCollection(node, receiver.ref); !safe) return tl::unexpected(safe.error());
    std::vector<Value> call_args;
    if (!args.empty()) {
      auto key = Key(node, args[0]);
      if (!key) return tl::unexpected(key.error());
      call_args.push_back(std::move(*key));
    }
    return heap_.Call(node.method->jni, receiver.ref, call_args, node.type);
  }

  // A Map key as a Java object: a made string as a new String, a primitive boxed
  // by valueOf; an object only if its hashCode/equals/compareTo are the JDK's.
  Result<Value> Key(const Node& node, const Value& key) {
    if (key.type.kind == Type::Kind::kPrimitive) {
      const Value args[] = {key};
      return heap_.Call(ValueOfMethod(key.type.prim), nullptr, args, Type::Reference(std::string(BoxName(key.type.prim))));
    }
    if (IsNull(key)) return key;
    if (key.text) {
      auto string = heap_.NewString(*key.text);
      if (!string) return tl::unexpected(string.error());
      Value made;
      made.type = Type::Reference("java.lang.String");
      made.ref = *string;
      return made;
    }
    const std::string key_class = heap_.RuntimeClass(key.ref);
    if (key_class != "java.lang.String" && !UnboxedPrim(key_class)) {
      return Fail(std::string(node.method->name) + "() with a key of " + key_class +
                  " is not called: only String and boxed keys (another key's hashCode/equals would run application code)");
    }
    return key;
  }

  std::string_view text_;
  Heap& heap_;
  int64_t max_steps_;
  int64_t steps_ = 0;
};

}  // namespace

Result<Value> EvaluateTree(const Expression::Node& root, std::string_view text, Heap& heap, int64_t max_steps) {
  return Evaluator(text, heap, max_steps).Eval(root);
}

}  // namespace jdwpx::expr
