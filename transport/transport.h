// The debugger connection: dt_socket over asio, or any other transport=<name>
// through the JDK's transport library interface (jdwpTransport.h, lib<name>.so;
// library_transport.cc). This header is the only part of transport/ that
// backend/ sees; asio never leaks through it.
//
// Threading: Run() is called on one agent thread and runs a single-threaded
// io_context (the acceptor; per connection a socket, one reader, one writer).
// The Listener callbacks run on that thread and must not block. Send() and
// CloseConnection() may be called from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <functional>
#include <span>
#include <vector>

#include <tl/expected.hpp>

namespace jdwpx::transport {

struct Config {
  // transport=: "dt_socket" is ours (asio); any other name loads lib<name>.so,
  // first from `library_path` (the JDK's sun.boot.library.path, ':'-separated),
  // then through the system's library search, as stock does.
  std::string name = "dt_socket";
  std::string library_path;
  void* java_vm = nullptr;  // JavaVM*, handed to the library's jdwpTransport_OnLoad
  bool server = false;      // server=y: listen; server=n: attach to a listening debugger
  std::string address;      // port, host:port, :port, *:port, [v6]:port, 0; empty in server mode = ephemeral on loopback
  std::string allow;        // allow= value: '+'-separated addresses / CIDR prefixes, or "*"; empty = anyone
  int64_t timeout_ms = 0;   // timeout= : accept (server) / attach (client) timeout; 0 = wait forever
  int64_t handshake_timeout_ms = 2000;  // handshaketimeout= (ours); stock's fixed 2 s by default
  // address=unix:<path> (ours): peers are accepted only with the JVM's own uid
  // (SO_PEERCRED); root peers too with unixroot=y.
  bool unix_root = false;
  // sessions=N (ours, 1..16): server mode keeps up to this many debuggers
  // attached at once, each a connection of its own with its own session number;
  // one more is closed after its handshake (Run()). 1 is stock's one debugger.
  // dt_socket only: a transport library serves one connection whatever this says.
  int max_sessions = 1;
};

// Keepalive on every TCP session socket (ours; stock sets none), so that a
// vanished peer is noticed and idle NAT/conntrack entries on the way stay
// alive: first probe after 30 s idle, then every 10 s, dead after 6 unanswered.
inline constexpr int kKeepAliveIdleS = 30;
inline constexpr int kKeepAliveIntervalS = 10;
inline constexpr int kKeepAliveCount = 6;

// The prefix of address= that selects a Unix-domain socket (ours).
inline constexpr std::string_view kUnixPrefix = "unix:";

// A failure in the stock agent's terms: `code` is the transport error number
// (202 = I/O error, 103 = illegal argument, ...), `message` the text after
// "ERROR: transport error <code>: ".
struct TransportError {
  int code = 0;
  std::string message;
  // A line stock prints on stderr just before its "ERROR: transport error"
  // line (only for a malformed allow=: "Error in allow option: '33'"); empty
  // otherwise.
  std::string preceding_line;
  // A transport library's own failure texts (stock prints them as "ERROR: <message>",
  // without "transport error <code>: "): the library or its entry point missing,
  // a version it refuses. `code` is 0 then.
  bool plain = false;
  // The library or its jdwpTransport_OnLoad is missing: stock's TRANSPORT_LOAD,
  // which is fatal (JNI FatalError) rather than TRANSPORT_INIT's exit(2).
  bool load_failed = false;
};

// A transport library that cannot be used: stock's error (plain, load_failed)
// and, for people, the file and where it was looked for.
struct LibraryProblem {
  TransportError error;
  std::string where;  // "libdt_x.so not found: looked in /jdk/lib (sun.boot.library.path), then ..."
};

// transport=<name> other than dt_socket, looked for as Open() will (Config's
// library_path, then the system's search), before anything starts. nullopt when
// lib<name>.so loads and has jdwpTransport_OnLoad; the library then stays
// loaded, and Open() gets the same one.
[[nodiscard]] std::optional<LibraryProblem> CheckLibrary(const std::string& name, const std::string& library_path);

// The transport error numbers stock uses (jdwpTransport.h's jdwpTransportError).
inline constexpr int kErrorIllegalArgument = 103;
inline constexpr int kErrorIllegalState = 201;
inline constexpr int kErrorIo = 202;
inline constexpr int kErrorTimeout = 203;
// AcceptWithin's bound ran out (ours; not a jdwpTransport code).
inline constexpr int kErrorSuspendTimeout = -203;

// How long a debugger that connects while another is attached waits for that
// one's end before it is refused.
inline constexpr int64_t kWaitForSessionEndMs = 5000;

class Listener {
 public:
  virtual ~Listener() = default;
  // The handshake with a debugger completed; packets follow. `session` numbers
  // the connection (never 0, never reused): Send and CloseConnection name it, so
  // that nothing meant for one debugger reaches the next. `handshake`: from the
  // accept (or connect) to the handshake's end; zero when not known.
  virtual void OnAttached(const std::string& peer, uint64_t session, std::chrono::nanoseconds handshake) = 0;
  // One whole packet of connection `session`, header included, in arrival order.
  virtual void OnPacket(uint64_t session, std::vector<uint8_t> packet) = 0;
  // Connection `session` ended (peer closed, I/O error, CloseConnection()).
  virtual void OnDetached(uint64_t session, const std::string& reason) = 0;
  // Something worth a log line at warning level (refused peer, failed handshake).
  // Texts are whole lines in stock's words where stock has them, e.g.
  //   "Debugger failed to attach: handshake failed - received >GET / HTTP/1.1< - expected >JDWP-Handshake<"
  //   "Debugger failed to attach: timeout during handshake"
  //   "Debugger failed to attach: ERROR: Peer not allowed to connect: 127.0.0.1"
  //   "Badly formed packet received - invalid length 5"
  // (stock prints the first three on stderr and keeps listening).
  virtual void OnWarning(const std::string& message) = 0;
  // A packet has just been written to connection `session`, its last byte
  // included (for the protocol trace; must be cheap). `bytes`: the whole packet, or for
  // one sent in parts (SendInParts) its header only, since its parts are gone
  // by then; `length`: the whole packet's.
  virtual void OnWritten(uint64_t session, std::span<const uint8_t> bytes, size_t length) {}
  // Server mode, while Run() listens with no debugger attached: timeout= ran out
  // (code 203) or accepting failed. Stock ends the VM then ("could not connect"),
  // also with suspend=n and after a debugger has left.
  virtual void OnAcceptFailed(const TransportError& error) {}
};

// One packet given in parts (Transport::SendInParts).
class PacketWriter {
 public:
  virtual ~PacketWriter() = default;
  // The packet's next bytes, in order; the first part starts with its header.
  // Without an `on_room` (SendInParts), may wait while more than kPartsWindow
  // bytes of the connection are unwritten (a debugger reading slower than the
  // parts are made); with one, never waits. False once the connection has
  // ended (or was gone before): the rest would be dropped, so stop making it.
  [[nodiscard]] virtual bool Write(std::vector<uint8_t> part) = 0;
  // With an `on_room`: whether more than kPartsWindow bytes of the connection
  // are unwritten, so that the maker should make no part now. When true,
  // `on_room` is called once, on whatever thread drains or ends the connection
  // (the I/O thread, Shutdown's), as soon as no more than kPartsWindow are
  // unwritten or the connection has ended; it must not block. Always false
  // without an `on_room`, and where Write() never waits.
  [[nodiscard]] virtual bool Full() { return false; }
};

// dt_socket: the most bytes of a connection waiting to be written before
// PacketWriter::Write waits; with the part being made, all of a streamed
// reply the agent holds at any time.
inline constexpr size_t kPartsWindow = size_t{1} << 20;

// dt_socket: the most bytes of a connection waiting to be written before Send()
// holds its caller back, and for how long at most per packet. A debugger that
// stops reading (a hung IDE, a stalled tunnel) must not make the VM keep its
// output without bound; stock's event threads wait beyond 50 KB, for good. The
// bound on the wait keeps anything from waiting on the debugger for ever: a
// debugger that reads nothing lets each sender (the reporter, an event thread
// with its own event) add a packet a second; the backend holds the application
// threads behind them (backend/events/event_reporter.h).
inline constexpr size_t kSendWindow = size_t{4} << 20;
// How long SendSoon's packet may wait for others to go with it.
inline constexpr std::chrono::microseconds kSendSoonDelay{1000};
inline constexpr std::chrono::milliseconds kSendHoldBack{1000};

class Transport {
 public:
  virtual ~Transport() = default;

  // Server mode: resolves and binds now, so that bind errors surface at startup.
  // Client mode: resolves the address now; the connect happens in Attach().
  static tl::expected<std::unique_ptr<Transport>, TransportError> Open(const Config& config, Listener* listener);

  // The port actually bound (server mode), for "Listening for transport dt_socket at address: <port>".
  virtual uint16_t port() const = 0;

  // What to announce (the Listening line, launch=, sun.jdwp.listenerAddress):
  // the port for dt_socket, the address a transport library reports (a new one
  // once it listens again, before Listener::OnDetached). Safe from any thread.
  virtual std::string address() const { return std::to_string(port()); }

  // Server mode: the bound endpoint for people ("127.0.0.1:5005", "[::]:5005",
  // "unix:/run/app/jdwp.sock"). Safe from any thread.
  virtual std::string endpoint_text() const { return address(); }

  // Server mode: a one-line warning when the listening socket can be reached
  // from other hosts (not loopback, not a Unix socket) and no allow= limits
  // who may connect; empty otherwise.
  virtual std::string exposure_warning() const { return {}; }

  // Server mode: the listening socket accepts only loopback connections (address=5005,
  // localhost:5005), so nothing outside this host (or this container) can reach it.
  virtual bool listens_on_loopback_only() const { return false; }

  // Client mode only, before Run(): connects and handshakes, blocking, honouring timeout_ms.
  virtual tl::expected<void, TransportError> Attach() = 0;

  // Server mode only, before Run(): waits for one debugger to connect and complete
  // the handshake (used for suspend=y), honouring timeout_ms. Refused peers and
  // failed handshakes are reported through OnWarning and waiting goes on.
  virtual tl::expected<void, TransportError> Accept() = 0;

  // Accept(), but also gives up after `wait_ms` (suspendtimeout=), returning
  // 203 "suspend timeout" with the transport still listening for Run(); calls
  // `waiting` at once and every `every_ms` while no debugger is attached.
  // timeout= still applies. Transport libraries ignore the bound.
  virtual tl::expected<void, TransportError> AcceptWithin(int64_t wait_ms, int64_t every_ms,
                                                          const std::function<void()>& waiting) {
    (void)wait_ms;
    (void)every_ms;
    if (waiting) waiting();
    return Accept();
  }

  // Runs the I/O loop on the calling thread until Shutdown(). In server mode it
  // listens on the same address for its whole life. With max_sessions 1 a
  // debugger that connects while one is attached waits (at most
  // kWaitForSessionEndMs) for that one to end, as when it reconnects while its
  // previous connection is still being closed; then it is refused (OnWarning).
  // With max_sessions N > 1 debuggers are accepted while fewer than N are
  // attached, each served independently (its packets to OnPacket with its
  // session number, its end to OnDetached once); one that finds N attached
  // once its handshake is done is closed, with an OnWarning starting
  // "Debugger failed to attach", and the others go on undisturbed. timeout=
  // (OnAcceptFailed) runs only while no debugger at all is attached.
  // In client mode Run() returns when the connection ends.
  virtual void Run() = 0;

  // Sends one whole packet to connection `session`; dropped unless that one is
  // still attached; packets keep the order of the Send() calls. dt_socket
  // writes on the calling thread when nothing is being written (no hop to the
  // I/O thread), else queues behind what is; beyond kSendWindow unwritten bytes
  // (a debugger that does not read) the caller of a command or event packet
  // waits until they are back under it, at most kSendHoldBack per packet (a
  // reply is never held: the debugger's commands bound them). A transport
  // library writes on the calling thread, as stock.
  virtual void Send(uint64_t session, std::vector<uint8_t> packet) = 0;
  // Send for a packet that nobody waits on (probe output): it may wait up to
  // kSendSoonDelay to go out in one write with the ones that follow it, so
  // that a probe's thousands of lines a second cost a system call a batch
  // rather than a trip through the TCP stack each. Same order and drops as
  // Send; a Send behind it takes it along at once. It never holds its caller
  // back (a thread of the program, hitting a probe): it answers whether the
  // connection is backlogged now, as SendUnheld does, so that the sender
  // sends no more until it is not. By default it is Send.
  virtual bool SendSoon(uint64_t session, std::vector<uint8_t> packet) {
    Send(session, std::move(packet));
    return false;
  }
  // Send that never holds its caller back, for a sender serving several
  // debuggers (the event reporter with sessions=N). Answers whether the
  // connection is backlogged now (Backlogged), so that the sender sends it
  // nothing more until it is not: one debugger that reads nothing then holds
  // back none of the others' packets.
  virtual bool SendUnheld(uint64_t session, std::vector<uint8_t> packet) {
    Send(session, std::move(packet));
    return false;
  }
  // Whether Send would hold its caller back now: more than kSendWindow bytes of
  // connection `session` unwritten (never from the VM's death on). Any thread.
  virtual bool Backlogged(uint64_t session) { return false; }

  // Sends one packet of `length` bytes (header included) to connection
  // `session` as the parts given to the returned writer, contiguous on the
  // wire: what Send() gets meanwhile (events) follows the packet's last part.
  // One packet in parts at a time: a second SendInParts waits until the first
  // has all its parts. A writer destroyed before `length` bytes were given ends
  // the connection (the debugger would wait forever for the rest). dt_socket
  // writes parts as they come, on the calling thread when the writer is idle,
  // and holds back the maker (PacketWriter::Write) beyond kPartsWindow; the
  // connection's end or Shutdown() releases it. With `on_room`, the maker is
  // never held back: it asks PacketWriter::Full() before each part and, told
  // to stop, is called back (`on_room`) when it may go on; meanwhile its
  // thread is free for other connections' work (the command thread serving
  // several debuggers). This default, for transport libraries
  // (jdwpTransport's WritePacket takes whole packets), gathers the parts and
  // Send()s the whole packet after its last one (never Full()).
  std::unique_ptr<PacketWriter> SendInParts(uint64_t session, size_t length) { return SendInParts(session, length, {}); }
  virtual std::unique_ptr<PacketWriter> SendInParts(uint64_t session, size_t length, std::function<void()> on_room);

  // Waits until every packet queued so far, on every connection, is written (or
  // dropped because its connection ended), at most `timeout`. False on timeout. For VM death: the
  // process exits right after, and the last packets must reach the debugger.
  virtual bool Flush(std::chrono::milliseconds timeout) = 0;

  // Send() holds back no caller from now on (VM death: memory no longer
  // matters, and the exit must not wait on a debugger that reads nothing).
  virtual void StopHoldingBack() {}

  // Ends connection `session` after its queued packets are written (Dispose);
  // OnDetached follows. No-op when that connection has already ended (another
  // debugger may be attached by then). Server mode keeps listening.
  virtual void CloseConnection(uint64_t session) = 0;

  // Stops Run() and closes everything; safe from any thread, idempotent.
  // Each attached debugger gets OnDetached("transport shut down"). Destroy the
  // Transport only after Run() (and any Accept()/Attach()) has returned.
  virtual void Shutdown() = 0;
};

}  // namespace jdwpx::transport
