// ReferenceType command set (2).
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/commands/helpers.h"
#include "backend/errors.h"
#include "backend/values/values.h"
#include "backend/ids/wire_string.h"
#include "jdwp/commands/reference_type.h"

namespace jdwpx::backend {

namespace RT = jdwp::ReferenceType;
using jdwp::ErrorCode;

namespace {

constexpr int32_t kSyntheticBit = static_cast<int32_t>(0xf0000000);

template <class Entry, bool kGeneric>
jdwp::Result<std::vector<Entry>> FieldsOf(Context& c, JNIEnv* jni, jdwp::ReferenceTypeId type) {
  ASSIGN_OR_RETURN(jclass klass, c.Class(jni, type));
  VM_ASSIGN_OR_RETURN(auto fields, c.jvmti.GetClassFields(klass));
  std::vector<Entry> out;
  for (jfieldID f : fields) {
    c.members.AddField(f);
    VM_ASSIGN_OR_RETURN(auto name, c.jvmti.GetFieldName(klass, f));
    VM_ASSIGN_OR_RETURN(jint mods, c.jvmti.GetFieldModifiers(klass, f));
    auto synthetic = c.jvmti.IsFieldSynthetic(klass, f);
    if (synthetic && *synthetic) mods |= kSyntheticBit;
    Entry e{};
    e.field_id = ToWire(f);
    e.name = ToWireString(name.name);
    e.signature = ToWireString(name.signature);
    if constexpr (kGeneric) e.generic_signature = ToWireString(name.generic);
    e.mod_bits = mods;
    out.push_back(std::move(e));
  }
  return out;
}

template <class Entry, bool kGeneric>
jdwp::Result<std::vector<Entry>> MethodsOf(Context& c, JNIEnv* jni, jdwp::ReferenceTypeId type) {
  ASSIGN_OR_RETURN(jclass klass, c.Class(jni, type));
  VM_ASSIGN_OR_RETURN(auto methods, c.jvmti.GetClassMethods(klass));
  std::vector<Entry> out;
  for (jmethodID m : methods) {
    c.members.AddMethod(m);
    VM_ASSIGN_OR_RETURN(auto name, c.jvmti.GetMethodName(m));
    VM_ASSIGN_OR_RETURN(jint mods, c.jvmti.GetMethodModifiers(m));
    auto synthetic = c.jvmti.IsMethodSynthetic(m);
    if (synthetic && *synthetic) mods |= kSyntheticBit;
    Entry e{};
    e.method_id = ToWire(m);
    e.name = ToWireString(name.name);
    e.signature = ToWireString(name.signature);
    if constexpr (kGeneric) e.generic_signature = ToWireString(name.generic);
    e.mod_bits = mods;
    out.push_back(std::move(e));
  }
  return out;
}

// Stock's rule for "directly nested" (JDWP leaves it to the back-end): a class of
// the outer class's loader named Outer$Name or Outer#Name where Name holds no
// further separator; a leading run of digits is allowed (local classes, Outer$1Local)
// unless it is the whole name (anonymous classes, Outer$1).
bool IsDirectlyNested(const std::string& outer_sig, const std::string& sig, char sep) {
  // Signatures are "Lpkg/Outer;": compare without the trailing ';'.
  if (outer_sig.empty() || sig.size() <= outer_sig.size()) return false;
  size_t prefix = outer_sig.size() - 1;
  if (sig.compare(0, prefix, outer_sig, 0, prefix) != 0 || sig[prefix] != sep) return false;
  size_t pos = prefix + 1;
  while (pos < sig.size() && sig[pos] >= '0' && sig[pos] <= '9') ++pos;
  if (pos < sig.size() && sig[pos] == ';') return false;
  return sig.find(sep, pos) == std::string::npos;
}

class ReferenceTypeHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  jdwp::Result<RT::Signature::Reply> Signature(const RT::Signature::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.ref_type));
    VM_ASSIGN_OR_RETURN(auto sig, ctx_.jvmti.GetClassSignature(k));
    return RT::Signature::Reply{ToWireString(sig.signature)};
  }

  jdwp::Result<RT::ClassLoader::Reply> ClassLoader(const RT::ClassLoader::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.ref_type));
    VM_ASSIGN_OR_RETURN(jobject loader, ctx_.jvmti.GetClassLoader(k));
    return RT::ClassLoader::Reply{ctx_.IdOf<jdwp::ClassLoaderId>(env(), loader)};
  }

  jdwp::Result<RT::Modifiers::Reply> Modifiers(const RT::Modifiers::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.ref_type));
    VM_ASSIGN_OR_RETURN(jint mods, ctx_.jvmti.GetClassModifiers(k));
    return RT::Modifiers::Reply{mods};
  }

  jdwp::Result<RT::Fields::Reply> Fields(const RT::Fields::Request& req) {
    RT::Fields::Reply r;
    ASSIGN_OR_RETURN(r.declared, (FieldsOf<RT::Fields::Field, false>(ctx_, env(), req.ref_type)));
    return r;
  }

  jdwp::Result<RT::Methods::Reply> Methods(const RT::Methods::Request& req) {
    RT::Methods::Reply r;
    ASSIGN_OR_RETURN(r.declared, (MethodsOf<RT::Methods::Method, false>(ctx_, env(), req.ref_type)));
    return r;
  }

  jdwp::Result<RT::GetValues::Reply> GetValues(const RT::GetValues::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.ref_type));
    RT::GetValues::Reply r;
    for (auto fid : req.fields) {
      ASSIGN_OR_RETURN(jfieldID f, ctx_.Field(fid));
      VM_ASSIGN_OR_RETURN(auto name, ctx_.jvmti.GetFieldName(k, f));
      VM_ASSIGN_OR_RETURN(jint mods, ctx_.jvmti.GetFieldModifiers(k, f));
      if (!(mods & 0x0008)) return jdwp::Fail(ErrorCode::kInvalidFieldid, "not a static field");
      // The declaring class reads the static (a subclass ID may be given).
      VM_ASSIGN_OR_RETURN(jclass decl, ctx_.jvmti.GetFieldDeclaringClass(k, f));
      r.values.push_back(ReadField(ctx_, env(), nullptr, decl, f, name.signature[0]));
      env()->DeleteLocalRef(decl);
    }
    return r;
  }

  jdwp::Result<RT::SourceFile::Reply> SourceFile(const RT::SourceFile::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.ref_type));
    VM_ASSIGN_OR_RETURN(auto name, ctx_.jvmti.GetSourceFileName(k));
    return RT::SourceFile::Reply{ToWireString(name)};
  }

  jdwp::Result<RT::NestedTypes::Reply> NestedTypes(const RT::NestedTypes::Request& req) {
    JNIEnv* jni = env();
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(jni, req.ref_type));
    VM_ASSIGN_OR_RETURN(jobject loader, ctx_.jvmti.GetClassLoader(k));
    VM_ASSIGN_OR_RETURN(std::string outer, ctx_.jvmti.GetClassSignatureOnly(k));
    auto candidates = ctx_.jvmti.GetClassLoaderClasses(loader);
    if (loader) jni->DeleteLocalRef(loader);
    VM_ASSIGN_OR_RETURN(auto classes, std::move(candidates));
    RT::NestedTypes::Reply r;
    for (jclass candidate : classes) {
      auto sig = ctx_.jvmti.GetClassSignatureOnly(candidate);
      if (sig && (IsDirectlyNested(outer, *sig, '$') || IsDirectlyNested(outer, *sig, '#'))) {
        r.classes.push_back({ctx_.TypeTagOf(candidate), ctx_.IdOf<jdwp::ReferenceTypeId>(jni, candidate)});
      }
      jni->DeleteLocalRef(candidate);
    }
    return r;
  }

  jdwp::Result<RT::Status::Reply> Status(const RT::Status::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.ref_type));
    return RT::Status::Reply{ctx_.ClassStatusOf(k)};
  }

  jdwp::Result<RT::Interfaces::Reply> Interfaces(const RT::Interfaces::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.ref_type));
    VM_ASSIGN_OR_RETURN(auto ifaces, ctx_.jvmti.GetImplementedInterfaces(k));
    RT::Interfaces::Reply r;
    for (jclass i : ifaces) r.interfaces.push_back(ctx_.IdOf<jdwp::InterfaceId>(env(), i));
    return r;
  }

  jdwp::Result<RT::ClassObject::Reply> ClassObject(const RT::ClassObject::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.ref_type));
    return RT::ClassObject::Reply{ctx_.IdOf<jdwp::ClassObjectId>(env(), k)};
  }

  jdwp::Result<RT::SourceDebugExtension::Reply> SourceDebugExtension(const RT::SourceDebugExtension::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.ref_type));
    VM_ASSIGN_OR_RETURN(auto ext, ctx_.jvmti.GetSourceDebugExtension(k));
    return RT::SourceDebugExtension::Reply{ToWireString(ext)};
  }

  jdwp::Result<RT::SignatureWithGeneric::Reply> SignatureWithGeneric(const RT::SignatureWithGeneric::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.ref_type));
    VM_ASSIGN_OR_RETURN(auto sig, ctx_.jvmti.GetClassSignature(k));
    return RT::SignatureWithGeneric::Reply{ToWireString(sig.signature), ToWireString(sig.generic)};
  }

  jdwp::Result<RT::FieldsWithGeneric::Reply> FieldsWithGeneric(const RT::FieldsWithGeneric::Request& req) {
    RT::FieldsWithGeneric::Reply r;
    ASSIGN_OR_RETURN(r.declared, (FieldsOf<RT::FieldsWithGeneric::Field, true>(ctx_, env(), req.ref_type)));
    return r;
  }

  jdwp::Result<RT::MethodsWithGeneric::Reply> MethodsWithGeneric(const RT::MethodsWithGeneric::Request& req) {
    RT::MethodsWithGeneric::Reply r;
    ASSIGN_OR_RETURN(r.declared, (MethodsOf<RT::MethodsWithGeneric::Method, true>(ctx_, env(), req.ref_type)));
    return r;
  }

  // A heap walk in a scratch JVMTI environment (vmcore::Jvmti::CountReachableInstances).
  jdwp::Result<RT::Instances::Reply> Instances(const RT::Instances::Request& req) {
    JNIEnv* jni = env();
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(jni, req.ref_type));
    if (req.max_instances < 0) return jdwp::Fail(ErrorCode::kIllegalArgument, "maxInstances < 0");
    VM_ASSIGN_OR_RETURN(auto objects, vmcore::Jvmti::ReachableInstances(jni, k, req.max_instances));
    return RT::Instances::Reply{TaggedIds(ctx_, jni, objects, /*same_class=*/true)};
  }

  jdwp::Result<RT::ClassFileVersion::Reply> ClassFileVersion(const RT::ClassFileVersion::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.ref_type));
    // Arrays and primitive types: ABSENT_INFORMATION (from JVMTI).
    VM_ASSIGN_OR_RETURN(auto version, ctx_.jvmti.GetClassVersionNumbers(k));
    return RT::ClassFileVersion::Reply{version.second, version.first};
  }

  jdwp::Result<RT::ConstantPool::Reply> ConstantPool(const RT::ConstantPool::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.ref_type));
    VM_ASSIGN_OR_RETURN(auto pool, ctx_.jvmti.GetConstantPool(k));
    return RT::ConstantPool::Reply{pool.count, std::move(pool.bytes)};
  }

  jdwp::Result<RT::Module::Reply> Module(const RT::Module::Request& req) {
    ASSIGN_OR_RETURN(jclass k, ctx_.Class(env(), req.ref_type));
    jobject module = env()->GetModule(k);
    if (env()->ExceptionCheck()) {
      env()->ExceptionClear();
      return jdwp::Fail(ErrorCode::kInternal, "GetModule threw");
    }
    return RT::Module::Reply{ctx_.IdOf<jdwp::ModuleId>(env(), module)};
  }
};

}  // namespace

void BindReferenceType(Dispatcher& d, const CommandEnv& env) {
  using H = ReferenceTypeHandlers;
  auto h = std::make_shared<H>(env);
  d.Bind<RT::Signature>(std::bind_front(&H::Signature, h));
  d.Bind<RT::ClassLoader>(std::bind_front(&H::ClassLoader, h));
  d.Bind<RT::Modifiers>(std::bind_front(&H::Modifiers, h));
  d.Bind<RT::Fields>(std::bind_front(&H::Fields, h));
  d.Bind<RT::Methods>(std::bind_front(&H::Methods, h));
  d.Bind<RT::GetValues>(std::bind_front(&H::GetValues, h));
  d.Bind<RT::SourceFile>(std::bind_front(&H::SourceFile, h));
  d.Bind<RT::NestedTypes>(std::bind_front(&H::NestedTypes, h));
  d.Bind<RT::Status>(std::bind_front(&H::Status, h));
  d.Bind<RT::Interfaces>(std::bind_front(&H::Interfaces, h));
  d.Bind<RT::ClassObject>(std::bind_front(&H::ClassObject, h));
  d.Bind<RT::SourceDebugExtension>(std::bind_front(&H::SourceDebugExtension, h));
  d.Bind<RT::SignatureWithGeneric>(std::bind_front(&H::SignatureWithGeneric, h));
  d.Bind<RT::FieldsWithGeneric>(std::bind_front(&H::FieldsWithGeneric, h));
  d.Bind<RT::MethodsWithGeneric>(std::bind_front(&H::MethodsWithGeneric, h));
  d.Bind<RT::Instances>(std::bind_front(&H::Instances, h));
  d.Bind<RT::ClassFileVersion>(std::bind_front(&H::ClassFileVersion, h));
  d.Bind<RT::ConstantPool>(std::bind_front(&H::ConstantPool, h));
  d.Bind<RT::Module>(std::bind_front(&H::Module, h));
}

}  // namespace jdwpx::backend
