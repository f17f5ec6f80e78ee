#include "tools/tests/fake_agent.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>

#include "jdwp/byte_order.h"
#include "jdwp/commands/virtual_machine.h"
#include "jdwp/commands/all.h"

namespace jdwpx::tools::probe::testing {
namespace {

namespace Probe = jdwp::Probe;

bool ReadExactly(int fd, uint8_t* out, size_t n) {
  size_t done = 0;
  while (done < n) {
    const ssize_t got = read(fd, out + done, n - done);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    done += static_cast<size_t>(got);
  }
  return true;
}

bool WriteAll(int fd, const std::vector<uint8_t>& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = send(fd, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == ENOTSOCK) {
      const ssize_t m = write(fd, bytes.data() + done, bytes.size() - done);
      if (m <= 0) return false;
      done += static_cast<size_t>(m);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

template <class Reply>
bool Answer(int fd, uint32_t id, const Reply& reply) {
  return WriteAll(fd, jdwp::MakeReplyPacket(id, jdwp::ErrorCode::kNone, jdwp::EncodeBody(reply)));
}

}  // namespace

AgentRecord ServeSession(int in_fd, int out_fd, const AgentScript& script) {
  AgentRecord record;
  std::vector<uint8_t> handshake(jdwp::kHandshake.size());
  if (!ReadExactly(in_fd, handshake.data(), handshake.size()) ||
      std::string(handshake.begin(), handshake.end()) != jdwp::kHandshake) {
    record.problem = "no handshake";
    return record;
  }
  if (!WriteAll(out_fd, handshake)) return record;
  while (true) {
    std::vector<uint8_t> packet(jdwp::kHeaderSize);
    if (!ReadExactly(in_fd, packet.data(), packet.size())) return record;  // the client closed
    const uint32_t length = jdwp::GetBigEndian32(packet.data());
    if (length < jdwp::kHeaderSize) {
      record.problem = "bad length";
      return record;
    }
    packet.resize(length);
    if (!ReadExactly(in_fd, packet.data() + jdwp::kHeaderSize, length - jdwp::kHeaderSize)) return record;
    auto parsed = jdwp::ParsePacket(packet);
    if (!parsed || parsed->is_reply()) {
      record.problem = "not a command";
      return record;
    }
    const jdwp::CommandId id{static_cast<jdwp::CommandSet>(parsed->command_set), parsed->command};
    record.commands.push_back(std::string(jdwp::CommandName(parsed->command_set, parsed->command)));
    if (id.set == jdwp::CommandSet::kProbe && !script.jdwpx) {
      record.problem = "a Probe command reached the stock agent: it would abort the JVM";
      return record;
    }
    if (id == jdwp::VirtualMachine::Version::kId) {
      jdwp::VirtualMachine::Version::Reply reply{
          .description = "Java Debug Wire Protocol (Reference Implementation) version 17.0\nJVM Debug Interface version "
                         "17.0\nJVM version 17.0.9 (OpenJDK 64-Bit Server VM, mixed mode, sharing)",
          .jdwp_major = 17, .jdwp_minor = 0, .vm_version = "17.0.9", .vm_name = "OpenJDK 64-Bit Server VM"};
      if (script.jdwpx) reply.description += "\njdwpx: probes (command set 128)";
      Answer(out_fd, parsed->id, reply);
    } else if (id == Probe::Set::kId) {
      auto set = jdwp::DecodeBody<Probe::Set::Request>(parsed->data);
      if (set) record.set = *set;
      if (script.on_set) script.on_set();
      Probe::Set::Reply reply;
      if (script.refuse.empty()) {
        reply.probe_id = script.probe_id;
        reply.places = script.places;
      } else {
        reply.problem = script.refuse;
      }
      Answer(out_fd, parsed->id, reply);
      if (!script.refuse.empty()) continue;
      uint32_t next_id = 1000;
      for (const AgentPacket& sent : script.after_set) WriteAll(out_fd, jdwp::MakeCommandPacket(next_id++, sent.command, sent.body));
      if (script.close_after_sending) return record;
    } else if (id == Probe::List::kId) {
      Probe::List::Reply reply;
      if (script.refuse.empty()) {
        Probe::List::Info info;
        info.probe_id = script.probe_id;
        info.kind = record.set.kind;
        info.state = Probe::State::kArmed;
        info.location = record.set.location;
        info.hits = script.hits;
        info.matched = script.matched;
        info.suppressed = script.suppressed;
        reply.probes.push_back(info);
      }
      Answer(out_fd, parsed->id, reply);
    } else if (id == Probe::Clear::kId) {
      auto clear = jdwp::DecodeBody<Probe::Clear::Request>(parsed->data);
      if (clear) record.cleared_ids.push_back(clear->probe_id);
      Answer(out_fd, parsed->id, Probe::Clear::Reply{.cleared = script.refuse.empty() ? 1 : 0});
    } else if (id == jdwp::VirtualMachine::Dispose::kId) {
      Answer(out_fd, parsed->id, jdwp::VirtualMachine::Dispose::Reply{});
      return record;
    } else {
      WriteAll(out_fd, jdwp::MakeReplyPacket(parsed->id, jdwp::ErrorCode::kNotImplemented, {}));
    }
  }
}

FakeAgentServer::FakeAgentServer(AgentScript script) {
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = 0;
  bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address);
  listen(listen_fd_, 1);
  socklen_t size = sizeof address;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &size);
  port_ = ntohs(address.sin_port);
  std::promise<AgentRecord> promise;
  record_ = promise.get_future();
  thread_ = std::thread([this, script = std::move(script), promise = std::move(promise)]() mutable {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      AgentRecord failed;
      failed.problem = "accept failed";
      promise.set_value(std::move(failed));
      return;
    }
    AgentRecord record = ServeSession(fd, fd, script);
    close(fd);
    promise.set_value(std::move(record));
  });
}

FakeAgentServer::~FakeAgentServer() {
  // Wakes an accept that never got its connection (the tool failed before it).
  shutdown(listen_fd_, SHUT_RDWR);
  thread_.join();
  close(listen_fd_);
}

AgentRecord FakeAgentServer::Wait(int timeout_ms) {
  if (record_.wait_for(std::chrono::milliseconds(timeout_ms)) != std::future_status::ready) {
    AgentRecord timed_out;
    timed_out.problem = "timeout";
    return timed_out;
  }
  return record_.get();
}

}  // namespace jdwpx::tools::probe::testing
