// The object IDs a layout holds: objectID and its aliases, referenceTypeID
// (a location's class too) and the object values of tagged values, each as
// often as it occurs. The agent counts what it sends of each ID per debugger
// (DisposeObjects), and an event's IDs are made before it is known which
// debuggers it goes to.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "jdwp/types.h"

namespace jdwpx::jdwp {

namespace object_ids_detail {

template <class Kind>
constexpr bool kIsObjectKind = !std::is_same_v<StrongId<Kind>, MethodId> && !std::is_same_v<StrongId<Kind>, FieldId> &&
                               !std::is_same_v<StrongId<Kind>, FrameId>;

template <class T>
concept HasFields = requires(const T& t) { t.jdwp_fields(); };

template <class T, class F>
void Visit(const T& value, F& f);

template <class Kind, class F>
void VisitOne(const StrongId<Kind>& id, F& f) {
  if constexpr (kIsObjectKind<Kind>) {
    if (!id.is_null()) f(id.value);
  }
}

template <class F>
void VisitOne(const Location& l, F& f) {
  VisitOne(l.class_id, f);
}

template <class F>
void VisitOne(const TaggedObjectId& t, F& f) {
  VisitOne(t.id, f);
}

template <class F>
void VisitOne(const Value& v, F& f) {
  if (IsObjectTag(v.tag) && v.bits != 0) f(v.bits);
}

template <class T, class F>
void VisitOne(const std::vector<T>& items, F& f) {
  for (const T& item : items) Visit(item, f);
}

template <class... Ts, class F>
void VisitOne(const std::variant<Ts...>& v, F& f) {
  std::visit([&](const auto& alternative) { Visit(alternative, f); }, v);
}

// The types that hold IDs first (should one of them get JDWP_FIELDS, its IDs
// are still found); then layouts, field by field; anything else must be a
// scalar or a string, or this does not compile.
template <class T, class F>
void Visit(const T& value, F& f) {
  if constexpr (requires { VisitOne(value, f); }) {
    VisitOne(value, f);
  } else if constexpr (HasFields<T>) {
    std::apply([&](const auto&... fields) { (Visit(fields, f), ...); }, value.jdwp_fields());
  } else {
    static_assert(std::is_arithmetic_v<T> || std::is_enum_v<T> || std::is_same_v<T, std::string>,
                  "a field type ForEachObjectId does not know");
  }
}

}  // namespace object_ids_detail

// f(uint64_t id) for each non-null object ID in `value` (a layout, a vector or variant of them).
template <class T, class F>
void ForEachObjectId(const T& value, F&& f) {
  object_ids_detail::Visit(value, f);
}

}  // namespace jdwpx::jdwp
