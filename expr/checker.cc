#include "expr/checker.h"

#include "expr/allowed_methods.h"
#include "expr/primitives.h"

namespace jdwpx::expr {
namespace {

using Node = Expression::Node;
using Kind = Node::Kind;
using Checked = tl::expected<void, Problem>;

constexpr std::string_view kApplicationCall = "calls to application methods are not allowed; probes only read";

bool IsJdkClass(std::string_view name) {
  return name.starts_with("java.") || name.starts_with("javax.") || name.starts_with("jdk.") ||
         name.starts_with("sun.");
}

bool IsReferenceOrNull(const Type& type) { return type.kind != Type::Kind::kPrimitive; }

// What kind of value a node names: a value, a class (`Foo` in `Foo.x`), or a
// dotted prefix that is not yet a class (`java.util` in `java.util.List.of`).
enum class Meaning { kValue, kClass, kPackage };

class Checker {
 public:
  Checker(const Scope& scope, std::string_view text) : scope_(scope), text_(text) {}

  // A node that must be a value.
  Checked Value(Node& node) {
    auto meaning = Resolve(node);
    if (!meaning) return tl::unexpected(meaning.error());
    return Require(node, *meaning);
  }

 private:
  // A resolved node that must be a value.
  Checked Require(const Node& node, Meaning meaning) const {
    if (meaning == Meaning::kPackage) {
      return Refuse(node, "no local variable, field or class of that name at this location");
    }
    if (meaning == Meaning::kClass) return Refuse(node, "a class is not a value");
    if (node.kind == Kind::kMethod && node.method->operation == Operation::kGetClass) {
      return Refuse(node, "getClass() may only be followed by getName() or getSimpleName()");
    }
    return {};
  }

  tl::unexpected<Problem> Refuse(const Node& node, std::string_view why) const {
    return RefuseRange(node.begin, node.end, why);
  }
  tl::unexpected<Problem> RefuseRange(size_t begin, size_t end, std::string_view why) const {
    return tl::unexpected(Problem{begin, end, "`" + std::string(text_.substr(begin, end - begin)) + "`: " + std::string(why)});
  }
  std::string Source(const Node& node) const { return std::string(text_.substr(node.begin, node.end - node.begin)); }

  tl::expected<Meaning, Problem> Resolve(Node& node) {
    switch (node.kind) {
      case Kind::kLiteral:
        node.type = node.value.type;
        return Meaning::kValue;
      case Kind::kName: return ResolveName(node);
      case Kind::kThis: {
        auto type = scope_.This();
        if (!type) return Refuse(node, "there is no `this` in a static method");
        node.type = *type;
        return Meaning::kValue;
      }
      case Kind::kMember: return ResolveMember(node);
      case Kind::kIndex: return Done(Index(node));
      case Kind::kCall: return Done(Call(node));
      case Kind::kUnary: return Done(Unary(node));
      case Kind::kBinary: return Done(Binary(node));
      case Kind::kConditional: return Done(Conditional(node));
      case Kind::kInstanceof: return Done(Instanceof(node));
      default: return Refuse(node, "internal: checked twice");
    }
  }
  static tl::expected<Meaning, Problem> Done(Checked checked) {
    if (!checked) return tl::unexpected(checked.error());
    return Meaning::kValue;
  }

  void MakeField(Node& node, const FieldInfo& field, std::unique_ptr<Node> object) {
    node.field = field;
    node.type = field.type;
    node.children.clear();
    if (field.is_static) {
      node.kind = Kind::kStaticField;
    } else {
      node.kind = Kind::kField;
      node.children.push_back(std::move(object));
    }
  }

  tl::expected<Meaning, Problem> ResolveName(Node& node) {
    if (auto local = scope_.Local(node.name)) {
      node.kind = Kind::kLocal;
      node.local = *local;
      node.type = local->type;
      return Meaning::kValue;
    }
    if (auto this_type = scope_.This()) {
      if (auto field = scope_.Field(this_type->name, node.name)) {
        auto object = std::make_unique<Node>();
        object->kind = Kind::kThis;
        object->begin = node.begin;
        object->end = node.begin;
        object->type = *this_type;
        MakeField(node, *field, std::move(object));
        return Meaning::kValue;
      }
    } else if (auto location = scope_.LocationClass()) {
      if (auto field = scope_.Field(*location, node.name); field && field->is_static) {
        MakeField(node, *field, nullptr);
        return Meaning::kValue;
      }
    }
    if (auto class_name = scope_.Class(node.name)) {
      node.kind = Kind::kClass;
      node.class_name = *class_name;
      return Meaning::kClass;
    }
    return Meaning::kPackage;  // `node.name` holds the dotted prefix so far
  }

  tl::expected<Meaning, Problem> ResolveMember(Node& node) {
    Node& object = *node.children[0];
    auto meaning = Resolve(object);
    if (!meaning) return meaning;
    if (*meaning == Meaning::kPackage) {
      const std::string qualified = object.name + "." + node.name;
      node.children.clear();
      node.kind = Kind::kName;
      node.name = qualified;
      if (auto class_name = scope_.Class(qualified)) {
        node.kind = Kind::kClass;
        node.class_name = *class_name;
        return Meaning::kClass;
      }
      return Meaning::kPackage;
    }
    if (*meaning == Meaning::kClass) {
      const std::string owner = object.class_name;
      if (auto field = scope_.Field(owner, node.name)) {
        if (!field->is_static) return Refuse(node, "`" + node.name + "` is an instance field: it needs an object, not a class");
        MakeField(node, *field, nullptr);
        return Meaning::kValue;
      }
      if (auto nested = scope_.Class(owner + "$" + node.name)) {
        node.children.clear();
        node.kind = Kind::kClass;
        node.class_name = *nested;
        return Meaning::kClass;
      }
      return Refuse(node, owner + " has no static field `" + node.name + "`");
    }
    if (auto checked = Require(object, *meaning); !checked) return tl::unexpected(checked.error());
    const Type type = object.type;
    if (IsArray(type) && node.name == "length") {
      node.kind = Kind::kArrayLength;
      node.type = Type::Primitive(Prim::kInt);
      return Meaning::kValue;
    }
    if (type.kind != Type::Kind::kReference) {
      return Refuse(node, TypeName(type) + " has no fields");
    }
    if (IsArray(type)) return Refuse(node, "an array has no field but `length`");
    auto field = scope_.Field(type.name, node.name);
    if (!field) return Refuse(node, type.name + " has no field `" + node.name + "`");
    MakeField(node, *field, std::move(node.children[0]));
    return Meaning::kValue;
  }

  // A boxed operand where a primitive is needed becomes its `value` field.
  Checked Unbox(std::unique_ptr<Node>& slot) {
    if (slot->type.kind != Type::Kind::kReference) return {};
    auto prim = UnboxedPrim(slot->type.name);
    if (!prim) return {};
    auto field = scope_.Field(slot->type.name, "value");
    if (!field) return Refuse(*slot, slot->type.name + "'s value field is not known at this location");
    auto box = std::make_unique<Node>();
    box->kind = Kind::kUnbox;
    box->begin = slot->begin;
    box->end = slot->end;
    box->depth = slot->depth + 1;
    box->field = *field;
    box->type = Type::Primitive(*prim);
    box->children.push_back(std::move(slot));
    slot = std::move(box);
    return {};
  }

  // A child that must be a primitive value (boxed ones unboxed).
  Checked PrimitiveOperand(std::unique_ptr<Node>& slot) {
    if (auto checked = Value(*slot); !checked) return checked;
    return Unbox(slot);
  }

  Checked Index(Node& node) {
    if (auto checked = Value(*node.children[0]); !checked) return checked;
    if (auto checked = PrimitiveOperand(node.children[1]); !checked) return checked;
    const Type& array = node.children[0]->type;
    if (!IsArray(array)) return Refuse(node, "`" + Source(*node.children[0]) + "` is not an array but " + TypeName(array));
    const Type& index = node.children[1]->type;
    if (index.kind != Type::Kind::kPrimitive || UnaryPromotion(index.prim) != Prim::kInt) {
      return Refuse(*node.children[1], "an array index must be an int, not " + TypeName(index));
    }
    node.operand_type = ElementType(array);
    node.type = node.operand_type;
    return {};
  }

  Checked Unary(Node& node) {
    if (auto checked = PrimitiveOperand(node.children[0]); !checked) return checked;
    const Type& operand = node.children[0]->type;
    const bool primitive = operand.kind == Type::Kind::kPrimitive;
    if (node.op == "!") {
      if (!primitive || operand.prim != Prim::kBoolean) return Refuse(node, "`!` needs a boolean, not " + TypeName(operand));
      node.type = operand;
      return {};
    }
    if (!primitive || !IsNumeric(operand.prim) || (node.op == "~" && !IsIntegral(operand.prim))) {
      return Refuse(node, "`" + node.op + "` needs " + (node.op == "~" ? "an integer" : "a number") + ", not " + TypeName(operand));
    }
    node.type = Type::Primitive(UnaryPromotion(operand.prim));
    return {};
  }

  Checked Binary(Node& node) {
    const std::string& op = node.op;
    if (auto checked = Value(*node.children[0]); !checked) return checked;
    if (auto checked = Value(*node.children[1]); !checked) return checked;
    if (op == "+" && (IsString(node.children[0]->type) || IsString(node.children[1]->type))) {
      node.type = Type::Reference("java.lang.String");
      node.operand_type = node.type;
      return {};
    }
    if (op == "==" || op == "!=") return Equality(node);
    if (auto checked = Unbox(node.children[0]); !checked) return checked;
    if (auto checked = Unbox(node.children[1]); !checked) return checked;
    const Type& left = node.children[0]->type;
    const Type& right = node.children[1]->type;
    auto mismatch = [&](std::string_view needs) {
      return Refuse(node, "`" + op + "` needs " + std::string(needs) + ", not " + TypeName(left) + " and " + TypeName(right));
    };
    if (left.kind != Type::Kind::kPrimitive || right.kind != Type::Kind::kPrimitive) {
      return mismatch(op == "&&" || op == "||" ? "booleans" : "numbers");
    }
    const bool booleans = left.prim == Prim::kBoolean && right.prim == Prim::kBoolean;
    const bool numbers = IsNumeric(left.prim) && IsNumeric(right.prim);
    const bool integers = IsIntegral(left.prim) && IsIntegral(right.prim);
    if (op == "&&" || op == "||") {
      if (!booleans) return mismatch("booleans");
      node.type = node.operand_type = Type::Primitive(Prim::kBoolean);
    } else if (op == "&" || op == "|" || op == "^") {
      if (booleans) {
        node.type = node.operand_type = Type::Primitive(Prim::kBoolean);
      } else if (integers) {
        node.type = node.operand_type = Type::Primitive(BinaryPromotion(left.prim, right.prim));
      } else {
        return mismatch("two booleans or two integers");
      }
    } else if (op == "<<" || op == ">>" || op == ">>>") {
      if (!integers) return mismatch("integers");
      node.type = node.operand_type = Type::Primitive(UnaryPromotion(left.prim));
    } else if (op == "<" || op == "<=" || op == ">" || op == ">=") {
      if (!numbers) return mismatch("numbers");
      node.operand_type = Type::Primitive(BinaryPromotion(left.prim, right.prim));
      node.type = Type::Primitive(Prim::kBoolean);
    } else {  // + - * / %
      if (!numbers) return mismatch("numbers");
      node.type = node.operand_type = Type::Primitive(BinaryPromotion(left.prim, right.prim));
    }
    return {};
  }

  Checked Equality(Node& node) {
    Type left = node.children[0]->type;
    Type right = node.children[1]->type;
    // A boxed value against a primitive compares numerically (JLS 15.21.1).
    if (left.kind == Type::Kind::kPrimitive && right.kind == Type::Kind::kReference) {
      if (auto checked = Unbox(node.children[1]); !checked) return checked;
    } else if (right.kind == Type::Kind::kPrimitive && left.kind == Type::Kind::kReference) {
      if (auto checked = Unbox(node.children[0]); !checked) return checked;
    }
    left = node.children[0]->type;
    right = node.children[1]->type;
    node.type = Type::Primitive(Prim::kBoolean);
    if (IsReferenceOrNull(left) && IsReferenceOrNull(right)) {
      node.operand_type = Type::Reference("java.lang.Object");
      return {};
    }
    if (left.kind == Type::Kind::kPrimitive && right.kind == Type::Kind::kPrimitive) {
      if (left.prim == Prim::kBoolean && right.prim == Prim::kBoolean) {
        node.operand_type = left;
        return {};
      }
      if (IsNumeric(left.prim) && IsNumeric(right.prim)) {
        node.operand_type = Type::Primitive(BinaryPromotion(left.prim, right.prim));
        return {};
      }
    }
    return Refuse(node, "`" + node.op + "` cannot compare " + TypeName(left) + " with " + TypeName(right));
  }

  Checked Conditional(Node& node) {
    if (auto checked = PrimitiveOperand(node.children[0]); !checked) return checked;
    if (!IsPrimitive(node.children[0]->type, Prim::kBoolean)) {
      return Refuse(*node.children[0], "the condition of `?:` must be a boolean, not " + TypeName(node.children[0]->type));
    }
    if (auto checked = Value(*node.children[1]); !checked) return checked;
    if (auto checked = Value(*node.children[2]); !checked) return checked;
    Type a = node.children[1]->type;
    Type b = node.children[2]->type;
    if (a.kind == Type::Kind::kPrimitive && b.kind == Type::Kind::kReference && UnboxedPrim(b.name)) {
      if (auto checked = Unbox(node.children[2]); !checked) return checked;
    } else if (b.kind == Type::Kind::kPrimitive && a.kind == Type::Kind::kReference && UnboxedPrim(a.name)) {
      if (auto checked = Unbox(node.children[1]); !checked) return checked;
    }
    a = node.children[1]->type;
    b = node.children[2]->type;
    if (a.kind == Type::Kind::kPrimitive && b.kind == Type::Kind::kPrimitive) {
      if (a.prim == b.prim) {
        node.type = a;
      } else if (IsNumeric(a.prim) && IsNumeric(b.prim)) {
        node.type = Type::Primitive(BinaryPromotion(a.prim, b.prim));
      } else {
        return Refuse(node, "the branches of `?:` have incompatible types " + TypeName(a) + " and " + TypeName(b));
      }
    } else if (IsReferenceOrNull(a) && IsReferenceOrNull(b)) {
      if (a.kind == Type::Kind::kNull || a == b) {
        node.type = b;
      } else if (b.kind == Type::Kind::kNull) {
        node.type = a;
      } else if (scope_.IsSubtype(a.name, b.name)) {
        node.type = b;
      } else if (scope_.IsSubtype(b.name, a.name)) {
        node.type = a;
      } else {
        node.type = Type::Reference("java.lang.Object");
      }
    } else {
      return Refuse(node, "the branches of `?:` have incompatible types " + TypeName(a) + " and " + TypeName(b));
    }
    // Each branch's value is converted to the result's type at run time.
    node.operand_type = node.type;
    return {};
  }

  Checked Instanceof(Node& node) {
    if (auto checked = Value(*node.children[0]); !checked) return checked;
    const Type& operand = node.children[0]->type;
    if (operand.kind == Type::Kind::kPrimitive) {
      return Refuse(node, "instanceof needs an object, not " + TypeName(operand));
    }
    std::string element = node.name;
    std::string dims;
    while (element.ends_with("[]")) {
      element.resize(element.size() - 2);
      dims += "[]";
    }
    std::optional<std::string> resolved;
    if (PrimFromName(element) && !dims.empty()) {
      resolved = element;
    } else {
      resolved = scope_.Class(element);
    }
    if (!resolved) return RefuseRange(node.name_begin, node.end, "no loaded class of that name");
    node.class_name = *resolved + dims;
    node.string_is_instance = scope_.IsSubtype("java.lang.String", node.class_name);
    node.type = Type::Primitive(Prim::kBoolean);
    return {};
  }

  // Which rows of the allow-list apply to a receiver of static type `type`.
  std::vector<ReceiverKind> ReceiverKinds(const Node& receiver) const {
    const Type& type = receiver.type;
    std::vector<ReceiverKind> kinds;
    if (receiver.kind == Kind::kMethod && receiver.method->operation == Operation::kGetClass) {
      kinds.push_back(ReceiverKind::kClassOf);
      return kinds;
    }
    if (type.kind != Type::Kind::kReference) return kinds;
    if (IsString(type)) kinds.push_back(ReceiverKind::kString);
    if (auto prim = UnboxedPrim(type.name)) {
      kinds.push_back(ReceiverKind::kBoxed);
      if (*prim != Prim::kBoolean && *prim != Prim::kChar) kinds.push_back(ReceiverKind::kNumberBox);
    }
    if (!IsArray(type)) {
      if (scope_.IsSubtype(type.name, "java.util.Collection")) kinds.push_back(ReceiverKind::kCollection);
      if (scope_.IsSubtype(type.name, "java.util.Map")) kinds.push_back(ReceiverKind::kMap);
    }
    kinds.push_back(ReceiverKind::kAnyObject);
    return kinds;
  }

  static bool ArgumentFits(ArgKind kind, const Type& type) {
    switch (kind) {
      case ArgKind::kInt:
      case ArgKind::kCharOrInt:
        return type.kind == Type::Kind::kPrimitive && IsIntegral(type.prim) && UnaryPromotion(type.prim) == Prim::kInt;
      case ArgKind::kString: return type.kind == Type::Kind::kNull || IsString(type);
      case ArgKind::kObject: return true;  // a primitive is boxed
    }
    return false;
  }

  Checked Call(Node& node) {
    const bool has_receiver = node.op == ".";
    if (!has_receiver) return Refuse(node, kApplicationCall);
    Node& receiver = *node.children[0];
    auto meaning = Resolve(receiver);
    if (!meaning) return tl::unexpected(meaning.error());
    if (*meaning == Meaning::kPackage) {
      return Refuse(receiver, "no local variable, field or class of that name at this location");
    }
    if (*meaning == Meaning::kClass) {
      if (IsJdkClass(receiver.class_name)) {
        return Refuse(node, receiver.class_name + "." + node.name + " is not one of the methods probes may call (docs/probes.md lists them)");
      }
      return Refuse(node, kApplicationCall);
    }
    if (receiver.type.kind != Type::Kind::kReference) return Refuse(node, TypeName(receiver.type) + " has no methods");
    for (size_t k = 1; k < node.children.size(); ++k) {
      if (auto checked = Value(*node.children[k]); !checked) return checked;
    }
    const size_t arity = node.children.size() - 1;
    bool name_known = false;
    for (ReceiverKind kind : ReceiverKinds(receiver)) {
      for (const AllowedMethod& method : AllowedMethods()) {
        if (method.receiver != kind || method.name != node.name) continue;
        name_known = true;
        if (method.args.size() != arity) continue;
        bool fits = true;
        for (size_t k = 0; k < arity; ++k) fits = fits && ArgumentFits(method.args[k], node.children[k + 1]->type);
        if (!fits) continue;
        return Bind(node, method);
      }
    }
    const std::string& owner = receiver.type.name;
    if (name_known) {
      std::string types;
      for (size_t k = 1; k < node.children.size(); ++k) types += (k > 1 ? ", " : "") + TypeName(node.children[k]->type);
      return Refuse(node, owner + "." + node.name + "(" + types + ") is not one of the methods probes may call (docs/probes.md lists them)");
    }
    if (IsJdkClass(owner) || IsArray(receiver.type)) {
      return Refuse(node, owner + "." + node.name + " is not one of the methods probes may call (docs/probes.md lists them)");
    }
    return Refuse(node, kApplicationCall);
  }

  Checked Bind(Node& node, const AllowedMethod& method) {
    node.kind = Kind::kMethod;
    node.method = &method;
    const Type& receiver = node.children[0]->type;
    if (method.operation == Operation::kBoxedValue) {
      const Prim box = *UnboxedPrim(receiver.name);
      const Prim result = *PrimFromName(method.result);
      // booleanValue and charValue belong to their own wrapper only.
      if ((result == Prim::kBoolean || result == Prim::kChar || box == Prim::kBoolean || box == Prim::kChar) && box != result) {
        return Refuse(node, receiver.name + "." + node.name + " does not exist");
      }
    }
    if (method.operation == Operation::kBoxedValue || method.operation == Operation::kBoxedEquals) {
      auto field = scope_.Field(receiver.name, "value");
      if (!field) return Refuse(node, receiver.name + "'s value field is not known at this location");
      node.field = *field;
    }
    if (method.receiver == ReceiverKind::kCollection || method.receiver == ReceiverKind::kMap) {
      auto& fields = node.collection_fields;
      fields.wrapped_collection = scope_.Field(kUnmodifiableCollection, "c");
      fields.wrapped_map = scope_.Field(kUnmodifiableMap, "m");
      fields.comparator = scope_.Field(kTreeMap, "comparator");
    }
    if (auto prim = PrimFromName(method.result)) {
      node.type = Type::Primitive(*prim);
    } else {
      node.type = Type::Reference(std::string(method.result));
    }
    return {};
  }

  const Scope& scope_;
  std::string_view text_;
};

}  // namespace

tl::expected<void, Problem> Check(Expression::Node& root, const Scope& scope, std::string_view text) {
  return Checker(scope, text).Value(root);
}

}  // namespace jdwpx::expr
