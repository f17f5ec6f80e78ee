// What every handler and callback shares: the JVMTI environment, the ID tables,
// thread control, and the typed resolution of wire IDs into JNI references
// (with the spec's error for each kind of bad ID).
#pragma once

#include <jni.h>

#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <vector>

#include "backend/ids/class_table.h"
#include "backend/threads/frame_reads.h"
#include "backend/ids/ids.h"
#include "backend/options.h"
#include "backend/threads/single_step_modes.h"
#include "backend/ids/smap.h"
#include "backend/threads/threads.h"
#include "backend/trace_threads.h"
#include "jdwp/error.h"
#include "jdwp/types.h"
#include "vmcore/jvmti.h"

namespace jdwpx::backend {


// What a command needs of its thread argument beyond an ID that names a
// debuggee thread (else INVALID_OBJECT / INVALID_THREAD), in the order stock
// checks it (measured on JDK 17 and 25: integration/test_thread_checks.py). A
// thread that has ended and one never started are alike: not alive. A thread
// the debugger suspended after it ended (stock accepts that, and counts it)
// passes the suspension check and fails the life one.
enum class ThreadNeeds {
  // Name, Status, ThreadGroup, SuspendCount, IsVirtual, Suspend, Resume, ThreadOnly.
  kNothing,
  // Frames, FrameCount, OwnedMonitors(StackDepthInfo), CurrentContendedMonitor,
  // StackFrame.*: THREAD_NOT_SUSPENDED, then INVALID_THREAD when not alive.
  kSuspended,
  // Interrupt, Stop, a Step modifier: INVALID_THREAD when not alive.
  kAlive,
  // ForceEarlyReturn: INVALID_THREAD when not alive, then THREAD_NOT_SUSPENDED.
  kAliveThenSuspended,
};

struct Context {
  Context(JavaVM* vm_in, jvmtiEnv* env, Options opts)
      : vm(vm_in), jvmti(env), options(std::move(opts)), objects(jvmti), classes(objects), threads(jvmti), single_steps(jvmti) {}

  JavaVM* vm;
  vmcore::Jvmti jvmti;
  Options options;
  ObjectTable objects;
  ClassTable classes;  // what AllClasses and ClassesBySignature list (class_table.h)
  MemberIds members;
  ThreadControl threads;
  SingleStepModes single_steps;  // every thread's SINGLE_STEP mode (single_step_modes.h)
  std::atomic<bool> vm_dead{false};
  int jdk_feature_version = 17;
  // VirtualMachine.SetDefaultStratum ("" = each type's own default): line steps
  // follow that stratum's lines in classes with a source map (StepLineOf).
  void SetDefaultStratum(std::string stratum);

  // Global references to the JDK classes used for kind checks; set at VMInit.
  jclass class_class = nullptr;
  jclass thread_class = nullptr;
  jclass thread_group_class = nullptr;
  jclass string_class = nullptr;
  jclass class_loader_class = nullptr;
  jclass throwable_class = nullptr;
  bool InitClasses(JNIEnv* jni);

  // Wire ID -> local reference. ID 0 -> nullptr for Object(); an error for the typed kinds.
  jdwp::Result<jobject> Object(JNIEnv* jni, jdwp::ObjectId id);
  jdwp::Result<jobject> NonNullObject(JNIEnv* jni, jdwp::ObjectId id);
  jdwp::Result<jthread> Thread(JNIEnv* jni, jdwp::ThreadId id, ThreadNeeds needs = ThreadNeeds::kNothing);
  jdwp::Result<jthreadGroup> ThreadGroup(JNIEnv* jni, jdwp::ThreadGroupId id);
  jdwp::Result<jstring> String(JNIEnv* jni, jdwp::StringId id);
  jdwp::Result<jobject> ClassLoader(JNIEnv* jni, jdwp::ClassLoaderId id);
  jdwp::Result<jarray> Array(JNIEnv* jni, jdwp::ArrayId id);
  jdwp::Result<jclass> Class(JNIEnv* jni, jdwp::ReferenceTypeId id);
  jdwp::Result<jmethodID> Method(jdwp::MethodId id);
  jdwp::Result<jfieldID> Field(jdwp::FieldId id);

  // JNI reference -> wire ID (assigning one on first sight). Every thread ID
  // that goes out is made here: with trace=, its thread's name is recorded.
  template <class IdT>
  IdT IdOf(JNIEnv* jni, jobject obj) {
    IdT id = jdwp::IdCast<IdT>(objects.IdOf(jni, obj));
    if constexpr (std::is_same_v<IdT, jdwp::ThreadId>) {
      if (trace_thread_names && !id.is_null()) trace_thread_names->Saw(jni, obj, id.value);
    }
    return id;
  }
  // Set with trace= before any thread runs our code (Session::OpenTrace).
  std::unique_ptr<TraceThreadNames> trace_thread_names;

  jdwp::TypeTag TypeTagOf(jclass klass);
  // The most specific object tag of an object (s t g l c [ or L).
  jdwp::Tag ObjectTagOf(JNIEnv* jni, jobject obj);
  jdwp::Value ObjectValue(JNIEnv* jni, jobject obj);
  jdwp::TaggedObjectId TaggedId(JNIEnv* jni, jobject obj);
  // Location of code in a method; the declaring class's ID is taken from the
  // object table each time (never cached: see LocationOf), its type tag is cached.
  jdwp::Location LocationOf(JNIEnv* jni, jmethodID method, jlocation index);
  int32_t ClassStatusOf(jclass klass);

  // Line table of a method, cached (empty when the method has none).
  std::shared_ptr<const std::vector<vmcore::LineEntry>> LineTable(jmethodID method);
  // The line of `location` in `method`, -1 when unknown.
  int32_t LineOf(jmethodID method, jlocation location);
  // After RedefineClasses: a method keeps its jmethodID but may have new code.
  void ForgetMethodCaches();
  // The line a step compares at `location`: the Java line, or in a class whose
  // source map (JSR-45, smap.h) makes the default stratum another one, a number
  // per line of that stratum (as stock); -1 when unknown, and in an obsolete method,
  // whose lines stock's steps never ask for (a line step there is a MIN step).
  int32_t StepLineOf(JNIEnv* jni, jmethodID method, jlocation location);
  // Whether `matches` holds for a source name of any stratum of `klass`'s source map.
  bool AnySourceMapName(jclass klass, const std::function<bool(std::string_view)>& matches);

  // Frame IDs: valid while the thread stays suspended (its generation unchanged).
  jdwp::FrameId FrameIdOf(JNIEnv* jni, jthread thread, int32_t depth);
  // The depth a frame ID names, or INVALID_FRAMEID when stale or of another thread.
  jdwp::Result<int32_t> FrameDepth(JNIEnv* jni, jthread thread, jdwp::FrameId frame);

  // Reads of suspended threads' frames (frame_reads.h).
  FrameReads frame_reads;
  // The generation under which reads of `frame` (a valid frame ID of `thread`)
  // may be cached, or 0: not cacheable (the thread is not held suspended).
  uint64_t FrameReadsGeneration(JNIEnv* jni, jthread thread, jdwp::FrameId frame);
  // Whether a cached value may go out again as it is: not an object, null, or
  // an object ID the table still knows with its object alive (then counted as
  // sent once more, as reading it again would).
  bool Reusable(JNIEnv* jni, const jdwp::Value& value);

  bool IsInstance(JNIEnv* jni, jobject obj, jclass klass) { return obj && jni->IsInstanceOf(obj, klass); }

 private:
  std::mutex cache_mu_;
  std::unordered_map<jmethodID, std::shared_ptr<const std::vector<vmcore::LineEntry>>> line_tables_;
  uint64_t method_caches_generation_ = 0;  // bumped by ForgetMethodCaches (cache_mu_)
  std::unordered_map<jmethodID, jdwp::TypeTag> declaring_tags_;
  std::string default_stratum_;  // cache_mu_
  // Per method: its class's source map (null: none), and the step lines under default_stratum_.
  struct StepLines {
    std::shared_ptr<const Smap> map;
    std::shared_ptr<const std::vector<Smap::LineEntry>> lines;
  };
  std::unordered_map<jmethodID, StepLines> step_lines_;  // cache_mu_; cleared with the line tables
  std::shared_ptr<const Smap> SourceMapOf(jclass klass);
};

}  // namespace jdwpx::backend
