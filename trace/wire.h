// protobuf's wire format for the structs of records.h, derived from their
// TraceFields lists: varints for integers, enums and bools, length-delimited
// for strings, bytes and nested messages. As protobuf does for proto3, zero
// scalars and empty strings are not written, fields go out in number order,
// and a decoder skips fields it does not know.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include <tl/expected.hpp>

#include "trace/records.h"

namespace jdwpx::trace {

namespace wire {

enum WireType : uint32_t { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

inline void PutVarint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out += static_cast<char>(v | 0x80);
    v >>= 7;
  }
  out += static_cast<char>(v);
}

inline void PutTag(std::string& out, uint32_t number, WireType type) { PutVarint(out, uint64_t{number} << 3 | type); }

// A view being decoded; `error` is set at the first problem.
struct Cursor {
  const uint8_t* p;
  const uint8_t* end;
  std::string error;

  std::optional<uint64_t> Varint() {
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p == end) {
        error = "a varint runs past the end";
        return std::nullopt;
      }
      uint8_t b = *p++;
      v |= uint64_t{b & 0x7fu} << shift;
      if (!(b & 0x80)) return v;
    }
    error = "a varint is longer than 10 bytes";
    return std::nullopt;
  }
  std::optional<std::span<const uint8_t>> Bytes() {
    auto n = Varint();
    if (!n) return std::nullopt;
    if (*n > static_cast<uint64_t>(end - p)) {
      error = "a field's length runs past the end";
      return std::nullopt;
    }
    std::span<const uint8_t> s(p, static_cast<size_t>(*n));
    p += *n;
    return s;
  }
  bool Skip(uint32_t type) {
    switch (type) {
      case kVarint: return Varint().has_value();
      case kLengthDelimited: return Bytes().has_value();
      case kFixed64:
      case kFixed32: {
        size_t n = type == kFixed64 ? 8 : 4;
        if (static_cast<size_t>(end - p) < n) {
          error = "a fixed field runs past the end";
          return false;
        }
        p += n;
        return true;
      }
      default:
        error = "unknown wire type " + std::to_string(type);
        return false;
    }
  }
};

template <class T>
struct IsOptional : std::false_type {};
template <class T>
struct IsOptional<std::optional<T>> : std::true_type {};

template <class M>
void EncodeMessage(std::string& out, const M& m);

template <class V>
void PutField(std::string& out, uint32_t number, const V& v) {
  if constexpr (IsOptional<V>::value) {
    if (!v) return;
    std::string nested;
    EncodeMessage(nested, *v);
    PutTag(out, number, kLengthDelimited);
    PutVarint(out, nested.size());
    out += nested;
  } else if constexpr (std::is_same_v<V, std::string> || std::is_same_v<V, std::vector<uint8_t>>) {
    if (v.empty()) return;
    PutTag(out, number, kLengthDelimited);
    PutVarint(out, v.size());
    out.append(reinterpret_cast<const char*>(v.data()), v.size());
  } else if constexpr (std::is_enum_v<V>) {
    if (v == V{}) return;
    PutTag(out, number, kVarint);
    PutVarint(out, static_cast<uint64_t>(v));
  } else if constexpr (std::is_signed_v<V>) {
    // int32: negative values are sign-extended to ten bytes, as protobuf does.
    if (v == 0) return;
    PutTag(out, number, kVarint);
    PutVarint(out, static_cast<uint64_t>(static_cast<int64_t>(v)));
  } else {
    if (v == 0) return;
    PutTag(out, number, kVarint);
    PutVarint(out, static_cast<uint64_t>(v));
  }
}

template <class M>
void EncodeMessage(std::string& out, const M& m) {
  std::apply([&](auto... f) { (PutField(out, decltype(f)::kNumber, m.*decltype(f)::kMember), ...); },
             TraceFields(static_cast<const M*>(nullptr)));
}

template <class M>
bool DecodeMessage(Cursor& in, M& m);

template <class V>
bool GetField(Cursor& in, uint32_t type, V& v) {
  constexpr bool kDelimited = IsOptional<V>::value || std::is_same_v<V, std::string> ||
                              std::is_same_v<V, std::vector<uint8_t>>;
  // A known number with another wire type is skipped, as protobuf's parser
  // would treat it as unknown.
  if ((type == kLengthDelimited) != kDelimited || (!kDelimited && type != kVarint)) return in.Skip(type);
  if constexpr (kDelimited) {
    auto bytes = in.Bytes();
    if (!bytes) return false;
    if constexpr (IsOptional<V>::value) {
      // A oneof member seen twice merges, as in protobuf.
      if (!v) v.emplace();
      Cursor nested{bytes->data(), bytes->data() + bytes->size(), {}};
      if (!DecodeMessage(nested, *v)) {
        in.error = nested.error;
        return false;
      }
    } else {
      v.assign(bytes->begin(), bytes->end());
    }
  } else {
    auto raw = in.Varint();
    if (!raw) return false;
    if constexpr (std::is_same_v<V, bool>) {
      v = *raw != 0;
    } else {
      v = static_cast<V>(*raw);
    }
  }
  return true;
}

template <class M>
bool DecodeMessage(Cursor& in, M& m) {
  while (in.p != in.end) {
    auto tag = in.Varint();
    if (!tag) return false;
    uint32_t number = static_cast<uint32_t>(*tag >> 3);
    uint32_t type = static_cast<uint32_t>(*tag & 7);
    if (number == 0) {
      in.error = "field number 0";
      return false;
    }
    bool known = false;
    bool ok = true;
    std::apply(
        [&](auto... f) {
          ((!known && decltype(f)::kNumber == number
                ? (known = true, ok = GetField(in, type, m.*decltype(f)::kMember))
                : false),
           ...);
        },
        TraceFields(static_cast<const M*>(nullptr)));
    if (!known) ok = in.Skip(type);
    if (!ok) return false;
  }
  return true;
}

}  // namespace wire

// A record's bytes, without the length prefix.
inline std::string Encode(const Record& record) {
  std::string out;
  wire::EncodeMessage(out, record);
  return out;
}

// A record with its varint length prefix, as it is stored in a trace file.
inline void AppendDelimited(std::string& out, const Record& record) {
  std::string body = Encode(record);
  wire::PutVarint(out, body.size());
  out += body;
}

// Decodes one record's bytes (no length prefix); the error says what is wrong.
inline tl::expected<Record, std::string> Decode(std::span<const uint8_t> bytes) {
  Record record;
  wire::Cursor in{bytes.data(), bytes.data() + bytes.size(), {}};
  if (!wire::DecodeMessage(in, record)) return tl::unexpected(in.error);
  return record;
}

}  // namespace jdwpx::trace
