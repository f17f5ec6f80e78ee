// Whole runs of the jdwpx-probe binary against fake agents (fake_agent.h): on
// TCP sockets served by this test (port 0, read back), and behind --exec and
// --kube as a program of its own. Each test asserts the exact output lines,
// the exit status, and what each agent received (Clear and Dispose at the end).
// No sleeps: the tool's output and exit are waited on with timeouts.
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tools/tests/fake_agent.h"

extern char** environ;

namespace jdwpx::tools::probe::testing {
namespace {

namespace Probe = jdwp::Probe;
using Clock = std::chrono::steady_clock;

constexpr int kTimeoutMs = 20000;
constexpr int64_t kTime = 1'700'000'000'000'000'000;  // 2023-11-14T22:13:20.000Z
const std::vector<std::string> kCleanEnd = {"VirtualMachine.Version", "Probe.Set", "Probe.List", "Probe.Clear", "VirtualMachine.Dispose"};

// The tool as a child process, its stdout and stderr read through pipes.
class Tool {
 public:
  explicit Tool(const std::vector<std::string>& args) {
    int out[2], err[2];
    pipe2(out, O_CLOEXEC);
    pipe2(err, O_CLOEXEC);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err[1], 2);
    std::vector<std::string> argv = {JDWPX_PROBE_BINARY};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> raw;
    for (std::string& a : argv) raw.push_back(a.data());
    raw.push_back(nullptr);
    spawned_ = posix_spawn(&pid_, raw[0], &actions, nullptr, raw.data(), environ) == 0;
    posix_spawn_file_actions_destroy(&actions);
    close(out[1]);
    close(err[1]);
    out_fd_ = out[0];
    err_fd_ = err[0];
  }
  ~Tool() {
    if (pid_ > 0 && status_ < 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
    close(out_fd_);
    close(err_fd_);
  }

  // The next line on stdout (without its "\n"); nullopt at a timeout or the end.
  std::optional<std::string> ReadLine(int timeout_ms = kTimeoutMs) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (true) {
      const size_t newline = out_.find('\n', consumed_);
      if (newline != std::string::npos) {
        std::string line = out_.substr(consumed_, newline - consumed_);
        consumed_ = newline + 1;
        return line;
      }
      if (out_fd_ < 0 || !Pump(deadline)) return std::nullopt;
    }
  }

  // The exit status once the tool has ended and closed its output; -1 at a timeout.
  int Wait(int timeout_ms = kTimeoutMs) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (out_fd_ >= 0 || err_fd_ >= 0) {
      if (!Pump(deadline)) return -1;
    }
    int status = 0;
    waitpid(pid_, &status, 0);
    status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return status_;
  }

  void Signal(int signal) { kill(pid_, signal); }
  bool spawned() const { return spawned_; }
  const std::string& err() const { return err_; }
  // Every stdout line, read or not.
  std::vector<std::string> Lines() const {
    std::vector<std::string> lines;
    for (size_t at = 0, end; (end = out_.find('\n', at)) != std::string::npos; at = end + 1) lines.push_back(out_.substr(at, end - at));
    return lines;
  }

 private:
  // Reads what either pipe has; false at the deadline.
  bool Pump(Clock::time_point deadline) {
    pollfd fds[2] = {{out_fd_, POLLIN, 0}, {err_fd_, POLLIN, 0}};
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0 || poll(fds, 2, static_cast<int>(left)) <= 0) return false;
    ReadInto(fds[0], out_fd_, out_);
    ReadInto(fds[1], err_fd_, err_);
    return true;
  }
  static void ReadInto(const pollfd& polled, int& fd, std::string& into) {
    if (fd < 0 || polled.revents == 0) return;
    char buffer[4096];
    const ssize_t n = read(fd, buffer, sizeof buffer);
    if (n > 0) {
      into.append(buffer, static_cast<size_t>(n));
    } else {
      close(fd);
      fd = -1;
    }
  }

  pid_t pid_ = -1;
  bool spawned_ = false;
  int status_ = -1;
  int out_fd_ = -1, err_fd_ = -1;
  std::string out_, err_;
  size_t consumed_ = 0;
};

AgentPacket LogPacket(int n, int32_t probe = 7) {
  return Packet<Probe::Log>({.probe_id = probe, .time_ns = kTime + n * 1'000'000, .thread = "main",
                             .location = "demo.Main.loop:12", .message = "i=" + std::to_string(n)});
}

std::string LogJson(const std::string& target, int n, int32_t probe = 7) {
  char time[32];
  std::snprintf(time, sizeof time, "2023-11-14T22:13:20.%03dZ", n);
  return R"({"kind":"log","target":")" + target + R"(","probe":)" + std::to_string(probe) + R"(,"time":")" + time +
         R"(","thread":"main","location":"demo.Main.loop:12","message":"i=)" + std::to_string(n) + R"("})";
}

// A summary line with its time (now, so not exact) checked for form and then left out.
std::string SummaryWithoutTime(const std::string& line) {
  auto json = nlohmann::ordered_json::parse(line);
  const std::string time = json.value("time", "");
  EXPECT_EQ(time.size(), 24u) << time;
  EXPECT_EQ(time.back(), 'Z') << time;
  json.erase("time");
  return json.dump();
}

std::string SummaryJson(const std::string& target, int hits, int matched, int suppressed, int32_t probe = 7) {
  return R"({"kind":"summary","target":")" + target + R"(","probe":)" + std::to_string(probe) + R"(,"hits":)" +
         std::to_string(hits) + R"(,"matched":)" + std::to_string(matched) + R"(,"suppressed":)" +
         std::to_string(suppressed) + "}";
}

std::string ClosedPort() {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  socklen_t size = sizeof address;
  getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
  close(fd);
  return "127.0.0.1:" + std::to_string(ntohs(address.sin_port));
}

std::filesystem::path TempDir() {
  char pattern[] = "/tmp/probe_run.XXXXXX";
  return mkdtemp(pattern);
}

TEST(ProbeRun, PrintsLogLinesUntilMaxThenClearsAndDisposes) {
  AgentScript script;
  script.after_set = {LogPacket(1), LogPacket(2), LogPacket(3)};
  script.hits = 100;
  script.matched = 3;
  script.suppressed = 1;
  FakeAgentServer agent(script);
  Tool tool({"--connect", agent.address(), "log", "demo.Main:12", "i={i}", "--if", "i % 2 == 1", "--max", "3",
             "--budget", "2.5", "--rate", "500", "--format", "json"});
  ASSERT_EQ(tool.Wait(), 0) << tool.err();
  const auto lines = tool.Lines();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0], LogJson(agent.address(), 1));
  EXPECT_EQ(lines[1], LogJson(agent.address(), 2));
  EXPECT_EQ(lines[2], LogJson(agent.address(), 3));
  EXPECT_EQ(SummaryWithoutTime(lines[3]), SummaryJson(agent.address(), 100, 3, 1));
  EXPECT_EQ(tool.err(), "");

  const AgentRecord record = agent.Wait();
  EXPECT_EQ(record.problem, "");
  EXPECT_EQ(record.commands, kCleanEnd);
  EXPECT_EQ(record.cleared_ids, std::vector<int32_t>{0});
  EXPECT_EQ(record.set.kind, Probe::Kind::kLog);
  EXPECT_EQ(record.set.location, "demo.Main:12");
  EXPECT_EQ(record.set.message_template, "i={i}");
  EXPECT_EQ(record.set.condition, "i % 2 == 1");
  EXPECT_EQ(record.set.max_hits, 3);
  EXPECT_EQ(record.set.rate, 500);
  EXPECT_EQ(record.set.budget_ppm, 25000);
  EXPECT_EQ(record.set.max_frames, 0);
  EXPECT_EQ(record.set.max_depth, 0);
}

TEST(ProbeRun, SnapshotOfTheFirstHitByDefault) {
  AgentScript script;
  Probe::Snapshot::Request snapshot{.probe_id = 7, .time_ns = kTime, .thread = "main", .location = "demo.Main.loop:12", .frames = {}};
  snapshot.frames.push_back({.class_name = "demo.Main", .method = "loop", .line = 12,
                             .values = {{0, Probe::NodeKind::kNumber, "i", "int", "41", 0}}});
  script.after_set = {Packet<Probe::Snapshot>(snapshot), LogPacket(9)};
  script.hits = script.matched = 1;
  FakeAgentServer agent(script);
  Tool tool({"--connect", agent.address(), "snapshot", "demo.Main:12", "--depth", "2", "--frames", "5", "--format", "json"});
  ASSERT_EQ(tool.Wait(), 0) << tool.err();
  const auto lines = tool.Lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], R"({"kind":"snapshot","target":")" + agent.address() +
                          R"(","probe":7,"time":"2023-11-14T22:13:20.000Z","thread":"main","location":"demo.Main.loop:12",)"
                          R"("frames":[{"class":"demo.Main","method":"loop","line":12,"locals":{"i":41},"this":null}]})");
  EXPECT_EQ(SummaryWithoutTime(lines[1]), SummaryJson(agent.address(), 1, 1, 0));
  const AgentRecord record = agent.Wait();
  EXPECT_EQ(record.commands, kCleanEnd);
  EXPECT_EQ(record.set.kind, Probe::Kind::kSnapshot);
  EXPECT_EQ(record.set.max_hits, 1);
  EXPECT_EQ(record.set.max_depth, 2);
  EXPECT_EQ(record.set.max_frames, 5);
}

TEST(ProbeRun, StockAgentIsNamedAndTheOtherTargetGoesOn) {
  AgentScript stock_script;
  stock_script.jdwpx = false;
  FakeAgentServer stock(stock_script);
  AgentScript script;
  script.after_set = {LogPacket(1)};
  script.hits = script.matched = 1;
  FakeAgentServer jdwpx(script);
  Tool tool({"--connect", stock.address(), "--connect", jdwpx.address(), "log", "demo.Main:12", "i={i}", "--max", "1", "--format", "json"});
  ASSERT_EQ(tool.Wait(), 1);
  EXPECT_EQ(tool.err(), "jdwpx-probe: " + stock.address() + ": not a jdwpx agent (the JDK's own agent has no probes)\n");
  const auto lines = tool.Lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], LogJson(jdwpx.address(), 1));
  EXPECT_EQ(SummaryWithoutTime(lines[1]), SummaryJson(jdwpx.address(), 1, 1, 0));
  const AgentRecord stock_record = stock.Wait();
  EXPECT_EQ(stock_record.problem, "");
  EXPECT_EQ(stock_record.commands, (std::vector<std::string>{"VirtualMachine.Version", "VirtualMachine.Dispose"}));
  EXPECT_EQ(jdwpx.Wait().commands, kCleanEnd);
}

TEST(ProbeRun, ARefusedProbeIsClearedEverywhere) {
  // The refusal comes once the other target has its probe set: that one must be cleared.
  std::promise<void> second_set;
  auto second_has_set = second_set.get_future();
  AgentScript refusing;
  refusing.refuse = "demo.Main:99: no code at line 99";
  refusing.on_set = [&] { second_has_set.wait_for(std::chrono::milliseconds(kTimeoutMs)); };
  FakeAgentServer first(refusing);
  AgentScript accepting;
  accepting.on_set = [&] { second_set.set_value(); };
  FakeAgentServer second(accepting);
  Tool tool({"--connect", first.address(), "--connect", second.address(), "log", "demo.Main:99", "x", "--format", "json"});
  ASSERT_EQ(tool.Wait(), 1);
  EXPECT_EQ(tool.err(), "jdwpx-probe: " + first.address() + ": probe refused: demo.Main:99: no code at line 99\n");
  EXPECT_EQ(tool.Lines(), std::vector<std::string>{});
  EXPECT_EQ(first.Wait().commands, (std::vector<std::string>{"VirtualMachine.Version", "Probe.Set", "VirtualMachine.Dispose"}));
  const AgentRecord second_record = second.Wait();
  EXPECT_EQ(second_record.commands, kCleanEnd);
  EXPECT_EQ(second_record.cleared_ids, std::vector<int32_t>{0});
}

TEST(ProbeRun, UnreachableAndGoneTargetsAreNamedAndTheOthersGoOn) {
  const std::string unreachable = ClosedPort();
  AgentScript leaving;
  leaving.after_set = {LogPacket(1, 3)};
  leaving.probe_id = 3;
  leaving.close_after_sending = true;
  FakeAgentServer gone(leaving);
  AgentScript staying;
  staying.after_set = {LogPacket(1), LogPacket(2)};
  staying.hits = staying.matched = 2;
  FakeAgentServer healthy(staying);
  Tool tool({"--connect", unreachable, "--connect", gone.address(), "--connect", healthy.address(), "log", "demo.Main:12", "i={i}",
             "--max", "2", "--format", "json"});
  ASSERT_EQ(tool.Wait(), 1);
  EXPECT_NE(tool.err().find("jdwpx-probe: " + unreachable + ": cannot connect: Connection refused\n"), std::string::npos) << tool.err();
  EXPECT_NE(tool.err().find("jdwpx-probe: " + gone.address() + ": the connection closed\n"), std::string::npos) << tool.err();
  auto lines = tool.Lines();
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(SummaryWithoutTime(lines[3]), SummaryJson(healthy.address(), 2, 2, 0));
  lines.pop_back();
  std::sort(lines.begin(), lines.end());
  std::vector<std::string> expected = {LogJson(gone.address(), 1, 3), LogJson(healthy.address(), 1), LogJson(healthy.address(), 2)};
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(lines, expected);
  EXPECT_EQ(healthy.Wait().commands, kCleanEnd);
}

TEST(ProbeRun, DoneInTheAgentEndsTheTarget) {
  AgentScript script;
  script.after_set = {LogPacket(1), Packet<Probe::Notice>({.probe_id = 7, .kind = Probe::NoticeKind::kDone, .message = "3 hits"})};
  script.hits = script.matched = 3;
  script.suppressed = 2;
  FakeAgentServer agent(script);
  Tool tool({"--connect", agent.address(), "log", "demo.Main:12", "i={i}", "--max", "3", "--format", "json"});
  ASSERT_EQ(tool.Wait(), 0) << tool.err();
  const auto lines = tool.Lines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], LogJson(agent.address(), 1));
  auto notice = nlohmann::ordered_json::parse(lines[1]);
  notice.erase("time");
  EXPECT_EQ(notice.dump(), R"({"kind":"notice","target":")" + agent.address() + R"(","probe":7,"notice":"done","message":"3 hits"})");
  EXPECT_EQ(SummaryWithoutTime(lines[2]), SummaryJson(agent.address(), 3, 3, 2));
  EXPECT_EQ(agent.Wait().commands, kCleanEnd);
}

TEST(ProbeRun, APauseInTheAgentEndsTheTargetBeforeItsMax) {
  AgentScript script;
  script.after_set = {LogPacket(1), Packet<Probe::Notice>({.probe_id = 7, .kind = Probe::NoticeKind::kPaused,
                                                          .message = "budget spent"})};
  script.hits = script.matched = 1;
  FakeAgentServer agent(script);
  Tool tool({"--connect", agent.address(), "log", "demo.Main:12", "i={i}", "--max", "3", "--format", "json"});
  ASSERT_EQ(tool.Wait(), 0) << tool.err();
  const auto lines = tool.Lines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], LogJson(agent.address(), 1));
  EXPECT_EQ(nlohmann::json::parse(lines[1])["notice"], "paused");
  EXPECT_EQ(SummaryWithoutTime(lines[2]), SummaryJson(agent.address(), 1, 1, 0));
  EXPECT_EQ(agent.Wait().commands, kCleanEnd);
}

TEST(ProbeRun, InterruptEndsTheRunAndClears) {
  AgentScript script;
  script.after_set = {LogPacket(1)};
  script.hits = script.matched = 1;
  FakeAgentServer agent(script);
  Tool tool({"--connect", agent.address(), "log", "demo.Main:12", "i={i}", "--format", "json"});
  const auto first = tool.ReadLine();
  ASSERT_TRUE(first.has_value()) << tool.err();
  EXPECT_EQ(*first, LogJson(agent.address(), 1));
  tool.Signal(SIGINT);
  ASSERT_EQ(tool.Wait(), 0) << tool.err();
  const auto lines = tool.Lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(SummaryWithoutTime(lines[1]), SummaryJson(agent.address(), 1, 1, 0));
  const AgentRecord record = agent.Wait();
  EXPECT_EQ(record.commands, kCleanEnd);
  EXPECT_EQ(record.cleared_ids, std::vector<int32_t>{0});
}

TEST(ProbeRun, ForSecondsEndsTheRun) {
  AgentScript script;
  script.after_set = {LogPacket(1)};
  FakeAgentServer agent(script);
  Tool tool({"--connect", agent.address(), "log", "demo.Main:12", "i={i}", "--for", "0.2", "--format", "json"});
  ASSERT_EQ(tool.Wait(), 0) << tool.err();
  EXPECT_EQ(tool.Lines().size(), 2u);
  EXPECT_EQ(agent.Wait().commands, kCleanEnd);
}

class ProbeRunText : public ::testing::Test {
 protected:
  void SetUp() override { setenv("TZ", "UTC", 1); }
  void TearDown() override { unsetenv("TZ"); }
};

TEST_F(ProbeRunText, ExecTargetSpeaksThroughTheCommandsStdio) {
  const auto dir = TempDir();
  const std::string record = (dir / "record").string();
  const std::string command = std::string(PROBE_FAKE_AGENT) + " --logs 2 --record " + record;
  Tool tool({"--exec", command, "log", "demo.Main:12", "i={i}", "--max", "2", "--format", "text"});
  ASSERT_EQ(tool.Wait(), 0) << tool.err();
  EXPECT_EQ(tool.Lines(), (std::vector<std::string>{
                              "22:13:20.001 " + command + " main demo.Main.loop:12: message 1",
                              "22:13:20.002 " + command + " main demo.Main.loop:12: message 2",
                              command + ": probe 7: 2 hits, 2 matched, 0 suppressed",
                          }));
  std::ifstream in(record);
  std::vector<std::string> received;
  for (std::string line; std::getline(in, line);) received.push_back(line);
  EXPECT_EQ(received, kCleanEnd);
  std::filesystem::remove_all(dir);
}

// kubectl is a script here: `get` lists two pods, `exec` runs the fake agent.
TEST_F(ProbeRunText, KubeTargetsAreNamedByPod) {
  const auto dir = TempDir();
  {
    std::ofstream script(dir / "kubectl");
    script << "#!/bin/sh\n"
           << "case \"$1\" in\n"
           << "  get) printf 'pod/shop-1\\npod/shop-2\\n' ;;\n"
           << "  exec) exec " << PROBE_FAKE_AGENT << " --logs 1 ;;\n"
           << "esac\n";
  }
  std::filesystem::permissions(dir / "kubectl", std::filesystem::perms::owner_all);
  const std::string old_path = getenv("PATH");
  setenv("PATH", (dir.string() + ":" + old_path).c_str(), 1);
  Tool tool({"--kube", "app=shop", "log", "demo.Main:12", "i={i}", "--max", "1", "--format", "text"});
  setenv("PATH", old_path.c_str(), 1);
  ASSERT_EQ(tool.Wait(), 0) << tool.err();
  auto lines = tool.Lines();
  ASSERT_EQ(lines.size(), 4u);
  std::sort(lines.begin(), lines.begin() + 2);
  EXPECT_EQ(lines[0], "22:13:20.001 shop-1 main demo.Main.loop:12: message 1");
  EXPECT_EQ(lines[1], "22:13:20.001 shop-2 main demo.Main.loop:12: message 1");
  EXPECT_EQ(lines[2], "shop-1: probe 7: 1 hits, 1 matched, 0 suppressed");
  EXPECT_EQ(lines[3], "shop-2: probe 7: 1 hits, 1 matched, 0 suppressed");
  std::filesystem::remove_all(dir);
}

TEST(ProbeRunCommandLine, UsageErrorsExitTwoAndHelpZero) {
  Tool no_target({"log", "demo.Main:12", "x"});
  EXPECT_EQ(no_target.Wait(), 2);
  EXPECT_TRUE(no_target.err().starts_with("jdwpx-probe: no target: give --connect, --exec, --targets or --kube\nusage:"))
      << no_target.err();
  Tool bad_format({"--connect", "h:1", "log", "demo.Main:12", "x", "--format", "xml"});
  EXPECT_EQ(bad_format.Wait(), 2);
  Tool bad_address({"--connect", "nowhere", "log", "demo.Main:12", "x"});
  EXPECT_EQ(bad_address.Wait(), 2);
  EXPECT_TRUE(bad_address.err().starts_with("jdwpx-probe: 'nowhere' is not HOST:PORT nor unix:PATH\n")) << bad_address.err();
  Tool help({"--help"});
  EXPECT_EQ(help.Wait(), 0);
  ASSERT_FALSE(help.Lines().empty());
  EXPECT_TRUE(help.Lines()[0].starts_with("usage: jdwpx-probe TARGET... log LOCATION TEMPLATE"));
  Tool version({"--version"});
  EXPECT_EQ(version.Wait(), 0);
  ASSERT_EQ(version.Lines().size(), 1u);
  EXPECT_TRUE(version.Lines()[0].starts_with("jdwpx-probe (jdwpx) ")) << version.Lines()[0];
}

}  // namespace
}  // namespace jdwpx::tools::probe::testing
