#include "backend/start/container.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace jdwpx::backend {
namespace {

class FakeRoot : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("jdwpx-container-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(root_ / "proc/1");
    std::filesystem::create_directories(root_ / "run");
    Write("proc/1/cgroup", "0::/init.scope\n");
  }
  void TearDown() override { std::filesystem::remove_all(root_); }
  void Write(const std::string& rel, const std::string& text) { std::ofstream(root_ / rel) << text; }
  std::filesystem::path root_;
};

TEST_F(FakeRoot, HostIsNoContainer) { EXPECT_FALSE(InContainer(root_.string())); }
TEST_F(FakeRoot, DockerEnv) {
  Write(".dockerenv", "");
  EXPECT_TRUE(InContainer(root_.string()));
}
TEST_F(FakeRoot, PodmanContainerEnv) {
  Write("run/.containerenv", "engine=\"podman-4.3.1\"\n");
  EXPECT_TRUE(InContainer(root_.string()));
}
TEST_F(FakeRoot, KubernetesCgroupV1) {
  Write("proc/1/cgroup", "12:memory:/kubepods/burstable/pod1234/abcd\n");
  EXPECT_TRUE(InContainer(root_.string()));
}

TEST(LoopbackInContainerWarning, NamesTheFix) {
  auto warning = LoopbackInContainerWarning(true, true, "localhost:5005", "5005", false);
  ASSERT_TRUE(warning);
  EXPECT_EQ(*warning,
            "jdwpx: WARNING: the debug port 5005 listens on loopback only, inside this container: a debugger "
            "outside it cannot connect, even through a published port. To debug from outside, use address=*:5005 "
            "(and allow= to say who may connect).");
}
TEST(LoopbackInContainerWarning, OnlyLoopbackInAContainer) {
  EXPECT_TRUE(LoopbackInContainerWarning(true, true, "5005", "5005", false));
  EXPECT_FALSE(LoopbackInContainerWarning(false, true, "*:5005", "5005", false));
  EXPECT_FALSE(LoopbackInContainerWarning(true, false, "5005", "5005", false));
}
TEST(LoopbackInContainerWarning, NotForAnEphemeralPort) {
  // Nobody publishes a port the OS picks: the tests' own address=0 stays quiet.
  for (bool kubernetes : {false, true}) {
    EXPECT_FALSE(LoopbackInContainerWarning(true, true, "0", "41234", kubernetes));
    EXPECT_FALSE(LoopbackInContainerWarning(true, true, "", "41234", kubernetes));
    EXPECT_FALSE(LoopbackInContainerWarning(true, true, "localhost:0", "41234", kubernetes));
  }
}

// In a pod a loopback port is the recommended setup: the line names what reaches it and
// never advises listening on every interface.
TEST(LoopbackInContainerWarning, KubernetesNamesPortForwardAndExec) {
  auto line = LoopbackInContainerWarning(true, true, "5005", "5005", true);
  ASSERT_TRUE(line);
  EXPECT_EQ(*line,
            "jdwpx: the debug port 5005 listens on loopback only, inside this pod: kubectl port-forward and kubectl "
            "exec (jdwpx-bridge connect 127.0.0.1:5005) reach it, other pods and Services do not.");
  EXPECT_EQ(line->find("*:"), std::string::npos);
  EXPECT_EQ(line->find("WARNING"), std::string::npos);
}
TEST(LoopbackInContainerWarning, KubernetesWithoutContainerMarkers) {
  // containerd under cgroup v2 leaves no marker InContainer finds; the pod's environment says it.
  auto line = LoopbackInContainerWarning(true, false, "localhost:8000", "8000", true);
  ASSERT_TRUE(line);
  EXPECT_NE(line->find("kubectl port-forward"), std::string::npos);
  EXPECT_FALSE(LoopbackInContainerWarning(false, false, "*:8000", "8000", true));
}

// KUBERNETES_SERVICE_HOST, set for the test's duration and put back as it was.
class KubernetesEnv : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* value = std::getenv(kName)) saved_ = value;
  }
  void TearDown() override {
    if (saved_) {
      ::setenv(kName, saved_->c_str(), 1);
    } else {
      ::unsetenv(kName);
    }
  }
  static constexpr const char* kName = "KUBERNETES_SERVICE_HOST";
  std::optional<std::string> saved_;
};

TEST_F(KubernetesEnv, InKubernetesReadsTheServiceHost) {
  ::setenv(kName, "10.96.0.1", 1);
  EXPECT_TRUE(InKubernetes());
  ::setenv(kName, "", 1);
  EXPECT_FALSE(InKubernetes());
  ::unsetenv(kName);
  EXPECT_FALSE(InKubernetes());
}
TEST_F(KubernetesEnv, TheAgentsCallReadsTheEnvironment) {
  // backend/start/agent.cc passes no in_kubernetes: the default reads the environment.
  ::setenv(kName, "10.96.0.1", 1);
  auto line = LoopbackInContainerWarning(true, true, "5005", "5005");
  ASSERT_TRUE(line);
  EXPECT_NE(line->find("inside this pod"), std::string::npos);
  ::unsetenv(kName);
  line = LoopbackInContainerWarning(true, true, "5005", "5005");
  ASSERT_TRUE(line);
  EXPECT_NE(line->find("use address=*:5005"), std::string::npos);
}

}  // namespace
}  // namespace jdwpx::backend
