// The targets of jdwpx-probe and the byte streams to them: a TCP address, a
// Unix socket, or a command whose standard input and output are the stream
// (kubectl exec -i POD -- jdwpx-bridge connect ...). No asio here: the tool is
// one poll loop over plain descriptors (run.h).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include <tl/expected.hpp>

namespace jdwpx::tools::probe {

struct TargetSpec {
  enum class Kind { kTcp, kUnix, kExec };
  Kind kind = Kind::kTcp;
  // As the user gave it: output lines and messages name the target by it.
  std::string name;
  // kTcp: the host (brackets dropped); kUnix: the socket's path; kExec: the shell command.
  std::string where;
  std::string port;  // kTcp only
};

// "host:port", "[v6]:port" or "unix:PATH" (--connect).
tl::expected<TargetSpec, std::string> ConnectTarget(const std::string& text);
// A command run with /bin/sh -c (--exec); named `name`, or by the command itself.
TargetSpec ExecTarget(const std::string& command, const std::string& name = "");

// --targets FILE: one target a line, "host:port", "unix:PATH" or "exec COMMAND"
// (also written "--connect X" / "--exec COMMAND"); blank lines and lines starting
// with '#' are skipped.
tl::expected<std::vector<TargetSpec>, std::string> ReadTargetsFile(const std::string& path);

struct KubeOptions {
  std::string selector;
  std::string namespace_name;
  std::string container;
  // What the pod's jdwpx-bridge connects to, and where the bridge is (deploy/kubernetes
  // copies it to /jdwpx; docs/containers.md's JVM listens on unix:/tmp/jdwp.sock).
  std::string socket = "unix:/tmp/jdwp.sock";
  std::string bridge = "/jdwpx/jdwpx-bridge";
};

// One exec target per pod of `kubectl get pods -l SELECTOR -o name`, named by the pod.
tl::expected<std::vector<TargetSpec>, std::string> KubeTargets(const KubeOptions& options);

// `text` quoted for /bin/sh when it needs to be.
std::string ShellQuote(const std::string& text);

// A connected byte stream: one descriptor for both directions, and for an exec
// target the command's process (in a process group of its own, so that a
// terminal's Ctrl-C reaches only us and we can still clear the probes through it).
class Connection {
 public:
  static tl::expected<Connection, std::string> Open(const TargetSpec& target);

  Connection() = default;
  Connection(Connection&& other) noexcept { *this = std::move(other); }
  Connection& operator=(Connection&& other) noexcept;
  ~Connection();

  int fd() const { return fd_; }
  bool open() const { return fd_ >= 0; }
  // Closes the stream; an exec target's command sees end of input and should end.
  void Close();
  // Waits until an exec target's command has ended, at most until `deadline_ms`
  // (CLOCK_MONOTONIC), then ends its process group (SIGTERM, then SIGKILL).
  void Reap(int64_t deadline_ms);

 private:
  int fd_ = -1;
  pid_t child_ = -1;
};

}  // namespace jdwpx::tools::probe
