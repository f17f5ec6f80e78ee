// InterfaceType command set (5).
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/commands/invoke.h"
#include "backend/errors.h"
#include "jdwp/commands/interface_type.h"

namespace jdwpx::backend {

namespace IT = jdwp::InterfaceType;
using jdwp::ErrorCode;

namespace {

class InterfaceTypeHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  void InvokeMethod(const IT::InvokeMethod::Request& req, Dispatcher::Later<IT::InvokeMethod::Reply> later) {
    auto t = ResolveInvokeTarget(ctx_, env(), req.clazz, req.thread, req.method_id);
    if (!t) return later.Fail(t.error());
    bool own = env()->IsSameObject(t->klass, t->facts.declaring);
    env()->DeleteLocalRef(t->facts.declaring);
    if (!own) return later.Fail({ErrorCode::kInvalidMethodid, "not a method of this interface"});
    if (auto thread = NotNullThread(req.thread); !thread) return later.Fail(thread.error());
    if (!t->facts.is_static) return later.Fail({ErrorCode::kInvalidMethodid, "not a static method"});
    StartInvoke(ctx_, reporter_, env(), session(), req.thread, CallKind::kStatic, nullptr, t->klass, t->method, req.arguments, req.options, later);
  }
};

}  // namespace

void BindInterfaceType(Dispatcher& d, const CommandEnv& env) {
  using H = InterfaceTypeHandlers;
  auto h = std::make_shared<H>(env);
  d.BindAsync<IT::InvokeMethod>(std::bind_front(&H::InvokeMethod, h));
}

}  // namespace jdwpx::backend
