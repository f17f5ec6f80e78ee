// Generic JDWP encoding and decoding, derived from one declaration per layout.
//
// A layout is a struct whose fields are listed once with JDWP_FIELDS(...).
// Encode/Decode/Print walk that list; a "select" (event kind, modifier kind)
// is a std::variant of layouts that each declare `static constexpr uint8_t kSelect`.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <variant>
#include <vector>

#include "jdwp/byte_order.h"
#include "jdwp/error.h"
#include "jdwp/types.h"

#define JDWP_FIELDS(...)                                                     \
  auto jdwp_fields() { return std::tie(__VA_ARGS__); }                       \
  auto jdwp_fields() const { return std::tie(__VA_ARGS__); }                 \
  static constexpr std::string_view jdwp_field_names() { return #__VA_ARGS__; }

namespace jdwpx::jdwp {

// Big-endian output buffer.
class Writer {
 public:
  Writer() = default;
  // The buffer starts with `headroom` bytes of room (for a packet header, see
  // MakeReplyPacketIn); size() counts them.
  explicit Writer(size_t headroom) : headroom_(headroom) { buf_.resize(headroom); }
  void U8(uint8_t v) { buf_.push_back(v); }
  void U16(uint16_t v) { Be(v); }
  void U32(uint32_t v) { Be(v); }
  void U64(uint64_t v) { Be(v); }
  void Bytes(const void* data, size_t n) {
    const auto* p = static_cast<const uint8_t*>(data);
    buf_.insert(buf_.end(), p, p + n);
  }
  void String(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    Bytes(s.data(), s.size());
  }
  // Overwrites 4 bytes at `offset` (used to back-patch counts and lengths).
  void PatchU32(size_t offset, uint32_t v) {
    for (int i = 0; i < 4; ++i) buf_[offset + i] = static_cast<uint8_t>(v >> (24 - 8 * i));
  }
  size_t size() const { return buf_.size(); }
  void Reserve(size_t n) { buf_.reserve(n); }
  // Appends `bytes` from `offset` on; into a writer holding only its headroom,
  // by taking the buffer over (no copy) when the room before `offset` is the
  // same size.
  void Append(std::vector<uint8_t>&& bytes, size_t offset = 0) {
    if (buf_.size() == headroom_ && offset == headroom_) {
      buf_.swap(bytes);
      bytes.clear();
    } else {
      buf_.insert(buf_.end(), bytes.begin() + static_cast<std::ptrdiff_t>(offset), bytes.end());
    }
  }
  std::vector<uint8_t>& bytes() { return buf_; }
  std::vector<uint8_t> Take() { return std::move(buf_); }
  // Room for `n` more bytes, growing geometrically (an exact reserve per item
  // of a nested list would reallocate for each one).
  void Grow(size_t n) {
    if (buf_.size() + n > buf_.capacity()) buf_.reserve(std::max(buf_.size() + n, 2 * buf_.capacity()));
  }

 private:
  // One resize and one store per number: a class scan encodes 10,000s of them.
  template <class T>
  void Be(T v) {
    uint8_t bytes[sizeof(T)];
    PutBigEndian(bytes, v);
    const size_t at = buf_.size();
    buf_.resize(at + sizeof(T));
    std::memcpy(buf_.data() + at, bytes, sizeof(T));
  }
  std::vector<uint8_t> buf_;
  size_t headroom_ = 0;
};

// Bounds-checked big-endian input. After the first failure every read fails and
// yields zero; callers check ok() (or the Result of Decode) once at the end.
class Reader {
 public:
  explicit Reader(std::span<const uint8_t> data) : data_(data) {}
  bool U8(uint8_t& v) { return Be(v); }
  bool U16(uint16_t& v) { return Be(v); }
  bool U32(uint32_t& v) { return Be(v); }
  bool U64(uint64_t& v) { return Be(v); }
  bool Bytes(void* out, size_t n) {
    if (!Need(n)) return false;
    if (n == 0) return true;  // `out` may be null (empty vector): memcpy forbids that even for 0 bytes
    std::memcpy(out, data_.data() + pos_, n);
    pos_ += n;
    return true;
  }
  bool String(std::string& s) {
    uint32_t n = 0;
    if (!U32(n) || !Need(n)) return Failed("string length past end");
    s.assign(reinterpret_cast<const char*>(data_.data() + pos_), n);
    pos_ += n;
    return true;
  }
  // Reads a repeat count: negative or larger than the bytes left (each item needs
  // at least `min_item_size` bytes) is malformed, so no huge allocation happens.
  bool Count(int32_t& n, size_t min_item_size) {
    uint32_t raw = 0;
    if (!U32(raw)) return false;
    n = static_cast<int32_t>(raw);
    if (n < 0) {
      if (ok_) negative_count_ = true;
      return Failed("negative count");
    }
    if (min_item_size > 0 && static_cast<uint64_t>(n) * min_item_size > remaining()) return Failed("count past end");
    return true;
  }
  bool Failed(const char* why) {
    if (ok_) why_ = why;
    ok_ = false;
    return false;
  }
  bool ok() const { return ok_; }
  const char* why() const { return why_; }
  // The first failure was a negative repeat count.
  bool negative_count() const { return negative_count_; }
  size_t position() const { return pos_; }
  size_t remaining() const { return ok_ ? data_.size() - pos_ : 0; }
  std::span<const uint8_t> rest() const { return data_.subspan(pos_); }
  void Skip(size_t n) { if (Need(n)) pos_ += n; }

 private:
  bool Need(size_t n) {
    if (!ok_) return false;
    if (data_.size() - pos_ < n) return Failed("read past end");
    return true;
  }
  template <class T>
  bool Be(T& v) {
    v = 0;
    if (!Need(sizeof(T))) return false;
    for (size_t i = 0; i < sizeof(T); ++i) v = static_cast<T>((v << 8) | data_[pos_ + i]);
    pos_ += sizeof(T);
    return true;
  }
  std::span<const uint8_t> data_;
  size_t pos_ = 0;
  bool ok_ = true;
  bool negative_count_ = false;
  const char* why_ = "";
};

// ---- traits ----------------------------------------------------------------

template <class T, class = void>
struct HasFields : std::false_type {};
template <class T>
struct HasFields<T, std::void_t<decltype(std::declval<T&>().jdwp_fields())>> : std::true_type {};

template <class T>
struct IsStrongId : std::false_type {};
template <class K>
struct IsStrongId<StrongId<K>> : std::true_type {};

template <class T>
struct IsVector : std::false_type {};
template <class T, class A>
struct IsVector<std::vector<T, A>> : std::true_type {};

template <class T>
struct IsWireList : std::false_type {};
template <class T>
struct IsWireList<WireList<T>> : std::true_type {};

template <class T>
struct IsVariant : std::false_type {};
template <class... Ts>
struct IsVariant<std::variant<Ts...>> : std::true_type {};

template <class T>
struct IsEnum : std::is_enum<T> {};

template <class T>
constexpr size_t MinWireSize();

template <class Tuple>
struct MinFieldsSize;
template <class... Fs>
struct MinFieldsSize<std::tuple<Fs...>> {
  static constexpr size_t value = (size_t{0} + ... + MinWireSize<std::remove_cvref_t<Fs>>());
};

// Smallest number of wire bytes one item of T can occupy (guards repeat counts).
template <class T>
constexpr size_t MinWireSize() {
  if constexpr (std::is_same_v<T, bool>) return 1;
  else if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>) return sizeof(T);
  else if constexpr (IsStrongId<T>::value) return 8;
  else if constexpr (std::is_same_v<T, std::string> || std::is_same_v<T, WireString>) return 4;
  else if constexpr (std::is_same_v<T, Location>) return 25;
  else if constexpr (std::is_same_v<T, TaggedObjectId>) return 9;
  else if constexpr (std::is_same_v<T, Value>) return 1;
  else if constexpr (IsVector<T>::value || IsWireList<T>::value) return 4;
  else if constexpr (IsVariant<T>::value) return 1;
  else if constexpr (std::is_same_v<T, ArrayRegion>) return 5;
  else if constexpr (HasFields<T>::value) return MinFieldsSize<decltype(std::declval<T&>().jdwp_fields())>::value;
  else return 0;
}

// ---- encoding ---------------------------------------------------------------

void EncodeValue(Writer& w, const Value& v);
void EncodeUntagged(Writer& w, Tag tag, uint64_t bits);
void EncodeArrayRegion(Writer& w, const ArrayRegion& r);
bool DecodeValue(Reader& r, Value& v);
bool DecodeUntagged(Reader& r, Tag tag, UntaggedValue& v);
bool DecodeArrayRegion(Reader& r, ArrayRegion& region);

template <class T>
void Encode(Writer& w, const T& v);

template <class T>
void EncodeFields(Writer& w, const T& v) {
  std::apply([&](const auto&... f) { (Encode(w, f), ...); }, v.jdwp_fields());
}

template <class T>
void Encode(Writer& w, const T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    w.U8(v ? 1 : 0);
  } else if constexpr (std::is_enum_v<T>) {
    Encode(w, static_cast<std::underlying_type_t<T>>(v));
  } else if constexpr (std::is_integral_v<T>) {
    if constexpr (sizeof(T) == 1) w.U8(static_cast<uint8_t>(v));
    else if constexpr (sizeof(T) == 2) w.U16(static_cast<uint16_t>(v));
    else if constexpr (sizeof(T) == 4) w.U32(static_cast<uint32_t>(v));
    else w.U64(static_cast<uint64_t>(v));
  } else if constexpr (std::is_same_v<T, float>) {
    w.U32(std::bit_cast<uint32_t>(v));
  } else if constexpr (std::is_same_v<T, double>) {
    w.U64(std::bit_cast<uint64_t>(v));
  } else if constexpr (IsStrongId<T>::value) {
    w.U64(v.value);
  } else if constexpr (std::is_same_v<T, std::string>) {
    w.String(v);
  } else if constexpr (std::is_same_v<T, Location>) {
    w.U8(static_cast<uint8_t>(v.type_tag));
    w.U64(v.class_id.value);
    w.U64(v.method_id.value);
    w.U64(v.index);
  } else if constexpr (std::is_same_v<T, TaggedObjectId>) {
    w.U8(static_cast<uint8_t>(v.tag));
    w.U64(v.id.value);
  } else if constexpr (std::is_same_v<T, Value>) {
    EncodeValue(w, v);
  } else if constexpr (std::is_same_v<T, UntaggedValue>) {
    EncodeUntagged(w, v.tag, v.bits);
  } else if constexpr (std::is_same_v<T, WireString>) {
    // In wire form, handed over as a region is (see ArrayRegion).
    if (!v.wire.empty()) w.Append(std::move(v.wire), v.wire_offset);
    else w.String(v.text);
  } else if constexpr (std::is_same_v<T, ArrayRegion>) {
    // A region in wire form (see ArrayRegion) is handed over when the writer is empty.
    if (!v.wire.empty()) w.Append(std::move(v.wire), v.wire_offset);
    else EncodeArrayRegion(w, v);
  } else if constexpr (IsWireList<T>::value) {
    // In wire form, handed over as a region is (see ArrayRegion).
    if (!v.wire.empty()) w.Append(std::move(v.wire), v.wire_offset);
    else Encode(w, v.items);
  } else if constexpr (std::is_same_v<T, RawTail>) {
    w.Bytes(v.bytes.data(), v.bytes.size());
  } else if constexpr (std::is_same_v<T, std::vector<uint8_t>>) {
    w.U32(static_cast<uint32_t>(v.size()));
    w.Bytes(v.data(), v.size());
  } else if constexpr (IsVector<T>::value) {
    w.U32(static_cast<uint32_t>(v.size()));
    w.Grow(v.size() * MinWireSize<typename T::value_type>());
    for (const auto& item : v) Encode(w, item);
  } else if constexpr (IsVariant<T>::value) {
    std::visit(
        [&](const auto& alt) {
          w.U8(std::decay_t<decltype(alt)>::kSelect);
          EncodeFields(w, alt);
        },
        v);
  } else {
    static_assert(HasFields<T>::value, "type has no JDWP encoding");
    EncodeFields(w, v);
  }
}

// ---- decoding ---------------------------------------------------------------

template <class T>
bool Decode(Reader& r, T& v);

template <class T>
bool DecodeFields(Reader& r, T& v) {
  return std::apply([&](auto&... f) { return (Decode(r, f) && ...); }, v.jdwp_fields());
}

template <class Variant, size_t I = 0>
bool DecodeSelect(Reader& r, uint8_t select, Variant& out) {
  if constexpr (I == std::variant_size_v<Variant>) {
    return r.Failed("unknown selector");
  } else {
    using Alt = std::variant_alternative_t<I, Variant>;
    if (Alt::kSelect == select) {
      Alt alt{};
      if (!DecodeFields(r, alt)) return false;
      out = std::move(alt);
      return true;
    }
    return DecodeSelect<Variant, I + 1>(r, select, out);
  }
}

template <class T>
bool Decode(Reader& r, T& v) {
  if constexpr (std::is_same_v<T, bool>) {
    uint8_t b = 0;
    if (!r.U8(b)) return false;
    v = b != 0;
    return true;
  } else if constexpr (std::is_enum_v<T>) {
    std::underlying_type_t<T> raw{};
    if (!Decode(r, raw)) return false;
    v = static_cast<T>(raw);
    return true;
  } else if constexpr (std::is_integral_v<T>) {
    if constexpr (sizeof(T) == 1) { uint8_t x; if (!r.U8(x)) return false; v = static_cast<T>(x); }
    else if constexpr (sizeof(T) == 2) { uint16_t x; if (!r.U16(x)) return false; v = static_cast<T>(x); }
    else if constexpr (sizeof(T) == 4) { uint32_t x; if (!r.U32(x)) return false; v = static_cast<T>(x); }
    else { uint64_t x; if (!r.U64(x)) return false; v = static_cast<T>(x); }
    return true;
  } else if constexpr (std::is_same_v<T, float>) {
    uint32_t x; if (!r.U32(x)) return false; v = std::bit_cast<float>(x); return true;
  } else if constexpr (std::is_same_v<T, double>) {
    uint64_t x; if (!r.U64(x)) return false; v = std::bit_cast<double>(x); return true;
  } else if constexpr (IsStrongId<T>::value) {
    return r.U64(v.value);
  } else if constexpr (std::is_same_v<T, std::string>) {
    return r.String(v);
  } else if constexpr (std::is_same_v<T, WireString>) {
    return r.String(v.text);
  } else if constexpr (std::is_same_v<T, Location>) {
    uint8_t tag = 0;
    if (!r.U8(tag) || !r.U64(v.class_id.value) || !r.U64(v.method_id.value) || !r.U64(v.index)) return false;
    v.type_tag = static_cast<TypeTag>(tag);
    return true;
  } else if constexpr (std::is_same_v<T, TaggedObjectId>) {
    uint8_t tag = 0;
    if (!r.U8(tag) || !r.U64(v.id.value)) return false;
    if (!IsKnownTag(tag) || !IsObjectTag(static_cast<Tag>(tag))) return r.Failed("not an object tag");
    v.tag = static_cast<Tag>(tag);
    return true;
  } else if constexpr (std::is_same_v<T, Value>) {
    return DecodeValue(r, v);
  } else if constexpr (std::is_same_v<T, ArrayRegion>) {
    return DecodeArrayRegion(r, v);
  } else if constexpr (IsWireList<T>::value) {
    return Decode(r, v.items);
  } else if constexpr (std::is_same_v<T, RawTail>) {
    auto rest = r.rest();
    v.bytes.assign(rest.begin(), rest.end());
    r.Skip(rest.size());
    return r.ok();
  } else if constexpr (std::is_same_v<T, std::vector<uint8_t>>) {
    int32_t n = 0;
    if (!r.Count(n, 1)) return false;
    v.resize(static_cast<size_t>(n));
    return r.Bytes(v.data(), v.size());
  } else if constexpr (IsVector<T>::value) {
    int32_t n = 0;
    // An item of no wire bytes cannot exist in a layout; counting it as one byte
    // keeps a forged count from looping or allocating without input to back it.
    constexpr size_t kMinItem = MinWireSize<typename T::value_type>() > 0 ? MinWireSize<typename T::value_type>() : 1;
    if (!r.Count(n, kMinItem)) return false;
    v.clear();
    v.reserve(static_cast<size_t>(n));
    for (int32_t i = 0; i < n; ++i) {
      typename T::value_type item{};
      if (!Decode(r, item)) return false;
      v.push_back(std::move(item));
    }
    return true;
  } else if constexpr (IsVariant<T>::value) {
    uint8_t select = 0;
    if (!r.U8(select)) return false;
    return DecodeSelect(r, select, v);
  } else {
    static_assert(HasFields<T>::value, "type has no JDWP decoding");
    return DecodeFields(r, v);
  }
}

// Decodes a whole body: trailing bytes are tolerated (logged by the caller),
// a short or malformed body is an error (`negative_count`: it was a negative
// repeat count, which some commands answer with an error of their own).
template <class T>
Result<T> DecodeBody(std::span<const uint8_t> data, size_t* leftover = nullptr, bool* negative_count = nullptr) {
  Reader r(data);
  T v{};
  if (!Decode(r, v) || !r.ok()) {
    if (negative_count) *negative_count = r.negative_count();
    return Fail(ErrorCode::kIllegalArgument, std::string("malformed packet data: ") + r.why());
  }
  if (leftover) *leftover = r.remaining();
  return v;
}

template <class T>
std::vector<uint8_t> EncodeBody(const T& v, size_t headroom = 0) {
  Writer w(headroom);
  Encode(w, v);
  return w.Take();
}

// ---- lists built in wire form -----------------------------------------------

// Bytes already in wire form, standing for one or more fields of an item
// (WireListBuilder::Add): e.g. a JDWP string encoded once and kept.
struct Raw {
  const uint8_t* data = nullptr;
  size_t size = 0;
  Raw() = default;
  explicit Raw(std::span<const uint8_t> bytes) : data(bytes.data()), size(bytes.size()) {}
  explicit Raw(std::string_view bytes) : data(reinterpret_cast<const uint8_t*>(bytes.data())), size(bytes.size()) {}
};

// Builds a WireList<T> item by item in one buffer, as Encode would write the
// typed list: each Add gives one item's fields in T's layout order, each a
// number, an enum, an ID, or Raw bytes already in wire form for a run of
// fields. Reserve the items' total size first and the list is one allocation
// and a copy per field, with no typed item made: VirtualMachine.AllClasses
// lists 10,000s of classes from a table under its lock. jdwp/tests hold it to
// the generic encoding of the same items.
class WireListBuilder {
 public:
  // `headroom`: bytes of room before the list (a packet header's, see ArrayRegion).
  explicit WireListBuilder(size_t headroom = 0) : headroom_(headroom), at_(headroom + 4) { buf_.resize(at_); }
  // Room for `bytes` more bytes of items without growing.
  void Reserve(size_t bytes) {
    if (at_ + bytes > buf_.size()) buf_.resize(at_ + bytes);
  }
  template <class... F>
  void Add(const F&... fields) {
    const size_t n = (size_t{0} + ... + SizeOf(fields));
    if (at_ + n > buf_.size()) buf_.resize(std::max(at_ + n, 2 * buf_.size()));
    uint8_t* p = buf_.data() + at_;
    (Put(p, fields), ...);
    at_ += n;
    ++count_;
  }
  size_t count() const { return count_; }
  // Bytes written so far (from the start of the buffer, headroom included):
  // where the next item starts, for PatchU64.
  size_t size() const { return at_; }
  // Overwrites 8 bytes at `offset` (a field of an item already added: an ID
  // only known after the item was written).
  void PatchU64(size_t offset, uint64_t v) {
    uint8_t* p = buf_.data() + offset;
    PutBig(p, v);
  }
  template <class T>
  WireList<T> Finish() && {
    buf_.resize(at_);
    const auto n = static_cast<uint32_t>(count_);
    for (int i = 0; i < 4; ++i) buf_[headroom_ + i] = static_cast<uint8_t>(n >> (24 - 8 * i));
    WireList<T> out;
    out.wire = std::move(buf_);
    out.wire_offset = headroom_;
    return out;
  }

 private:
  template <class F>
  static constexpr size_t SizeOf(const F& f) {
    if constexpr (std::is_same_v<F, Raw>) return f.size;
    else if constexpr (IsStrongId<F>::value) return 8;
    else if constexpr (std::is_enum_v<F>) return sizeof(std::underlying_type_t<F>);
    else {
      static_assert(std::is_integral_v<F> && !std::is_same_v<F, bool>, "field has no fixed wire form here");
      return sizeof(F);
    }
  }
  template <class U>
  static void PutBig(uint8_t*& p, U v) {
    // One byte swap and one store (a byte loop here is most of a class scan's encoding).
    if constexpr (sizeof(U) == 2) v = __builtin_bswap16(v);
    else if constexpr (sizeof(U) == 4) v = __builtin_bswap32(v);
    else if constexpr (sizeof(U) == 8) v = __builtin_bswap64(v);
    std::memcpy(p, &v, sizeof(U));
    p += sizeof(U);
  }
  template <class F>
  static void Put(uint8_t*& p, const F& f) {
    if constexpr (std::is_same_v<F, Raw>) {
      if (f.size) std::memcpy(p, f.data, f.size);
      p += f.size;
    } else if constexpr (IsStrongId<F>::value) {
      PutBig(p, f.value);
    } else if constexpr (std::is_enum_v<F>) {
      PutBig(p, static_cast<std::make_unsigned_t<std::underlying_type_t<F>>>(f));
    } else {
      PutBig(p, static_cast<std::make_unsigned_t<F>>(f));
    }
  }
  std::vector<uint8_t> buf_;
  size_t headroom_;
  size_t at_;
  size_t count_ = 0;
};

// ---- context-dependent tails ---------------------------------------------------
// ObjectReference.SetValues, ClassType.SetValues and ArrayReference.SetValues carry
// untagged values whose types only the handler knows (field signature, array
// component type). Their layouts end in RawTail; these helpers read and write it.

// One `fieldID fieldID; untagged-value value` item.
struct FieldValue {
  FieldId field_id;
  UntaggedValue value;
  friend bool operator==(const FieldValue&, const FieldValue&) = default;
};

// Reads `repeat int values { fieldID fieldID; untagged-value value }`. `tag_of(FieldId)`
// returns Result<Tag> (the field's type tag) or the error to answer with, e.g.
// INVALID_FIELDID; it is called once per item, before that item's value is read.
template <class TagOf>
Result<std::vector<FieldValue>> DecodeFieldValues(std::span<const uint8_t> tail, TagOf&& tag_of) {
  Reader r(tail);
  int32_t n = 0;
  if (!r.Count(n, 8)) return Fail(ErrorCode::kIllegalArgument, std::string("malformed field values: ") + r.why());
  std::vector<FieldValue> out;
  out.reserve(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) {
    FieldValue item;
    if (!r.U64(item.field_id.value)) break;
    Result<Tag> tag = tag_of(item.field_id);
    if (!tag) return tl::unexpected(std::move(tag).error());
    if (!DecodeUntagged(r, *tag, item.value)) break;
    out.push_back(item);
  }
  if (!r.ok()) return Fail(ErrorCode::kIllegalArgument, std::string("malformed field values: ") + r.why());
  return out;
}

// Reads `repeat int values { untagged-value value }`, all of type `component`.
Result<std::vector<UntaggedValue>> DecodeUntaggedValues(std::span<const uint8_t> tail, Tag component);

// The inverse of the two readers above (for tests, fuzzing and debugger-side tools).
RawTail EncodeFieldValues(const std::vector<FieldValue>& values);
RawTail EncodeUntaggedValues(const std::vector<UntaggedValue>& values);

}  // namespace jdwpx::jdwp
