// The command table: typed handlers bound into an untyped table keyed by
// (command set, command). The dispatcher alone owns the protocol's edges:
// unknown command -> NOT_IMPLEMENTED, VM dead -> VM_DEAD, malformed body ->
// error reply, reply header with the request's id and a body only on success.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <type_traits>
#include <unordered_map>
#include <variant>
#include <vector>

#include "jdwp/codec.h"
#include "jdwp/packet.h"
#include "backend/log.h"
#include "backend/values/reply_source.h"

namespace jdwpx::backend {

// The reply to a command whose data is short or malformed. The spec names no
// error for it; the stock agent answers INTERNAL, and so do we.
inline constexpr jdwp::ErrorCode kMalformedBody = jdwp::ErrorCode::kInternal;

// A body whose failure is a negative repeat count: malformed, except where the
// spec names ILLEGAL_ARGUMENT for it (and stock checks it): such a command
// declares `static constexpr bool kNegativeCountIsIllegal = true`.
template <class Cmd>
constexpr jdwp::ErrorCode MalformedBodyError(bool negative_count) {
  if constexpr (requires { Cmd::kNegativeCountIsIllegal; }) {
    if (negative_count) return jdwp::ErrorCode::kIllegalArgument;
  }
  return kMalformedBody;
}

// Sends the reply of one command (exactly once), in one of two ways:
//  - respond(error, body): a body starts with jdwp::kHeaderSize bytes of room
//    for the packet header (jdwp::MakeReplyPacketIn writes it there: a huge
//    body is never moved); empty: no body (errors);
//  - respond.Stream(source): a successful reply whose body is made while it is
//    sent (reply_source.h), the source handed over (its sender may keep it
//    past the handler: a reply parked while its debugger does not read);
//    without a `streamed` sender (tests), the body is made whole and sent the
//    first way.
struct Responder {
  using Whole = std::function<void(jdwp::ErrorCode, std::vector<uint8_t> room_and_body)>;
  using Streamed = std::function<void(std::unique_ptr<ReplySource> body)>;

  Responder() = default;
  template <class F>
    requires(!std::is_same_v<std::decay_t<F>, Responder> && std::is_invocable_v<F&, jdwp::ErrorCode, std::vector<uint8_t>>)
  Responder(F whole_sender) : whole(std::move(whole_sender)) {}  // NOLINT: a lambda is a Responder
  Responder(Whole whole_sender, Streamed streamed_sender)
      : whole(std::move(whole_sender)), streamed(std::move(streamed_sender)) {}

  void operator()(jdwp::ErrorCode error, std::vector<uint8_t> room_and_body) const {
    whole(error, std::move(room_and_body));
  }
  void Stream(std::unique_ptr<ReplySource> body) const;

  Whole whole;
  Streamed streamed;
};

// What a handler bound with BindStreamed returns: its reply built whole, or
// (large ones) a source of its body's bytes.
template <class Reply>
using Streamable = std::variant<Reply, std::unique_ptr<ReplySource>>;

class Dispatcher {
 public:
  using RawHandler = std::function<void(std::span<const uint8_t> data, Responder respond)>;

  // Binds a synchronous handler: jdwp::Result<Cmd::Reply>(const Cmd::Request&).
  template <class Cmd, class Fn>
  void Bind(Fn fn) {
    table_[Key(Cmd::kId)] = [fn = std::move(fn)](std::span<const uint8_t> data, Responder respond) {
      auto req = DecodeRequest<Cmd>(data, respond);
      if (!req) return;
      std::vector<uint8_t> body;
      {
        // The reply is freed once encoded: a huge one (a 50 MB string) is not
        // held three times (reply, body, packet) while the packet is built.
        jdwp::Result<typename Cmd::Reply> reply = fn(*req);
        if (!reply) {
          RespondFailed<Cmd>(reply.error(), respond);
          return;
        }
        body = jdwp::EncodeBody(*reply, jdwp::kHeaderSize);
      }
      respond(jdwp::ErrorCode::kNone, std::move(body));
    };
  }

  // Binds a handler whose reply may be streamed:
  // jdwp::Result<Streamable<Cmd::Reply>>(const Cmd::Request&). Everything that
  // can fail must fail before it returns a source: once the header is out,
  // the error code cannot change.
  template <class Cmd, class Fn>
  void BindStreamed(Fn fn) {
    table_[Key(Cmd::kId)] = [fn = std::move(fn)](std::span<const uint8_t> data, Responder respond) {
      auto req = DecodeRequest<Cmd>(data, respond);
      if (!req) return;
      std::vector<uint8_t> body;
      {
        jdwp::Result<Streamable<typename Cmd::Reply>> reply = fn(*req);
        if (!reply) {
          RespondFailed<Cmd>(reply.error(), respond);
          return;
        }
        if (auto* source = std::get_if<std::unique_ptr<ReplySource>>(&*reply)) {
          respond.Stream(std::move(*source));
          return;
        }
        // Freed once encoded, as in Bind.
        body = jdwp::EncodeBody(std::get<typename Cmd::Reply>(*reply), jdwp::kHeaderSize);
      }
      respond(jdwp::ErrorCode::kNone, std::move(body));
    };
  }

  // A reply that comes later (InvokeMethod): Fail() answers at once; Packet()
  // builds the success reply for the handler to send when it is ready.
  template <class Reply>
  struct Later {
    uint32_t id;
    Responder respond;
    void Fail(const jdwp::Error& error) const { respond(error.code, {}); }
    std::vector<uint8_t> Packet(const Reply& reply) const {
      return jdwp::MakeReplyPacketIn(id, jdwp::ErrorCode::kNone, jdwp::EncodeBody(reply, jdwp::kHeaderSize));
    }
  };

  // Binds a handler that replies later: void(const Cmd::Request&, Later<Cmd::Reply>).
  template <class Cmd, class Fn>
  void BindAsync(Fn fn) {
    async_[Key(Cmd::kId)] = [fn = std::move(fn)](uint32_t id, std::span<const uint8_t> data, Responder respond) {
      auto req = DecodeRequest<Cmd>(data, respond);
      if (!req) return;
      fn(*req, Later<typename Cmd::Reply>{id, std::move(respond)});
    };
  }

  // Runs one command packet. `vm_dead` answers VM_DEAD for everything outside
  // the VirtualMachine set (as stock).
  void Dispatch(const jdwp::Packet& packet, bool vm_dead, Responder respond) const;
  bool Has(uint8_t set, uint8_t command) const {
    return table_.count(Key(set, command)) != 0 || async_.count(Key(set, command)) != 0;
  }

 private:
  // The request of `Cmd` in `data`; nullopt when it is malformed (answered then).
  template <class Cmd>
  static std::optional<typename Cmd::Request> DecodeRequest(std::span<const uint8_t> data, const Responder& respond) {
    size_t leftover = 0;
    bool negative_count = false;
    auto req = jdwp::DecodeBody<typename Cmd::Request>(data, &leftover, &negative_count);
    if (!req) {
      Log().debug("{}: {}", Cmd::kName, req.error().detail);
      respond(MalformedBodyError<Cmd>(negative_count), {});
      return std::nullopt;
    }
    if (leftover) Log().debug("{}: {} bytes left over", Cmd::kName, leftover);
    return std::move(*req);
  }
  template <class Cmd>
  static void RespondFailed(const jdwp::Error& error, const Responder& respond) {
    Log().debug("{} failed: {} ({})", Cmd::kName, jdwp::ErrorName(error.code), error.detail);
    respond(error.code, {});
  }

  static uint16_t Key(jdwp::CommandId id) { return Key(static_cast<uint8_t>(id.set), id.command); }
  static uint16_t Key(uint8_t set, uint8_t command) { return static_cast<uint16_t>(set << 8 | command); }
  std::unordered_map<uint16_t, RawHandler> table_;
  std::unordered_map<uint16_t, std::function<void(uint32_t, std::span<const uint8_t>, Responder)>> async_;
};

}  // namespace jdwpx::backend
