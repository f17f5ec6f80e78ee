#include "jdwp/codec.h"

namespace jdwpx::jdwp {

Value Value::Float(float v) { return {Tag::kFloat, std::bit_cast<uint32_t>(v)}; }
Value Value::Double(double v) { return {Tag::kDouble, std::bit_cast<uint64_t>(v)}; }
float Value::as_float() const { return std::bit_cast<float>(static_cast<uint32_t>(bits)); }
double Value::as_double() const { return std::bit_cast<double>(bits); }

bool IsKnownTag(uint8_t tag) {
  switch (static_cast<Tag>(tag)) {
    case Tag::kArray:
    case Tag::kByte:
    case Tag::kChar:
    case Tag::kObject:
    case Tag::kFloat:
    case Tag::kDouble:
    case Tag::kInt:
    case Tag::kLong:
    case Tag::kShort:
    case Tag::kVoid:
    case Tag::kBoolean:
    case Tag::kString:
    case Tag::kThread:
    case Tag::kThreadGroup:
    case Tag::kClassLoader:
    case Tag::kClassObject:
      return true;
  }
  return false;
}

bool IsObjectTag(Tag tag) {
  switch (tag) {
    case Tag::kArray:
    case Tag::kObject:
    case Tag::kString:
    case Tag::kThread:
    case Tag::kThreadGroup:
    case Tag::kClassLoader:
    case Tag::kClassObject:
      return true;
    default:
      return false;
  }
}

size_t TagDataSize(Tag tag) {
  switch (tag) {
    case Tag::kByte:
    case Tag::kBoolean:
      return 1;
    case Tag::kChar:
    case Tag::kShort:
      return 2;
    case Tag::kInt:
    case Tag::kFloat:
      return 4;
    case Tag::kLong:
    case Tag::kDouble:
      return 8;
    case Tag::kVoid:
      return 0;
    default:
      return IsObjectTag(tag) ? 8 : 0;
  }
}

void EncodeUntagged(Writer& w, Tag tag, uint64_t bits) {
  switch (TagDataSize(tag)) {
    case 1: w.U8(static_cast<uint8_t>(bits)); break;
    case 2: w.U16(static_cast<uint16_t>(bits)); break;
    case 4: w.U32(static_cast<uint32_t>(bits)); break;
    case 8: w.U64(bits); break;
    default: break;
  }
}

void EncodeValue(Writer& w, const Value& v) {
  w.U8(static_cast<uint8_t>(v.tag));
  EncodeUntagged(w, v.tag, v.bits);
}

void EncodeArrayRegion(Writer& w, const ArrayRegion& region) {
  w.U8(static_cast<uint8_t>(region.tag));
  w.U32(static_cast<uint32_t>(region.values.size()));
  const bool objects = IsObjectTag(region.tag);
  for (const Value& v : region.values) {
    if (objects) EncodeValue(w, v);
    else EncodeUntagged(w, region.tag, v.bits);
  }
}

bool DecodeUntagged(Reader& r, Tag tag, UntaggedValue& v) {
  v.tag = tag;
  v.bits = 0;
  if (!IsKnownTag(static_cast<uint8_t>(tag))) return r.Failed("unknown tag");
  switch (tag) {
    case Tag::kBoolean: {
      uint8_t b = 0;
      if (!r.U8(b)) return false;
      v.bits = b != 0 ? 1 : 0;
      return true;
    }
    case Tag::kByte: {
      uint8_t b = 0;
      if (!r.U8(b)) return false;
      v.bits = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int8_t>(b)));
      return true;
    }
    case Tag::kChar: {
      uint16_t c = 0;
      if (!r.U16(c)) return false;
      v.bits = c;
      return true;
    }
    case Tag::kShort: {
      uint16_t s = 0;
      if (!r.U16(s)) return false;
      v.bits = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int16_t>(s)));
      return true;
    }
    case Tag::kInt: {
      uint32_t i = 0;
      if (!r.U32(i)) return false;
      v.bits = static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(i)));
      return true;
    }
    case Tag::kFloat: {
      uint32_t f = 0;
      if (!r.U32(f)) return false;
      v.bits = f;
      return true;
    }
    case Tag::kVoid:
      return true;
    default:  // long, double and every object tag: 8 bytes
      return r.U64(v.bits);
  }
}

bool DecodeValue(Reader& r, Value& v) {
  uint8_t tag = 0;
  if (!r.U8(tag)) return false;
  if (!IsKnownTag(tag)) return r.Failed("unknown value tag");
  UntaggedValue data;
  if (!DecodeUntagged(r, static_cast<Tag>(tag), data)) return false;
  v = Value{data.tag, data.bits};
  return true;
}

bool DecodeArrayRegion(Reader& r, ArrayRegion& region) {
  uint8_t tag = 0;
  if (!r.U8(tag)) return false;
  if (!IsKnownTag(tag) || static_cast<Tag>(tag) == Tag::kVoid) return r.Failed("bad array region tag");
  region.tag = static_cast<Tag>(tag);
  const bool objects = IsObjectTag(region.tag);
  // Object items are full values (tag + ID); primitives are bare data.
  const size_t item_size = objects ? 9 : TagDataSize(region.tag);
  int32_t n = 0;
  if (!r.Count(n, item_size)) return false;
  region.values.clear();
  region.values.reserve(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) {
    Value v;
    if (objects) {
      if (!DecodeValue(r, v)) return false;
      if (!IsObjectTag(v.tag)) return r.Failed("primitive item in object array region");
    } else {
      UntaggedValue data;
      if (!DecodeUntagged(r, region.tag, data)) return false;
      v = Value{data.tag, data.bits};
    }
    region.values.push_back(v);
  }
  return true;
}

Result<std::vector<UntaggedValue>> DecodeUntaggedValues(std::span<const uint8_t> tail, Tag component) {
  if (!IsKnownTag(static_cast<uint8_t>(component)) || component == Tag::kVoid) {
    return Fail(ErrorCode::kInvalidTag, "no untagged values of this tag");
  }
  Reader r(tail);
  int32_t n = 0;
  std::vector<UntaggedValue> out;
  if (r.Count(n, TagDataSize(component))) {
    out.reserve(static_cast<size_t>(n));
    for (int32_t i = 0; i < n; ++i) {
      UntaggedValue v;
      if (!DecodeUntagged(r, component, v)) break;
      out.push_back(v);
    }
  }
  if (!r.ok()) return Fail(ErrorCode::kIllegalArgument, std::string("malformed untagged values: ") + r.why());
  return out;
}

RawTail EncodeFieldValues(const std::vector<FieldValue>& values) {
  Writer w;
  w.U32(static_cast<uint32_t>(values.size()));
  for (const FieldValue& v : values) {
    w.U64(v.field_id.value);
    EncodeUntagged(w, v.value.tag, v.value.bits);
  }
  return RawTail{w.Take()};
}

RawTail EncodeUntaggedValues(const std::vector<UntaggedValue>& values) {
  Writer w;
  w.U32(static_cast<uint32_t>(values.size()));
  for (const UntaggedValue& v : values) EncodeUntagged(w, v.tag, v.bits);
  return RawTail{w.Take()};
}

}  // namespace jdwpx::jdwp
