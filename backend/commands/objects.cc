// ObjectReference (9), StringReference (10), ArrayReference (13) commands, and
// method invocation (ObjectReference.InvokeMethod, ClassType.InvokeMethod).
#include "backend/agent.h"
#include "backend/errors.h"
#include "backend/log.h"
#include "backend/string_value.h"
#include "backend/values.h"
#include "backend/wire_string.h"
#include "jdwp/codec.h"
#include "jdwp/commands/array_reference.h"
#include "jdwp/commands/array_type.h"
#include "jdwp/commands/class_type.h"
#include "jdwp/commands/interface_type.h"
#include "jdwp/commands/object_reference.h"
#include "jdwp/commands/string_reference.h"

namespace jdwpx::backend {

namespace OR = jdwp::ObjectReference;
namespace AR = jdwp::ArrayReference;
namespace CT = jdwp::ClassType;
namespace AT = jdwp::ArrayType;
namespace IT = jdwp::InterfaceType;
using jdwp::ErrorCode;

namespace {

struct InvokeResult {
  jdwp::Value value;
  jdwp::TaggedObjectId exception;
};

enum class CallKind { kStatic, kVirtual, kNonvirtual, kConstructor };

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

// Shared by the invoke commands: checks arguments on the command thread, then
// hands the call to the (event-suspended) thread; the reply follows from there.
// `obj` is the receiver (ObjectReference.InvokeMethod) or null.
template <class Reply>
void StartInvoke(Context& c, JNIEnv* jni, jdwp::ThreadId thread_id, CallKind kind, jobject obj, jclass klass,
                 jmethodID m, const std::vector<jdwp::Value>& arguments, int32_t options,
                 const Dispatcher::Later<Reply>& later) {
  auto fail = [&](const jdwp::Error& e) { later.Fail(e); };
  auto thread = c.Thread(jni, thread_id);
  if (!thread) return fail(thread.error());
  auto name = c.jvmti.GetMethodName(m);
  if (!name) return fail(FromVm(name.error()));
  char ret = 'V';
  std::string kinds = ParameterKinds(name->signature, &ret);
  std::vector<std::string> parameter_types = ParameterSignatures(name->signature);
  if (kinds.size() != arguments.size()) return fail({ErrorCode::kIllegalArgument, "wrong number of arguments"});
  // Parameter types are named as the method's declaring class's loader resolves them.
  auto declaring = c.jvmti.GetMethodDeclaringClass(m);
  if (!declaring) return fail(FromVm(declaring.error()));
  vmcore::LocalRef hold_declaring(jni, *declaring);
  // Arguments are held by global references until the call is done.
  auto args = std::make_shared<std::vector<jvalue>>();
  auto globals = std::make_shared<std::vector<jobject>>();
  auto drop_globals = [&] {
    for (jobject g : *globals) jni->DeleteGlobalRef(g);
  };
  for (size_t i = 0; i < arguments.size(); ++i) {
    auto v = ToJValue(c, jni, arguments[i], kinds[i]);
    if (!v) {
      drop_globals();
      return fail(v.error());
    }
    if (kinds[i] == 'L' || kinds[i] == '[') {
      // JNI passes any object for any parameter: a wrong type would corrupt the callee.
      if (!IsAssignableToSignature(c, jni, v->l, parameter_types[i], *declaring)) {
        drop_globals();
        return fail({ErrorCode::kTypeMismatch, "argument does not fit the parameter's type"});
      }
      jobject local = v->l;
      v->l = local ? jni->NewGlobalRef(local) : nullptr;
      if (local) jni->DeleteLocalRef(local);
      if (v->l) globals->push_back(v->l);
    }
    args->push_back(*v);
  }
  jobject gobj = obj ? jni->NewGlobalRef(obj) : nullptr;
  auto gklass = static_cast<jclass>(jni->NewGlobalRef(klass));
  jobject gthread = jni->NewGlobalRef(*thread);
  Context* cp = &c;
  const bool single_threaded = (options & jdwp::InvokeOptions::kInvokeSingleThreaded) != 0;
  const uint64_t epoch = c.events->epoch();  // a reply for this session only
  auto work = [cp, kind, gobj, gklass, gthread, m, args, globals, ret, later, single_threaded, epoch](JNIEnv* tjni) {
    std::vector<uint8_t> packet;
    {
      vmcore::LocalFrame frame(tjni, 32);
      InvokeResult result = CallMethod(*cp, tjni, static_cast<jthread>(gthread), kind, gobj, gklass, m, *args, ret);
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
    if (single_threaded) {
      // The thread counts itself suspended again and sends the reply; the JVMTI
      // suspension waits for the next command (ThreadControl::EndSingleThreadedInvoke).
      void* token = cp->threads.PrepareToPark(tjni, static_cast<jthread>(gthread), /*for_event=*/false);
      tjni->DeleteGlobalRef(gthread);  // the last JNI call: the thread is counted suspended from here
      cp->threads.EndSingleThreadedInvoke(token);
      cp->events->SendInvokeReply(epoch, std::move(packet));
      return;
    }
    // The reporter re-suspends this thread (every thread after a call that resumed
    // all), then sends the reply; no JNI after this.
    cp->events->SendAfterInvoke(tjni, static_cast<jthread>(gthread), std::move(packet));
  };
  auto started = c.threads.StartInvoke(jni, *thread, single_threaded, std::move(work));
  // As stock: an invocation resumes threads, so events (one inside the invoked
  // method, say) no longer wait for a resume after a SUSPEND_ALL one (events.h).
  if (started) c.events->UnblockAfterResume();
  if (!started) {
    drop_globals();
    // As stock: a thread already invoking counts as not suspended by an event.
    if (started.error().code == ErrorCode::kAlreadyInvoking) started = jdwp::Fail(ErrorCode::kInvalidThread, "thread is invoking");
    if (gobj) jni->DeleteGlobalRef(gobj);
    jni->DeleteGlobalRef(gklass);
    jni->DeleteGlobalRef(gthread);
    fail(started.error());
  }
}

// What the invoke commands check about the method before the call (JNI would
// call anything it is given): static or not as the command needs, and a member
// of the class (or the receiver's class) it is called on.
struct MethodFacts {
  bool is_static = false;
  bool is_constructor = false;
  jclass declaring = nullptr;  // local reference
};

jdwp::Result<MethodFacts> FactsOf(Context& c, jmethodID m) {
  MethodFacts f;
  VM_ASSIGN_OR_RETURN(jint mods, c.jvmti.GetMethodModifiers(m));
  VM_ASSIGN_OR_RETURN(auto name, c.jvmti.GetMethodName(m));
  VM_ASSIGN_OR_RETURN(f.declaring, c.jvmti.GetMethodDeclaringClass(m));
  f.is_static = (mods & 0x0008) != 0;
  f.is_constructor = name.name == "<init>";
  return f;
}

struct InvokeTarget {
  jclass klass = nullptr;
  jmethodID method = nullptr;
  MethodFacts facts;  // facts.declaring: the caller deletes it
};

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

// Stores `rest` (fieldID + untagged value pairs) into `obj`'s fields (null:
// statics of `klass`). Each field must belong to `klass` or a supertype.
// As stock, pair by pair: the pairs before a bad one stay written, and a pair
// whose object ID is unknown writes null into its field before INVALID_OBJECT.
// A body cut short ends like any malformed body (INTERNAL), after the whole pairs.
jdwp::Result<void> SetFieldValues(Context& c, JNIEnv* jni, jobject obj, jclass klass, const jdwp::RawTail& rest) {
  jdwp::Reader r(rest.bytes);
  uint32_t raw_count = 0;
  if (!r.U32(raw_count)) return jdwp::Fail(kMalformedBody, "field count missing");
  const auto count = static_cast<int32_t>(raw_count);
  if (count < 0) return jdwp::Fail(ErrorCode::kIllegalArgument, "negative field count");
  for (int32_t i = 0; i < count; ++i) {
    jdwp::FieldId id;
    if (!r.U64(id.value)) return jdwp::Fail(kMalformedBody, "field values cut short");
    ASSIGN_OR_RETURN(jfieldID f, c.Field(id));
    vmcore::LocalFrame frame(jni, 8);
    auto decl = c.jvmti.GetFieldDeclaringClass(klass, f);
    if (!decl || !jni->IsAssignableFrom(klass, *decl)) return jdwp::Fail(ErrorCode::kInvalidFieldid, "field not in this type");
    auto name = c.jvmti.GetFieldName(*decl, f);
    auto mods = c.jvmti.GetFieldModifiers(*decl, f);
    if (!name || !mods || name->signature.empty()) return jdwp::Fail(ErrorCode::kInvalidFieldid, "field not readable");
    const bool is_static = (*mods & 0x0008) != 0;
    if (!obj && !is_static) return jdwp::Fail(ErrorCode::kInvalidFieldid, "instance field set as a static");
    jdwp::UntaggedValue value;
    if (!jdwp::DecodeUntagged(r, TagOfSignature(name->signature[0]), value)) {
      return jdwp::Fail(kMalformedBody, "field values cut short");
    }
    jobject target = is_static ? nullptr : obj;
    if (jdwp::IsObjectTag(value.tag) && value.bits != 0) {
      auto known = c.Object(jni, jdwp::ObjectId{value.bits});
      if (!known) {
        (void)WriteField(c, jni, target, *decl, f, name->signature, jdwp::UntaggedValue{value.tag, 0});
        return tl::unexpected(known.error());
      }
    }
    RETURN_IF_ERROR(WriteField(c, jni, target, *decl, f, name->signature, value));
  }
  return {};
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
      // The signature's first character is all a value needs (no name, no copies).
      VM_ASSIGN_OR_RETURN(char type, c->jvmti.GetFieldTypeChar(*decl, f));
      VM_ASSIGN_OR_RETURN(jint mods, c->jvmti.GetFieldModifiers(*decl, f));
      if (!member) return jdwp::Fail(ErrorCode::kInvalidFieldid, "field not in this object's class");
      bool is_static = mods & 0x0008;
      r.values.push_back(ReadField(*c, J(), is_static ? nullptr : obj, *decl, f, type));
      J()->DeleteLocalRef(*decl);
    }
    return r;
  });

  d.Bind<OR::IsCollected>([c, J](const OR::IsCollected::Request& req) -> jdwp::Result<OR::IsCollected::Reply> {
    // As stock: an ID the table does not hold (disposed, or never issued) names
    // no live object: collected. Only ID 0 is no object at all.
    if (req.object.is_null()) return jdwp::Fail(ErrorCode::kInvalidObject, "null object");
    bool known = false;
    bool collected = c->objects.IsCollected(J(), req.object, &known);
    return OR::IsCollected::Reply{!known || collected};
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

  d.Bind<OR::SetValues>([c, J](const OR::SetValues::Request& req) -> jdwp::Result<OR::SetValues::Reply> {
    ASSIGN_OR_RETURN(jobject obj, c->NonNullObject(J(), req.object));
    jclass k = J()->GetObjectClass(obj);
    auto done = SetFieldValues(*c, J(), obj, k, req.rest);
    J()->DeleteLocalRef(k);
    if (!done) return tl::unexpected(done.error());
    return OR::SetValues::Reply{};
  });

  d.Bind<CT::SetValues>([c, J](const CT::SetValues::Request& req) -> jdwp::Result<CT::SetValues::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.clazz));
    if (!(c->ClassStatusOf(k) & jdwp::ClassStatus::kPrepared)) {
      return jdwp::Fail(ErrorCode::kClassNotPrepared, "class not prepared");
    }
    RETURN_IF_ERROR(SetFieldValues(*c, J(), nullptr, k, req.rest));
    return CT::SetValues::Reply{};
  });

  d.Bind<AR::SetValues>([c, J](const AR::SetValues::Request& req) -> jdwp::Result<AR::SetValues::Reply> {
    ASSIGN_OR_RETURN(jarray a, c->Array(J(), req.array_object));
    RETURN_IF_ERROR(WriteArray(*c, J(), a, req.first_index, req.rest.bytes));
    return AR::SetValues::Reply{};
  });

  d.Bind<AT::NewInstance>([c, J](const AT::NewInstance::Request& req) -> jdwp::Result<AT::NewInstance::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.arr_type));
    VM_ASSIGN_OR_RETURN(std::string sig, c->jvmti.GetClassSignatureOnly(k));
    if (sig.size() < 2 || sig[0] != '[') return jdwp::Fail(ErrorCode::kInvalidArray, "not an array type");
    if (req.length < 0) return jdwp::Fail(ErrorCode::kIllegalArgument, "negative array length");
    JNIEnv* jni = J();
    jarray array = nullptr;
    switch (sig[1]) {
      case 'Z': array = jni->NewBooleanArray(req.length); break;
      case 'B': array = jni->NewByteArray(req.length); break;
      case 'C': array = jni->NewCharArray(req.length); break;
      case 'S': array = jni->NewShortArray(req.length); break;
      case 'I': array = jni->NewIntArray(req.length); break;
      case 'J': array = jni->NewLongArray(req.length); break;
      case 'F': array = jni->NewFloatArray(req.length); break;
      case 'D': array = jni->NewDoubleArray(req.length); break;
      default: {
        // The component class: Class.getComponentType is an intrinsic that takes no lock.
        jmethodID get_component = jni->GetMethodID(c->class_class, "getComponentType", "()Ljava/lang/Class;");
        auto component = get_component ? static_cast<jclass>(jni->CallObjectMethod(k, get_component)) : nullptr;
        if (component) array = jni->NewObjectArray(req.length, component, nullptr);
        break;
      }
    }
    if (jni->ExceptionCheck() || !array) {
      jni->ExceptionClear();
      return jdwp::Fail(ErrorCode::kOutOfMemory, "array not created");
    }
    return AT::NewInstance::Reply{jdwp::TaggedObjectId{jdwp::Tag::kArray, c->IdOf<jdwp::ObjectId>(jni, array)}};
  });

  d.BindAsync<OR::InvokeMethod>([c, J](const OR::InvokeMethod::Request& req, Dispatcher::Later<OR::InvokeMethod::Reply> later) {
    // Fields in order: the object, the thread, then the class and the method.
    auto obj = c->Object(J(), req.object);
    if (!obj) return later.Fail(obj.error());
    if (auto thread = ThreadIfNotNull(*c, J(), req.thread).and_then([&] { return NotNullThread(req.thread); }); !thread) {
      return later.Fail(thread.error());
    }
    if (!*obj) return later.Fail({ErrorCode::kInvalidObject, "null object"});
    auto t = ResolveInvokeTarget(*c, J(), req.clazz, req.thread, req.method_id);
    if (!t) return later.Fail(t.error());
    bool member = J()->IsInstanceOf(*obj, t->facts.declaring) && J()->IsAssignableFrom(t->klass, t->facts.declaring);
    J()->DeleteLocalRef(t->facts.declaring);
    if (!member || t->facts.is_constructor) return later.Fail({ErrorCode::kInvalidMethodid, "not a method of this object"});
    CallKind kind = t->facts.is_static ? CallKind::kStatic
                    : (req.options & jdwp::InvokeOptions::kInvokeNonvirtual) ? CallKind::kNonvirtual
                                                                             : CallKind::kVirtual;
    StartInvoke(*c, J(), req.thread, kind, t->facts.is_static ? nullptr : *obj, t->klass, t->method, req.arguments,
                req.options, later);
  });

  d.BindAsync<CT::InvokeMethod>([c, J](const CT::InvokeMethod::Request& req, Dispatcher::Later<CT::InvokeMethod::Reply> later) {
    auto t = ResolveInvokeTarget(*c, J(), req.clazz, req.thread, req.method_id);
    if (!t) return later.Fail(t.error());
    // A member of the class or of a superclass (the spec, and stock's check): a
    // static method of a superinterface is not inherited, so not one.
    bool member = J()->IsSameObject(t->klass, t->facts.declaring) ||
                  (J()->IsAssignableFrom(t->klass, t->facts.declaring) &&
                   c->TypeTagOf(t->facts.declaring) != jdwp::TypeTag::kInterface);
    J()->DeleteLocalRef(t->facts.declaring);
    if (!member) return later.Fail({ErrorCode::kInvalidMethodid, "not a method of this class"});
    if (auto thread = NotNullThread(req.thread); !thread) return later.Fail(thread.error());
    if (!t->facts.is_static) return later.Fail({ErrorCode::kInvalidMethodid, "not a static method"});
    StartInvoke(*c, J(), req.thread, CallKind::kStatic, nullptr, t->klass, t->method, req.arguments, req.options, later);
  });

  d.BindAsync<CT::NewInstance>([c, J](const CT::NewInstance::Request& req, Dispatcher::Later<CT::NewInstance::Reply> later) {
    auto t = ResolveInvokeTarget(*c, J(), req.clazz, req.thread, req.method_id);
    if (!t) return later.Fail(t.error());
    if (auto thread = NotNullThread(req.thread); !thread) return later.Fail(thread.error());
    bool own = J()->IsSameObject(t->klass, t->facts.declaring);
    J()->DeleteLocalRef(t->facts.declaring);
    if (!own || !t->facts.is_constructor) return later.Fail({ErrorCode::kInvalidMethodid, "not a constructor of this class"});
    StartInvoke(*c, J(), req.thread, CallKind::kConstructor, nullptr, t->klass, t->method, req.arguments, req.options, later);
  });

  d.BindAsync<IT::InvokeMethod>([c, J](const IT::InvokeMethod::Request& req, Dispatcher::Later<IT::InvokeMethod::Reply> later) {
    auto t = ResolveInvokeTarget(*c, J(), req.clazz, req.thread, req.method_id);
    if (!t) return later.Fail(t.error());
    bool own = J()->IsSameObject(t->klass, t->facts.declaring);
    J()->DeleteLocalRef(t->facts.declaring);
    if (!own) return later.Fail({ErrorCode::kInvalidMethodid, "not a method of this interface"});
    if (auto thread = NotNullThread(req.thread); !thread) return later.Fail(thread.error());
    if (!t->facts.is_static) return later.Fail({ErrorCode::kInvalidMethodid, "not a static method"});
    StartInvoke(*c, J(), req.thread, CallKind::kStatic, nullptr, t->klass, t->method, req.arguments, req.options, later);
  });

  d.BindStreamed<jdwp::StringReference::Value>([c, J](const jdwp::StringReference::Value::Request& req)
                                                   -> jdwp::Result<Streamable<jdwp::StringReference::Value::Reply>> {
    // INVALID_OBJECT (unknown or collected), INVALID_STRING (not a string).
    ASSIGN_OR_RETURN(jstring s, c->String(J(), jdwp::IdCast<jdwp::StringId>(req.string_object)));
    // Measured before the reply's header can go out (its one remaining error:
    // too large for a packet); standard UTF-8, or modified with mutf8=y.
    ASSIGN_OR_RETURN(StringValueReader reader, StringValueReader::Open(J(), s, WireIsModifiedUtf8()));
    // A huge string (50 MB) is sent while it is encoded, never held whole.
    if (reader.wire_size() >= kStreamBodiesFrom) return std::move(reader).ReadInParts();
    ASSIGN_OR_RETURN(jdwp::WireString wire, std::move(reader).ReadWhole());
    return jdwp::StringReference::Value::Reply{std::move(wire)};
  });

  d.Bind<AR::Length>([c, J](const AR::Length::Request& req) -> jdwp::Result<AR::Length::Reply> {
    ASSIGN_OR_RETURN(jarray a, c->Array(J(), req.array_object));
    return AR::Length::Reply{J()->GetArrayLength(a)};
  });

  d.BindStreamed<AR::GetValues>([c, J](const AR::GetValues::Request& req)
                                     -> jdwp::Result<Streamable<AR::GetValues::Reply>> {
    ASSIGN_OR_RETURN(jarray a, c->Array(J(), req.array_object));
    // Every error is found here, before the reply's header can go out.
    ASSIGN_OR_RETURN(ArrayRegionReader reader, ArrayRegionReader::Open(*c, J(), a, req.first_index, req.length));
    // A huge region (Object[1M]: 9 MB) is sent while it is read, never held whole.
    if (reader.wire_size() >= kStreamBodiesFrom) return std::move(reader).ReadInParts();
    ASSIGN_OR_RETURN(auto region, reader.ReadWhole());
    return AR::GetValues::Reply{std::move(region)};
  });
}

}  // namespace jdwpx::backend
