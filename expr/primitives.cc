#include "expr/primitives.h"

#include <cmath>
#include <limits>

namespace jdwpx::expr {
namespace {

constexpr std::string_view kPrimNames[] = {"boolean", "byte", "char", "short", "int", "long", "float", "double"};

template <class Int>
Int Saturate(double d) {
  if (std::isnan(d)) return 0;
  if (d <= static_cast<double>(std::numeric_limits<Int>::min())) return std::numeric_limits<Int>::min();
  if (d >= static_cast<double>(std::numeric_limits<Int>::max())) return std::numeric_limits<Int>::max();
  return static_cast<Int>(d);
}

}  // namespace

std::string_view PrimName(Prim prim) { return kPrimNames[static_cast<size_t>(prim)]; }

std::optional<Prim> PrimFromName(std::string_view name) {
  for (size_t k = 0; k < std::size(kPrimNames); ++k) {
    if (kPrimNames[k] == name) return static_cast<Prim>(k);
  }
  return std::nullopt;
}

std::string TypeName(const Type& type) {
  switch (type.kind) {
    case Type::Kind::kPrimitive: return std::string(PrimName(type.prim));
    case Type::Kind::kReference: return type.name;
    case Type::Kind::kNull: return "null";
  }
  return {};
}

bool IsNumeric(Prim prim) { return prim != Prim::kBoolean; }
bool IsIntegral(Prim prim) { return prim != Prim::kBoolean && prim != Prim::kFloat && prim != Prim::kDouble; }

Prim UnaryPromotion(Prim prim) {
  return prim == Prim::kByte || prim == Prim::kShort || prim == Prim::kChar ? Prim::kInt : prim;
}

Prim BinaryPromotion(Prim a, Prim b) {
  if (a == Prim::kDouble || b == Prim::kDouble) return Prim::kDouble;
  if (a == Prim::kFloat || b == Prim::kFloat) return Prim::kFloat;
  if (a == Prim::kLong || b == Prim::kLong) return Prim::kLong;
  return Prim::kInt;
}

bool IsPrimitive(const Type& type, Prim prim) { return type.kind == Type::Kind::kPrimitive && type.prim == prim; }
bool IsString(const Type& type) { return type.kind == Type::Kind::kReference && type.name == "java.lang.String"; }
bool IsArray(const Type& type) { return type.kind == Type::Kind::kReference && type.name.ends_with("[]"); }

Type ElementType(const Type& type) {
  std::string element = type.name.substr(0, type.name.size() - 2);
  if (auto prim = PrimFromName(element)) return Type::Primitive(*prim);
  return Type::Reference(std::move(element));
}

Value Convert(const Value& value, Prim to) {
  const Prim from = value.type.prim;
  // Widen first to the widest of the source's kind, then narrow.
  const bool from_floating = from == Prim::kFloat || from == Prim::kDouble;
  const double d = from == Prim::kFloat ? value.prim.f : value.prim.d;
  const int64_t j = from == Prim::kLong ? value.prim.j : value.prim.i;
  Value out;
  out.type = Type::Primitive(to);
  switch (to) {
    case Prim::kBoolean: out.prim.z = value.prim.z; break;
    case Prim::kDouble: out.prim.d = from_floating ? d : static_cast<double>(j); break;
    case Prim::kFloat: out.prim.f = from_floating ? static_cast<float>(d) : static_cast<float>(j); break;
    case Prim::kLong: out.prim.j = from_floating ? Saturate<int64_t>(d) : j; break;
    case Prim::kInt: out.prim.i = from_floating ? Saturate<int32_t>(d) : static_cast<int32_t>(static_cast<uint32_t>(j)); break;
    case Prim::kShort: {
      const int32_t i = from_floating ? Saturate<int32_t>(d) : static_cast<int32_t>(static_cast<uint32_t>(j));
      out.prim.i = static_cast<int16_t>(static_cast<uint16_t>(i));
      break;
    }
    case Prim::kChar: {
      const int32_t i = from_floating ? Saturate<int32_t>(d) : static_cast<int32_t>(static_cast<uint32_t>(j));
      out.prim.i = static_cast<uint16_t>(i);
      break;
    }
    case Prim::kByte: {
      const int32_t i = from_floating ? Saturate<int32_t>(d) : static_cast<int32_t>(static_cast<uint32_t>(j));
      out.prim.i = static_cast<int8_t>(static_cast<uint8_t>(i));
      break;
    }
  }
  return out;
}

Value MakeInt(int32_t i) {
  Value v;
  v.type = Type::Primitive(Prim::kInt);
  v.prim.i = i;
  return v;
}
Value MakeLong(int64_t j) {
  Value v;
  v.type = Type::Primitive(Prim::kLong);
  v.prim.j = j;
  return v;
}
Value MakeBoolean(bool z) {
  Value v;
  v.type = Type::Primitive(Prim::kBoolean);
  v.prim.z = z;
  return v;
}
Value MakeText(std::u16string text) {
  Value v;
  v.type = Type::Reference("java.lang.String");
  v.text = std::make_shared<const std::u16string>(std::move(text));
  return v;
}

}  // namespace jdwpx::expr
