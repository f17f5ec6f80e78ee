// Whether this JVM runs in a container, for the one warning that depends on it: a
// debug port bound to loopback inside a container cannot be reached through a
// published port (address=5005 has meant loopback only since JDK 9).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace jdwpx::backend {

// Docker's /.dockerenv, podman's /run/.containerenv, or a container runtime named in
// /proc/1/cgroup (docker, kubepods, containerd, libpod, lxc). `root` is prefixed to
// every path (tests).
bool InContainer(std::string_view root = "");

// The warning for a server listening on loopback only inside a container, naming the
// fix; nullopt when it does not apply. `address` is the address= option as given: only
// a fixed port (address=5005, localhost:5005) is one a user would publish, so an
// ephemeral one (address=0, none) gets no warning. `port` is the bound port.
std::optional<std::string> LoopbackInContainerWarning(bool loopback_only, bool in_container,
                                                      std::string_view address, std::string_view port);

}  // namespace jdwpx::backend
