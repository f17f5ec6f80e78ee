// jdwpx-probe's output: each packet kind encoded with the jdwp codec, framed,
// parsed and decoded as the tool does, then printed to exact JSON and text
// lines; the snapshot's node tree rebuilt; targets parsed.
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "tools/probe/client.h"
#include "tools/probe/output.h"
#include "tools/probe/target.h"

namespace jdwpx::tools::probe {
namespace {

namespace Probe = jdwp::Probe;
using Node = Probe::Snapshot::Node;
using jdwp::Probe::NodeKind;

// 2023-11-14T22:13:20.123Z
constexpr int64_t kTime = 1'700'000'000'123'456'789;

// Through the wire and back, as the tool receives it.
template <class Command>
typename Command::Request OverTheWire(const typename Command::Request& request) {
  const std::vector<uint8_t> packet = jdwp::MakeCommandPacket(42, Command::kId, jdwp::EncodeBody(request));
  auto parsed = jdwp::ParsePacket(packet);
  EXPECT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->command_set, 128);
  EXPECT_EQ(parsed->command, Command::kId.command);
  auto decoded = jdwp::DecodeBody<typename Command::Request>(parsed->data);
  EXPECT_TRUE(decoded.has_value());
  return *decoded;
}

Node N(uint8_t depth, NodeKind kind, std::string name, std::string type = "", std::string text = "", int32_t length = 0) {
  return Node{depth, kind, std::move(name), std::move(type), std::move(text), length};
}

class ProbeOutput : public ::testing::Test {
 protected:
  // Text lines are in local time: UTC here, so that they are exact.
  void SetUp() override {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

TEST_F(ProbeOutput, LogJson) {
  const auto log = OverTheWire<Probe::Log>(
      {.probe_id = 3, .time_ns = kTime, .thread = "worker-1", .location = "demo.Shop.checkout:42", .message = "total=12.5 \"eur\""});
  EXPECT_EQ(LogLine(Format::kJson, "10.0.0.7:5005", log),
            R"({"kind":"log","target":"10.0.0.7:5005","probe":3,"time":"2023-11-14T22:13:20.123Z","thread":"worker-1",)"
            R"("location":"demo.Shop.checkout:42","message":"total=12.5 \"eur\""})"
            "\n");
}

TEST_F(ProbeOutput, LogText) {
  const auto log = OverTheWire<Probe::Log>(
      {.probe_id = 3, .time_ns = kTime, .thread = "worker-1", .location = "demo.Shop.checkout:42", .message = "total=12.5"});
  EXPECT_EQ(LogLine(Format::kText, "pod-a", log), "22:13:20.123 pod-a worker-1 demo.Shop.checkout:42: total=12.5\n");
}

TEST_F(ProbeOutput, LogJsonKeepsALineWithAStringCutMidCharacter) {
  const auto log = OverTheWire<Probe::Log>({.probe_id = 1, .time_ns = 0, .thread = "t", .location = "l", .message = "caf\xc3"});
  EXPECT_EQ(LogLine(Format::kJson, "x", log),
            R"({"kind":"log","target":"x","probe":1,"time":"1970-01-01T00:00:00.000Z","thread":"t","location":"l","message":"caf)"
            "\xEF\xBF\xBD\"}\n");
}

Probe::Snapshot::Request ShopSnapshot() {
  Probe::Snapshot::Request snapshot{.probe_id = 5, .time_ns = kTime, .thread = "main", .location = "demo.Shop.checkout:42", .frames = {}};
  snapshot.frames.push_back(Probe::Snapshot::Frame{
      .class_name = "demo.Shop",
      .method = "checkout",
      .line = 42,
      .values = {
          N(0, NodeKind::kNumber, "count", "int", "3"),
          N(0, NodeKind::kString, "name", "java.lang.String", "Ada", 3),
          N(0, NodeKind::kArray, "prices", "double[]", "", 4),
          N(1, NodeKind::kNumber, "0", "double", "1.5"),
          N(1, NodeKind::kNumber, "1", "double", "2.0E10"),
          N(0, NodeKind::kNull, "coupon", "demo.Coupon"),
          N(0, NodeKind::kObject, "this", "demo.Shop"),
          N(1, NodeKind::kBoolean, "open", "boolean", "true"),
          N(1, NodeKind::kCharacter, "grade", "char", "A"),
          N(1, NodeKind::kObject, "owner", "demo.Person"),
          N(2, NodeKind::kString, "name", "java.lang.String", "Grace Hopper and a long na", 300),
          N(2, NodeKind::kCycle, "shop", "demo.Shop"),
          N(2, NodeKind::kDeeper, "address", "demo.Address"),
          N(1, NodeKind::kCollection, "items", "java.util.ArrayList", "", 12),
          N(2, NodeKind::kString, "0", "java.lang.String", "tea", 3),
          N(2, NodeKind::kError, "1", "", "null dereference"),
      }});
  snapshot.frames.push_back(Probe::Snapshot::Frame{.class_name = "demo.Main", .method = "main", .line = 7, .values = {
      N(0, NodeKind::kArray, "args", "java.lang.String[]", "", 0)}});
  return snapshot;
}

TEST_F(ProbeOutput, SnapshotJson) {
  const auto snapshot = OverTheWire<Probe::Snapshot>(ShopSnapshot());
  EXPECT_EQ(SnapshotLines(Format::kJson, "pod-a", snapshot),
            R"({"kind":"snapshot","target":"pod-a","probe":5,"time":"2023-11-14T22:13:20.123Z","thread":"main",)"
            R"("location":"demo.Shop.checkout:42","frames":[)"
            R"({"class":"demo.Shop","method":"checkout","line":42,)"
            R"("locals":{"count":3,"name":"Ada","prices":{"type":"double[]","length":4,"elements":[1.5,20000000000.0]},"coupon":null},)"
            R"("this":{"open":true,"grade":"A","owner":{"type":"demo.Person","fields":{"name":"Grace Hopper and a long na",)"
            R"("shop":{"type":"demo.Shop","cut":"cycle"},"address":{"type":"demo.Address","cut":"depth"}}},)"
            R"("items":{"type":"java.util.ArrayList","length":12,"elements":["tea",{"error":"null dereference"}]}}},)"
            R"({"class":"demo.Main","method":"main","line":7,"locals":{"args":{"type":"java.lang.String[]","length":0,"elements":[]}},"this":null}]})"
            "\n");
}

TEST_F(ProbeOutput, SnapshotText) {
  const auto snapshot = OverTheWire<Probe::Snapshot>(ShopSnapshot());
  EXPECT_EQ(SnapshotLines(Format::kText, "pod-a", snapshot),
            "22:13:20.123 pod-a main demo.Shop.checkout:42: snapshot\n"
            "  #0 demo.Shop.checkout:42\n"
            "      count = 3\n"
            "      name = \"Ada\"\n"
            "      prices = double[4]\n"
            "        [0] = 1.5\n"
            "        [1] = 2.0E10\n"
            "      coupon = null\n"
            "      this = demo.Shop\n"
            "        open = true\n"
            "        grade = 'A'\n"
            "        owner = demo.Person\n"
            "          name = \"Grace Hopper and a long na\"... (300 chars)\n"
            "          shop = demo.Shop (cycle)\n"
            "          address = demo.Address {...}\n"
            "        items = java.util.ArrayList (size 12)\n"
            "          [0] = \"tea\"\n"
            "          [1] = <error: null dereference>\n"
            "  #1 demo.Main.main:7\n"
            "      args = java.lang.String[0]\n");
}

TEST_F(ProbeOutput, NoticeJsonAndText) {
  const auto notice = OverTheWire<Probe::Notice>(
      {.probe_id = 9, .kind = Probe::NoticeKind::kPaused, .message = "over its CPU budget (1% of a core)"});
  EXPECT_EQ(NoticeLine(Format::kJson, "h:1", notice, kTime),
            R"({"kind":"notice","target":"h:1","probe":9,"time":"2023-11-14T22:13:20.123Z","notice":"paused",)"
            R"x("message":"over its CPU budget (1% of a core)"})x"
            "\n");
  EXPECT_EQ(NoticeLine(Format::kText, "h:1", notice, kTime), "22:13:20.123 h:1 probe 9 paused: over its CPU budget (1% of a core)\n");
}

TEST_F(ProbeOutput, NoticeNames) {
  EXPECT_EQ(NoticeName(Probe::NoticeKind::kEvaluationError), "evaluation_error");
  EXPECT_EQ(NoticeName(Probe::NoticeKind::kArmed), "armed");
  EXPECT_EQ(NoticeName(Probe::NoticeKind::kDone), "done");
  EXPECT_EQ(NoticeName(Probe::NoticeKind::kRateLimited), "rate_limited");
  EXPECT_EQ(NoticeName(Probe::NoticeKind::kRefused), "refused");
  EXPECT_EQ(NoticeName(static_cast<Probe::NoticeKind>(77)), "notice_77");
}

TEST_F(ProbeOutput, SummaryJsonAndText) {
  const Summary summary{.probe = 4, .hits = 1000, .matched = 10, .suppressed = 2};
  EXPECT_EQ(SummaryLine(Format::kJson, "unix:/tmp/jdwp.sock", summary, kTime),
            R"({"kind":"summary","target":"unix:/tmp/jdwp.sock","probe":4,"time":"2023-11-14T22:13:20.123Z",)"
            R"("hits":1000,"matched":10,"suppressed":2})"
            "\n");
  EXPECT_EQ(SummaryLine(Format::kText, "unix:/tmp/jdwp.sock", summary, kTime),
            "unix:/tmp/jdwp.sock: probe 4: 1000 hits, 10 matched, 2 suppressed\n");
}

TEST(ProbeTree, NestedObjectsAndAStaticFrame) {
  const std::vector<Node> nodes = {
      N(0, NodeKind::kObject, "order", "demo.Order"),
      N(1, NodeKind::kObject, "customer", "demo.Customer"),
      N(2, NodeKind::kNumber, "id", "long", "-9007199254740993"),
      N(2, NodeKind::kObject, "home", "demo.Address"),
      N(3, NodeKind::kDeeper, "city", "demo.City"),
      N(1, NodeKind::kNumber, "weight", "float", "NaN"),
      N(0, NodeKind::kNumber, "n", "int", "2"),
  };
  const FrameValues values = RebuildValues(nodes);
  EXPECT_EQ(values.locals.dump(),
            R"({"order":{"type":"demo.Order","fields":{"customer":{"type":"demo.Customer","fields":{"id":-9007199254740993,)"
            R"("home":{"type":"demo.Address","fields":{"city":{"type":"demo.City","cut":"depth"}}}}},"weight":"NaN"}},"n":2})");
  EXPECT_TRUE(values.this_fields.is_null());
}

TEST(ProbeTree, ArraysOfArraysAndCycles) {
  const std::vector<Node> nodes = {
      N(0, NodeKind::kArray, "grid", "int[][]", "", 2),
      N(1, NodeKind::kArray, "0", "int[]", "", 2),
      N(2, NodeKind::kNumber, "0", "int", "1"),
      N(2, NodeKind::kNumber, "1", "int", "2"),
      N(1, NodeKind::kNull, "1", "int[]"),
      N(0, NodeKind::kObject, "this", "demo.Node"),
      N(1, NodeKind::kCycle, "next", "demo.Node"),
      N(1, NodeKind::kError, "value", "", "cannot read field value"),
  };
  const FrameValues values = RebuildValues(nodes);
  EXPECT_EQ(values.locals.dump(),
            R"({"grid":{"type":"int[][]","length":2,"elements":[{"type":"int[]","length":2,"elements":[1,2]},null]}})");
  EXPECT_EQ(values.this_fields.dump(), R"({"next":{"type":"demo.Node","cut":"cycle"},"value":{"error":"cannot read field value"}})");
}

TEST(ProbeTree, MapEntriesKeepTheirKeys) {
  const std::vector<Node> nodes = {
      N(0, NodeKind::kCollection, "stock", "java.util.HashMap", "", 2),
      N(1, NodeKind::kNumber, "tea", "java.lang.Integer", "4"),
      N(1, NodeKind::kNumber, "coffee", "java.lang.Integer", "0"),
  };
  EXPECT_EQ(RebuildValues(nodes).locals.dump(),
            R"({"stock":{"type":"java.util.HashMap","length":2,"entries":{"tea":4,"coffee":0}}})");
}

TEST(ProbeTree, ThisThatCouldNotBeReadIsItsError) {
  const std::vector<Node> nodes = {N(0, NodeKind::kError, "this", "", "frame is gone")};
  EXPECT_EQ(RebuildValues(nodes).this_fields.dump(), R"({"error":"frame is gone"})");
}

TEST(ProbeTree, ADepthThatJumpsIsTakenAsTheNextDepth) {
  const std::vector<Node> nodes = {
      N(0, NodeKind::kObject, "a", "A"),
      N(3, NodeKind::kNumber, "x", "int", "1"),
      N(0, NodeKind::kNumber, "b", "int", "2"),
  };
  EXPECT_EQ(RebuildValues(nodes).locals.dump(), R"({"a":{"type":"A","fields":{"x":1}},"b":2})");
}

TEST(ProbeTargets, ConnectForms) {
  auto tcp = ConnectTarget("10.0.0.7:5005");
  ASSERT_TRUE(tcp.has_value());
  EXPECT_EQ(tcp->kind, TargetSpec::Kind::kTcp);
  EXPECT_EQ(tcp->where, "10.0.0.7");
  EXPECT_EQ(tcp->port, "5005");
  auto v6 = ConnectTarget("[::1]:5005");
  ASSERT_TRUE(v6.has_value());
  EXPECT_EQ(v6->where, "::1");
  EXPECT_EQ(v6->name, "[::1]:5005");
  auto unix_socket = ConnectTarget("unix:/tmp/jdwp.sock");
  ASSERT_TRUE(unix_socket.has_value());
  EXPECT_EQ(unix_socket->kind, TargetSpec::Kind::kUnix);
  EXPECT_EQ(unix_socket->where, "/tmp/jdwp.sock");
  EXPECT_EQ(ConnectTarget("host").error(), "'host' is not HOST:PORT nor unix:PATH");
  EXPECT_EQ(ConnectTarget("host:99999").error(), "'host:99999': invalid port");
  EXPECT_EQ(ConnectTarget("unix:").error(), "'unix:': unix: needs a path");
}

TEST(ProbeTargets, ShellQuote) {
  EXPECT_EQ(ShellQuote("pod-a.b_1"), "pod-a.b_1");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote(""), "''");
}

std::filesystem::path TempDir() {
  char pattern[] = "/tmp/probe_test.XXXXXX";
  return mkdtemp(pattern);
}

TEST(ProbeTargets, TargetsFile) {
  const auto dir = TempDir();
  std::ofstream(dir / "targets") << "# fleet\n10.0.0.7:5005\n\n  unix:/tmp/a.sock\nexec podman exec -i app cat\n--connect h:1\n";
  auto targets = ReadTargetsFile(dir / "targets");
  ASSERT_TRUE(targets.has_value()) << targets.error();
  ASSERT_EQ(targets->size(), 4u);
  EXPECT_EQ((*targets)[0].name, "10.0.0.7:5005");
  EXPECT_EQ((*targets)[1].kind, TargetSpec::Kind::kUnix);
  EXPECT_EQ((*targets)[2].kind, TargetSpec::Kind::kExec);
  EXPECT_EQ((*targets)[2].where, "podman exec -i app cat");
  EXPECT_EQ((*targets)[3].name, "h:1");
  std::ofstream(dir / "bad") << "10.0.0.7:5005\nnope\n";
  EXPECT_EQ(ReadTargetsFile(dir / "bad").error(), (dir / "bad").string() + ":2: 'nope' is not HOST:PORT nor unix:PATH");
  std::filesystem::remove_all(dir);
}

// kubectl is a script on PATH here: it prints two pods, and its arguments to a file.
TEST(ProbeTargets, KubeExpandsToOneExecPerPod) {
  const auto dir = TempDir();
  {
    std::ofstream script(dir / "kubectl");
    script << "#!/bin/sh\necho \"$@\" > " << (dir / "args").string() << "\nprintf 'pod/app-1\\npod/app-2\\n'\n";
  }
  std::filesystem::permissions(dir / "kubectl", std::filesystem::perms::owner_all);
  const std::string old_path = getenv("PATH");
  setenv("PATH", (dir.string() + ":" + old_path).c_str(), 1);
  auto targets = KubeTargets({.selector = "app=shop", .namespace_name = "prod", .container = "jvm"});
  setenv("PATH", old_path.c_str(), 1);
  ASSERT_TRUE(targets.has_value()) << targets.error();
  ASSERT_EQ(targets->size(), 2u);
  EXPECT_EQ((*targets)[0].name, "app-1");
  EXPECT_EQ((*targets)[0].where, "kubectl exec -i -n prod -c jvm app-1 -- /jdwpx/jdwpx-bridge connect unix:/tmp/jdwp.sock");
  EXPECT_EQ((*targets)[1].name, "app-2");
  std::ifstream args(dir / "args");
  std::string line;
  std::getline(args, line);
  EXPECT_EQ(line, "get pods -l app=shop -o name -n prod");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace jdwpx::tools::probe

namespace jdwpx::tools::probe {
namespace {

TEST(ProbeClient, VersionLineNamesJdwpx) {
  const std::string stock = "Java Debug Wire Protocol (Reference Implementation) version 17.0\nJVM Debug Interface version 17.0\nJVM version 17.0.9";
  EXPECT_FALSE(NamesJdwpx(stock));
  EXPECT_TRUE(NamesJdwpx(stock + "\njdwpx: probes (command set 128)"));
  EXPECT_FALSE(NamesJdwpx(stock + "\njdwpx: probes (command set 128) and more"));
  EXPECT_FALSE(NamesJdwpx("JVM version jdwpx: probes (command set 128)"));
}

}  // namespace
}  // namespace jdwpx::tools::probe
