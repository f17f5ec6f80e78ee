// The event path's cases (event_path_agent.cc: how they run): raw
// EventRequest.Set bodies in, exact Event.Composite bytes out.
#include "backend/tests/event_path_harness.h"

#include <memory>

namespace event_path_test {

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

  // 3. ThreadOnly naming another thread (an idle fixture thread: the cases' own
  // thread is an agent thread, which no request can name): nothing.
  if (jthread other = h.StartIdler("ev-other")) {
    h.Run("ThreadOnly of another thread: nothing", 2,
          [&] {
            Bytes only = Out{}.U8(kModThreadOnly).U64(h.ThreadId(other)).b;
            return Ids{h.Set(Harness::BreakpointSet(kSuspendNone, hit0, 1, only), "ThreadOnly")};
          },
          [&](uint64_t, const Ids&) { return Events{}; });
    h.StopIdler(other);
    jni->DeleteLocalRef(other);
  } else {
    Check(false, "ThreadOnly of another thread: that thread started");
  }

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
      g_reporter->UnblockAfterResume(kSlot0);
      auto resumed = g_ctx->threads.Resume(jni, worker, kSlot0);
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
      int32_t step_id = h.Set(Harness::LineOverStepSet(t), "step: line over");
      g_reporter->UnblockAfterResume(kSlot0);
      auto resumed = g_ctx->threads.Resume(jni, worker, kSlot0);
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

  // 10. SUSPEND_ALL: the hitting thread sends its composite (policy 2) having
  // suspended every other thread, and parks. An idle fixture thread, which met
  // no event, counts as suspended (the count ThreadReference.SuspendCount
  // answers) and is JVMTI-suspended; VirtualMachine.Resume's handler's sequence
  // (UnblockAfterResume, then ThreadControl::ResumeAll) lets both go.
  {
    jni->PushLocalFrame(32);
    jthread idler = h.StartIdler("ev-all-idler");
    int32_t id = h.Set(Harness::BreakpointSet(kSuspendAll, hit0), "SUSPEND_ALL: breakpoint");
    int32_t mark_id = h.Set(Harness::BreakpointSet(kSuspendNone, h.LocationOf(f.mark, 0)), "SUSPEND_ALL: mark");
    jfieldID marks_field = jni->GetStaticFieldID(f.klass, "marks", "I");
    const jint marks_at_start = marks_field ? jni->GetStaticIntField(f.klass, marks_field) : -1;
    jthread worker = idler && id > 0 && mark_id > 0 && marks_field ? h.StartWorker("ev-all", 1) : nullptr;
    if (!worker) {
      Check(false, "SUSPEND_ALL: idler started, requests set, worker started");
    } else {
      const uint64_t t = h.ThreadId(worker);
      const bool stopped = g_outbox->WaitForCount(1);
      std::vector<Bytes> first = g_outbox->Take();
      h.Expect(stopped, first, {h.Composite(kSuspendAll, t, {{id, hit0}})}, "SUSPEND_ALL: one composite, policy 2");
      jint idler_state = 0;
      const bool idler_read = g_jvmti->GetThreadState(idler, &idler_state) == JVMTI_ERROR_NONE;
      const int32_t worker_count = g_ctx->threads.SuspendCount(jni, worker, kSlot0);
      const int32_t idler_count = g_ctx->threads.SuspendCount(jni, idler, kSlot0);
      Check(worker_count == 1 && idler_count == 1 && idler_read && (idler_state & JVMTI_THREAD_STATE_SUSPENDED) != 0,
            "SUSPEND_ALL: the hitting thread and another (idle) thread both count as suspended (counts " +
                std::to_string(worker_count) + ", " + std::to_string(idler_count) + "), the other JVMTI-suspended");
      // Parked until resumed: no further event, mark() not run (as in case 8,
      // this check can only miss a thread that went on, never flake).
      Check(g_outbox->Count() == 0 && jni->GetStaticIntField(f.klass, marks_field) == marks_at_start,
            "SUSPEND_ALL: no further event of the hitting thread before the resume");
      // VirtualMachine.Resume's handler: unblock, then resume every thread.
      g_reporter->UnblockAfterResume(kSlot0);
      Check(g_ctx->threads.ResumeAll(jni, kSlot0).has_value(), "SUSPEND_ALL: ThreadControl::ResumeAll answers NONE");
      const bool marked = g_outbox->WaitFor([&](const Bytes& p) { return Harness::RequestIdOf(p) == mark_id; });
      std::vector<Bytes> rest = g_outbox->Take();
      h.Expect(marked, rest, {h.Composite(kSuspendNone, t, {{mark_id, h.LocationOf(f.mark, 0)}})},
               "SUSPEND_ALL: resumed (VirtualMachine.Resume), it runs on to mark()");
      const bool idler_read_after = g_jvmti->GetThreadState(idler, &idler_state) == JVMTI_ERROR_NONE;
      Check(g_ctx->threads.SuspendCount(jni, idler, kSlot0) == 0 && idler_read_after &&
                (idler_state & JVMTI_THREAD_STATE_SUSPENDED) == 0,
            "SUSPEND_ALL: after the resume the other thread counts 0 and runs");
      h.Join(worker);
    }
    if (idler) h.StopIdler(idler);
    if (id > 0) (void)h.Clear(kBreakpoint, id);
    if (mark_id > 0) (void)h.Clear(kBreakpoint, mark_id);
    g_outbox->RunTasks(jni);
    jni->PopLocalFrame(nullptr);
  }

  // 11. A step that completes where a breakpoint is set: ONE composite, the
  // SingleStep event first and then the Breakpoint (stock's order:
  // stepping.cc's OnSingleStep), its policy the strongest of both (the step's
  // SUSPEND_NONE, the breakpoint's SUSPEND_EVENT_THREAD: 1); the breakpoint
  // callback that follows at that place reports nothing more.
  {
    jni->PushLocalFrame(32);
    const auto hit_last = h.LocationOf(f.hit, hit_end > 0 ? hit_end : 0);
    int32_t id = h.Set(Harness::BreakpointSet(kSuspendEventThread, hit0), "step at a breakpoint: first breakpoint");
    int32_t end_id = h.Set(Harness::BreakpointSet(kSuspendEventThread, hit_last), "step at a breakpoint: breakpoint");
    int32_t mark_id = h.Set(Harness::BreakpointSet(kSuspendNone, h.LocationOf(f.mark, 0)), "step at a breakpoint: mark");
    jthread worker = id > 0 && end_id > 0 && mark_id > 0 && hit_end > 0 ? h.StartWorker("ev-step-bp", 1) : nullptr;
    int32_t step_id = 0;
    if (!worker) {
      Check(false, "step at a breakpoint: requests set, worker started");
    } else {
      const uint64_t t = h.ThreadId(worker);
      const bool stopped = g_outbox->WaitForCount(1);
      std::vector<Bytes> first = g_outbox->Take();
      h.Expect(stopped, first, {h.Composite(kSuspendEventThread, t, {{id, hit0}})},
               "step at a breakpoint: stopped at hit()'s first breakpoint");
      (void)h.Clear(kBreakpoint, id);
      step_id = h.Set(Harness::LineOverStepSet(t), "step at a breakpoint: line over");
      g_reporter->UnblockAfterResume(kSlot0);
      Check(step_id > 0 && g_ctx->threads.Resume(jni, worker, kSlot0).has_value(),
            "step at a breakpoint: step set (SUSPEND_NONE), thread resumed");
      const bool got_step = g_outbox->WaitForCount(1);
      std::vector<Bytes> at_end = g_outbox->Take();
      h.Expect(got_step, at_end,
               {h.CompositeOf(kSuspendEventThread, t,
                              {Harness::Event{kSingleStep, step_id, hit_last}, Harness::Event{kBreakpoint, end_id, hit_last}})},
               "step at a breakpoint: one composite, SingleStep then Breakpoint at hit()'s last index (" +
                   std::to_string(hit_end) + "), policy 1");
      Check(g_ctx->threads.SuspendCount(jni, worker, kSlot0) == 1, "step at a breakpoint: the thread is suspended (policy 1)");
      g_reporter->UnblockAfterResume(kSlot0);
      Check(g_ctx->threads.Resume(jni, worker, kSlot0).has_value(), "step at a breakpoint: thread resumed again");
      const bool marked = g_outbox->WaitFor([&](const Bytes& p) { return Harness::RequestIdOf(p) == mark_id; });
      std::vector<Bytes> rest = g_outbox->Take();
      h.Expect(marked, rest, {h.Composite(kSuspendNone, t, {{mark_id, h.LocationOf(f.mark, 0)}})},
               "step at a breakpoint: the breakpoint callback there reports nothing more; then mark()'s");
      h.Join(worker);
    }
    if (step_id > 0) (void)h.Clear(kSingleStep, step_id);  // expired (Count=1) already
    if (id > 0) (void)h.Clear(kBreakpoint, id);  // cleared already
    if (end_id > 0) (void)h.Clear(kBreakpoint, end_id);
    if (mark_id > 0) (void)h.Clear(kBreakpoint, mark_id);
    g_outbox->RunTasks(jni);
    jni->PopLocalFrame(nullptr);
  }

  // 12. EventRequest.Clear while the request's event is queued: held
  // (EventReporter::Hold, as VirtualMachine.HoldEvents does), a SUSPEND_NONE hit
  // is queued, not sent; the request is cleared; released, the event is still
  // sent. That is stock's behaviour: its event helper (eventHelper.c) queues a
  // command holding the request ID, and dequeueCommand drops only commands of a
  // dead VM or of an earlier session, never looking the request up again; the
  // JDWP spec says nothing of events queued when a request is cleared. New
  // hits after the Clear report nothing.
  {
    jni->PushLocalFrame(32);
    int32_t id = h.Set(Harness::BreakpointSet(kSuspendNone, hit0), "Clear while queued: breakpoint");
    int32_t mark_id = h.Set(Harness::BreakpointSet(kSuspendNone, h.LocationOf(f.mark, 0)), "Clear while queued: mark");
    g_reporter->Hold(kSlot0);
    jthread worker = id > 0 && mark_id > 0 ? h.StartWorker("ev-held", 1) : nullptr;
    if (!worker) {
      g_reporter->Release(kSlot0);
      Check(false, "Clear while queued: requests set, worker started");
    } else {
      const uint64_t t = h.ThreadId(worker);
      // SUSPEND_NONE: the thread queues its events and runs on; once it has
      // ended, both (hit()'s and mark()'s) are in the reporter's queue.
      h.Join(worker);
      Check(g_outbox->Count() == 0, "Clear while queued: held, nothing is sent");
      Check(h.Clear(kBreakpoint, id), "Clear while queued: EventRequest.Clear answers NONE");
      g_reporter->Release(kSlot0);
      const bool marked = g_outbox->WaitFor([&](const Bytes& p) { return Harness::RequestIdOf(p) == mark_id; });
      std::vector<Bytes> got = g_outbox->Take();
      h.Expect(marked, got,
               {h.Composite(kSuspendNone, t, {{id, hit0}}), h.Composite(kSuspendNone, t, {{mark_id, h.LocationOf(f.mark, 0)}})},
               "Clear while queued: released, the cleared request's queued event is still sent (as stock)");
      jthread again = h.StartWorker("ev-held-after", 1);
      if (!again) {
        Check(false, "Clear while queued: second worker started");
      } else {
        const uint64_t t2 = h.ThreadId(again);
        const bool marked2 = g_outbox->WaitFor([&](const Bytes& p) { return Harness::RequestIdOf(p) == mark_id; });
        h.Join(again);
        std::vector<Bytes> after = g_outbox->Take();
        h.Expect(marked2, after, {h.Composite(kSuspendNone, t2, {{mark_id, h.LocationOf(f.mark, 0)}})},
                 "Clear while queued: after the Clear, a new hit reports nothing");
      }
    }
    if (id > 0) (void)h.Clear(kBreakpoint, id);  // cleared already
    if (mark_id > 0) (void)h.Clear(kBreakpoint, mark_id);
    g_outbox->RunTasks(jni);
    jni->PopLocalFrame(nullptr);
  }

  // 13. MethodEntry, Count=2, with a breakpoint at hit()'s first instruction:
  // the first entry of hit() reports nothing (the breakpoint alone), the second
  // is kept back for the breakpoint and goes first in its composite (entry,
  // then breakpoint, as stock), then the request has expired (mark()'s entry
  // reports nothing). Served by JVMTI's MethodEntry events (ThreadOnly and
  // ClassExclude filters: no class to hook), and by the method hooks
  // (ClassMatch: method_hooks.h), the same bytes either way. The request
  // names the worker before it starts (ThreadOnly).
  for (const bool hooked : {false, true}) {
    const std::string name = std::string("MethodEntry Count=2 (") + (hooked ? "hooked" : "JVMTI events") + ")";
    jni->PushLocalFrame(32);
    jthread worker = h.CreateWorker(hooked ? "ev-entry-hooked" : "ev-entry", 2);
    int32_t entry_id = 0, id = 0, mark_id = 0;
    if (worker) {
      const uint64_t t = h.ThreadId(worker);
      Out body;
      body.U8(kMethodEntry).U8(kSuspendNone);
      if (hooked) {
        body.U32(3).U8(kModThreadOnly).U64(t).U8(kModClassMatch).Str("EventPathFixture");
      } else {
        // The worker's entries but hit()'s and mark(): Worker.run, and the JDK's at the thread's end.
        body.U32(6).U8(kModThreadOnly).U64(t);
        for (const char* p : {"EventPathFixture$*", "java.*", "jdk.*", "sun.*"}) body.U8(kModClassExclude).Str(p);
      }
      body.U8(kModCount).U32(2);  // last: only entries the filters before it let through count
      entry_id = h.Set(body.b, name + ": MethodEntry");
      id = h.Set(Harness::BreakpointSet(kSuspendNone, hit0), name + ": breakpoint");
      mark_id = h.Set(Harness::BreakpointSet(kSuspendNone, h.LocationOf(f.mark, 0)), name + ": mark");
      if (entry_id <= 0 || id <= 0 || mark_id <= 0 || !h.StartThread(worker)) {
        Check(false, name + ": requests set, worker started");
      } else {
        const bool marked = g_outbox->WaitFor([&](const Bytes& p) { return Harness::RequestIdOf(p) == mark_id; });
        h.Join(worker);
        std::vector<Bytes> got = g_outbox->Take();
        h.Expect(marked, got,
                 {h.Composite(kSuspendNone, t, {{id, hit0}}),
                  h.CompositeOf(kSuspendNone, t,
                                {Harness::Event{kMethodEntry, entry_id, hit0}, Harness::Event{kBreakpoint, id, hit0}}),
                  h.Composite(kSuspendNone, t, {{mark_id, h.LocationOf(f.mark, 0)}})},
                 name + ": the breakpoint alone, then {entry, breakpoint}, then mark()'s alone");
      }
    } else {
      Check(false, name + ": worker created");
    }
    if (entry_id > 0) (void)h.Clear(kMethodEntry, entry_id);  // expired already
    if (id > 0) (void)h.Clear(kBreakpoint, id);
    if (mark_id > 0) (void)h.Clear(kBreakpoint, mark_id);
    g_outbox->RunTasks(jni);
    jni->PopLocalFrame(nullptr);
  }

  // 14. Sessions: each counts its own suspensions of a thread (SuspendCount
  // answers its share), and the thread runs only while none holds it. Slots 0
  // and 1 on an idle fixture thread, which is running (waiting in Java) before.
  {
    jni->PushLocalFrame(32);
    ThreadControl& tc = g_ctx->threads;
    jthread idler = h.StartIdler("ev-sessions-idler");
    jclass thread_class = jni->FindClass("java/lang/Thread");
    jmethodID timed_join = thread_class ? jni->GetMethodID(thread_class, "join", "(J)V") : nullptr;
    jmethodID is_alive = thread_class ? jni->GetMethodID(thread_class, "isAlive", "()Z") : nullptr;
    if (!idler || !timed_join || !is_alive) {
      Check(false, "sessions: idler started, Thread.join(long) and isAlive found");
    } else {
      auto expect = [&](int32_t want0, int32_t want1, bool suspended, const std::string& what) {
        const int32_t got0 = tc.SuspendCount(jni, idler, kSlot0);
        const int32_t got1 = tc.SuspendCount(jni, idler, kSlot1);
        const bool by_any = tc.SuspendedByAny(jni, idler);
        jint state = 0;
        const bool read = g_jvmti->GetThreadState(idler, &state) == JVMTI_ERROR_NONE;
        const bool in_jvmti = (state & JVMTI_THREAD_STATE_SUSPENDED) != 0;
        Check(got0 == want0 && got1 == want1 && by_any == suspended && read && in_jvmti == suspended,
              "sessions: " + what + " (SuspendCount " + std::to_string(got0) + ", " + std::to_string(got1) +
                  "; SuspendedByAny " + (by_any ? "yes" : "no") + "; JVMTI " + (in_jvmti ? "suspended" : "not suspended") +
                  ")");
      };
      expect(0, 0, false, "before: counted by none, running");
      Check(tc.Suspend(jni, idler, kSlot0).has_value() && tc.Suspend(jni, idler, kSlot1).has_value(),
            "sessions: ThreadReference.Suspend by slots 0 and 1 answers NONE");
      expect(1, 1, true, "both suspended it: 1 each, JVMTI-suspended");
      Check(tc.Resume(jni, idler, kSlot0).has_value(), "sessions: ThreadReference.Resume by slot 0 answers NONE");
      expect(0, 1, true, "slot 0 resumed: slot 1 still holds it, still JVMTI-suspended");
      (void)tc.Resume(jni, idler, kSlot0);
      expect(0, 1, true, "a second Resume by slot 0 (holds none): a no-op");
      Check(tc.Resume(jni, idler, kSlot1).has_value(), "sessions: ThreadReference.Resume by slot 1 answers NONE");
      expect(0, 0, false, "slot 1 resumed too: it runs");
      // VM-level suspensions are per session too.
      Check(tc.SuspendAll(jni, kSlot1).has_value(), "sessions: VirtualMachine.Suspend by slot 1 answers NONE");
      expect(0, 1, true, "VirtualMachine.Suspend by slot 1: counted for slot 1 alone");
      (void)tc.Resume(jni, idler, kSlot0);
      expect(0, 1, true, "ThreadReference.Resume by slot 0 (holds none): still suspended");
      (void)tc.ResumeAll(jni, kSlot0);
      expect(0, 1, true, "VirtualMachine.Resume by slot 0 (holds none): slot 1's count kept");
      (void)tc.Suspend(jni, idler, kSlot0);
      expect(1, 1, true, "slot 0 suspends it as well");
      tc.ResumeEverything(jni, kSlot1);
      expect(1, 0, true, "slot 1's session ends: only its counts go, slot 0's holds it");
      Check(tc.SuspendAll(jni, kSlot1).has_value() && tc.SuspendAll(jni, kSlot0).has_value(),
            "sessions: VirtualMachine.Suspend by slots 1 and 0 answers NONE");
      expect(2, 1, true, "a VM-level suspension by each");
      (void)tc.ResumeAll(jni, kSlot1);
      expect(2, 0, true, "VirtualMachine.Resume by slot 1: its count goes, slot 0's two stay");
      (void)tc.ResumeAll(jni, kSlot0);
      expect(1, 0, true, "VirtualMachine.Resume by slot 0: one of its two");
      tc.ResumeEverything(jni, kSlot0);
      expect(0, 0, false, "slot 0's session ends: it runs");
      // It runs: told to stop idling, it ends (bounded wait).
      jni->CallStaticVoidMethod(f.klass, f.stop_idler);
      jni->CallVoidMethod(idler, timed_join, static_cast<jlong>(10000));
      const bool ended = !jni->ExceptionCheck() && !jni->CallBooleanMethod(idler, is_alive);
      jni->ExceptionClear();
      Check(ended, "sessions: resumed by both, the thread runs on to its end");
    }
    if (idler && (!timed_join || !is_alive)) h.StopIdler(idler);
    jni->ExceptionClear();
    jni->PopLocalFrame(nullptr);
  }

  // 15. InvokeMethod by a session on a thread another session holds too: the
  // worker parked at its SUSPEND_EVENT_THREAD breakpoint (slot 0's event), slot
  // 1 suspends it as well and invokes (single-threaded). The call runs at once
  // (slot 0's count lent to it: the thread actually runs), and at its end both
  // counts are as before; the thread goes on only once both resume.
  {
    jni->PushLocalFrame(32);
    ThreadControl& tc = g_ctx->threads;
    int32_t id = h.Set(Harness::BreakpointSet(kSuspendEventThread, hit0), "invoke by slot 1: breakpoint");
    int32_t mark_id = h.Set(Harness::BreakpointSet(kSuspendNone, h.LocationOf(f.mark, 0)), "invoke by slot 1: mark");
    jthread worker = id > 0 && mark_id > 0 ? h.StartWorker("ev-invoke-sessions", 1) : nullptr;
    if (!worker) {
      Check(false, "invoke by slot 1: requests set, worker started");
    } else {
      const uint64_t t = h.ThreadId(worker);
      const bool stopped = g_outbox->WaitForCount(1);
      std::vector<Bytes> first = g_outbox->Take();
      h.Expect(stopped, first, {h.Composite(kSuspendEventThread, t, {{id, hit0}})}, "invoke by slot 1: stopped at hit()");
      Check(tc.Suspend(jni, worker, kSlot1).has_value(), "invoke by slot 1: ThreadReference.Suspend by slot 1");
      // What the call saw, on the worker, and its end as RunPendingCall ends a single-threaded call.
      struct Seen {
        std::mutex mu;
        std::condition_variable cv;
        bool done = false;
        int32_t count0 = -1, count1 = -1;
        bool by_any = true;
      };
      auto seen = std::make_shared<Seen>();
      jthread global = static_cast<jthread>(jni->NewGlobalRef(worker));
      auto work = [seen, global](JNIEnv* tjni) {
        ThreadControl& threads = g_ctx->threads;
        const int32_t c0 = threads.SuspendCount(tjni, global, kSlot0);
        const int32_t c1 = threads.SuspendCount(tjni, global, kSlot1);
        const bool any = threads.SuspendedByAny(tjni, global);
        void* token = threads.PrepareToPark(tjni, global, /*for_event=*/false);
        threads.EndSingleThreadedInvoke(token);
        std::lock_guard lock(seen->mu);
        seen->count0 = c0;
        seen->count1 = c1;
        seen->by_any = any;
        seen->done = true;
        seen->cv.notify_all();
      };
      auto refused = tc.StartInvoke(jni, worker, true, work, kSlot2);
      Check(!refused && refused.error().code == jdwpx::jdwp::ErrorCode::kInvalidThread,
            "invoke by slot 1: slot 2, which holds it not, is refused (INVALID_THREAD)");
      auto started = tc.StartInvoke(jni, worker, true, work, kSlot1);
      Check(started.has_value(), "invoke by slot 1: StartInvoke answers NONE although slot 0 holds the thread too");
      bool done = false;
      {
        std::unique_lock lock(seen->mu);
        done = seen->cv.wait_for(lock, kWait, [&] { return seen->done; });
      }
      Check(done && seen->count0 == 1 && seen->count1 == 0 && !seen->by_any,
            "invoke by slot 1: the call runs at once, slot 0's count kept (SuspendCount " + std::to_string(seen->count0) +
                ", " + std::to_string(seen->count1) + "), the thread not suspended meanwhile");
      if (done) {
        tc.ApplyPendingSuspensions();  // as the command thread before its next command
        jint state = 0;
        (void)g_jvmti->GetThreadState(worker, &state);
        Check(tc.SuspendCount(jni, worker, kSlot0) == 1 && tc.SuspendCount(jni, worker, kSlot1) == 1 &&
                  tc.SuspendedByAny(jni, worker) && (state & JVMTI_THREAD_STATE_SUSPENDED) != 0,
              "invoke by slot 1: after the call both counts are back (1, 1), JVMTI-suspended");
        (void)tc.Resume(jni, worker, kSlot1);
        (void)g_jvmti->GetThreadState(worker, &state);
        Check(tc.SuspendedByAny(jni, worker) && (state & JVMTI_THREAD_STATE_SUSPENDED) != 0 && g_outbox->Count() == 0,
              "invoke by slot 1: slot 1 resumed, slot 0 still holds it");
        g_reporter->UnblockAfterResume(kSlot0);
        (void)tc.Resume(jni, worker, kSlot0);
        const bool marked = g_outbox->WaitFor([&](const Bytes& p) { return Harness::RequestIdOf(p) == mark_id; });
        std::vector<Bytes> rest = g_outbox->Take();
        h.Expect(marked, rest, {h.Composite(kSuspendNone, t, {{mark_id, h.LocationOf(f.mark, 0)}})},
                 "invoke by slot 1: resumed by slot 0 too, it runs on to mark()");
        h.Join(worker);
        jni->DeleteGlobalRef(global);
      } else {
        // Leave nothing held for later cases (the call may still come to use `global`: kept).
        tc.ResumeEverything(jni, kSlot1);
        tc.ResumeEverything(jni, kSlot0);
      }
    }
    if (id > 0) (void)h.Clear(kBreakpoint, id);
    if (mark_id > 0) (void)h.Clear(kBreakpoint, mark_id);
    g_outbox->RunTasks(jni);
    jni->PopLocalFrame(nullptr);
  }
}

}  // namespace event_path_test
