// The packet log / trace printer.
#include <gtest/gtest.h>

#include "jdwp/commands/all.h"
#include "jdwp/print.h"
#include "jdwp/tests/populate.h"

namespace jdwpx::jdwp {
namespace {

TEST(Print, FlatLayout) {
  ThreadReference::Frames::Request req{ThreadId{0x1a}, 0, -1};
  EXPECT_EQ(Describe(req), "thread=0x1a start_frame=0 length=-1");
  EXPECT_EQ(Describe(VirtualMachine::Version::Request{}), "");
}

TEST(Print, NestedRepeatsAreCut) {
  ThreadReference::Frames::Reply reply;
  for (uint64_t i = 1; i <= 10; ++i) reply.frames.push_back({FrameId{i}, Location{TypeTag::kClass, ClassId{2}, MethodId{3}, i}});
  EXPECT_EQ(Describe(reply),
            "frames=[{frame_id=0x1 location={CLASS 0x2 0x3 @1}}, {frame_id=0x2 location={CLASS 0x2 0x3 @2}}, "
            "{frame_id=0x3 location={CLASS 0x2 0x3 @3}}, {frame_id=0x4 location={CLASS 0x2 0x3 @4}}, ... (10 items)]");
}

TEST(Print, ListsInWireFormShowTheirSize) {
  VirtualMachine::AllClasses::Reply typed;
  typed.classes.items.push_back({TypeTag::kArray, ReferenceTypeId{2}, "[I", 7});
  EXPECT_EQ(Describe(typed), "classes=[{ref_type_tag=ARRAY type_id=0x2 signature=\"[I\" status=7}]");
  WireListBuilder list(11);
  list.Add(TypeTag::kArray, ReferenceTypeId{2}, Raw(std::string_view("\0\0\0\2[I", 6)), int32_t{7});
  VirtualMachine::AllClasses::Reply built;
  built.classes = std::move(list).Finish<VirtualMachine::AllClasses::Class>();
  EXPECT_EQ(Describe(built), "classes=(23 bytes of items in wire form)");
}

TEST(Print, SelectsShowTheirKind) {
  EventRequest::Set::Request req{EventKind::kBreakpoint, SuspendPolicy::kAll,
                                 {modifiers::LocationOnly{{TypeTag::kClass, ClassId{1}, MethodId{2}, 3}},
                                  modifiers::Count{1}, modifiers::PlatformThreadsOnly{}}};
  EXPECT_EQ(Describe(req),
            "event_kind=BREAKPOINT suspend_policy=ALL modifiers=[LocationOnly{loc={CLASS 0x1 0x2 @3}}, "
            "Count{count=1}, PlatformThreadsOnly{}]");
  Event::Composite::Request composite{SuspendPolicy::kNone, {events::VMDeath{0}, events::ClassUnload{4, "LA;"}}};
  EXPECT_EQ(Describe(composite), "suspend_policy=NONE events=[VMDeath{request_id=0}, ClassUnload{request_id=4 signature=\"LA;\"}]");
}

TEST(Print, Values) {
  ClassType::InvokeMethod::Request req{ClassId{1}, ThreadId{2}, MethodId{3},
                                       {Value::Int(-4), Value::Boolean(true), Value::Object(Tag::kString, ObjectId{5}),
                                        Value::Double(1.5), Value::Char('A'), Value::Void()},
                                       InvokeOptions::kInvokeSingleThreaded};
  EXPECT_EQ(Describe(req),
            "clazz=0x1 thread=0x2 method_id=0x3 arguments=[I:-4, Z:true, s:0x5, D:1.5, ... (6 items)] options=1");
  EXPECT_EQ(Describe(ClassType::InvokeMethod::Reply{Value::Void(), TaggedObjectId{Tag::kObject, ObjectId{}}}),
            "return_value=V exception=L:0x0");
  EXPECT_EQ(Describe(ArrayReference::GetValues::Reply{ArrayRegion{Tag::kByte, {Value::Byte(-1)}}}), "values=B[-1]");
}

TEST(Print, StringsAndBlobsAreBoundedAndOneLine) {
  VirtualMachine::CreateString::Request req{std::string(500, 'x') + "\n"};
  std::string line = Describe(req);
  EXPECT_LT(line.size(), 120u);
  EXPECT_NE(line.find("...(501 bytes)"), std::string::npos);
  EXPECT_EQ(Describe(VirtualMachine::CreateString::Request{"a\nb"}), "utf=\"a\\x0ab\"");
  Method::Bytecodes::Reply code{std::vector<uint8_t>(100, 0xb1)};
  EXPECT_EQ(Describe(code).substr(0, 22), "bytes=<100 bytes: b1 b");
  EXPECT_LT(Describe(code).size(), 80u);
}

TEST(Print, DeeplyNestedStaysBounded) {
  VirtualMachine::RedefineClasses::Request req;
  for (int i = 0; i < 1000; ++i) req.classes.push_back({ReferenceTypeId{1}, std::vector<uint8_t>(10000, 1)});
  EXPECT_LT(Describe(req).size(), 400u);
}

TEST(Print, Packets) {
  std::vector<uint8_t> data(16, 0);
  auto cmd = MakeCommandPacket(7, ThreadReference::Frames::kId, data);
  EXPECT_EQ(DescribePacket(cmd), "ThreadReference.Frames id=7 len=27");
  auto reply = MakeReplyPacket(7, ErrorCode::kNone, std::vector<uint8_t>(201, 0));
  EXPECT_EQ(DescribePacket(reply), "reply id=7 NONE len=212");
  auto error = MakeReplyPacket(8, ErrorCode::kInvalidThread, {});
  EXPECT_EQ(DescribePacket(error), "reply id=8 INVALID_THREAD len=11");
  auto odd_error = MakeReplyPacket(9, static_cast<ErrorCode>(777), {});
  EXPECT_EQ(DescribePacket(odd_error), "reply id=9 UNKNOWN_ERROR(777) len=11");
  auto unknown = MakeCommandPacket(3, CommandId{static_cast<CommandSet>(99), 3}, {});
  EXPECT_EQ(DescribePacket(unknown), "command 99.3 id=3 len=11");
  EXPECT_EQ(DescribePacket(std::vector<uint8_t>{0, 0, 0}).substr(0, 16), "malformed packet");
}

TEST(Print, CommandData) {
  auto data = EncodeBody(ThreadReference::Frames::Request{ThreadId{0x1a}, 0, -1});
  EXPECT_EQ(DescribeCommandData(11, 6, data), "thread=0x1a start_frame=0 length=-1");
  data.push_back(0);
  EXPECT_EQ(DescribeCommandData(11, 6, data), "thread=0x1a start_frame=0 length=-1 (+1 trailing bytes)");
  data.resize(5);
  EXPECT_EQ(DescribeCommandData(11, 6, data).substr(0, 22), "malformed packet data:");
  EXPECT_EQ(DescribeCommandData(11, 99, data), "unknown command");
}

}  // namespace
}  // namespace jdwpx::jdwp
