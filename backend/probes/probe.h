// One probe: what the client asked for, its counters and limits (Probe), and
// its hook at each place it is set (ProbeAtPlace), which does a hit's work in
// the hitting thread: the budget, the condition, the message or the snapshot,
// the output rate, the packet to the connection that set it.
//
// A hit never suspends, never waits on the command thread and never lets an
// exception reach the program. What it cannot do in the callback (taking a
// paused or finished probe out of the VM) it posts to the command thread.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "backend/context.h"
#include "backend/events/outbox.h"
#include "backend/events/probe_places.h"
#include "backend/probes/budget.h"
#include "backend/probes/caller_sample.h"
#include "backend/probes/probe_heap.h"
#include "backend/probes/probe_location.h"
#include "backend/probes/probe_scope.h"
#include "expr/expr.h"
#include "jdwp/commands/probe.h"

namespace jdwpx::backend::probes {

class Probes;

struct ProbeSettings {
  jdwp::Probe::Kind kind = jdwp::Probe::Kind::kLog;
  LocationSpec location;
  std::string message_template;
  std::string condition;
  int32_t max_hits = 0;  // 0: no limit
  int32_t max_frames = 20;
  int32_t max_depth = 3;
  int32_t rate = 100;  // output lines a second
  int32_t budget_ppm = CpuBudget::kDefaultPpm;
};

class Probe {
 public:
  Probe(int32_t id, uint64_t connection, ProbeSettings settings)
      : id_(id), connection_(connection), settings_(std::move(settings)),
        output_(settings_.rate, settings_.rate) {}
  int32_t id() const { return id_; }
  uint64_t connection() const { return connection_; }
  const ProbeSettings& settings() const { return settings_; }

  std::atomic<jdwp::Probe::State> state{jdwp::Probe::State::kDeferred};
  std::atomic<int64_t> hits{0};        // evaluated
  std::atomic<int64_t> matched{0};     // the condition held
  std::atomic<int64_t> suppressed{0};  // dropped by the budget, the output rate or a backlog
  // Its connection was backlogged at its last send (a client that reads
  // nothing): its lines are dropped until the connection has room again.
  // Set by any send, notices too (Probes::Send takes the probe as const).
  mutable std::atomic<bool> backlogged{false};
  std::atomic<int32_t> places{0};
  TokenBucket& output() { return output_; }
  // Notices of one kind at most once a minute: answers whether one may go now.
  bool NoticeDue(std::atomic<int64_t>& last_ns, int64_t now_ns);
  std::atomic<int64_t> last_error_notice_ns{0};
  std::atomic<int64_t> last_rate_notice_ns{0};

 private:
  const int32_t id_;
  const uint64_t connection_;
  const ProbeSettings settings_;
  TokenBucket output_;
};

// The probe at one place, with its condition and template compiled against
// that place's names (locals differ from method to method).
class ProbeAtPlace : public ProbeHook {
 public:
  ProbeAtPlace(Probes& owner, std::shared_ptr<Probe> probe, Place place, std::shared_ptr<JvmtiScope> scope,
               std::optional<expr::Expression> condition, std::optional<expr::Template> message)
      : owner_(owner), probe_(std::move(probe)), place_(place), scope_(std::move(scope)),
        condition_(std::move(condition)), message_(std::move(message)) {}
  void OnHit(JNIEnv* jni, jthread thread, jmethodID method, jlocation location) override;
  const Place& place() const { return place_; }
  // "pkg.Class.method:line", as output names the place.
  void set_location_text(std::string text) { location_text_ = std::move(text); }
  const std::shared_ptr<Probe>& probe() const { return probe_; }
  // Methods seen calling this place's method (caller_sample.h).
  std::vector<jmethodID> Callers() const { return callers_.Callers(); }

 private:
  // Whether the condition holds (an error: a notice, and no output).
  // The hit's reads (made on first use, shared by the condition and the message).
  JniHeap& HeapOf(JNIEnv* jni, jthread thread, std::optional<JniHeap>& heap);
  bool ConditionHolds(JNIEnv* jni, jthread thread, std::optional<JniHeap>& heap, int64_t now_ns);
  void SendOutput(JNIEnv* jni, jthread thread, std::optional<JniHeap>& heap, int64_t now_ns);

  Probes& owner_;
  std::shared_ptr<Probe> probe_;
  Place place_;
  std::shared_ptr<JvmtiScope> scope_;
  std::optional<expr::Expression> condition_;
  std::optional<expr::Template> message_;
  std::string location_text_;
  CallerSample callers_;
};

}  // namespace jdwpx::backend::probes
