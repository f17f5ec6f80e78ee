// ClassLoaderReference command set (14).
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/errors.h"
#include "jdwp/commands/class_loader_reference.h"

namespace jdwpx::backend {

namespace CLR = jdwp::ClassLoaderReference;
using jdwp::ErrorCode;

namespace {

class ClassLoaderReferenceHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  jdwp::Result<CLR::VisibleClasses::Reply> VisibleClasses(const CLR::VisibleClasses::Request& req) {
    JNIEnv* jni = env();
    // ID 0 is the bootstrap loader (as stock).
    ASSIGN_OR_RETURN(jobject loader, ctx_.ClassLoader(jni, req.class_loader_object));
    VM_ASSIGN_OR_RETURN(auto classes, ctx_.jvmti.GetClassLoaderClasses(loader));
    CLR::VisibleClasses::Reply r;
    r.classes.reserve(classes.size());
    for (jclass k : classes) {
      r.classes.push_back({ctx_.TypeTagOf(k), ctx_.IdOf<jdwp::ReferenceTypeId>(jni, k)});
      jni->DeleteLocalRef(k);
    }
    return r;
  }
};

}  // namespace

void BindClassLoaderReference(Dispatcher& d, const CommandEnv& env) {
  using H = ClassLoaderReferenceHandlers;
  auto h = std::make_shared<H>(env);
  d.Bind<CLR::VisibleClasses>(std::bind_front(&H::VisibleClasses, h));
}

}  // namespace jdwpx::backend
