#include "backend/container.h"

#include <filesystem>
#include <fstream>

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
  auto warning = LoopbackInContainerWarning(true, true, "localhost:5005", "5005");
  ASSERT_TRUE(warning);
  EXPECT_NE(warning->find("loopback only"), std::string::npos);
  EXPECT_NE(warning->find("address=*:5005"), std::string::npos);
  EXPECT_EQ(warning->find('\n'), std::string::npos);  // one line
}
TEST(LoopbackInContainerWarning, OnlyLoopbackInAContainer) {
  EXPECT_TRUE(LoopbackInContainerWarning(true, true, "5005", "5005"));
  EXPECT_FALSE(LoopbackInContainerWarning(false, true, "*:5005", "5005"));
  EXPECT_FALSE(LoopbackInContainerWarning(true, false, "5005", "5005"));
}
TEST(LoopbackInContainerWarning, NotForAnEphemeralPort) {
  // Nobody publishes a port the OS picks: the tests' own address=0 stays quiet.
  EXPECT_FALSE(LoopbackInContainerWarning(true, true, "0", "41234"));
  EXPECT_FALSE(LoopbackInContainerWarning(true, true, "", "41234"));
  EXPECT_FALSE(LoopbackInContainerWarning(true, true, "localhost:0", "41234"));
}

}  // namespace
}  // namespace jdwpx::backend
