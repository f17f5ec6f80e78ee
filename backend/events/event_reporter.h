// The reporter: the last leg of an event's way out (composite -> suspension ->
// send), and the agent thread that runs it.
//
// A callback hands its composite here (Report) on the event's own Java thread.
// The reporter thread applies the suspend policy (a thread never JVMTI-suspends
// itself) and then sends the packet, so a debugger always finds the event
// thread suspended when it reads the event; the event thread waits for that
// and then parks (ThreadControl) until resumed. Packets of a previous session
// (epoch) are dropped instead of sent, and suspend nothing.
//
// The direct path (the hot one: a breakpoint or step with SUSPEND_EVENT_THREAD
// or SUSPEND_ALL): when nothing is queued or on its way and events are neither
// held nor blocked, the event thread counts its own suspension
// (ThreadControl::SuspendSelfForEvent: its JVMTI suspension is applied only when
// a command may look at the thread; for SUSPEND_ALL it also suspends every other
// thread first, ThreadControl::SuspendAllForOwnEvent), sends the packet itself
// (the transport writes at once when its writer is idle) and parks; meanwhile
// the reporter takes no item (direct_), so events keep their order, and Drain
// waits for it (in_flight_). That saves two thread hand-offs per event and the
// JVMTI suspend and resume of a thread that the debugger only resumes.
// SUSPEND_ALL goes this way from platform threads only, with
// includevirtualthreads=n (a virtual event thread, or the listed virtual
// threads, would need JNI calls under a lock on a Java thread).
//
// As stock's event helper does, once it has sent a SUSPEND_ALL composite the
// reporter sends no other event until the debugger resumes a thread or the VM
// (ThreadReference.Resume, VirtualMachine.Resume): events other threads met
// meanwhile wait, so that a debugger is never handed a second stop while it
// handles the first (jdb, for one, loses its prompt then).
//
// VMDeath is the last event a debugger gets. JVMTI posts it while other threads
// still run and meet events; as stock, which stops callbacks at VMDeath, a
// composite that comes to Report after VMDeath's is dropped, and VMDeath's waits
// until the composites already past that check are queued before it.
//
// A debugger that reads nothing holds the reporter back in the transport
// (transport::kSendWindow); the events that suspend no thread (SUSPEND_NONE)
// then wait in the queue. Beyond kBacklogBytes of packets queued, an
// application thread with such an event waits until the queue is back under
// that, as stock's do beyond 50 KB, or until VM death, the session's end or
// the reporter's stop: the VM's memory does not grow with the events a stalled
// debugger leaves unread (its items take more than their packets' 4 MB).
//
// With several sessions the reporter is never held back by one of them: it
// sends with Outbox::SendUnheld and, once a session's connection is backlogged
// (Outbox::Backlogged: its debugger reads nothing), that session's events wait
// in the queue, as held ones do (and so do its invoke replies, which keep
// their place behind them), until the connection has room again (looked at
// every kBacklogPoll), while the other sessions' events go on; the backlog
// beyond which an application thread waits is each session's own; and the
// direct path sends unheld too (its thread then parks until that session
// resumes it, so each thread adds one packet at most).
//
// Sessions (sessions=N): every composite is one session's (ReportComposite
// splits a hit's events by the session of their requests), is sent to that
// session's connection and suspends in that session's name. Epochs, HoldEvents
// and the block after a SUSPEND_ALL composite are each session's own: one
// session's held or blocked events never hold back another's. A hit that
// answers several sessions (ReportEach) sends each its composite and parks its
// thread once, until every one of them has been handled and no session holds
// it suspended. When every one of them is SUSPEND_EVENT_THREAD and the way is
// clear for each session (BeginDirectEach), the thread sends them itself, as
// on the direct path, and counts its suspension for each session.
//
// Locks: queue_mu_ is a leaf (nothing else is taken under it); an event
// thread's wait for its item is on a lock of its own.
#pragma once

#include <jni.h>

#include <array>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "backend/context.h"
#include "backend/events/outbox.h"
#include "backend/session_slot.h"
#include "jdwp/commands/event.h"

namespace jdwpx::backend {

class EventReporter {
 public:
  EventReporter(Context& ctx, Outbox& outbox);
  ~EventReporter();

  // Builds and queues one composite of `session`; waits for the reporter and
  // parks `thread` (the current Java thread: the event thread, or the one
  // reporting a set that names no thread) when the policy suspends it.
  // `thread` may be null. `applied` runs once the policy is in force (before
  // the thread parks).
  void Report(JNIEnv* jni, jthread thread, std::vector<jdwp::events::EventData> events,
              jdwp::SuspendPolicy policy, SessionSlot session, const std::function<void()>& applied = nullptr);
  // One composite for each of several sessions, from one hit: all are queued,
  // then the thread parks once (see the top).
  struct SessionComposite {
    SessionSlot session = 0;
    std::vector<jdwp::events::EventData> events;
    jdwp::SuspendPolicy policy = jdwp::SuspendPolicy::kNone;
  };
  void ReportEach(JNIEnv* jni, jthread thread, std::vector<SessionComposite> composites);
  // Closes the way for every event but VMDeath's (see the top); returns once the
  // composites already past the check are queued (bounded: 2 s).
  void CloseForVmDeath();
  // Sends `packet` to `session` after re-suspending `thread` (end of an
  // InvokeMethod), waiting for it. Takes ownership of `thread`, a global reference.
  void SendAfterInvoke(JNIEnv* jni, jthread thread, std::vector<uint8_t> packet, SessionSlot session);
  // The reply of an InvokeMethod whose thread needs no re-suspension by the
  // reporter (ThreadControl::EndSingleThreadedInvoke): sent at once by the calling
  // thread when no queued event must go before it, else queued after them (a
  // reply is no event: HoldEvents does not hold it). Dropped if the session of
  // `epoch` has ended.
  void SendInvokeReply(SessionSlot session, uint64_t epoch, std::vector<uint8_t> packet);
  // At the end of a callback whose thread's suspension was deferred: has the
  // reporter suspend it, then parks it until resumed.
  void SuspendDeferred(JNIEnv* jni, void* token);

  // VirtualMachine HoldEvents and ReleaseEvents of `session`.
  void Hold(SessionSlot session);
  void Release(SessionSlot session);
  // VMDeath: nothing is held or blocked any longer, in any session.
  void ReleaseAll();
  // ThreadReference.Resume / VirtualMachine.Resume: that session's events wait no more for one.
  void UnblockAfterResume(SessionSlot session);

  // A debugger attached in `session`: a new epoch of it.
  void BeginSession(SessionSlot session);
  // It left: a new epoch (events of the old one are dropped from now on).
  void EndSession(SessionSlot session);
  // After EndSession: its held and blocked events go (to be dropped), their threads let go.
  void LetGo(SessionSlot session);
  // Whether any debugger is attached / this one.
  bool attached() const { return attached_count_.load() > 0; }
  bool attached(SessionSlot session) const { return sessions_[session].attached.load(); }
  uint64_t epoch(SessionSlot session) const { return sessions_[session].epoch.load(); }
  // Changes whenever any session begins or ends (events kept back across
  // callbacks are dropped then: method_events.cc).
  uint64_t generation() const { return generation_.load(); }

  // The reporter thread's loop and its stop.
  void Run(JNIEnv* jni);
  void Stop();
  // Waits (bounded) until every queued packet has been handed to the transport.
  void Drain(int timeout_ms);
  // The same for the items of one session (its end: another session's held
  // events may stay queued meanwhile).
  void Drain(int timeout_ms, SessionSlot session);

 private:
  struct Item;
  static constexpr size_t kBacklogBytes = size_t{4} << 20;
  static constexpr std::chrono::milliseconds kBacklogPoll{5};
  // Sends a packet of `session`: held back by a debugger that reads nothing
  // with one session, never with several (see the top).
  void SendOut(SessionSlot session, std::vector<uint8_t> packet);
  // Outside queue_mu_: the sessions marked backlogged whose connection has room
  // again are no longer; returns whether any was.
  bool RecheckBacklogs();
  void Enqueue(std::unique_ptr<Item> item);
  void PushLocked(std::unique_ptr<Item> item);  // queue_mu_ held: queues it (counted) and wakes the reporter
  // An application thread's event that suspends no thread: waits first while
  // the queue's packets exceed kBacklogBytes (see the top).
  void EnqueueWithinBacklog(std::unique_ptr<Item> item);
  // Enqueues and returns once the reporter has handled the item (it signals `done`);
  // `queued` runs once the item is in the queue, before the wait.
  void EnqueueAndWait(std::unique_ptr<Item> item, const std::function<void()>& queued = nullptr);
  // Report's way in and out while the way is open (CloseForVmDeath).
  bool EnterReport(bool vm_death);
  void LeaveReport();
  std::deque<std::unique_ptr<Item>>::iterator NextItemLocked();  // queue_mu_ held
  // The direct path (see the top): BeginDirect answers whether this event may
  // take it (and then holds the reporter off until EndDirect).
  // `blocks_events`: a SUSPEND_ALL composite (its session's `blocked` is set with it).
  bool BeginDirect(SessionSlot session, uint64_t epoch, bool blocks_events);
  // BeginDirect for one hit's SUSPEND_EVENT_THREAD sets to several sessions (ReportEach).
  bool BeginDirectEach(const std::vector<std::unique_ptr<Item>>& items);
  // Whether `session`'s event may go directly, queue aside (queue_mu_ held).
  bool DirectAllowedLocked(SessionSlot session, uint64_t epoch) const;
  // An Event.Composite packet with the next packet ID.
  std::vector<uint8_t> CompositePacket(jdwp::SuspendPolicy policy, std::vector<jdwp::events::EventData> events);
  void EndDirect();

  Context& ctx_;
  Outbox& outbox_;  // where packets go: the session's (outbox.h)
  std::mutex queue_mu_;
  std::condition_variable queue_cv_;
  // Wakes queue_cv_'s waiters (queue_mu_ held) and counts the wake in `wakes_`,
  // which the reporter compares with what it saw when it last looked through
  // the queue: a wake while it was not waiting (asking the backlogged
  // connections, RecheckBacklogs) is not lost.
  void WakeLocked() {
    ++wakes_;
    queue_cv_.notify_all();
  }
  uint64_t wakes_ = 0;  // queue_mu_
  std::deque<std::unique_ptr<Item>> queue_;
  struct SessionState {
    // HoldEvents: as stock, events wait in the queue, in order, until
    // ReleaseEvents (their suspensions too); other items go on (queue_mu_).
    bool holding = false;
    // A SUSPEND_ALL composite was sent: events wait for a resume (see the top; queue_mu_).
    bool blocked = false;
    // Several sessions: its connection was backlogged at the last send (queue_mu_).
    bool backlogged = false;
    size_t queued_bytes = 0;  // the packets of its items in queue_ (queue_mu_)
    std::atomic<uint64_t> epoch{1};
    std::atomic<bool> attached{false};
  };
  std::array<SessionState, kMaxSessions> sessions_;
  // Sets a session's backlogged mark, counted in backlogged_count_ (queue_mu_ held).
  void MarkBackloggedLocked(SessionState& s, bool backlogged);
  int backlogged_count_ = 0;  // sessions marked backlogged (queue_mu_)
  // Whether an item of that session waits now (held, blocked or backlogged; queue_mu_ held).
  bool WaitsLocked(const Item& item) const;
  const bool several_;  // sessions= more than 1
  std::atomic<int> attached_count_{0};
  std::atomic<uint64_t> generation_{1};
  bool stopping_ = false;
  bool direct_ = false;  // an event thread sends its own event (BeginDirect)
  int drain_waiters_ = 0;  // threads in Drain (EndDirect wakes them only)
  size_t in_flight_ = 0;
  std::atomic<int> reporting_{0};  // Reports between EnterReport and LeaveReport
  std::atomic<bool> closed_{false};  // VMDeath came: no other event goes
  std::atomic<uint32_t> next_packet_id_{1};
};

}  // namespace jdwpx::backend
