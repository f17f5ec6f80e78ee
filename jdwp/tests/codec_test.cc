// Golden bytes for every wire shape of the codec, and its failure modes.
#include <gtest/gtest.h>

#include "jdwp/codec.h"
#include "jdwp/commands/all.h"
#include "jdwp/tests/alloc_probe.h"
#include "jdwp/tests/populate.h"

namespace jdwpx::jdwp {
namespace {

using testing::Bytes;

template <class T>
std::vector<uint8_t> Enc(const T& v) {
  return EncodeBody(v);
}

template <class T>
T Dec(const std::vector<uint8_t>& bytes) {
  size_t leftover = 99;
  auto r = DecodeBody<T>(bytes, &leftover);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().detail);
  EXPECT_EQ(leftover, 0u);
  return r ? *r : T{};
}

template <class T>
void ExpectDecodeFails(const std::vector<uint8_t>& bytes) {
  auto r = DecodeBody<T>(bytes);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kIllegalArgument);
}

// ---- primitives ------------------------------------------------------------

TEST(CodecPrimitive, Boolean) {
  EXPECT_EQ(Enc(true), Bytes({0x01}));
  EXPECT_EQ(Enc(false), Bytes({0x00}));
  EXPECT_TRUE(Dec<bool>(Bytes({0x7f})));  // any non-zero byte is true
  EXPECT_FALSE(Dec<bool>(Bytes({0x00})));
}

TEST(CodecPrimitive, ByteIntLong) {
  EXPECT_EQ(Enc(uint8_t{0xfe}), Bytes({0xfe}));
  EXPECT_EQ(Enc(int32_t{-2}), Bytes({0xff, 0xff, 0xff, 0xfe}));
  EXPECT_EQ(Enc(int32_t{0x01020304}), Bytes({1, 2, 3, 4}));
  EXPECT_EQ(Enc(int64_t{0x0102030405060708}), Bytes({1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(Enc(int64_t{-1}), Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  EXPECT_EQ(Enc(int16_t{-3}), Bytes({0xff, 0xfd}));
  EXPECT_EQ(Dec<int32_t>(Bytes({0x80, 0, 0, 0})), INT32_MIN);
  EXPECT_EQ(Dec<int64_t>(Bytes({0x80, 0, 0, 0, 0, 0, 0, 1})), INT64_MIN + 1);
}

TEST(CodecPrimitive, FloatDouble) {
  EXPECT_EQ(Enc(1.5f), Bytes({0x3f, 0xc0, 0, 0}));
  EXPECT_EQ(Enc(-2.0), Bytes({0xc0, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(Dec<float>(Bytes({0x3f, 0xc0, 0, 0})), 1.5f);
  EXPECT_EQ(Dec<double>(Bytes({0x3f, 0xf0, 0, 0, 0, 0, 0, 0})), 1.0);
}

TEST(CodecPrimitive, StrongIdsAreEightBytes) {
  EXPECT_EQ(Enc(ThreadId{0x1a}), Bytes({0, 0, 0, 0, 0, 0, 0, 0x1a}));
  EXPECT_EQ(Enc(FrameId{0x0102030405060708}), Bytes({1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_EQ(Dec<MethodId>(Bytes({0xff, 0, 0, 0, 0, 0, 0, 2})).value, 0xff00000000000002u);
}

TEST(CodecPrimitive, EnumsUseTheirWireWidth) {
  EXPECT_EQ(Enc(TypeTag::kInterface), Bytes({2}));
  EXPECT_EQ(Enc(SuspendPolicy::kAll), Bytes({2}));
  EXPECT_EQ(Enc(EventKind::kBreakpoint), Bytes({2}));
  EXPECT_EQ(Enc(StepDepth::kOut), Bytes({0, 0, 0, 2}));
  EXPECT_EQ(Enc(StepSize::kLine), Bytes({0, 0, 0, 1}));
}

// ---- strings: bytes pass through unchanged ----------------------------------

TEST(CodecString, Utf8) {
  std::string s = "h\xC3\xA9llo \xE2\x82\xAC";  // "héllo €"
  EXPECT_EQ(Enc(s), Bytes({0, 0, 0, 10, 'h', 0xc3, 0xa9, 'l', 'l', 'o', ' ', 0xe2, 0x82, 0xac}));
  EXPECT_EQ(Dec<std::string>(Enc(s)), s);
}

TEST(CodecString, ModifiedUtf8EmbeddedNulAndSurrogatesPassThrough) {
  // Modified UTF-8: NUL as C0 80, U+1F600 as the surrogate pair D83D DE00, 3 bytes each.
  std::string s = std::string("a\xC0\x80") + "\xED\xA0\xBD\xED\xB8\x80";
  auto bytes = Enc(s);
  EXPECT_EQ(bytes, Bytes({0, 0, 0, 9, 'a', 0xc0, 0x80, 0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80}));
  EXPECT_EQ(Dec<std::string>(bytes), s);
  // A real NUL byte is kept as well; strings are length-prefixed, not terminated.
  std::string nul("x\0y", 3);
  EXPECT_EQ(Dec<std::string>(Enc(nul)), nul);
}

TEST(CodecString, EmptyAndTruncated) {
  EXPECT_EQ(Enc(std::string()), Bytes({0, 0, 0, 0}));
  ExpectDecodeFails<std::string>(Bytes({0, 0, 0, 3, 'a', 'b'}));
  ExpectDecodeFails<std::string>(Bytes({0xff, 0xff, 0xff, 0xff}));
}

// ---- values ------------------------------------------------------------------

struct ValueCase {
  Value value;
  std::vector<uint8_t> bytes;
};

TEST(CodecValue, EveryTag) {
  const std::vector<ValueCase> cases = {
      {Value::Byte(-1), Bytes({'B', 0xff})},
      {Value::Boolean(true), Bytes({'Z', 1})},
      {Value::Char(0x20ac), Bytes({'C', 0x20, 0xac})},
      {Value::Short(-2), Bytes({'S', 0xff, 0xfe})},
      {Value::Int(0x01020304), Bytes({'I', 1, 2, 3, 4})},
      {Value::Float(1.5f), Bytes({'F', 0x3f, 0xc0, 0, 0})},
      {Value::Long(-1), Bytes({'J', 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})},
      {Value::Double(-2.0), Bytes({'D', 0xc0, 0, 0, 0, 0, 0, 0, 0})},
      {Value::Void(), Bytes({'V'})},
      {Value::Object(Tag::kObject, ObjectId{0x11}), Bytes({'L', 0, 0, 0, 0, 0, 0, 0, 0x11})},
      {Value::Object(Tag::kArray, ObjectId{0x12}), Bytes({'[', 0, 0, 0, 0, 0, 0, 0, 0x12})},
      {Value::Object(Tag::kString, ObjectId{0x13}), Bytes({'s', 0, 0, 0, 0, 0, 0, 0, 0x13})},
      {Value::Object(Tag::kThread, ObjectId{0x14}), Bytes({'t', 0, 0, 0, 0, 0, 0, 0, 0x14})},
      {Value::Object(Tag::kThreadGroup, ObjectId{0x15}), Bytes({'g', 0, 0, 0, 0, 0, 0, 0, 0x15})},
      {Value::Object(Tag::kClassLoader, ObjectId{0x16}), Bytes({'l', 0, 0, 0, 0, 0, 0, 0, 0x16})},
      {Value::Object(Tag::kClassObject, ObjectId{0x17}), Bytes({'c', 0, 0, 0, 0, 0, 0, 0, 0x17})},
      {Value::Object(Tag::kObject, ObjectId{}), Bytes({'L', 0, 0, 0, 0, 0, 0, 0, 0})},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(static_cast<char>(c.value.tag));
    EXPECT_EQ(Enc(c.value), c.bytes);
    EXPECT_EQ(Dec<Value>(c.bytes), c.value);
  }
}

TEST(CodecValue, Accessors) {
  EXPECT_EQ(Value::Float(-0.25f).as_float(), -0.25f);
  EXPECT_EQ(Value::Double(3.75).as_double(), 3.75);
  EXPECT_EQ(Value::Int(-7).as_int(), -7);
  EXPECT_EQ(Value::Long(INT64_MIN).as_long(), INT64_MIN);
  EXPECT_EQ(Value::Object(Tag::kThread, ObjectId{5}).object(), ObjectId{5});
  // Narrow signed types decode sign-extended, char zero-extended.
  EXPECT_EQ(Dec<Value>(Bytes({'B', 0x80})).as_long(), -128);
  EXPECT_EQ(Dec<Value>(Bytes({'S', 0x80, 0})).as_long(), -32768);
  EXPECT_EQ(Dec<Value>(Bytes({'C', 0xff, 0xff})).bits, 0xffffu);
  EXPECT_EQ(Dec<Value>(Bytes({'F', 0xbf, 0x80, 0, 0})).as_float(), -1.0f);
}

TEST(CodecValue, UnknownTagAndShortDataFail) {
  ExpectDecodeFails<Value>(Bytes({'X', 0, 0, 0, 1}));
  ExpectDecodeFails<Value>(Bytes({0}));
  ExpectDecodeFails<Value>(Bytes({'I', 0, 0, 1}));
  ExpectDecodeFails<Value>(Bytes({'L', 0, 0, 0, 0, 0, 0, 0}));
  ExpectDecodeFails<Value>(Bytes({}));
}

TEST(CodecValue, TagHelpers) {
  EXPECT_TRUE(IsKnownTag('L'));
  EXPECT_TRUE(IsKnownTag('c'));
  EXPECT_FALSE(IsKnownTag('X'));
  EXPECT_FALSE(IsKnownTag(0));
  for (Tag t : {Tag::kArray, Tag::kObject, Tag::kString, Tag::kThread, Tag::kThreadGroup, Tag::kClassLoader,
                Tag::kClassObject}) {
    EXPECT_TRUE(IsObjectTag(t));
    EXPECT_EQ(TagDataSize(t), 8u);
  }
  EXPECT_FALSE(IsObjectTag(Tag::kInt));
  EXPECT_EQ(TagDataSize(Tag::kVoid), 0u);
  EXPECT_EQ(TagDataSize(Tag::kBoolean), 1u);
  EXPECT_EQ(TagDataSize(Tag::kChar), 2u);
  EXPECT_EQ(TagDataSize(Tag::kFloat), 4u);
  EXPECT_EQ(TagDataSize(Tag::kDouble), 8u);
}

TEST(CodecValue, Untagged) {
  Writer w;
  EncodeUntagged(w, Tag::kShort, Value::Short(-2).bits);
  EncodeUntagged(w, Tag::kVoid, 0);
  EncodeUntagged(w, Tag::kThread, 0x21);
  EXPECT_EQ(w.Take(), Bytes({0xff, 0xfe, 0, 0, 0, 0, 0, 0, 0, 0x21}));
  auto bytes = Bytes({0xff, 0xfe, 0, 0, 0, 0, 0, 0, 0, 0x21});
  Reader r(bytes);
  UntaggedValue a, b;
  ASSERT_TRUE(DecodeUntagged(r, Tag::kShort, a));
  ASSERT_TRUE(DecodeUntagged(r, Tag::kThread, b));
  EXPECT_EQ(a, (UntaggedValue{Tag::kShort, Value::Short(-2).bits}));
  EXPECT_EQ(b, (UntaggedValue{Tag::kThread, 0x21}));
  EXPECT_FALSE(DecodeUntagged(r, Tag::kByte, a));
}

// ---- tagged object IDs and locations -----------------------------------------

TEST(CodecTaggedObjectId, GoldenAndObjectTagsOnly) {
  TaggedObjectId t{Tag::kThread, ObjectId{0x42}};
  EXPECT_EQ(Enc(t), Bytes({'t', 0, 0, 0, 0, 0, 0, 0, 0x42}));
  EXPECT_EQ(Dec<TaggedObjectId>(Enc(t)), t);
  ExpectDecodeFails<TaggedObjectId>(Bytes({'I', 0, 0, 0, 0, 0, 0, 0, 0x42}));
  ExpectDecodeFails<TaggedObjectId>(Bytes({'?', 0, 0, 0, 0, 0, 0, 0, 0x42}));
}

TEST(CodecLocation, Golden) {
  Location loc{TypeTag::kInterface, ClassId{0x0a}, MethodId{0x0b}, 0x0c};
  auto bytes = Bytes({2, 0, 0, 0, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0, 0, 0, 0x0b, 0, 0, 0, 0, 0, 0, 0, 0x0c});
  EXPECT_EQ(Enc(loc), bytes);
  EXPECT_EQ(Dec<Location>(bytes), loc);
  bytes.pop_back();
  ExpectDecodeFails<Location>(bytes);
}

// ---- array regions ------------------------------------------------------------

struct RegionCase {
  ArrayRegion region;
  std::vector<uint8_t> bytes;
};

TEST(CodecArrayRegion, EveryPrimitiveElementType) {
  const std::vector<RegionCase> cases = {
      {{Tag::kByte, {Value::Byte(1), Value::Byte(-1)}}, Bytes({'B', 0, 0, 0, 2, 1, 0xff})},
      {{Tag::kBoolean, {Value::Boolean(true), Value::Boolean(false)}}, Bytes({'Z', 0, 0, 0, 2, 1, 0})},
      {{Tag::kChar, {Value::Char('A')}}, Bytes({'C', 0, 0, 0, 1, 0, 'A'})},
      {{Tag::kShort, {Value::Short(-2)}}, Bytes({'S', 0, 0, 0, 1, 0xff, 0xfe})},
      {{Tag::kInt, {Value::Int(7), Value::Int(-1)}}, Bytes({'I', 0, 0, 0, 2, 0, 0, 0, 7, 0xff, 0xff, 0xff, 0xff})},
      {{Tag::kLong, {Value::Long(0x0102030405060708)}}, Bytes({'J', 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8})},
      {{Tag::kFloat, {Value::Float(1.5f)}}, Bytes({'F', 0, 0, 0, 1, 0x3f, 0xc0, 0, 0})},
      {{Tag::kDouble, {Value::Double(-2.0)}}, Bytes({'D', 0, 0, 0, 1, 0xc0, 0, 0, 0, 0, 0, 0, 0})},
      {{Tag::kInt, {}}, Bytes({'I', 0, 0, 0, 0})},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(static_cast<char>(c.region.tag));
    EXPECT_EQ(Enc(c.region), c.bytes);
    EXPECT_EQ(Dec<ArrayRegion>(c.bytes), c.region);
  }
}

TEST(CodecArrayRegion, ObjectArrayKeepsMostSpecificItemTags) {
  ArrayRegion region{Tag::kObject,
                     {Value::Object(Tag::kString, ObjectId{1}), Value::Object(Tag::kObject, ObjectId{}),
                      Value::Object(Tag::kArray, ObjectId{2}), Value::Object(Tag::kThread, ObjectId{3})}};
  auto bytes = Bytes({'L', 0, 0, 0, 4,                  //
                      's', 0, 0, 0, 0, 0, 0, 0, 1,      //
                      'L', 0, 0, 0, 0, 0, 0, 0, 0,      //
                      '[', 0, 0, 0, 0, 0, 0, 0, 2,      //
                      't', 0, 0, 0, 0, 0, 0, 0, 3});
  EXPECT_EQ(Enc(region), bytes);
  EXPECT_EQ(Dec<ArrayRegion>(bytes), region);
  // An array of arrays leads with '['.
  ArrayRegion nested{Tag::kArray, {Value::Object(Tag::kArray, ObjectId{9})}};
  EXPECT_EQ(Enc(nested), Bytes({'[', 0, 0, 0, 1, '[', 0, 0, 0, 0, 0, 0, 0, 9}));
  EXPECT_EQ(Dec<ArrayRegion>(Enc(nested)), nested);
}

TEST(CodecArrayRegion, WireFormIsHandedOverAsTheOnlyFieldOfABody) {
  // What the agent builds for a huge reply: the region already in wire bytes.
  auto bytes = Bytes({'J', 0, 0, 0, 1, 1, 2, 3, 4, 5, 6, 7, 8});
  ArrayReference::GetValues::Reply reply;
  reply.values.wire = bytes;
  const uint8_t* buffer = reply.values.wire.data();
  Writer w;
  Encode(w, reply);
  EXPECT_EQ(w.bytes(), bytes);
  EXPECT_EQ(w.bytes().data(), buffer) << "taken over, not copied";
  EXPECT_TRUE(reply.values.wire.empty());
  EXPECT_EQ(Dec<ArrayRegion>(bytes), (ArrayRegion{Tag::kLong, {Value::Long(0x0102030405060708)}}));
}

TEST(CodecArrayRegion, WireFormWithRoomForAHeaderIsHandedOverToAWriterWithTheSameRoom) {
  auto bytes = Bytes({0, 0, 0, 'I', 0, 0, 0, 1, 0, 0, 0, 7});  // 3 bytes of room, then the wire form
  ArrayReference::GetValues::Reply reply;
  reply.values.wire = bytes;
  reply.values.wire_offset = 3;
  const uint8_t* buffer = reply.values.wire.data();
  auto body = EncodeBody(reply, 3);
  EXPECT_EQ(body, bytes);
  EXPECT_EQ(body.data(), buffer) << "taken over, not copied";
  // Into a writer without that room: the wire form alone is copied.
  reply.values.wire = bytes;
  EXPECT_EQ(EncodeBody(reply), Bytes({'I', 0, 0, 0, 1, 0, 0, 0, 7}));
}

TEST(CodecWireString, WireFormIsHandedOverAndEqualsTheTextForm) {
  auto bytes = Bytes({0, 0, 0, 0, 0, 0, 0, 2, 'h', 'i'});  // 4 bytes of room, then the string's wire form
  StringReference::Value::Reply reply;
  reply.string_value.wire = bytes;
  reply.string_value.wire_offset = 4;
  const uint8_t* buffer = reply.string_value.wire.data();
  auto body = EncodeBody(reply, 4);
  EXPECT_EQ(body, bytes);
  EXPECT_EQ(body.data(), buffer) << "taken over, not copied";
  StringReference::Value::Reply text;
  text.string_value.text = "hi";
  EXPECT_EQ(EncodeBody(text), Bytes({0, 0, 0, 2, 'h', 'i'}));
  EXPECT_EQ(Dec<StringReference::Value::Reply>(Bytes({0, 0, 0, 2, 'h', 'i'})).string_value, text.string_value);
}

TEST(CodecArrayRegion, WireFormAfterOtherBytesIsCopied) {
  ArrayRegion region;
  region.wire = Bytes({'I', 0, 0, 0, 1, 0, 0, 0, 7});
  Writer w;
  w.U8(0xaa);
  Encode(w, region);
  EXPECT_EQ(w.bytes(), Bytes({0xaa, 'I', 0, 0, 0, 1, 0, 0, 0, 7}));
}

TEST(CodecArrayRegion, MalformedFails) {
  ExpectDecodeFails<ArrayRegion>(Bytes({'V', 0x7f, 0xff, 0xff, 0xff}));           // void elements
  ExpectDecodeFails<ArrayRegion>(Bytes({'Q', 0, 0, 0, 0}));                       // unknown tag
  ExpectDecodeFails<ArrayRegion>(Bytes({'L', 0, 0, 0, 1, 'I', 0, 0, 0, 1, 0, 0, 0, 0}));  // primitive in object array
  ExpectDecodeFails<ArrayRegion>(Bytes({'I', 0, 0, 0, 2, 0, 0, 0, 1}));           // short
  ExpectDecodeFails<ArrayRegion>(Bytes({'I', 0xff, 0xff, 0xff, 0xff}));           // negative count
}

// ---- lists built in wire form (WireListBuilder) ----------------------------------

// A class's signature and generic signature as the agent's class table keeps
// them: two JDWP strings back to back.
std::vector<uint8_t> Strings(const std::string& signature, const std::string& generic) {
  Writer w;
  w.String(signature);
  w.String(generic);
  return w.Take();
}

std::vector<VirtualMachine::AllClassesWithGeneric::Class> SomeClasses(size_t n) {
  std::vector<VirtualMachine::AllClassesWithGeneric::Class> out;
  for (size_t i = 0; i < n; ++i) {
    out.push_back({i % 3 == 0 ? TypeTag::kClass : i % 3 == 1 ? TypeTag::kInterface : TypeTag::kArray,
                   ReferenceTypeId{0x0102030405060708 + i}, "LGen" + std::to_string(i) + ";",
                   i % 2 ? "<T:Ljava/lang/Object;>Ljava/lang/Object;" : "",
                   i == 1 ? INT32_MIN : ClassStatus::kVerified | ClassStatus::kPrepared | ClassStatus::kInitialized});
  }
  out.push_back({TypeTag::kClass, ReferenceTypeId{7}, "L\xc3\xa9t\xc3\xa9;", "", 0});  // non-ASCII: its bytes as given
  return out;
}

TEST(CodecWireList, BuiltItemsAreTheGenericEncodingOfTheSameItems) {
  const auto classes = SomeClasses(1000);
  VirtualMachine::AllClassesWithGeneric::Reply typed;
  typed.classes.items = classes;
  const auto expected = EncodeBody(typed, 11);

  for (bool reserve : {true, false}) {  // one allocation, or grown as it goes
    WireListBuilder list(11);
    size_t bytes = 0;
    for (const auto& c : classes) bytes += 13 + 8 + c.signature.size() + c.generic_signature.size();
    if (reserve) list.Reserve(bytes);
    for (const auto& c : classes) {
      auto strings = Strings(c.signature, c.generic_signature);
      list.Add(c.ref_type_tag, c.type_id, Raw(std::span(strings)), c.status);
    }
    EXPECT_EQ(list.count(), classes.size());
    VirtualMachine::AllClassesWithGeneric::Reply built;
    built.classes = std::move(list).Finish<VirtualMachine::AllClassesWithGeneric::Class>();
    EXPECT_EQ(built.classes.wire_offset, 11u);
    const uint8_t* buffer = built.classes.wire.data();
    auto body = EncodeBody(built, 11);
    EXPECT_EQ(body, expected) << "reserve=" << reserve;
    EXPECT_EQ(body.data(), buffer) << "taken over, not copied";
    // Decoded: the same items (the wire form is never kept by decoding).
    auto back = Dec<VirtualMachine::AllClassesWithGeneric::Reply>(std::vector<uint8_t>(body.begin() + 11, body.end()));
    EXPECT_TRUE(back.classes.wire.empty());
    ASSERT_EQ(back.classes.items.size(), classes.size());
    for (size_t i = 0; i < classes.size(); ++i) {
      const auto& a = back.classes.items[i];
      const auto& b = classes[i];
      EXPECT_TRUE(a.ref_type_tag == b.ref_type_tag && a.type_id == b.type_id && a.signature == b.signature &&
                  a.generic_signature == b.generic_signature && a.status == b.status)
          << i;
    }
  }
}

TEST(CodecWireList, AllClassesFromTheSignaturePartAndRunsOfRawFields) {
  const auto classes = SomeClasses(3);
  VirtualMachine::AllClasses::Reply typed;
  for (const auto& c : classes) typed.classes.items.push_back({c.ref_type_tag, c.type_id, c.signature, c.status});
  WireListBuilder list;
  for (const auto& c : classes) {
    // The signature's string alone (the first bytes of the kept pair).
    auto strings = Strings(c.signature, c.generic_signature);
    list.Add(c.ref_type_tag, c.type_id, Raw(std::span(strings.data(), 4 + c.signature.size())), c.status);
  }
  VirtualMachine::AllClasses::Reply built;
  built.classes = std::move(list).Finish<VirtualMachine::AllClasses::Class>();
  EXPECT_EQ(EncodeBody(built), EncodeBody(typed));

  // A generic signature that could not be read goes out as "", after the signature's string.
  const uint8_t empty[4] = {0, 0, 0, 0};
  WireListBuilder generic;
  auto strings = Strings("LA;", "");
  generic.Add(TypeTag::kClass, ReferenceTypeId{9}, Raw(std::span(strings.data(), 7)), Raw(std::span(empty)), int32_t{7});
  VirtualMachine::AllClassesWithGeneric::Reply one;
  one.classes = std::move(generic).Finish<VirtualMachine::AllClassesWithGeneric::Class>();
  EXPECT_EQ(EncodeBody(one), Bytes({0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 3, 'L', 'A', ';', 0, 0, 0, 0, 0, 0,
                                    0, 7}));
}

TEST(CodecWireList, AnIdPatchedInAfterItsItemWasWritten) {
  // The class table writes an item before it knows every ID (one the debugger disposed of).
  const auto classes = SomeClasses(3);
  VirtualMachine::AllClassesWithGeneric::Reply typed;
  typed.classes.items = classes;
  WireListBuilder list(11);
  std::vector<size_t> id_at;
  for (const auto& c : classes) {
    id_at.push_back(list.size() + 1);  // after the 1-byte refTypeTag
    auto strings = Strings(c.signature, c.generic_signature);
    list.Add(c.ref_type_tag, ReferenceTypeId{0}, Raw(std::span(strings)), c.status);
  }
  for (size_t i = 0; i < classes.size(); ++i) list.PatchU64(id_at[i], classes[i].type_id.value);
  VirtualMachine::AllClassesWithGeneric::Reply built;
  built.classes = std::move(list).Finish<VirtualMachine::AllClassesWithGeneric::Class>();
  EXPECT_EQ(EncodeBody(built, 11), EncodeBody(typed, 11));
}

TEST(CodecWireList, EmptyListAndTypedItemsEncodeAsARepeat) {
  VirtualMachine::AllClasses::Reply built;
  built.classes = WireListBuilder().Finish<VirtualMachine::AllClasses::Class>();
  EXPECT_EQ(EncodeBody(built), Bytes({0, 0, 0, 0}));
  VirtualMachine::AllClasses::Reply typed;
  typed.classes.items.push_back({TypeTag::kArray, ReferenceTypeId{2}, "[I", 0});
  EXPECT_EQ(EncodeBody(typed), Bytes({0, 0, 0, 1, 3, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2, '[', 'I', 0, 0, 0, 0}));
}

// ---- repeats ------------------------------------------------------------------

TEST(CodecRepeat, SingleFieldAndStructItems) {
  VirtualMachine::AllThreads::Reply threads{{ThreadId{1}, ThreadId{2}}};
  EXPECT_EQ(Enc(threads), Bytes({0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2}));

  VirtualMachine::ClassesBySignature::Reply classes;
  classes.classes.push_back({TypeTag::kClass, ReferenceTypeId{0x33}, ClassStatus::kPrepared | ClassStatus::kVerified});
  auto bytes = Bytes({0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0x33, 0, 0, 0, 3});
  EXPECT_EQ(Enc(classes), bytes);
  auto back = Dec<VirtualMachine::ClassesBySignature::Reply>(bytes);
  ASSERT_EQ(back.classes.size(), 1u);
  EXPECT_EQ(back.classes[0].type_id, ReferenceTypeId{0x33});
  EXPECT_EQ(back.classes[0].status, 3);

  Method::Bytecodes::Reply code{{0x2a, 0xb7, 0x00, 0x01, 0xb1}};
  EXPECT_EQ(Enc(code), Bytes({0, 0, 0, 5, 0x2a, 0xb7, 0x00, 0x01, 0xb1}));
  EXPECT_EQ(Dec<Method::Bytecodes::Reply>(Enc(code)).bytes, code.bytes);
  // Found by the fuzzer: an empty byte repeat reads zero bytes into a null buffer.
  EXPECT_TRUE(Dec<Method::Bytecodes::Reply>(Bytes({0, 0, 0, 0})).bytes.empty());
}

TEST(CodecRepeat, HugeCountsFailWithoutAllocating) {
  const auto huge = Bytes({0x7f, 0xff, 0xff, 0xff, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  ResetLargestAllocation();
  ExpectDecodeFails<VirtualMachine::AllThreads::Reply>(huge);
  ExpectDecodeFails<VirtualMachine::AllClasses::Reply>(huge);
  ExpectDecodeFails<ReferenceType::GetValues::Reply>(huge);
  ExpectDecodeFails<Method::Bytecodes::Reply>(huge);
  ExpectDecodeFails<VirtualMachine::ClassPaths::Reply>(Bytes({0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff, 0}));
  ExpectDecodeFails<ArrayRegion>(Bytes({'J', 0x7f, 0xff, 0xff, 0xff, 1, 2, 3}));
  ExpectDecodeFails<EventRequest::Set::Request>(Bytes({2, 2, 0x7f, 0xff, 0xff, 0xff, 1, 0, 0, 0, 1}));
  ExpectDecodeFails<Event::Composite::Request>(Bytes({2, 0x7f, 0xff, 0xff, 0xff, 99, 0, 0, 0, 1}));
  // Nested: RedefineClasses' inner classfile count is bounded by what is left.
  ExpectDecodeFails<VirtualMachine::RedefineClasses::Request>(
      Bytes({0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0x7f, 0xff, 0xff, 0xff, 0xca}));
  EXPECT_LT(LargestAllocation(), 4096u);
}

TEST(CodecRepeat, NegativeCountFails) {
  ExpectDecodeFails<VirtualMachine::AllThreads::Reply>(Bytes({0x80, 0, 0, 0}));
  ExpectDecodeFails<Method::Bytecodes::Reply>(Bytes({0xff, 0xff, 0xff, 0xff}));
}

TEST(CodecRepeat, MinWireSizeOfItems) {
  EXPECT_EQ(MinWireSize<VirtualMachine::AllClasses::Class>(), 1u + 8 + 4 + 4);
  EXPECT_EQ(MinWireSize<ThreadReference::Frames::Frame>(), 8u + 25);
  EXPECT_EQ(MinWireSize<modifiers::Modifier>(), 1u);
}

// ---- selects: modifiers and events --------------------------------------------

TEST(CodecSelect, EventRequestSetWithSeveralModifiers) {
  EventRequest::Set::Request req;
  req.event_kind = EventKind::kSingleStep;
  req.suspend_policy = SuspendPolicy::kEventThread;
  req.modifiers = {
      modifiers::Step{ThreadId{0x10}, StepSize::kLine, StepDepth::kOver},
      modifiers::ClassExclude{"java.*"},
      modifiers::Count{1},
      modifiers::LocationOnly{Location{TypeTag::kClass, ClassId{2}, MethodId{3}, 4}},
      modifiers::ExceptionOnly{ReferenceTypeId{}, true, false},
      modifiers::PlatformThreadsOnly{},
  };
  auto bytes = Bytes({
      1, 1, 0, 0, 0, 6,                                                    // kind, policy, 6 modifiers
      10, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 1, 0, 0, 0, 1,               // Step
      6, 0, 0, 0, 6, 'j', 'a', 'v', 'a', '.', '*',                         // ClassExclude
      1, 0, 0, 0, 1,                                                       // Count
      7, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 4,  // LocationOnly
      8, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0,                                     // ExceptionOnly
      13,                                                                  // PlatformThreadsOnly
  });
  EXPECT_EQ(Enc(req), bytes);
  auto back = Dec<EventRequest::Set::Request>(bytes);
  EXPECT_EQ(back.event_kind, EventKind::kSingleStep);
  EXPECT_EQ(back.suspend_policy, SuspendPolicy::kEventThread);
  ASSERT_EQ(back.modifiers.size(), 6u);
  const auto& step = std::get<modifiers::Step>(back.modifiers[0]);
  EXPECT_EQ(step.thread, ThreadId{0x10});
  EXPECT_EQ(step.size, StepSize::kLine);
  EXPECT_EQ(step.depth, StepDepth::kOver);
  EXPECT_EQ(std::get<modifiers::ClassExclude>(back.modifiers[1]).class_pattern, "java.*");
  EXPECT_EQ(std::get<modifiers::Count>(back.modifiers[2]).count, 1);
  EXPECT_EQ(std::get<modifiers::LocationOnly>(back.modifiers[3]).loc.index, 4u);
  EXPECT_TRUE(std::get<modifiers::ExceptionOnly>(back.modifiers[4]).caught);
  EXPECT_TRUE(std::holds_alternative<modifiers::PlatformThreadsOnly>(back.modifiers[5]));
  EXPECT_EQ(Enc(back), bytes);
}

TEST(CodecSelect, EveryModifierGolden) {
  const std::vector<std::pair<modifiers::Modifier, std::vector<uint8_t>>> cases = {
      {modifiers::Count{3}, Bytes({1, 0, 0, 0, 3})},
      {modifiers::Conditional{9}, Bytes({2, 0, 0, 0, 9})},
      {modifiers::ThreadOnly{ThreadId{5}}, Bytes({3, 0, 0, 0, 0, 0, 0, 0, 5})},
      {modifiers::ClassOnly{ReferenceTypeId{6}}, Bytes({4, 0, 0, 0, 0, 0, 0, 0, 6})},
      {modifiers::ClassMatch{"a.*"}, Bytes({5, 0, 0, 0, 3, 'a', '.', '*'})},
      {modifiers::ClassExclude{"*B"}, Bytes({6, 0, 0, 0, 2, '*', 'B'})},
      {modifiers::LocationOnly{{TypeTag::kClass, ClassId{1}, MethodId{2}, 3}},
       Bytes({7, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 3})},
      {modifiers::ExceptionOnly{ReferenceTypeId{7}, false, true}, Bytes({8, 0, 0, 0, 0, 0, 0, 0, 7, 0, 1})},
      {modifiers::FieldOnly{ReferenceTypeId{8}, FieldId{9}},
       Bytes({9, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0, 9})},
      {modifiers::Step{ThreadId{1}, StepSize::kMin, StepDepth::kInto},
       Bytes({10, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0})},
      {modifiers::InstanceOnly{ObjectId{4}}, Bytes({11, 0, 0, 0, 0, 0, 0, 0, 4})},
      {modifiers::SourceNameMatch{"*.kt"}, Bytes({12, 0, 0, 0, 4, '*', '.', 'k', 't'})},
      {modifiers::PlatformThreadsOnly{}, Bytes({13})},
  };
  ASSERT_EQ(cases.size(), std::variant_size_v<modifiers::Modifier>);
  for (const auto& [modifier, bytes] : cases) {
    SCOPED_TRACE(bytes[0]);
    EXPECT_EQ(Enc(modifier), bytes);
    auto back = Dec<modifiers::Modifier>(bytes);
    EXPECT_EQ(back.index(), modifier.index());
    EXPECT_EQ(Enc(back), bytes);
  }
}

TEST(CodecSelect, UnknownModifierAndEventKindFail) {
  ExpectDecodeFails<EventRequest::Set::Request>(Bytes({2, 0, 0, 0, 0, 1, 14}));
  ExpectDecodeFails<EventRequest::Set::Request>(Bytes({2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0}));
  ExpectDecodeFails<Event::Composite::Request>(Bytes({0, 0, 0, 0, 1, 3, 0, 0, 0, 0}));  // FRAME_POP has no layout
}

TEST(CodecSelect, CompositeEventPacketGolden) {
  const Location loc{TypeTag::kClass, ClassId{0x21}, MethodId{0x22}, 0x23};
  Event::Composite::Request composite;
  composite.suspend_policy = SuspendPolicy::kAll;
  composite.events = {
      events::Breakpoint{5, ThreadId{0x11}, loc},
      events::ClassPrepare{6, ThreadId{0x11}, TypeTag::kClass, ReferenceTypeId{0x30}, "LFoo;", 7},
      events::VMDeath{0},
  };
  auto packet = MakeCommandPacket(0x01020304, Event::Composite::kId, EncodeBody(composite));
  auto expected = Bytes({
      0, 0, 0, 94, 1, 2, 3, 4, 0, 64, 100,  // header: length 94, id, flags, Event, Composite
      2, 0, 0, 0, 3,                       // suspendPolicy ALL, 3 events
      2, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0x11,                                              // Breakpoint
      1, 0, 0, 0, 0, 0, 0, 0, 0x21, 0, 0, 0, 0, 0, 0, 0, 0x22, 0, 0, 0, 0, 0, 0, 0, 0x23,    //   location
      8, 0, 0, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0x11, 1, 0, 0, 0, 0, 0, 0, 0, 0x30,                // ClassPrepare
      0, 0, 0, 5, 'L', 'F', 'o', 'o', ';', 0, 0, 0, 7,                                      //   signature, status
      99, 0, 0, 0, 0,                                                                       // VMDeath
  });
  EXPECT_EQ(packet, expected);

  auto parsed = ParsePacket(packet);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->command_set, 64);
  EXPECT_EQ(parsed->command, 100);
  auto back = Dec<Event::Composite::Request>(std::vector<uint8_t>(parsed->data.begin(), parsed->data.end()));
  ASSERT_EQ(back.events.size(), 3u);
  EXPECT_EQ(std::get<events::Breakpoint>(back.events[0]).location, loc);
  EXPECT_EQ(std::get<events::ClassPrepare>(back.events[1]).signature, "LFoo;");
  EXPECT_EQ(std::get<events::VMDeath>(back.events[2]).request_id, 0);
}

TEST(CodecSelect, EveryEventKindRoundTrips) {
  uint64_t seed = 0;
  Event::Composite::Request composite;
  composite.suspend_policy = SuspendPolicy::kEventThread;
  [&]<size_t... I>(std::index_sequence<I...>) {
    (composite.events.push_back(testing::Populated<std::variant_alternative_t<I, events::EventData>>(seed + I)), ...);
  }(std::make_index_sequence<std::variant_size_v<events::EventData>>{});
  auto bytes = Enc(composite);
  auto back = Dec<Event::Composite::Request>(bytes);
  ASSERT_EQ(back.events.size(), 18u);
  for (size_t i = 0; i < 18; ++i) EXPECT_EQ(back.events[i].index(), i);
  EXPECT_EQ(Enc(back), bytes);
  const std::vector<int> kinds = {90, 1, 2, 40, 41, 42, 43, 44, 45, 46, 4, 6, 7, 8, 9, 20, 21, 99};
  for (size_t i = 0; i < 18; ++i) {
    std::visit([&](const auto& e) { EXPECT_EQ(std::decay_t<decltype(e)>::kSelect, kinds[i]); }, back.events[i]);
  }
}

// ---- context-dependent tails -------------------------------------------------

TEST(CodecTail, FieldValuesGivenTheFieldTags) {
  std::vector<FieldValue> values = {{FieldId{1}, {Tag::kInt, Value::Int(-5).bits}},
                                    {FieldId{2}, {Tag::kBoolean, 1}},
                                    {FieldId{3}, {Tag::kString, 0x99}}};
  RawTail tail = EncodeFieldValues(values);
  EXPECT_EQ(tail.bytes, Bytes({0, 0, 0, 3,                                        //
                               0, 0, 0, 0, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xfb,    //
                               0, 0, 0, 0, 0, 0, 0, 2, 1,                         //
                               0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0x99}));
  auto tag_of = [](FieldId f) -> Result<Tag> {
    switch (f.value) {
      case 1: return Tag::kInt;
      case 2: return Tag::kBoolean;
      case 3: return Tag::kString;
      default: return Fail(ErrorCode::kInvalidFieldid, "no such field");
    }
  };
  auto back = DecodeFieldValues(tail.bytes, tag_of);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, values);

  // The whole ObjectReference.SetValues request, tail included.
  ObjectReference::SetValues::Request req{ObjectId{0x44}, tail};
  auto req_back = Dec<ObjectReference::SetValues::Request>(Enc(req));
  EXPECT_EQ(req_back.object, ObjectId{0x44});
  EXPECT_EQ(req_back.rest, tail);

  auto bad_field = EncodeFieldValues({{FieldId{7}, {Tag::kInt, 1}}});
  auto err = DecodeFieldValues(bad_field.bytes, tag_of);
  ASSERT_FALSE(err.has_value());
  EXPECT_EQ(err.error().code, ErrorCode::kInvalidFieldid);

  auto shorter = tail.bytes;
  shorter.pop_back();
  auto short_err = DecodeFieldValues(shorter, tag_of);
  ASSERT_FALSE(short_err.has_value());
  EXPECT_EQ(short_err.error().code, ErrorCode::kIllegalArgument);
}

TEST(CodecTail, UntaggedArrayValues) {
  std::vector<UntaggedValue> values = {{Tag::kShort, Value::Short(-1).bits}, {Tag::kShort, 7}};
  RawTail tail = EncodeUntaggedValues(values);
  EXPECT_EQ(tail.bytes, Bytes({0, 0, 0, 2, 0xff, 0xff, 0, 7}));
  auto back = DecodeUntaggedValues(tail.bytes, Tag::kShort);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, values);

  ArrayReference::SetValues::Request req{ArrayId{3}, 10, tail};
  EXPECT_EQ(Enc(req), Bytes({0, 0, 0, 0, 0, 0, 0, 3, 0, 0, 0, 10, 0, 0, 0, 2, 0xff, 0xff, 0, 7}));

  auto objects = DecodeUntaggedValues(Bytes({0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5}), Tag::kObject);
  ASSERT_TRUE(objects.has_value());
  EXPECT_EQ((*objects)[0], (UntaggedValue{Tag::kObject, 5}));

  EXPECT_FALSE(DecodeUntaggedValues(Bytes({0, 0, 0, 2, 0, 1}), Tag::kShort).has_value());
  EXPECT_FALSE(DecodeUntaggedValues(Bytes({0x7f, 0xff, 0xff, 0xff}), Tag::kLong).has_value());
  auto void_tag = DecodeUntaggedValues(Bytes({0, 0, 0, 0}), Tag::kVoid);
  ASSERT_FALSE(void_tag.has_value());
  EXPECT_EQ(void_tag.error().code, ErrorCode::kInvalidTag);
}

// ---- bodies --------------------------------------------------------------------

TEST(CodecBody, TrailingBytesAreReportedNotFatal) {
  size_t leftover = 0;
  auto r = DecodeBody<ThreadReference::Name::Request>(Bytes({0, 0, 0, 0, 0, 0, 0, 1, 0xaa, 0xbb}), &leftover);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->thread, ThreadId{1});
  EXPECT_EQ(leftover, 2u);
}

TEST(CodecBody, ShortBodyIsIllegalArgument) {
  auto r = DecodeBody<ThreadReference::Frames::Request>(Bytes({0, 0, 0, 0, 0, 0, 0, 1, 0, 0}));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kIllegalArgument);
  EXPECT_NE(r.error().detail.find("past end"), std::string::npos);
}

}  // namespace
}  // namespace jdwpx::jdwp
