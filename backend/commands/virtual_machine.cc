// VirtualMachine command set (1).
#include <cstdlib>

#include "backend/agent.h"
#include "backend/errors.h"
#include "backend/events.h"
#include "backend/wire_string.h"
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
void PostTableBuild(Context& ctx, Outbox& outbox) {
  if (ctx.classes.TakeBuild()) {
    Context* c = &ctx;
    outbox.PostTask([c](JNIEnv* jni) { (void)c->classes.Sync(jni, /*build=*/true); });
  }
}

}  // namespace

void RegisterVirtualMachine(Dispatcher& d, Context& ctx, Agent& agent, JNIEnv** jni_slot) {
  Context* c = &ctx;
  Outbox* outbox = &agent;
  auto J = [jni_slot] { return *jni_slot; };
  Agent* a = &agent;

  d.Bind<VM::Version>([c, J](const VM::Version::Request&) -> jdwp::Result<VM::Version::Reply> {
    VM::Version::Reply r;
    std::string version = Property(*c, J(), "java.version");
    std::string vm_name = Property(*c, J(), "java.vm.name");
    std::string vm_info = Property(*c, J(), "java.vm.info");
    std::string vm_version = Property(*c, J(), "java.vm.version");
    r.description = "Java Debug Wire Protocol (Reference Implementation) version " + std::to_string(c->jdk_feature_version) +
                    ".0\nJVM Debug Interface version " + std::to_string(c->jdk_feature_version) + ".0\nJVM version " +
                    version + " (" + vm_name + ", " + vm_info + ")";
    r.jdwp_major = c->jdk_feature_version;
    r.jdwp_minor = 0;
    r.vm_version = version;
    r.vm_name = vm_name;
    return r;
  });

  // From the class table (class_table.h) once a session has filled it; from
  // the VM's list of loaded classes when the VM offers no object tags.
  d.Bind<VM::ClassesBySignature>([c, J, outbox](const VM::ClassesBySignature::Request& req)
                                     -> jdwp::Result<VM::ClassesBySignature::Reply> {
    VM::ClassesBySignature::Reply r;
    if (c->classes.ready()) {
      RETURN_IF_ERROR(c->classes.BySignature(J(), req.signature, [&](const ClassTable::Listed& t) {
        r.classes.push_back({t.tag, t.id, t.status});
      }));
      return r;
    }
    std::string wanted = FromWireString(req.signature);
    PostTableBuild(*c, *outbox);
    ASSIGN_OR_RETURN(r.classes, LoadedTypes<VM::ClassesBySignature::Class>(
                                    *c, J(), [&](const LoadedType& t, VM::ClassesBySignature::Class& e) {
                                      auto sig = c->jvmti.GetClassSignatureOnly(t.klass);
                                      if (!sig || *sig != wanted) return false;
                                      e.ref_type_tag = TypeTagOf(*c, t);
                                      e.type_id = c->IdOf<jdwp::ReferenceTypeId>(J(), t.klass);
                                      e.status = t.status;
                                      return true;
                                    }));
    return r;
  });

  d.Bind<VM::AllClasses>([c, J, outbox](const VM::AllClasses::Request&) -> jdwp::Result<VM::AllClasses::Reply> {
    VM::AllClasses::Reply r;
    if (c->classes.ready()) {
      // In wire form, with room for the packet header: the reply's only copy.
      jdwp::WireListBuilder list(jdwp::kHeaderSize);
      RETURN_IF_ERROR(c->classes.All(J(), false, list));
      r.classes = std::move(list).Finish<VM::AllClasses::Class>();
      return r;
    }
    PostTableBuild(*c, *outbox);
    ASSIGN_OR_RETURN(r.classes.items, LoadedTypes<VM::AllClasses::Class>(
                                    *c, J(), [&](const LoadedType& t, VM::AllClasses::Class& e) {
                                      auto sig = c->jvmti.GetClassSignatureOnly(t.klass);
                                      if (!sig) return false;
                                      e.ref_type_tag = TypeTagOf(*c, t);
                                      e.type_id = c->IdOf<jdwp::ReferenceTypeId>(J(), t.klass);
                                      e.signature = ToWireString(*sig);
                                      e.status = t.status;
                                      return true;
                                    }));
    return r;
  });

  d.Bind<VM::AllClassesWithGeneric>([c, J, outbox](const VM::AllClassesWithGeneric::Request&)
                                        -> jdwp::Result<VM::AllClassesWithGeneric::Reply> {
    VM::AllClassesWithGeneric::Reply r;
    if (c->classes.ready()) {
      jdwp::WireListBuilder list(jdwp::kHeaderSize);  // as AllClasses'
      RETURN_IF_ERROR(c->classes.All(J(), true, list));
      r.classes = std::move(list).Finish<VM::AllClassesWithGeneric::Class>();
      return r;
    }
    PostTableBuild(*c, *outbox);
    ASSIGN_OR_RETURN(r.classes.items, LoadedTypes<VM::AllClassesWithGeneric::Class>(
                                    *c, J(), [&](const LoadedType& t, VM::AllClassesWithGeneric::Class& e) {
                                      auto sig = c->jvmti.GetClassSignature(t.klass);
                                      if (!sig) return false;
                                      e.ref_type_tag = TypeTagOf(*c, t);
                                      e.type_id = c->IdOf<jdwp::ReferenceTypeId>(J(), t.klass);
                                      e.signature = ToWireString(sig->signature);
                                      e.generic_signature = ToWireString(sig->generic);
                                      e.status = t.status;
                                      return true;
                                    }));
    return r;
  });

  d.Bind<VM::AllThreads>([c, J](const VM::AllThreads::Request&) -> jdwp::Result<VM::AllThreads::Reply> {
    ASSIGN_OR_RETURN(auto threads, c->threads.DebuggeeThreads(J()));
    VM::AllThreads::Reply r;
    for (jthread t : threads) {
      r.threads.push_back(c->IdOf<jdwp::ThreadId>(J(), t));
      J()->DeleteLocalRef(t);
    }
    return r;
  });

  d.Bind<VM::TopLevelThreadGroups>([c, J](const VM::TopLevelThreadGroups::Request&)
                                       -> jdwp::Result<VM::TopLevelThreadGroups::Reply> {
    VM_ASSIGN_OR_RETURN(auto groups, c->jvmti.GetTopThreadGroups());
    VM::TopLevelThreadGroups::Reply r;
    for (jthreadGroup g : groups) {
      r.groups.push_back(c->IdOf<jdwp::ThreadGroupId>(J(), g));
      J()->DeleteLocalRef(g);
    }
    return r;
  });

  d.Bind<VM::Dispose>([a](const VM::Dispose::Request&) -> jdwp::Result<VM::Dispose::Reply> {
    a->RequestDispose();
    return VM::Dispose::Reply{};
  });

  d.Bind<VM::IDSizes>([](const VM::IDSizes::Request&) -> jdwp::Result<VM::IDSizes::Reply> {
    return VM::IDSizes::Reply{8, 8, 8, 8, 8};
  });

  d.Bind<VM::Suspend>([c, J](const VM::Suspend::Request&) -> jdwp::Result<VM::Suspend::Reply> {
    RETURN_IF_ERROR(c->threads.SuspendAll(J()));
    return VM::Suspend::Reply{};
  });

  d.Bind<VM::Resume>([c, J](const VM::Resume::Request&) -> jdwp::Result<VM::Resume::Reply> {
    // Events after a SUSPEND_ALL one go out now (events.h); unblocked first, so
    // that a resumed thread's next event finds the way clear (the direct path;
    // after the resume, as stock, it mostly lost that race: 1.2x stock's rate,
    // not 1.6x). The order is not visible: while blocked every thread is counted
    // by that SUSPEND_ALL, so an event queued behind it that the reporter now
    // suspends ends with the same counts whether its +1 comes before or after
    // this resume's -1.
    c->events->UnblockAfterResume();
    auto resumed = c->threads.ResumeAll(J());
    RETURN_IF_ERROR(resumed);
    return VM::Resume::Reply{};
  });

  d.Bind<VM::Exit>([a](const VM::Exit::Request& req) -> jdwp::Result<VM::Exit::Reply> {
    // The reply goes out first (as stock); the agent exits once it is written.
    a->RequestExit(req.exit_code);
    return VM::Exit::Reply{};
  });

  d.Bind<VM::CreateString>([c, J](const VM::CreateString::Request& req) -> jdwp::Result<VM::CreateString::Reply> {
    // Either encoding (see wire_string.h): the decoder takes both.
    std::u16string utf16 = vmcore::Utf8ToUtf16(req.utf);
    jstring s = J()->NewString(reinterpret_cast<const jchar*>(utf16.data()), static_cast<jsize>(utf16.size()));
    if (!s) {
      J()->ExceptionClear();
      return jdwp::Fail(ErrorCode::kOutOfMemory, "NewString failed");
    }
    return VM::CreateString::Reply{c->IdOf<jdwp::StringId>(J(), s)};
  });

  // A capability is reported when the VM granted what it needs and the commands
  // it promises are bound (asked at reply time, after every command set has
  // registered). Event-based ones (field watchpoints, monitor events) stay false
  // until the event manager reports those kinds.
  Dispatcher* dispatcher = &d;
  auto has = [dispatcher](jdwp::CommandId id) { return dispatcher->Has(static_cast<uint8_t>(id.set), id.command); };
  auto caps_of = [c, has]() {
    auto vm = c->jvmti.GetCapabilities();
    jvmtiCapabilities granted = vm ? *vm : jvmtiCapabilities{};
    VM::CapabilitiesNew::Reply r{};
    r.can_watch_field_modification = granted.can_generate_field_modification_events;
    r.can_watch_field_access = granted.can_generate_field_access_events;
    r.can_get_bytecodes = granted.can_get_bytecodes && has(jdwp::Method::Bytecodes::kId);
    r.can_get_synthetic_attribute = granted.can_get_synthetic_attribute;
    r.can_get_owned_monitor_info =
        granted.can_get_owned_monitor_info && has(jdwp::ThreadReference::OwnedMonitors::kId);
    r.can_get_current_contended_monitor =
        granted.can_get_current_contended_monitor && has(jdwp::ThreadReference::CurrentContendedMonitor::kId);
    r.can_get_monitor_info = granted.can_get_monitor_info && has(jdwp::ObjectReference::MonitorInfo::kId);
    r.can_redefine_classes = granted.can_redefine_classes && has(VM::RedefineClasses::kId);
    r.can_add_method = false;  // deprecated since JDK 15; no JVMTI agent can
    r.can_unrestrictedly_redefine_classes = false;
    r.can_pop_frames = granted.can_pop_frame && has(jdwp::StackFrame::PopFrames::kId);
    r.can_use_instance_filters = true;
    r.can_get_source_debug_extension =
        granted.can_get_source_debug_extension && has(jdwp::ReferenceType::SourceDebugExtension::kId);
    r.can_request_vm_death_event = true;
    r.can_set_default_stratum = has(VM::SetDefaultStratum::kId);
    r.can_get_instance_info = granted.can_tag_objects && has(VM::InstanceCounts::kId) &&
                              has(jdwp::ReferenceType::Instances::kId) &&
                              has(jdwp::ObjectReference::ReferringObjects::kId);
    r.can_request_monitor_events = granted.can_generate_monitor_events;
    r.can_get_monitor_frame_info = granted.can_get_owned_monitor_stack_depth_info &&
                                   has(jdwp::ThreadReference::OwnedMonitorsStackDepthInfo::kId);
    r.can_use_source_name_filters = false;  // as stock (JDK 17), though SourceNameMatch filters ClassPrepare
    r.can_get_constant_pool = granted.can_get_constant_pool && has(jdwp::ReferenceType::ConstantPool::kId);
    r.can_force_early_return = granted.can_force_early_return && has(jdwp::ThreadReference::ForceEarlyReturn::kId);
    return r;
  };

  d.Bind<VM::Capabilities>([caps_of](const VM::Capabilities::Request&) -> jdwp::Result<VM::Capabilities::Reply> {
    auto all = caps_of();
    VM::Capabilities::Reply r{};
    r.can_watch_field_modification = all.can_watch_field_modification;
    r.can_watch_field_access = all.can_watch_field_access;
    r.can_get_bytecodes = all.can_get_bytecodes;
    r.can_get_synthetic_attribute = all.can_get_synthetic_attribute;
    r.can_get_owned_monitor_info = all.can_get_owned_monitor_info;
    r.can_get_current_contended_monitor = all.can_get_current_contended_monitor;
    r.can_get_monitor_info = all.can_get_monitor_info;
    return r;
  });

  d.Bind<VM::CapabilitiesNew>([caps_of](const VM::CapabilitiesNew::Request&)
                                  -> jdwp::Result<VM::CapabilitiesNew::Reply> { return caps_of(); });

  d.Bind<VM::SetDefaultStratum>([c](const VM::SetDefaultStratum::Request& req)
                                    -> jdwp::Result<VM::SetDefaultStratum::Reply> {
    c->SetDefaultStratum(req.stratum_id);
    return VM::SetDefaultStratum::Reply{};
  });

  d.Bind<VM::ClassPaths>([c, J](const VM::ClassPaths::Request&) -> jdwp::Result<VM::ClassPaths::Reply> {
    VM::ClassPaths::Reply r;
    r.base_dir = Property(*c, J(), "user.dir");
    r.classpaths = SplitPath(Property(*c, J(), "java.class.path"));
    // Since JDK 9 there is no boot class path to report (stock sends an empty list).
    return r;
  });

  d.Bind<VM::DisposeObjects>([c, J](const VM::DisposeObjects::Request& req) -> jdwp::Result<VM::DisposeObjects::Reply> {
    for (const auto& e : req.requests) c->objects.Release(J(), e.object, e.ref_cnt);
    return VM::DisposeObjects::Reply{};
  });

  d.Bind<VM::HoldEvents>([c](const VM::HoldEvents::Request&) -> jdwp::Result<VM::HoldEvents::Reply> {
    c->events->Hold();
    return VM::HoldEvents::Reply{};
  });

  d.Bind<VM::ReleaseEvents>([c](const VM::ReleaseEvents::Request&) -> jdwp::Result<VM::ReleaseEvents::Reply> {
    c->events->Release();
    return VM::ReleaseEvents::Reply{};
  });

  d.Bind<VM::RedefineClasses>([c, J](const VM::RedefineClasses::Request& req)
                                  -> jdwp::Result<VM::RedefineClasses::Reply> {
    std::vector<jvmtiClassDefinition> definitions;
    std::vector<jclass> classes;
    definitions.reserve(req.classes.size());
    for (const auto& k : req.classes) {
      ASSIGN_OR_RETURN(jclass klass, c->Class(J(), k.ref_type));
      classes.push_back(klass);
      definitions.push_back({klass, static_cast<jint>(k.classfile.size()), k.classfile.data()});
    }
    if (definitions.empty()) return VM::RedefineClasses::Reply{};
    // The redefinition clears hooks' breakpoints: no thread runs Java code until
    // they are set again and their frames followed (method_hooks.h).
    ThreadControl::ScopedVmSuspension frozen(c->threads, J(), c->events->HasMethodHooks());
    // JVMTI's errors map one to one onto the spec's (errors.cc): NAMES_DONT_MATCH,
    // INVALID_CLASS_FORMAT, ADD_METHOD_NOT_IMPLEMENTED, SCHEMA_CHANGE_NOT_IMPLEMENTED...
    auto redefined = c->jvmti.RedefineClasses(definitions);
    // Methods kept their jmethodIDs but may have new code: cached line tables go.
    c->ForgetMethodCaches();
    c->classes.ForgetGenerics();
    c->frame_reads.Clear();  // a frame in a redefined method now runs an obsolete one
    VM_RETURN_IF_ERROR(std::move(redefined));
    // JVMTI cleared the breakpoints in these classes; as stock, their requests go too.
    c->events->ForgetBreakpointsIn(J(), classes);
    for (jclass k : classes) J()->DeleteLocalRef(k);
    return VM::RedefineClasses::Reply{};
  });
}

}  // namespace jdwpx::backend
