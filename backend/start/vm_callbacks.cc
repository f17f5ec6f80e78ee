#include "backend/start/vm_callbacks.h"

#include <dlfcn.h>

#include <cstddef>
#include <exception>

#include "backend/start/agent.h"
#include "backend/commands/frame_pop.h"
#include "backend/log.h"

namespace jdwpx::backend {

// The process's one agent: set by the entry points once it is initialized.
Agent* g_agent = nullptr;

namespace {

// Every JVMTI callback enters through Guard: no C++ exception reaches the JVM.
// The IDs it makes are an event's, even on a thread answering a session (an
// invocation's, the command thread's ClassPrepare): ObjectTable::EventScope.
template <class Fn>
void Guard(const char* what, Fn fn) {
  ObjectTable::EventScope event_ids;
  try {
    if (g_agent) fn(*g_agent);
  } catch (const std::exception& e) {
    Log().error("{}: {}", what, e.what());
  } catch (...) {
    Log().error("{}: unknown exception", what);
  }
}

// Events in the agent's own threads (the command thread runs Java code for
// some commands: Version, ModuleReference.Name) are not the debugger's: as
// stock, only a ClassPrepare there is handled (and reported without a thread).
enum class OnAgentThread { kIgnore, kHandle };

// Callbacks on a Java thread also tell ThreadControl they are running, so that
// a suspension requested meanwhile waits for their end (see threads.h).
template <class Fn>
void GuardThread(const char* what, JNIEnv* jni, jthread thread, Fn fn,
                 OnAgentThread on_agent_thread = OnAgentThread::kIgnore, bool thread_ends = false) {
  Agent* agent = g_agent;
  if (!agent) return;
  if (agent->context().threads.CurrentIsAgent(jni, thread)) {
    if (on_agent_thread == OnAgentThread::kHandle) Guard(what, fn);
    return;
  }
  void* token = nullptr;
  try {
    token = agent->context().threads.EnterCallback(jni, thread);
  } catch (...) {
  }
  Guard(what, fn);
  if (token && agent->context().threads.ExitCallback(token)) agent->reporter().SuspendDeferred(jni, token);
  if (token && thread_ends) agent->context().threads.ForgetSelf(jni, token);
}

// The application's own Thread.resume() of a thread the debugger suspended
// (JDK 19 and older): as stock, which stops Thread.resume with an internal
// breakpoint, the caller waits until the debugger resumes that thread, which
// stays suspended meanwhile. Thread.resume0 is bound to JVM_ResumeThread (the
// JDK's Thread.c registers it early, in the primordial phase, when no JVMTI
// function may name the method): the bind of that address is redirected to
// this wrapper around it (a RegisterNatives of our own would make the VM warn).
using JvmResumeThread = void(JNICALL*)(JNIEnv*, jobject);
void* g_jvm_resume_thread_symbol = nullptr;  // dlsym("JVM_ResumeThread"), at load
JvmResumeThread g_jvm_resume_thread = nullptr;  // what Thread.resume0 was bound to

void JNICALL AppResume0(JNIEnv* jni, jobject target) {
  Agent* agent = g_agent;
  if (!agent) return g_jvm_resume_thread(jni, target);
  auto self = agent->context().jvmti.GetCurrentThread();
  if (!self) return g_jvm_resume_thread(jni, target);
  bool resumed = false;
  GuardThread("Thread.resume", jni, *self, [&](Agent& a) {
    a.context().threads.HoldAppResume(jni, static_cast<jthread>(target), [&] {
      resumed = true;
      g_jvm_resume_thread(jni, target);
    });
  }, OnAgentThread::kHandle);
  if (!resumed) g_jvm_resume_thread(jni, target);
  jni->DeleteLocalRef(*self);
}

void JNICALL CbNativeMethodBind(jvmtiEnv*, JNIEnv*, jthread, jmethodID, void* address, void** new_address) {
  if (!address || address != g_jvm_resume_thread_symbol || g_jvm_resume_thread) return;
  g_jvm_resume_thread = reinterpret_cast<JvmResumeThread>(address);
  *new_address = reinterpret_cast<void*>(&AppResume0);
}

void JNICALL CbVmInit(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  GuardThread("VMInit", jni, thread, [&](Agent& a) { a.OnVmInit(jni, thread); });
}
void JNICALL CbVmDeath(jvmtiEnv*, JNIEnv* jni) {
  Guard("VMDeath", [&](Agent& a) { a.OnVmDeath(jni); });
}
void JNICALL CbThreadStart(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  GuardThread("ThreadStart", jni, thread, [&](Agent& a) { a.events().OnThreadStart(jni, thread); });
}
void JNICALL CbThreadEnd(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  GuardThread("ThreadEnd", jni, thread, [&](Agent& a) { a.events().OnThreadEnd(jni, thread); },
              OnAgentThread::kIgnore, true);
}
void JNICALL CbClassPrepare(jvmtiEnv*, JNIEnv* jni, jthread thread, jclass klass) {
  GuardThread("ClassPrepare", jni, thread, [&](Agent& a) { a.events().OnClassPrepare(jni, thread, klass); },
              OnAgentThread::kHandle);
}
void JNICALL CbBreakpoint(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  GuardThread("Breakpoint", jni, thread, [&](Agent& a) { a.events().OnBreakpoint(jni, thread, method, location); });
}
void JNICALL CbSingleStep(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  // A step of StackFrame.PopFrames' own (frame_pop.h) is not the debugger's.
  GuardThread("SingleStep", jni, thread, [&](Agent& a) {
    if (!FramePops().OnSingleStep(jni, thread)) a.events().stepping().OnSingleStep(jni, thread, method, location);
  });
}
void JNICALL CbFramePop(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jboolean by_exception) {
  GuardThread("FramePop", jni, thread, [&](Agent& a) { a.events().stepping().OnFramePop(jni, thread, method, by_exception == JNI_TRUE); });
}
void JNICALL CbException(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                         jobject exception, jmethodID catch_method, jlocation catch_location) {
  GuardThread("Exception", jni, thread, [&](Agent& a) {
    a.events().OnException(jni, thread, method, location, exception, catch_method, catch_location);
  });
}

void JNICALL CbMethodEntry(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method) {
  GuardThread("MethodEntry", jni, thread, [&](Agent& a) { a.events().method_events().OnMethodEntry(jni, thread, method); });
}
void JNICALL CbMethodExit(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jboolean by_exception,
                          jvalue return_value) {
  GuardThread("MethodExit", jni, thread, [&](Agent& a) {
    a.events().method_events().OnMethodExit(jni, thread, method, by_exception == JNI_TRUE, return_value);
  });
}
void JNICALL CbFieldAccess(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                           jclass field_klass, jobject object, jfieldID field) {
  GuardThread("FieldAccess", jni, thread, [&](Agent& a) {
    a.events().OnFieldEvent(jni, thread, method, location, field_klass, object, field, 0, jvalue{});
  });
}
void JNICALL CbFieldModification(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                                 jclass field_klass, jobject object, jfieldID field, char signature_type,
                                 jvalue new_value) {
  GuardThread("FieldModification", jni, thread, [&](Agent& a) {
    a.events().OnFieldEvent(jni, thread, method, location, field_klass, object, field,
                            signature_type ? signature_type : 'L', new_value);
  });
}
void JNICALL CbMonitorWait(jvmtiEnv*, JNIEnv* jni, jthread thread, jobject object, jlong timeout) {
  GuardThread("MonitorWait", jni, thread, [&](Agent& a) {
    a.events().OnMonitorEvent(jni, thread, object, jdwp::EventKind::kMonitorWait, timeout);
  });
}
void JNICALL CbMonitorWaited(jvmtiEnv*, JNIEnv* jni, jthread thread, jobject object, jboolean timed_out) {
  GuardThread("MonitorWaited", jni, thread, [&](Agent& a) {
    a.events().OnMonitorEvent(jni, thread, object, jdwp::EventKind::kMonitorWaited, timed_out == JNI_TRUE);
  });
}
void JNICALL CbMonitorContendedEnter(jvmtiEnv*, JNIEnv* jni, jthread thread, jobject object) {
  GuardThread("MonitorContendedEnter", jni, thread, [&](Agent& a) {
    a.events().OnMonitorEvent(jni, thread, object, jdwp::EventKind::kMonitorContendedEnter, 0);
  });
}
void JNICALL CbMonitorContendedEntered(jvmtiEnv*, JNIEnv* jni, jthread thread, jobject object) {
  GuardThread("MonitorContendedEntered", jni, thread, [&](Agent& a) {
    a.events().OnMonitorEvent(jni, thread, object, jdwp::EventKind::kMonitorContendedEntered, 0);
  });
}

// Virtual threads: JVMTI 21 posts VirtualThreadStart/End on the virtual thread
// itself. Started ones are listed only with includevirtualthreads=y (the event
// is enabled only then) and reported as ThreadStart, as stock does.
void JNICALL CbVirtualThreadStart(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  GuardThread("VirtualThreadStart", jni, thread, [&](Agent& a) {
    a.context().threads.VirtualThreadStarted(jni, thread);
    a.events().OnThreadStart(jni, thread);
  });
}
// Enabled whenever virtual threads are supported, to drop the state of those
// that met the debugger; one JVMTI call for the others.
void JNICALL CbVirtualThreadEnd(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  Agent* agent = g_agent;
  if (!agent) return;
  ThreadControl& threads = agent->context().threads;
  try {
    if (!threads.CurrentVirtualHasSlot()) return;
  } catch (...) {
    return;
  }
  GuardThread("VirtualThreadEnd", jni, thread, [&](Agent& a) {
    if (a.context().options.include_virtual_threads) a.events().OnThreadEnd(jni, thread);
  }, OnAgentThread::kIgnore, true);
  Guard("VirtualThreadEnd", [&](Agent& a) { a.context().threads.VirtualThreadEnded(jni); });
}

// jvmtiEventCallbacks as of JVMTI 21: JDK 17's struct ends at event 86.
struct CallbacksWithVirtualThreads {
  jvmtiEventCallbacks base;
  void(JNICALL* virtual_thread_start)(jvmtiEnv*, JNIEnv*, jthread);  // event 87
  void(JNICALL* virtual_thread_end)(jvmtiEnv*, JNIEnv*, jthread);    // event 88
};
static_assert(offsetof(CallbacksWithVirtualThreads, virtual_thread_start) == sizeof(jvmtiEventCallbacks));

// The start trigger's environment (onthrow=/onuncaught=): not one of the debugger's callbacks.
void JNICALL StartTriggerException(jvmtiEnv* env, JNIEnv* jni, jthread thread, jmethodID method, jlocation location,
                                   jobject exception, jmethodID catch_method, jlocation catch_location) {
  GuardThread("Exception (start trigger)", jni, thread, [&](Agent& a) {
    a.OnStartTrigger(env, jni, thread, method, location, exception, catch_method, catch_location);
  });
}

}  // namespace

bool FindJvmResumeThread(jvmtiEnv* env) {
  g_jvm_resume_thread_symbol = dlsym(RTLD_DEFAULT, "JVM_ResumeThread");
  if (!g_jvm_resume_thread_symbol) {
    // libjvm loaded without RTLD_GLOBAL (an embedding launcher): found by one of its JVMTI functions.
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(env->functions->GetVersionNumber), &info) && info.dli_fname)
      if (void* libjvm = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD)) g_jvm_resume_thread_symbol = dlsym(libjvm, "JVM_ResumeThread");
  }
  return g_jvm_resume_thread_symbol != nullptr;
}

bool SetAgentCallbacks(jvmtiEnv* env, bool virtual_threads) {
  CallbacksWithVirtualThreads all{};
  jvmtiEventCallbacks& cb = all.base;
  cb.VMInit = CbVmInit;
  cb.VMDeath = CbVmDeath;
  cb.ThreadStart = CbThreadStart;
  cb.ThreadEnd = CbThreadEnd;
  cb.ClassPrepare = CbClassPrepare;
  cb.Breakpoint = CbBreakpoint;
  cb.SingleStep = CbSingleStep;
  cb.FramePop = CbFramePop;
  cb.Exception = CbException;
  cb.MethodEntry = CbMethodEntry;
  cb.MethodExit = CbMethodExit;
  cb.FieldAccess = CbFieldAccess;
  cb.FieldModification = CbFieldModification;
  cb.MonitorWait = CbMonitorWait;
  cb.MonitorWaited = CbMonitorWaited;
  cb.MonitorContendedEnter = CbMonitorContendedEnter;
  cb.MonitorContendedEntered = CbMonitorContendedEntered;
  cb.NativeMethodBind = CbNativeMethodBind;
  all.virtual_thread_start = CbVirtualThreadStart;
  all.virtual_thread_end = CbVirtualThreadEnd;
  jint callbacks_size = virtual_threads ? static_cast<jint>(sizeof(all)) : static_cast<jint>(sizeof(cb));
  return env->SetEventCallbacks(&cb, callbacks_size) == JVMTI_ERROR_NONE;
}

bool SetStartTriggerCallbacks(jvmtiEnv* env) {
  jvmtiEventCallbacks callbacks{};
  callbacks.Exception = StartTriggerException;
  return env->SetEventCallbacks(&callbacks, static_cast<jint>(sizeof(callbacks))) == JVMTI_ERROR_NONE;
}

}  // namespace jdwpx::backend
