// The event path's in-JVM test (event_path_agent.cc: how it works), the parts
// its two files share: the wire helpers, the recording outbox, the harness that
// sets requests and runs a worker, and the globals the JVMTI callbacks reach.
// The cases themselves: event_path_cases.cc.
#pragma once

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

#include "backend/start/capabilities.h"
#include "backend/context.h"
#include "backend/events/events.h"
#include "backend/ids/ids.h"
#include "backend/events/outbox.h"
#include "backend/threads/threads.h"
#include "jdwp/codec.h"
#include "jdwp/commands/event_request.h"

namespace event_path_test {

using jdwpx::backend::Context;
using jdwpx::backend::EventManager;
using jdwpx::backend::EventReporter;
using jdwpx::backend::Outbox;
using jdwpx::backend::ThreadControl;
using Bytes = std::vector<uint8_t>;

constexpr auto kWait = std::chrono::seconds(10);

// Sessions (sessions=N): the test's events go to slot 0, as with one debugger.
constexpr jdwpx::backend::SessionSlot kSlot0 = 0;
constexpr jdwpx::backend::SessionSlot kSlot1 = 1;
constexpr jdwpx::backend::SessionSlot kSlot2 = 2;

// JDWP constants as the spec numbers them (written out: the expectations do
// not come from the code under test).
constexpr uint8_t kSingleStep = 1;
constexpr uint8_t kBreakpoint = 2;
constexpr uint8_t kSuspendNone = 0;
constexpr uint8_t kSuspendEventThread = 1;
constexpr uint8_t kSuspendAll = 2;
constexpr uint8_t kMethodEntry = 40;
constexpr uint8_t kModCount = 1;
constexpr uint8_t kModThreadOnly = 3;
constexpr uint8_t kModClassMatch = 5;
constexpr uint8_t kModClassExclude = 6;
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

inline std::string Hex(const Bytes& b) {
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
  void Send(jdwpx::backend::SessionSlot, Bytes packet) override {
    std::lock_guard lock(mu_);
    packets_.push_back(std::move(packet));
    cv_.notify_all();
  }
  uint64_t connection(jdwpx::backend::SessionSlot) const override { return 1; }
  void SendTo(uint64_t, Bytes packet) override { Send(kSlot0, std::move(packet)); }
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

extern jvmtiEnv* g_jvmti;
extern JavaVM* g_vm;
extern Context* g_ctx;           // leaked: JVM threads may call in until the process ends
extern EventManager* g_events;   // leaked, likewise
extern EventReporter* g_reporter;  // leaked, likewise
extern RecordingOutbox* g_outbox;
extern int g_passed;
extern int g_failed;
extern std::mutex g_reporter_mu;
extern std::condition_variable g_reporter_cv;
extern bool g_reporter_ended;

void Check(bool ok, const std::string& what);
// Ends the process with `code` once every check is printed (no destructors: JVM threads may still be in the callbacks' code).
[[noreturn]] void Finish(int code);

// ---- The harness ----

struct Fixture {
  jclass klass = nullptr;  // global
  jmethodID hit = nullptr;
  jmethodID mark = nullptr;
  jmethodID start = nullptr;
  jmethodID join = nullptr;  // Thread.join()
  jmethodID create = nullptr;        // EventPathFixture.create(name, times)
  jmethodID thread_start = nullptr;  // Thread.start()
  jmethodID start_idler = nullptr;
  jmethodID stop_idler = nullptr;
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

  // A SingleStep request's EventRequest.Set body: SUSPEND_NONE, a LINE/OVER step
  // of `thread_id`, Count=1 (JDI's next).
  static Bytes LineOverStepSet(uint64_t thread_id) {
    return Out{}
        .U8(kSingleStep)
        .U8(kSuspendNone)
        .U32(2)
        .U8(kModStep)
        .U64(thread_id)
        .U32(kStepLine)
        .U32(kStepOver)
        .U8(kModCount)
        .U32(1)
        .b;
  }

  // "Packets in": decodes a Set body as the dispatcher does and sets it; 0 on failure.
  int32_t Set(const Bytes& body, const std::string& what) {
    auto req = jdwpx::jdwp::DecodeBody<jdwpx::jdwp::EventRequest::Set::Request>(body);
    if (!req) {
      Check(false, what + ": EventRequest.Set body decodes");
      return 0;
    }
    auto id = g_events->requests().Set(jni_, *req, kSlot0);
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
    return g_events->requests().Clear(jni_, req->event_kind, req->request_id, kSlot0).has_value();
  }

  // The Event.Composite packet of breakpoint events (or of `kind`'s, which
  // share their layout): {request ID, location} each, on `thread_id`.
  Bytes Composite(uint8_t policy, uint64_t thread_id,
                  const std::vector<std::pair<int32_t, jdwpx::jdwp::Location>>& events, uint8_t kind = kBreakpoint) {
    std::vector<Event> of_kind;
    for (const auto& [id, loc] : events) of_kind.push_back(Event{kind, id, loc});
    return CompositeOf(policy, thread_id, of_kind);
  }
  // One event of a kind laid out as a breakpoint's (SingleStep, MethodEntry too).
  struct Event {
    uint8_t kind;
    int32_t id;
    jdwpx::jdwp::Location loc;
  };
  // A composite of such events of several kinds, in this order.
  Bytes CompositeOf(uint8_t policy, uint64_t thread_id, const std::vector<Event>& events) {
    Out body;
    body.U8(policy).U32(static_cast<uint32_t>(events.size()));
    for (const Event& e : events) body.U8(e.kind).U32(static_cast<uint32_t>(e.id)).U64(thread_id).Loc(e.loc);
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
  // EventPathFixture.create(name, times), started once the case's requests name it.
  jthread CreateWorker(const char* name, int times) {
    jstring jname = jni_->NewStringUTF(name);
    jobject t = jni_->CallStaticObjectMethod(f_.klass, f_.create, jname, static_cast<jint>(times));
    jni_->DeleteLocalRef(jname);
    return static_cast<jthread>(Described(t));
  }
  bool StartThread(jthread t) {
    jni_->CallVoidMethod(t, f_.thread_start);
    return Described(t) != nullptr;
  }
  // A fixture thread that waits (alive, in no callback) until StopIdler.
  jthread StartIdler(const char* name) {
    jstring jname = jni_->NewStringUTF(name);
    jobject t = jni_->CallStaticObjectMethod(f_.klass, f_.start_idler, jname);
    jni_->DeleteLocalRef(jname);
    return static_cast<jthread>(Described(t));
  }
  void StopIdler(jthread idler) {
    jni_->CallStaticVoidMethod(f_.klass, f_.stop_idler);
    (void)Described(idler);
    Join(idler);
  }
  // `result`, or null after describing a pending exception.
  jobject Described(jobject result) {
    if (!jni_->ExceptionCheck()) return result;
    jni_->ExceptionDescribe();
    jni_->ExceptionClear();
    return nullptr;
  }

  // Checks that `got` are the packets `want` built; on a difference prints
  // both and keeps the packet IDs of later expectations in step with what was sent.
  bool Expect(bool ok, const std::vector<Bytes>& got, const std::vector<Bytes>& want, const std::string& what) {
    const bool same = ok && got == want;
    std::string detail;
    if (!same) {
      detail = " (got " + std::to_string(got.size()) + " packets, want " + std::to_string(want.size()) + ")";
      for (const Bytes& p : got) detail += "\n       got  " + Hex(p);
      for (const Bytes& p : want) detail += "\n       want " + Hex(p);
      next_packet_id_ = static_cast<uint32_t>(next_packet_id_ - want.size() + got.size());
    }
    Check(same, what + detail);
    return same;
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

// The cases (event_path_cases.cc), run on the VMInit thread.
void RunCases(Harness& h);

}  // namespace event_path_test
