// Binds every command handler (bind_all.cc) into the agent's dispatcher.
#pragma once

#include <jni.h>

#include "backend/context.h"
#include "backend/dispatcher.h"

namespace jdwpx::backend {

class SessionControl;

// `jni_slot` holds the command thread's JNIEnv once that thread runs.
void BindAllCommands(Dispatcher& d, Context& ctx, JNIEnv** jni_slot, SessionControl& session);

}  // namespace jdwpx::backend
