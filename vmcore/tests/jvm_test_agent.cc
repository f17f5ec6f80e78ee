// vmcore's tests inside a real JVM: loaded with -agentpath, this agent runs its
// cases at VMInit against the live JVMTI environment, prints one line per case
// and "N passed, M failed", and exits with 0 only when every case passed.
#include <jni.h>
#include <jvmti.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "vmcore/jvmti.h"
#include "vmcore/refs.h"

namespace {

jvmtiEnv* g_env = nullptr;
int g_passed = 0;
int g_failed = 0;

void Check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  (ok ? g_passed : g_failed)++;
}

void JNICALL OnVmInit(jvmtiEnv*, JNIEnv* jni, jthread thread) {
  using namespace jdwpx::vmcore;
  Jvmti j(g_env);

  auto version = j.GetVersion();
  Check(version && version->first >= 17, "GetVersion major is the JDK feature release (>= 17)");

  jclass string_class = jni->FindClass("java/lang/String");
  auto sig = j.GetClassSignature(string_class);
  Check(sig && sig->signature == "Ljava/lang/String;", "GetClassSignature(String)");

  auto status = j.GetClassStatus(string_class);
  Check(status && (*status & JVMTI_CLASS_STATUS_PREPARED), "String is prepared");

  auto methods = j.GetClassMethods(string_class);
  bool has_length = false;
  if (methods) {
    for (jmethodID m : *methods) {
      auto name = j.GetMethodName(m);
      if (name && name->name == "length" && name->signature == "()I") has_length = true;
    }
  }
  Check(has_length, "GetClassMethods(String) includes length()I");

  // GetFieldTypeChar: the signature's first character, as GetFieldName's signature has it.
  auto fields = j.GetClassFields(string_class);
  bool types_agree = fields.has_value() && !fields->empty();
  bool has_int_hash = false;
  if (fields) {
    for (jfieldID f : *fields) {
      auto name = j.GetFieldName(string_class, f);
      auto type = j.GetFieldTypeChar(string_class, f);
      if (!name || !type || name->signature.empty() || *type != name->signature[0]) types_agree = false;
      if (name && type && name->name == "hash" && *type == 'I') has_int_hash = true;
    }
  }
  Check(types_agree && has_int_hash, "GetFieldTypeChar is the first character of each field's signature (String.hash: I)");

  auto loaded = j.LoadedClasses();
  bool found = false;
  if (loaded) {
    for (jclass k : *loaded) {
      if (jni->IsSameObject(k, string_class)) found = true;
      jni->DeleteLocalRef(k);
    }
  }
  Check(found, "LoadedClasses contains String");

  auto info = j.GetThreadInfo(thread);
  Check(info && info->name == "main", "GetThreadInfo(initial thread).name == main");

  auto frames = j.GetFrameCount(thread);
  Check(frames.has_value(), "GetFrameCount(current thread) answers");

  auto bad = j.GetClassSignature(nullptr);
  Check(!bad && bad.error().code == JVMTI_ERROR_INVALID_CLASS &&
            std::string(bad.error().function) == "GetClassSignature",
        "errors carry the JVMTI code and the function's name");

  // JVMTI sees the VM's own properties (java.vm.*), not those the class
  // library sets later (java.version): those need System.getProperty.
  auto prop = j.GetSystemProperty("java.vm.version");
  Check(prop && prop->has_value() && !(*prop)->empty(), "GetSystemProperty(java.vm.version)");
  auto missing = j.GetSystemProperty("jdwpx.no.such.property");
  Check(missing && !missing->has_value(), "GetSystemProperty of an unknown name is empty, not an error");

  {
    LocalFrame frame(jni, 16);
    Check(frame.ok(), "LocalFrame pushes a frame");
  }

  // Suspend/ResumeThreadList: one answer per thread, in order; an empty list
  // makes no JVMTI call (JVMTI refuses a count of 0).
  {
    LocalFrame frame(jni, 64);
    auto empty = j.SuspendThreadList({});
    Check(empty && empty->empty(), "SuspendThreadList of no thread answers nothing");
    std::vector<jthread> others;
    if (auto all = j.GetAllThreads()) {
      for (jthread t : *all)
        if (!jni->IsSameObject(t, thread)) others.push_back(t);
    }
    auto all_are = [](const auto& r, jvmtiError e) {
      return r && std::all_of(r->begin(), r->end(), [e](jvmtiError x) { return x == e; });
    };
    auto suspended = j.SuspendThreadList(others);
    Check(!others.empty() && suspended && suspended->size() == others.size() && all_are(suspended, JVMTI_ERROR_NONE),
          "SuspendThreadList suspends every other thread");
    Check(all_are(j.SuspendThreadList(others), JVMTI_ERROR_THREAD_SUSPENDED),
          "SuspendThreadList again: each one answers THREAD_SUSPENDED");
    Check(all_are(j.ResumeThreadList(others), JVMTI_ERROR_NONE), "ResumeThreadList resumes them");
    Check(all_are(j.ResumeThreadList(others), JVMTI_ERROR_THREAD_NOT_SUSPENDED),
          "ResumeThreadList again: each one answers THREAD_NOT_SUSPENDED");
  }

  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  std::fflush(stdout);
  std::exit(g_failed == 0 ? 0 : 1);
}

}  // namespace

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char*, void*) {
  if (vm->GetEnv(reinterpret_cast<void**>(&g_env), JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jvmtiCapabilities caps{};
  caps.can_get_line_numbers = 1;
  caps.can_suspend = 1;
  g_env->AddCapabilities(&caps);
  jvmtiEventCallbacks cb{};
  cb.VMInit = OnVmInit;
  g_env->SetEventCallbacks(&cb, sizeof(cb));
  g_env->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, nullptr);
  return JNI_OK;
}
