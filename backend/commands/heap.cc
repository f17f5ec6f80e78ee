// Heap and module queries: VirtualMachine.InstanceCounts, ReferenceType.Instances,
// ObjectReference.ReferringObjects (heap walks in a scratch JVMTI environment, see
// vmcore::Jvmti::CountReachableInstances), VirtualMachine.AllModules,
// ReferenceType.Module and the ModuleReference set.
#include <memory>

#include "backend/agent.h"
#include "backend/errors.h"
#include "backend/wire_string.h"
#include "jdwp/commands/module_reference.h"
#include "jdwp/commands/object_reference.h"
#include "jdwp/commands/reference_type.h"
#include "jdwp/commands/virtual_machine.h"

namespace jdwpx::backend {

namespace VM = jdwp::VirtualMachine;
namespace RT = jdwp::ReferenceType;
namespace OR = jdwp::ObjectReference;
namespace MR = jdwp::ModuleReference;
using jdwp::ErrorCode;

namespace {

// java.lang.Module and the two methods ModuleReference calls; looked up on first
// use by the command thread (the only thread that runs these handlers).
struct ModuleClass {
  jclass klass = nullptr;  // global reference, kept for the agent's life
  jmethodID get_name = nullptr;
  jmethodID get_class_loader = nullptr;

  bool Init(JNIEnv* jni) {
    if (klass) return true;
    jclass local = jni->FindClass("java/lang/Module");
    if (!local) {
      jni->ExceptionClear();
      return false;
    }
    get_name = jni->GetMethodID(local, "getName", "()Ljava/lang/String;");
    get_class_loader = jni->GetMethodID(local, "getClassLoader", "()Ljava/lang/ClassLoader;");
    if (!get_name || !get_class_loader) {
      jni->ExceptionClear();
      jni->DeleteLocalRef(local);
      return false;
    }
    klass = static_cast<jclass>(jni->NewGlobalRef(local));
    jni->DeleteLocalRef(local);
    return klass != nullptr;
  }
};

// A ModuleId -> local reference to the java.lang.Module; every bad ID (0, unknown,
// collected, not a module) is INVALID_MODULE, as the spec lists no other error.
jdwp::Result<jobject> ResolveModule(Context& c, ModuleClass& modules, JNIEnv* jni, jdwp::ModuleId id) {
  if (!modules.Init(jni)) return jdwp::Fail(ErrorCode::kNotImplemented, "java.lang.Module not found");
  if (id.is_null()) return jdwp::Fail(ErrorCode::kInvalidModule, "null module");
  auto obj = c.objects.Resolve(jni, jdwp::IdCast<jdwp::ObjectId>(id));
  if (!obj) return jdwp::Fail(ErrorCode::kInvalidModule, "unknown module id");
  if (!jni->IsInstanceOf(*obj, modules.klass)) {
    jni->DeleteLocalRef(*obj);
    return jdwp::Fail(ErrorCode::kInvalidModule, "not a module");
  }
  return *obj;
}

// Tagged IDs for a list of local references, each deleted once converted (a
// reply may name a million objects). `same_class`: all share one class, so the
// tag is worked out once.
std::vector<jdwp::TaggedObjectId> TaggedIds(Context& c, JNIEnv* jni, const std::vector<jobject>& objects,
                                           bool same_class) {
  std::vector<jdwp::TaggedObjectId> out;
  out.reserve(objects.size());
  jdwp::Tag shared_tag = jdwp::Tag::kObject;
  if (same_class && !objects.empty()) shared_tag = c.ObjectTagOf(jni, objects.front());
  for (jobject obj : objects) {
    jdwp::Tag tag = same_class ? shared_tag : c.ObjectTagOf(jni, obj);
    out.push_back(jdwp::TaggedObjectId{tag, c.objects.IdOf(jni, obj)});
    jni->DeleteLocalRef(obj);
  }
  return out;
}

}  // namespace

void RegisterHeap(Dispatcher& d, Context& ctx, JNIEnv** jni_slot) {
  Context* c = &ctx;
  auto J = [jni_slot] { return *jni_slot; };
  auto modules = std::make_shared<ModuleClass>();

  d.Bind<VM::InstanceCounts>([c, J](const VM::InstanceCounts::Request& req) -> jdwp::Result<VM::InstanceCounts::Reply> {
    JNIEnv* jni = J();
    // A type that cannot be resolved (unloaded, unknown, not a type) counts 0, as stock.
    std::vector<jclass> classes;
    classes.reserve(req.ref_types_count.size());
    for (auto id : req.ref_types_count) {
      auto k = c->Class(jni, id);
      classes.push_back(k ? *k : nullptr);
    }
    auto counts = vmcore::Jvmti::CountReachableInstances(jni, classes);
    for (jclass k : classes) {
      if (k) jni->DeleteLocalRef(k);
    }
    VM_ASSIGN_OR_RETURN(auto values, std::move(counts));
    VM::InstanceCounts::Reply r;
    r.counts.assign(values.begin(), values.end());
    return r;
  });

  d.Bind<RT::Instances>([c, J](const RT::Instances::Request& req) -> jdwp::Result<RT::Instances::Reply> {
    JNIEnv* jni = J();
    ASSIGN_OR_RETURN(jclass k, c->Class(jni, req.ref_type));
    if (req.max_instances < 0) return jdwp::Fail(ErrorCode::kIllegalArgument, "maxInstances < 0");
    VM_ASSIGN_OR_RETURN(auto objects, vmcore::Jvmti::ReachableInstances(jni, k, req.max_instances));
    return RT::Instances::Reply{TaggedIds(*c, jni, objects, /*same_class=*/true)};
  });

  d.Bind<OR::ReferringObjects>([c, J](const OR::ReferringObjects::Request& req)
                                   -> jdwp::Result<OR::ReferringObjects::Reply> {
    JNIEnv* jni = J();
    ASSIGN_OR_RETURN(jobject obj, c->NonNullObject(jni, req.object));
    if (req.max_referrers < 0) return jdwp::Fail(ErrorCode::kIllegalArgument, "maxReferrers < 0");
    VM_ASSIGN_OR_RETURN(auto objects, vmcore::Jvmti::Referrers(jni, obj, req.max_referrers));
    return OR::ReferringObjects::Reply{TaggedIds(*c, jni, objects, /*same_class=*/false)};
  });

  d.Bind<VM::AllModules>([c, J](const VM::AllModules::Request&) -> jdwp::Result<VM::AllModules::Reply> {
    VM_ASSIGN_OR_RETURN(auto all, c->jvmti.GetAllModules());
    VM::AllModules::Reply r;
    r.modules.reserve(all.size());
    for (jobject m : all) {
      r.modules.push_back(c->IdOf<jdwp::ModuleId>(J(), m));
      J()->DeleteLocalRef(m);
    }
    return r;
  });

  d.Bind<RT::Module>([c, J](const RT::Module::Request& req) -> jdwp::Result<RT::Module::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.ref_type));
    jobject module = J()->GetModule(k);
    if (J()->ExceptionCheck()) {
      J()->ExceptionClear();
      return jdwp::Fail(ErrorCode::kInternal, "GetModule threw");
    }
    return RT::Module::Reply{c->IdOf<jdwp::ModuleId>(J(), module)};
  });

  d.Bind<MR::Name>([c, J, modules](const MR::Name::Request& req) -> jdwp::Result<MR::Name::Reply> {
    JNIEnv* jni = J();
    ASSIGN_OR_RETURN(jobject module, ResolveModule(*c, *modules, jni, req.module));
    auto name = static_cast<jstring>(jni->CallObjectMethod(module, modules->get_name));
    if (jni->ExceptionCheck()) {
      jni->ExceptionClear();
      return jdwp::Fail(ErrorCode::kInternal, "Module.getName threw");
    }
    MR::Name::Reply r;  // the unnamed module: null name, sent as "" (as stock)
    if (name) {
      const char* chars = jni->GetStringUTFChars(name, nullptr);
      if (chars) {
        r.name = ToWireString(chars);
        jni->ReleaseStringUTFChars(name, chars);
      }
    }
    return r;
  });

  d.Bind<MR::ClassLoader>([c, J, modules](const MR::ClassLoader::Request& req) -> jdwp::Result<MR::ClassLoader::Reply> {
    JNIEnv* jni = J();
    ASSIGN_OR_RETURN(jobject module, ResolveModule(*c, *modules, jni, req.module));
    jobject loader = jni->CallObjectMethod(module, modules->get_class_loader);
    if (jni->ExceptionCheck()) {
      jni->ExceptionClear();
      return jdwp::Fail(ErrorCode::kInternal, "Module.getClassLoader threw");
    }
    return MR::ClassLoader::Reply{c->IdOf<jdwp::ClassLoaderId>(jni, loader)};
  });
}

}  // namespace jdwpx::backend
