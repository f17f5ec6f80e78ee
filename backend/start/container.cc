#include "backend/start/container.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace jdwpx::backend {

bool InContainer(std::string_view root) {
  const std::string base(root);
  for (const char* marker : {"/.dockerenv", "/run/.containerenv"}) {
    if (access((base + marker).c_str(), F_OK) == 0) return true;
  }
  // cgroup v1 names the runtime in PID 1's paths; under cgroup v2 with a private
  // cgroup namespace this is "0::/" and the markers above decide.
  std::ifstream cgroup(base + "/proc/1/cgroup");
  std::stringstream text;
  text << cgroup.rdbuf();
  const std::string content = text.str();
  for (const char* runtime : {"docker", "kubepods", "containerd", "libpod", "/lxc/"}) {
    if (content.find(runtime) != std::string::npos) return true;
  }
  return false;
}

bool InKubernetes() {
  const char* host = std::getenv("KUBERNETES_SERVICE_HOST");
  return host != nullptr && *host != '\0';
}

namespace {

// The port part of address= (after its last ':') names a port other than 0.
bool FixedPort(std::string_view address) {
  const auto colon = address.rfind(':');
  std::string_view port = colon == std::string_view::npos ? address : address.substr(colon + 1);
  while (!port.empty() && (port.front() == ' ' || port.front() == '+' || port.front() == '0')) port.remove_prefix(1);
  return !port.empty();
}

}  // namespace

std::optional<std::string> LoopbackInContainerWarning(bool loopback_only, bool in_container,
                                                      std::string_view address, std::string_view port,
                                                      bool in_kubernetes) {
  if (!loopback_only || !(in_container || in_kubernetes) || !FixedPort(address)) return std::nullopt;
  if (in_kubernetes) {
    // What docs/containers.md recommends in a pod: no warning, and no advice to open the
    // port to every pod of the cluster.
    return fmt::format(
        "jdwpx: the debug port {0} listens on loopback only, inside this pod: kubectl port-forward and kubectl "
        "exec (jdwpx-bridge connect 127.0.0.1:{0}) reach it, other pods and Services do not.",
        port);
  }
  return fmt::format(
      "jdwpx: WARNING: the debug port {0} listens on loopback only, inside this container: a debugger outside it "
      "cannot connect, even through a published port. To debug from outside, use address=*:{0} (and allow= to "
      "say who may connect).",
      port);
}

}  // namespace jdwpx::backend
