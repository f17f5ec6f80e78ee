// One JDWP conversation from the debugger's side over a connected descriptor:
// the handshake, typed commands out, whole packets in. It never blocks on
// reading: the run's poll loop calls ReadAvailable when the descriptor is
// readable, then takes what is whole.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "jdwp/codec.h"
#include "jdwp/commands/probe.h"
#include "jdwp/packet.h"

namespace jdwpx::tools::probe {

// A whole packet, header included, and its parsed view into `bytes`.
struct ReceivedPacket {
  std::vector<uint8_t> bytes;
  jdwp::Packet packet;
};

// VirtualMachine.Version's description names a jdwpx agent on a line of its
// own (backend/commands/virtual_machine.cc). A client must see it before it
// sends any Probe command: the JDK's agent aborts the JVM on a command set of
// 128 and up (its dispatcher indexes its table with a signed byte).
inline constexpr std::string_view kJdwpxVersionLine = jdwp::Probe::kVersionLine;
bool NamesJdwpx(std::string_view version_description);

class Client {
 public:
  explicit Client(int fd) : fd_(fd) {}

  // Writes are small (commands), so they are written whole, blocking.
  bool SendHandshake();
  // The command's packet ID, or nullopt when the stream is gone.
  template <class Command>
  std::optional<uint32_t> Send(const typename Command::Request& request) {
    const std::vector<uint8_t> body = jdwp::EncodeBody(request);
    const uint32_t id = next_id_++;
    if (!WriteAll(jdwp::MakeCommandPacket(id, Command::kId, body))) return std::nullopt;
    return id;
  }

  enum class ReadStatus { kMore, kEnd, kError };
  // Reads what the descriptor has now (the caller polled it readable).
  ReadStatus ReadAvailable();
  // After the handshake was sent: true once the peer's 14 bytes arrived; a wrong
  // answer sets `problem`.
  bool HandshakeDone(std::string& problem);
  // The next whole packet; nullopt until one is whole. A malformed header sets `problem`.
  std::optional<ReceivedPacket> NextPacket(std::string& problem);

  const std::string& read_error() const { return read_error_; }

 private:
  bool WriteAll(const std::vector<uint8_t>& bytes);

  int fd_;
  uint32_t next_id_ = 1;
  bool handshake_seen_ = false;
  std::vector<uint8_t> input_;
  std::string read_error_;
};

}  // namespace jdwpx::tools::probe
