// Java's primitive types: their names, promotions and conversions (JLS 5.1, 5.6).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "expr/expr.h"

namespace jdwpx::expr {

std::string_view PrimName(Prim prim);  // "int"
std::optional<Prim> PrimFromName(std::string_view name);
std::string TypeName(const Type& type);  // "int", "java.lang.String", "null"

bool IsNumeric(Prim prim);   // every primitive but boolean
bool IsIntegral(Prim prim);  // byte, char, short, int, long
// Unary numeric promotion: byte, short and char become int.
Prim UnaryPromotion(Prim prim);
// Binary numeric promotion: double, else float, else long, else int.
Prim BinaryPromotion(Prim a, Prim b);

bool IsPrimitive(const Type& type, Prim prim);
bool IsString(const Type& type);
bool IsArray(const Type& type);
// The element type of an array type ("int[][]" -> "int[]").
Type ElementType(const Type& type);

// A primitive value converted as Java's casts convert it: wrapping narrowing of
// integers, truncation toward zero of floating values with saturation (NaN -> 0).
Value Convert(const Value& value, Prim to);
Value MakeInt(int32_t i);
Value MakeLong(int64_t j);
Value MakeBoolean(bool z);
Value MakeText(std::u16string text);

}  // namespace jdwpx::expr
