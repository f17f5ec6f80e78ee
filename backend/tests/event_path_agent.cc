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
// to EventManager::Set, runs EventPathFixture on a new Java thread, and
// compares every packet the outbox got with the composite the spec's layout
// gives (IDs taken from the same Context, so the comparison is exact). The
// SUSPEND_EVENT_THREAD and step cases resume the parked worker as the
// ThreadReference.Resume handler does (UnblockAfterResume, ThreadControl::Resume).
//
// Each case ends with a breakpoint of its own at EventPathFixture.mark(), hit
// by the worker after its hits: the reporter sends in order, so once mark's
// event is in, every event the case's hits made is in too, and "nothing" is
// checked without waiting anything out.
//
// Prints one line per check and "N passed, M failed"; exits 0 only when every
// check passed.
#include <jni.h>
#include <jvmti.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backend/capabilities.h"
#include "backend/context.h"
#include "backend/events.h"
#include "backend/ids.h"
#include "backend/outbox.h"
#include "backend/threads.h"
#include "jdwp/codec.h"
#include "jdwp/commands/event_request.h"

namespace {

using jdwpx::backend::Context;
using jdwpx::backend::EventManager;
using jdwpx::backend::EventReporter;
using jdwpx::backend::Outbox;
using jdwpx::backend::ThreadControl;
using Bytes = std::vector<uint8_t>;

constexpr auto kWait = std::chrono::seconds(10);

// JDWP constants as the spec numbers them (written out: the expectations do
// not come from the code under test).
constexpr uint8_t kSingleStep = 1;
constexpr uint8_t kBreakpoint = 2;
constexpr uint8_t kSuspendNone = 0;
constexpr uint8_t kSuspendEventThread = 1;
constexpr uint8_t kModCount = 1;
constexpr uint8_t kModThreadOnly = 3;
constexpr uint8_t kModClassMatch = 5;
constexpr uint8_t kModLocationOnly = 7;
constexpr uint8_t kModStep = 10;
constexpr uint32_t kStepLine = 1;
constexpr uint32_t kStepOver = 1;
constexpr uint8_t kEventCommandSet = 64;
constexpr uint8_t kCompositeCommand = 100;

// Big-endian bytes, as the wire has them.
struct Out {
  Bytes b;
  Out& U8(uint8_t v) {
    b.push_back(v);
    return *this;
  }
  Out& U32(uint32_t v) {
    for (int i = 3; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Out& U64(uint64_t v) {
    for (int i = 7; i >= 0; --i) b.push_back(static_cast<uint8_t>(v >> (8 * i)));
    return *this;
  }
  Out& Str(std::string_view s) {
    U32(static_cast<uint32_t>(s.size()));
    b.insert(b.end(), s.begin(), s.end());
    return *this;
  }
  Out& Loc(const jdwpx::jdwp::Location& l) {
    return U8(static_cast<uint8_t>(l.type_tag)).U64(l.class_id.value).U64(l.method_id.value).U64(l.index);
  }
};

std::string Hex(const Bytes& b) {
  std::string s;
  char buf[4];
  for (uint8_t x : b) {
    std::snprintf(buf, sizeof buf, "%02x", x);
    s += buf;
  }
  return s;
}

// The session's side of the event path: records what is sent.
class RecordingOutbox : public Outbox {
 public:
  void Send(Bytes packet) override {
    std::lock_guard lock(mu_);
    packets_.push_back(std::move(packet));
    cv_.notify_all();
  }
  // Only expired method requests post tasks; run between cases on the test thread.
  void PostTask(std::function<void(JNIEnv*)> task) override {
    std::lock_guard lock(mu_);
    tasks_.push_back(std::move(task));
  }
  // Waits (bounded) until a packet satisfies `done`; false on timeout.
  bool WaitFor(const std::function<bool(const Bytes&)>& done) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kWait, [&] {
      for (const Bytes& p : packets_)
        if (done(p)) return true;
      return false;
    });
  }
  // Waits (bounded) until `n` packets are in; false on timeout.
  bool WaitForCount(size_t n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kWait, [&] { return packets_.size() >= n; });
  }
  size_t Count() {
    std::lock_guard lock(mu_);
    return packets_.size();
  }
  std::vector<Bytes> Take() {
    std::lock_guard lock(mu_);
    return std::exchange(packets_, {});
  }
  void RunTasks(JNIEnv* jni) {
    std::deque<std::function<void(JNIEnv*)>> tasks;
    {
      std::lock_guard lock(mu_);
      tasks.swap(tasks_);
    }
    for (auto& t : tasks) t(jni);
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Bytes> packets_;
  std::deque<std::function<void(JNIEnv*)>> tasks_;
};

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

// ---- The harness ----

struct Fixture {
  jclass klass = nullptr;  // global
  jmethodID hit = nullptr;
  jmethodID mark = nullptr;
  jmethodID start = nullptr;
  jmethodID join = nullptr;  // Thread.join()
  jthread main_thread = nullptr;
};

class Harness {
 public:
  Harness(JNIEnv* jni, Fixture f) : jni_(jni), f_(f) {}

  const Fixture& fixture() const { return f_; }
  JNIEnv* jni() const { return jni_; }

  jdwpx::jdwp::Location LocationOf(jmethodID method, jlocation index) { return g_ctx->LocationOf(jni_, method, index); }
  uint64_t ClassId() { return g_ctx->IdOf<jdwpx::jdwp::ClassId>(jni_, f_.klass).value; }
  uint64_t ThreadId(jthread t) { return g_ctx->IdOf<jdwpx::jdwp::ThreadId>(jni_, t).value; }

  // A Breakpoint request's EventRequest.Set body: LocationOnly at `loc`, after `extra` modifiers.
  static Bytes BreakpointSet(uint8_t policy, const jdwpx::jdwp::Location& loc, int extra_count = 0,
                             const Bytes& extra = {}) {
    Out o;
    o.U8(kBreakpoint).U8(policy).U32(static_cast<uint32_t>(extra_count + 1));
    o.b.insert(o.b.end(), extra.begin(), extra.end());
    o.U8(kModLocationOnly).Loc(loc);
    return o.b;
  }

  // "Packets in": decodes a Set body as the dispatcher does and sets it; 0 on failure.
  int32_t Set(const Bytes& body, const std::string& what) {
    auto req = jdwpx::jdwp::DecodeBody<jdwpx::jdwp::EventRequest::Set::Request>(body);
    if (!req) {
      Check(false, what + ": EventRequest.Set body decodes");
      return 0;
    }
    auto id = g_events->requests().Set(jni_, *req);
    if (!id) {
      Check(false, what + ": EventRequest.Set accepted (" + std::string(jdwpx::jdwp::ErrorName(id.error().code)) + ")");
      return 0;
    }
    return *id;
  }
  bool Clear(uint8_t kind, int32_t id) {
    Bytes body = Out{}.U8(kind).U32(static_cast<uint32_t>(id)).b;
    auto req = jdwpx::jdwp::DecodeBody<jdwpx::jdwp::EventRequest::Clear::Request>(body);
    if (!req) return false;
    return g_events->requests().Clear(jni_, req->event_kind, req->request_id).has_value();
  }

  // The Event.Composite packet of breakpoint events (or of `kind`'s, which
  // share their layout): {request ID, location} each, on `thread_id`.
  Bytes Composite(uint8_t policy, uint64_t thread_id,
                  const std::vector<std::pair<int32_t, jdwpx::jdwp::Location>>& events, uint8_t kind = kBreakpoint) {
    Out body;
    body.U8(policy).U32(static_cast<uint32_t>(events.size()));
    for (const auto& [id, loc] : events) body.U8(kind).U32(static_cast<uint32_t>(id)).U64(thread_id).Loc(loc);
    Out p;
    p.U32(static_cast<uint32_t>(11 + body.b.size())).U32(next_packet_id_++).U8(0).U8(kEventCommandSet).U8(kCompositeCommand);
    p.b.insert(p.b.end(), body.b.begin(), body.b.end());
    return p.b;
  }

  // Starts EventPathFixture.start(name, times); a local reference.
  jthread StartWorker(const char* name, int times) {
    jstring jname = jni_->NewStringUTF(name);
    jobject t = jni_->CallStaticObjectMethod(f_.klass, f_.start, jname, static_cast<jint>(times));
    jni_->DeleteLocalRef(jname);
    if (jni_->ExceptionCheck()) {
      jni_->ExceptionDescribe();
      jni_->ExceptionClear();
      return nullptr;
    }
    return static_cast<jthread>(t);
  }
  void Join(jthread t) {
    jni_->CallVoidMethod(t, f_.join);
    if (jni_->ExceptionCheck()) {
      jni_->ExceptionDescribe();
      jni_->ExceptionClear();
    }
  }

  // Runs a case: `set` sets its requests (their IDs in `ids`), a worker hits
  // hit() `times` times then mark(); `expect` builds the packets expected
  // before mark's (thread ID, the case's request IDs). Clears them all after.
  void Run(const std::string& name, int times, const std::function<std::vector<int32_t>()>& set,
           const std::function<std::vector<Bytes>(uint64_t thread, const std::vector<int32_t>& ids)>& expect) {
    jni_->PushLocalFrame(64);
    std::vector<int32_t> ids = set();
    bool set_ok = !ids.empty();
    for (int32_t id : ids) set_ok = set_ok && id > 0;
    int32_t mark_id = set_ok ? Set(BreakpointSet(kSuspendNone, LocationOf(f_.mark, 0)), name + " (mark)") : 0;
    if (!set_ok || mark_id == 0) {
      Check(false, name + ": requests set");
      Cleanup(ids, mark_id);
      jni_->PopLocalFrame(nullptr);
      return;
    }
    jthread worker = StartWorker(("ev-" + name).c_str(), times);
    if (!worker) {
      Check(false, name + ": worker started");
      Cleanup(ids, mark_id);
      jni_->PopLocalFrame(nullptr);
      return;
    }
    const uint64_t thread_id = ThreadId(worker);
    const bool marked = g_outbox->WaitFor([&](const Bytes& p) { return RequestIdOf(p) == mark_id; });
    Join(worker);
    std::vector<Bytes> got = g_outbox->Take();
    if (!marked) {
      Check(false, name + ": no event of the closing mark() breakpoint within 10 s (" + std::to_string(got.size()) +
                       " packets)");
    } else {
      std::vector<Bytes> want = expect(thread_id, ids);
      want.push_back(Composite(kSuspendNone, thread_id, {{mark_id, LocationOf(f_.mark, 0)}}));
      bool same = got == want;
      std::string detail;
      if (!same) {
        detail = " (got " + std::to_string(got.size()) + " packets, want " + std::to_string(want.size()) + ")";
        for (size_t i = 0; i < got.size(); ++i) detail += "\n       got  " + Hex(got[i]);
        for (size_t i = 0; i < want.size(); ++i) detail += "\n       want " + Hex(want[i]);
        // Keep later cases' packet IDs in step with what was sent.
        next_packet_id_ = static_cast<uint32_t>(next_packet_id_ - want.size() + got.size());
      }
      Check(same, name + detail);
    }
    Cleanup(ids, mark_id);
    jni_->PopLocalFrame(nullptr);
  }

  // Clears the case's requests; one that expired or was cleared already is
  // gone (INVALID_EVENT_TYPE then is no failure of the case).
  void Cleanup(const std::vector<int32_t>& ids, int32_t mark_id) {
    for (int32_t id : ids)
      if (id > 0) (void)Clear(kBreakpoint, id);
    if (mark_id > 0) (void)Clear(kBreakpoint, mark_id);
    g_outbox->RunTasks(jni_);
  }

  // The first event's request ID of a composite, or 0.
  static int32_t RequestIdOf(const Bytes& p) {
    if (p.size() < 11 + 1 + 4 + 1 + 4) return 0;
    uint32_t v = 0;
    for (size_t i = 17; i < 21; ++i) v = (v << 8) | p[i];
    return static_cast<int32_t>(v);
  }

  uint32_t next_packet_id() const { return next_packet_id_; }
  void set_next_packet_id(uint32_t id) { next_packet_id_ = id; }

 private:
  JNIEnv* jni_;
  Fixture f_;
  uint32_t next_packet_id_ = 1;  // EventReporter numbers its packets from 1
};

void RunCases(Harness& h) {
  const Fixture& f = h.fixture();
  JNIEnv* jni = h.jni();
  const auto hit0 = h.LocationOf(f.hit, 0);
  using Events = std::vector<Bytes>;
  using Ids = std::vector<int32_t>;

  // 1. One breakpoint, SUSPEND_NONE: one composite per hit.
  h.Run("breakpoint SUSPEND_NONE: one composite, exact bytes", 1,
        [&] { return Ids{h.Set(Harness::BreakpointSet(kSuspendNone, hit0), "breakpoint")}; },
        [&](uint64_t t, const Ids& ids) { return Events{h.Composite(kSuspendNone, t, {{ids[0], hit0}})}; });

  // 2. Count=2: the first hit reports nothing, the second reports, the third nothing (expired).
  h.Run("Count=2: only the second of three hits reports", 3,
        [&] {
          Bytes count = Out{}.U8(kModCount).U32(2).b;
          return Ids{h.Set(Harness::BreakpointSet(kSuspendNone, hit0, 1, count), "Count=2")};
        },
        [&](uint64_t t, const Ids& ids) { return Events{h.Composite(kSuspendNone, t, {{ids[0], hit0}})}; });

  // 3. ThreadOnly naming another thread (the VMInit thread): nothing.
  h.Run("ThreadOnly of another thread: nothing", 2,
        [&] {
          Bytes only = Out{}.U8(kModThreadOnly).U64(h.ThreadId(f.main_thread)).b;
          return Ids{h.Set(Harness::BreakpointSet(kSuspendNone, hit0, 1, only), "ThreadOnly")};
        },
        [&](uint64_t, const Ids&) { return Events{}; });

  // 4. ClassMatch: a pattern that matches the class reports, one that does not, nothing.
  h.Run("ClassMatch \"*PathFixture\" matches: reports", 1,
        [&] {
          Bytes m = Out{}.U8(kModClassMatch).Str("*PathFixture").b;
          return Ids{h.Set(Harness::BreakpointSet(kSuspendNone, hit0, 1, m), "ClassMatch")};
        },
        [&](uint64_t t, const Ids& ids) { return Events{h.Composite(kSuspendNone, t, {{ids[0], hit0}})}; });
  h.Run("ClassMatch \"java.lang.*\" does not match: nothing", 1,
        [&] {
          Bytes m = Out{}.U8(kModClassMatch).Str("java.lang.*").b;
          return Ids{h.Set(Harness::BreakpointSet(kSuspendNone, hit0, 1, m), "ClassMatch")};
        },
        [&](uint64_t, const Ids&) { return Events{}; });

  // 5. LocationOnly: a breakpoint at hit()'s last instruction reports that index, once per hit.
  jlocation start = 0, end = 0;
  if (g_jvmti->GetMethodLocation(f.hit, &start, &end) != JVMTI_ERROR_NONE || end <= 0) {
    Check(false, "GetMethodLocation(hit) for the LocationOnly case");
  } else {
    const auto hit_end = h.LocationOf(f.hit, end);
    h.Run("LocationOnly at hit()'s last index (" + std::to_string(end) + "): one event per hit, that index", 2,
          [&] { return Ids{h.Set(Harness::BreakpointSet(kSuspendNone, hit_end), "LocationOnly")}; },
          [&](uint64_t t, const Ids& ids) {
            return Events{h.Composite(kSuspendNone, t, {{ids[0], hit_end}}),
                          h.Composite(kSuspendNone, t, {{ids[0], hit_end}})};
          });
  }

  // 6. Two requests at one location: one composite, the newest request first.
  h.Run("two breakpoints at one location: one composite, newest first", 1,
        [&] {
          return Ids{h.Set(Harness::BreakpointSet(kSuspendNone, hit0), "first"),
                     h.Set(Harness::BreakpointSet(kSuspendNone, hit0), "second")};
        },
        [&](uint64_t t, const Ids& ids) {
          return Events{h.Composite(kSuspendNone, t, {{ids[1], hit0}, {ids[0], hit0}})};
        });

  // 7. EventRequest.Clear: a cleared request reports no more (the other one at the place still does).
  {
    h.Run("EventRequest.Clear: the cleared request reports no more", 1,
          [&] {
            Ids ids{h.Set(Harness::BreakpointSet(kSuspendNone, hit0), "kept"),
                    h.Set(Harness::BreakpointSet(kSuspendNone, hit0), "cleared")};
            if (ids[1] > 0 && !h.Clear(kBreakpoint, ids[1])) Check(false, "EventRequest.Clear of a set request answers NONE");
            return ids;
          },
          [&](uint64_t t, const Ids& ids) { return Events{h.Composite(kSuspendNone, t, {{ids[0], hit0}})}; });
    // Clearing every request of a place clears the JVMTI breakpoint too: hits report nothing.
    h.Run("EventRequest.Clear of every request at a place: nothing", 1,
          [&] {
            int32_t id = h.Set(Harness::BreakpointSet(kSuspendNone, hit0), "only");
            if (id > 0 && !h.Clear(kBreakpoint, id)) Check(false, "EventRequest.Clear answers NONE");
            return Ids{id};
          },
          [&](uint64_t, const Ids&) { return Events{}; });
  }

  // 8. SUSPEND_EVENT_THREAD: the hitting thread sends its event and parks until resumed.
  {
    jni->PushLocalFrame(32);
    int32_t id = h.Set(Harness::BreakpointSet(kSuspendEventThread, hit0), "SUSPEND_EVENT_THREAD");
    int32_t mark_id = h.Set(Harness::BreakpointSet(kSuspendNone, h.LocationOf(f.mark, 0)), "mark");
    jfieldID marks_field = jni->GetStaticFieldID(f.klass, "marks", "I");
    const jint marks_at_start = marks_field ? jni->GetStaticIntField(f.klass, marks_field) : -1;
    jthread worker = id > 0 && mark_id > 0 ? h.StartWorker("ev-suspend", 1) : nullptr;
    if (!worker) {
      Check(false, "SUSPEND_EVENT_THREAD: requests set, worker started");
    } else {
      const uint64_t t = h.ThreadId(worker);
      bool got_event = g_outbox->WaitForCount(1);
      std::vector<Bytes> first = g_outbox->Take();
      Bytes want = h.Composite(kSuspendEventThread, t, {{id, hit0}});
      Check(got_event && first.size() == 1 && first[0] == want,
            "SUSPEND_EVENT_THREAD: one composite, policy 1" +
                (first.size() == 1 ? std::string() : " (" + std::to_string(first.size()) + " packets)"));
      // Parked until resumed: mark() has not run (a thread that went on might
      // not have got there yet either, so this check can only miss, never flake).
      jfieldID marks = jni->GetStaticFieldID(f.klass, "marks", "I");
      const jint marks_before = marks ? jni->GetStaticIntField(f.klass, marks) : -1;
      Check(marks && g_outbox->Count() == 0 && marks_before == marks_at_start,
            "SUSPEND_EVENT_THREAD: the thread goes no further before its resume");
      // ThreadReference.Resume's handler: unblock, then resume.
      g_reporter->UnblockAfterResume();
      auto resumed = g_ctx->threads.Resume(jni, worker);
      Check(resumed.has_value(), "SUSPEND_EVENT_THREAD: ThreadControl::Resume answers NONE");
      bool marked = g_outbox->WaitForCount(1);
      std::vector<Bytes> rest = g_outbox->Take();
      Bytes want_mark = h.Composite(kSuspendNone, t, {{mark_id, h.LocationOf(f.mark, 0)}});
      Check(marked && rest.size() == 1 && rest[0] == want_mark, "SUSPEND_EVENT_THREAD: resumed, it runs on to mark()");
      h.Join(worker);
    }
    if (id > 0) (void)h.Clear(kBreakpoint, id);
    if (mark_id > 0) (void)h.Clear(kBreakpoint, mark_id);
    g_outbox->RunTasks(jni);
    jni->PopLocalFrame(nullptr);
  }

  // 9. A step's completion: stopped at hit()'s breakpoint (SUSPEND_EVENT_THREAD), a
  // line step over (Count=1) set, the thread resumed: the step ends on the next
  // line, hit()'s closing brace, whose one instruction is its last (javac -g).
  jlocation hit_start = 0, hit_end = 0;
  if (g_jvmti->GetMethodLocation(f.hit, &hit_start, &hit_end) != JVMTI_ERROR_NONE) hit_end = -1;
  {
    jni->PushLocalFrame(32);
    int32_t id = h.Set(Harness::BreakpointSet(kSuspendEventThread, hit0), "step: breakpoint");
    int32_t mark_id = h.Set(Harness::BreakpointSet(kSuspendNone, h.LocationOf(f.mark, 0)), "step: mark");
    jthread worker = id > 0 && mark_id > 0 && hit_end > 0 ? h.StartWorker("ev-step", 1) : nullptr;
    if (!worker) {
      Check(false, "step: requests set, worker started");
    } else {
      const uint64_t t = h.ThreadId(worker);
      bool stopped = g_outbox->WaitForCount(1);
      std::vector<Bytes> first = g_outbox->Take();
      Check(stopped && first.size() == 1 && first[0] == h.Composite(kSuspendEventThread, t, {{id, hit0}}),
            "step: stopped at hit()'s breakpoint");
      // JDI's order: the breakpoint cleared, the step set, the thread resumed.
      (void)h.Clear(kBreakpoint, id);
      Bytes step_body = Out{}
                            .U8(kSingleStep)
                            .U8(kSuspendNone)
                            .U32(2)
                            .U8(kModStep)
                            .U64(t)
                            .U32(kStepLine)
                            .U32(kStepOver)
                            .U8(kModCount)
                            .U32(1)
                            .b;
      int32_t step_id = h.Set(step_body, "step: line over");
      g_reporter->UnblockAfterResume();
      auto resumed = g_ctx->threads.Resume(jni, worker);
      Check(step_id > 0 && resumed.has_value(), "step: set (LINE, OVER, Count=1), thread resumed");
      const bool marked = g_outbox->WaitFor([&](const Bytes& p) { return Harness::RequestIdOf(p) == mark_id; });
      std::vector<Bytes> rest = g_outbox->Take();
      std::vector<Bytes> want{h.Composite(kSuspendNone, t, {{step_id, h.LocationOf(f.hit, hit_end)}}, kSingleStep),
                              h.Composite(kSuspendNone, t, {{mark_id, h.LocationOf(f.mark, 0)}})};
      std::string detail;
      if (rest != want) {
        for (const Bytes& p : rest) detail += "\n       got  " + Hex(p);
        for (const Bytes& p : want) detail += "\n       want " + Hex(p);
      }
      Check(marked && rest == want, "step: one SingleStep event at hit()'s last index (" + std::to_string(hit_end) +
                                        "), then mark()'s" + detail);
      h.Join(worker);
      if (step_id > 0) (void)h.Clear(kSingleStep, step_id);  // expired (Count=1) already
    }
    if (mark_id > 0) (void)h.Clear(kBreakpoint, mark_id);
    g_outbox->RunTasks(jni);
    jni->PopLocalFrame(nullptr);
  }
}

void Finish(int code) {
  std::printf("%d passed, %d failed\n", g_passed, g_failed);
  std::fflush(stdout);
  std::fflush(stderr);
  // No destructors: JVM threads may still be in the callbacks' code.
  std::_Exit(code);
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
  f.main_thread = static_cast<jthread>(jni->NewGlobalRef(thread));
  if (!f.hit || !f.mark || !f.start || !f.join) {
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

  // The session's start (Session::OnAttached / BeginServing, then EnableSessionEvents).
  g_events->BeginSession();
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
  g_events->EndSession(jni);
  g_reporter->Stop();
  {
    std::unique_lock lock(g_reporter_mu);
    Check(g_reporter_cv.wait_for(lock, kWait, [] { return g_reporter_ended; }), "the reporter thread stops");
  }
  Finish(g_failed == 0 ? 0 : 1);
}

}  // namespace

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
  if (g_jvmti->SetEventCallbacks(&cb, sizeof(cb)) != JVMTI_ERROR_NONE) return JNI_ERR;
  if (g_jvmti->SetEventNotificationMode(JVMTI_ENABLE, JVMTI_EVENT_VM_INIT, nullptr) != JVMTI_ERROR_NONE) return JNI_ERR;
  return JNI_OK;
}
