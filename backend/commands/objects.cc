// ObjectReference (9), StringReference (10), ArrayReference (13) commands, and
// method invocation (ObjectReference.InvokeMethod, ClassType.InvokeMethod).
#include "backend/agent.h"
#include "backend/errors.h"
#include "backend/log.h"
#include "backend/values.h"
#include "jdwp/commands/array_reference.h"
#include "jdwp/commands/class_type.h"
#include "jdwp/commands/object_reference.h"
#include "jdwp/commands/string_reference.h"

namespace jdwpx::backend {

namespace OR = jdwp::ObjectReference;
namespace AR = jdwp::ArrayReference;
namespace CT = jdwp::ClassType;
using jdwp::ErrorCode;

namespace {

struct InvokeResult {
  jdwp::Value value;
  jdwp::TaggedObjectId exception;
};

// Runs on the invoking thread: the call itself, by return kind.
InvokeResult CallMethod(Context& c, JNIEnv* jni, jobject obj, jclass klass, jmethodID m, bool nonvirtual,
                        const std::vector<jvalue>& args, char ret) {
  InvokeResult out;
  const jvalue* a = args.empty() ? nullptr : args.data();
  bool is_static = obj == nullptr;
#define JDWPX_CALL(Type)                                                           \
  (is_static ? jni->CallStatic##Type##MethodA(klass, m, a)                         \
             : nonvirtual ? jni->CallNonvirtual##Type##MethodA(obj, klass, m, a)   \
                          : jni->Call##Type##MethodA(obj, m, a))
  switch (ret) {
    case 'V': JDWPX_CALL(Void); out.value = jdwp::Value::Void(); break;
    case 'Z': out.value = jdwp::Value::Boolean(JDWPX_CALL(Boolean)); break;
    case 'B': out.value = jdwp::Value::Byte(JDWPX_CALL(Byte)); break;
    case 'C': out.value = jdwp::Value::Char(JDWPX_CALL(Char)); break;
    case 'S': out.value = jdwp::Value::Short(JDWPX_CALL(Short)); break;
    case 'I': out.value = jdwp::Value::Int(JDWPX_CALL(Int)); break;
    case 'J': out.value = jdwp::Value::Long(JDWPX_CALL(Long)); break;
    case 'F': out.value = jdwp::Value::Float(JDWPX_CALL(Float)); break;
    case 'D': out.value = jdwp::Value::Double(JDWPX_CALL(Double)); break;
    default: {
      jobject r = JDWPX_CALL(Object);
      jthrowable pending = jni->ExceptionOccurred();
      if (pending) jni->ExceptionClear();
      out.value = c.ObjectValue(jni, r);
      if (pending) {
        out.exception = c.TaggedId(jni, pending);
        out.value = jdwp::Value::Object(jdwp::Tag::kObject, jdwp::ObjectId{});
      }
      return out;
    }
  }
#undef JDWPX_CALL
  jthrowable pending = jni->ExceptionOccurred();
  if (pending) {
    jni->ExceptionClear();
    out.exception = c.TaggedId(jni, pending);
  }
  return out;
}

// Shared by the invoke commands: checks arguments on the command thread, then
// hands the call to the (event-suspended) thread; the reply follows from there.
template <class Reply>
void StartInvoke(Context& c, JNIEnv* jni, jdwp::ThreadId thread_id, jobject obj, jclass klass, jmethodID m,
                 const std::vector<jdwp::Value>& arguments, int32_t options, const Dispatcher::Later<Reply>& later) {
  auto fail = [&](const jdwp::Error& e) { later.Fail(e); };
  auto thread = c.Thread(jni, thread_id);
  if (!thread) return fail(thread.error());
  auto name = c.jvmti.GetMethodName(m);
  if (!name) return fail(FromVm(name.error()));
  char ret = 'V';
  std::string kinds = ParameterKinds(name->signature, &ret);
  if (kinds.size() != arguments.size()) return fail({ErrorCode::kIllegalArgument, "wrong number of arguments"});
  auto mods = c.jvmti.GetMethodModifiers(m);
  bool is_static = mods && (*mods & 0x0008);
  if (!is_static && !obj) return fail({ErrorCode::kInvalidObject, "instance method without object"});
  // Arguments are held by global references until the call is done.
  auto args = std::make_shared<std::vector<jvalue>>();
  auto globals = std::make_shared<std::vector<jobject>>();
  for (size_t i = 0; i < arguments.size(); ++i) {
    auto v = ToJValue(c, jni, arguments[i], kinds[i]);
    if (!v) {
      for (jobject g : *globals) jni->DeleteGlobalRef(g);
      return fail(v.error());
    }
    if (kinds[i] == 'L' || kinds[i] == '[') {
      v->l = v->l ? jni->NewGlobalRef(v->l) : nullptr;
      if (v->l) globals->push_back(v->l);
    }
    args->push_back(*v);
  }
  jobject gobj = obj ? jni->NewGlobalRef(obj) : nullptr;
  auto gklass = static_cast<jclass>(jni->NewGlobalRef(klass));
  jobject gthread = jni->NewGlobalRef(*thread);
  bool nonvirtual = (options & jdwp::InvokeOptions::kInvokeNonvirtual) != 0;
  Context* cp = &c;
  auto work = [cp, gobj, gklass, gthread, m, nonvirtual, args, globals, ret, later, is_static](JNIEnv* tjni) {
    std::vector<uint8_t> packet;
    {
      vmcore::LocalFrame frame(tjni, 32);
      InvokeResult result = CallMethod(*cp, tjni, is_static ? nullptr : gobj, gklass, m, nonvirtual, *args, ret);
      Reply reply{};
      if constexpr (requires { reply.return_value; }) {
        reply.return_value = result.value;
      } else {
        reply.new_object = jdwp::TaggedObjectId{result.value.tag, result.value.object()};
      }
      reply.exception = result.exception;
      packet = later.Packet(reply);
    }
    for (jobject g : *globals) tjni->DeleteGlobalRef(g);
    if (gobj) tjni->DeleteGlobalRef(gobj);
    tjni->DeleteGlobalRef(gklass);
    // The reporter re-suspends this thread, then sends the reply; no JNI after this.
    cp->events->SendAfterInvoke(tjni, static_cast<jthread>(gthread), std::move(packet));
  };
  auto started = c.threads.StartInvoke(jni, *thread, (options & jdwp::InvokeOptions::kInvokeSingleThreaded) != 0,
                                       std::move(work));
  if (!started) {
    for (jobject g : *globals) jni->DeleteGlobalRef(g);
    if (gobj) jni->DeleteGlobalRef(gobj);
    jni->DeleteGlobalRef(gklass);
    jni->DeleteGlobalRef(gthread);
    fail(started.error());
  }
}

}  // namespace

void RegisterObjects(Dispatcher& d, Context& ctx, JNIEnv** jni_slot) {
  Context* c = &ctx;
  auto J = [jni_slot] { return *jni_slot; };

  d.Bind<OR::ReferenceType>([c, J](const OR::ReferenceType::Request& req) -> jdwp::Result<OR::ReferenceType::Reply> {
    ASSIGN_OR_RETURN(jobject obj, c->NonNullObject(J(), req.object));
    jclass k = J()->GetObjectClass(obj);
    return OR::ReferenceType::Reply{c->TypeTagOf(k), c->IdOf<jdwp::ReferenceTypeId>(J(), k)};
  });

  d.Bind<OR::GetValues>([c, J](const OR::GetValues::Request& req) -> jdwp::Result<OR::GetValues::Reply> {
    ASSIGN_OR_RETURN(jobject obj, c->NonNullObject(J(), req.object));
    jclass k = J()->GetObjectClass(obj);
    OR::GetValues::Reply r;
    for (auto fid : req.fields) {
      ASSIGN_OR_RETURN(jfieldID f, c->Field(fid));
      // The field must belong to the object's class or a superclass.
      auto decl = c->jvmti.GetFieldDeclaringClass(k, f);
      if (!decl) return jdwp::Fail(ErrorCode::kInvalidFieldid, "field not in this object's class");
      bool member = J()->IsAssignableFrom(k, *decl);
      VM_ASSIGN_OR_RETURN(auto name, c->jvmti.GetFieldName(*decl, f));
      VM_ASSIGN_OR_RETURN(jint mods, c->jvmti.GetFieldModifiers(*decl, f));
      if (!member) return jdwp::Fail(ErrorCode::kInvalidFieldid, "field not in this object's class");
      bool is_static = mods & 0x0008;
      r.values.push_back(ReadField(*c, J(), is_static ? nullptr : obj, *decl, f, name.signature[0]));
      J()->DeleteLocalRef(*decl);
    }
    return r;
  });

  d.Bind<OR::IsCollected>([c, J](const OR::IsCollected::Request& req) -> jdwp::Result<OR::IsCollected::Reply> {
    bool known = false;
    bool collected = c->objects.IsCollected(J(), req.object, &known);
    if (!known) return jdwp::Fail(ErrorCode::kInvalidObject, "unknown object id");
    return OR::IsCollected::Reply{collected};
  });

  d.Bind<OR::DisableCollection>([c, J](const OR::DisableCollection::Request& req)
                                    -> jdwp::Result<OR::DisableCollection::Reply> {
    RETURN_IF_ERROR(c->objects.DisableCollection(J(), req.object));
    return OR::DisableCollection::Reply{};
  });

  d.Bind<OR::EnableCollection>([c, J](const OR::EnableCollection::Request& req)
                                   -> jdwp::Result<OR::EnableCollection::Reply> {
    // As stock: enabling collection of an unknown or collected object is not an error.
    (void)c->objects.EnableCollection(J(), req.object);
    return OR::EnableCollection::Reply{};
  });

  d.Bind<OR::MonitorInfo>([c, J](const OR::MonitorInfo::Request& req) -> jdwp::Result<OR::MonitorInfo::Reply> {
    // As stock: no suspension check (the spec asks the debugger to suspend all
    // threads first; JDI does that check on its side).
    ASSIGN_OR_RETURN(jobject obj, c->NonNullObject(J(), req.object));
    VM_ASSIGN_OR_RETURN(auto usage, c->jvmti.GetObjectMonitorUsage(obj));
    OR::MonitorInfo::Reply r;
    r.entry_count = usage.entry_count;
    if (usage.owner) r.owner = c->IdOf<jdwp::ThreadId>(J(), usage.owner);
    // Up to JDK 22 HotSpot lists Object.wait() threads in `waiters` too; later
    // JDKs only in `notify_waiters`, and stock then sends both lists as one.
    std::vector<jthread> listed;
    auto add = [&](jthread t) {
      for (jthread seen : listed) {
        if (J()->IsSameObject(seen, t)) return J()->DeleteLocalRef(t);
      }
      listed.push_back(t);
    };
    for (jthread t : usage.waiters) add(t);
    for (jthread t : usage.notify_waiters) add(t);
    for (jthread t : listed) {
      r.waiters.push_back(c->IdOf<jdwp::ThreadId>(J(), t));
      J()->DeleteLocalRef(t);
    }
    if (usage.owner) J()->DeleteLocalRef(usage.owner);
    return r;
  });

  d.BindAsync<OR::InvokeMethod>([c, J](const OR::InvokeMethod::Request& req, Dispatcher::Later<OR::InvokeMethod::Reply> later) {
    auto obj = c->NonNullObject(J(), req.object);
    if (!obj) return later.Fail(obj.error());
    auto klass = c->Class(J(), req.clazz);
    if (!klass) return later.Fail(klass.error());
    auto m = c->Method(req.method_id);
    if (!m) return later.Fail(m.error());
    StartInvoke(*c, J(), req.thread, *obj, *klass, *m, req.arguments, req.options, later);
  });

  d.BindAsync<CT::InvokeMethod>([c, J](const CT::InvokeMethod::Request& req, Dispatcher::Later<CT::InvokeMethod::Reply> later) {
    auto klass = c->Class(J(), req.clazz);
    if (!klass) return later.Fail(klass.error());
    auto m = c->Method(req.method_id);
    if (!m) return later.Fail(m.error());
    StartInvoke(*c, J(), req.thread, nullptr, *klass, *m, req.arguments, req.options, later);
  });

  d.Bind<jdwp::StringReference::Value>([c, J](const jdwp::StringReference::Value::Request& req)
                                           -> jdwp::Result<jdwp::StringReference::Value::Reply> {
    ASSIGN_OR_RETURN(jstring s, c->String(J(), jdwp::IdCast<jdwp::StringId>(req.string_object)));
    ASSIGN_OR_RETURN(std::string utf8, ReadString(J(), s));
    return jdwp::StringReference::Value::Reply{std::move(utf8)};
  });

  d.Bind<AR::Length>([c, J](const AR::Length::Request& req) -> jdwp::Result<AR::Length::Reply> {
    ASSIGN_OR_RETURN(jarray a, c->Array(J(), req.array_object));
    return AR::Length::Reply{J()->GetArrayLength(a)};
  });

  d.Bind<AR::GetValues>([c, J](const AR::GetValues::Request& req) -> jdwp::Result<AR::GetValues::Reply> {
    ASSIGN_OR_RETURN(jarray a, c->Array(J(), req.array_object));
    ASSIGN_OR_RETURN(auto region, ReadArray(*c, J(), a, req.first_index, req.length));
    return AR::GetValues::Reply{std::move(region)};
  });
}

}  // namespace jdwpx::backend
