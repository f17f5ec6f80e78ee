// Human-readable one-line renderings of layouts and packets, for the packet log
// and traces. Derived from the same JDWP_FIELDS declarations as the codec.
// Output is bounded: long strings, byte blobs and repeats are cut with "...".
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "jdwp/codec.h"
#include "jdwp/constants.h"
#include "jdwp/types.h"

namespace jdwpx::jdwp {

namespace print_detail {

inline constexpr size_t kMaxItems = 4;     // repeat items shown before "..."
inline constexpr size_t kMaxString = 80;   // string bytes shown before "..."
inline constexpr size_t kMaxLine = 2048;   // whole line

void AppendId(std::string& out, uint64_t id);
void AppendString(std::string& out, std::string_view s);
void AppendBytes(std::string& out, std::span<const uint8_t> bytes);
void AppendSigned(std::string& out, int64_t v);
void AppendUnsigned(std::string& out, uint64_t v);
void AppendDouble(std::string& out, double v);
void Append(std::string& out, const Location& v);
void Append(std::string& out, const TaggedObjectId& v);
void Append(std::string& out, const Value& v);
void Append(std::string& out, const UntaggedValue& v);
void Append(std::string& out, const ArrayRegion& v);
void Append(std::string& out, const WireString& v);
void Append(std::string& out, Tag v);
void Append(std::string& out, TypeTag v);
void Append(std::string& out, EventKind v);
void Append(std::string& out, SuspendPolicy v);
void Append(std::string& out, StepSize v);
void Append(std::string& out, StepDepth v);

// Splits the stringized JDWP_FIELDS list "a, b, c" one name at a time.
inline std::string_view NextName(std::string_view& names) {
  size_t comma = names.find(',');
  std::string_view name = names.substr(0, comma);
  names = comma == std::string_view::npos ? std::string_view{} : names.substr(comma + 1);
  while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
  while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
  return name;
}

template <class T>
void AppendAny(std::string& out, const T& v);

template <class F>
void AppendNamed(std::string& out, std::string_view& names, const F& field) {
  if (!out.empty() && out.back() != '{') out += ' ';
  out += NextName(names);
  out += '=';
  AppendAny(out, field);
}

template <class T>
void AppendFields(std::string& out, const T& v) {
  std::string_view names = T::jdwp_field_names();
  std::apply([&](const auto&... f) { (AppendNamed(out, names, f), ...); }, v.jdwp_fields());
}

template <class T>
void AppendAny(std::string& out, const T& v) {
  if (out.size() > kMaxLine) return;  // already cut below; stop walking big values
  if constexpr (std::is_same_v<T, bool>) {
    out += v ? "true" : "false";
  } else if constexpr (std::is_same_v<T, Tag> || std::is_same_v<T, TypeTag> || std::is_same_v<T, EventKind> ||
                       std::is_same_v<T, SuspendPolicy> || std::is_same_v<T, StepSize> ||
                       std::is_same_v<T, StepDepth> || std::is_same_v<T, Location> ||
                       std::is_same_v<T, TaggedObjectId> || std::is_same_v<T, Value> ||
                       std::is_same_v<T, UntaggedValue> || std::is_same_v<T, ArrayRegion> ||
                       std::is_same_v<T, WireString>) {
    Append(out, v);
  } else if constexpr (std::is_enum_v<T>) {
    AppendSigned(out, static_cast<int64_t>(v));
  } else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
    AppendSigned(out, v);
  } else if constexpr (std::is_integral_v<T>) {
    AppendUnsigned(out, v);
  } else if constexpr (std::is_floating_point_v<T>) {
    AppendDouble(out, v);
  } else if constexpr (IsStrongId<T>::value) {
    AppendId(out, v.value);
  } else if constexpr (std::is_same_v<T, std::string>) {
    AppendString(out, v);
  } else if constexpr (std::is_same_v<T, RawTail>) {
    AppendBytes(out, v.bytes);
  } else if constexpr (std::is_same_v<T, std::vector<uint8_t>>) {
    AppendBytes(out, v);
  } else if constexpr (IsWireList<T>::value) {
    if (v.wire.empty()) {
      AppendAny(out, v.items);
    } else {
      out += "(";
      AppendUnsigned(out, v.wire.size() - v.wire_offset);
      out += " bytes of items in wire form)";
    }
  } else if constexpr (IsVector<T>::value) {
    out += '[';
    for (size_t i = 0; i < v.size() && i < kMaxItems; ++i) {
      if (i > 0) out += ", ";
      AppendAny(out, v[i]);
    }
    if (v.size() > kMaxItems) {
      out += ", ... (";
      AppendUnsigned(out, v.size());
      out += " items)";
    }
    out += ']';
  } else if constexpr (IsVariant<T>::value) {
    std::visit(
        [&](const auto& alt) {
          out += std::decay_t<decltype(alt)>::kName;
          out += '{';
          AppendFields(out, alt);
          out += '}';
        },
        v);
  } else {
    static_assert(HasFields<T>::value, "type has no JDWP rendering");
    out += '{';
    AppendFields(out, v);
    out += '}';
  }
}

void CapLine(std::string& out);

}  // namespace print_detail

// "thread=0x1a start_frame=0 length=-1" for a layout; any other codec type alone.
template <class T>
std::string Describe(const T& v) {
  std::string out;
  if constexpr (HasFields<T>::value) print_detail::AppendFields(out, v);
  else print_detail::AppendAny(out, v);
  print_detail::CapLine(out);
  return out;
}

// One line for a whole packet (header included):
//   "ThreadReference.Frames id=7 len=27" for a command, "reply id=7 NONE len=212" for a reply,
//   "command 99.3 id=7 len=11" for a command the spec does not define.
std::string DescribePacket(std::span<const uint8_t> whole_packet);

// The fields of a command's data, decoded as that command's Request (Event.Composite
// included), e.g. "thread=0x1a start_frame=0 length=-1"; a short note when the
// command is unknown or the data malformed.
std::string DescribeCommandData(uint8_t set, uint8_t command, std::span<const uint8_t> data);

// The same for the data of a successful reply to that command, decoded as its Reply.
std::string DescribeReplyData(uint8_t set, uint8_t command, std::span<const uint8_t> data);

}  // namespace jdwpx::jdwp
