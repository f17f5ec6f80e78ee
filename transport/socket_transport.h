// The socket transport's class, shared by its two halves: the connection's
// life (socket_transport.cc) and the write path (socket_writes.cc). Internal to
// transport/: backend/ sees only transport.h.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <asio.hpp>
#include <spdlog/spdlog.h>

#include "jdwp/packet.h"
#include "transport/address.h"
#include "transport/transport.h"
#include "transport/unix_socket.h"

namespace jdwpx::transport::dt_socket {

using Protocol = asio::generic::stream_protocol;
using Socket = Protocol::socket;

// A timer that runs `on_expiry` unless disarmed first. The handler owns its
// state, so it is safe even if it was already queued when the owner went away.
class Deadline {
 public:
  Deadline(asio::io_context& io, int64_t timeout_ms, std::function<void()> on_expiry) : timer_(io) {
    if (timeout_ms <= 0) return;
    timer_.expires_after(std::chrono::milliseconds(timeout_ms));
    timer_.async_wait([state = state_, on_expiry = std::move(on_expiry)](const asio::error_code& ec) {
      if (ec || state->disarmed) return;
      state->expired = true;
      on_expiry();
    });
  }
  ~Deadline() { Disarm(); }
  Deadline(const Deadline&) = delete;
  Deadline& operator=(const Deadline&) = delete;

  void Disarm() {
    state_->disarmed = true;
    timer_.cancel();
  }
  bool expired() const { return state_->expired; }

 private:
  struct State {
    bool disarmed = false;
    bool expired = false;
  };
  std::shared_ptr<State> state_ = std::make_shared<State>();
  asio::steady_timer timer_;
};

// What the writer writes: a whole packet, or a part of one sent in parts.
struct Outgoing {
  enum class Kind : uint8_t { kWhole, kPart, kLastPart };
  std::vector<uint8_t> bytes;
  Kind kind = Kind::kWhole;
  // kLastPart: the packet's header and length, for Listener::OnWritten.
  std::array<uint8_t, jdwp::kHeaderSize> header{};
  size_t packet_length = 0;
};

struct Session {
  explicit Session(Socket s) : socket(std::move(s)) {}
  Socket socket;
  std::string peer;
  uint64_t epoch = 0;
  bool reader_started = false;  // I/O thread only
  bool ended = false;           // I/O thread only (`closed` is what other threads see)

  // Leaf lock (nothing else is taken under it but the trace's lock-free push
  // and unwritten_mu_): the write side, shared by Send() on any thread and the
  // I/O thread's writer.
  std::mutex write_mu;
  std::deque<Outgoing> queue;
  size_t front_written = 0;  // bytes of queue.front() already written (a direct write cut short)
  size_t queued_bytes = 0;   // bytes in `queue` not yet written
  // A packet is being sent in parts (its last part not yet given): Send()'s
  // packets wait in `held`, and no other packet starts in parts.
  bool in_parts = false;
  std::deque<std::vector<uint8_t>> held;
  size_t held_bytes = 0;  // bytes in `held`
  // Signalled when queued bytes are written, when a packet's last part is
  // given, and when the session closes: a parts maker, and a Send() beyond
  // kSendWindow, wait on it.
  std::condition_variable parts_cv;
  // The parts maker that was told its writer is Full() (PacketWriter::Full):
  // called once, and cleared, when queued_bytes is back within kPartsWindow
  // or the session ends (TakeRoomWaiter).
  std::function<void()> room_waiter;
  bool writing = false;      // the I/O thread's writer owns the socket's write side
  // SendSoon's packets wait in the queue for flush_timer (I/O thread only),
  // which starts the writer unless a Send did first.
  bool flush_pending = false;
  std::optional<asio::steady_timer> flush_timer;
  bool direct_ok = false;    // Run() serves the session: Send() may write directly
  bool close_when_drained = false;
  // Nothing more may be written: a direct write failed, or a packet in parts
  // was cut short; EndSession is on its way.
  bool broken = false;
  bool closed = false;       // the socket is closed (EndSession)
};

class SocketTransport final : public Transport {
 public:
  SocketTransport(const Config& config, Listener* listener, AllowList allow)
      : config_(config),
        listener_(listener),
        allow_(std::move(allow)),
        log_(spdlog::get("jdwpx.transport")),
        acceptor_(io_) {}

  ~SocketTransport() override {
    // Handlers still queued hold no references that outlive io_ (declared first,
    // destroyed last); nothing is reported to the listener from here on.
    stopping_ = true;
    unix_file_.Remove();
  }

  tl::expected<void, TransportError> Bind(const ParsedAddress& address);
  tl::expected<void, TransportError> Resolve(const ParsedAddress& address);
  tl::expected<void, TransportError> BindUnix(const std::string& path);
  tl::expected<void, TransportError> ResolveUnix(const std::string& path);

  uint16_t port() const override { return bound_port_; }
  std::string address() const override {
    return unix_path_.empty() ? std::to_string(bound_port_) : std::string(kUnixPrefix) + unix_path_;
  }
  std::string endpoint_text() const override { return endpoint_text_; }
  std::string exposure_warning() const override { return exposure_warning_; }
  bool listens_on_loopback_only() const override { return loopback_only_; }
  tl::expected<void, TransportError> Attach() override;
  tl::expected<void, TransportError> Accept() override;
  tl::expected<void, TransportError> AcceptWithin(int64_t wait_ms, int64_t every_ms,
                                                  const std::function<void()>& waiting) override;
  void Run() override;
  void Send(uint64_t session, std::vector<uint8_t> packet) override;
  bool SendUnheld(uint64_t session, std::vector<uint8_t> packet) override;
  bool Backlogged(uint64_t session) override;
  bool SendSoon(uint64_t session, std::vector<uint8_t> packet) override;
  using Transport::SendInParts;
  std::unique_ptr<PacketWriter> SendInParts(uint64_t session, size_t length, std::function<void()> on_room) override;
  bool Flush(std::chrono::milliseconds timeout) override;
  void StopHoldingBack() override;
  void CloseConnection(uint64_t session) override;
  void Shutdown() override;

 private:
  asio::awaitable<void> AcceptLoop(bool stop_after_first);
  // sessions=1: waits (at most kWaitForSessionEndMs) until no session is
  // attached; false if one still is.
  asio::awaitable<bool> WaitForSessionEnd();
  // Config::max_sessions, at least 1.
  size_t MaxSessions() const { return static_cast<size_t>(std::max(config_.max_sessions, 1)); }
  // As many sessions attached as sessions= allows.
  bool Full() const { return sessions_.size() >= MaxSessions(); }
  asio::awaitable<void> Connect();
  // Returns an empty string on success, else stock's failure text.
  asio::awaitable<std::string> Handshake(std::shared_ptr<Socket> socket, bool send_first);
  // Who connected, or why they are refused (allow=, or a Unix peer's uid).
  tl::expected<std::string, std::string> CheckPeer(Socket& socket);
  asio::awaitable<void> ReadLoop(std::shared_ptr<Session> session);

  void StartSession(std::shared_ptr<Socket> socket, const std::string& peer, std::chrono::nanoseconds handshake);
  void StartReader(const std::shared_ptr<Session>& session);
  // The writer: writes what is queued, up to a batch of this many packets or
  // bytes in one write, then the next batch, until the queue is empty.
  static constexpr size_t kWriteBatchPackets = 64;
  static constexpr size_t kWriteBatchBytes = size_t{256} << 10;
  void WriteNext(const std::shared_ptr<Session>& session);
  // Send: queues (or writes) one packet, then holds a caller back while the
  // debugger reads nothing (kSendWindow). `hold` false (SendUnheld, SendSoon):
  // never holds, and answers whether the connection is backlogged now.
  bool SendPacket(uint64_t epoch, std::vector<uint8_t> packet, bool soon, bool hold = true);
  // On the I/O thread: starts the writer kSendSoonDelay from now.
  void FlushSoon(const std::shared_ptr<Session>& session);
  // On the calling thread, `session` locked (write_mu): writes `out` now when
  // the writer is idle, else queues it; `soon` (SendSoon) always queues it and
  // starts the writer kSendSoonDelay later (FlushSoon).
  void SendLocked(const std::shared_ptr<Session>& session, Outgoing out, bool soon = false);
  // Attached connection `epoch` if the transport is not stopping (what Send and
  // SendInParts write to), else null. Any thread.
  std::shared_ptr<Session> AttachedSession(uint64_t epoch);
  // `session` locked: its packet in parts has had its last part; what Send()
  // held back follows it.
  void EndPartsLocked(const std::shared_ptr<Session>& session);
  friend class PartsWriter;
  // Hands one whole packet to the listener, or ends the session on a packet no debugger sends.
  void Deliver(const std::shared_ptr<Session>& session, std::vector<uint8_t> packet);
  void EndSession(const std::shared_ptr<Session>& session, const std::string& reason);
  void CloseAll();
  // Runs io_ on the calling thread until `done` and nothing else is pending.
  void RunUntilIdle();

  void Spawn(asio::awaitable<void> task, std::function<void()> on_done = {});
  // Wakes what waits on the attached sessions' parts_cv (a parts maker, a held
  // Send) to look at stopping_ and holding_back_ again.
  void WakeWaitingWriters();
  // A queued packet was written or dropped.
  void PacketsDone(size_t n);
  // `session` locked: its parts maker's call back, if one waits and may go on
  // now (within kPartsWindow, or the session ended or the transport stops);
  // the caller calls it once the lock is released.
  std::function<void()> TakeRoomWaiterLocked(Session& session);

  // Listener calls never throw into asio.
  template <typename F>
  void Notify(F&& call) {
    try {
      call();
    } catch (const std::exception& e) {
      if (log_) log_->error("listener threw: {}", e.what());
    } catch (...) {
      if (log_) log_->error("listener threw");
    }
  }
  void Warn(const std::string& message) {
    if (log_) log_->debug("{}", message);
    Notify([&] { listener_->OnWarning(message); });
  }

  const Config config_;
  Listener* const listener_;
  const AllowList allow_;
  const std::shared_ptr<spdlog::logger> log_;

  asio::io_context io_{1};
  std::atomic<bool> stopping_{false};
  std::atomic<bool> holding_back_{true};  // Send() may hold its caller (StopHoldingBack)
  // The attached sessions by epoch (at most sessions=, 16; one in client
  // mode). Changed only by the thread running io_, under direct_mu_, so that
  // thread reads it without the lock; other threads (Send, SendInParts,
  // WakeWaitingWriters) read it under direct_mu_. A packet or close naming an
  // epoch not in it (an ended connection) is dropped.
  std::mutex direct_mu_;  // taken before a session's write_mu, nothing else under it
  std::map<uint64_t, std::shared_ptr<Session>> sessions_;
  // Packets accepted by Send() and not yet written or dropped (for Flush).
  std::mutex unwritten_mu_;
  std::condition_variable unwritten_cv_;
  size_t unwritten_ = 0;

  // ---- I/O state (io_ thread only) ----
  asio::basic_socket_acceptor<Protocol> acceptor_;
  uint16_t bound_port_ = 0;
  std::string unix_path_;      // address=unix:<path>, else empty
  UnixSocketFile unix_file_;   // the socket file while we own it
  std::string endpoint_text_;  // set once by Bind (before any other thread sees the transport)
  std::string exposure_warning_;
  std::vector<std::pair<Protocol::endpoint, std::string>> connect_endpoints_;
  // AcceptWithin: its bound ran out (no debugger attached in time).
  bool suspend_timed_out_ = false;
  bool loopback_only_ = false;  // set by Bind (TCP only: a Unix socket is no port)
  uint64_t last_epoch_ = 0;
  // The socket in the middle of a handshake, so that Shutdown/timeouts can close it.
  std::weak_ptr<Socket> handshaking_;
  std::weak_ptr<Socket> connecting_;
  bool running_ = false;  // inside Run()
  bool accept_timed_out_ = false;
  bool connect_timed_out_ = false;
  TransportError connect_error_;
  std::string accept_error_;
  std::shared_ptr<asio::steady_timer> accept_retry_timer_;
  // sessions=1: set while a connection waits for the attached session's end;
  // EndSession and CloseAll cancel it.
  std::shared_ptr<asio::steady_timer> session_end_timer_;
  // timeout= while Run() listens with no debugger (stock's accept timeout).
  std::unique_ptr<Deadline> listen_deadline_;
  void ArmListenDeadline();
};

}  // namespace jdwpx::transport::dt_socket
