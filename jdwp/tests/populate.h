// Test helper: fills every field of any layout with distinct non-default values,
// walking the same JDWP_FIELDS declarations as the codec.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "jdwp/codec.h"

namespace jdwpx::jdwp::testing {

template <class T>
void Populate(T& v, uint64_t& seed);

template <class Variant, size_t... I>
void PopulateVariant(Variant& v, size_t index, uint64_t& seed, std::index_sequence<I...>) {
  auto pick = [&]<size_t J>(std::integral_constant<size_t, J>) {
    if (J != index) return;
    std::variant_alternative_t<J, Variant> alt{};
    std::apply([&](auto&... f) { (Populate(f, seed), ...); }, alt.jdwp_fields());
    v = std::move(alt);
  };
  (pick(std::integral_constant<size_t, I>{}), ...);
}

// A value of a different kind each time: primitives of every width and objects.
inline Value SomeValue(uint64_t seed) {
  switch (seed % 8) {
    case 0: return Value::Int(-static_cast<int32_t>(seed));
    case 1: return Value::Long(static_cast<int64_t>(seed) << 40);
    case 2: return Value::Object(Tag::kThread, ObjectId{0x7000 + seed});
    case 3: return Value::Double(0.5 + static_cast<double>(seed));
    case 4: return Value::Boolean(true);
    case 5: return Value::Char(static_cast<uint16_t>(0xD800 + seed));
    case 6: return Value::Void();
    default: return Value::Object(Tag::kObject, ObjectId{});  // null
  }
}

template <class T>
void Populate(T& v, uint64_t& seed) {
  ++seed;
  if constexpr (std::is_same_v<T, bool>) {
    v = true;
  } else if constexpr (std::is_same_v<T, Tag>) {
    v = Tag::kLong;
  } else if constexpr (std::is_enum_v<T>) {
    v = static_cast<T>(1 + seed % 2);
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    v = static_cast<T>(-static_cast<int64_t>(seed * 1000003));
  } else if constexpr (std::is_integral_v<T>) {
    v = static_cast<T>(seed * 37);
  } else if constexpr (IsStrongId<T>::value) {
    v.value = 0x0102030405060700ull + seed;
  } else if constexpr (std::is_same_v<T, std::string>) {
    v = "s" + std::to_string(seed) + "\xC3\xA9";  // é in UTF-8
  } else if constexpr (std::is_same_v<T, Location>) {
    v = Location{TypeTag::kInterface, ClassId{seed}, MethodId{seed + 1}, seed + 2};
  } else if constexpr (std::is_same_v<T, TaggedObjectId>) {
    v = TaggedObjectId{Tag::kString, ObjectId{0x5000 + seed}};
  } else if constexpr (std::is_same_v<T, Value>) {
    v = SomeValue(seed);
  } else if constexpr (std::is_same_v<T, WireString>) {
    v.text = "w" + std::to_string(seed) + "\xC3\xA9";
  } else if constexpr (std::is_same_v<T, ArrayRegion>) {
    v = ArrayRegion{Tag::kObject,
                    {Value::Object(Tag::kString, ObjectId{seed}), Value::Object(Tag::kObject, ObjectId{}),
                     Value::Object(Tag::kArray, ObjectId{seed + 1})}};
  } else if constexpr (std::is_same_v<T, RawTail>) {
    v.bytes = {0, 0, 0, 1, 0xAB};
  } else if constexpr (std::is_same_v<T, std::vector<uint8_t>>) {
    v = {0xCA, 0xFE, 0xBA, 0xBE, static_cast<uint8_t>(seed)};
  } else if constexpr (IsVector<T>::value) {
    v.resize(2);
    for (auto& item : v) Populate(item, seed);
  } else if constexpr (IsWireList<T>::value) {
    Populate(v.items, seed);  // the typed form (what decoding gives)
  } else if constexpr (IsVariant<T>::value) {
    PopulateVariant(v, seed % std::variant_size_v<T>, seed, std::make_index_sequence<std::variant_size_v<T>>{});
  } else {
    std::apply([&](auto&... f) { (Populate(f, seed), ...); }, v.jdwp_fields());
  }
}

template <class T>
T Populated(uint64_t seed = 0) {
  T v{};
  Populate(v, seed);
  return v;
}

// Whether a layout ends in (or contains) a RawTail, which accepts any bytes.
template <class T>
constexpr bool ContainsRawTail() {
  if constexpr (std::is_same_v<T, RawTail>) {
    return true;
  } else if constexpr (HasFields<T>::value) {
    using Fields = decltype(std::declval<T&>().jdwp_fields());
    return []<class... Fs>(std::type_identity<std::tuple<Fs...>>) {
      return (false || ... || ContainsRawTail<std::remove_cvref_t<Fs>>());
    }(std::type_identity<Fields>{});
  } else {
    return false;
  }
}

inline std::vector<uint8_t> Bytes(std::initializer_list<int> bytes) {
  std::vector<uint8_t> out;
  for (int b : bytes) out.push_back(static_cast<uint8_t>(b));
  return out;
}

}  // namespace jdwpx::jdwp::testing
