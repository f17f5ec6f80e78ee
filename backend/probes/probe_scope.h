// What names mean at one probe's place (a method and a bytecode index), for the
// expression language: built when the probe is set, from JVMTI's tables and the
// classes already loaded, never per hit.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <tl/expected.hpp>

#include "backend/probes/frame_slots.h"
#include "expr/expr.h"
#include "vmcore/jvmti.h"
#include "vmcore/refs.h"

namespace jdwpx::backend::probes {

class JvmtiScope : public expr::Scope {
 public:
  // Reads the place's locals, its class and the loaded classes visible from its
  // class loader (the ones it has initiated, and the boot loader's). Fails (with
  // the reason) only when the method or its class cannot be read at all; a
  // method without a local variable table still gets a scope (has_locals()).
  // Call with a JNIEnv of the current thread; the scope may be asked later from
  // other threads attached to the same VM.
  static tl::expected<std::unique_ptr<JvmtiScope>, std::string> Make(const vmcore::Jvmti& jvmti, JNIEnv* jni,
                                                                     jmethodID method, jlocation location);

  std::optional<expr::LocalInfo> Local(std::string_view name) const override;
  std::optional<expr::Type> This() const override;
  std::optional<expr::FieldInfo> Field(std::string_view class_name, std::string_view name) const override;
  std::optional<std::string> Class(std::string_view name) const override;
  bool IsSubtype(std::string_view sub, std::string_view super) const override;

  // False when the class was compiled without -g (no LocalVariableTable): then
  // no local or parameter is known by name, only `this` and fields.
  bool has_locals() const { return has_locals_; }
  // The loaded class of a Java name that this scope answered (Class, Field's
  // declaring classes) or that is visible here; null when none. The scope owns
  // the reference: valid while it lives, in any thread.
  jclass ClassRef(std::string_view java_name) const;
  const std::string& location_class() const { return location_class_; }
  // Bare static field names in a static method are the location class's.
  std::optional<std::string> LocationClass() const override { return location_class_; }
  jmethodID method() const { return method_; }
  // The method's name, read once here rather than at each hit.
  const std::string& method_name() const { return method_name_; }
  jlocation location() const { return location_; }
  // Which of the place's slots a hit may read straight from its frame: learnt
  // by the hits themselves (frame_slots.h), whatever thread they run in.
  FrameSlots& frame_slots() const { return frame_slots_; }

 private:
  JvmtiScope(const vmcore::Jvmti& jvmti, JavaVM* vm) : jvmti_(jvmti), vm_(vm) {}
  static tl::expected<std::unique_ptr<JvmtiScope>, std::string> Build(const vmcore::Jvmti& jvmti, JNIEnv* jni,
                                                                      jmethodID method, jlocation location);
  JNIEnv* Jni() const;
  // Adds every class the loader initiated (null: the boot loader) to classes_.
  void IndexLoaderClasses(JNIEnv* jni, jobject loader);
  // JVMS 5.4.3.2's order: the class, its superinterfaces, then its superclass.
  std::optional<expr::FieldInfo> FindField(JNIEnv* jni, jclass klass, std::string_view name, int hops) const;
  jclass Remember(JNIEnv* jni, jclass klass, const std::string& java_name) const;

  vmcore::Jvmti jvmti_;
  JavaVM* vm_;
  mutable FrameSlots frame_slots_;
  jmethodID method_ = nullptr;
  jlocation location_ = 0;
  std::string method_name_;
  std::string location_class_;
  std::string package_;  // "pkg.sub." or "" for the unnamed package
  bool has_locals_ = false;
  std::optional<expr::Type> this_type_;
  std::map<std::string, expr::LocalInfo, std::less<>> locals_;
  // Loaded classes visible from the place, by Java name (built once: read only after).
  std::map<std::string, vmcore::GlobalRef, std::less<>> classes_;
  // Classes met while answering (a field's declaring superclass of another loader).
  mutable std::mutex extra_mu_;
  mutable std::map<std::string, vmcore::GlobalRef, std::less<>> extra_classes_;
};

}  // namespace jdwpx::backend::probes
