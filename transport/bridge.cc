// Threading: each mode runs one single-threaded io_context on the main thread;
// every connection is a small state object shared by its two pump coroutines,
// its timers and the SIGCHLD handler.
#include "transport/bridge.h"

#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <string_view>

#include <asio.hpp>
#include <fmt/format.h>

#include "jdwp/packet.h"
#include "transport/address.h"
#include "transport/transport.h"

extern char** environ;

namespace jdwpx::transport {
namespace {

using asio::ip::tcp;
using Protocol = asio::generic::stream_protocol;
using namespace std::chrono_literals;

constexpr size_t kChunk = 64 * 1024;
// After the debugger leaves, the command gets this long to end on its own
// (it sees end of input), then SIGTERM, then SIGKILL.
constexpr auto kCommandGrace = 5s;
constexpr auto kKillGrace = 2s;

template <typename... Args>
void Say(fmt::format_string<Args...> format, Args&&... args) {
  std::fputs(("jdwpx-bridge: " + fmt::format(format, std::forward<Args>(args)...) + "\n").c_str(), stderr);
  std::fflush(stderr);
}

std::string Shown(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) out += (c >= 0x20 && c < 0x7f) ? std::string(1, static_cast<char>(c)) : fmt::format("\\x{:02x}", c);
  return out;
}

// "unix:<path>" or "host:port" (host required; "[v6]" allowed).
tl::expected<std::vector<Protocol::endpoint>, std::string> Resolve(asio::io_context& io, const std::string& text) {
  if (text.starts_with(kUnixPrefix)) {
    std::string path = text.substr(kUnixPrefix.size());
    if (path.empty()) return tl::unexpected(std::string("unix: needs a path"));
    return std::vector<Protocol::endpoint>{asio::local::stream_protocol::endpoint(path)};
  }
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0) return tl::unexpected(fmt::format("'{}' is not unix:<path> nor host:port", text));
  auto port = ParsePort(text.substr(colon + 1));
  if (!port) return tl::unexpected(fmt::format("'{}': invalid port", text));
  std::string host = text.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  asio::error_code ec;
  tcp::resolver resolver(io);
  auto results = resolver.resolve(host, std::to_string(*port), ec);
  if (ec || results.empty()) return tl::unexpected(fmt::format("cannot resolve '{}': {}", host, ec.message()));
  std::vector<Protocol::endpoint> endpoints;
  for (const auto& r : results) endpoints.emplace_back(r.endpoint());
  return endpoints;
}

// Copies `from` to `to` until end of input; then `on_end(error_text)` ("" at a
// clean end). `check_handshake`: the first 14 bytes must be JDWP-Handshake.
template <typename From, typename To, typename OnEnd>
asio::awaitable<void> Pump(From& from, To& to, bool check_handshake, size_t* passed, OnEnd on_end) {
  std::vector<uint8_t> buffer(kChunk);
  std::string first;
  asio::error_code ec;
  for (;;) {
    size_t n = co_await from.async_read_some(asio::buffer(buffer), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      on_end(ec == asio::error::eof || ec == asio::error::operation_aborted ? std::string() : ec.message());
      co_return;
    }
    if (check_handshake && first.size() < jdwp::kHandshake.size()) {
      size_t take = std::min(n, jdwp::kHandshake.size() - first.size());
      first.append(reinterpret_cast<const char*>(buffer.data()), take);
      if (!jdwp::kHandshake.starts_with(first)) {
        on_end(fmt::format("not JDWP: received >{}< where >{}< was expected", Shown(first), jdwp::kHandshake));
        co_return;
      }
    }
    co_await asio::async_write(to, asio::buffer(buffer.data(), n), asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      on_end(ec.message());
      co_return;
    }
    *passed += n;
  }
}

void Spawn(asio::io_context& io, asio::awaitable<void> task) { asio::co_spawn(io, std::move(task), asio::detached); }

}  // namespace

int BridgeConnect(const std::string& endpoint) {
  asio::io_context io{1};
  auto endpoints = Resolve(io, endpoint);
  if (!endpoints) {
    Say("{}", endpoints.error());
    return 1;
  }
  Protocol::socket socket(io);
  asio::error_code ec;
  for (const auto& candidate : *endpoints) {
    socket.close(ec);
    socket.connect(candidate, ec);
    if (!ec) break;
  }
  if (ec) {
    Say("cannot connect to {}: {}", endpoint, ec.message());
    return 1;
  }
  asio::posix::stream_descriptor in(io), out(io);
  in.assign(dup(STDIN_FILENO), ec);
  if (!ec) out.assign(dup(STDOUT_FILENO), ec);
  if (ec) {
    Say("standard input and output must be pipes or sockets: {}", ec.message());
    return 1;
  }
  size_t to_endpoint = 0, from_endpoint = 0;
  int status = 0;
  Spawn(io, Pump(in, socket, false, &to_endpoint, [&](const std::string& error) {
    if (!error.empty()) Say("reading standard input: {}", error);
    asio::error_code ignored;
    socket.shutdown(asio::socket_base::shutdown_send, ignored);  // the debugger is gone: the JVM's session ends
  }));
  Spawn(io, Pump(socket, out, false, &from_endpoint, [&](const std::string& error) {
    if (!error.empty()) Say("{}: {}", endpoint, error);
    if (from_endpoint == 0 && to_endpoint > 0) {
      Say("{} closed the connection before the JDWP handshake (refused? see the JVM's output)", endpoint);
      status = 1;
    }
    io.stop();
  }));
  io.run();
  return status;
}

namespace {

struct Connection {
  explicit Connection(asio::io_context& io) : client(io), command(io), answer_timer(io), grace_timer(io) {}
  Protocol::socket client;
  asio::local::stream_protocol::socket command;
  asio::steady_timer answer_timer;
  asio::steady_timer grace_timer;
  std::string peer;
  pid_t pid = -1;
  bool exited = false;
  bool closed = false;  // the client's side is over
  size_t to_command = 0, from_command = 0;
};

class BridgeServer {
 public:
  explicit BridgeServer(const BridgeListenOptions& options)
      : options_(options), acceptor_(io_), signals_(io_, SIGINT, SIGTERM), children_(io_, SIGCHLD), stop_timer_(io_) {}

  int Run() {
    auto endpoints = Resolve(io_, options_.endpoint);
    if (!endpoints) {
      Say("{}", endpoints.error());
      return 1;
    }
    asio::error_code ec;
    const Protocol::endpoint& endpoint = endpoints->front();
    acceptor_.open(endpoint.protocol(), ec);
    if (!ec) acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(endpoint, ec);
    if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
    if (ec) {
      Say("cannot listen on {}: {}", options_.endpoint, ec.message());
      return 1;
    }
    tcp::endpoint local;
    auto bound = acceptor_.local_endpoint();
    std::memcpy(local.data(), bound.data(), bound.size());
    local.resize(bound.size());
    const std::string host = local.address().is_v6() ? "[" + local.address().to_string() + "]" : local.address().to_string();
    std::printf("jdwpx-bridge: listening on %s:%u\n", host.c_str(), local.port());
    std::fflush(stdout);
    if (!local.address().is_loopback()) Say("warning: {} is reachable from other hosts; whoever reaches it reaches the JVM", host);
    signals_.async_wait([this](const asio::error_code& error, int) {
      if (!error) Stop();
    });
    WaitChildren();
    Spawn(io_, AcceptLoop());
    io_.run();
    return 0;
  }

 private:
  // SIGINT/SIGTERM: stop listening, end every command (SIGTERM, SIGKILL after
  // kKillGrace) and leave once all are reaped, so that nothing stays running.
  void Stop() {
    asio::error_code ignored;
    stopping_ = true;
    acceptor_.close(ignored);
    for (auto& [pid, connection] : connections_) {
      connection->closed = true;
      connection->client.close(ignored);
      kill(-pid, SIGTERM);
    }
    if (connections_.empty()) {
      io_.stop();
      return;
    }
    stop_timer_.expires_after(kKillGrace);
    stop_timer_.async_wait([this](const asio::error_code& error) {
      if (error) return;
      for (auto& [pid, connection] : connections_) kill(-pid, SIGKILL);
    });
  }

  void WaitChildren() {
    children_.async_wait([this](const asio::error_code& error, int) {
      if (error) return;
      for (auto it = connections_.begin(); it != connections_.end();) {
        int status = 0;
        if (waitpid(it->first, &status, WNOHANG) != it->first) {
          ++it;
          continue;
        }
        auto connection = it->second;
        it = connections_.erase(it);
        connection->exited = true;
        connection->grace_timer.cancel();
        connection->answer_timer.cancel();
        const std::string how = WIFEXITED(status) ? fmt::format("exited with status {}", WEXITSTATUS(status))
                                                  : fmt::format("was killed by signal {}", WTERMSIG(status));
        if (connection->from_command == 0 && !connection->closed) {
          Say("the command {} before answering the JDWP handshake (its own messages, if any, are above); "
              "closing the connection from {}", how, connection->peer);
        } else if (!connection->closed || (WIFEXITED(status) && WEXITSTATUS(status) != 0)) {
          Say("the command {}; connection from {} closed", how, connection->peer);
        }
        EndClient(connection);
      }
      if (stopping_ && connections_.empty()) {
        io_.stop();
        return;
      }
      WaitChildren();
    });
  }

  void EndClient(const std::shared_ptr<Connection>& connection) {
    asio::error_code ignored;
    connection->closed = true;
    connection->client.shutdown(asio::socket_base::shutdown_both, ignored);
    connection->client.close(ignored);
  }

  // The debugger side is over: the command sees end of input, then gets signals.
  void EndCommand(const std::shared_ptr<Connection>& connection, bool now) {
    asio::error_code ignored;
    connection->command.shutdown(asio::socket_base::shutdown_send, ignored);
    if (connection->exited) return;
    if (now) kill(-connection->pid, SIGTERM);
    connection->grace_timer.expires_after(now ? std::chrono::duration_cast<std::chrono::steady_clock::duration>(kKillGrace)
                                              : std::chrono::duration_cast<std::chrono::steady_clock::duration>(kCommandGrace));
    connection->grace_timer.async_wait([connection, now](const asio::error_code& error) {
      if (error || connection->exited) return;
      kill(-connection->pid, now ? SIGKILL : SIGTERM);
      if (!now) {
        connection->grace_timer.expires_after(kKillGrace);
        connection->grace_timer.async_wait([connection](const asio::error_code& e) {
          if (!e && !connection->exited) kill(-connection->pid, SIGKILL);
        });
      }
    });
  }

  asio::awaitable<void> AcceptLoop() {
    for (;;) {
      auto connection = std::make_shared<Connection>(io_);
      asio::error_code ec;
      co_await acceptor_.async_accept(connection->client, asio::redirect_error(asio::use_awaitable, ec));
      if (!acceptor_.is_open()) co_return;
      if (ec) {
        Say("accept failed: {}", ec.message());
        continue;
      }
      Start(connection);
    }
  }

  void Start(const std::shared_ptr<Connection>& connection) {
    asio::error_code ec;
    tcp::endpoint peer;
    auto remote = connection->client.remote_endpoint(ec);
    std::memcpy(peer.data(), remote.data(), std::min<size_t>(remote.size(), peer.capacity()));
    peer.resize(std::min<size_t>(remote.size(), peer.capacity()));
    connection->peer = fmt::format("{}:{}", peer.address().to_string(), peer.port());
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
      Say("socketpair failed: {}", std::strerror(errno));
      EndClient(connection);
      return;
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pair[1], STDIN_FILENO);
    posix_spawn_file_actions_adddup2(&actions, pair[1], STDOUT_FILENO);
    posix_spawnattr_t attributes;
    posix_spawnattr_init(&attributes);
    // Its own process group, so that ending it ends what it started (kubectl, ssh).
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    posix_spawnattr_setpgroup(&attributes, 0);
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGTERM);
    sigaddset(&defaults, SIGCHLD);
    sigaddset(&defaults, SIGPIPE);
    posix_spawnattr_setsigmask(&attributes, &none);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    std::vector<char*> argv;
    for (const std::string& arg : options_.command) argv.push_back(const_cast<char*>(arg.c_str()));
    argv.push_back(nullptr);
    pid_t pid = -1;
    const int spawned = posix_spawnp(&pid, argv[0], &actions, &attributes, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    close(pair[1]);
    if (spawned != 0) {
      close(pair[0]);
      Say("cannot run {}: {}", options_.command[0], std::strerror(spawned));
      EndClient(connection);
      return;
    }
    connection->pid = pid;
    connection->command.assign(asio::local::stream_protocol(), pair[0], ec);
    connections_[pid] = connection;
    Say("connection from {}: started {} (pid {})", connection->peer, options_.command[0], pid);
    connection->answer_timer.expires_after(std::chrono::milliseconds(options_.answer_timeout_ms));
    connection->answer_timer.async_wait([this, connection](const asio::error_code& error) {
      if (error || connection->from_command > 0 || connection->closed) return;
      Say("no answer from the command within {} ms (does it reach a listening JVM, and relay its stdin/stdout?); "
          "closing the connection from {}", options_.answer_timeout_ms, connection->peer);
      EndClient(connection);
      EndCommand(connection, /*now=*/true);
    });
    Spawn(io_, Pump(connection->client, connection->command, false, &connection->to_command,
                    [this, connection](const std::string& error) {
                      // The debugger left: the command sees end of input. (An error
                      // here is writing to a command that is gone: its exit says why.)
                      if (error.empty()) connection->closed = true;
                      connection->answer_timer.cancel();
                      EndCommand(connection, false);
                    }));
    Spawn(io_, Pump(connection->command, connection->client, true, &connection->from_command,
                    [this, connection](const std::string& error) {
                      connection->answer_timer.cancel();
                      if (connection->closed) return;
                      if (error.starts_with("not JDWP")) {
                        Say("the command's output is {}; closing the connection from {}", error, connection->peer);
                        EndClient(connection);
                        EndCommand(connection, /*now=*/true);
                        return;
                      }
                      if (!error.empty()) Say("relaying to {}: {}", connection->peer, error);
                      // The command's output ended: nothing more can reach the debugger.
                      if (connection->from_command > 0) EndClient(connection);
                      EndCommand(connection, false);
                    }));
  }

  const BridgeListenOptions options_;
  asio::io_context io_{1};
  asio::basic_socket_acceptor<Protocol> acceptor_;
  asio::signal_set signals_;
  asio::signal_set children_;
  asio::steady_timer stop_timer_;
  bool stopping_ = false;
  std::map<pid_t, std::shared_ptr<Connection>> connections_;
};

}  // namespace

int BridgeListen(const BridgeListenOptions& options) {
  if (options.command.empty()) {
    Say("listen needs a command after --");
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  BridgeServer server(options);
  return server.Run();
}

}  // namespace jdwpx::transport
