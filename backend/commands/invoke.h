// Method invocation, shared by ObjectReference.InvokeMethod (9), ClassType
// InvokeMethod and NewInstance (3), and InterfaceType.InvokeMethod (5): the
// checks of the target, in stock's order, and the call on the invoking thread.
#pragma once

#include <jni.h>

#include <cstdint>
#include <vector>

#include "backend/context.h"
#include "backend/session_slot.h"
#include "backend/commands/dispatcher.h"

namespace jdwpx::backend {

class EventReporter;

enum class CallKind { kStatic, kVirtual, kNonvirtual, kConstructor };

// What the invoke commands check about the method before the call (JNI would
// call anything it is given): static or not as the command needs, and a member
// of the class (or the receiver's class) it is called on.
struct MethodFacts {
  bool is_static = false;
  bool is_constructor = false;
  jclass declaring = nullptr;  // local reference
};

struct InvokeTarget {
  jclass klass = nullptr;
  jmethodID method = nullptr;
  MethodFacts facts;  // facts.declaring: the caller deletes it
};

// Shared by the invoke commands: checks arguments on the command thread, then
// hands the call to the (event-suspended) thread; the reply follows from there.
// `obj` is the receiver (ObjectReference.InvokeMethod) or null; `session` the
// invoking debugger's.
template <class Reply>
void StartInvoke(Context& c, EventReporter& reporter, JNIEnv* jni, SessionSlot session, jdwp::ThreadId thread_id, CallKind kind,
                 jobject obj, jclass klass,
                 jmethodID m, const std::vector<jdwp::Value>& arguments, int32_t options,
                 const Dispatcher::Later<Reply>& later);

// The class and method an invoke command names, each checked in the spec's order.
// An invocation's checks come in stock's order, which matters when several are
// wrong. IDs in the order of the command's fields: an unknown ID is INVALID_OBJECT,
// a thread ID naming no thread INVALID_THREAD. Then for ClassType and InterfaceType
// InvokeMethod whether the method is the class's (INVALID_METHODID), and only then
// a null thread (INVALID_THREAD); NewInstance and ObjectReference check the null
// thread first. The kind of method (static, constructor) comes last.
jdwp::Result<void> ThreadIfNotNull(Context& c, JNIEnv* jni, jdwp::ThreadId id);

jdwp::Result<void> NotNullThread(jdwp::ThreadId id);

// The class, the thread (unless null) and the method, in the fields' order.
jdwp::Result<InvokeTarget> ResolveInvokeTarget(Context& c, JNIEnv* jni, jdwp::ReferenceTypeId clazz,
                                               jdwp::ThreadId thread, jdwp::MethodId method);

}  // namespace jdwpx::backend
