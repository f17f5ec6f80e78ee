// The event path inside a real JVM (docs/event-path.md): raw EventRequest.Set
// bodies in, exact Event.Composite bytes out.
//
// Loaded with -agentpath (and -cp naming EventPathFixture's directory), this
// agent builds what Agent builds around the event code and nothing more: a
// Context, an EventManager writing to a recording Outbox, the reporter thread,
// and JVMTI callbacks that forward to the EventManager inside ThreadControl's
// callback bracket (as vm_callbacks.cc's GuardThread does). At VMInit it starts
// a session (as Session::BeginServing and EnableSessionEvents do) and runs the
// cases: each decodes EventRequest.Set bodies with the jdwp codec, hands them
// to EventRequests::Set, runs EventPathFixture on a new Java thread, and
// compares every packet the outbox got with the composite the spec's layout
// gives (IDs taken from the same Context, so the comparison is exact). The
// SUSPEND_EVENT_THREAD and step cases resume the parked worker as the
// ThreadReference.Resume handler does (UnblockAfterResume, ThreadControl::Resume),
// the SUSPEND_ALL case as VirtualMachine.Resume's does (ThreadControl::ResumeAll);
// the held-events case holds and releases the reporter as VirtualMachine
// HoldEvents and ReleaseEvents do. The cases' own thread plays the command
// thread: an agent thread, which no suspension of all threads stops.
//
// Each case ends with a breakpoint of its own at EventPathFixture.mark(), hit
// by the worker after its hits: the reporter sends in order, so once mark's
// event is in, every event the case's hits made is in too, and "nothing" is
// checked without waiting anything out.
//
// Prints one line per check and "N passed, M failed"; exits 0 only when every
// check passed.
#include "backend/tests/event_path_harness.h"

#include "backend/start/capabilities.h"

namespace event_path_test {

jvmtiEnv* g_jvmti = nullptr;
JavaVM* g_vm = nullptr;
Context* g_ctx = nullptr;           // leaked: JVM threads may call in until the process ends
EventManager* g_events = nullptr;   // leaked, likewise
EventReporter* g_reporter = nullptr;  // leaked, likewise
RecordingOutbox* g_outbox = nullptr;
int g_passed = 0;
int g_failed = 0;

std::mutex g_reporter_mu;
std::condition_variable g_reporter_cv;
bool g_reporter_ended = false;

void Check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  std::fflush(stdout);
  (ok ? g_passed : g_failed)++;
}

[[noreturn]] void Finish(int code) {
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  std::fflush(stdout);
  std::fflush(stderr);
  // No destructors: JVM threads may still be in the callbacks' code.
  std::_Exit(code);
}

}  // namespace event_path_test

namespace {

using namespace event_path_test;

// ---- JVMTI callbacks: vm_callbacks.cc's GuardThread, without the agent ----

template <class Fn>
void GuardThread(JNIEnv* jni, jthread thread, Fn fn, bool thread_ends = false) {
  if (!g_events) return;
  ThreadControl& threads = g_ctx->threads;
  if (threads.CurrentIsAgent(jni, thread)) return;
  void* token = nullptr;
  try {
    token = threads.EnterCallback(jni, thread);
    fn();
  } catch (...) {
    std::fprintf(stderr, "event_path_agent: exception in a callback\n");
  }
  if (token && threads.ExitCallback(token)) g_reporter->SuspendDeferred(jni, token);
  if (token && thread_ends) threads.ForgetSelf(jni, token);
}

void JNICALL CbThreadStart(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  GuardThread(jni, thread, [&] { g_events->OnThreadStart(jni, thread); });
}
void JNICALL CbThreadEnd(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  GuardThread(jni, thread, [&] { g_events->OnThreadEnd(jni, thread); }, true);
}
void JNICALL CbClassPrepare(jvmtiEnv*, JNIEnv* jni, jthread thread, jclass klass) {
  if (!g_events) return;
  if (g_ctx->threads.CurrentIsAgent(jni, thread)) {
    g_events->OnClassPrepare(jni, thread, klass);
    return;
  }
  GuardThread(jni, thread, [&] { g_events->OnClassPrepare(jni, thread, klass); });
}
void JNICALL CbBreakpoint(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  GuardThread(jni, thread, [&] { g_events->OnBreakpoint(jni, thread, method, location); });
}
void JNICALL CbSingleStep(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jlocation location) {
  GuardThread(jni, thread, [&] { g_events->stepping().OnSingleStep(jni, thread, method, location); });
}
void JNICALL CbMethodEntry(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method) {
  GuardThread(jni, thread, [&] { g_events->method_events().OnMethodEntry(jni, thread, method); });
}
void JNICALL CbFramePop(jvmtiEnv*, JNIEnv* jni, jthread thread, jmethodID method, jboolean by_exception) {
  GuardThread(jni, thread, [&] { g_events->stepping().OnFramePop(jni, thread, method, by_exception == JNI_TRUE); });
}

void JNICALL ReporterMain(jvmtiEnv*, JNIEnv* jni, void*) {
  ThreadControl::MarkCurrentAsAgent();
  try {
    g_reporter->Run(jni);
  } catch (...) {
    std::fprintf(stderr, "event_path_agent: the reporter ended by an exception\n");
  }
  std::lock_guard lock(g_reporter_mu);
  g_reporter_ended = true;
  g_reporter_cv.notify_all();
}


void JNICALL OnVmInit(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  g_ctx->jdk_feature_version = [] {
    jint v = 0;
    return g_jvmti->GetVersionNumber(&v) == JVMTI_ERROR_NONE ? static_cast<int>((v & JVMTI_VERSION_MASK_MAJOR) >> JVMTI_VERSION_SHIFT_MAJOR) : 17;
  }();
  if (!g_ctx->InitClasses(jni)) {
    Check(false, "Context::InitClasses");
    Finish(1);
  }

  Fixture f;
  jclass local = jni->FindClass("EventPathFixture");
  if (!local) {
    jni->ExceptionDescribe();
    jni->ExceptionClear();
    Check(false, "FindClass(EventPathFixture): run with -cp naming its directory");
    Finish(1);
  }
  f.klass = static_cast<jclass>(jni->NewGlobalRef(local));
  f.hit = jni->GetStaticMethodID(f.klass, "hit", "()V");
  f.mark = jni->GetStaticMethodID(f.klass, "mark", "()V");
  f.start = jni->GetStaticMethodID(f.klass, "start", "(Ljava/lang/String;I)Ljava/lang/Thread;");
  jclass thread_class = jni->FindClass("java/lang/Thread");
  f.join = thread_class ? jni->GetMethodID(thread_class, "join", "()V") : nullptr;
  f.thread_start = thread_class ? jni->GetMethodID(thread_class, "start", "()V") : nullptr;
  f.create = jni->GetStaticMethodID(f.klass, "create", "(Ljava/lang/String;I)Ljava/lang/Thread;");
  f.start_idler = jni->GetStaticMethodID(f.klass, "startIdler", "(Ljava/lang/String;)Ljava/lang/Thread;");
  f.stop_idler = jni->GetStaticMethodID(f.klass, "stopIdler", "()V");
  if (!f.hit || !f.mark || !f.start || !f.join || !f.thread_start || !f.create || !f.start_idler || !f.stop_idler) {
    jni->ExceptionClear();
    Check(false, "EventPathFixture's methods and Thread.join found");
    Finish(1);
  }

  // The reporter thread (Agent::StartAgentThread), hidden from the debugger as an agent thread.
  jmethodID ctor = jni->GetMethodID(thread_class, "<init>", "(Ljava/lang/String;)V");
  jstring name = jni->NewStringUTF("jdwpx events (test)");
  jthread reporter = static_cast<jthread>(jni->NewObject(thread_class, ctor, name));
  g_ctx->threads.AddAgentThread(jni, reporter);
  if (g_jvmti->RunAgentThread(reporter, ReporterMain, nullptr, JVMTI_THREAD_MAX_PRIORITY) != JVMTI_ERROR_NONE) {
    Check(false, "RunAgentThread(reporter)");
    Finish(1);
  }

  // The cases' thread (this VMInit thread) plays the command thread, which the
  // Agent runs as an agent thread: a SUSPEND_ALL event and the VM suspension
  // around a method request's Set and Clear (EventRequests) leave it running,
  // as they leave the thread that sends the debugger's commands.
  g_ctx->threads.AddAgentThread(jni, thread);
  ThreadControl::MarkCurrentAsAgent();

  // The session's start (Session::OnAttached / BeginServing, then EnableSessionEvents).
  g_events->BeginSession(kSlot0);
  for (jvmtiEvent e : {JVMTI_EVENT_THREAD_START, JVMTI_EVENT_THREAD_END, JVMTI_EVENT_BREAKPOINT, JVMTI_EVENT_FRAME_POP}) {
    if (g_jvmti->SetEventNotificationMode(JVMTI_ENABLE, e, nullptr) != JVMTI_ERROR_NONE) {
      Check(false, "SetEventNotificationMode(" + std::to_string(e) + ")");
      Finish(1);
    }
  }
  g_events->requests().ActivateSession(jni);
  (void)g_ctx->classes.Sync(jni);

  Harness h(jni, f);
  RunCases(h);

  // The session's end and the reporter's stop (Agent::EndIdleThreads): no agent thread left in native.
  g_events->EndSession(jni, kSlot0);
  g_reporter->Stop();
  {
    std::unique_lock lock(g_reporter_mu);
    Check(g_reporter_cv.wait_for(lock, kWait, [] { return g_reporter_ended; }), "the reporter thread stops");
  }
  Finish(g_failed == 0 ? 0 : 1);
}

}  // namespace

using namespace event_path_test;  // the globals the callbacks share

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char*, void*) {
  g_vm = vm;
  if (vm->GetEnv(reinterpret_cast<void**>(&g_jvmti), JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  // What the agent asks for (its VM-dependent extras aside).
  jvmtiCapabilities potential{};
  if (g_jvmti->GetPotentialCapabilities(&potential) != JVMTI_ERROR_NONE) return JNI_ERR;
  jvmtiCapabilities caps = jdwpx::backend::DebuggerCapabilities(potential);
  if (g_jvmti->AddCapabilities(&caps) != JVMTI_ERROR_NONE) return JNI_ERR;

  g_ctx = new Context(vm, g_jvmti, jdwpx::backend::Options{});
  g_outbox = new RecordingOutbox();
  g_reporter = new EventReporter(*g_ctx, *g_outbox);
  g_events = new EventManager(*g_ctx, *g_outbox, *g_reporter);

  jvmtiEventCallbacks cb{};
  cb.VMInit = OnVmInit;
  cb.ThreadStart = CbThreadStart;
  cb.ThreadEnd = CbThreadEnd;
  cb.ClassPrepare = CbClassPrepare;
  cb.Breakpoint = CbBreakpoint;
  cb.SingleStep = CbSingleStep;
  cb.FramePop = CbFramePop;
  cb.MethodEntry = CbMethodEntry;  // enabled by the requests that need it (EventRequests)
  if (g_jvmti->SetEventCallbacks(&cb, sizeof(cb)) != JVMTI_ERROR_NONE) return JNI_ERR;
  if (g_jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, nullptr) != JVMTI_ERROR_NONE) return JNI_ERR;
  return JNI_OK;
}
