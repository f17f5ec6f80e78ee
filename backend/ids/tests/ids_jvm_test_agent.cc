// The object table's counts with several sessions, inside a real JVM: loaded
// with -agentpath, this agent runs its cases at VMInit on strings the JVM
// makes (real weak references and identity hashes), prints one line per check
// and "N passed, M failed", and exits with 0 only when every check passed.
// Each case is a sequence of what the command thread (CreditScope) and a JVMTI
// callback (EventScope: it makes an event's IDs, then settles them when the
// events are split, SettleEventIds) do, in an order that the threads can
// take; "held" means ObjectReference commands on the ID still find its object.
#include <jni.h>
#include <jvmti.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "backend/ids/ids.h"
#include "vmcore/jvmti.h"

namespace {

using jdwpx::backend::ObjectTable;
using jdwpx::backend::SessionSlot;
using jdwpx::jdwp::ObjectId;

jvmtiEnv* g_env = nullptr;
int g_passed = 0;
int g_failed = 0;

void Check(bool ok, const std::string& what) {
  std::printf("%s %s\n", ok ? "ok  " : "FAIL", what.c_str());
  (ok ? g_passed : g_failed)++;
}

constexpr SessionSlot kA = 0;
constexpr SessionSlot kB = 1;
constexpr SessionSlot kC = 2;

struct Case {
  JNIEnv* jni;
  ObjectTable table{jdwpx::vmcore::Jvmti(g_env)};
  jobject object;

  Case(JNIEnv* jni, std::initializer_list<SessionSlot> sessions) : jni(jni), object(jni->NewStringUTF("object")) {
    for (SessionSlot s : sessions) table.BeginSession(s);
  }
  ~Case() { table.Reset(jni, kA); }

  // The ID as a reply to a command of `session` carries it.
  ObjectId SentTo(SessionSlot session) {
    ObjectTable::CreditScope credit(session);
    return table.IdOf(jni, object);
  }
  // The ID as a JVMTI callback makes it for an event (within the callback's EventScope).
  ObjectId MadeForAnEvent() { return table.IdOf(jni, object); }
  // The callback's events split: who gets the ID.
  void Settle(std::vector<ObjectTable::SessionIds> sent) { table.SettleEventIds(jni, sent); }
  bool Held(ObjectId id) {
    auto local = table.Resolve(jni, id);
    if (!local) return false;
    jni->DeleteLocalRef(*local);
    return true;
  }
};

void JNICALL OnVmInit(jvmtiEnv*, JNIEnv* jni, jthread) {
  {
    Case c(jni, {kA});
    ObjectId id = c.SentTo(kA);
    c.SentTo(kA);
    c.table.Release(jni, id, 1, kA);
    Check(c.Held(id), "one session: sent twice, disposed once: held");
    c.table.Release(jni, id, 1, kA);
    Check(!c.Held(id), "one session: disposed as often as sent: freed");
  }
  {
    Case c(jni, {kA, kB});
    ObjectId id = c.SentTo(kA);
    Check(c.SentTo(kB) == id, "several: one ID per object, whoever asked");
    c.table.Release(jni, id, 1'000'000, kA);
    Check(c.Held(id), "several: A's dispose, however big, leaves B's count");
    c.table.Release(jni, id, 1, kB);
    Check(!c.Held(id), "several: disposed by both: freed");
  }
  {
    Case c(jni, {kA, kB, kC});
    ObjectId id = c.SentTo(kA);
    c.SentTo(kB);
    c.SentTo(kC);
    c.table.EndSession(jni, kA);  // the first session, whose part is the total less the others'
    Check(c.Held(id), "A's end leaves an ID B and C hold");
    c.table.Release(jni, id, 1, kB);
    Check(c.Held(id), "then B's dispose leaves C's");
    c.table.Release(jni, id, 1, kC);
    Check(!c.Held(id), "then C's frees it (C is alone now)");
  }
  {
    Case c(jni, {kA, kB});
    ObjectId b_only = c.SentTo(kB);
    c.table.EndSession(jni, kB);
    Check(!c.Held(b_only), "B's end frees what B alone was sent");
  }
  {
    Case c(jni, {kA, kB});
    ObjectId a_only = c.SentTo(kA);
    c.table.EndSession(jni, kA);
    Check(!c.Held(a_only), "A's end frees what A alone was sent");
  }
  {
    // An event for B on its way while A, which holds the ID too, leaves.
    Case c(jni, {kA, kB});
    ObjectId id = c.SentTo(kA);
    {
      ObjectTable::EventScope callback;
      c.MadeForAnEvent();
      c.table.EndSession(jni, kA);  // on the command thread, meanwhile
      c.Settle({{kB, {id.value}}});
    }
    Check(c.Held(id), "an event's ID stays for B when A leaves before the event is split");
    c.table.Release(jni, id, 1, kB);
    Check(!c.Held(id), "and B's dispose of the one it got frees it");
  }
  {
    // A disposes what it had while its own event with the ID is on its way.
    Case c(jni, {kA, kB});
    ObjectId id = c.SentTo(kA);
    {
      ObjectTable::EventScope callback;
      c.MadeForAnEvent();
      c.table.Release(jni, id, 1, kA);  // on the command thread, meanwhile
      c.Settle({{kA, {id.value}}});
    }
    Check(c.Held(id), "A's dispose while its event is on its way leaves the event's count");
    c.table.Release(jni, id, 1, kA);
    Check(!c.Held(id), "and A's dispose of that one frees it");
  }
  {
    // Several at the making, one left at the split; a newcomer's dispose then.
    Case c(jni, {kA, kB});
    ObjectId id;
    {
      ObjectTable::EventScope callback;
      id = c.MadeForAnEvent();
      c.table.EndSession(jni, kB);
      c.Settle({{kA, {id.value}}});
    }
    c.table.BeginSession(kC);
    c.SentTo(kC);
    c.table.Release(jni, id, 1, kC);
    Check(c.Held(id), "an event's ID made with two attached, sent to A with one left, outlives C's dispose");
  }
  {
    Case c(jni, {kA, kB});
    ObjectId id;
    {
      ObjectTable::EventScope callback;
      id = c.MadeForAnEvent();
      c.Settle({{kB, {id.value}}});
    }
    c.table.Release(jni, id, 1, kB);
    Check(!c.Held(id), "an event for B alone: A's count from the making is taken back");
  }
  {
    Case c(jni, {kA, kB});
    ObjectId id;
    {
      ObjectTable::EventScope callback;
      id = c.MadeForAnEvent();
      c.Settle({{kA, {id.value}}, {kB, {id.value}}});
    }
    c.table.Release(jni, id, 1, kB);
    Check(c.Held(id), "an event for both: B's dispose leaves A's");
    c.table.Release(jni, id, 1, kA);
    Check(!c.Held(id), "and A's frees it");
  }
  {
    Case c(jni, {kA, kB});
    ObjectId id;
    {
      ObjectTable::EventScope callback;
      id = c.MadeForAnEvent();
      c.Settle({});
    }
    Check(!c.Held(id), "made for an event that went to nobody: freed when settled");
  }
  {
    // A callback on a thread answering B (an invocation's breakpoint) whose event goes to A.
    Case c(jni, {kA, kB});
    ObjectId id;
    {
      ObjectTable::CreditScope invoking(kB);
      ObjectTable::EventScope callback;
      id = c.MadeForAnEvent();
      c.Settle({{kA, {id.value}}});
    }
    c.table.Release(jni, id, 1, kA);
    Check(!c.Held(id), "an event made on B's invoking thread, for A: freed by A's dispose");
  }
  {
    // An event reported without a split (to A, say) leaves its IDs counted for
    // all; a later callback settles only the IDs it made itself.
    Case c(jni, {kA, kB});
    ObjectId id = c.SentTo(kA);
    {
      ObjectTable::EventScope callback;
      c.MadeForAnEvent();
    }
    {
      ObjectTable::EventScope later_callback;
      c.Settle({});
    }
    c.table.Release(jni, id, 1, kA);
    Check(c.Held(id), "a later callback's split leaves an earlier callback's event IDs counted");
  }
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  std::fflush(stdout);
  std::_Exit(g_failed == 0 ? 0 : 1);
}

}  // namespace

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char*, void*) {
  if (vm->GetEnv(reinterpret_cast<void**>(&g_env), JVMTI_VERSION_1_2) != JNI_OK) return JNI_ERR;
  jvmtiEventCallbacks cb{};
  cb.VMInit = OnVmInit;
  g_env->SetEventCallbacks(&cb, sizeof(cb));
  g_env->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, nullptr);
  return JNI_OK;
}
