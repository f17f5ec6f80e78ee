// Coverage of the declared protocol: counts, names, and a round trip and
// truncation check of every command's Request and Reply.
#include <map>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "jdwp/commands/all.h"
#include "jdwp/print.h"
#include "jdwp/tests/populate.h"

namespace jdwpx::jdwp {
namespace {

TEST(Commands, Counts) {
  EXPECT_EQ(std::tuple_size_v<AllCommands>, 94u);
  EXPECT_EQ(std::variant_size_v<events::EventData>, 18u);
  EXPECT_EQ(std::variant_size_v<modifiers::Modifier>, 13u);
  size_t errors = 0;
  AllErrorCodes(&errors);
  EXPECT_EQ(errors, 59u);
}

TEST(Commands, NamesCoverEveryCommandOnce) {
  std::set<std::pair<int, int>> ids;
  std::set<std::string_view> names;
  ForEachCommand([&]<class C>(std::type_identity<C>) {
    const auto set = static_cast<uint8_t>(C::kId.set);
    SCOPED_TRACE(C::kName);
    EXPECT_EQ(CommandName(set, C::kId.command), C::kName);
    const std::string prefix = std::string(CommandSetName(set)) + ".";
    EXPECT_EQ(C::kName.substr(0, prefix.size()), prefix);
    EXPECT_TRUE(ids.insert({set, C::kId.command}).second);
    EXPECT_TRUE(names.insert(C::kName).second);
  });
  EXPECT_EQ(ids.size(), 94u);
  EXPECT_EQ(CommandName(64, 100), "Event.Composite");
  EXPECT_EQ(CommandName(1, 1), "VirtualMachine.Version");
  EXPECT_EQ(CommandName(11, 15), "ThreadReference.IsVirtual");
  EXPECT_EQ(CommandName(9, 4), "");  // unassigned in the spec
  EXPECT_EQ(CommandName(1, 23), "");
  EXPECT_EQ(CommandName(200, 1), "");
  EXPECT_EQ(CommandSetName(8), "Field");
  EXPECT_EQ(CommandSetName(64), "Event");
  EXPECT_EQ(CommandSetName(7), "");
}

TEST(Commands, SetSizesMatchTheSpec) {
  std::map<int, int> per_set;
  ForEachCommand([&]<class C>(std::type_identity<C>) { ++per_set[static_cast<int>(C::kId.set)]; });
  const std::map<int, int> expected = {{1, 22}, {2, 19}, {3, 4},  {4, 1},  {5, 1},  {6, 5},  {9, 9},  {10, 1},
                                       {11, 15}, {12, 3}, {13, 3}, {14, 1}, {15, 3}, {16, 4}, {17, 1}, {18, 2}};
  EXPECT_EQ(per_set, expected);
}

TEST(Commands, VisitCommandFindsTheType) {
  std::string_view seen;
  EXPECT_TRUE(VisitCommand(11, 6, [&]<class C>(std::type_identity<C>) { seen = C::kName; }));
  EXPECT_EQ(seen, "ThreadReference.Frames");
  EXPECT_TRUE(VisitCommand(64, 100, [&]<class C>(std::type_identity<C>) { seen = C::kName; }));
  EXPECT_EQ(seen, "Event.Composite");
  EXPECT_FALSE(VisitCommand(11, 99, [&]<class C>(std::type_identity<C>) { seen = "wrong"; }));
  EXPECT_EQ(seen, "Event.Composite");
}

TEST(Errors, NamesAreTheSpecs) {
  size_t n = 0;
  const ErrorCode* codes = AllErrorCodes(&n);
  std::set<std::string_view> names;
  for (size_t i = 0; i < n; ++i) {
    EXPECT_NE(ErrorName(codes[i]), "UNKNOWN_ERROR");
    EXPECT_TRUE(names.insert(ErrorName(codes[i])).second) << ErrorName(codes[i]);
  }
  EXPECT_EQ(codes[0], ErrorCode::kNone);
  EXPECT_EQ(codes[n - 1], ErrorCode::kInvalidCount);
  EXPECT_EQ(ErrorName(ErrorCode::kNone), "NONE");
  EXPECT_EQ(ErrorName(ErrorCode::kInvalidThread), "INVALID_THREAD");
  EXPECT_EQ(ErrorName(ErrorCode::kClassAttributeChangeNotImplemented), "CLASS_ATTRIBUTE_CHANGE_NOT_IMPLEMENTED");
  EXPECT_EQ(ErrorName(ErrorCode::kNativeMethod), "NATIVE_METHOD");
  EXPECT_EQ(ErrorName(static_cast<ErrorCode>(501)), "UNKNOWN_ERROR");
}

// Encodes, decodes and re-encodes; the bytes must not change.
template <class T>
void ExpectRoundTrip(const T& value) {
  const std::vector<uint8_t> bytes = EncodeBody(value);
  size_t leftover = 99;
  auto back = DecodeBody<T>(bytes, &leftover);
  ASSERT_TRUE(back.has_value()) << back.error().detail;
  EXPECT_EQ(leftover, 0u);
  EXPECT_EQ(EncodeBody(*back), bytes);
}

// Every proper prefix of a layout's bytes is an error: no partial decode, no over-read.
template <class T>
void ExpectEveryTruncationFails(const T& value) {
  const std::vector<uint8_t> bytes = EncodeBody(value);
  for (size_t n = 0; n < bytes.size(); ++n) {
    // A copy of exactly n bytes, so a sanitizer sees any read past the end.
    std::vector<uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
    auto r = DecodeBody<T>(prefix);
    ASSERT_FALSE(r.has_value()) << "prefix of " << n << " of " << bytes.size() << " bytes decoded";
    EXPECT_EQ(r.error().code, ErrorCode::kIllegalArgument);
  }
}

template <class C>
void CheckCommand() {
  SCOPED_TRACE(C::kName);
  ExpectRoundTrip(typename C::Request{});
  ExpectRoundTrip(typename C::Reply{});
  for (uint64_t seed : {0u, 1u, 5u}) {
    auto request = testing::Populated<typename C::Request>(seed);
    auto reply = testing::Populated<typename C::Reply>(seed);
    ExpectRoundTrip(request);
    ExpectRoundTrip(reply);
    if constexpr (!testing::ContainsRawTail<typename C::Request>()) ExpectEveryTruncationFails(request);
    ExpectEveryTruncationFails(reply);
    // The printer handles every layout and stays bounded.
    EXPECT_LE(Describe(request).size(), print_detail::kMaxLine + 3);
    EXPECT_LE(Describe(reply).size(), print_detail::kMaxLine + 3);
  }
}

TEST(Commands, EveryRequestAndReplyRoundTripsAndRejectsTruncation) {
  size_t checked = 0;
  ForEachCommand([&]<class C>(std::type_identity<C>) {
    CheckCommand<C>();
    ++checked;
  });
  CheckCommand<Event::Composite>();
  EXPECT_EQ(checked, 94u);
}

TEST(Commands, PopulatedLayoutsCarryTheirValues) {
  auto frames = testing::Populated<ThreadReference::Frames::Reply>();
  ASSERT_EQ(frames.frames.size(), 2u);
  auto back = DecodeBody<ThreadReference::Frames::Reply>(EncodeBody(frames));
  ASSERT_TRUE(back.has_value());
  ASSERT_EQ(back->frames.size(), 2u);
  EXPECT_EQ(back->frames[1].frame_id, frames.frames[1].frame_id);
  EXPECT_EQ(back->frames[1].location, frames.frames[1].location);

  auto caps = testing::Populated<VirtualMachine::CapabilitiesNew::Reply>();
  auto caps_bytes = EncodeBody(caps);
  EXPECT_EQ(caps_bytes, std::vector<uint8_t>(32, 1));
  EXPECT_EQ(EncodeBody(VirtualMachine::Capabilities::Reply{}).size(), 7u);
}

TEST(Commands, VersionReplyGolden) {
  VirtualMachine::Version::Reply reply{"d", 17, 0, "17.0.1", "VM"};
  auto expected = testing::Bytes({0, 0, 0, 1, 'd', 0, 0, 0, 17, 0, 0, 0, 0, 0, 0, 0, 6, '1', '7', '.', '0', '.',
                                  '1', 0, 0, 0, 2, 'V', 'M'});
  EXPECT_EQ(EncodeBody(reply), expected);
}

TEST(Commands, IdSizesReplyOrder) {
  VirtualMachine::IDSizes::Reply sizes{1, 2, 3, 4, 5};
  EXPECT_EQ(EncodeBody(sizes), testing::Bytes({0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5}));
  EXPECT_EQ(VirtualMachine::IDSizes::Reply::jdwp_field_names(),
            "field_id_size, method_id_size, object_id_size, reference_type_id_size, frame_id_size");
}

TEST(Commands, StackFrameGetValuesRequestGolden) {
  StackFrame::GetValues::Request req{ThreadId{1}, FrameId{2}, {{0, Tag::kInt}, {1, Tag::kObject}}};
  EXPECT_EQ(EncodeBody(req), testing::Bytes({0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 2,  //
                                             0, 0, 0, 0, 'I', 0, 0, 0, 1, 'L'}));
}

}  // namespace
}  // namespace jdwpx::jdwp
