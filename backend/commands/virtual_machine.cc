// VirtualMachine command set (1).
#include <cstdlib>
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/probes/probes.h"
#include "jdwp/commands/probe.h"
#include "backend/commands/session_control.h"
#include "backend/errors.h"
#include "backend/events/events.h"
#include "backend/ids/wire_string.h"
#include "jdwp/commands/all.h"
#include "vmcore/mutf8.h"

namespace jdwpx::backend {

namespace VM = jdwp::VirtualMachine;
using jdwp::ErrorCode;

namespace {

std::vector<std::string> SplitPath(const std::string& path) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= path.size() && !path.empty()) {
    size_t end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    if (end > start) out.push_back(path.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// System.getProperty: JVMTI's GetSystemProperty sees only the VM's own
// properties, not those the class library sets (java.version, java.class.path
// may be missing there). Falls back to JVMTI if the call fails.
std::string Property(Context& ctx, JNIEnv* jni, const char* name) {
  jclass system = jni->FindClass("java/lang/System");
  jmethodID get = system ? jni->GetStaticMethodID(system, "getProperty", "(Ljava/lang/String;)Ljava/lang/String;") : nullptr;
  if (get) {
    jstring key = jni->NewStringUTF(name);
    auto value = static_cast<jstring>(jni->CallStaticObjectMethod(system, get, key));
    if (!jni->ExceptionCheck() && value) {
      const char* chars = jni->GetStringUTFChars(value, nullptr);
      std::string out = chars ? ToWireString(chars) : std::string();
      if (chars) jni->ReleaseStringUTFChars(value, chars);
      return out;
    }
  }
  jni->ExceptionClear();
  auto v = ctx.jvmti.GetSystemProperty(name);
  return v && *v ? ToWireString(**v) : std::string();
}

// A loaded type as AllClasses* and ClassesBySignature see it.
struct LoadedType {
  jclass klass;
  jint jvmti_status;
  int32_t status;  // JDWP ClassStatus bits
  bool is_array;
};

jdwp::TypeTag TypeTagOf(Context& ctx, const LoadedType& t) {
  if (t.is_array) return jdwp::TypeTag::kArray;
  auto i = ctx.jvmti.IsInterface(t.klass);
  return i && *i ? jdwp::TypeTag::kInterface : jdwp::TypeTag::kClass;
}

// Every loaded type that is prepared or an array (the content of others cannot be
// read yet), as stock; `fill` decides on each and fills its entry. Runs over
// 10,000s of classes: one JVMTI status call per class before `fill`, and each
// class's local reference is deleted as soon as it is done.
template <class Entry, class Fill>
jdwp::Result<std::vector<Entry>> LoadedTypes(Context& ctx, JNIEnv* jni, Fill fill) {
  VM_ASSIGN_OR_RETURN(auto classes, ctx.jvmti.LoadedClasses());
  std::vector<Entry> out;
  out.reserve(classes.size());
  size_t next = 0;
  for (jclass k : classes) {
    ++next;
    auto jvmti_status = ctx.jvmti.GetClassStatus(k);
    if (!jvmti_status) {
      jni->DeleteLocalRef(k);
      if (jvmti_status.error().code == JVMTI_ERROR_INVALID_CLASS) continue;  // unloaded meanwhile
      for (size_t i = next; i < classes.size(); ++i) jni->DeleteLocalRef(classes[i]);
      return tl::unexpected(FromVm(jvmti_status.error()));
    }
    if (*jvmti_status & (JVMTI_CLASS_STATUS_PREPARED | JVMTI_CLASS_STATUS_ARRAY)) {
      LoadedType t{k, *jvmti_status, 0, (*jvmti_status & JVMTI_CLASS_STATUS_ARRAY) != 0};
      if (t.jvmti_status & JVMTI_CLASS_STATUS_VERIFIED) t.status |= jdwp::ClassStatus::kVerified;
      if (t.jvmti_status & JVMTI_CLASS_STATUS_PREPARED) t.status |= jdwp::ClassStatus::kPrepared;
      if (t.jvmti_status & JVMTI_CLASS_STATUS_INITIALIZED) t.status |= jdwp::ClassStatus::kInitialized;
      if (t.jvmti_status & JVMTI_CLASS_STATUS_ERROR) t.status |= jdwp::ClassStatus::kError;
      Entry e{};
      if (fill(t, e)) out.push_back(std::move(e));
    }
    jni->DeleteLocalRef(k);
  }
  return out;
}

// The class table is built after the first scan that finds it missing
// (class_table.h): that scan asks the VM directly, as before.
void PostTableBuild(Context& ctx, SessionControl& session) {
  if (ctx.classes.TakeBuild()) {
    Context* c = &ctx;
    session.PostTask([c](JNIEnv* jni) { (void)c->classes.Sync(jni, /*build=*/true); });
  }
}

class VirtualMachineHandlers : public HandlerBase {
 public:
  VirtualMachineHandlers(const CommandEnv& env, const Dispatcher& dispatcher, SessionControl& session)
      : HandlerBase(env), dispatcher_(dispatcher), session_(session) {}

  jdwp::Result<VM::Version::Reply> Version(const VM::Version::Request&) {
    VM::Version::Reply r;
    std::string version = Property(ctx_, env(), "java.version");
    std::string vm_name = Property(ctx_, env(), "java.vm.name");
    std::string vm_info = Property(ctx_, env(), "java.vm.info");
    std::string vm_version = Property(ctx_, env(), "java.vm.version");
    r.description = "Java Debug Wire Protocol (Reference Implementation) version " + std::to_string(ctx_.jdk_feature_version) +
                    ".0\nJVM Debug Interface version " + std::to_string(ctx_.jdk_feature_version) + ".0\nJVM version " +
                    version + " (" + vm_name + ", " + vm_info + ")" +
                    // How a client recognizes jdwpx before it sends a Probe command
                    // (jdwp/commands/probe.h); the description's format is the
                    // implementation's (spec), and its first three lines stay stock's.
                    "\n" + std::string(jdwp::Probe::kVersionLine);
    r.jdwp_major = ctx_.jdk_feature_version;
    r.jdwp_minor = 0;
    r.vm_version = version;
    r.vm_name = vm_name;
    return r;
  }

  // From the class table (class_table.h) once a session has filled it; from
  // the VM's list of loaded classes when the VM offers no object tags.
  jdwp::Result<VM::ClassesBySignature::Reply> ClassesBySignature(const VM::ClassesBySignature::Request& req) {
    VM::ClassesBySignature::Reply r;
    if (ctx_.classes.ready()) {
      RETURN_IF_ERROR(ctx_.classes.BySignature(env(), req.signature, [&](const ClassTable::Listed& t) {
        r.classes.push_back({t.tag, t.id, t.status});
      }));
      return r;
    }
    std::string wanted = FromWireString(req.signature);
    PostTableBuild(ctx_, session_);
    ASSIGN_OR_RETURN(r.classes, LoadedTypes<VM::ClassesBySignature::Class>(
                                    ctx_, env(), [&](const LoadedType& t, VM::ClassesBySignature::Class& e) {
                                      auto sig = ctx_.jvmti.GetClassSignatureOnly(t.klass);
                                      if (!sig || *sig != wanted) return false;
                                      e.ref_type_tag = TypeTagOf(ctx_, t);
                                      e.type_id = ctx_.IdOf<jdwp::ReferenceTypeId>(env(), t.klass);
                                      e.status = t.status;
                                      return true;
                                    }));
    return r;
  }

  jdwp::Result<VM::AllClasses::Reply> AllClasses(const VM::AllClasses::Request&) {
    VM::AllClasses::Reply r;
    if (ctx_.classes.ready()) {
      // In wire form, with room for the packet header: the reply's only copy.
      jdwp::WireListBuilder list(jdwp::kHeaderSize);
      RETURN_IF_ERROR(ctx_.classes.All(env(), false, list));
      r.classes = std::move(list).Finish<VM::AllClasses::Class>();
      return r;
    }
    PostTableBuild(ctx_, session_);
    ASSIGN_OR_RETURN(r.classes.items, LoadedTypes<VM::AllClasses::Class>(
                                    ctx_, env(), [&](const LoadedType& t, VM::AllClasses::Class& e) {
                                      auto sig = ctx_.jvmti.GetClassSignatureOnly(t.klass);
                                      if (!sig) return false;
                                      e.ref_type_tag = TypeTagOf(ctx_, t);
                                      e.type_id = ctx_.IdOf<jdwp::ReferenceTypeId>(env(), t.klass);
                                      e.signature = ToWireString(*sig);
                                      e.status = t.status;
                                      return true;
                                    }));
    return r;
  }

  jdwp::Result<VM::AllThreads::Reply> AllThreads(const VM::AllThreads::Request&) {
    ASSIGN_OR_RETURN(auto threads, ctx_.threads.DebuggeeThreads(env()));
    VM::AllThreads::Reply r;
    for (jthread t : threads) {
      r.threads.push_back(ctx_.IdOf<jdwp::ThreadId>(env(), t));
      env()->DeleteLocalRef(t);
    }
    return r;
  }

  jdwp::Result<VM::TopLevelThreadGroups::Reply> TopLevelThreadGroups(const VM::TopLevelThreadGroups::Request&) {
    VM_ASSIGN_OR_RETURN(auto groups, ctx_.jvmti.GetTopThreadGroups());
    VM::TopLevelThreadGroups::Reply r;
    for (jthreadGroup g : groups) {
      r.groups.push_back(ctx_.IdOf<jdwp::ThreadGroupId>(env(), g));
      env()->DeleteLocalRef(g);
    }
    return r;
  }

  jdwp::Result<VM::Dispose::Reply> Dispose(const VM::Dispose::Request&) {
    session_.RequestDispose();
    return VM::Dispose::Reply{};
  }

  jdwp::Result<VM::IDSizes::Reply> IDSizes(const VM::IDSizes::Request&) {
    return VM::IDSizes::Reply{8, 8, 8, 8, 8};
  }

  jdwp::Result<VM::Suspend::Reply> Suspend(const VM::Suspend::Request&) {
    RETURN_IF_ERROR(ctx_.threads.SuspendAll(env(), session()));
    return VM::Suspend::Reply{};
  }

  jdwp::Result<VM::Resume::Reply> Resume(const VM::Resume::Request&) {
    // Events after a SUSPEND_ALL one go out now (events.h); unblocked first, so
    // that a resumed thread's next event finds the way clear (the direct path;
    // after the resume, as stock, it mostly lost that race: 1.2x stock's rate,
    // not 1.6x). The order is not visible: while blocked every thread is counted
    // by that SUSPEND_ALL, so an event queued behind it that the reporter now
    // suspends ends with the same counts whether its +1 comes before or after
    // this resume's -1.
    reporter_.UnblockAfterResume(session());
    auto resumed = ctx_.threads.ResumeAll(env(), session());
    RETURN_IF_ERROR(resumed);
    return VM::Resume::Reply{};
  }

  jdwp::Result<VM::Exit::Reply> Exit(const VM::Exit::Request& req) {
    // The reply goes out first (as stock); the agent exits once it is written.
    session_.RequestExit(req.exit_code);
    return VM::Exit::Reply{};
  }

  jdwp::Result<VM::CreateString::Reply> CreateString(const VM::CreateString::Request& req) {
    // Either encoding (see wire_string.h): the decoder takes both.
    std::u16string utf16 = vmcore::Utf8ToUtf16(req.utf);
    jstring s = env()->NewString(reinterpret_cast<const jchar*>(utf16.data()), static_cast<jsize>(utf16.size()));
    if (!s) {
      env()->ExceptionClear();
      return jdwp::Fail(ErrorCode::kOutOfMemory, "NewString failed");
    }
    return VM::CreateString::Reply{ctx_.IdOf<jdwp::StringId>(env(), s)};
  }

  jdwp::Result<VM::Capabilities::Reply> Capabilities(const VM::Capabilities::Request&) {
    auto all = AllCapabilities();
    VM::Capabilities::Reply r{};
    r.can_watch_field_modification = all.can_watch_field_modification;
    r.can_watch_field_access = all.can_watch_field_access;
    r.can_get_bytecodes = all.can_get_bytecodes;
    r.can_get_synthetic_attribute = all.can_get_synthetic_attribute;
    r.can_get_owned_monitor_info = all.can_get_owned_monitor_info;
    r.can_get_current_contended_monitor = all.can_get_current_contended_monitor;
    r.can_get_monitor_info = all.can_get_monitor_info;
    return r;
  }

  jdwp::Result<VM::ClassPaths::Reply> ClassPaths(const VM::ClassPaths::Request&) {
    VM::ClassPaths::Reply r;
    r.base_dir = Property(ctx_, env(), "user.dir");
    r.classpaths = SplitPath(Property(ctx_, env(), "java.class.path"));
    // Since JDK 9 there is no boot class path to report (stock sends an empty list).
    return r;
  }

  jdwp::Result<VM::DisposeObjects::Reply> DisposeObjects(const VM::DisposeObjects::Request& req) {
    // With several debuggers attached, each takes off no more than its own count (ids.h).
    for (const auto& e : req.requests) ctx_.objects.Release(env(), e.object, e.ref_cnt, session());
    return VM::DisposeObjects::Reply{};
  }

  jdwp::Result<VM::HoldEvents::Reply> HoldEvents(const VM::HoldEvents::Request&) {
    reporter_.Hold(session());
    return VM::HoldEvents::Reply{};
  }

  jdwp::Result<VM::ReleaseEvents::Reply> ReleaseEvents(const VM::ReleaseEvents::Request&) {
    reporter_.Release(session());
    return VM::ReleaseEvents::Reply{};
  }

  jdwp::Result<VM::CapabilitiesNew::Reply> CapabilitiesNew(const VM::CapabilitiesNew::Request&) {
    return AllCapabilities();
  }

  jdwp::Result<VM::RedefineClasses::Reply> RedefineClasses(const VM::RedefineClasses::Request& req) {
    std::vector<jvmtiClassDefinition> definitions;
    std::vector<jclass> classes;
    definitions.reserve(req.classes.size());
    for (const auto& k : req.classes) {
      ASSIGN_OR_RETURN(jclass klass, ctx_.Class(env(), k.ref_type));
      classes.push_back(klass);
      definitions.push_back({klass, static_cast<jint>(k.classfile.size()), k.classfile.data()});
    }
    if (definitions.empty()) return VM::RedefineClasses::Reply{};
    // The redefinition clears hooks' breakpoints: no thread runs Java code until
    // they are set again and their frames followed (method_hooks.h).
    ThreadControl::ScopedVmSuspension frozen(ctx_.threads, env(), events_.requests().HasMethodHooks(), session());
    // JVMTI's errors map one to one onto the spec's (errors.cc): NAMES_DONT_MATCH,
    // INVALID_CLASS_FORMAT, ADD_METHOD_NOT_IMPLEMENTED, SCHEMA_CHANGE_NOT_IMPLEMENTED...
    auto redefined = ctx_.jvmti.RedefineClasses(definitions);
    // Methods kept their jmethodIDs but may have new code: cached line tables go.
    ctx_.ForgetMethodCaches();
    ctx_.classes.ForgetGenerics();
    ctx_.frame_reads.Clear();  // a frame in a redefined method now runs an obsolete one
    VM_RETURN_IF_ERROR(std::move(redefined));
    // JVMTI cleared the breakpoints in these classes; as stock, their requests go too.
    events_.requests().ForgetBreakpointsIn(env(), classes);
    probes_.AfterRedefine(env(), classes);  // probes are set again in the new code
    for (jclass k : classes) env()->DeleteLocalRef(k);
    return VM::RedefineClasses::Reply{};
  }

  jdwp::Result<VM::SetDefaultStratum::Reply> SetDefaultStratum(const VM::SetDefaultStratum::Request& req) {
    ctx_.SetDefaultStratum(req.stratum_id);
    return VM::SetDefaultStratum::Reply{};
  }

  jdwp::Result<VM::AllClassesWithGeneric::Reply> AllClassesWithGeneric(const VM::AllClassesWithGeneric::Request&) {
    VM::AllClassesWithGeneric::Reply r;
    if (ctx_.classes.ready()) {
      jdwp::WireListBuilder list(jdwp::kHeaderSize);  // as AllClasses'
      RETURN_IF_ERROR(ctx_.classes.All(env(), true, list));
      r.classes = std::move(list).Finish<VM::AllClassesWithGeneric::Class>();
      return r;
    }
    PostTableBuild(ctx_, session_);
    ASSIGN_OR_RETURN(r.classes.items, LoadedTypes<VM::AllClassesWithGeneric::Class>(
                                    ctx_, env(), [&](const LoadedType& t, VM::AllClassesWithGeneric::Class& e) {
                                      auto sig = ctx_.jvmti.GetClassSignature(t.klass);
                                      if (!sig) return false;
                                      e.ref_type_tag = TypeTagOf(ctx_, t);
                                      e.type_id = ctx_.IdOf<jdwp::ReferenceTypeId>(env(), t.klass);
                                      e.signature = ToWireString(sig->signature);
                                      e.generic_signature = ToWireString(sig->generic);
                                      e.status = t.status;
                                      return true;
                                    }));
    return r;
  }

  // A heap walk in a scratch JVMTI environment (vmcore::Jvmti::CountReachableInstances).
  jdwp::Result<VM::InstanceCounts::Reply> InstanceCounts(const VM::InstanceCounts::Request& req) {
    JNIEnv* jni = env();
    // A type that cannot be resolved (unloaded, unknown, not a type) counts 0, as stock.
    std::vector<jclass> classes;
    classes.reserve(req.ref_types_count.size());
    for (auto id : req.ref_types_count) {
      auto k = ctx_.Class(jni, id);
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
  }

  jdwp::Result<VM::AllModules::Reply> AllModules(const VM::AllModules::Request&) {
    VM_ASSIGN_OR_RETURN(auto all, ctx_.jvmti.GetAllModules());
    VM::AllModules::Reply r;
    r.modules.reserve(all.size());
    for (jobject m : all) {
      r.modules.push_back(ctx_.IdOf<jdwp::ModuleId>(env(), m));
      env()->DeleteLocalRef(m);
    }
    return r;
  }

 private:
  // A capability is reported when the VM granted what it needs and the commands
  // it promises are bound (asked at reply time, after every command set has
  // registered). Event-based ones (field watchpoints, monitor events) stay false
  // until the event manager reports those kinds.
  VM::CapabilitiesNew::Reply AllCapabilities() const {
    auto vm = ctx_.jvmti.GetCapabilities();
    jvmtiCapabilities granted = vm ? *vm : jvmtiCapabilities{};
    VM::CapabilitiesNew::Reply r{};
    r.can_watch_field_modification = granted.can_generate_field_modification_events;
    r.can_watch_field_access = granted.can_generate_field_access_events;
    r.can_get_bytecodes = granted.can_get_bytecodes && Has(jdwp::Method::Bytecodes::kId);
    r.can_get_synthetic_attribute = granted.can_get_synthetic_attribute;
    r.can_get_owned_monitor_info =
        granted.can_get_owned_monitor_info && Has(jdwp::ThreadReference::OwnedMonitors::kId);
    r.can_get_current_contended_monitor =
        granted.can_get_current_contended_monitor && Has(jdwp::ThreadReference::CurrentContendedMonitor::kId);
    r.can_get_monitor_info = granted.can_get_monitor_info && Has(jdwp::ObjectReference::MonitorInfo::kId);
    r.can_redefine_classes = granted.can_redefine_classes && Has(VM::RedefineClasses::kId);
    r.can_add_method = false;  // deprecated since JDK 15; no JVMTI agent can
    r.can_unrestrictedly_redefine_classes = false;
    r.can_pop_frames = granted.can_pop_frame && Has(jdwp::StackFrame::PopFrames::kId);
    r.can_use_instance_filters = true;
    r.can_get_source_debug_extension =
        granted.can_get_source_debug_extension && Has(jdwp::ReferenceType::SourceDebugExtension::kId);
    r.can_request_vm_death_event = true;
    r.can_set_default_stratum = Has(VM::SetDefaultStratum::kId);
    r.can_get_instance_info = granted.can_tag_objects && Has(VM::InstanceCounts::kId) &&
                              Has(jdwp::ReferenceType::Instances::kId) &&
                              Has(jdwp::ObjectReference::ReferringObjects::kId);
    r.can_request_monitor_events = granted.can_generate_monitor_events;
    r.can_get_monitor_frame_info = granted.can_get_owned_monitor_stack_depth_info &&
                                   Has(jdwp::ThreadReference::OwnedMonitorsStackDepthInfo::kId);
    r.can_use_source_name_filters = false;  // as stock (JDK 17), though SourceNameMatch filters ClassPrepare
    r.can_get_constant_pool = granted.can_get_constant_pool && Has(jdwp::ReferenceType::ConstantPool::kId);
    r.can_force_early_return = granted.can_force_early_return && Has(jdwp::ThreadReference::ForceEarlyReturn::kId);
    return r;
  }
  bool Has(jdwp::CommandId id) const { return dispatcher_.Has(static_cast<uint8_t>(id.set), id.command); }

  const Dispatcher& dispatcher_;
  SessionControl& session_;
};

}  // namespace

void BindVirtualMachine(Dispatcher& d, const CommandEnv& env, SessionControl& session) {
  using H = VirtualMachineHandlers;
  auto h = std::make_shared<H>(env, d, session);
  d.Bind<VM::Version>(std::bind_front(&H::Version, h));
  d.Bind<VM::ClassesBySignature>(std::bind_front(&H::ClassesBySignature, h));
  d.Bind<VM::AllClasses>(std::bind_front(&H::AllClasses, h));
  d.Bind<VM::AllThreads>(std::bind_front(&H::AllThreads, h));
  d.Bind<VM::TopLevelThreadGroups>(std::bind_front(&H::TopLevelThreadGroups, h));
  d.Bind<VM::Dispose>(std::bind_front(&H::Dispose, h));
  d.Bind<VM::IDSizes>(std::bind_front(&H::IDSizes, h));
  d.Bind<VM::Suspend>(std::bind_front(&H::Suspend, h));
  d.Bind<VM::Resume>(std::bind_front(&H::Resume, h));
  d.Bind<VM::Exit>(std::bind_front(&H::Exit, h));
  d.Bind<VM::CreateString>(std::bind_front(&H::CreateString, h));
  d.Bind<VM::Capabilities>(std::bind_front(&H::Capabilities, h));
  d.Bind<VM::ClassPaths>(std::bind_front(&H::ClassPaths, h));
  d.Bind<VM::DisposeObjects>(std::bind_front(&H::DisposeObjects, h));
  d.Bind<VM::HoldEvents>(std::bind_front(&H::HoldEvents, h));
  d.Bind<VM::ReleaseEvents>(std::bind_front(&H::ReleaseEvents, h));
  d.Bind<VM::CapabilitiesNew>(std::bind_front(&H::CapabilitiesNew, h));
  d.Bind<VM::RedefineClasses>(std::bind_front(&H::RedefineClasses, h));
  d.Bind<VM::SetDefaultStratum>(std::bind_front(&H::SetDefaultStratum, h));
  d.Bind<VM::AllClassesWithGeneric>(std::bind_front(&H::AllClassesWithGeneric, h));
  d.Bind<VM::InstanceCounts>(std::bind_front(&H::InstanceCounts, h));
  d.Bind<VM::AllModules>(std::bind_front(&H::AllModules, h));
}

}  // namespace jdwpx::backend
