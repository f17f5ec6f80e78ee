// dt_socket over asio: listening, attaching, handshakes, reading, the
// session's end (the write path is socket_writes.cc).
//
// Threading model: one asio::io_context, never run by two threads at once.
// Accept()/Attach() run it on the caller's thread until one debugger is
// attached; Run() then runs it on the agent's I/O thread until Shutdown()
// (server) or the end of the connection (client). Every member below the
// "I/O state" line is touched only by the thread running the io_context.
// Other threads reach it only through asio::post (CloseConnection, Shutdown,
// the rest of a packet Send() could not write), through the atomics, through
// the map of attached sessions under direct_mu_, and through a session's write
// side under its write_mu (Send, below).
//
// Server mode keeps one acceptor for the whole life of the transport: one
// accept loop takes a connection, filters it (allow=), handshakes, and hands it
// to a session of its own (one reader coroutine, one writer callback chain
// draining a queue). Up to sessions= (Config::max_sessions) sessions are
// attached at once, each read and written independently of the others.
// With sessions=1 (stock's one debugger) a connection that comes while one is
// attached first waits for that one's end (a debugger reconnecting may connect
// before its previous connection is seen closed: the accept and the EOF
// complete in one io_context, in either order). With more, one that finds all
// of them taken after its handshake is closed. Handshakes are serial, like
// stock's. Sessions are numbered; Send and CloseConnection name theirs, so a
// late packet or close never reaches another debugger.
// Unix-domain sockets (address=unix:<path>, ours) share all of this through
// asio's generic stream protocol; only binding, the peer check (SO_PEERCRED
// instead of allow=) and the socket file's life differ (unix_socket.cc).
// Closing anything goes one way: close the socket, let the pending operations
// finish with operation_aborted, and the session's end reports OnDetached.
#include "transport/socket_transport.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <deque>
#include <exception>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <system_error>

#include <asio.hpp>
#include <spdlog/spdlog.h>

#include "jdwp/byte_order.h"
#include "jdwp/packet.h"
#include "transport/address.h"
#include "transport/library_transport.h"
#include "transport/transport.h"
#include "transport/unix_socket.h"

namespace jdwpx::transport {
namespace dt_socket {
namespace {

using asio::ip::tcp;
using namespace std::chrono_literals;

// A claimed length above this is treated as a corrupt stream, not a packet.
constexpr uint32_t kMaxPacketLength = 64u << 20;
constexpr size_t kReadBufferSize = 64 * 1024;
constexpr size_t kHandshakeSize = jdwp::kHandshake.size();

std::array<uint8_t, 16> PeerKey(const asio::ip::address& address) {
  if (address.is_v4()) return MapIpv4(address.to_v4().to_bytes());
  return address.to_v6().to_bytes();
}

// The peer as stock prints it: IPv4-mapped peers of a dual-stack socket as IPv4.
asio::ip::address Unmapped(const asio::ip::address& address) {
  if (address.is_v6() && address.to_v6().is_v4_mapped()) {
    return asio::ip::make_address_v4(asio::ip::v4_mapped, address.to_v6());
  }
  return address;
}

std::string EndpointText(const tcp::endpoint& endpoint) {
  auto address = Unmapped(endpoint.address());
  if (address.is_v6()) return "[" + address.to_string() + "]:" + std::to_string(endpoint.port());
  return address.to_string() + ":" + std::to_string(endpoint.port());
}

// address='s "%scope" on a resolved endpoint: IPv6 takes it, IPv4 is stock's 103.
tl::expected<void, TransportError> WithScope(tcp::endpoint& endpoint, uint32_t scope_id) {
  if (scope_id == 0) return {};
  if (!endpoint.address().is_v6()) return tl::unexpected(Ipv4WithScope());
  asio::ip::address_v6 v6 = endpoint.address().to_v6();
  v6.scope_id(scope_id);
  endpoint.address(v6);
  return {};
}

tcp::endpoint ToTcp(const Protocol::endpoint& generic) {
  tcp::endpoint endpoint;
  if (generic.size() <= endpoint.capacity()) {
    std::memcpy(endpoint.data(), generic.data(), generic.size());
    endpoint.resize(generic.size());
  }
  return endpoint;
}

bool IsLoopback(const asio::ip::address& address) { return Unmapped(address).is_loopback(); }

// Keepalive values: see kKeepAliveIdleS in transport.h.
void SetTcpOptions(Socket& socket) {
  asio::error_code ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  socket.set_option(asio::socket_base::keep_alive(true), ignored);
  socket.set_option(asio::detail::socket_option::integer<IPPROTO_TCP, TCP_KEEPIDLE>(kKeepAliveIdleS), ignored);
  socket.set_option(asio::detail::socket_option::integer<IPPROTO_TCP, TCP_KEEPINTVL>(kKeepAliveIntervalS), ignored);
  socket.set_option(asio::detail::socket_option::integer<IPPROTO_TCP, TCP_KEEPCNT>(kKeepAliveCount), ignored);
}

}  // namespace

void SocketTransport::Spawn(asio::awaitable<void> task, std::function<void()> on_done) {
  asio::co_spawn(io_, std::move(task), [this, on_done = std::move(on_done)](std::exception_ptr error) {
    if (error) {
      try {
        std::rethrow_exception(error);
      } catch (const std::exception& e) {
        if (log_) log_->error("transport task failed: {}", e.what());
      } catch (...) {
        if (log_) log_->error("transport task failed");
      }
    }
    if (on_done) on_done();
  });
}

tl::expected<void, TransportError> SocketTransport::Bind(const ParsedAddress& address) {
  asio::error_code ec;
  tcp::endpoint endpoint;
  bool dual_stack = false;
  switch (address.host_kind) {
    case ParsedAddress::Host::kLoopback:
      endpoint = tcp::endpoint(asio::ip::address_v4::loopback(), address.port);
      break;
    case ParsedAddress::Host::kAny:
      endpoint = tcp::endpoint(asio::ip::address_v6::any(), address.port);
      dual_stack = true;
      break;
    case ParsedAddress::Host::kNamed: {
      tcp::resolver resolver(io_);
      auto results = resolver.resolve(address.host, "", ec);
      if (ec || results.empty()) return tl::unexpected(TransportError{kErrorIo, "getaddrinfo: failed to parse address", {}});
      // Stock prefers IPv4 unless java.net.preferIPv6Addresses is set.
      auto chosen = std::find_if(results.begin(), results.end(), [](const auto& r) { return r.endpoint().address().is_v4(); });
      endpoint = (chosen != results.end() ? *chosen : *results.begin()).endpoint();
      endpoint.port(address.port);
      if (auto scoped = WithScope(endpoint, address.scope_id); !scoped) return tl::unexpected(scoped.error());
      break;
    }
  }
  acceptor_.open(Protocol::endpoint(endpoint).protocol(), ec);
  if (ec && dual_stack) {
    // No IPv6 on this host: every IPv4 interface is the best "*" can mean.
    endpoint = tcp::endpoint(asio::ip::address_v4::any(), address.port);
    dual_stack = false;
    acceptor_.open(Protocol::endpoint(endpoint).protocol(), ec);
  }
  if (ec) return tl::unexpected(TransportError{kErrorIo, "socket creation failed: " + ec.message(), {}});
  if (dual_stack) acceptor_.set_option(asio::ip::v6_only(false), ec);
  acceptor_.set_option(asio::socket_base::reuse_address(true), ec);
  acceptor_.bind(Protocol::endpoint(endpoint), ec);
  if (ec) return tl::unexpected(TransportError{kErrorIo, "bind failed: " + ec.message(), {}});
  acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return tl::unexpected(TransportError{kErrorIo, "listen failed: " + ec.message(), {}});
  auto local = ToTcp(acceptor_.local_endpoint(ec));
  if (ec) return tl::unexpected(TransportError{kErrorIo, "getsockname failed: " + ec.message(), {}});
  bound_port_ = local.port();
  endpoint_text_ = local.address().is_unspecified() ? (local.address().is_v6() ? "*:" : "0.0.0.0:") +
                                                          std::to_string(bound_port_)
                                                    : EndpointText(local);
  if (!IsLoopback(local.address()) && allow_.allows_everyone()) {
    exposure_warning_ = fmt::format(
        "jdwpx: WARNING: listening on {} without allow=: whoever can reach {} can run any code in this JVM "
        "(JDWP has no authentication). Fix: allow=<ip>[/<bits>], or a loopback address (127.0.0.1:<port>) "
        "reached through a tunnel, or a Unix socket (address=unix:<path>) with jdwpx-bridge.",
        endpoint_text_, endpoint_text_);
  }
  loopback_only_ = IsLoopback(local.address());
  if (log_) log_->debug("listening on {}", EndpointText(local));
  return {};
}

tl::expected<void, TransportError> SocketTransport::Resolve(const ParsedAddress& address) {
  if (address.host_kind == ParsedAddress::Host::kLoopback) {
    tcp::endpoint endpoint(asio::ip::address_v4::loopback(), address.port);
    connect_endpoints_ = {{endpoint, EndpointText(endpoint)}};
    return {};
  }
  asio::error_code ec;
  tcp::resolver resolver(io_);
  auto results = resolver.resolve(address.host_kind == ParsedAddress::Host::kAny ? "*" : address.host, "", ec);
  if (ec || results.empty()) return tl::unexpected(TransportError{kErrorIo, "getaddrinfo: failed to parse address", {}});
  std::vector<tcp::endpoint> endpoints;
  for (const auto& result : results) {
    tcp::endpoint endpoint = result.endpoint();
    endpoint.port(address.port);
    if (auto scoped = WithScope(endpoint, address.scope_id); !scoped) return tl::unexpected(scoped.error());
    endpoints.push_back(endpoint);
  }
  // IPv4 first, as stock orders them by default.
  std::stable_partition(endpoints.begin(), endpoints.end(), [](const tcp::endpoint& e) { return e.address().is_v4(); });
  for (const auto& endpoint : endpoints) connect_endpoints_.emplace_back(endpoint, EndpointText(endpoint));
  return {};
}

void SocketTransport::RunUntilIdle() {
  io_.restart();
  io_.run();
  io_.restart();
}

tl::expected<void, TransportError> SocketTransport::Accept() { return AcceptWithin(0, 0, {}); }

tl::expected<void, TransportError> SocketTransport::AcceptWithin(int64_t wait_ms, int64_t every_ms,
                                                                 const std::function<void()>& waiting) {
  try {
    if (!config_.server) return tl::unexpected(TransportError{kErrorIllegalState, "Accept() needs server mode", {}});
    if (!sessions_.empty()) return {};
    if (stopping_) return tl::unexpected(TransportError{kErrorIo, "transport shut down", {}});
    accept_timed_out_ = false;
    suspend_timed_out_ = false;
    accept_error_.clear();
    auto deadline = std::make_shared<Deadline>(io_, config_.timeout_ms, [this] {
      accept_timed_out_ = true;
      asio::error_code ignored;
      acceptor_.cancel(ignored);
      if (auto socket = handshaking_.lock()) socket->close(ignored);
    });
    // suspendtimeout=: stop waiting, keep listening. A handshake under way is
    // let finish (AcceptLoop stops after it if it fails).
    auto bound = std::make_shared<Deadline>(io_, wait_ms, [this] {
      suspend_timed_out_ = true;
      asio::error_code ignored;
      if (handshaking_.expired()) acceptor_.cancel(ignored);
    });
    auto ticker = std::make_shared<asio::steady_timer>(io_);
    std::function<void()> tick;
    if (waiting) {
      waiting();
      if (every_ms > 0) {
        tick = [this, ticker, every_ms, &waiting, &tick] {
          ticker->expires_after(std::chrono::milliseconds(every_ms));
          ticker->async_wait([this, &waiting, &tick](const asio::error_code& ec) {
            if (ec || !sessions_.empty() || stopping_) return;
            waiting();
            tick();
          });
        };
        tick();
      }
    }
    Spawn(AcceptLoop(/*stop_after_first=*/true), [deadline, bound, ticker] {
      deadline->Disarm();
      bound->Disarm();
      ticker->cancel();
    });
    RunUntilIdle();
    if (!sessions_.empty()) return {};
    if (accept_timed_out_) return tl::unexpected(TransportError{kErrorTimeout, "timed out waiting for connection", {}});
    if (stopping_) return tl::unexpected(TransportError{kErrorIo, "transport shut down", {}});
    if (suspend_timed_out_) return tl::unexpected(TransportError{kErrorSuspendTimeout, "suspend timeout", {}});
    return tl::unexpected(TransportError{kErrorIo, accept_error_.empty() ? "accept failed" : accept_error_, {}});
  } catch (const std::exception& e) {
    return tl::unexpected(TransportError{kErrorIo, std::string("accept failed: ") + e.what(), {}});
  }
}

tl::expected<std::string, std::string> SocketTransport::CheckPeer(Socket& socket) {
  asio::error_code ec;
  auto remote = socket.remote_endpoint(ec);
  if (ec) return tl::unexpected(std::string());  // already gone
  if (!unix_path_.empty()) {
    auto refusal = CheckUnixPeer(socket.native_handle(), config_.unix_root);
    if (!refusal) return tl::unexpected(refusal.error());
    return *refusal;
  }
  tcp::endpoint peer = ToTcp(remote);
  if (!allow_.Allows(PeerKey(peer.address()))) return tl::unexpected(Unmapped(peer.address()).to_string());
  return EndpointText(peer);
}

tl::expected<void, TransportError> SocketTransport::BindUnix(const std::string& path) {
  auto prepared = PrepareUnixSocketPath(path);
  if (!prepared) return tl::unexpected(prepared.error());
  if (log_ && *prepared) log_->info("removed a stale socket file {}", path);
  unix_path_ = path;
  asio::error_code ec;
  asio::local::stream_protocol::endpoint endpoint(path);
  acceptor_.open(Protocol::endpoint(endpoint).protocol(), ec);
  if (ec) return tl::unexpected(TransportError{kErrorIo, "socket creation failed: " + ec.message(), {}});
  acceptor_.bind(Protocol::endpoint(endpoint), ec);
  if (ec) return tl::unexpected(TransportError{kErrorIo, "bind failed: " + path + ": " + ec.message(), {}});
  unix_file_.Own(path);
  // The file is created with the umask's mode; 0600 at once (SO_PEERCRED is the real gate).
  if (auto restricted = unix_file_.RestrictMode(); !restricted) return tl::unexpected(restricted.error());
  acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) return tl::unexpected(TransportError{kErrorIo, "listen failed: " + ec.message(), {}});
  endpoint_text_ = std::string(kUnixPrefix) + path;
  if (log_) log_->debug("listening on {}", endpoint_text_);
  return {};
}

tl::expected<void, TransportError> SocketTransport::ResolveUnix(const std::string& path) {
  if (auto valid = ValidateUnixSocketPath(path); !valid) return tl::unexpected(valid.error());
  unix_path_ = path;
  connect_endpoints_ = {{Protocol::endpoint(asio::local::stream_protocol::endpoint(path)),
                         std::string(kUnixPrefix) + path}};
  return {};
}

tl::expected<void, TransportError> SocketTransport::Attach() {
  try {
    if (config_.server) return tl::unexpected(TransportError{kErrorIllegalState, "Attach() needs client mode", {}});
    if (!sessions_.empty()) return {};
    if (stopping_) return tl::unexpected(TransportError{kErrorIo, "transport shut down", {}});
    connect_error_ = {kErrorIo, "connect failed", {}};
    connect_timed_out_ = false;
    Spawn(Connect());
    RunUntilIdle();
    if (!sessions_.empty()) return {};
    if (stopping_) return tl::unexpected(TransportError{kErrorIo, "transport shut down", {}});
    return tl::unexpected(connect_error_);
  } catch (const std::exception& e) {
    return tl::unexpected(TransportError{kErrorIo, std::string("connect failed: ") + e.what(), {}});
  }
}

asio::awaitable<void> SocketTransport::Connect() {
  for (const auto& [endpoint, endpoint_text] : connect_endpoints_) {
    if (stopping_) co_return;
    auto socket = std::make_shared<Socket>(io_);
    connecting_ = socket;
    asio::error_code ec;
    {
      Deadline deadline(io_, config_.timeout_ms, [this, weak = std::weak_ptr(socket)] {
        connect_timed_out_ = true;
        asio::error_code ignored;
        if (auto s = weak.lock()) s->close(ignored);
      });
      co_await socket->async_connect(endpoint, asio::redirect_error(asio::use_awaitable, ec));
    }
    if (connect_timed_out_) {
      connect_error_ = {kErrorTimeout, "connect timed out", {}};
      co_return;
    }
    if (ec) {
      if (log_) log_->debug("connect to {} failed: {}", endpoint_text, ec.message());
      connect_error_ = {kErrorIo, "connect failed: " + ec.message(), {}};
      continue;
    }
    if (unix_path_.empty()) SetTcpOptions(*socket);
    const auto connected = std::chrono::steady_clock::now();
    std::string failure = co_await Handshake(socket, /*send_first=*/true);
    if (!failure.empty()) {
      connect_error_ = {kErrorIo, failure, {}};
      co_return;
    }
    StartSession(socket, endpoint_text, std::chrono::steady_clock::now() - connected);
    co_return;
  }
}

asio::awaitable<std::string> SocketTransport::Handshake(std::shared_ptr<Socket> socket, bool send_first) {
  handshaking_ = socket;
  Deadline deadline(io_, config_.handshake_timeout_ms, [weak = std::weak_ptr(socket)] {
    asio::error_code ignored;
    if (auto s = weak.lock()) s->close(ignored);
  });
  asio::error_code ec;
  auto send = [&]() -> asio::awaitable<std::string> {
    co_await asio::async_write(*socket, asio::buffer(jdwp::kHandshake.data(), kHandshakeSize),
                               asio::redirect_error(asio::use_awaitable, ec));
    if (deadline.expired()) co_return "timeout during handshake";
    if (ec) co_return "send failed during handshake: " + ec.message();
    co_return std::string();
  };
  if (send_first) {
    if (std::string failure = co_await send(); !failure.empty()) co_return failure;
  }
  std::array<char, kHandshakeSize> received{};
  co_await asio::async_read(*socket, asio::buffer(received), asio::redirect_error(asio::use_awaitable, ec));
  if (deadline.expired()) co_return "timeout during handshake";
  if (stopping_) co_return "transport shut down";
  if (ec == asio::error::eof) co_return "handshake failed - connection prematurally closed";
  if (ec) co_return "recv failed during handshake: " + ec.message();
  if (std::string_view(received.data(), received.size()) != jdwp::kHandshake) {
    // Shown as stock's %s shows it: up to the first NUL.
    std::string shown(received.data(), strnlen(received.data(), received.size()));
    co_return "handshake failed - received >" + shown + "< - expected >" + std::string(jdwp::kHandshake) + "<";
  }
  if (!send_first) {
    if (std::string failure = co_await send(); !failure.empty()) co_return failure;
  }
  co_return std::string();
}

asio::awaitable<void> SocketTransport::AcceptLoop(bool stop_after_first) {
  while (!stopping_ && !accept_timed_out_ && !(stop_after_first && suspend_timed_out_)) {
    auto socket = std::make_shared<Socket>(io_);
    asio::error_code ec;
    co_await acceptor_.async_accept(*socket, asio::redirect_error(asio::use_awaitable, ec));
    if (stopping_ || accept_timed_out_ || ec == asio::error::operation_aborted || !acceptor_.is_open()) co_return;
    if (ec) {
      // Typically EMFILE: back off briefly rather than spin on a failing accept.
      accept_error_ = "accept failed: " + ec.message();
      if (log_) log_->warn("{}", accept_error_);
      accept_retry_timer_ = std::make_shared<asio::steady_timer>(io_, 100ms);
      co_await accept_retry_timer_->async_wait(asio::redirect_error(asio::use_awaitable, ec));
      continue;
    }
    auto checked = CheckPeer(*socket);
    asio::error_code ignored;
    if (!checked) {
      socket->close(ignored);
      if (!checked.error().empty()) Warn("Debugger failed to attach: ERROR: Peer not allowed to connect: " + checked.error());
      continue;
    }
    const std::string peer = *checked;
    if (MaxSessions() == 1 && Full() && !co_await WaitForSessionEnd()) {
      if (stopping_ || accept_timed_out_) co_return;
      socket->close(ignored);
      Warn("Debugger failed to attach: refused " + peer + ", a debugger is already attached (" +
           sessions_.begin()->second->peer + ")");
      continue;
    }
    if (stopping_ || accept_timed_out_) co_return;
    if (log_) log_->debug("accepted {}", peer);
    if (unix_path_.empty()) SetTcpOptions(*socket);
    const auto handshake_start = std::chrono::steady_clock::now();
    std::string failure = co_await Handshake(socket, /*send_first=*/false);
    if (stopping_ || accept_timed_out_) co_return;
    if (!failure.empty()) {
      socket->close(ignored);
      Warn("Debugger failed to attach: " + failure);
      if (stop_after_first && suspend_timed_out_) co_return;
      continue;
    }
    if (Full()) {
      // sessions=N>1, all taken (with 1 the wait above settled it). After the
      // handshake: the debugger sees an agent that closed the connection, not
      // a broken handshake, and one of the N seen leaving meanwhile makes room.
      socket->close(ignored);
      Warn(fmt::format("Debugger failed to attach: ERROR: sessions={}: {} debuggers attached already", MaxSessions(),
                       sessions_.size()));
      continue;
    }
    StartSession(socket, peer, std::chrono::steady_clock::now() - handshake_start);
    if (stop_after_first) co_return;
  }
}

asio::awaitable<bool> SocketTransport::WaitForSessionEnd() {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(kWaitForSessionEndMs);
  while (Full() && !stopping_ && !accept_timed_out_ && std::chrono::steady_clock::now() < deadline) {
    session_end_timer_ = std::make_shared<asio::steady_timer>(io_, deadline);
    auto timer = session_end_timer_;
    asio::error_code ec;
    co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  session_end_timer_.reset();
  co_return !Full();
}

void SocketTransport::ArmListenDeadline() {
  if (config_.timeout_ms <= 0 || !config_.server || !sessions_.empty() || stopping_) return;
  listen_deadline_ = std::make_unique<Deadline>(io_, config_.timeout_ms, [this] {
    if (!sessions_.empty() || stopping_) return;
    Notify([&] { listener_->OnAcceptFailed(TransportError{kErrorTimeout, "timed out waiting for connection", {}}); });
  });
}

void SocketTransport::StartSession(std::shared_ptr<Socket> socket, const std::string& peer,
                                   std::chrono::nanoseconds handshake) {
  if (listen_deadline_) listen_deadline_->Disarm();
  auto session = std::make_shared<Session>(std::move(*socket));
  session->peer = peer;
  session->epoch = ++last_epoch_;
  {
    std::lock_guard lock(direct_mu_);
    sessions_.emplace(session->epoch, session);
  }
  if (log_) log_->debug("debugger attached: {}", peer);
  Notify([&] { listener_->OnAttached(peer, session->epoch, handshake); });
  // Under Accept()/Attach() the reader waits for Run().
  if (running_ && !session->ended) StartReader(session);
}

void SocketTransport::StartReader(const std::shared_ptr<Session>& session) {
  if (session->reader_started) return;
  session->reader_started = true;
  Spawn(ReadLoop(session));
  bool start_writer = false;
  {
    std::lock_guard lock(session->write_mu);
    session->direct_ok = true;
    // Packets sent before Run() (VMStart) wait in the queue: the writer takes them.
    if (!session->writing) {
      session->writing = true;
      start_writer = true;
    }
  }
  if (start_writer) WriteNext(session);
}

asio::awaitable<void> SocketTransport::ReadLoop(std::shared_ptr<Session> session) {
  std::vector<uint8_t> buffer(kReadBufferSize);
  size_t begin = 0;
  size_t end = 0;
  asio::error_code ec;
  while (!session->ended) {
    // Deliver every whole packet already buffered.
    while (end - begin >= 4) {
      uint32_t length = jdwp::GetBigEndian32(buffer.data() + begin);
      if (length < jdwp::kHeaderSize || length > kMaxPacketLength) {
        // Stock's words (it prints no number); the number goes to the detach reason.
        Warn("ERROR: transport error 202: Badly formed packet received - invalid length");
        EndSession(session, "invalid length " + std::to_string(length));
        co_return;
      }
      if (end - begin >= length) {
        std::vector<uint8_t> packet(buffer.begin() + begin, buffer.begin() + begin + length);
        begin += length;
        Deliver(session, std::move(packet));
        if (session->ended) co_return;
        continue;
      }
      if (length <= buffer.size()) break;
      // Larger than the buffer: grow a packet of its own as bytes arrive, at
      // most doubling, so a lying length field costs nothing up front.
      std::vector<uint8_t> packet(buffer.begin() + begin, buffer.begin() + end);
      begin = end = 0;
      while (packet.size() < length) {
        size_t have = packet.size();
        size_t chunk = std::min<size_t>(length - have, std::max(have, kReadBufferSize));
        packet.resize(have + chunk);
        co_await asio::async_read(session->socket, asio::buffer(packet.data() + have, chunk),
                                  asio::redirect_error(asio::use_awaitable, ec));
        if (ec) {
          EndSession(session, ec == asio::error::eof ? "debugger closed the connection mid-packet" : ec.message());
          co_return;
        }
      }
      Deliver(session, std::move(packet));
      if (session->ended) co_return;
    }
    if (begin == end) {
      begin = end = 0;
    } else if (begin > 0) {
      std::memmove(buffer.data(), buffer.data() + begin, end - begin);
      end -= begin;
      begin = 0;
    }
    size_t n = co_await session->socket.async_read_some(asio::buffer(buffer.data() + end, buffer.size() - end),
                                                        asio::redirect_error(asio::use_awaitable, ec));
    if (ec) {
      std::string reason;
      if (ec == asio::error::eof) {
        reason = end > begin ? "debugger closed the connection mid-packet" : "debugger closed the connection";
      } else {
        reason = ec.message();
      }
      EndSession(session, reason);
      co_return;
    }
    end += n;
  }
}

void SocketTransport::Deliver(const std::shared_ptr<Session>& session, std::vector<uint8_t> packet) {
  const uint8_t flags = packet[8];
  if (flags != 0 && flags != jdwp::kReplyFlag) {
    // As stock's reader: a debugger sends commands (or replies) only; anything
    // else ends the connection, and the agent listens again.
    Warn(fmt::format("ERROR: Received jdwpPacket with flags != 0x0 (actual={:#x}) when a jdwpCmdPacket was expected.",
                     flags));
    EndSession(session, fmt::format("packet with flags {:#x}", flags));
    return;
  }
  if (log_) log_->trace("<- packet len={}", packet.size());
  Notify([&] { listener_->OnPacket(session->epoch, std::move(packet)); });
}

void SocketTransport::EndSession(const std::shared_ptr<Session>& which, const std::string& reason) {
  // A copy: `which` may be the element of sessions_ erased below.
  const std::shared_ptr<Session> session = which;
  if (session->ended) return;
  session->ended = true;
  {
    std::lock_guard lock(direct_mu_);
    sessions_.erase(session->epoch);
  }
  size_t dropped = 0;
  std::function<void()> on_room;
  {
    // Closed under the write lock: no direct write is on the descriptor now,
    // and none comes after.
    std::lock_guard lock(session->write_mu);
    session->closed = true;
    on_room = TakeRoomWaiterLocked(*session);
    for (const Outgoing& out : session->queue) dropped += out.kind != Outgoing::Kind::kPart ? 1 : 0;
    dropped += session->held.size();
    if (session->in_parts) ++dropped;  // its last part never came (counted by SendInParts)
    session->in_parts = false;
    session->queue.clear();
    session->held.clear();
    session->held_bytes = 0;
    session->queued_bytes = 0;
    asio::error_code ignored;
    session->socket.shutdown(asio::socket_base::shutdown_both, ignored);
    session->socket.close(ignored);
  }
  session->parts_cv.notify_all();  // a parts maker waits no more
  if (on_room) Notify(on_room);     // nor one told to stop (its next Write fails)
  PacketsDone(dropped);
  if (log_) log_->debug("debugger detached: {}", reason);
  Notify([&] { listener_->OnDetached(session->epoch, reason); });
  // A connection waiting for this end goes ahead.
  if (session_end_timer_) session_end_timer_->cancel();
  // A client transport lives for one connection only.
  if (!config_.server) CloseAll();
  // Listening again: timeout= applies to each wait for a debugger, as stock
  // (none while other sessions remain).
  if (running_) ArmListenDeadline();
}

void SocketTransport::CloseAll() {
  asio::error_code ignored;
  acceptor_.close(ignored);
  unix_file_.Remove();  // not listening any more
  if (accept_retry_timer_) accept_retry_timer_->cancel();
  if (session_end_timer_) session_end_timer_->cancel();
  if (auto socket = handshaking_.lock()) socket->close(ignored);
  if (auto socket = connecting_.lock()) socket->close(ignored);
  // A copy: EndSession erases from sessions_.
  std::vector<std::shared_ptr<Session>> attached;
  for (const auto& [epoch, session] : sessions_) attached.push_back(session);
  for (const auto& session : attached) EndSession(session, stopping_ ? "transport shut down" : "connection closed");
}

void SocketTransport::Run() {
  try {
    if (stopping_) {
      // Shutdown() came before Run(): its posted CloseAll never runs, so close here.
      CloseAll();
      return;
    }
    running_ = true;
    if (config_.server) {
      ArmListenDeadline();
      Spawn(AcceptLoop(/*stop_after_first=*/false));
    }
    // Attached under Accept()/Attach(): served from now on.
    for (const auto& [epoch, session] : sessions_) StartReader(session);
    io_.restart();
    io_.run();
  } catch (const std::exception& e) {
    if (log_) log_->error("transport I/O loop failed: {}", e.what());
  } catch (...) {
    if (log_) log_->error("transport I/O loop failed");
  }
}

void SocketTransport::CloseConnection(uint64_t epoch) {
  try {
    // No lock here: the I/O thread looks the connection up (it may have ended).
    if (epoch == 0 || stopping_) return;
    asio::post(io_, [this, epoch] {
      auto found = sessions_.find(epoch);
      if (found == sessions_.end()) return;
      const std::shared_ptr<Session> session = found->second;
      if (session->ended) return;
      bool idle = false;
      {
        std::lock_guard lock(session->write_mu);
        session->close_when_drained = true;
        idle = !session->writing && session->queue.empty() && !session->in_parts;
      }
      // Idle: everything sent before is written; else the writer closes once drained.
      if (idle) EndSession(session, "connection closed by the agent");
    });
  } catch (...) {
    if (log_) log_->error("CloseConnection failed");
  }
}

void SocketTransport::Shutdown() {
  try {
    if (stopping_.exchange(true)) return;
    WakeWaitingWriters();  // a parts maker waiting for the writer gives up now
    asio::post(io_, [this] { CloseAll(); });
  } catch (...) {
    // Posting only fails on allocation failure; stopping the loop still ends Run().
    io_.stop();
  }
}

}  // namespace dt_socket

tl::expected<std::unique_ptr<Transport>, TransportError> Transport::Open(const Config& config, Listener* listener) {
  try {
    if (listener == nullptr) return tl::unexpected(TransportError{kErrorIllegalArgument, "no listener", {}});
    if (config.name != "dt_socket") return OpenLibraryTransport(config, listener);
    if (!config.server && config.address.empty()) {
      return tl::unexpected(TransportError{kErrorIllegalArgument, "address is missing", {}});
    }
    auto allow = AllowList::Parse(config.allow);
    if (!allow) return tl::unexpected(allow.error());
    if (config.address.starts_with(kUnixPrefix)) {
      const std::string path = config.address.substr(kUnixPrefix.size());
      auto transport = std::make_unique<dt_socket::SocketTransport>(config, listener, std::move(*allow));
      auto ready = config.server ? transport->BindUnix(path) : transport->ResolveUnix(path);
      if (!ready) return tl::unexpected(ready.error());
      return std::unique_ptr<Transport>(std::move(transport));
    }
    auto address = ParseAddress(config.address);
    if (!address) return tl::unexpected(address.error());
    auto transport = std::make_unique<dt_socket::SocketTransport>(config, listener, std::move(*allow));
    auto ready = config.server ? transport->Bind(*address) : transport->Resolve(*address);
    if (!ready) return tl::unexpected(ready.error());
    return std::unique_ptr<Transport>(std::move(transport));
  } catch (const std::exception& e) {
    return tl::unexpected(TransportError{kErrorIo, std::string("transport setup failed: ") + e.what(), {}});
  }
}

}  // namespace jdwpx::transport
