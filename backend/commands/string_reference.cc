// StringReference command set (10).
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/errors.h"
#include "backend/values/string_value.h"
#include "backend/ids/wire_string.h"
#include "jdwp/commands/string_reference.h"

namespace jdwpx::backend {

namespace SR = jdwp::StringReference;
using jdwp::ErrorCode;

namespace {

class StringReferenceHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  jdwp::Result<Streamable<SR::Value::Reply>> Value(const SR::Value::Request& req) {
    // INVALID_OBJECT (unknown or collected), INVALID_STRING (not a string).
    ASSIGN_OR_RETURN(jstring s, ctx_.String(env(), jdwp::IdCast<jdwp::StringId>(req.string_object)));
    // Measured before the reply's header can go out (its one remaining error:
    // too large for a packet); standard UTF-8, or modified with mutf8=y.
    ASSIGN_OR_RETURN(StringValueReader reader, StringValueReader::Open(env(), s, WireIsModifiedUtf8()));
    // A huge string (50 MB) is sent while it is encoded, never held whole.
    if (reader.wire_size() >= kStreamBodiesFrom) return std::move(reader).ReadInParts();
    ASSIGN_OR_RETURN(jdwp::WireString wire, std::move(reader).ReadWhole());
    return SR::Value::Reply{std::move(wire)};
  }
};

}  // namespace

void BindStringReference(Dispatcher& d, const CommandEnv& env) {
  using H = StringReferenceHandlers;
  auto h = std::make_shared<H>(env);
  d.BindStreamed<SR::Value>(std::bind_front(&H::Value, h));
}

}  // namespace jdwpx::backend
