// The VM's way into the agent: every JVMTI callback of the debugger's
// environment (and of the onthrow=/onuncaught= trigger's), each a trampoline
// that enters the agent through a guard (no C++ exception reaches the JVM; a
// callback on a Java thread tells ThreadControl it runs, see threads.h).
#pragma once

#include <jvmti.h>

namespace jdwpx::backend {

class Agent;

// The process's one agent, set by the entry points once it is initialized; the
// callbacks do nothing while it is null.
extern Agent* g_agent;

// Finds JVM_ResumeThread, to which Thread.resume0 gets bound: the application's
// own Thread.resume() of a thread the debugger suspended waits for the debugger
// (NativeMethodBind redirects that bind). False when the VM has none.
bool FindJvmResumeThread(jvmtiEnv* env);
// Installs the debugger's callbacks (with VirtualThreadStart/End when
// `virtual_threads`); false when the VM refuses them.
bool SetAgentCallbacks(jvmtiEnv* env, bool virtual_threads);
// The start trigger's own environment: its Exception callback only.
bool SetStartTriggerCallbacks(jvmtiEnv* env);

}  // namespace jdwpx::backend
