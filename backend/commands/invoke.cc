// Method invocation (invoke.h).
#include "backend/commands/invoke.h"

#include <memory>
#include <string>

#include "backend/errors.h"
#include "backend/events/event_reporter.h"
#include "backend/values/values.h"
#include "jdwp/commands/class_type.h"
#include "jdwp/commands/interface_type.h"
#include "jdwp/commands/object_reference.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;

namespace {

struct InvokeResult {
  jdwp::Value value;
  jdwp::TaggedObjectId exception;
};

// Runs on the invoking thread: the call itself, by return kind. Only the JNI
// call runs as the thread's own code (RunInvokedCode: suspensions stop it
// there); the results get their IDs after, in the callback bracket again.
InvokeResult CallMethod(Context& c, JNIEnv* jni, jthread self, CallKind kind, jobject obj, jclass klass, jmethodID m,
                        const std::vector<jvalue>& args, char ret) {
  InvokeResult out;
  const jvalue* a = args.empty() ? nullptr : args.data();
  if (kind == CallKind::kConstructor) ret = 'L';
  jvalue v{};
  jobject r = nullptr;
  jthrowable pending = nullptr;
#define JDWPX_CALL(Type)                                                               \
  (kind == CallKind::kStatic       ? jni->CallStatic##Type##MethodA(klass, m, a)       \
   : kind == CallKind::kNonvirtual ? jni->CallNonvirtual##Type##MethodA(obj, klass, m, a) \
                                   : jni->Call##Type##MethodA(obj, m, a))
  c.threads.RunInvokedCode(jni, self, [&] {
    switch (ret) {
      case 'V': JDWPX_CALL(Void); break;
      case 'Z': v.z = JDWPX_CALL(Boolean); break;
      case 'B': v.b = JDWPX_CALL(Byte); break;
      case 'C': v.c = JDWPX_CALL(Char); break;
      case 'S': v.s = JDWPX_CALL(Short); break;
      case 'I': v.i = JDWPX_CALL(Int); break;
      case 'J': v.j = JDWPX_CALL(Long); break;
      case 'F': v.f = JDWPX_CALL(Float); break;
      case 'D': v.d = JDWPX_CALL(Double); break;
      default: r = kind == CallKind::kConstructor ? jni->NewObjectA(klass, m, a) : JDWPX_CALL(Object); break;
    }
    pending = jni->ExceptionOccurred();
    if (pending) jni->ExceptionClear();
  });
#undef JDWPX_CALL
  switch (ret) {
    case 'V': out.value = jdwp::Value::Void(); break;
    case 'Z': out.value = jdwp::Value::Boolean(v.z); break;
    case 'B': out.value = jdwp::Value::Byte(v.b); break;
    case 'C': out.value = jdwp::Value::Char(v.c); break;
    case 'S': out.value = jdwp::Value::Short(v.s); break;
    case 'I': out.value = jdwp::Value::Int(v.i); break;
    case 'J': out.value = jdwp::Value::Long(v.j); break;
    case 'F': out.value = jdwp::Value::Float(v.f); break;
    case 'D': out.value = jdwp::Value::Double(v.d); break;
    default:
      out.value = c.ObjectValue(jni, r);
      if (pending) out.value = jdwp::Value::Object(jdwp::Tag::kObject, jdwp::ObjectId{});
      break;
  }
  if (pending) out.exception = c.TaggedId(jni, pending);
  return out;
}

jdwp::Result<MethodFacts> FactsOf(Context& c, jmethodID m) {
  MethodFacts f;
  VM_ASSIGN_OR_RETURN(jint mods, c.jvmti.GetMethodModifiers(m));
  VM_ASSIGN_OR_RETURN(auto name, c.jvmti.GetMethodName(m));
  VM_ASSIGN_OR_RETURN(f.declaring, c.jvmti.GetMethodDeclaringClass(m));
  f.is_static = (mods & 0x0008) != 0;
  f.is_constructor = name.name == "<init>";
  return f;
}

// The arguments of a call, converted for JNI: objects held by global
// references (`globals`) until the call is done.
struct CallArguments {
  std::shared_ptr<std::vector<jvalue>> values;
  std::shared_ptr<std::vector<jobject>> globals;
  char ret = 'V';  // the method's return kind
};

// Checks `arguments` against `m`'s parameters and converts them; on failure no
// global reference is left.
jdwp::Result<CallArguments> ConvertArguments(Context& c, JNIEnv* jni, jmethodID m,
                                             const std::vector<jdwp::Value>& arguments) {
  VM_ASSIGN_OR_RETURN(auto name, c.jvmti.GetMethodName(m));
  CallArguments out;
  std::string kinds = ParameterKinds(name.signature, &out.ret);
  std::vector<std::string> parameter_types = ParameterSignatures(name.signature);
  if (kinds.size() != arguments.size()) return jdwp::Fail(ErrorCode::kIllegalArgument, "wrong number of arguments");
  // Parameter types are named as the method's declaring class's loader resolves them.
  VM_ASSIGN_OR_RETURN(jclass declaring, c.jvmti.GetMethodDeclaringClass(m));
  vmcore::LocalRef hold_declaring(jni, declaring);
  out.values = std::make_shared<std::vector<jvalue>>();
  out.globals = std::make_shared<std::vector<jobject>>();
  auto drop_globals = [&] {
    for (jobject g : *out.globals) jni->DeleteGlobalRef(g);
  };
  for (size_t i = 0; i < arguments.size(); ++i) {
    auto v = ToJValue(c, jni, arguments[i], kinds[i]);
    if (!v) {
      drop_globals();
      return tl::unexpected(v.error());
    }
    if (kinds[i] == 'L' || kinds[i] == '[') {
      // JNI passes any object for any parameter: a wrong type would corrupt the callee.
      if (!IsAssignableToSignature(c, jni, v->l, parameter_types[i], declaring)) {
        drop_globals();
        return jdwp::Fail(ErrorCode::kTypeMismatch, "argument does not fit the parameter's type");
      }
      jobject local = v->l;
      v->l = local ? jni->NewGlobalRef(local) : nullptr;
      if (local) jni->DeleteLocalRef(local);
      if (v->l) out.globals->push_back(v->l);
    }
    out.values->push_back(*v);
  }
  return out;
}

// One invocation as the invoking thread gets it: references are global.
struct PendingCall {
  CallKind kind;
  jobject obj;     // or null
  jclass klass;
  jthread thread;
  jmethodID method;
  CallArguments arguments;
  bool single_threaded;
  SessionSlot session;  // whose command it is
  uint64_t epoch;  // a reply for this session only
};

// Runs on the invoking thread: the call, then the reply, and the references go.
template <class Reply>
void RunPendingCall(Context& c, EventReporter& reporter, JNIEnv* tjni, const PendingCall& call,
                    const Dispatcher::Later<Reply>& later) {
  std::vector<uint8_t> packet;
  {
    vmcore::LocalFrame frame(tjni, 32);
    ObjectTable::CreditScope credit(call.session);  // the reply's IDs are the invoking session's
    InvokeResult result = CallMethod(c, tjni, call.thread, call.kind, call.obj, call.klass, call.method,
                                     *call.arguments.values, call.arguments.ret);
    Reply reply{};
    if constexpr (requires { reply.return_value; }) {
      reply.return_value = result.value;
    } else {
      reply.new_object = jdwp::TaggedObjectId{result.value.tag, result.value.object()};
    }
    reply.exception = result.exception;
    packet = later.Packet(reply);
  }
  for (jobject g : *call.arguments.globals) tjni->DeleteGlobalRef(g);
  if (call.obj) tjni->DeleteGlobalRef(call.obj);
  tjni->DeleteGlobalRef(call.klass);
  if (call.single_threaded) {
    // The thread counts itself suspended again and sends the reply; the JVMTI
    // suspension waits for the next command (ThreadControl::EndSingleThreadedInvoke).
    void* token = c.threads.PrepareToPark(tjni, call.thread, /*for_event=*/false);
    tjni->DeleteGlobalRef(call.thread);  // the last JNI call: the thread is counted suspended from here
    c.threads.EndSingleThreadedInvoke(token);
    reporter.SendInvokeReply(call.session, call.epoch, std::move(packet));
    return;
  }
  // The reporter re-suspends this thread (every thread after a call that resumed
  // all), then sends the reply; no JNI after this.
  reporter.SendAfterInvoke(tjni, call.thread, std::move(packet), call.session);
}

}  // namespace

// Shared by the invoke commands: checks arguments on the command thread, then
// hands the call to the (event-suspended) thread; the reply follows from there.
// `obj` is the receiver (ObjectReference.InvokeMethod) or null.
template <class Reply>
void StartInvoke(Context& c, EventReporter& reporter, JNIEnv* jni, SessionSlot session, jdwp::ThreadId thread_id, CallKind kind,
                 jobject obj, jclass klass,
                 jmethodID m, const std::vector<jdwp::Value>& arguments, int32_t options,
                 const Dispatcher::Later<Reply>& later) {
  auto thread = c.Thread(jni, thread_id);
  if (!thread) return later.Fail(thread.error());
  auto converted = ConvertArguments(c, jni, m, arguments);
  if (!converted) return later.Fail(converted.error());
  PendingCall call{kind,
                   obj ? jni->NewGlobalRef(obj) : nullptr,
                   static_cast<jclass>(jni->NewGlobalRef(klass)),
                   static_cast<jthread>(jni->NewGlobalRef(*thread)),
                   m,
                   std::move(*converted),
                   (options & jdwp::InvokeOptions::kInvokeSingleThreaded) != 0,
                   session,
                   reporter.epoch(session)};
  Context* cp = &c;
  EventReporter* rp = &reporter;
  auto started = c.threads.StartInvoke(
      jni, *thread, call.single_threaded,
      [cp, rp, call, later](JNIEnv* tjni) { RunPendingCall(*cp, *rp, tjni, call, later); }, session);
  // As stock: an invocation resumes threads, so events (one inside the invoked
  // method, say) no longer wait for a resume after a SUSPEND_ALL one (events.h).
  if (started) reporter.UnblockAfterResume(session);
  if (!started) {
    for (jobject g : *call.arguments.globals) jni->DeleteGlobalRef(g);
    // As stock: a thread already invoking counts as not suspended by an event.
    if (started.error().code == ErrorCode::kAlreadyInvoking) started = jdwp::Fail(ErrorCode::kInvalidThread, "thread is invoking");
    if (call.obj) jni->DeleteGlobalRef(call.obj);
    jni->DeleteGlobalRef(call.klass);
    jni->DeleteGlobalRef(call.thread);
    later.Fail(started.error());
  }
}

// The class and method an invoke command names, each checked in the spec's order.
// An invocation's checks come in stock's order, which matters when several are
// wrong. IDs in the order of the command's fields: an unknown ID is INVALID_OBJECT,
// a thread ID naming no thread INVALID_THREAD. Then for ClassType and InterfaceType
// InvokeMethod whether the method is the class's (INVALID_METHODID), and only then
// a null thread (INVALID_THREAD); NewInstance and ObjectReference check the null
// thread first. The kind of method (static, constructor) comes last.
jdwp::Result<void> ThreadIfNotNull(Context& c, JNIEnv* jni, jdwp::ThreadId id) {
  if (id.is_null()) return {};
  ASSIGN_OR_RETURN(jthread thread, c.Thread(jni, id));
  jni->DeleteLocalRef(thread);
  return {};
}

jdwp::Result<void> NotNullThread(jdwp::ThreadId id) {
  if (id.is_null()) return jdwp::Fail(ErrorCode::kInvalidThread, "null thread");
  return {};
}

// The class, the thread (unless null) and the method, in the fields' order.
jdwp::Result<InvokeTarget> ResolveInvokeTarget(Context& c, JNIEnv* jni, jdwp::ReferenceTypeId clazz,
                                               jdwp::ThreadId thread, jdwp::MethodId method) {
  InvokeTarget t;
  ASSIGN_OR_RETURN(t.klass, c.Class(jni, clazz));
  RETURN_IF_ERROR(ThreadIfNotNull(c, jni, thread));
  ASSIGN_OR_RETURN(t.method, c.Method(method));
  ASSIGN_OR_RETURN(t.facts, FactsOf(c, t.method));
  return t;
}

template void StartInvoke(Context&, EventReporter&, JNIEnv*, SessionSlot, jdwp::ThreadId, CallKind, jobject, jclass, jmethodID,
                          const std::vector<jdwp::Value>&, int32_t,
                          const Dispatcher::Later<jdwp::ObjectReference::InvokeMethod::Reply>&);
template void StartInvoke(Context&, EventReporter&, JNIEnv*, SessionSlot, jdwp::ThreadId, CallKind, jobject, jclass, jmethodID,
                          const std::vector<jdwp::Value>&, int32_t,
                          const Dispatcher::Later<jdwp::ClassType::InvokeMethod::Reply>&);
template void StartInvoke(Context&, EventReporter&, JNIEnv*, SessionSlot, jdwp::ThreadId, CallKind, jobject, jclass, jmethodID,
                          const std::vector<jdwp::Value>&, int32_t,
                          const Dispatcher::Later<jdwp::ClassType::NewInstance::Reply>&);
template void StartInvoke(Context&, EventReporter&, JNIEnv*, SessionSlot, jdwp::ThreadId, CallKind, jobject, jclass, jmethodID,
                          const std::vector<jdwp::Value>&, int32_t,
                          const Dispatcher::Later<jdwp::InterfaceType::InvokeMethod::Reply>&);

}  // namespace jdwpx::backend
