#include "backend/probes/probe.h"

#include <chrono>
#include <exception>

#include <fmt/format.h>

#include "backend/log.h"
#include "backend/probes/probe_heap.h"
#include "backend/probes/probes.h"
#include "backend/probes/snapshot.h"

namespace jdwpx::backend::probes {
namespace {

using jdwp::Probe::NoticeKind;
using jdwp::Probe::State;

// A probe's own work may run JDK code (an allow-listed call) that reaches
// another probe's place: that hit is skipped, not evaluated inside this one.
thread_local bool t_in_probe = false;

// What JVMTI's breakpoint dispatch costs a hit before the callback runs, which
// the callback cannot time itself; charged to the budget with each hit
// (measured on HotSpot 17: docs/probes.md).
constexpr int64_t kDispatchNs = 1000;

int64_t EpochNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

std::string ThreadName(Context& ctx, jthread thread) {
  auto info = ctx.jvmti.GetThreadInfo(thread);
  return info ? info->name : std::string();
}

}  // namespace

bool Probe::NoticeDue(std::atomic<int64_t>& last_ns, int64_t now_ns) {
  constexpr int64_t kMinute = 60'000'000'000;
  int64_t last = last_ns.load(std::memory_order_relaxed);
  if (last != 0 && now_ns - last < kMinute) return false;
  return last_ns.compare_exchange_strong(last, now_ns, std::memory_order_relaxed);
}

void ProbeAtPlace::OnHit(JNIEnv* jni, jthread thread, jmethodID, jlocation) {
  if (t_in_probe || probe_->state.load(std::memory_order_relaxed) != State::kArmed) return;
  const int64_t start = MonotonicNs();
  CpuBudget& budget = owner_.budget();
  if (!budget.Allows(start)) {
    probe_->suppressed.fetch_add(1, std::memory_order_relaxed);
    owner_.TakeOut(probe_, State::kPaused);
    return;
  }
  t_in_probe = true;
  try {
    const int64_t hit = probe_->hits.fetch_add(1, std::memory_order_relaxed) + 1;
    if (CallerSample::Due(hit)) {
      if (auto caller = owner_.ctx().jvmti.GetFrameLocation(thread, 1)) callers_.Add(caller->first);
    }
    // One heap for the condition and the message: the frame's locals are
    // read once a hit (one stack walk, probe_heap.h), whoever asks first.
    std::optional<JniHeap> heap;
    if (ConditionHolds(jni, thread, heap, start)) {
      const int64_t n = probe_->matched.fetch_add(1, std::memory_order_relaxed) + 1;
      const int32_t max = probe_->settings().max_hits;
      if (max > 0 && n > max) {
        // Other threads' hits that raced the last one: not counted, not sent.
        probe_->matched.fetch_sub(1, std::memory_order_relaxed);
      } else {
        SendOutput(jni, thread, heap, start);
        if (max > 0 && n == max) owner_.TakeOut(probe_, State::kDone);
      }
    }
  } catch (const std::exception& e) {
    // Nothing reaches the program: the hit is lost and said so in the log.
    Log().warn("probe {}: a hit failed: {}", probe_->id(), e.what());
  }
  t_in_probe = false;
  const int64_t end = MonotonicNs();
  if (end - start > 500'000) Log().debug("probe {}: a hit took {} us", probe_->id(), (end - start) / 1000);
  budget.Charge(end - start + kDispatchNs, end);
}

JniHeap& ProbeAtPlace::HeapOf(JNIEnv* jni, jthread thread, std::optional<JniHeap>& heap) {
  if (!heap) heap.emplace(owner_.ctx().jvmti, jni, thread, *scope_);
  return *heap;
}

bool ProbeAtPlace::ConditionHolds(JNIEnv* jni, jthread thread, std::optional<JniHeap>& heap, int64_t now_ns) {
  if (!condition_) return true;
  auto value = condition_->Evaluate(HeapOf(jni, thread, heap));
  if (value) return value->prim.z;
  if (probe_->NoticeDue(probe_->last_error_notice_ns, now_ns))
    owner_.Notice(*probe_, NoticeKind::kEvaluationError,
                  fmt::format("{}: `{}`: {}", location_text_, probe_->settings().condition, value.error()));
  return false;
}

void ProbeAtPlace::SendOutput(JNIEnv* jni, jthread thread, std::optional<JniHeap>& heap, int64_t now_ns) {
  // A client that reads nothing (stalled) never holds this thread back: while
  // its connection is backlogged the output is dropped, and said so once a minute.
  if (probe_->backlogged.load(std::memory_order_relaxed) && owner_.StillBacklogged(*probe_)) {
    probe_->suppressed.fetch_add(1, std::memory_order_relaxed);
    if (probe_->NoticeDue(probe_->last_rate_notice_ns, now_ns))
      owner_.Notice(*probe_, NoticeKind::kRateLimited,
                    "the client reads too slowly: lines dropped while its connection is backlogged");
    return;
  }
  if (!probe_->output().TrySpend(1, now_ns)) {
    probe_->suppressed.fetch_add(1, std::memory_order_relaxed);
    if (probe_->NoticeDue(probe_->last_rate_notice_ns, now_ns))
      owner_.Notice(*probe_, NoticeKind::kRateLimited,
                    fmt::format("more than {} lines a second: lines dropped (raise with --rate)",
                                probe_->settings().rate));
    return;
  }
  const ProbeSettings& settings = probe_->settings();
  if (settings.kind == jdwp::Probe::Kind::kLog) {
    jdwp::Probe::Log::Request log;
    log.probe_id = probe_->id();
    log.time_ns = EpochNs();
    log.thread = ThreadName(owner_.ctx(), thread);
    log.location = location_text_;
    std::vector<std::string> errors;
    if (message_) log.message = message_->Format(HeapOf(jni, thread, heap), &errors);
    if (!errors.empty() && probe_->NoticeDue(probe_->last_error_notice_ns, now_ns))
      owner_.Notice(*probe_, NoticeKind::kEvaluationError, fmt::format("{}: {}", location_text_, errors.front()));
    owner_.Send(*probe_, jdwp::Probe::Log::kId, jdwp::EncodeBody(log));
    return;
  }
  jdwp::Probe::Snapshot::Request snapshot;
  snapshot.probe_id = probe_->id();
  snapshot.time_ns = EpochNs();
  snapshot.thread = ThreadName(owner_.ctx(), thread);
  snapshot.location = location_text_;
  SnapshotLimits limits;
  limits.max_frames = settings.max_frames;
  limits.max_depth = settings.max_depth;
  snapshot.frames = CaptureSnapshot(owner_.ctx().jvmti, jni, thread, limits);
  owner_.Send(*probe_, jdwp::Probe::Snapshot::kId, jdwp::EncodeBody(snapshot));
}

}  // namespace jdwpx::backend::probes
