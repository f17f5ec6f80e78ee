// ReferenceType (2), ClassType (3), Method (6), ClassLoaderReference (14),
// ClassObjectReference (17) commands.
#include "backend/agent.h"
#include "backend/errors.h"
#include "backend/values.h"
#include "backend/wire_string.h"
#include "jdwp/commands/class_loader_reference.h"
#include "jdwp/commands/class_object_reference.h"
#include "jdwp/commands/class_type.h"
#include "jdwp/commands/method.h"
#include "jdwp/commands/reference_type.h"

namespace jdwpx::backend {

namespace RT = jdwp::ReferenceType;
namespace CT = jdwp::ClassType;
namespace M = jdwp::Method;
using jdwp::ErrorCode;

namespace {

constexpr int32_t kSyntheticBit = static_cast<int32_t>(0xf0000000);

// The class and method of a (refType, methodID) pair; the method must belong to the class.
jdwp::Result<jmethodID> MethodOf(Context& c, JNIEnv* jni, jdwp::ReferenceTypeId type, jdwp::MethodId id) {
  ASSIGN_OR_RETURN(jclass klass, c.Class(jni, type));
  (void)klass;
  return c.Method(id);
}

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

template <class Slot, bool kGeneric>
jdwp::Result<std::pair<int32_t, std::vector<Slot>>> VariablesOf(Context& c, JNIEnv* jni, jdwp::ReferenceTypeId type,
                                                                jdwp::MethodId id) {
  ASSIGN_OR_RETURN(jmethodID m, MethodOf(c, jni, type, id));
  VM_ASSIGN_OR_RETURN(bool native, c.jvmti.IsMethodNative(m));
  if (native) return jdwp::Fail(ErrorCode::kNativeMethod, "native method");
  VM_ASSIGN_OR_RETURN(jint args, c.jvmti.GetArgumentsSize(m));
  VM_ASSIGN_OR_RETURN(auto table, c.jvmti.GetLocalVariableTable(m));
  std::vector<Slot> slots;
  for (auto& v : table) {
    Slot s{};
    s.code_index = v.start;
    s.name = ToWireString(v.name);
    s.signature = ToWireString(v.signature);
    if constexpr (kGeneric) s.generic_signature = ToWireString(v.generic);
    s.length = v.length;
    s.slot = v.slot;
    slots.push_back(std::move(s));
  }
  return std::make_pair(static_cast<int32_t>(args), std::move(slots));
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

}  // namespace

void RegisterReferenceTypes(Dispatcher& d, Context& ctx, JNIEnv** jni_slot) {
  Context* c = &ctx;
  auto J = [jni_slot] { return *jni_slot; };

  d.Bind<RT::Signature>([c, J](const RT::Signature::Request& req) -> jdwp::Result<RT::Signature::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.ref_type));
    VM_ASSIGN_OR_RETURN(auto sig, c->jvmti.GetClassSignature(k));
    return RT::Signature::Reply{ToWireString(sig.signature)};
  });

  d.Bind<RT::SignatureWithGeneric>([c, J](const RT::SignatureWithGeneric::Request& req)
                                       -> jdwp::Result<RT::SignatureWithGeneric::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.ref_type));
    VM_ASSIGN_OR_RETURN(auto sig, c->jvmti.GetClassSignature(k));
    return RT::SignatureWithGeneric::Reply{ToWireString(sig.signature), ToWireString(sig.generic)};
  });

  d.Bind<RT::ClassLoader>([c, J](const RT::ClassLoader::Request& req) -> jdwp::Result<RT::ClassLoader::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.ref_type));
    VM_ASSIGN_OR_RETURN(jobject loader, c->jvmti.GetClassLoader(k));
    return RT::ClassLoader::Reply{c->IdOf<jdwp::ClassLoaderId>(J(), loader)};
  });

  d.Bind<RT::Modifiers>([c, J](const RT::Modifiers::Request& req) -> jdwp::Result<RT::Modifiers::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.ref_type));
    VM_ASSIGN_OR_RETURN(jint mods, c->jvmti.GetClassModifiers(k));
    return RT::Modifiers::Reply{mods};
  });

  d.Bind<RT::Fields>([c, J](const RT::Fields::Request& req) -> jdwp::Result<RT::Fields::Reply> {
    RT::Fields::Reply r;
    ASSIGN_OR_RETURN(r.declared, (FieldsOf<RT::Fields::Field, false>(*c, J(), req.ref_type)));
    return r;
  });
  d.Bind<RT::FieldsWithGeneric>([c, J](const RT::FieldsWithGeneric::Request& req)
                                    -> jdwp::Result<RT::FieldsWithGeneric::Reply> {
    RT::FieldsWithGeneric::Reply r;
    ASSIGN_OR_RETURN(r.declared, (FieldsOf<RT::FieldsWithGeneric::Field, true>(*c, J(), req.ref_type)));
    return r;
  });
  d.Bind<RT::Methods>([c, J](const RT::Methods::Request& req) -> jdwp::Result<RT::Methods::Reply> {
    RT::Methods::Reply r;
    ASSIGN_OR_RETURN(r.declared, (MethodsOf<RT::Methods::Method, false>(*c, J(), req.ref_type)));
    return r;
  });
  d.Bind<RT::MethodsWithGeneric>([c, J](const RT::MethodsWithGeneric::Request& req)
                                     -> jdwp::Result<RT::MethodsWithGeneric::Reply> {
    RT::MethodsWithGeneric::Reply r;
    ASSIGN_OR_RETURN(r.declared, (MethodsOf<RT::MethodsWithGeneric::Method, true>(*c, J(), req.ref_type)));
    return r;
  });

  d.Bind<RT::GetValues>([c, J](const RT::GetValues::Request& req) -> jdwp::Result<RT::GetValues::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.ref_type));
    RT::GetValues::Reply r;
    for (auto fid : req.fields) {
      ASSIGN_OR_RETURN(jfieldID f, c->Field(fid));
      VM_ASSIGN_OR_RETURN(auto name, c->jvmti.GetFieldName(k, f));
      VM_ASSIGN_OR_RETURN(jint mods, c->jvmti.GetFieldModifiers(k, f));
      if (!(mods & 0x0008)) return jdwp::Fail(ErrorCode::kInvalidFieldid, "not a static field");
      // The declaring class reads the static (a subclass ID may be given).
      VM_ASSIGN_OR_RETURN(jclass decl, c->jvmti.GetFieldDeclaringClass(k, f));
      r.values.push_back(ReadField(*c, J(), nullptr, decl, f, name.signature[0]));
      J()->DeleteLocalRef(decl);
    }
    return r;
  });

  d.Bind<RT::SourceFile>([c, J](const RT::SourceFile::Request& req) -> jdwp::Result<RT::SourceFile::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.ref_type));
    VM_ASSIGN_OR_RETURN(auto name, c->jvmti.GetSourceFileName(k));
    return RT::SourceFile::Reply{ToWireString(name)};
  });

  d.Bind<RT::SourceDebugExtension>([c, J](const RT::SourceDebugExtension::Request& req)
                                       -> jdwp::Result<RT::SourceDebugExtension::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.ref_type));
    VM_ASSIGN_OR_RETURN(auto ext, c->jvmti.GetSourceDebugExtension(k));
    return RT::SourceDebugExtension::Reply{ToWireString(ext)};
  });

  d.Bind<RT::Status>([c, J](const RT::Status::Request& req) -> jdwp::Result<RT::Status::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.ref_type));
    return RT::Status::Reply{c->ClassStatusOf(k)};
  });

  d.Bind<RT::Interfaces>([c, J](const RT::Interfaces::Request& req) -> jdwp::Result<RT::Interfaces::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.ref_type));
    VM_ASSIGN_OR_RETURN(auto ifaces, c->jvmti.GetImplementedInterfaces(k));
    RT::Interfaces::Reply r;
    for (jclass i : ifaces) r.interfaces.push_back(c->IdOf<jdwp::InterfaceId>(J(), i));
    return r;
  });

  d.Bind<RT::ClassObject>([c, J](const RT::ClassObject::Request& req) -> jdwp::Result<RT::ClassObject::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.ref_type));
    return RT::ClassObject::Reply{c->IdOf<jdwp::ClassObjectId>(J(), k)};
  });

  d.Bind<RT::NestedTypes>([c, J](const RT::NestedTypes::Request& req) -> jdwp::Result<RT::NestedTypes::Reply> {
    JNIEnv* jni = J();
    ASSIGN_OR_RETURN(jclass k, c->Class(jni, req.ref_type));
    VM_ASSIGN_OR_RETURN(jobject loader, c->jvmti.GetClassLoader(k));
    VM_ASSIGN_OR_RETURN(std::string outer, c->jvmti.GetClassSignatureOnly(k));
    auto candidates = c->jvmti.GetClassLoaderClasses(loader);
    if (loader) jni->DeleteLocalRef(loader);
    VM_ASSIGN_OR_RETURN(auto classes, std::move(candidates));
    RT::NestedTypes::Reply r;
    for (jclass candidate : classes) {
      auto sig = c->jvmti.GetClassSignatureOnly(candidate);
      if (sig && (IsDirectlyNested(outer, *sig, '$') || IsDirectlyNested(outer, *sig, '#'))) {
        r.classes.push_back({c->TypeTagOf(candidate), c->IdOf<jdwp::ReferenceTypeId>(jni, candidate)});
      }
      jni->DeleteLocalRef(candidate);
    }
    return r;
  });

  d.Bind<RT::ClassFileVersion>([c, J](const RT::ClassFileVersion::Request& req)
                                   -> jdwp::Result<RT::ClassFileVersion::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.ref_type));
    // Arrays and primitive types: ABSENT_INFORMATION (from JVMTI).
    VM_ASSIGN_OR_RETURN(auto version, c->jvmti.GetClassVersionNumbers(k));
    return RT::ClassFileVersion::Reply{version.second, version.first};
  });

  d.Bind<RT::ConstantPool>([c, J](const RT::ConstantPool::Request& req) -> jdwp::Result<RT::ConstantPool::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.ref_type));
    VM_ASSIGN_OR_RETURN(auto pool, c->jvmti.GetConstantPool(k));
    return RT::ConstantPool::Reply{pool.count, std::move(pool.bytes)};
  });

  d.Bind<jdwp::ClassLoaderReference::VisibleClasses>(
      [c, J](const jdwp::ClassLoaderReference::VisibleClasses::Request& req)
          -> jdwp::Result<jdwp::ClassLoaderReference::VisibleClasses::Reply> {
        JNIEnv* jni = J();
        // ID 0 is the bootstrap loader (as stock).
        ASSIGN_OR_RETURN(jobject loader, c->ClassLoader(jni, req.class_loader_object));
        VM_ASSIGN_OR_RETURN(auto classes, c->jvmti.GetClassLoaderClasses(loader));
        jdwp::ClassLoaderReference::VisibleClasses::Reply r;
        r.classes.reserve(classes.size());
        for (jclass k : classes) {
          r.classes.push_back({c->TypeTagOf(k), c->IdOf<jdwp::ReferenceTypeId>(jni, k)});
          jni->DeleteLocalRef(k);
        }
        return r;
      });

  d.Bind<CT::Superclass>([c, J](const CT::Superclass::Request& req) -> jdwp::Result<CT::Superclass::Reply> {
    ASSIGN_OR_RETURN(jclass k, c->Class(J(), req.clazz));
    // An interface has no superclass (JNI answers null): ID 0, as stock.
    jclass super = J()->GetSuperclass(k);
    return CT::Superclass::Reply{c->IdOf<jdwp::ClassId>(J(), super)};
  });

  d.Bind<M::LineTable>([c, J](const M::LineTable::Request& req) -> jdwp::Result<M::LineTable::Reply> {
    ASSIGN_OR_RETURN(jmethodID m, MethodOf(*c, J(), req.ref_type, req.method_id));
    VM_ASSIGN_OR_RETURN(bool native, c->jvmti.IsMethodNative(m));
    if (native) return jdwp::Fail(ErrorCode::kNativeMethod, "native method");
    VM_ASSIGN_OR_RETURN(auto range, c->jvmti.GetMethodLocation(m));
    M::LineTable::Reply r;
    r.start = range.first;
    r.end = range.second;
    // A method compiled without line numbers gets its range and no lines, as stock
    // (JDI then reports no line instead of failing a step that lands there).
    for (const auto& e : *c->LineTable(m)) r.lines.push_back({e.start, e.line});
    return r;
  });

  d.Bind<M::VariableTable>([c, J](const M::VariableTable::Request& req) -> jdwp::Result<M::VariableTable::Reply> {
    ASSIGN_OR_RETURN(auto vars, (VariablesOf<M::VariableTable::Slot, false>(*c, J(), req.ref_type, req.method_id)));
    return M::VariableTable::Reply{vars.first, std::move(vars.second)};
  });
  d.Bind<M::VariableTableWithGeneric>([c, J](const M::VariableTableWithGeneric::Request& req)
                                          -> jdwp::Result<M::VariableTableWithGeneric::Reply> {
    ASSIGN_OR_RETURN(auto vars,
                     (VariablesOf<M::VariableTableWithGeneric::Slot, true>(*c, J(), req.ref_type, req.method_id)));
    return M::VariableTableWithGeneric::Reply{vars.first, std::move(vars.second)};
  });

  d.Bind<M::Bytecodes>([c, J](const M::Bytecodes::Request& req) -> jdwp::Result<M::Bytecodes::Reply> {
    ASSIGN_OR_RETURN(jmethodID m, MethodOf(*c, J(), req.ref_type, req.method_id));
    // A native method has no bytecodes: an empty array, not an error (as stock).
    VM_ASSIGN_OR_RETURN(bool native, c->jvmti.IsMethodNative(m));
    if (native) return M::Bytecodes::Reply{};
    VM_ASSIGN_OR_RETURN(auto code, c->jvmti.GetBytecodes(m));
    return M::Bytecodes::Reply{std::move(code)};
  });

  d.Bind<M::IsObsolete>([c, J](const M::IsObsolete::Request& req) -> jdwp::Result<M::IsObsolete::Reply> {
    // Method ID 0 is what an obsolete method's location carries (Context::LocationOf): obsolete, as stock.
    if (req.method_id.is_null()) {
      ASSIGN_OR_RETURN(jclass klass, c->Class(J(), req.ref_type));
      (void)klass;
      return M::IsObsolete::Reply{true};
    }
    ASSIGN_OR_RETURN(jmethodID m, MethodOf(*c, J(), req.ref_type, req.method_id));
    // A method JVMTI cannot answer for is reported obsolete (as stock).
    auto obsolete = c->jvmti.IsMethodObsolete(m);
    return M::IsObsolete::Reply{obsolete ? *obsolete : true};
  });

  d.Bind<jdwp::ClassObjectReference::ReflectedType>(
      [c, J](const jdwp::ClassObjectReference::ReflectedType::Request& req)
          -> jdwp::Result<jdwp::ClassObjectReference::ReflectedType::Reply> {
        ASSIGN_OR_RETURN(jobject obj, c->NonNullObject(J(), jdwp::IdCast<jdwp::ObjectId>(req.class_object)));
        if (!J()->IsInstanceOf(obj, c->class_class)) return jdwp::Fail(ErrorCode::kInvalidObject, "not a class object");
        auto k = static_cast<jclass>(obj);
        return jdwp::ClassObjectReference::ReflectedType::Reply{c->TypeTagOf(k), c->IdOf<jdwp::ReferenceTypeId>(J(), k)};
      });
}

}  // namespace jdwpx::backend
