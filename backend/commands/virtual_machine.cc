// VirtualMachine command set (1).
#include <cstdlib>

#include "backend/agent.h"
#include "backend/errors.h"
#include "jdwp/commands/virtual_machine.h"
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
      std::string out = chars ? vmcore::ModifiedUtf8ToUtf8(chars) : std::string();
      if (chars) jni->ReleaseStringUTFChars(value, chars);
      return out;
    }
  }
  jni->ExceptionClear();
  auto v = ctx.jvmti.GetSystemProperty(name);
  return v && *v ? vmcore::ModifiedUtf8ToUtf8(**v) : std::string();
}

// Every loaded type with what AllClasses* report; classes not yet prepared are
// left out (their content cannot be read), as stock does.
template <class Entry, class Fill>
jdwp::Result<std::vector<Entry>> LoadedTypes(Context& ctx, JNIEnv* jni, Fill fill) {
  VM_ASSIGN_OR_RETURN(auto classes, ctx.jvmti.LoadedClasses());
  std::vector<Entry> out;
  out.reserve(classes.size());
  for (jclass k : classes) {
    int32_t status = ctx.ClassStatusOf(k);
    bool is_array = ctx.TypeTagOf(k) == jdwp::TypeTag::kArray;
    if ((status & jdwp::ClassStatus::kPrepared) || is_array) {
      Entry e{};
      if (fill(k, status, e)) out.push_back(std::move(e));
    }
    jni->DeleteLocalRef(k);
  }
  return out;
}

}  // namespace

void RegisterVirtualMachine(Dispatcher& d, Context& ctx, Agent& agent, JNIEnv** jni_slot) {
  Context* c = &ctx;
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

  d.Bind<VM::ClassesBySignature>([c, J](const VM::ClassesBySignature::Request& req)
                                     -> jdwp::Result<VM::ClassesBySignature::Reply> {
    std::string wanted = vmcore::Utf8ToModifiedUtf8(req.signature);
    VM::ClassesBySignature::Reply r;
    ASSIGN_OR_RETURN(r.classes, LoadedTypes<VM::ClassesBySignature::Class>(
                                    *c, J(), [&](jclass k, int32_t status, VM::ClassesBySignature::Class& e) {
                                      auto sig = c->jvmti.GetClassSignature(k);
                                      if (!sig || sig->signature != wanted) return false;
                                      e.ref_type_tag = c->TypeTagOf(k);
                                      e.type_id = c->IdOf<jdwp::ReferenceTypeId>(J(), k);
                                      e.status = status;
                                      return true;
                                    }));
    return r;
  });

  d.Bind<VM::AllClasses>([c, J](const VM::AllClasses::Request&) -> jdwp::Result<VM::AllClasses::Reply> {
    VM::AllClasses::Reply r;
    ASSIGN_OR_RETURN(r.classes, LoadedTypes<VM::AllClasses::Class>(
                                    *c, J(), [&](jclass k, int32_t status, VM::AllClasses::Class& e) {
                                      auto sig = c->jvmti.GetClassSignature(k);
                                      if (!sig) return false;
                                      e.ref_type_tag = c->TypeTagOf(k);
                                      e.type_id = c->IdOf<jdwp::ReferenceTypeId>(J(), k);
                                      e.signature = vmcore::ModifiedUtf8ToUtf8(sig->signature);
                                      e.status = status;
                                      return true;
                                    }));
    return r;
  });

  d.Bind<VM::AllClassesWithGeneric>([c, J](const VM::AllClassesWithGeneric::Request&)
                                        -> jdwp::Result<VM::AllClassesWithGeneric::Reply> {
    VM::AllClassesWithGeneric::Reply r;
    ASSIGN_OR_RETURN(r.classes, LoadedTypes<VM::AllClassesWithGeneric::Class>(
                                    *c, J(), [&](jclass k, int32_t status, VM::AllClassesWithGeneric::Class& e) {
                                      auto sig = c->jvmti.GetClassSignature(k);
                                      if (!sig) return false;
                                      e.ref_type_tag = c->TypeTagOf(k);
                                      e.type_id = c->IdOf<jdwp::ReferenceTypeId>(J(), k);
                                      e.signature = vmcore::ModifiedUtf8ToUtf8(sig->signature);
                                      e.generic_signature = vmcore::ModifiedUtf8ToUtf8(sig->generic);
                                      e.status = status;
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
    RETURN_IF_ERROR(c->threads.ResumeAll(J()));
    return VM::Resume::Reply{};
  });

  d.Bind<VM::Exit>([a](const VM::Exit::Request& req) -> jdwp::Result<VM::Exit::Reply> {
    // The reply goes out first (as stock); the agent exits once it is written.
    a->RequestExit(req.exit_code);
    return VM::Exit::Reply{};
  });

  d.Bind<VM::CreateString>([c, J](const VM::CreateString::Request& req) -> jdwp::Result<VM::CreateString::Reply> {
    std::u16string utf16 = vmcore::Utf8ToUtf16(req.utf);
    jstring s = J()->NewString(reinterpret_cast<const jchar*>(utf16.data()), static_cast<jsize>(utf16.size()));
    if (!s) {
      J()->ExceptionClear();
      return jdwp::Fail(ErrorCode::kOutOfMemory, "NewString failed");
    }
    return VM::CreateString::Reply{c->IdOf<jdwp::StringId>(J(), s)};
  });

  d.Bind<VM::Capabilities>([](const VM::Capabilities::Request&) -> jdwp::Result<VM::Capabilities::Reply> {
    VM::Capabilities::Reply r{};
    r.can_get_bytecodes = true;
    r.can_get_synthetic_attribute = true;
    return r;
  });

  d.Bind<VM::CapabilitiesNew>([](const VM::CapabilitiesNew::Request&) -> jdwp::Result<VM::CapabilitiesNew::Reply> {
    // Only what jdwpx implements today; the rest follows with the commands.
    VM::CapabilitiesNew::Reply r{};
    r.can_get_bytecodes = true;
    r.can_get_synthetic_attribute = true;
    r.can_use_instance_filters = true;
    r.can_get_source_debug_extension = true;
    r.can_request_vm_death_event = true;
    return r;
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
}

}  // namespace jdwpx::backend
