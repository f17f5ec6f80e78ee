// Heap and module queries: VirtualMachine.InstanceCounts, ReferenceType.Instances,
// ObjectReference.ReferringObjects, VirtualMachine.AllModules, ModuleReference.
#include "backend/agent.h"

namespace jdwpx::backend {

void RegisterHeap(Dispatcher& d, Context& ctx, JNIEnv** jni_slot) {
  (void)d;
  (void)ctx;
  (void)jni_slot;
}

}  // namespace jdwpx::backend
