// The reporter (event_reporter.h): composite -> suspension -> send.
#include "backend/events/event_reporter.h"

#include <algorithm>
#include <chrono>
#include <utility>
#include <variant>

#include "jdwp/codec.h"
#include "jdwp/packet.h"

namespace jdwpx::backend {

using jdwp::SuspendPolicy;
namespace ev = jdwp::events;

namespace {

// Whether a composite names a thread (an event set that names none suspends all).
bool NamesAThread(const std::vector<ev::EventData>& events) {
  return std::any_of(events.begin(), events.end(), [](const ev::EventData& e) {
    return std::visit([](const auto& x) {
      if constexpr (requires { x.thread; }) return !x.thread.is_null();
      else return false;
    }, e);
  });
}

// The policy the reporter applies: as stock, a set that names no thread
// (ClassUnload, VMDeath, an agent thread's ClassPrepare) suspends all threads
// whatever its policy.
SuspendPolicy AppliedPolicy(SuspendPolicy policy, bool names_a_thread) {
  return policy != SuspendPolicy::kNone && !names_a_thread ? SuspendPolicy::kAll : policy;
}

}  // namespace

std::vector<uint8_t> EventReporter::CompositePacket(SuspendPolicy policy, std::vector<ev::EventData> events) {
  jdwp::Event::Composite::Request composite{policy, std::move(events)};
  return jdwp::MakeCommandPacket(next_packet_id_.fetch_add(1), jdwp::Event::Composite::kId, jdwp::EncodeBody(composite));
}

struct EventReporter::Item {
  std::vector<uint8_t> packet;  // empty: nothing to send
  SuspendPolicy policy = SuspendPolicy::kNone;
  jobject thread = nullptr;      // global ref, event thread (may be null)
  bool resuspend_after_invoke = false;
  bool invoke_reply = false;  // SendInvokeReply
  // A SUSPEND_ALL composite (but VMStart: stock reports it apart): once sent,
  // the events after it wait for a resume (event_reporter.h).
  bool blocks_events = false;
  void* deferred_token = nullptr;  // apply a deferred suspension (ThreadControl state)
  SessionSlot session = 0;  // whose event, reply or suspension it is
  uint64_t epoch = 0;        // of that session
  // The event thread, parked (ThreadControl::PrepareToPark) until the item is handled.
  void* parked = nullptr;
  // ReportEach: the items of one hit that park its thread, still to be handled;
  // the last one handled lets the thread's park go on (EventHandled).
  std::shared_ptr<std::atomic<int>> parked_items;
  // Completion signal for a waiting event thread.
  std::mutex* done_mu = nullptr;
  std::condition_variable* done_cv = nullptr;
  bool* done = nullptr;
};

EventReporter::EventReporter(Context& ctx, Outbox& outbox)
    : ctx_(ctx), outbox_(outbox), several_(ctx.options.sessions > 1) {}
EventReporter::~EventReporter() = default;

void EventReporter::Enqueue(std::unique_ptr<Item> item) {
  std::lock_guard lock(queue_mu_);
  PushLocked(std::move(item));
}

void EventReporter::PushLocked(std::unique_ptr<Item> item) {
  sessions_[item->session].queued_bytes += item->packet.size();
  // Only the reporter waits for a push, and only for an item it may take: one
  // that waits (held, blocked, backlogged) would have it look through the
  // queue for nothing, for every event a debugger that reads nothing leaves.
  const bool takeable = stopping_ || !WaitsLocked(*item);
  queue_.push_back(std::move(item));
  if (takeable) WakeLocked();
}

void EventReporter::MarkBackloggedLocked(SessionState& s, bool backlogged) {
  if (s.backlogged == backlogged) return;
  s.backlogged = backlogged;
  backlogged_count_ += backlogged ? 1 : -1;
  // Marked: an idle reporter starts looking at the connections (Run); cleared: the session's items may go.
  WakeLocked();
}

void EventReporter::EnqueueWithinBacklog(std::unique_ptr<Item> item) {
  std::unique_lock lock(queue_mu_);
  const uint64_t epoch = item->epoch;
  // Rechecked every second too: a session's end need not wake it.
  const SessionState& session = sessions_[item->session];
  while (session.queued_bytes > kBacklogBytes && !stopping_ && !closed_.load() && session.attached.load() &&
         epoch == session.epoch.load()) {
    queue_cv_.wait_for(lock, std::chrono::seconds(1));
  }
  PushLocked(std::move(item));
}

void EventReporter::EnqueueAndWait(std::unique_ptr<Item> item, const std::function<void()>& queued) {
  std::mutex done_mu;
  std::condition_variable done_cv;
  bool done = false;
  item->done_mu = &done_mu;
  item->done_cv = &done_cv;
  item->done = &done;
  Enqueue(std::move(item));
  if (queued) queued();
  std::unique_lock lock(done_mu);
  done_cv.wait(lock, [&] { return done; });
}

bool EventReporter::EnterReport(bool vm_death) {
  // Sequentially consistent with CloseForVmDeath: either it sees this Report
  // counted, or this Report sees the way closed.
  reporting_.fetch_add(1);
  if (!closed_.load() || vm_death) return true;
  LeaveReport();
  return false;
}

void EventReporter::LeaveReport() {
  if (reporting_.fetch_sub(1) == 1 && closed_.load()) {
    std::lock_guard lock(queue_mu_);
    WakeLocked();
  }
}

void EventReporter::CloseForVmDeath() {
  closed_.store(true);
  std::unique_lock lock(queue_mu_);
  WakeLocked();  // a thread held back by the backlog goes on (its event is queued)
  queue_cv_.wait_for(lock, std::chrono::seconds(2), [&] { return reporting_.load() == 0; });
}

void EventReporter::Report(JNIEnv* jni, jthread thread, std::vector<ev::EventData> events, SuspendPolicy policy,
                          SessionSlot session, const std::function<void()>& applied) {
  if (events.empty()) return;
  const bool vm_death = std::holds_alternative<ev::VMDeath>(events.back());
  if (!EnterReport(vm_death)) return;
  // An agent thread is never suspended: as stock, its event (a ClassPrepare)
  // names no thread, and SUSPEND_EVENT_THREAD becomes SUSPEND_ALL.
  if (thread && ThreadControl::CurrentIsAgent()) {
    thread = nullptr;
    if (policy == SuspendPolicy::kEventThread) policy = SuspendPolicy::kAll;
  }
  const bool names_a_thread = NamesAThread(events);  // else AppliedPolicy suspends all
  const bool vm_start = events.size() == 1 && std::holds_alternative<ev::VMStart>(events.front());
  const uint64_t epoch = sessions_[session].epoch.load();
  auto packet = CompositePacket(policy, std::move(events));
  // SUSPEND_ALL takes the direct path from a platform thread only, and only when
  // virtual threads are not listed (ThreadControl::SuspendAllForOwnEvent).
  const bool direct_all = policy == SuspendPolicy::kAll && !vm_start && !ctx_.threads.lists_virtual_threads();
  if ((policy == SuspendPolicy::kEventThread || direct_all) && names_a_thread && thread && !applied &&
      (!direct_all || !ctx_.threads.IsVirtual(jni, thread)) && BeginDirect(session, epoch, direct_all)) {
    // Nothing ahead of it and the reporter held off: this thread counts its
    // own suspension (its JVMTI suspension pending, threads.h), suspends the
    // others for SUSPEND_ALL, and sends.
    std::vector<jthread> listed;
    void* parking = direct_all ? ctx_.threads.SuspendAllForOwnEvent(jni, thread, listed, session)
                               : ctx_.threads.SuspendSelfForEvent(jni, thread, session);
    // From here until resumed this thread is suspended: no JNI or JVMTI calls.
    SendOut(session, std::move(packet));
    EndDirect();
    LeaveReport();
    ctx_.threads.Park(jni, parking);
    if (direct_all) ctx_.threads.AfterOwnSuspendAll(jni, listed);
    return;
  }
  auto item = std::make_unique<Item>();
  item->packet = std::move(packet);
  item->policy = AppliedPolicy(policy, names_a_thread);
  item->blocks_events = item->policy == SuspendPolicy::kAll && !vm_start;
  item->session = session;
  item->epoch = epoch;
  if (item->policy == SuspendPolicy::kNone || !thread) {
    if (thread) item->thread = jni->NewGlobalRef(thread);
    // Only an application's thread is held back (see the top): not VMDeath's,
    // nor an agent thread's ClassPrepare.
    if (thread && !vm_death) {
      EnqueueWithinBacklog(std::move(item));
    } else {
      Enqueue(std::move(item));
    }
    LeaveReport();
    if (applied) applied();
    return;
  }
  item->thread = jni->NewGlobalRef(thread);
  void* parking = ctx_.threads.PrepareToPark(jni, thread);
  item->parked = parking;
  if (applied) {
    EnqueueAndWait(std::move(item), [this] { LeaveReport(); });
    // Suspended now: no JNI or JVMTI calls until Park returns.
    applied();
  } else {
    // Park waits for the reporter to have handled the item (EventHandled) and
    // then for a resume: one wait, no wake-up in between.
    Enqueue(std::move(item));
    LeaveReport();
  }
  // From here until resumed this thread is suspended: no JNI or JVMTI calls.
  ctx_.threads.Park(jni, parking);
}


void EventReporter::ReportEach(JNIEnv* jni, jthread thread, std::vector<SessionComposite> composites) {
  std::erase_if(composites, [](const SessionComposite& c) { return c.events.empty(); });
  if (composites.empty()) return;
  if (composites.size() == 1) {
    SessionComposite& c = composites.front();
    Report(jni, thread, std::move(c.events), c.policy, c.session);
    return;
  }
  const bool vm_death = std::holds_alternative<ev::VMDeath>(composites.front().events.back());
  if (!EnterReport(vm_death)) return;
  const bool agent_thread = thread && ThreadControl::CurrentIsAgent();
  if (agent_thread) thread = nullptr;
  // Every item made before the thread counts as parked: from then on it makes no JNI call.
  std::vector<std::unique_ptr<Item>> items;
  int parking_items = 0;
  bool direct = thread != nullptr && !vm_death;
  for (SessionComposite& c : composites) {
    SuspendPolicy policy = c.policy;
    // As Report: an agent thread is never suspended, and a set that names no thread suspends all.
    if (agent_thread && policy == SuspendPolicy::kEventThread) policy = SuspendPolicy::kAll;
    const bool names_a_thread = NamesAThread(c.events);
    auto item = std::make_unique<Item>();
    item->session = c.session;
    item->epoch = sessions_[c.session].epoch.load();
    item->packet = CompositePacket(policy, std::move(c.events));
    item->policy = AppliedPolicy(policy, names_a_thread);
    item->blocks_events = item->policy == SuspendPolicy::kAll;
    if (thread && item->policy != SuspendPolicy::kNone) ++parking_items;
    direct = direct && item->policy == SuspendPolicy::kEventThread;
    items.push_back(std::move(item));
  }
  // Each session's SUSPEND_EVENT_THREAD set, as Report's direct path: this
  // thread counts its own suspension for each session and sends them all.
  if (direct && BeginDirectEach(items)) {
    std::array<SessionSlot, kMaxSessions> slots{};
    for (size_t i = 0; i < items.size(); ++i) slots[i] = items[i]->session;
    void* parking = ctx_.threads.SuspendSelfForEvent(jni, thread, std::span(slots.data(), items.size()));
    // From here until every session has resumed it, this thread is suspended: no JNI or JVMTI calls.
    for (auto& item : items) SendOut(item->session, std::move(item->packet));
    EndDirect();
    LeaveReport();
    ctx_.threads.Park(jni, parking);
    return;
  }
  if (thread) {
    for (auto& item : items) item->thread = jni->NewGlobalRef(thread);
  }
  if (parking_items == 0) {
    for (auto& item : items) {
      if (thread && !vm_death) {
        EnqueueWithinBacklog(std::move(item));
      } else {
        Enqueue(std::move(item));
      }
    }
    LeaveReport();
    return;
  }
  void* parking = ctx_.threads.PrepareToPark(jni, thread);
  auto parked_items = std::make_shared<std::atomic<int>>(parking_items);
  {
    std::lock_guard lock(queue_mu_);
    for (auto& item : items) {
      if (item->policy != SuspendPolicy::kNone) {
        item->parked = parking;
        item->parked_items = parked_items;
      }
      PushLocked(std::move(item));
    }
  }
  LeaveReport();
  // From here until every session has resumed it, this thread is suspended: no JNI or JVMTI calls.
  ctx_.threads.Park(jni, parking);
}

bool EventReporter::DirectAllowedLocked(SessionSlot session, uint64_t epoch) const {
  const SessionState& s = sessions_[session];
  // Held or blocked events wait in the queue (this one after them); an event
  // of an ended session is the reporter's to drop.
  return !s.holding && !s.blocked && s.attached.load() && epoch == s.epoch.load();
}

bool EventReporter::BeginDirect(SessionSlot session, uint64_t epoch, bool blocks_events) {
  std::lock_guard lock(queue_mu_);
  // Anything queued or on its way goes first.
  if (!queue_.empty() || in_flight_ > 0 || stopping_ || !DirectAllowedLocked(session, epoch)) return false;
  ++in_flight_;  // Drain (a session's end) waits for it
  direct_ = true;  // the reporter takes no item meanwhile: events keep their order
  // A SUSPEND_ALL composite: set before it is sent, as the reporter does (Run).
  if (blocks_events) sessions_[session].blocked = true;
  return true;
}

bool EventReporter::BeginDirectEach(const std::vector<std::unique_ptr<Item>>& items) {
  std::lock_guard lock(queue_mu_);
  if (!queue_.empty() || in_flight_ > 0 || stopping_) return false;
  for (const auto& item : items) {
    if (!DirectAllowedLocked(item->session, item->epoch)) return false;
  }
  ++in_flight_;
  direct_ = true;
  return true;
}

void EventReporter::EndDirect() {
  std::lock_guard lock(queue_mu_);
  --in_flight_;
  direct_ = false;
  // The idle reporter is not woken for nothing: only for items queued meanwhile,
  // a Drain, or its stop.
  if (!queue_.empty() || drain_waiters_ > 0 || stopping_) WakeLocked();
}

void EventReporter::SendAfterInvoke(JNIEnv* jni, jthread thread, std::vector<uint8_t> packet, SessionSlot session) {
  auto item = std::make_unique<Item>();
  item->packet = std::move(packet);
  item->thread = thread;  // the caller's global reference; the reporter deletes it
  item->resuspend_after_invoke = true;
  item->session = session;
  item->epoch = sessions_[session].epoch.load();
  EnqueueAndWait(std::move(item));
}

void EventReporter::SendInvokeReply(SessionSlot session, uint64_t epoch, std::vector<uint8_t> packet) {
  {
    std::lock_guard lock(queue_mu_);
    if (!queue_.empty() || in_flight_ > 0) {
      // An event on its way (one of the call's own, say) goes first.
      auto item = std::make_unique<Item>();
      item->packet = std::move(packet);
      item->invoke_reply = true;
      item->session = session;
      item->epoch = epoch;
      PushLocked(std::move(item));
      return;
    }
    ++in_flight_;  // Drain waits for it
  }
  // Sent outside queue_mu_ (a leaf lock); an event queued meanwhile came after the reply.
  if (epoch == sessions_[session].epoch.load() && sessions_[session].attached.load())
    outbox_.Send(session, std::move(packet));
  std::lock_guard lock(queue_mu_);
  --in_flight_;
  WakeLocked();
}

void EventReporter::SuspendDeferred(JNIEnv* jni, void* token) {
  auto item = std::make_unique<Item>();
  item->deferred_token = token;
  EnqueueAndWait(std::move(item));
  // Suspended now (or resumed meanwhile): no JNI or JVMTI calls until Park returns.
  ctx_.threads.Park(jni, token);
}

bool EventReporter::WaitsLocked(const Item& item) const {
  // Held: an event waits, with its suspension (as stock, its thread waits in the
  // agent unsuspended); a thread's deferred suspension and the end of an
  // invocation (whose reply stock sends at once) are no events.
  const SessionState& s = sessions_[item.session];
  if (item.deferred_token) return false;
  // Nor do they wait for a HoldEvents or a block; behind a backlog they keep their place
  // after the session's events (SendInvokeReply).
  if (item.resuspend_after_invoke || item.invoke_reply) return s.backlogged;
  return s.holding || s.blocked || s.backlogged;
}

void EventReporter::SendOut(SessionSlot session, std::vector<uint8_t> packet) {
  if (!several_) {
    outbox_.Send(session, std::move(packet));
    return;
  }
  if (outbox_.SendUnheld(session, std::move(packet))) {
    std::lock_guard lock(queue_mu_);
    MarkBackloggedLocked(sessions_[session], true);
  }
}

bool EventReporter::RecheckBacklogs() {
  std::array<bool, kMaxSessions> marked{};
  {
    std::lock_guard lock(queue_mu_);
    if (backlogged_count_ == 0) return false;
    for (size_t i = 0; i < sessions_.size(); ++i) marked[i] = sessions_[i].backlogged;
  }
  bool cleared = false;
  for (size_t i = 0; i < marked.size(); ++i) {
    if (!marked[i] || outbox_.Backlogged(static_cast<SessionSlot>(i))) continue;
    std::lock_guard lock(queue_mu_);
    MarkBackloggedLocked(sessions_[i], false);
    cleared = true;
  }
  return cleared;
}

std::deque<std::unique_ptr<EventReporter::Item>>::iterator EventReporter::NextItemLocked() {
  if (direct_) return queue_.end();  // an event thread is sending its own (BeginDirect)
  if (stopping_) return queue_.begin();
  // The first that does not wait: another session's held events hold back none of this one's.
  return std::find_if(queue_.begin(), queue_.end(), [&](const std::unique_ptr<Item>& i) { return !WaitsLocked(*i); });
}

void EventReporter::Run(JNIEnv* jni) {
  while (true) {
    std::unique_ptr<Item> item;
    {
      std::unique_lock lock(queue_mu_);
      auto next = queue_.end();
      // Looks through the queue when woken (an item it may take, a release, a
      // stop...), and while a connection is backlogged asks it every kBacklogPoll
      // whether it has room again, looking through the queue only if one has.
      // A wake that comes while it asks them (queue_mu_ released) is not
      // lost: `wakes_` has changed since it last looked.
      bool look = true;
      uint64_t seen = wakes_;
      auto woken = [&] { return wakes_ != seen; };
      while (true) {
        if (look) {
          seen = wakes_;
          next = NextItemLocked();
          if (stopping_ || next != queue_.end()) break;
        }
        if (backlogged_count_ == 0) {
          queue_cv_.wait(lock, woken);
          look = true;
        } else if (queue_cv_.wait_for(lock, kBacklogPoll, woken)) {
          look = true;
        } else {
          lock.unlock();
          const bool cleared = RecheckBacklogs();
          lock.lock();
          look = cleared || woken();
        }
      }
      if (next == queue_.end()) return;
      item = std::move(*next);
      queue_.erase(next);
      size_t& session_bytes = sessions_[item->session].queued_bytes;
      session_bytes -= std::min(item->packet.size(), session_bytes);
      ++in_flight_;
    }
    const SessionState& session = sessions_[item->session];
    bool current = item->epoch == session.epoch.load() && session.attached.load();
    if (item->deferred_token) {
      ctx_.threads.ApplyDeferred(item->deferred_token);
    } else if (item->resuspend_after_invoke) {
      ctx_.threads.ResuspendAfterInvoke(jni, static_cast<jthread>(item->thread));
    } else if (current && item->policy != SuspendPolicy::kNone) {
      ctx_.threads.SuspendForEvent(jni, static_cast<jthread>(item->thread), item->policy, item->session);
    }
    if (current && !item->packet.empty()) {
      if (item->blocks_events) {
        // Before it is sent: a resume that answers it must find the block set.
        std::lock_guard lock(queue_mu_);
        sessions_[item->session].blocked = true;
      }
      SendOut(item->session, std::move(item->packet));
    }
    {
      // Handed to the transport: no longer in flight, before its thread is let go,
      // so that the thread's next event does not find this one still on its way
      // (and queue behind it: the direct path would then be lost for good).
      std::lock_guard lock(queue_mu_);
      --in_flight_;
      WakeLocked();
    }
    if (item->thread) jni->DeleteGlobalRef(item->thread);
    // A hit reported to several sessions parks once: the last of its items lets it go on.
    if (item->parked && (!item->parked_items || item->parked_items->fetch_sub(1) == 1))
      ctx_.threads.EventHandled(item->parked);
    if (item->done) {
      std::lock_guard lock(*item->done_mu);
      *item->done = true;
      item->done_cv->notify_all();
    }
  }
}

void EventReporter::Stop() {
  std::lock_guard lock(queue_mu_);
  stopping_ = true;
  WakeLocked();
}

void EventReporter::Drain(int timeout_ms) {
  std::unique_lock lock(queue_mu_);
  ++drain_waiters_;
  queue_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                     [&] { return stopping_ || (queue_.empty() && in_flight_ == 0); });
  --drain_waiters_;
}

void EventReporter::Drain(int timeout_ms, SessionSlot session) {
  std::unique_lock lock(queue_mu_);
  ++drain_waiters_;
  queue_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
    return stopping_ || (in_flight_ == 0 && std::none_of(queue_.begin(), queue_.end(), [&](const auto& item) {
                           return item->session == session;
                         }));
  });
  --drain_waiters_;
}

void EventReporter::Hold(SessionSlot session) {
  std::lock_guard lock(queue_mu_);
  sessions_[session].holding = true;
}

void EventReporter::Release(SessionSlot session) {
  std::lock_guard lock(queue_mu_);
  sessions_[session].holding = false;
  WakeLocked();
}

void EventReporter::ReleaseAll() {
  std::lock_guard lock(queue_mu_);
  for (SessionState& s : sessions_) {
    s.holding = false;
    s.blocked = false;
    MarkBackloggedLocked(s, false);
  }
  WakeLocked();
}

void EventReporter::UnblockAfterResume(SessionSlot session) {
  std::lock_guard lock(queue_mu_);
  // Every resume comes here: the idle reporter is woken only if events wait
  // (its wait looks at `blocked` only when the queue holds some).
  SessionState& s = sessions_[session];
  if (!s.blocked) return;
  s.blocked = false;
  if (!queue_.empty()) WakeLocked();
}

void EventReporter::BeginSession(SessionSlot session) {
  SessionState& s = sessions_[session];
  s.epoch.fetch_add(1);
  generation_.fetch_add(1);
  if (!s.attached.exchange(true)) attached_count_.fetch_add(1);
  {
    std::lock_guard lock(queue_mu_);
    MarkBackloggedLocked(s, false);  // left by a late send to the debugger before
  }
  UnblockAfterResume(session);
}

void EventReporter::EndSession(SessionSlot session) {
  SessionState& s = sessions_[session];
  if (s.attached.exchange(false)) attached_count_.fetch_sub(1);
  s.epoch.fetch_add(1);
  generation_.fetch_add(1);
}

void EventReporter::LetGo(SessionSlot session) {
  // Events queued meanwhile (held ones too) are of the old epoch: dropped,
  // suspending nothing, their threads let go.
  std::lock_guard lock(queue_mu_);
  sessions_[session].holding = false;
  sessions_[session].blocked = false;
  MarkBackloggedLocked(sessions_[session], false);
  WakeLocked();
}

}  // namespace jdwpx::backend
