// Writing: Send() writes a packet at once on the calling thread (the command
// thread's reply, the reporter's event) when nothing is queued before it and
// no write is under way: one non-blocking send(2), no hop to the I/O thread.
// What does not fit in the socket buffer (and everything sent while the rest
// waits) is queued for the I/O thread's writer, in order. The session's
// write_mu guards the queue, the writer state and the socket's close, so a
// direct write never reaches a closed (or reused) descriptor.
// A packet sent in parts (SendInParts: a reply too big to build whole) goes
// the same way, part by part: a part is written directly when the writer is
// idle, else queued; its maker waits (PartsWriter::Write) while more than
// kPartsWindow bytes are queued, until the writer drains them or the session
// ends; or, given an on_room call back, never waits: it asks Full(), and is
// called back (room_waiter) when the writer has drained the queue to within
// kPartsWindow, the session ended or the transport stops. While its parts
// come, Send()'s packets wait in `held` and follow its last part, so nothing
// gets between its bytes on the wire. Beyond kSendWindow
// bytes queued and held, Send() holds its caller back too (for a while: see
// transport.h).
#include "transport/socket_transport.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>

#include "jdwp/packet.h"

namespace jdwpx::transport::dt_socket {

void SocketTransport::WriteNext(const std::shared_ptr<Session>& session) {
  if (session->ended) return;
  // Everything queued, up to a batch, in one write: a debugger that reads
  // slower than probes or events come costs one system call per batch rather
  // than one per packet.
  std::vector<asio::const_buffer> batch;
  size_t size = 0;
  {
    std::unique_lock lock(session->write_mu);
    if (session->queue.empty()) {
      session->writing = false;
      // A packet still getting its parts is not drained (EndPartsLocked closes then).
      const bool close = session->close_when_drained && !session->in_parts;
      lock.unlock();
      if (close) EndSession(session, "connection closed by the agent");
      return;
    }
    session->writing = true;
    // The elements stay put while other threads push_back (a deque keeps
    // references); only this thread pops them.
    for (const Outgoing& out : session->queue) {
      const size_t skip = batch.empty() ? session->front_written : 0;
      batch.emplace_back(out.bytes.data() + skip, out.bytes.size() - skip);
      size += out.bytes.size() - skip;
      if (batch.size() == kWriteBatchPackets || size >= kWriteBatchBytes) break;
    }
  }
  if (log_) log_->trace("-> {} packet(s) len={}", batch.size(), size);
  const size_t count = batch.size();
  asio::async_write(session->socket, batch, [this, session, size, count](const asio::error_code& ec, size_t) {
    if (session->ended) return;
    if (ec) {
      EndSession(session, "send failed: " + ec.message());
      return;
    }
    size_t packets_done = 0;
    std::function<void()> on_room;
    {
      std::lock_guard lock(session->write_mu);
      for (size_t i = 0; i < count; ++i) {
        // The last byte is written: the moment a protocol trace times a reply by.
        const Outgoing& front = session->queue.front();
        if (front.kind == Outgoing::Kind::kWhole) {
          Notify([&] { listener_->OnWritten(session->epoch, front.bytes, front.bytes.size()); });
        } else if (front.kind == Outgoing::Kind::kLastPart) {
          Notify([&] { listener_->OnWritten(session->epoch, front.header, front.packet_length); });
        }
        if (front.kind != Outgoing::Kind::kPart) ++packets_done;
        session->queue.pop_front();
        session->front_written = 0;
      }
      session->queued_bytes -= std::min(size, session->queued_bytes);
      on_room = TakeRoomWaiterLocked(*session);
    }
    session->parts_cv.notify_all();
    if (on_room) Notify(on_room);
    PacketsDone(packets_done);
    WriteNext(session);
  });
}

void SocketTransport::SendLocked(const std::shared_ptr<Session>& session, Outgoing out, bool soon) {
  size_t written = 0;
  if (!soon && session->direct_ok && !session->writing && session->queue.empty()) {
    const int fd = session->socket.native_handle();
    const std::vector<uint8_t>& bytes = out.bytes;
    int error = 0;
    while (written < bytes.size()) {
      ssize_t n = ::send(fd, bytes.data() + written, bytes.size() - written, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (n > 0) {
        written += static_cast<size_t>(n);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else {
        error = n < 0 ? errno : EPIPE;
        break;
      }
    }
    if (written == bytes.size()) {
      if (log_) log_->trace("-> packet len={} (direct)", bytes.size());
      if (out.kind == Outgoing::Kind::kWhole) {
        Notify([&] { listener_->OnWritten(session->epoch, bytes, bytes.size()); });
      } else if (out.kind == Outgoing::Kind::kLastPart) {
        Notify([&] { listener_->OnWritten(session->epoch, out.header, out.packet_length); });
        PacketsDone(1);  // counted by SendInParts
      }
      return;
    }
    if (error != EAGAIN && error != EWOULDBLOCK) {
      // The peer is gone: the reader sees it too; the I/O thread ends the
      // session, and nothing more is written meanwhile.
      session->close_when_drained = true;
      session->broken = true;
      if (out.kind == Outgoing::Kind::kLastPart) PacketsDone(1);  // dropped
      asio::post(io_, [this, session, error] {
        EndSession(session, "send failed: " + std::error_code(error, std::generic_category()).message());
      });
      return;
    }
    // The socket buffer is full: the writer sends the rest when it drains.
    session->front_written = written;
  }
  if (out.kind == Outgoing::Kind::kWhole) {
    std::lock_guard lock(unwritten_mu_);
    ++unwritten_;
  }
  session->queued_bytes += out.bytes.size() - written;
  session->queue.push_back(std::move(out));
  if (!session->direct_ok || session->writing) return;
  if (!soon) {
    session->writing = true;
    asio::post(io_, [this, session] { WriteNext(session); });
  } else if (!session->flush_pending) {
    // The writer takes it with whatever comes within the delay (or at once
    // when a Send comes first).
    session->flush_pending = true;
    asio::post(io_, [this, session] { FlushSoon(session); });
  }
}

void SocketTransport::EndPartsLocked(const std::shared_ptr<Session>& session) {
  session->in_parts = false;
  // Counted in unwritten_ when Send() held them back.
  for (auto& packet : session->held) {
    session->queued_bytes += packet.size();
    session->queue.push_back(Outgoing{std::move(packet)});
  }
  session->held.clear();
  session->held_bytes = 0;
  if (session->direct_ok && !session->writing) {
    if (!session->queue.empty()) {
      session->writing = true;
      asio::post(io_, [this, session] { WriteNext(session); });
    } else if (session->close_when_drained && !session->broken) {
      // CloseConnection came while the parts did: everything is written now.
      asio::post(io_, [this, session] { EndSession(session, "connection closed by the agent"); });
    }
  }
  session->parts_cv.notify_all();  // a SendInParts waiting for its turn
}

void SocketTransport::PacketsDone(size_t n) {
  if (n == 0) return;
  {
    std::lock_guard lock(unwritten_mu_);
    unwritten_ -= std::min(n, unwritten_);
  }
  unwritten_cv_.notify_all();
}

std::shared_ptr<Session> SocketTransport::AttachedSession(uint64_t epoch) {
  if (epoch == 0 || stopping_) return nullptr;
  std::lock_guard lock(direct_mu_);
  auto found = sessions_.find(epoch);
  return found != sessions_.end() ? found->second : nullptr;
}

void SocketTransport::Send(uint64_t epoch, std::vector<uint8_t> packet) {
  SendPacket(epoch, std::move(packet), false);
}

bool SocketTransport::SendSoon(uint64_t epoch, std::vector<uint8_t> packet) {
  return SendPacket(epoch, std::move(packet), true, false);
}

bool SocketTransport::SendUnheld(uint64_t epoch, std::vector<uint8_t> packet) {
  return SendPacket(epoch, std::move(packet), false, false);
}

bool SocketTransport::Backlogged(uint64_t epoch) {
  const std::shared_ptr<Session> session = AttachedSession(epoch);
  if (!session || !holding_back_) return false;
  std::lock_guard lock(session->write_mu);
  return !session->closed && !session->broken && !session->close_when_drained &&
         session->queued_bytes + session->held_bytes > kSendWindow;
}

bool SocketTransport::SendPacket(uint64_t epoch, std::vector<uint8_t> packet, bool soon, bool hold) {
  try {
    const std::shared_ptr<Session> session = AttachedSession(epoch);
    if (!session) return false;
    const bool reply = packet.size() > 8 && (packet[8] & jdwp::kReplyFlag) != 0;
    std::unique_lock lock(session->write_mu);
    if (session->closed || session->close_when_drained || session->broken) return false;
    if (session->in_parts) {
      // After the packet in parts (EndPartsLocked).
      {
        std::lock_guard count(unwritten_mu_);
        ++unwritten_;
      }
      session->held_bytes += packet.size();
      session->held.push_back(std::move(packet));
    } else {
      SendLocked(session, Outgoing{std::move(packet)}, soon);
    }
    // A debugger that reads nothing (transport.h, kSendWindow). The I/O thread,
    // which drains, never waits.
    auto within = [&] {
      return session->closed || session->broken || stopping_ || !holding_back_ ||
             session->queued_bytes + session->held_bytes <= kSendWindow;
    };
    if (!hold) return !within();
    if (!reply && !within() && !io_.get_executor().running_in_this_thread()) {
      session->parts_cv.wait_for(lock, kSendHoldBack, within);
    }
  } catch (...) {
    if (log_) log_->error("Send failed to queue a packet");
  }
  return false;
}

void SocketTransport::FlushSoon(const std::shared_ptr<Session>& session) {
  if (session->ended) return;
  if (!session->flush_timer) session->flush_timer.emplace(io_);
  session->flush_timer->expires_after(kSendSoonDelay);
  session->flush_timer->async_wait([this, session](const asio::error_code&) {
    bool start = false;
    {
      std::lock_guard lock(session->write_mu);
      session->flush_pending = false;
      // A Send may have started the writer meanwhile; it takes these along.
      if (!session->writing && !session->queue.empty()) {
        session->writing = true;
        start = true;
      }
    }
    if (start) WriteNext(session);
  });
}

std::function<void()> SocketTransport::TakeRoomWaiterLocked(Session& session) {
  if (!session.room_waiter) return {};
  if (!session.closed && !session.broken && !stopping_ && session.queued_bytes > kPartsWindow) return {};
  return std::exchange(session.room_waiter, {});
}

// SendInParts' writer. Its maker (the command thread) waits in Write() while
// the writer has more than kPartsWindow bytes queued; the session's end and
// Shutdown() wake it. Given an on_room, it never waits: Full() tells the
// maker to stop, and on_room (room_waiter) when to go on.
class PartsWriter final : public PacketWriter {
 public:
  // Without a session: nowhere to write (Write() says so).
  PartsWriter(SocketTransport* transport, std::shared_ptr<Session> session, size_t length,
              std::function<void()> on_room)
      : transport_(transport), session_(std::move(session)), length_(length), on_room_(std::move(on_room)) {}

  ~PartsWriter() override {
    if (!session_) return;
    if (on_room_) {
      // Nobody to call back any more.
      std::lock_guard lock(session_->write_mu);
      session_->room_waiter = nullptr;
    }
    if (given_ == length_) return;
    try {
      std::lock_guard lock(session_->write_mu);
      if (session_->closed) return;
      // Cut short: the debugger would wait forever for the rest. What Send()
      // held back goes with the session.
      session_->broken = true;
      asio::post(transport_->io_, [transport = transport_, session = session_] {
        transport->EndSession(session, "a reply was cut short");
      });
    } catch (...) {
      if (transport_->log_) transport_->log_->error("could not end a session whose reply was cut short");
    }
  }

  bool Write(std::vector<uint8_t> part) override {
    if (!session_ || part.empty()) return session_ != nullptr;
    std::unique_lock lock(session_->write_mu);
    if (session_->closed || session_->broken) return false;
    if (part.size() > length_ - given_ || (given_ == 0 && part.size() < jdwp::kHeaderSize)) {
      if (transport_->log_) transport_->log_->error("a packet in parts got more bytes than its length, or no header");
      return false;  // ~PartsWriter ends the session
    }
    if (given_ == 0) std::copy_n(part.begin(), jdwp::kHeaderSize, header_.begin());
    given_ += part.size();
    const bool last = given_ == length_;
    Outgoing out{std::move(part), last ? Outgoing::Kind::kLastPart : Outgoing::Kind::kPart};
    if (last) {
      out.header = header_;
      out.packet_length = length_;
    }
    transport_->SendLocked(session_, std::move(out));
    if (last) {
      transport_->EndPartsLocked(session_);
      return !session_->closed && !session_->broken;
    }
    if (on_room_) return !session_->closed && !session_->broken && !transport_->stopping_;
    session_->parts_cv.wait(lock, [&] {
      return session_->closed || session_->broken || transport_->stopping_ || session_->queued_bytes <= kPartsWindow;
    });
    return !session_->closed && !session_->broken && !transport_->stopping_;
  }

  bool Full() override {
    if (!session_ || !on_room_) return false;
    std::lock_guard lock(session_->write_mu);
    // Ended: the next Write() says so.
    if (session_->closed || session_->broken || transport_->stopping_) return false;
    if (session_->queued_bytes <= kPartsWindow) return false;
    session_->room_waiter = on_room_;
    return true;
  }

 private:
  SocketTransport* const transport_;
  const std::shared_ptr<Session> session_;
  const size_t length_;
  const std::function<void()> on_room_;
  size_t given_ = 0;
  std::array<uint8_t, jdwp::kHeaderSize> header_{};
};

std::unique_ptr<PacketWriter> SocketTransport::SendInParts(uint64_t epoch, size_t length,
                                                          std::function<void()> on_room) {
  std::shared_ptr<Session> session = length < jdwp::kHeaderSize ? nullptr : AttachedSession(epoch);
  if (!session) return std::make_unique<PartsWriter>(this, nullptr, length, nullptr);
  std::unique_lock lock(session->write_mu);
  session->parts_cv.wait(lock, [&] { return !session->in_parts || session->closed || stopping_; });
  if (session->closed || session->close_when_drained || session->broken || stopping_) {
    return std::make_unique<PartsWriter>(this, nullptr, length, nullptr);
  }
  session->in_parts = true;
  {
    // One packet for Flush, however many parts.
    std::lock_guard count(unwritten_mu_);
    ++unwritten_;
  }
  return std::make_unique<PartsWriter>(this, std::move(session), length, std::move(on_room));
}

void SocketTransport::WakeWaitingWriters() {
  std::vector<std::function<void()>> on_room;
  {
    std::lock_guard lock(direct_mu_);
    for (const auto& [epoch, session] : sessions_) {
      std::lock_guard write(session->write_mu);
      session->parts_cv.notify_all();
      if (auto call = TakeRoomWaiterLocked(*session)) on_room.push_back(std::move(call));
    }
  }
  for (auto& call : on_room) Notify(call);
}

void SocketTransport::StopHoldingBack() {
  holding_back_ = false;
  WakeWaitingWriters();
}

bool SocketTransport::Flush(std::chrono::milliseconds timeout) {
  std::unique_lock lock(unwritten_mu_);
  return unwritten_cv_.wait_for(lock, timeout, [&] { return unwritten_ == 0 || stopping_; });
}

}  // namespace jdwpx::transport::dt_socket
