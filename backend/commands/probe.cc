// Probe command set (128, jdwpx's own: jdwp/commands/probe.h). The semantics
// live in backend/probes/; these bind them to the wire.
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/probes/probes.h"
#include "jdwp/commands/probe.h"

namespace jdwpx::backend {

namespace P = jdwp::Probe;

namespace {

class ProbeHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  jdwp::Result<P::Set::Reply> Set(const P::Set::Request& req) { return probes_.Set(env(), req, session()); }

  jdwp::Result<P::Clear::Reply> Clear(const P::Clear::Request& req) {
    ASSIGN_OR_RETURN(int32_t cleared, probes_.Clear(env(), req.probe_id, session()));
    return P::Clear::Reply{cleared};
  }

  jdwp::Result<P::List::Reply> List(const P::List::Request&) { return probes_.List(session()); }
};

}  // namespace

void BindProbe(Dispatcher& d, const CommandEnv& env) {
  using H = ProbeHandlers;
  auto h = std::make_shared<H>(env);
  d.Bind<P::Set>(std::bind_front(&H::Set, h));
  d.Bind<P::Clear>(std::bind_front(&H::Clear, h));
  d.Bind<P::List>(std::bind_front(&H::List, h));
}

}  // namespace jdwpx::backend
