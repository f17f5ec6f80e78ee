// What the filters and steps read of an event's place beyond its location: the
// name a class pattern is matched against, and the frame's `this` an
// InstanceOnly filter compares. Both are JVMTI calls, made only when a request
// needs them.
#pragma once

#include <jni.h>

#include <string>

#include "backend/context.h"

namespace jdwpx::backend {

// "java.lang.String" for a class (in the wire's encoding, as the patterns
// come from the debugger); empty when unreadable.
std::string ClassNameOf(Context& ctx, jclass klass);

// `this` of the top frame running `method` (a local reference), null when
// static or unreadable.
jobject FrameThis(Context& ctx, jthread thread, jmethodID method);

}  // namespace jdwpx::backend
