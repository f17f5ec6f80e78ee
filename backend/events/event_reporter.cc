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
  uint64_t epoch = 0;
  // The event thread, parked (ThreadControl::PrepareToPark) until the item is handled.
  void* parked = nullptr;
  // Completion signal for a waiting event thread.
  std::mutex* done_mu = nullptr;
  std::condition_variable* done_cv = nullptr;
  bool* done = nullptr;
};

EventReporter::EventReporter(Context& ctx, Outbox& outbox) : ctx_(ctx), outbox_(outbox) {}
EventReporter::~EventReporter() = default;

void EventReporter::Enqueue(std::unique_ptr<Item> item) {
  std::lock_guard lock(queue_mu_);
  PushLocked(std::move(item));
}

void EventReporter::PushLocked(std::unique_ptr<Item> item) {
  queued_bytes_ += item->packet.size();
  queue_.push_back(std::move(item));
  queue_cv_.notify_all();
}

void EventReporter::EnqueueWithinBacklog(std::unique_ptr<Item> item) {
  std::unique_lock lock(queue_mu_);
  const uint64_t epoch = item->epoch;
  // Rechecked every second too: a session's end need not wake it.
  while (queued_bytes_ > kBacklogBytes && !stopping_ && !closed_.load() && attached_ && epoch == epoch_.load()) {
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
    queue_cv_.notify_all();
  }
}

void EventReporter::CloseForVmDeath() {
  closed_.store(true);
  std::unique_lock lock(queue_mu_);
  queue_cv_.notify_all();  // a thread held back by the backlog goes on (its event is queued)
  queue_cv_.wait_for(lock, std::chrono::seconds(2), [&] { return reporting_.load() == 0; });
}

void EventReporter::Report(JNIEnv* jni, jthread thread, std::vector<ev::EventData> events, SuspendPolicy policy,
                          const std::function<void()>& applied) {
  if (events.empty()) return;
  const bool vm_death = std::holds_alternative<ev::VMDeath>(events.back());
  if (!EnterReport(vm_death)) return;
  // An agent thread is never suspended: as stock, its event (a ClassPrepare)
  // names no thread, and SUSPEND_EVENT_THREAD becomes SUSPEND_ALL.
  if (thread && ThreadControl::CurrentIsAgent()) {
    thread = nullptr;
    if (policy == SuspendPolicy::kEventThread) policy = SuspendPolicy::kAll;
  }
  // As stock: a set that names no thread (ClassUnload, VMDeath, an agent
  // thread's ClassPrepare) suspends all threads whatever its policy.
  const bool names_a_thread = std::any_of(events.begin(), events.end(), [](const ev::EventData& e) {
    return std::visit([](const auto& x) {
      if constexpr (requires { x.thread; }) return !x.thread.is_null();
      else return false;
    }, e);
  });
  const bool vm_start = events.size() == 1 && std::holds_alternative<ev::VMStart>(events.front());
  const uint64_t epoch = epoch_.load();
  jdwp::Event::Composite::Request composite{policy, std::move(events)};
  auto body = jdwp::EncodeBody(composite);
  auto packet = jdwp::MakeCommandPacket(next_packet_id_.fetch_add(1), jdwp::Event::Composite::kId, body);
  // SUSPEND_ALL takes the direct path from a platform thread only, and only when
  // virtual threads are not listed (ThreadControl::SuspendAllForOwnEvent).
  const bool direct_all = policy == SuspendPolicy::kAll && !vm_start && !ctx_.threads.lists_virtual_threads();
  if ((policy == SuspendPolicy::kEventThread || direct_all) && names_a_thread && thread && !applied &&
      (!direct_all || !ctx_.threads.IsVirtual(jni, thread)) && BeginDirect(epoch, direct_all)) {
    // Nothing ahead of it and the reporter held off: this thread counts its
    // own suspension (its JVMTI suspension pending, threads.h), suspends the
    // others for SUSPEND_ALL, and sends.
    std::vector<jthread> listed;
    void* parking = direct_all ? ctx_.threads.SuspendAllForOwnEvent(jni, thread, listed, SessionSlot{0})
                               : ctx_.threads.SuspendSelfForEvent(jni, thread, SessionSlot{0});
    // From here until resumed this thread is suspended: no JNI or JVMTI calls.
    outbox_.Send(std::move(packet));
    EndDirect();
    LeaveReport();
    ctx_.threads.Park(jni, parking);
    if (direct_all) ctx_.threads.AfterOwnSuspendAll(jni, listed);
    return;
  }
  auto item = std::make_unique<Item>();
  item->packet = std::move(packet);
  item->policy = policy != SuspendPolicy::kNone && !names_a_thread ? SuspendPolicy::kAll : policy;
  item->blocks_events = item->policy == SuspendPolicy::kAll && !vm_start;
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

bool EventReporter::BeginDirect(uint64_t epoch, bool blocks_events) {
  std::lock_guard lock(queue_mu_);
  // Anything queued or on its way goes first; held or blocked events wait in
  // the queue (this one after them); an event of an ended session is the
  // reporter's to drop.
  if (!queue_.empty() || in_flight_ > 0 || holding_ || blocked_ || stopping_ || !attached_ ||
      epoch != epoch_.load())
    return false;
  ++in_flight_;  // Drain (a session's end) waits for it
  direct_ = true;  // the reporter takes no item meanwhile: events keep their order
  // A SUSPEND_ALL composite: set before it is sent, as the reporter does (Run).
  if (blocks_events) blocked_ = true;
  return true;
}

void EventReporter::EndDirect() {
  std::lock_guard lock(queue_mu_);
  --in_flight_;
  direct_ = false;
  // The idle reporter is not woken for nothing: only for items queued meanwhile,
  // a Drain, or its stop.
  if (!queue_.empty() || drain_waiters_ > 0 || stopping_) queue_cv_.notify_all();
}

void EventReporter::SendAfterInvoke(JNIEnv* jni, jthread thread, std::vector<uint8_t> packet) {
  auto item = std::make_unique<Item>();
  item->packet = std::move(packet);
  item->thread = thread;  // the caller's global reference; the reporter deletes it
  item->resuspend_after_invoke = true;
  item->epoch = epoch_.load();
  EnqueueAndWait(std::move(item));
}

void EventReporter::SendInvokeReply(uint64_t epoch, std::vector<uint8_t> packet) {
  {
    std::lock_guard lock(queue_mu_);
    if (!queue_.empty() || in_flight_ > 0) {
      // An event on its way (one of the call's own, say) goes first.
      auto item = std::make_unique<Item>();
      item->packet = std::move(packet);
      item->invoke_reply = true;
      item->epoch = epoch;
      PushLocked(std::move(item));
      return;
    }
    ++in_flight_;  // Drain waits for it
  }
  // Sent outside queue_mu_ (a leaf lock); an event queued meanwhile came after the reply.
  if (epoch == epoch_.load() && attached_) outbox_.Send(std::move(packet));
  std::lock_guard lock(queue_mu_);
  --in_flight_;
  queue_cv_.notify_all();
}

void EventReporter::SuspendDeferred(JNIEnv* jni, void* token) {
  auto item = std::make_unique<Item>();
  item->deferred_token = token;
  item->epoch = epoch_.load();
  EnqueueAndWait(std::move(item));
  // Suspended now (or resumed meanwhile): no JNI or JVMTI calls until Park returns.
  ctx_.threads.Park(jni, token);
}

std::deque<std::unique_ptr<EventReporter::Item>>::iterator EventReporter::NextItemLocked() {
  if (direct_) return queue_.end();  // an event thread is sending its own (BeginDirect)
  if ((!holding_ && !blocked_) || stopping_) return queue_.begin();
  // Held: an event waits, with its suspension (as stock, its thread waits in the
  // agent unsuspended); a thread's deferred suspension and the end of an
  // invocation (whose reply stock sends at once) are no events.
  return std::find_if(queue_.begin(), queue_.end(),
                      [](const std::unique_ptr<Item>& i) {
                        return i->deferred_token || i->resuspend_after_invoke || i->invoke_reply;
                      });
}

void EventReporter::Run(JNIEnv* jni) {
  while (true) {
    std::unique_ptr<Item> item;
    {
      std::unique_lock lock(queue_mu_);
      auto next = queue_.end();
      queue_cv_.wait(lock, [&] {
        next = NextItemLocked();
        return stopping_ || next != queue_.end();
      });
      if (next == queue_.end()) return;
      item = std::move(*next);
      queue_.erase(next);
      queued_bytes_ -= std::min(item->packet.size(), queued_bytes_);
      ++in_flight_;
    }
    bool current = item->epoch == epoch_.load() && attached_;
    if (item->deferred_token) {
      ctx_.threads.ApplyDeferred(item->deferred_token);
    } else if (item->resuspend_after_invoke) {
      ctx_.threads.ResuspendAfterInvoke(jni, static_cast<jthread>(item->thread));
    } else if (current && item->policy != SuspendPolicy::kNone) {
      ctx_.threads.SuspendForEvent(jni, static_cast<jthread>(item->thread), item->policy, SessionSlot{0});
    }
    if (current && !item->packet.empty()) {
      if (item->blocks_events) {
        // Before it is sent: a resume that answers it must find the block set.
        std::lock_guard lock(queue_mu_);
        blocked_ = true;
      }
      outbox_.Send(std::move(item->packet));
    }
    {
      // Handed to the transport: no longer in flight, before its thread is let go,
      // so that the thread's next event does not find this one still on its way
      // (and queue behind it: the direct path would then be lost for good).
      std::lock_guard lock(queue_mu_);
      --in_flight_;
      queue_cv_.notify_all();
    }
    if (item->thread) jni->DeleteGlobalRef(item->thread);
    if (item->parked) ctx_.threads.EventHandled(item->parked);
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
  queue_cv_.notify_all();
}

void EventReporter::Drain(int timeout_ms) {
  std::unique_lock lock(queue_mu_);
  ++drain_waiters_;
  queue_cv_.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                     [&] { return stopping_ || (queue_.empty() && in_flight_ == 0); });
  --drain_waiters_;
}

void EventReporter::Hold() {
  std::lock_guard lock(queue_mu_);
  holding_ = true;
}

void EventReporter::Release() {
  std::lock_guard lock(queue_mu_);
  holding_ = false;
  queue_cv_.notify_all();
}

void EventReporter::UnblockAfterResume() {
  std::lock_guard lock(queue_mu_);
  // Every resume comes here: the idle reporter is woken only if events wait
  // (its wait looks at blocked_ only when the queue holds some).
  if (!blocked_) return;
  blocked_ = false;
  if (!queue_.empty()) queue_cv_.notify_all();
}

void EventReporter::BeginSession() {
  epoch_.fetch_add(1);
  attached_ = true;
  UnblockAfterResume();
}

void EventReporter::EndSession() {
  attached_ = false;
  epoch_.fetch_add(1);
}

void EventReporter::LetGo() {
  // Events queued meanwhile (held ones too) are of the old epoch: dropped,
  // suspending nothing, their threads let go.
  std::lock_guard lock(queue_mu_);
  holding_ = false;
  blocked_ = false;
  queue_cv_.notify_all();
}

}  // namespace jdwpx::backend
