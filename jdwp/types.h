// Wire-level value types of JDWP: strong IDs, tags, locations, values.
// All IDs are 8 bytes on the wire (IDSizes answers 8 for each, as HotSpot does).
#pragma once

#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace jdwpx::jdwp {

template <class Kind>
struct StrongId {
  uint64_t value = 0;
  constexpr StrongId() = default;
  constexpr explicit StrongId(uint64_t v) : value(v) {}
  constexpr bool is_null() const { return value == 0; }
  friend constexpr auto operator<=>(const StrongId&, const StrongId&) = default;
};

// objectID and its aliases: same size and value space, distinct C++ types.
using ObjectId = StrongId<struct ObjectKind>;
using ThreadId = StrongId<struct ThreadKind>;
using ThreadGroupId = StrongId<struct ThreadGroupKind>;
using StringId = StrongId<struct StringKind>;
using ClassLoaderId = StrongId<struct ClassLoaderKind>;
using ClassObjectId = StrongId<struct ClassObjectKind>;
using ArrayId = StrongId<struct ArrayKind>;
using ModuleId = StrongId<struct ModuleKind>;
// referenceTypeID and its aliases classID, interfaceID, arrayTypeID.
using ReferenceTypeId = StrongId<struct ReferenceTypeKind>;
using ClassId = ReferenceTypeId;
using InterfaceId = ReferenceTypeId;
using ArrayTypeId = ReferenceTypeId;
using MethodId = StrongId<struct MethodKind>;
using FieldId = StrongId<struct FieldKind>;
using FrameId = StrongId<struct FrameKind>;

template <class To, class From>
constexpr To IdCast(From from) { return To{from.value}; }

// Tag constants (the "Tag" constant set): first byte of a value.
enum class Tag : uint8_t {
  kArray = '[',
  kByte = 'B',
  kChar = 'C',
  kObject = 'L',
  kFloat = 'F',
  kDouble = 'D',
  kInt = 'I',
  kLong = 'J',
  kShort = 'S',
  kVoid = 'V',
  kBoolean = 'Z',
  kString = 's',
  kThread = 't',
  kThreadGroup = 'g',
  kClassLoader = 'l',
  kClassObject = 'c',
};

bool IsKnownTag(uint8_t tag);
bool IsObjectTag(Tag tag);
// Bytes of the untagged data for a tag: 0 for void, 8 for object tags.
size_t TagDataSize(Tag tag);

enum class TypeTag : uint8_t { kClass = 1, kInterface = 2, kArray = 3 };

struct Location {
  TypeTag type_tag = TypeTag::kClass;
  ClassId class_id;
  MethodId method_id;
  uint64_t index = 0;
  friend bool operator==(const Location&, const Location&) = default;
};

struct TaggedObjectId {
  Tag tag = Tag::kObject;
  ObjectId id;
  friend bool operator==(const TaggedObjectId&, const TaggedObjectId&) = default;
};

// A tagged value. Primitives keep their bits in `bits` (sign-extended for
// integral types, IEEE bits for float/double); object tags keep the objectID.
struct Value {
  Tag tag = Tag::kVoid;
  uint64_t bits = 0;

  static Value Void() { return {Tag::kVoid, 0}; }
  static Value Boolean(bool v) { return {Tag::kBoolean, v ? 1u : 0u}; }
  static Value Byte(int8_t v) { return {Tag::kByte, static_cast<uint64_t>(static_cast<int64_t>(v))}; }
  static Value Char(uint16_t v) { return {Tag::kChar, v}; }
  static Value Short(int16_t v) { return {Tag::kShort, static_cast<uint64_t>(static_cast<int64_t>(v))}; }
  static Value Int(int32_t v) { return {Tag::kInt, static_cast<uint64_t>(static_cast<int64_t>(v))}; }
  static Value Long(int64_t v) { return {Tag::kLong, static_cast<uint64_t>(v)}; }
  static Value Float(float v);
  static Value Double(double v);
  static Value Object(Tag tag, ObjectId id) { return {tag, id.value}; }

  ObjectId object() const { return ObjectId{bits}; }
  int32_t as_int() const { return static_cast<int32_t>(bits); }
  int64_t as_long() const { return static_cast<int64_t>(bits); }
  float as_float() const;
  double as_double() const;
  friend bool operator==(const Value&, const Value&) = default;
};

// The data of a value whose tag is known from context (field or array component).
struct UntaggedValue {
  Tag tag = Tag::kVoid;  // not on the wire
  uint64_t bits = 0;
  friend bool operator==(const UntaggedValue&, const UntaggedValue&) = default;
};

// arrayregion: leading tag, count, then items (full values for object
// components, untagged data for primitives).
//
// A region is held in one of two forms. Decoding gives `tag` + `values`. The
// agent builds huge replies (a 10M-element long[]) in wire form instead: `wire`
// then holds the whole region (tag, count, items) and is what gets encoded, at
// 1-9 bytes per element rather than a 16-byte Value. When a wire-form region is
// the first thing encoded into a Writer (the only field of a reply body), the
// encoder takes the buffer over instead of copying it, which leaves the region
// empty: such a region is encoded once.
struct ArrayRegion {
  Tag tag = Tag::kInt;
  std::vector<Value> values;  // each value's own tag; for primitives equal to `tag`
  mutable std::vector<uint8_t> wire = {};  // non-empty: the wire form; tag and values unused
  // Bytes at the start of `wire` before the wire form: room left for a packet
  // header, so that a reply made of the region alone is never moved (see
  // Writer's headroom and MakeReplyPacketIn).
  size_t wire_offset = 0;
  friend bool operator==(const ArrayRegion&, const ArrayRegion&) = default;
};

// A JDWP string the agent may build straight in wire form (its 4-byte length
// and its bytes, after `wire_offset` bytes of room for a packet header), so
// that a huge one (StringReference.Value of a 50 MB string) is never copied
// into a reply; otherwise `text`. Decoding fills `text`.
struct WireString {
  std::string text;
  mutable std::vector<uint8_t> wire = {};
  size_t wire_offset = 0;
  friend bool operator==(const WireString&, const WireString&) = default;
};

// A `repeat` list the agent may build straight in wire form (its 4-byte count
// and its items, after `wire_offset` bytes of room for a packet header; see
// WireListBuilder in codec.h), so that a list of 10,000s of items copied out of
// a table under its lock (VirtualMachine.AllClasses: each class's signatures
// kept in wire form) is neither held as typed items nor encoded field by
// field; otherwise `items`. Decoding fills `items`. In wire form it is handed
// over as a region is (see ArrayRegion): encoded once.
template <class T>
struct WireList {
  std::vector<T> items;
  mutable std::vector<uint8_t> wire = {};
  size_t wire_offset = 0;
  friend bool operator==(const WireList&, const WireList&) = default;
};

// The rest of a packet's data, left for a handler that needs context to decode it
// (untagged values whose types depend on fields or slots).
struct RawTail {
  std::vector<uint8_t> bytes;
  friend bool operator==(const RawTail&, const RawTail&) = default;
};

}  // namespace jdwpx::jdwp
