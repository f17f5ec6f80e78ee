// The command table: every JDWP command set's handlers, bound by set. Each
// Bind<Set> (in <set>.cc) binds its commands one line each, in the spec's order.
#include "backend/commands/bind_all.h"

#include "backend/commands/handlers.h"

namespace jdwpx::backend {

void BindAllCommands(Dispatcher& d, const CommandEnv& env, SessionControl& session) {
  BindVirtualMachine(d, env, session);  // 1
  BindReferenceType(d, env);            // 2
  BindClassType(d, env);                // 3
  BindArrayType(d, env);                // 4
  BindInterfaceType(d, env);            // 5
  BindMethod(d, env);                   // 6 (Field, 8, has no commands)
  BindObjectReference(d, env);          // 9
  BindStringReference(d, env);          // 10
  BindThreadReference(d, env);          // 11
  BindThreadGroupReference(d, env);     // 12
  BindArrayReference(d, env);           // 13
  BindClassLoaderReference(d, env);     // 14
  BindEventRequest(d, env);             // 15
  BindStackFrame(d, env);               // 16
  BindClassObjectReference(d, env);     // 17
  BindModuleReference(d, env);          // 18
  BindProbe(d, env);                    // 128
}

}  // namespace jdwpx::backend
