// ModuleReference command set (18).
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/errors.h"
#include "backend/ids/wire_string.h"
#include "jdwp/commands/module_reference.h"

namespace jdwpx::backend {

namespace MR = jdwp::ModuleReference;
using jdwp::ErrorCode;

namespace {

// java.lang.Module and the two methods ModuleReference calls; looked up on first
// use by the command thread (the only thread that runs these handlers).
struct ModuleClass {
  jclass klass = nullptr;  // global reference, kept for the agent's life
  jmethodID get_name = nullptr;
  jmethodID get_class_loader = nullptr;

  bool Init(JNIEnv* jni) {
    if (klass) return true;
    jclass local = jni->FindClass("java/lang/Module");
    if (!local) {
      jni->ExceptionClear();
      return false;
    }
    get_name = jni->GetMethodID(local, "getName", "()Ljava/lang/String;");
    get_class_loader = jni->GetMethodID(local, "getClassLoader", "()Ljava/lang/ClassLoader;");
    if (!get_name || !get_class_loader) {
      jni->ExceptionClear();
      jni->DeleteLocalRef(local);
      return false;
    }
    klass = static_cast<jclass>(jni->NewGlobalRef(local));
    jni->DeleteLocalRef(local);
    return klass != nullptr;
  }
};

// A ModuleId -> local reference to the java.lang.Module; every bad ID (0, unknown,
// collected, not a module) is INVALID_MODULE, as the spec lists no other error.
jdwp::Result<jobject> ResolveModule(Context& c, ModuleClass& modules, JNIEnv* jni, jdwp::ModuleId id) {
  if (!modules.Init(jni)) return jdwp::Fail(ErrorCode::kNotImplemented, "java.lang.Module not found");
  if (id.is_null()) return jdwp::Fail(ErrorCode::kInvalidModule, "null module");
  auto obj = c.objects.Resolve(jni, jdwp::IdCast<jdwp::ObjectId>(id));
  if (!obj) return jdwp::Fail(ErrorCode::kInvalidModule, "unknown module id");
  if (!jni->IsInstanceOf(*obj, modules.klass)) {
    jni->DeleteLocalRef(*obj);
    return jdwp::Fail(ErrorCode::kInvalidModule, "not a module");
  }
  return *obj;
}

class ModuleReferenceHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  jdwp::Result<MR::Name::Reply> Name(const MR::Name::Request& req) {
    JNIEnv* jni = env();
    ASSIGN_OR_RETURN(jobject module, ResolveModule(ctx_, modules_, jni, req.module));
    auto name = static_cast<jstring>(jni->CallObjectMethod(module, modules_.get_name));
    if (jni->ExceptionCheck()) {
      jni->ExceptionClear();
      return jdwp::Fail(ErrorCode::kInternal, "Module.getName threw");
    }
    MR::Name::Reply r;  // the unnamed module: null name, sent as "" (as stock)
    if (name) {
      const char* chars = jni->GetStringUTFChars(name, nullptr);
      if (chars) {
        r.name = ToWireString(chars);
        jni->ReleaseStringUTFChars(name, chars);
      }
    }
    return r;
  }

  jdwp::Result<MR::ClassLoader::Reply> ClassLoader(const MR::ClassLoader::Request& req) {
    JNIEnv* jni = env();
    ASSIGN_OR_RETURN(jobject module, ResolveModule(ctx_, modules_, jni, req.module));
    jobject loader = jni->CallObjectMethod(module, modules_.get_class_loader);
    if (jni->ExceptionCheck()) {
      jni->ExceptionClear();
      return jdwp::Fail(ErrorCode::kInternal, "Module.getClassLoader threw");
    }
    return MR::ClassLoader::Reply{ctx_.IdOf<jdwp::ClassLoaderId>(jni, loader)};
  }

 private:
  ModuleClass modules_;
};

}  // namespace

void BindModuleReference(Dispatcher& d, const CommandEnv& env) {
  using H = ModuleReferenceHandlers;
  auto h = std::make_shared<H>(env);
  d.Bind<MR::Name>(std::bind_front(&H::Name, h));
  d.Bind<MR::ClassLoader>(std::bind_front(&H::ClassLoader, h));
}

}  // namespace jdwpx::backend
