// ClassType command set (3).
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/commands/helpers.h"
#include "backend/commands/invoke.h"
#include "backend/errors.h"
#include "jdwp/commands/class_type.h"

namespace jdwpx::backend {

namespace CT = jdwp::ClassType;
using jdwp::ErrorCode;

namespace {

class ClassTypeHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  jdwp::Result<CT::Superclass::Reply> Superclass(const CT::Superclass::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.clazz));
    // An interface has no superclass (JNI answers null): ID 0, as stock.
    jclass super = env()->GetSuperclass(k);
    return CT::Superclass::Reply{ctx_.IdOf<jdwp::ClassId>(env(), super)};
  }

  jdwp::Result<CT::SetValues::Reply> SetValues(const CT::SetValues::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.clazz));
    if (!(ctx_.ClassStatusOf(k) & jdwp::ClassStatus::kPrepared)) {
      return jdwp::Fail(ErrorCode::kClassNotPrepared, "class not prepared");
    }
    RETURN_IF_ERROR(SetFieldValues(ctx_, env(), nullptr, k, req.rest));
    return CT::SetValues::Reply{};
  }

  void InvokeMethod(const CT::InvokeMethod::Request& req, Dispatcher::Later<CT::InvokeMethod::Reply> later) {
    auto t = ResolveInvokeTarget(ctx_, env(), req.clazz, req.thread, req.method_id);
    if (!t) return later.Fail(t.error());
    // A member of the class or of a superclass (the spec, and stock's check): a
    // static method of a superinterface is not inherited, so not one.
    bool member = env()->IsSameObject(t->klass, t->facts.declaring) ||
                  (env()->IsAssignableFrom(t->klass, t->facts.declaring) &&
                   ctx_.TypeTagOf(t->facts.declaring) != jdwp::TypeTag::kInterface);
    env()->DeleteLocalRef(t->facts.declaring);
    if (!member) return later.Fail({ErrorCode::kInvalidMethodid, "not a method of this class"});
    if (auto thread = NotNullThread(req.thread); !thread) return later.Fail(thread.error());
    if (!t->facts.is_static) return later.Fail({ErrorCode::kInvalidMethodid, "not a static method"});
    StartInvoke(ctx_, reporter_, env(), session(), req.thread, CallKind::kStatic, nullptr, t->klass, t->method, req.arguments, req.options, later);
  }

  void NewInstance(const CT::NewInstance::Request& req, Dispatcher::Later<CT::NewInstance::Reply> later) {
    auto t = ResolveInvokeTarget(ctx_, env(), req.clazz, req.thread, req.method_id);
    if (!t) return later.Fail(t.error());
    if (auto thread = NotNullThread(req.thread); !thread) return later.Fail(thread.error());
    bool own = env()->IsSameObject(t->klass, t->facts.declaring);
    env()->DeleteLocalRef(t->facts.declaring);
    if (!own || !t->facts.is_constructor) return later.Fail({ErrorCode::kInvalidMethodid, "not a constructor of this class"});
    StartInvoke(ctx_, reporter_, env(), session(), req.thread, CallKind::kConstructor, nullptr, t->klass, t->method, req.arguments, req.options, later);
  }
};

}  // namespace

void BindClassType(Dispatcher& d, const CommandEnv& env) {
  using H = ClassTypeHandlers;
  auto h = std::make_shared<H>(env);
  d.Bind<CT::Superclass>(std::bind_front(&H::Superclass, h));
  d.Bind<CT::SetValues>(std::bind_front(&H::SetValues, h));
  d.BindAsync<CT::InvokeMethod>(std::bind_front(&H::InvokeMethod, h));
  d.BindAsync<CT::NewInstance>(std::bind_front(&H::NewInstance, h));
}

}  // namespace jdwpx::backend
