#include "backend/events/event_facts.h"

#include "backend/ids/class_names.h"
#include "backend/ids/wire_string.h"

namespace jdwpx::backend {

std::string ClassNameOf(Context& ctx, jclass klass) {
  auto sig = ctx.jvmti.GetClassSignature(klass);
  return sig ? DottedName(ToWireString(sig->signature)) : std::string();
}

jobject FrameThis(Context& ctx, jthread thread, jmethodID method) {
  // As stock: the `this` of a non-static method's top frame, a native frame's
  // too: its receiver, which GetLocalInstance reads where slot 0
  // (GetLocalObject) is opaque.
  auto modifiers = ctx.jvmti.GetMethodModifiers(method);
  if (!modifiers || (*modifiers & 0x0008) != 0) return nullptr;
  auto self = ctx.jvmti.GetLocalInstance(thread, 0);
  return self ? *self : nullptr;
}

}  // namespace jdwpx::backend
