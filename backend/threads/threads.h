// Thread control: the debugger's view of suspension.
//
// Every debuggee thread has a debugger suspend count (ThreadReference.Suspend,
// VirtualMachine.Suspend and events with a suspend policy add to it); JVMTI
// suspension is applied when the count leaves 0 and lifted when it returns to 0.
//
// Sessions (sessions=N, SessionSlot): each debugger counts its own share, as
// if it were alone; the count above is their total, and everything below
// (deferral, pending, parking, virtual threads, generations) keys on it. A
// session's Suspend, Resume, VM-level suspension and event suspensions move
// only its share (held[slot]); a Resume by a session holding none is a no-op;
// SuspendCount answers the session's share, SuspendedByAny whether the total
// is above 0 (a session reads frames of a thread whoever suspended it). The
// VM-level count is per session too (suspend_all_count_[slot]); a thread met
// while some are in force starts with each session's, and the virtual-thread
// calls key on their total. ResumeEverything(slot) drops one session's share.
// An InvokeMethod runs once the invoking session's share is 0, even while
// other sessions hold the thread: their shares are lent (set aside, their
// SuspendCount unchanged) for the call and come back at its end, when the
// thread is suspended again; a share taken meanwhile applies at once, as the
// invoking session's own would. With one session held[0] is the count.
//
// A thread that reports an event with a suspend policy never suspends itself:
// the reporter thread (an agent thread) suspends it and sends the event, and
// the event thread then waits in Park() until it is
// resumed or asked to run an InvokeMethod. JVMTI suspension of a thread that
// is in native code (our callback) takes effect at once, so the debugger sees a
// suspended thread by the time it reads the event.
//
// A thread inside one of our callbacks is never JVMTI-suspended by another
// thread (VirtualMachine.Suspend, a SUSPEND_ALL event): it could be holding one
// of our locks in a JNI call, and would stop there holding it. Its suspension
// is deferred and applied when the callback ends (as the stock agent does);
// only its own event suspends it at once, at a point where it holds no lock.
//
// Lock rank: mu_ is taken after ObjectTable's mutex is released, never while
// waiting for another agent thread.
//
// States are found by the thread's java.lang.Thread.tid (unique for the VM's
// life, also for threads not yet started or ended; one JNI field read), so a
// thread command or a thread's first callback costs the same with 10 threads
// or 10,000; a Java thread reads its own tid before it takes mu_.
//
// Virtual threads (JDK 21+, once EnableVirtualThreads was called): callbacks of
// a virtual thread run on its carrier's native thread, so the thread_local
// cache of platform threads cannot name them; their State is cached in JVMTI
// thread-local storage, which follows the virtual thread (a VirtualSlot owned
// by the virtual thread itself, freed at its VirtualThreadEnd). With
// includevirtualthreads=y the virtual threads seen starting are listed for
// DebuggeeThreads (vthreads_mu_: a leaf lock; Java threads make no JNI call
// while holding it). A State of a virtual thread may also be made by an agent
// thread (StateOf, no slot): virtual_states_ counts all virtual States, so that
// VirtualThreadEnd brackets the end (and ForgetSelf drops the State) whenever
// one may exist; a virtual State whose thread JVMTI finds dead is dropped.
//
// Suspending their carriers does not stop virtual threads: JVMTI suspends a
// carrier with a mounted virtual thread only when that one unmounts. So when
// the VM-level count goes 0 -> 1, SuspendAll also JVMTI-suspends the virtual
// threads with SuspendAllVirtualThreads: those we have no State for, and the
// known ones counted 0 and idle (by_all); it excepts the other known ones
// (suspended already, in a callback with the usual deferral, or maybe not
// alive: suspended one by one, so a refusal drops them). 1 -> 0 (and
// ResumeEverything) calls ResumeAllVirtualThreads excepting those the debugger
// still counts, which also resumes the by_all ones counted 0: 10,000 known
// virtual threads cost no call each (JDK 25: a VM resume and suspend 4.6 ms,
// was 56, stock 44; HotSpot's calls per virtual thread search its exception
// list linearly). The order
// matters at a virtual thread's end (HotSpot: its continuation is done, so JVMTI
// refuses its frames as not alive, a few steps before its state is TERMINATED;
// a carrier suspended in between holds it there, alive and counted suspended):
// SuspendAllVirtualThreads comes before the platform threads' SuspendThreadList
// (as stock), so that no virtual thread still running runs into its last unmount
// on a carrier already marked suspended, which stops right after it (JDK 25,
// test_simultaneous_hits with 16 virtual threads: a refused thread in 4 runs of
// 95 before, in none of 115 after; stock 11 of 145); resuming, the carriers come
// first, so that a virtual thread resumed near its end does not meet its
// carrier still marked. An InvokeMethod that resumes the other threads resumes
// those too, and they are suspended again after it. Both calls are made only
// once a carrier thread or a virtual State has been seen: before that no virtual thread can run, and a
// carrier started meanwhile is suspended at its ThreadStart as any thread. A
// virtual thread never met, met while that suspension is in force, starts with
// the VM-level count as any other thread, and its State is marked
// JVMTI-suspended (it is: EnterCallback lets that take effect holding no
// lock). SuspendCount gives such a thread no State: it reads the session's
// VM-level count if JVMTI reports the thread suspended, as stock.
//
// A thread whose own event suspends it alone (SUSPEND_EVENT_THREAD) and finds
// nothing ahead of it at the reporter sends its event itself and is counted
// and parked the same way (SuspendSelfForEvent): no hop to the reporter thread
// and back, and a breakpoint resumed at once costs no JVMTI suspend or resume.
// With SUSPEND_ALL (a platform thread, includevirtualthreads=n) it first
// suspends every other thread itself, as SuspendAll (SuspendAllForOwnEvent):
// a Java thread inside a callback, which none of our threads JVMTI-suspends,
// makes the JVMTI calls on the others under mu_ as an agent thread would, but
// its JNI calls (thread list, tids, new States) before it takes mu_.
//
// A single-threaded InvokeMethod ends on the invoking thread itself: its
// suspension comes back in the count before the reply goes (the debugger finds
// it suspended), but its JVMTI suspension is left pending while it waits in
// Park, where it runs no Java code. The command thread applies pending
// suspensions before each command that may look at a thread (session.cc); a
// resume or the next invoke comes first in an IDE's evaluation and makes it
// moot, so a run of invokes costs no JVMTI suspend-and-resume nor a hop to the
// reporter thread.
#pragma once

#include <jni.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <mutex>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "backend/session_slot.h"
#include "jdwp/constants.h"
#include "jdwp/error.h"
#include "vmcore/jvmti.h"

namespace jdwpx::backend {

class ThreadControl {
 public:
  explicit ThreadControl(vmcore::Jvmti jvmti) : jvmti_(jvmti) {}

  void AddAgentThread(JNIEnv* jni, jthread thread);
  // For agent threads looking at other threads (compares references).
  bool IsAgentThread(JNIEnv* jni, jthread thread);
  // Marks the calling native thread as one of ours (set first thing in each agent thread).
  static void MarkCurrentAsAgent();
  // For event callbacks, which always concern the current thread: no JNI call
  // once known. An agent thread's own ThreadStart callback runs before its start
  // function marks it, so `self` is compared with the registered agent threads
  // (outside any lock) until the flag is set.
  bool CurrentIsAgent(JNIEnv* jni, jthread self);
  static bool CurrentIsAgent();
  // Live threads the debugger may see (agent threads left out); local references.
  // With includevirtualthreads=y, the live virtual threads seen starting follow
  // the platform threads.
  jdwp::Result<std::vector<jthread>> DebuggeeThreads(JNIEnv* jni);

  // JDK 21+ with can_support_virtual_threads granted (set once at load).
  void EnableVirtualThreads(bool list_them) {
    virtual_threads_ = true;
    list_virtual_threads_ = list_them;
  }
  bool virtual_threads() const { return virtual_threads_; }
  bool IsVirtual(JNIEnv* jni, jthread thread) const {
    return virtual_threads_ && vmcore::Jvmti::IsVirtualThread(jni, thread);
  }
  // VirtualThreadStart / VirtualThreadEnd callbacks, on the virtual thread itself
  // (End after ForgetSelf).
  void VirtualThreadStarted(JNIEnv* jni, jthread self);
  void VirtualThreadEnded(JNIEnv* jni);
  // Whether the current virtual thread may have state to drop at its end (a
  // slot, or a State made by an agent thread while any virtual State exists).
  bool CurrentVirtualHasSlot();

  // The suspensions of session `slot` (ThreadReference.Suspend and Resume,
  // VirtualMachine.Suspend and Resume, ThreadReference.SuspendCount).
  jdwp::Result<void> Suspend(JNIEnv* jni, jthread thread, SessionSlot slot);
  jdwp::Result<void> Resume(JNIEnv* jni, jthread thread, SessionSlot slot);
  jdwp::Result<void> SuspendAll(JNIEnv* jni, SessionSlot slot);
  jdwp::Result<void> ResumeAll(JNIEnv* jni, SessionSlot slot);
  int32_t SuspendCount(JNIEnv* jni, jthread thread, SessionSlot slot);
  // Whether any session holds `thread` suspended (ThreadReference.Status, and
  // the commands that need a suspended thread).
  bool SuspendedByAny(JNIEnv* jni, jthread thread);
  // Waits (bounded) until a counted suspension of `thread` is in force in JVMTI
  // (a deferred one is applied when its callback ends); false on timeout.
  bool WaitUntilSuspended(JNIEnv* jni, jthread thread, std::chrono::milliseconds timeout);
  // Changes every time the thread actually resumes, and is never shared by two
  // threads (one counter for all), so a frame ID carrying it names its thread too.
  uint64_t Generation(JNIEnv* jni, jthread thread);
  // The generation of a thread we hold JVMTI-suspended for the debugger (its
  // stack cannot change until the generation does: frame_reads.h), else 0.
  uint64_t FrozenGeneration(JNIEnv* jni, jthread thread);
  // Session end: the session's counts back to 0; what no other session holds runs.
  void ResumeEverything(JNIEnv* jni, SessionSlot slot);

  // Reporter side: apply an event's suspend policy (count + JVMTI suspension)
  // for the session the event goes to.
  void SuspendForEvent(JNIEnv* jni, jthread event_thread, jdwp::SuspendPolicy policy, SessionSlot slot);

  // Callback bracket (Java threads). EnterCallback returns a token for
  // ExitCallback; ExitCallback answers whether a deferred suspension is due,
  // which the caller applies through the reporter (ApplyDeferred) and Park.
  void* EnterCallback(JNIEnv* jni, jthread self);
  bool ExitCallback(void* token);
  // Reporter side: JVMTI-suspends a thread whose suspension was deferred.
  void ApplyDeferred(void* token);
  // End of the ThreadEnd callback: drops the ending thread's state unless the
  // debugger still counts a suspension on it.
  void ForgetSelf(JNIEnv* jni, void* token);
  // Event-thread side, in two steps because a suspended thread must make no
  // JNI or JVMTI call while it holds our lock (it would block there, holding it):
  // PrepareToPark before the event is handed to the reporter, Park after.
  // PrepareToPark marks the thread's event as with the reporter: Park then
  // waits for EventHandled too (one wait instead of two hand-offs).
  // `for_event`: false where no event goes to the reporter (the end of an invoke).
  void* PrepareToPark(JNIEnv* jni, jthread self, bool for_event = true);
  // The event thread's own SUSPEND_EVENT_THREAD event, sent by itself
  // (EventReporter's direct path): counted as suspended at once, parked, its
  // JVMTI suspension left pending as at the end of a single-threaded invoke
  // (see the top). Returns the token for Park. Makes its JNI calls (its State)
  // before it counts itself: from then on it makes none until Park returns.
  void* SuspendSelfForEvent(JNIEnv* jni, jthread self, SessionSlot slot) {
    return SuspendSelfForEvent(jni, self, std::span<const SessionSlot>(&slot, 1));
  }
  // The same for one hit's events to several sessions: one count of each.
  void* SuspendSelfForEvent(JNIEnv* jni, jthread self, std::span<const SessionSlot> slots);
  // The same for its own SUSPEND_ALL event (a platform thread in a callback,
  // includevirtualthreads=n): suspends every other debuggee thread as SuspendAll
  // does (JVMTI-suspended, or deferred to the end of their callbacks) and counts
  // itself as SuspendSelfForEvent does. Its JNI calls (the thread list and tids,
  // the States of threads not met yet) come before it takes mu_. `listed` keeps
  // the list's local references for AfterOwnSuspendAll, once Park has returned.
  void* SuspendAllForOwnEvent(JNIEnv* jni, jthread self, std::vector<jthread>& listed, SessionSlot slot);
  void AfterOwnSuspendAll(JNIEnv* jni, std::vector<jthread>& listed);
  bool lists_virtual_threads() const { return list_virtual_threads_; }
  void Park(JNIEnv* jni, void* token);
  // Reporter side: the event of the thread parked as `token` was handled (its
  // suspension applied, the packet sent, or dropped). Wakes it only if that
  // lets it go (not suspended by then).
  void EventHandled(void* token);

  // Per-thread record of the method hooks (method_hooks.h). Its lock is a leaf,
  // taken after mu_; JVMTI calls about its own thread may be made under it.
  struct HookedFrames {
    std::mutex mu;
    std::atomic<uint64_t> generation{0};  // of the hooks last checked against (read without mu)
    bool exit_events = false;  // MethodExit enabled for this thread alone
    // Frames entered of methods whose code branches back to their first
    // instruction: (method, frame count with that frame on top).
    std::vector<std::pair<jmethodID, int32_t>> loop_frames;
  };
  // The calling Java thread's own (in its callbacks).
  HookedFrames& SelfHookedFrames(JNIEnv* jni, jthread self);
  // One thread's (agent threads; the thread is suspended).
  void WithHookedFrames(JNIEnv* jni, jthread thread, const std::function<void(HookedFrames&)>& fn);

  // A VM-level suspension of the agent's own for a scope (count and all, as
  // VirtualMachine.Suspend and Resume), when `on`, in the share of the session
  // it acts for.
  class ScopedVmSuspension {
   public:
    ScopedVmSuspension(ThreadControl& threads, JNIEnv* jni, bool on, SessionSlot slot)
        : threads_(threads), jni_(jni), on_(on), slot_(slot) {
      if (on_) (void)threads_.SuspendAll(jni_, slot_);
    }
    ~ScopedVmSuspension() {
      if (on_) (void)threads_.ResumeAll(jni_, slot_);
    }
    ScopedVmSuspension(const ScopedVmSuspension&) = delete;
    ScopedVmSuspension& operator=(const ScopedVmSuspension&) = delete;

   private:
    ThreadControl& threads_;
    JNIEnv* jni_;
    bool on_;
    SessionSlot slot_;
  };

  // InvokeMethod of session `slot`: hands `work` to a thread waiting in Park()
  // that the session holds, then resumes as stock does, in the session's share:
  // the thread alone (single_threaded, as ThreadReference.Resume) or every
  // thread (as VirtualMachine.Resume). `work` runs on the target thread once
  // the session's count on it is 0 (a thread it also suspended otherwise runs
  // the call only when that suspension is resumed too); other sessions' counts
  // are lent to the call (see the top). The end of the call (below) finds the
  // session in the State.
  jdwp::Result<void> StartInvoke(JNIEnv* jni, jthread thread, bool single_threaded,
                                 std::function<void(JNIEnv*)> work, SessionSlot slot);
  // Around the invoked method's own code, on the invoking thread (InvokeMethod):
  // it runs Java code there, so it is no longer "in a callback" whose
  // suspensions wait for its end: another thread's SUSPEND_ALL event (or a
  // VirtualMachine.Suspend) stops it, as stock. `run` takes none of our locks.
  void RunInvokedCode(JNIEnv* jni, jthread self, const std::function<void()>& run);
  // The application's own Thread.resume() (JDK 19 and older; vm_callbacks.cc binds
  // Thread.resume0 to a wrapper): waits while the debugger counts a suspension
  // of `target`, then runs `resume` with mu_ held, so that no debugger
  // suspension comes between the check and the resume (stock holds suspends up
  // meanwhile). The caller is in a callback bracket: we never JVMTI-suspend it.
  void HoldAppResume(JNIEnv* jni, jthread target, const std::function<void()>& resume);
  // StackFrame.PopFrames (frame_pop.h): after each pop the thread runs to its
  // next bytecode, whoever holds it (stock's count is one debugger's).
  // LendForPop sets every session's counts aside, as an invoke lends the other
  // sessions' (SuspendCount unchanged), and lets the thread run;
  // ReturnAfterPop, the thread in its SingleStep callback, brings them back,
  // which suspends it again as the callback ends. An invoke's own lent counts
  // stand aside meanwhile (the thread stopped inside the call).
  jdwp::Result<void> LendForPop(JNIEnv* jni, jthread thread);
  void ReturnAfterPop(JNIEnv* jni, jthread thread);
  // Called by the reporter thread after an invoke: suspends the invoking thread
  // again, or every thread (whatever its state before) after a call that resumed
  // all, in the invoking session's share; the lent counts come back.
  void ResuspendAfterInvoke(JNIEnv* jni, jthread thread);
  // End of a single-threaded invoke, on the invoking thread after its last JNI
  // call (`token` from PrepareToPark, taken before): counted as suspended again
  // at once, its JVMTI suspension pending (see the header comment).
  void EndSingleThreadedInvoke(void* token);
  // Command thread, before a command: JVMTI-suspends the threads whose suspension
  // EndSingleThreadedInvoke left pending. One atomic load when there are none.
  void ApplyPendingSuspensions();

 private:
  struct State {
    jobject thread = nullptr;  // global reference
    jlong tid = 0;             // its key in states_
    int32_t count = 0;  // the sum of `held`, less what is lent to an invoke
    std::array<int32_t, kMaxSessions> held{};  // each session's share
    // During an invoke: the counts of other sessions set aside for the call
    // (held still has them); during a frame pop's run, every session's; null otherwise.
    std::unique_ptr<std::array<int32_t, kMaxSessions>> lent;
    // Between LendForPop and ReturnAfterPop: an invoke's `lent`, while `lent`
    // holds every session's count.
    std::unique_ptr<std::array<int32_t, kMaxSessions>> lent_by_invoke;
    bool suspended = false;  // JVMTI-suspended by us
    int in_callback = 0;     // nesting depth of our callbacks on this thread
    uint64_t round = 0;      // last SuspendAll that counted this thread
    bool deferred = false;   // counted as suspended; JVMTI suspension waits for the callback's end
    uint64_t generation = 0;  // unique across threads: a frame ID carries it
    bool parked = false;  // between PrepareToPark and the end of Park
    bool event_pending = false;  // between PrepareToPark and EventHandled
    std::function<void(JNIEnv*)> invoke;
    bool invoking = false;
    // The call resumed as ThreadReference.Resume (single-threaded) or VirtualMachine.Resume
    // would; its end suspends in the same scope again, unless the session ended meanwhile.
    bool invoke_single = false;
    bool invoke_resuspend = false;  // ResumeEverything of invoke_slot clears it
    SessionSlot invoke_slot = 0;    // the session whose call it is
    // Counted, parked, not yet JVMTI-suspended (EndSingleThreadedInvoke); in pending_.
    bool pending = false;
    bool is_virtual = false;
    // A virtual thread JVMTI-suspended by SuspendAllVirtualThreads (not excepted
    // there, or met while it was in force): ResumeAllVirtualThreads lifts it,
    // so the VM-wide paths make no call of their own for it (HotSpot keeps the
    // exceptions to that call in a list searched linearly: a call per thread
    // there costs O(threads)).
    bool by_all = false;
    // A virtual thread JVMTI may find not alive: its State was made before it
    // started, or outlived its VirtualThreadEnd (ForgetSelf). It is suspended by
    // its own call, whose refusal drops the State, never by_all.
    bool maybe_dead = false;
    // One of the agent's own threads (the debugger can name one, e.g. from
    // ReferenceType.Instances of Thread): counted if asked, never suspended.
    bool agent = false;
    HookedFrames hooked;
  };
  // JVMTI thread-local storage of a virtual thread; touched only by that thread.
  struct VirtualSlot {
    State* state = nullptr;   // cached SelfState
    jobject listed = nullptr;  // its global ref in vthreads_, or null
    std::list<jobject>::iterator at;  // where in vthreads_, when listed
  };
  VirtualSlot* CurrentSlot(bool create);
  State& StateOf(JNIEnv* jni, jthread thread);  // mu_ held; agent threads only
  // StateOf's two halves: a State's JNI part (any lock), then, mu_ held, its
  // generation and the VM-level suspension in force, and its place in states_.
  std::unique_ptr<State> NewState(JNIEnv* jni, jthread thread, jlong tid);
  State& AdoptLocked(std::unique_ptr<State> s);
  State* FindLocked(jlong tid);                  // mu_ held; null if none
  State* SelfState(JNIEnv* jni, jthread self);   // mu_ not held; Java threads
  // java.lang.Thread.tid of `thread` (a JNI field read; no lock needed).
  jlong TidOf(JNIEnv* jni, jthread thread);
  jdwp::Result<void> ForceSuspendLocked(State& s);
  // No longer JVMTI-suspended by us (whichever call resumed it).
  void MarkResumedLocked(State& s);
  // Counts every debuggee thread in one VM-level suspension of `slot` (`threads`:
  // local refs, deleted); virtual States found dead go to the graveyard.
  void SuspendAllLocked(JNIEnv* jni, const std::vector<jthread>& threads, bool carrier_listed, SessionSlot slot);
  // Its JNI-free part, over the States of the listed threads; `self` (or null):
  // the caller's own State, counted with its JVMTI suspension pending.
  void SuspendListedLocked(const std::vector<State*>& listed, bool carrier_listed, State* self, SessionSlot slot);
  // One more count of `slot` (the caller applies the suspension).
  static void CountLocked(State& s, SessionSlot slot) {
    ++s.count;
    ++s.held[slot];
  }
  // The counts of `slot` in force (held, less what is lent to an invoke).
  static int32_t EnforcedLocked(const State& s, SessionSlot slot) {
    return s.held[slot] - (s.lent ? (*s.lent)[slot] : 0);
  }
  // One count of `slot` off (it holds one); true when that leaves the thread to
  // resume: no count left, or an invoke of its own that may run now, the other
  // sessions' counts lent to it.
  bool ReleaseLocked(State& s, SessionSlot slot);
  // The end of an invoke: lent counts back in the total.
  static void ReturnLentLocked(State& s);
  // The VM-level suspension in force, as a new State's counts.
  void StartCountsLocked(State& s) const;
  // SuspendCount of a thread with no State, `vm_count` the VM-level count in question.
  int32_t UnmetCountLocked(JNIEnv* jni, jthread thread, int32_t vm_count);
  // DebuggeeThreads, with each one's tid in `tids` (when not null).
  jdwp::Result<std::vector<jthread>> DebuggeeThreads(JNIEnv* jni, std::vector<jlong>* tids);
  // SuspendAllVirtualThreads, excepting the known virtual threads but `riders`
  // (counted 0, idle: suspended by that call, counted and marked by_all here;
  // moved to `batch` if it fails); ResumeAllVirtualThreads, excepting those still counted.
  void SuspendUnknownVirtualLocked(std::vector<State*>& riders, std::vector<State*>& batch, SessionSlot slot);
  void ResumeUnknownVirtualLocked();
  // SuspendAllVirtualThreads is about to be called (the VM-level count 0 -> 1).
  bool AllVirtualDueLocked() const;
  void DropIfDeadVirtualLocked(State& s);  // into the graveyard; caller frees
  void AddStateLocked(std::unique_ptr<State> s);
  void BuryLocked(State* s);  // states_ -> graveyard_
  void FreeGraveyard(JNIEnv* jni);  // mu_ not held
  void UnlistCurrentVirtual(JNIEnv* jni);
  jdwp::Result<void> SuspendLocked(JNIEnv* jni, State& s);
  jdwp::Result<void> ResumeLocked(JNIEnv* jni, State& s);
  // The VM-wide paths suspend and resume with one JVMTI list call (threads.cc):
  // JDK 21+ makes each single-thread call cost O(threads).
  // Those suspended are counted for `slot`.
  void SuspendBatchLocked(const std::vector<State*>& batch, std::vector<State*>& refused, SessionSlot slot);
  void ResumeBatchLocked(const std::vector<State*>& batch);
  void ResumeAllLocked(JNIEnv* jni, SessionSlot slot);
  void ClearPendingLocked(State& s);
  // Counted, JVMTI suspension applied before the next command (ApplyPendingSuspensions).
  void MarkPendingLocked(State& s);
  // A suspension of a thread inside one of our callbacks (SuspendLocked, SuspendAllLocked).
  void SuspendInCallbackLocked(State& s);
  // cv_.notify_all(), or once mu_ is released inside a NotifyAfterUnlock scope.
  void NotifyLocked();
  class NotifyAfterUnlock;  // takes mu_ (threads.cc)
  bool notify_after_unlock_ = false;  // mu_
  bool notify_due_ = false;           // mu_

  vmcore::Jvmti jvmti_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::unordered_map<jlong, std::unique_ptr<State>> states_;  // by tid
  std::atomic<jfieldID> tid_field_{nullptr};  // java.lang.Thread.tid, looked up once
  // States with is_virtual in states_ (read without mu_ by VirtualThreadEnd).
  std::atomic<int64_t> virtual_states_{0};
  // SuspendAllVirtualThreads in force (VM-level count 0 -> 1 until 1 -> 0).
  bool all_virtual_suspended_ = false;
  // A carrier thread or a virtual State was seen: virtual threads run in this
  // VM. Until then SuspendAll makes no virtual-thread call (none could run).
  // Set under mu_; read without it by SuspendAll, which looks for carriers
  // outside mu_ (class lookups would lengthen every VM suspension's hold of it).
  std::atomic<bool> vthreads_seen_{false};
  bool AnyCarrier(JNIEnv* jni, const std::vector<jthread>& threads) const;
  // VM-level suspensions in force (VirtualMachine.Suspend, SUSPEND_ALL), per
  // session, and their total: a thread first seen meanwhile (started since, or
  // not listed then) starts with these counts.
  std::array<int32_t, kMaxSessions> suspend_all_count_{};
  int32_t suspend_all_total_ = 0;
  // States with `pending` (a handful at most: threads that just ended an invoke).
  std::vector<State*> pending_;
  std::atomic<bool> any_pending_{false};
  uint64_t suspend_round_ = 0;
  // States of ended threads wait here so that their global references are
  // deleted outside mu_ (a Java thread makes no JNI call holding it).
  std::vector<std::unique_ptr<State>> graveyard_;
  std::vector<std::unique_ptr<State>> TakeGraveyardLocked();
  std::mutex agent_mu_;  // leaf lock; never taken by Java threads
  std::vector<jlong> agent_tids_;
  uint64_t next_generation_ = 2;
  bool virtual_threads_ = false;
  bool list_virtual_threads_ = false;
  std::mutex vthreads_mu_;  // leaf lock
  // Global refs of live virtual threads (includevirtualthreads=y), in start
  // order; each one's slot knows its place, so unlisting costs the same at any size.
  std::list<jobject> vthreads_;
};

}  // namespace jdwpx::backend
