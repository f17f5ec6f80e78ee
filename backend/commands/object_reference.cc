// ObjectReference command set (9).
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/commands/helpers.h"
#include "backend/commands/invoke.h"
#include "backend/errors.h"
#include "backend/values/values.h"
#include "jdwp/commands/object_reference.h"

namespace jdwpx::backend {

namespace OR = jdwp::ObjectReference;
using jdwp::ErrorCode;

namespace {

class ObjectReferenceHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  jdwp::Result<OR::ReferenceType::Reply> ReferenceType(const OR::ReferenceType::Request& req) {
    ASSIGN_OR_RETURN(jobject obj, ctx_.NonNullObject(env(), req.object));
    jclass k = env()->GetObjectClass(obj);
    return OR::ReferenceType::Reply{ctx_.TypeTagOf(k), ctx_.IdOf<jdwp::ReferenceTypeId>(env(), k)};
  }

  jdwp::Result<OR::GetValues::Reply> GetValues(const OR::GetValues::Request& req) {
    ASSIGN_OR_RETURN(jobject obj, ctx_.NonNullObject(env(), req.object));
    jclass k = env()->GetObjectClass(obj);
    OR::GetValues::Reply r;
    for (auto fid : req.fields) {
      ASSIGN_OR_RETURN(jfieldID f, ctx_.Field(fid));
      // The field must belong to the object's class or a superclass.
      auto decl = ctx_.jvmti.GetFieldDeclaringClass(k, f);
      if (!decl) return jdwp::Fail(ErrorCode::kInvalidFieldid, "field not in this object's class");
      bool member = env()->IsAssignableFrom(k, *decl);
      // The signature's first character is all a value needs (no name, no copies).
      VM_ASSIGN_OR_RETURN(char type, ctx_.jvmti.GetFieldTypeChar(*decl, f));
      VM_ASSIGN_OR_RETURN(jint mods, ctx_.jvmti.GetFieldModifiers(*decl, f));
      if (!member) return jdwp::Fail(ErrorCode::kInvalidFieldid, "field not in this object's class");
      bool is_static = mods & 0x0008;
      r.values.push_back(ReadField(ctx_, env(), is_static ? nullptr : obj, *decl, f, type));
      env()->DeleteLocalRef(*decl);
    }
    return r;
  }

  jdwp::Result<OR::SetValues::Reply> SetValues(const OR::SetValues::Request& req) {
    ASSIGN_OR_RETURN(jobject obj, ctx_.NonNullObject(env(), req.object));
    jclass k = env()->GetObjectClass(obj);
    auto done = SetFieldValues(ctx_, env(), obj, k, req.rest);
    env()->DeleteLocalRef(k);
    if (!done) return tl::unexpected(done.error());
    return OR::SetValues::Reply{};
  }

  jdwp::Result<OR::MonitorInfo::Reply> MonitorInfo(const OR::MonitorInfo::Request& req) {
    // As stock: no suspension check (the spec asks the debugger to suspend all
    // threads first; JDI does that check on its side).
    ASSIGN_OR_RETURN(jobject obj, ctx_.NonNullObject(env(), req.object));
    VM_ASSIGN_OR_RETURN(auto usage, ctx_.jvmti.GetObjectMonitorUsage(obj));
    OR::MonitorInfo::Reply r;
    r.entry_count = usage.entry_count;
    if (usage.owner) r.owner = ctx_.IdOf<jdwp::ThreadId>(env(), usage.owner);
    // Up to JDK 22 HotSpot lists Object.wait() threads in `waiters` too; later
    // JDKs only in `notify_waiters`, and stock then sends both lists as one.
    std::vector<jthread> listed;
    auto add = [&](jthread t) {
      for (jthread seen : listed) {
        if (env()->IsSameObject(seen, t)) return env()->DeleteLocalRef(t);
      }
      listed.push_back(t);
    };
    for (jthread t : usage.waiters) add(t);
    for (jthread t : usage.notify_waiters) add(t);
    for (jthread t : listed) {
      r.waiters.push_back(ctx_.IdOf<jdwp::ThreadId>(env(), t));
      env()->DeleteLocalRef(t);
    }
    if (usage.owner) env()->DeleteLocalRef(usage.owner);
    return r;
  }

  void InvokeMethod(const OR::InvokeMethod::Request& req, Dispatcher::Later<OR::InvokeMethod::Reply> later) {
    // Fields in order: the object, the thread, then the class and the method.
    auto obj = ctx_.Object(env(), req.object);
    if (!obj) return later.Fail(obj.error());
    if (auto thread = ThreadIfNotNull(ctx_, env(), req.thread).and_then([&] { return NotNullThread(req.thread); }); !thread) {
      return later.Fail(thread.error());
    }
    if (!*obj) return later.Fail({ErrorCode::kInvalidObject, "null object"});
    auto t = ResolveInvokeTarget(ctx_, env(), req.clazz, req.thread, req.method_id);
    if (!t) return later.Fail(t.error());
    bool member = env()->IsInstanceOf(*obj, t->facts.declaring) && env()->IsAssignableFrom(t->klass, t->facts.declaring);
    env()->DeleteLocalRef(t->facts.declaring);
    if (!member || t->facts.is_constructor) return later.Fail({ErrorCode::kInvalidMethodid, "not a method of this object"});
    CallKind kind = t->facts.is_static ? CallKind::kStatic
                    : (req.options & jdwp::InvokeOptions::kInvokeNonvirtual) ? CallKind::kNonvirtual
                                                                             : CallKind::kVirtual;
    StartInvoke(ctx_, reporter_, env(), session(), req.thread, kind, t->facts.is_static ? nullptr : *obj, t->klass, t->method, req.arguments,
                req.options, later);
  }

  jdwp::Result<OR::DisableCollection::Reply> DisableCollection(const OR::DisableCollection::Request& req) {
    RETURN_IF_ERROR(ctx_.objects.DisableCollection(env(), req.object, session()));
    return OR::DisableCollection::Reply{};
  }

  jdwp::Result<OR::EnableCollection::Reply> EnableCollection(const OR::EnableCollection::Request& req) {
    // As stock: enabling collection of an unknown or collected object is not an error.
    (void)ctx_.objects.EnableCollection(env(), req.object, session());
    return OR::EnableCollection::Reply{};
  }

  jdwp::Result<OR::IsCollected::Reply> IsCollected(const OR::IsCollected::Request& req) {
    // As stock: an ID the table does not hold (disposed, or never issued) names
    // no live object: collected. Only ID 0 is no object at all.
    if (req.object.is_null()) return jdwp::Fail(ErrorCode::kInvalidObject, "null object");
    bool known = false;
    bool collected = ctx_.objects.IsCollected(env(), req.object, &known);
    return OR::IsCollected::Reply{!known || collected};
  }

  // A heap walk in a scratch JVMTI environment (vmcore::Jvmti::CountReachableInstances).
  jdwp::Result<OR::ReferringObjects::Reply> ReferringObjects(const OR::ReferringObjects::Request& req) {
    JNIEnv* jni = env();
    ASSIGN_OR_RETURN(jobject obj, ctx_.NonNullObject(jni, req.object));
    if (req.max_referrers < 0) return jdwp::Fail(ErrorCode::kIllegalArgument, "maxReferrers < 0");
    VM_ASSIGN_OR_RETURN(auto objects, vmcore::Jvmti::Referrers(jni, obj, req.max_referrers));
    return OR::ReferringObjects::Reply{TaggedIds(ctx_, jni, objects, /*same_class=*/false)};
  }
};

}  // namespace

void BindObjectReference(Dispatcher& d, const CommandEnv& env) {
  using H = ObjectReferenceHandlers;
  auto h = std::make_shared<H>(env);
  d.Bind<OR::ReferenceType>(std::bind_front(&H::ReferenceType, h));
  d.Bind<OR::GetValues>(std::bind_front(&H::GetValues, h));
  d.Bind<OR::SetValues>(std::bind_front(&H::SetValues, h));
  d.Bind<OR::MonitorInfo>(std::bind_front(&H::MonitorInfo, h));
  d.BindAsync<OR::InvokeMethod>(std::bind_front(&H::InvokeMethod, h));
  d.Bind<OR::DisableCollection>(std::bind_front(&H::DisableCollection, h));
  d.Bind<OR::EnableCollection>(std::bind_front(&H::EnableCollection, h));
  d.Bind<OR::IsCollected>(std::bind_front(&H::IsCollected, h));
  d.Bind<OR::ReferringObjects>(std::bind_front(&H::ReferringObjects, h));
}

}  // namespace jdwpx::backend
