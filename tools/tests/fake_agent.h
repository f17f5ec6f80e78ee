// The agent's side of the Probe command set, played from a script, for
// jdwpx-probe's tests: the handshake, answers to Probe.Set/List/Clear and
// VirtualMachine.Dispose, and Probe.Log/Snapshot/Notice packets sent after the
// Set reply. Blocking reads and writes on plain descriptors: it runs on a
// thread of the test (FakeAgentServer) or as a program of its own whose
// stdin/stdout is the stream (probe_fake_agent, for --exec targets).
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "jdwp/commands/probe.h"

namespace jdwpx::tools::probe::testing {

// A command packet the agent sends.
struct AgentPacket {
  jdwp::CommandId command;
  std::vector<uint8_t> body;
};

template <class Command>
AgentPacket Packet(const typename Command::Request& request) {
  return {Command::kId, jdwp::EncodeBody(request)};
}

struct AgentScript {
  // false: the JDK's own agent: VirtualMachine.Version does not name jdwpx, and a
  // Probe command ends the session with a problem (the real one aborts the JVM).
  bool jdwpx = true;
  // Not empty: Probe.Set refused with this problem (probe_id 0).
  std::string refuse;
  int32_t probe_id = 7;
  int32_t places = 1;
  // Sent right after the Set reply, in order.
  std::vector<AgentPacket> after_set;
  // Close the connection after sending them (a JVM gone mid-run).
  bool close_after_sending = false;
  // Called when Probe.Set came, before it is answered (orders agents against each other).
  std::function<void()> on_set;
  // Probe.List's counts for the probe.
  int64_t hits = 0, matched = 0, suppressed = 0;
};

// What the agent saw: each command's "Set.Name" in order, and the Set request.
struct AgentRecord {
  std::vector<std::string> commands;
  jdwp::Probe::Set::Request set;
  std::vector<int32_t> cleared_ids;
  std::string problem;  // a handshake or framing failure
};

// Serves one connection until Dispose is answered or the peer closes.
AgentRecord ServeSession(int in_fd, int out_fd, const AgentScript& script);

// One connection served on 127.0.0.1 (port 0, read back) on a thread of its own.
class FakeAgentServer {
 public:
  explicit FakeAgentServer(AgentScript script);
  ~FakeAgentServer();
  uint16_t port() const { return port_; }
  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  // The session's record once it has ended; a record with problem "timeout" if it
  // did not end within `timeout_ms`.
  AgentRecord Wait(int timeout_ms = 20000);

 private:
  int listen_fd_ = -1;
  uint16_t port_ = 0;
  std::future<AgentRecord> record_;
  std::thread thread_;
};

}  // namespace jdwpx::tools::probe::testing
