// ArrayType command set (4).
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/errors.h"
#include "jdwp/commands/array_type.h"

namespace jdwpx::backend {

namespace AT = jdwp::ArrayType;
using jdwp::ErrorCode;

namespace {

class ArrayTypeHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  jdwp::Result<AT::NewInstance::Reply> NewInstance(const AT::NewInstance::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.arr_type));
    VM_ASSIGN_OR_RETURN(std::string sig, ctx_.jvmti.GetClassSignatureOnly(k));
    if (sig.size() < 2 || sig[0] != '[') return jdwp::Fail(ErrorCode::kInvalidArray, "not an array type");
    if (req.length < 0) return jdwp::Fail(ErrorCode::kIllegalArgument, "negative array length");
    JNIEnv* jni = env();
    jarray array = nullptr;
    switch (sig[1]) {
      case 'Z': array = jni->NewBooleanArray(req.length); break;
      case 'B': array = jni->NewByteArray(req.length); break;
      case 'C': array = jni->NewCharArray(req.length); break;
      case 'S': array = jni->NewShortArray(req.length); break;
      case 'I': array = jni->NewIntArray(req.length); break;
      case 'J': array = jni->NewLongArray(req.length); break;
      case 'F': array = jni->NewFloatArray(req.length); break;
      case 'D': array = jni->NewDoubleArray(req.length); break;
      default: {
        // The component class: Class.getComponentType is an intrinsic that takes no lock.
        jmethodID get_component = jni->GetMethodID(ctx_.class_class, "getComponentType", "()Ljava/lang/Class;");
        auto component = get_component ? static_cast<jclass>(jni->CallObjectMethod(k, get_component)) : nullptr;
        if (component) array = jni->NewObjectArray(req.length, component, nullptr);
        break;
      }
    }
    if (jni->ExceptionCheck() || !array) {
      jni->ExceptionClear();
      return jdwp::Fail(ErrorCode::kOutOfMemory, "array not created");
    }
    return AT::NewInstance::Reply{jdwp::TaggedObjectId{jdwp::Tag::kArray, ctx_.IdOf<jdwp::ObjectId>(jni, array)}};
  }
};

}  // namespace

void BindArrayType(Dispatcher& d, const CommandEnv& env) {
  using H = ArrayTypeHandlers;
  auto h = std::make_shared<H>(env);
  d.Bind<AT::NewInstance>(std::bind_front(&H::NewInstance, h));
}

}  // namespace jdwpx::backend
