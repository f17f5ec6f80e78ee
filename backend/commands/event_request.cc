// EventRequest command set (15).
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/errors.h"
#include "backend/events/events.h"
#include "jdwp/commands/event_request.h"

namespace jdwpx::backend {

namespace ER = jdwp::EventRequest;
using jdwp::ErrorCode;

namespace {

class EventRequestHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  jdwp::Result<ER::Set::Reply> Set(const ER::Set::Request& req) {
    ASSIGN_OR_RETURN(int32_t id, events_.requests().Set(env(), req, session()));
    return ER::Set::Reply{id};
  }

  jdwp::Result<ER::Clear::Reply> Clear(const ER::Clear::Request& req) {
    RETURN_IF_ERROR(events_.requests().Clear(env(), req.event_kind, req.request_id, session()));
    return ER::Clear::Reply{};
  }

  jdwp::Result<ER::ClearAllBreakpoints::Reply> ClearAllBreakpoints(const ER::ClearAllBreakpoints::Request&) {
    events_.requests().ClearAllBreakpoints(env(), session());
    return ER::ClearAllBreakpoints::Reply{};
  }
};

}  // namespace

void BindEventRequest(Dispatcher& d, const CommandEnv& env) {
  using H = EventRequestHandlers;
  auto h = std::make_shared<H>(env);
  d.Bind<ER::Set>(std::bind_front(&H::Set, h));
  d.Bind<ER::Clear>(std::bind_front(&H::Clear, h));
  d.Bind<ER::ClearAllBreakpoints>(std::bind_front(&H::ClearAllBreakpoints, h));
}

}  // namespace jdwpx::backend
