#include "backend/probes/probe_scope.h"

#include <vector>

#include "backend/probes/java_names.h"

namespace jdwpx::backend::probes {
namespace {

std::string Describe(const vmcore::VmError& error) {
  return std::string(error.function) + ": " + vmcore::JvmtiErrorName(error.code);
}

// "a.b.C.D" -> {"a.b.C.D", "a.b.C$D", "a.b$C$D", ...}: a nested class may be
// named with '.' where its binary name has '$'.
std::vector<std::string> NestedSpellings(const std::string& name) {
  std::vector<std::string> spellings{name};
  std::string current = name;
  for (size_t dot = current.rfind('.'); dot != std::string::npos && dot > 0; dot = current.rfind('.', dot - 1)) {
    current[dot] = '$';
    spellings.push_back(current);
  }
  return spellings;
}

bool IsPrimitiveName(std::string_view name) {
  for (std::string_view p : {"boolean", "byte", "char", "short", "int", "long", "float", "double"})
    if (name == p) return true;
  return false;
}

}  // namespace

tl::expected<std::unique_ptr<JvmtiScope>, std::string> JvmtiScope::Make(const vmcore::Jvmti& jvmti, JNIEnv* jni,
                                                                         jmethodID method, jlocation location) {
  try {
    return Build(jvmti, jni, method, location);
  } catch (const std::exception& e) {  // bad_alloc: the probe is refused, the VM goes on
    return tl::unexpected(std::string("cannot build the scope: ") + e.what());
  }
}

tl::expected<std::unique_ptr<JvmtiScope>, std::string> JvmtiScope::Build(const vmcore::Jvmti& jvmti, JNIEnv* jni,
                                                                          jmethodID method, jlocation location) {
  JavaVM* vm = nullptr;
  if (jni->GetJavaVM(&vm) != 0) return tl::unexpected<std::string>("GetJavaVM failed");
  std::unique_ptr<JvmtiScope> scope(new JvmtiScope(jvmti, vm));
  scope->method_ = method;
  scope->location_ = location;
  vmcore::LocalFrame frame(jni, 64);
  if (!frame.ok()) return tl::unexpected<std::string>("out of memory (PushLocalFrame)");

  auto klass = jvmti.GetMethodDeclaringClass(method);
  if (!klass) return tl::unexpected(Describe(klass.error()));
  auto signature = jvmti.GetClassSignatureOnly(*klass);
  if (!signature) return tl::unexpected(Describe(signature.error()));
  scope->location_class_ = JavaName(*signature);
  if (size_t dot = scope->location_class_.rfind('.'); dot != std::string::npos)
    scope->package_ = scope->location_class_.substr(0, dot + 1);

  auto name = jvmti.GetMethodName(method);
  if (!name) return tl::unexpected(Describe(name.error()));
  scope->method_name_ = name->name;

  auto modifiers = jvmti.GetMethodModifiers(method);
  if (!modifiers) return tl::unexpected(Describe(modifiers.error()));
  if (!(*modifiers & 0x0008 /* ACC_STATIC */)) scope->this_type_ = expr::Type::Reference(scope->location_class_);

  // ABSENT_INFORMATION: compiled without -g; the scope knows no locals then.
  auto table = jvmti.GetLocalVariableTable(method);
  if (table) {
    scope->has_locals_ = true;
    for (const auto& variable : *table) {
      bool live = variable.start <= location && location < variable.start + variable.length;
      if (!live || variable.name == "this") continue;
      scope->locals_[variable.name] = expr::LocalInfo{variable.slot, TypeOfSignature(variable.signature)};
    }
  } else if (table.error().code != JVMTI_ERROR_ABSENT_INFORMATION &&
             table.error().code != JVMTI_ERROR_NATIVE_METHOD) {
    return tl::unexpected(Describe(table.error()));
  }

  auto loader = jvmti.GetClassLoader(*klass);
  if (!loader) return tl::unexpected(Describe(loader.error()));
  scope->IndexLoaderClasses(jni, nullptr);
  if (*loader) scope->IndexLoaderClasses(jni, *loader);
  scope->Remember(jni, *klass, scope->location_class_);
  return scope;
}

void JvmtiScope::IndexLoaderClasses(JNIEnv* jni, jobject loader) {
  auto classes = jvmti_.GetClassLoaderClasses(loader);
  if (!classes) return;
  for (jclass klass : *classes) {
    vmcore::LocalRef owned(jni, klass);
    auto signature = jvmti_.GetClassSignatureOnly(klass);
    if (!signature) continue;
    auto [it, inserted] = classes_.try_emplace(JavaName(*signature));
    if (inserted) it->second = vmcore::GlobalRef(jni, klass);
  }
}

JNIEnv* JvmtiScope::Jni() const {
  void* env = nullptr;
  if (vm_->GetEnv(&env, JNI_VERSION_1_6) != JNI_OK) return nullptr;
  return static_cast<JNIEnv*>(env);
}

jclass JvmtiScope::Remember(JNIEnv* jni, jclass klass, const std::string& java_name) const {
  if (auto it = classes_.find(java_name); it != classes_.end()) return static_cast<jclass>(it->second.get());
  std::lock_guard lock(extra_mu_);
  auto [it, inserted] = extra_classes_.try_emplace(java_name);
  if (inserted) it->second = vmcore::GlobalRef(jni, klass);
  return static_cast<jclass>(it->second.get());
}

jclass JvmtiScope::ClassRef(std::string_view java_name) const {
  if (auto it = classes_.find(java_name); it != classes_.end()) return static_cast<jclass>(it->second.get());
  std::lock_guard lock(extra_mu_);
  if (auto it = extra_classes_.find(java_name); it != extra_classes_.end())
    return static_cast<jclass>(it->second.get());
  return nullptr;
}

std::optional<expr::LocalInfo> JvmtiScope::Local(std::string_view name) const {
  if (auto it = locals_.find(name); it != locals_.end()) return it->second;
  return std::nullopt;
}

std::optional<expr::Type> JvmtiScope::This() const { return this_type_; }

std::optional<std::string> JvmtiScope::Class(std::string_view name) const {
  if (name.empty()) return std::nullopt;
  if (name.size() > 2 && name.substr(name.size() - 2) == "[]") {
    std::string_view element = name.substr(0, name.size() - 2);
    if (IsPrimitiveName(element)) return std::string(name);
    auto resolved = Class(element);
    if (!resolved) return std::nullopt;
    return *resolved + "[]";
  }
  if (IsPrimitiveName(name)) return std::nullopt;
  // Java's order for a simple name: a member of the place's class or of a class
  // enclosing it, the place's package, java.lang.
  std::string given(name);
  std::vector<std::string> candidates;
  for (std::string outer = location_class_;;) {
    candidates.push_back(outer + "$" + given);
    size_t dollar = outer.rfind('$');
    if (dollar == std::string::npos) break;
    outer.resize(dollar);
  }
  for (const std::string& candidate : {given, package_ + given, "java.lang." + given}) candidates.push_back(candidate);
  for (const std::string& candidate : candidates) {
    for (const std::string& spelling : NestedSpellings(candidate))
      if (ClassRef(spelling)) return spelling;
  }
  // The class file keeps no imports: a simple name that one visible class has
  // and no other stands for it ("ArrayList"); two of them ("List": java.util's
  // and java.awt's) and the name is refused.
  if (given.find('.') != std::string::npos || given.find('$') != std::string::npos) return std::nullopt;
  std::optional<std::string> only;
  for (const auto& [java_name, klass] : classes_) {
    size_t dot = java_name.rfind('.');
    std::string_view simple = std::string_view(java_name).substr(dot == std::string::npos ? 0 : dot + 1);
    if (simple != given) continue;
    if (only) return std::nullopt;
    only = java_name;
  }
  return only;
}

bool JvmtiScope::IsSubtype(std::string_view sub, std::string_view super) const {
  if (sub == super) return true;
  bool sub_is_primitive = IsPrimitiveName(sub);
  if (super == "java.lang.Object") return !sub_is_primitive;
  JNIEnv* jni = Jni();
  jclass sub_class = ClassRef(sub);
  jclass super_class = ClassRef(super);
  if (!jni || !sub_class || !super_class) return false;
  return jni->IsAssignableFrom(sub_class, super_class) == JNI_TRUE;
}

std::optional<expr::FieldInfo> JvmtiScope::Field(std::string_view class_name, std::string_view name) const {
  JNIEnv* jni = Jni();
  jclass klass = ClassRef(class_name);
  if (!jni || !klass) return std::nullopt;
  vmcore::LocalFrame frame(jni, 64);
  if (!frame.ok()) return std::nullopt;
  return FindField(jni, klass, name, 0);
}

std::optional<expr::FieldInfo> JvmtiScope::FindField(JNIEnv* jni, jclass klass, std::string_view name,
                                                     int hops) const {
  if (!klass || hops > 64) return std::nullopt;  // 64: far deeper than any real hierarchy
  if (auto fields = jvmti_.GetClassFields(klass)) {
    for (jfieldID field : *fields) {
      auto field_name = jvmti_.GetFieldName(klass, field);
      if (!field_name || field_name->name != name) continue;
      auto modifiers = jvmti_.GetFieldModifiers(klass, field);
      auto signature = jvmti_.GetClassSignatureOnly(klass);
      if (!modifiers || !signature) return std::nullopt;
      expr::FieldInfo info;
      info.handle = reinterpret_cast<uint64_t>(field);
      info.type = TypeOfSignature(field_name->signature);
      info.is_static = (*modifiers & 0x0008 /* ACC_STATIC */) != 0;
      info.declaring_class = JavaName(*signature);
      Remember(jni, klass, info.declaring_class);  // the heap reads statics through it
      return info;
    }
  }
  if (auto interfaces = jvmti_.GetImplementedInterfaces(klass)) {
    for (jclass interface : *interfaces)
      if (auto found = FindField(jni, interface, name, hops + 1)) return found;
  }
  return FindField(jni, jni->GetSuperclass(klass), name, hops + 1);
}

}  // namespace jdwpx::backend::probes
