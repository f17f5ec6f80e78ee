// ClassObjectReference command set (17).
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/errors.h"
#include "jdwp/commands/class_object_reference.h"

namespace jdwpx::backend {

namespace COR = jdwp::ClassObjectReference;
using jdwp::ErrorCode;

namespace {

class ClassObjectReferenceHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  jdwp::Result<COR::ReflectedType::Reply> ReflectedType(const COR::ReflectedType::Request& req) {
    ASSIGN_OR_RETURN(jobject obj, ctx_.NonNullObject(env(), jdwp::IdCast<jdwp::ObjectId>(req.class_object)));
    if (!env()->IsInstanceOf(obj, ctx_.class_class)) return jdwp::Fail(ErrorCode::kInvalidObject, "not a class object");
    auto k = static_cast<jclass>(obj);
    return COR::ReflectedType::Reply{ctx_.TypeTagOf(k), ctx_.IdOf<jdwp::ReferenceTypeId>(env(), k)};
  }
};

}  // namespace

void BindClassObjectReference(Dispatcher& d, const CommandEnv& env) {
  using H = ClassObjectReferenceHandlers;
  auto h = std::make_shared<H>(env);
  d.Bind<COR::ReflectedType>(std::bind_front(&H::ReflectedType, h));
}

}  // namespace jdwpx::backend
