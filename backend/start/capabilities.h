// The JVMTI capabilities a debugger's agent asks for: everything that helps a
// debugger and the VM offers, nothing that only costs (allocation sampling, GC
// events...). The agent adds, on its own, those that depend on the VM (the
// Thread.resume0 bind hold-up, virtual threads); the event path's in-JVM test
// asks for the same set, so that it runs the code as the agent does.
#pragma once

#include <jvmti.h>

namespace jdwpx::backend {

jvmtiCapabilities DebuggerCapabilities(const jvmtiCapabilities& potential);

}  // namespace jdwpx::backend
