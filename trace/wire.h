// The agent's encoder: protobuf's wire format for the structs of records.h,
// derived from their TraceFields lists: varints for integers, enums and bools,
// length-delimited for strings, bytes and nested messages. As protobuf does for
// proto3, zero scalars and empty strings are not written and fields go out in
// number order.
//
// Why not libprotobuf in the agent: the agent is a shared library loaded into
// someone else's JVM, exporting only its Agent_* entry points. Debian's static
// libprotobuf-lite.a cannot go into a shared object (local-exec TLS), and a
// shared libprotobuf would be loaded into the debuggee, where the application's
// own native libraries may bring another protobuf version: two versions of its
// global symbols and descriptor pool in one process clash. So the agent writes
// with these few lines, and only readers (reader.cc, jdwpx-trace) use the
// classes protoc generates from trace.proto; trace/tests/schema_test.cc and
// proto_readback_test.cc hold the two to the same bytes and values.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

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

}  // namespace jdwpx::trace
