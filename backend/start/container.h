// Whether this JVM runs in a container, for the one warning that depends on it: a
// debug port bound to loopback inside a container cannot be reached through a
// published port (address=5005 has meant loopback only since JDK 9). In a Kubernetes
// pod that is what we recommend (kubectl port-forward and kubectl exec reach it from
// inside the pod), so there the line says so instead of advising address=*:<port>.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace jdwpx::backend {

// Docker's /.dockerenv, podman's /run/.containerenv, or a container runtime named in
// /proc/1/cgroup (docker, kubepods, containerd, libpod, lxc). `root` is prefixed to
// every path (tests).
bool InContainer(std::string_view root = "");

// KUBERNETES_SERVICE_HOST is set and not empty: the kubelet sets it in every container
// of every pod (enableServiceLinks: false keeps it). A pod counts as a container even
// where InContainer finds no marker (containerd under cgroup v2 leaves none).
bool InKubernetes();

// The line for a server listening on loopback only inside a container; nullopt when it
// does not apply. `address` is the address= option as given: only a fixed port
// (address=5005, localhost:5005) is one a user would publish, so an ephemeral one
// (address=0, none) gets no line. `port` is the bound port. Outside Kubernetes it is a
// warning naming the fix (address=*:<port>); inside it names what reaches the port
// (port-forward, exec) and never advises every interface.
std::optional<std::string> LoopbackInContainerWarning(bool loopback_only, bool in_container,
                                                      std::string_view address, std::string_view port,
                                                      bool in_kubernetes = InKubernetes());

}  // namespace jdwpx::backend
