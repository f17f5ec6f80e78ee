#include "backend/probes/java_names.h"

#include <cstdint>

namespace jdwpx::backend::probes {
namespace {

struct PrimitiveName {
  char code;
  std::string_view name;
  expr::Prim prim;
};
constexpr PrimitiveName kPrimitives[] = {
    {'Z', "boolean", expr::Prim::kBoolean}, {'B', "byte", expr::Prim::kByte},
    {'C', "char", expr::Prim::kChar},       {'S', "short", expr::Prim::kShort},
    {'I', "int", expr::Prim::kInt},         {'J', "long", expr::Prim::kLong},
    {'F', "float", expr::Prim::kFloat},     {'D', "double", expr::Prim::kDouble},
};

const PrimitiveName* ByCode(char code) {
  for (const auto& p : kPrimitives)
    if (p.code == code) return &p;
  return nullptr;
}

}  // namespace

std::string JavaName(std::string_view signature) {
  size_t dims = 0;
  while (dims < signature.size() && signature[dims] == '[') ++dims;
  std::string_view element = signature.substr(dims);
  std::string name;
  if (element.size() >= 2 && element.front() == 'L' && element.back() == ';') {
    name.assign(element.substr(1, element.size() - 2));
    for (char& c : name)
      if (c == '/') c = '.';
  } else if (const PrimitiveName* p = element.size() == 1 ? ByCode(element[0]) : nullptr) {
    name = p->name;
  } else {
    name.assign(element);  // not a signature: kept as given
  }
  for (size_t i = 0; i < dims; ++i) name += "[]";
  return name;
}

expr::Type TypeOfSignature(std::string_view signature) {
  if (signature.size() == 1)
    if (const PrimitiveName* p = ByCode(signature[0])) return expr::Type::Primitive(p->prim);
  return expr::Type::Reference(JavaName(signature));
}

std::string SignatureOf(std::string_view java_name) {
  std::string dims;
  while (java_name.size() >= 2 && java_name.substr(java_name.size() - 2) == "[]") {
    dims += '[';
    java_name.remove_suffix(2);
  }
  for (const auto& p : kPrimitives)
    if (p.name == java_name) return dims + p.code;
  std::string sig = dims + "L";
  for (char c : java_name) sig += c == '.' ? '/' : c;
  return sig + ";";
}

}  // namespace jdwpx::backend::probes
