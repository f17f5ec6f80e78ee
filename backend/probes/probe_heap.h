// Every read of the running program at one probe hit, for the expression
// language: JVMTI for locals, JNI for fields, arrays, strings and the
// allow-listed JDK calls. Lives for one hit, in the hitting thread, inside its
// Breakpoint callback (JVMTI lets a thread read its own frames there, virtual
// threads too).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <map>
#include <string>
#include <utility>

#include "backend/probes/live_locals.h"
#include "hotspot/interpreter_frame.h"
#include "backend/probes/probe_scope.h"
#include "expr/expr.h"
#include "vmcore/jvmti.h"

namespace jdwpx::backend::probes {

class JniHeap : public expr::Heap {
 public:
  // `scope` is the probe's (its classes name static fields' holders); `depth`
  // is the frame whose locals are read (0: the hitting frame). Pushes a JNI
  // local frame: every reference the heap makes is freed when it is destroyed,
  // so a Value's ref must not outlive the heap.
  JniHeap(const vmcore::Jvmti& jvmti, JNIEnv* jni, jthread thread, const JvmtiScope& scope, jint depth = 0);
  ~JniHeap() override;
  JniHeap(const JniHeap&) = delete;
  JniHeap& operator=(const JniHeap&) = delete;

  expr::Result<expr::Value> Local(const expr::LocalInfo& local) override;
  expr::Result<expr::Value> This() override;
  expr::Result<expr::Value> GetField(expr::Ref object, const expr::FieldInfo& field) override;
  expr::Result<int32_t> ArrayLength(expr::Ref array) override;
  expr::Result<expr::Value> ArrayElement(expr::Ref array, int32_t index, const expr::Type& element) override;
  expr::Result<std::u16string> StringText(expr::Ref string, size_t max_units) override;
  std::string RuntimeClass(expr::Ref object) override;
  bool IsBootClass(expr::Ref object) override;
  bool SameObject(expr::Ref a, expr::Ref b) override;
  bool InstanceOf(expr::Ref object, std::string_view class_name) override;
  int32_t IdentityHash(expr::Ref object) override;
  expr::Result<expr::Ref> NewString(std::u16string_view text) override;
  expr::Result<expr::Value> Call(const expr::MethodRef& method, expr::Ref receiver,
                                 std::span<const expr::Value> args, const expr::Type& result) override;

 private:
  expr::Result<expr::Value> ReadLocal(const expr::LocalInfo& local);
  // A pending Java exception (a call's, an allocation's) cleared and named.
  std::string TakeException();
  // Whether the class or one of its supertypes has this Java name.
  bool ClassIs(jclass klass, std::string_view java_name, int hops);

  vmcore::Jvmti jvmti_;
  JNIEnv* jni_;
  jthread thread_;
  const JvmtiScope& scope_;
  jint depth_;
  bool frame_pushed_;
  // Locals read at this hit, by slot: HotSpot reads each as a VM operation
  // (tens of microseconds), so `x > 0 && x < 10` reads x once.
  std::map<int32_t, expr::Value> locals_;
  // The top frame's locals from one stack walk, without a safepoint
  // (live_locals.h): tried at the hit's first local read; JVMTI when it fails.
  LiveLocals live_;
  enum class Live : uint8_t { kUntried, kRead, kFailed } live_state_ = Live::kUntried;
  std::optional<expr::Value> ReadLiveLocal(const expr::LocalInfo& local);
  // The hitting frame read straight from the stack (frame_slots.h), for the
  // slots already found to agree with the walk; a slot not yet checked is
  // read through the walk and checked. None: read it another way.
  std::optional<expr::Value> ReadFromFrame(const expr::LocalInfo& local);
  const hotspot::InterpreterFrame* Frame();
  enum class FrameState : uint8_t { kUntried, kFound, kAbsent } frame_state_ = FrameState::kUntried;
  hotspot::InterpreterFrame frame_;
  // InstanceOf's answers for this hit: (runtime class name, asked name).
  std::map<std::pair<std::string, std::string>, bool, std::less<>> instance_of_;
};

// A reference value: Type::Null() for Java's null, else `type` with the ref.
expr::Value ReferenceValue(jobject ref, const expr::Type& type);

}  // namespace jdwpx::backend::probes
