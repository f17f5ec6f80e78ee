// Transport::SendInParts for transports that take whole packets only (a
// transport library's WritePacket): the parts are gathered into one packet,
// sent with Send() after the last one. It holds the whole packet, as the
// replies built whole do.
#include <algorithm>

#include "transport/transport.h"

namespace jdwpx::transport {
namespace {

class GatheredPacket final : public PacketWriter {
 public:
  GatheredPacket(Transport& transport, uint64_t session, size_t length)
      : transport_(transport), session_(session), length_(length) {
    packet_.reserve(length);
  }

  ~GatheredPacket() override {
    // Cut short: the debugger would wait forever for this reply.
    if (!sent_) transport_.CloseConnection(session_);
  }

  bool Write(std::vector<uint8_t> part) override {
    if (sent_ || packet_.size() + part.size() > length_) return false;
    packet_.insert(packet_.end(), part.begin(), part.end());
    if (packet_.size() == length_) {
      sent_ = true;
      transport_.Send(session_, std::move(packet_));
    }
    return true;
  }

 private:
  Transport& transport_;
  const uint64_t session_;
  const size_t length_;
  std::vector<uint8_t> packet_;
  bool sent_ = false;
};

}  // namespace

std::unique_ptr<PacketWriter> Transport::SendInParts(uint64_t session, size_t length, std::function<void()>) {
  // Write() never waits here: no call back is needed.
  return std::make_unique<GatheredPacket>(*this, session, length);
}

}  // namespace jdwpx::transport
