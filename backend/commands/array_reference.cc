// ArrayReference command set (13).
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/errors.h"
#include "backend/values/values.h"
#include "jdwp/commands/array_reference.h"

namespace jdwpx::backend {

namespace AR = jdwp::ArrayReference;
using jdwp::ErrorCode;

namespace {

class ArrayReferenceHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  jdwp::Result<AR::Length::Reply> Length(const AR::Length::Request& req) {
    ASSIGN_OR_RETURN(jarray a, ctx_.Array(env(), req.array_object));
    return AR::Length::Reply{env()->GetArrayLength(a)};
  }

  jdwp::Result<Streamable<AR::GetValues::Reply>> GetValues(const AR::GetValues::Request& req) {
    ASSIGN_OR_RETURN(jarray a, ctx_.Array(env(), req.array_object));
    // Every error is found here, before the reply's header can go out.
    ASSIGN_OR_RETURN(ArrayRegionReader reader, ArrayRegionReader::Open(ctx_, env(), a, req.first_index, req.length));
    // A huge region (Object[1M]: 9 MB) is sent while it is read, never held whole.
    if (reader.wire_size() >= kStreamBodiesFrom) return std::move(reader).ReadInParts();
    ASSIGN_OR_RETURN(auto region, reader.ReadWhole());
    return AR::GetValues::Reply{std::move(region)};
  }

  jdwp::Result<AR::SetValues::Reply> SetValues(const AR::SetValues::Request& req) {
    ASSIGN_OR_RETURN(jarray a, ctx_.Array(env(), req.array_object));
    RETURN_IF_ERROR(WriteArray(ctx_, env(), a, req.first_index, req.rest.bytes));
    return AR::SetValues::Reply{};
  }
};

}  // namespace

void BindArrayReference(Dispatcher& d, const CommandEnv& env) {
  using H = ArrayReferenceHandlers;
  auto h = std::make_shared<H>(env);
  d.Bind<AR::Length>(std::bind_front(&H::Length, h));
  d.BindStreamed<AR::GetValues>(std::bind_front(&H::GetValues, h));
  d.Bind<AR::SetValues>(std::bind_front(&H::SetValues, h));
}

}  // namespace jdwpx::backend
