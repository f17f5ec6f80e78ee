#include "tools/probe/client.h"

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "jdwp/byte_order.h"

namespace jdwpx::tools::probe {
namespace {

// The largest packet we take: a snapshot of 20 frames with deep objects is far below it.
constexpr uint32_t kMaxPacket = 64u << 20;

}  // namespace

bool NamesJdwpx(std::string_view description) {
  for (size_t at = 0; at <= description.size();) {
    size_t end = description.find('\n', at);
    if (end == std::string_view::npos) end = description.size();
    if (description.substr(at, end - at) == kJdwpxVersionLine) return true;
    at = end + 1;
  }
  return false;
}

bool Client::SendHandshake() {
  return WriteAll(std::vector<uint8_t>(jdwp::kHandshake.begin(), jdwp::kHandshake.end()));
}

bool Client::WriteAll(const std::vector<uint8_t>& bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    // MSG_NOSIGNAL: a peer gone is an error here, not a SIGPIPE (every stream is a socket).
    const ssize_t n = send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

Client::ReadStatus Client::ReadAvailable() {
  uint8_t buffer[64 * 1024];
  ssize_t n;
  do n = recv(fd_, buffer, sizeof buffer, MSG_DONTWAIT);
  while (n < 0 && errno == EINTR);
  if (n == 0) return ReadStatus::kEnd;
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return ReadStatus::kMore;
    read_error_ = std::strerror(errno);
    return errno == ECONNRESET ? ReadStatus::kEnd : ReadStatus::kError;
  }
  input_.insert(input_.end(), buffer, buffer + n);
  return ReadStatus::kMore;
}

bool Client::HandshakeDone(std::string& problem) {
  if (handshake_seen_) return true;
  const size_t size = jdwp::kHandshake.size();
  const size_t have = std::min(input_.size(), size);
  if (!std::equal(input_.begin(), input_.begin() + static_cast<std::ptrdiff_t>(have), jdwp::kHandshake.begin())) {
    problem = "not a JDWP endpoint (its answer to the handshake is not JDWP-Handshake)";
    return false;
  }
  if (input_.size() < size) return false;
  input_.erase(input_.begin(), input_.begin() + static_cast<std::ptrdiff_t>(size));
  handshake_seen_ = true;
  return true;
}

std::optional<ReceivedPacket> Client::NextPacket(std::string& problem) {
  if (input_.size() < jdwp::kHeaderSize) return std::nullopt;
  const uint32_t length = jdwp::GetBigEndian32(input_.data());
  if (length < jdwp::kHeaderSize || length > kMaxPacket) {
    problem = "a packet with a length of " + std::to_string(length) + " bytes";
    return std::nullopt;
  }
  if (input_.size() < length) return std::nullopt;
  ReceivedPacket received;
  received.bytes.assign(input_.begin(), input_.begin() + length);
  input_.erase(input_.begin(), input_.begin() + length);
  auto packet = jdwp::ParsePacket(received.bytes);
  if (!packet) {
    problem = "a malformed packet: " + packet.error().detail;
    return std::nullopt;
  }
  received.packet = *packet;
  return received;
}

}  // namespace jdwpx::tools::probe
