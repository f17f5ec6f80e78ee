// Binds every command handler (bind_all.cc) into the agent's dispatcher.
#pragma once

#include <jni.h>

#include "backend/context.h"
#include "backend/commands/dispatcher.h"

namespace jdwpx::backend {

struct CommandEnv;
class SessionControl;

// What the handlers work with (handlers.h: CommandEnv; its `jni_slot` holds the
// command thread's JNIEnv once that thread runs).
void BindAllCommands(Dispatcher& d, const CommandEnv& env, SessionControl& session);

}  // namespace jdwpx::backend
