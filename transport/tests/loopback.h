// The loopback fixture of the transport tests: a real Transport on one side
// (Harness runs it on a thread of its own), a plain blocking POSIX socket
// playing the debugger on the other (Peer), and a Listener that records what
// the transport reports (Recorder). Every wait is bounded (kWait).
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <future>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "transport/transport.h"

namespace jdwpx::transport::loopback {

using namespace std::chrono_literals;

constexpr auto kWait = 10s;
constexpr std::string_view kHandshake = "JDWP-Handshake";

inline std::vector<uint8_t> MakePacket(uint32_t id, size_t payload_size, uint8_t fill = 0x5a) {
  auto length = static_cast<uint32_t>(11 + payload_size);
  std::vector<uint8_t> p = {uint8_t(length >> 24), uint8_t(length >> 16), uint8_t(length >> 8), uint8_t(length),
                            uint8_t(id >> 24),     uint8_t(id >> 16),     uint8_t(id >> 8),     uint8_t(id),
                            0,                     1,                     1};
  p.resize(length, fill);
  return p;
}

inline uint32_t PacketId(const std::vector<uint8_t>& p) {
  return (uint32_t{p[4]} << 24) | (uint32_t{p[5]} << 16) | (uint32_t{p[6]} << 8) | p[7];
}

class Recorder : public Listener {
 public:
  void OnAttached(const std::string& peer, uint64_t session, std::chrono::nanoseconds) override {
    Add([&] {
      attached.push_back(peer);
      sessions.push_back(session);
    });
  }
  void OnPacket(uint64_t session, std::vector<uint8_t> packet) override {
    Add([&] {
      packets.push_back(std::move(packet));
      packet_sessions.push_back(session);
    });
  }
  void OnDetached(uint64_t session, const std::string& reason) override {
    Add([&] {
      detached.push_back(reason);
      detached_sessions.push_back(session);
    });
  }
  void OnWarning(const std::string& message) override { Add([&] { warnings.push_back(message); }); }
  void OnAcceptFailed(const TransportError& error) override { Add([&] { accept_failures.push_back(error.code); }); }
  void OnWritten(uint64_t, std::span<const uint8_t> bytes, size_t length) override {
    Add([&] {
      written.emplace_back(bytes.begin(), bytes.end());
      written_lengths.push_back(length);
    });
  }

  template <typename Predicate>
  bool WaitFor(Predicate predicate, std::chrono::milliseconds timeout = kWait) {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, timeout, [&] { return predicate(); });
  }
  bool WaitAttached(size_t n) { return WaitFor([&] { return attached.size() >= n; }); }
  bool WaitDetached(size_t n) { return WaitFor([&] { return detached.size() >= n; }); }
  bool WaitWarnings(size_t n) { return WaitFor([&] { return warnings.size() >= n; }); }
  bool WaitPackets(size_t n) { return WaitFor([&] { return packets.size() >= n; }); }

  template <typename F>
  auto Locked(F read) {
    std::lock_guard lock(mutex);
    return read();
  }

  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::string> attached;
  std::vector<uint64_t> sessions;  // OnAttached's session numbers
  std::vector<std::vector<uint8_t>> packets;
  std::vector<uint64_t> packet_sessions;  // OnPacket's session number of each of `packets`
  std::vector<std::string> detached;
  std::vector<uint64_t> detached_sessions;  // OnDetached's session number of each of `detached`
  std::vector<std::string> warnings;
  std::vector<std::vector<uint8_t>> written;  // OnWritten's bytes
  std::vector<size_t> written_lengths;        // and lengths
  std::vector<int> accept_failures;           // OnAcceptFailed's codes

 private:
  template <typename F>
  void Add(F change) {
    {
      std::lock_guard lock(mutex);
      change();
    }
    cv.notify_all();
  }
};

// The debugger's end: blocking POSIX socket, every read bounded by poll().
class Peer {
 public:
  Peer() = default;
  explicit Peer(int fd) : fd_(fd) {}
  Peer(Peer&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Peer& operator=(Peer&& other) noexcept {
    Close();
    fd_ = std::exchange(other.fd_, -1);
    return *this;
  }
  ~Peer() { Close(); }

  static Peer Connect(uint16_t port, const char* ip = "127.0.0.1") {
    sockaddr_storage storage{};
    socklen_t size;
    int family;
    if (std::strchr(ip, ':') != nullptr) {
      auto* a = reinterpret_cast<sockaddr_in6*>(&storage);
      a->sin6_family = family = AF_INET6;
      a->sin6_port = htons(port);
      inet_pton(AF_INET6, ip, &a->sin6_addr);
      size = sizeof(*a);
    } else {
      auto* a = reinterpret_cast<sockaddr_in*>(&storage);
      a->sin_family = family = AF_INET;
      a->sin_port = htons(port);
      inet_pton(AF_INET, ip, &a->sin_addr);
      size = sizeof(*a);
    }
    int fd = socket(family, SOCK_STREAM, 0);
    if (connect(fd, reinterpret_cast<sockaddr*>(&storage), size) != 0) {
      close(fd);
      return Peer();
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    return Peer(fd);
  }

  bool connected() const { return fd_ >= 0; }
  int fd() const { return fd_; }

  bool Write(const void* data, size_t size) {
    auto* p = static_cast<const char*>(data);
    while (size > 0) {
      ssize_t n = send(fd_, p, size, MSG_NOSIGNAL);
      if (n <= 0) return false;
      p += n;
      size -= static_cast<size_t>(n);
    }
    return true;
  }
  bool Write(std::string_view s) { return Write(s.data(), s.size()); }
  bool Write(const std::vector<uint8_t>& v) { return Write(v.data(), v.size()); }

  // Exactly n bytes, or nullopt on close, error or timeout.
  std::optional<std::vector<uint8_t>> Read(size_t n, std::chrono::milliseconds timeout = kWait) {
    std::vector<uint8_t> out(n);
    size_t have = 0;
    auto deadline = std::chrono::steady_clock::now() + timeout;
    while (have < n) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd p{fd_, POLLIN, 0};
      if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) <= 0) return std::nullopt;
      ssize_t got = recv(fd_, out.data() + have, n - have, 0);
      if (got <= 0) return std::nullopt;
      have += static_cast<size_t>(got);
    }
    return out;
  }

  std::optional<std::vector<uint8_t>> ReadPacket() {
    auto header = Read(4);
    if (!header) return std::nullopt;
    uint32_t length = (uint32_t{(*header)[0]} << 24) | (uint32_t{(*header)[1]} << 16) |
                      (uint32_t{(*header)[2]} << 8) | (*header)[3];
    auto rest = Read(length - 4);
    if (!rest) return std::nullopt;
    header->insert(header->end(), rest->begin(), rest->end());
    return header;
  }

  // True once the other side has closed (EOF or reset) within the timeout;
  // any bytes before that are discarded.
  bool WaitClosed(std::chrono::milliseconds timeout = kWait) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    char sink[4096];
    for (;;) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
      pollfd p{fd_, POLLIN, 0};
      if (left.count() <= 0 || poll(&p, 1, static_cast<int>(left.count())) <= 0) return false;
      if (recv(fd_, sink, sizeof(sink), 0) <= 0) return true;
    }
  }

  bool Handshake() {
    if (!Write(kHandshake)) return false;
    auto reply = Read(kHandshake.size());
    return reply && std::string_view(reinterpret_cast<const char*>(reply->data()), reply->size()) == kHandshake;
  }

  void Close() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

inline bool Ipv6LoopbackAvailable() {
  int fd = socket(AF_INET6, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0;
  close(fd);
  return ok;
}

// A port nobody listens on (bound then released).
inline uint16_t ClosedPort() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a));
  socklen_t size = sizeof(a);
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &size);
  close(fd);
  return ntohs(a.sin_port);
}

// A transport with Run() on its own thread; torn down with Shutdown().
class Harness {
 public:
  explicit Harness(Config config) {
    auto opened = Transport::Open(config, &recorder);
    if (!opened) {
      ADD_FAILURE() << "Open failed: " << opened.error().code << " " << opened.error().message;
      return;
    }
    transport = std::move(*opened);
  }
  static Config Server(std::string address = "0") {
    Config c;
    c.server = true;
    c.address = std::move(address);
    return c;
  }
  // Server mode with sessions=n.
  static Config Sessions(int n, std::string address = "0") {
    Config c = Server(std::move(address));
    c.max_sessions = n;
    return c;
  }
  void StartRun() {
    run_done = run_promise.get_future();
    runner = std::thread([this] {
      transport->Run();
      run_promise.set_value();
    });
  }
  bool RunReturned(std::chrono::milliseconds timeout = kWait) {
    return run_done.wait_for(timeout) == std::future_status::ready;
  }
  ~Harness() {
    if (transport) transport->Shutdown();
    if (runner.joinable()) runner.join();
  }
  // To the latest connection attached.
  uint64_t LastSession() { return recorder.Locked([&] { return recorder.sessions.empty() ? 0 : recorder.sessions.back(); }); }
  void Send(std::vector<uint8_t> packet) { transport->Send(LastSession(), std::move(packet)); }
  void SendSoon(std::vector<uint8_t> packet) { transport->SendSoon(LastSession(), std::move(packet)); }
  void CloseConnection() { transport->CloseConnection(LastSession()); }
  // Connects (by `connect`, else to the TCP port) and handshakes a debugger,
  // waiting until the transport reports it.
  template <typename Connect>
  Peer AttachDebugger(Connect connect) {
    size_t before = recorder.Locked([&] { return recorder.attached.size(); });
    Peer peer = connect();
    EXPECT_TRUE(peer.connected());
    EXPECT_TRUE(peer.Handshake());
    EXPECT_TRUE(recorder.WaitAttached(before + 1));
    return peer;
  }
  Peer AttachDebugger() {
    return AttachDebugger([&] { return Peer::Connect(transport->port()); });
  }

  Recorder recorder;
  std::unique_ptr<Transport> transport;
  std::thread runner;
  std::promise<void> run_promise;
  std::future<void> run_done;
};

}  // namespace jdwpx::transport::loopback
