// The limits that keep probes cheap for the program they run in: a CPU budget
// for all probe work in the VM, and an output rate per probe. Both are token
// buckets, refilled by the clock and spent by hits from any thread at once,
// without a lock (one compare-and-swap per spend).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>

namespace jdwpx::backend::probes {

// `rate` tokens a second, at most `burst` kept; spending may take the level
// below zero once (the cost of a hit is known only after it), after which
// spending fails until the refill brings it back above zero.
class TokenBucket {
 public:
  TokenBucket(double rate, double burst) { Reset(rate, burst); }
  void Reset(double rate, double burst);
  // Takes `tokens` when the level is above zero (false: nothing taken).
  bool TrySpend(double tokens, int64_t now_ns);
  // Takes `tokens` whatever the level (a cost already paid).
  void Charge(double tokens, int64_t now_ns);
  // Whether the level is above zero now.
  bool Available(int64_t now_ns);
  double rate() const { return rate_.load(std::memory_order_relaxed); }

 private:
  // Level and the time of the last refill in one word each; a spend that
  // loses a race tries again.
  void Refill(int64_t now_ns);
  std::atomic<double> rate_{0};   // tokens per second
  std::atomic<double> burst_{0};
  std::atomic<double> level_{0};
  std::atomic<int64_t> refilled_ns_{0};
};

// The VM's CPU budget for probe work: `ppm` millionths of one core (10000 =
// 1%), as nanoseconds of work a second, with a burst of half a second's
// allowance but at least 50 ms: a probe's first hits are slow (JNI lookups,
// cold caches: several ms on JDK 25), and hits are timed by the wall clock
// (a thread CPU clock costs a system call per read), which counts a hit that
// was preempted; neither may pause a probe that costs little once warm.
class CpuBudget {
 public:
  static constexpr int32_t kDefaultPpm = 10000;
  // 64 cores, jdwpx-probe's largest --budget. One core is no ceiling: a hit
  // is charged a guess for JVMTI's dispatch on top of its own time, so one
  // thread that does nearly nothing but hit can be charged more than a core.
  static constexpr int32_t kMaxPpm = 64'000'000;
  explicit CpuBudget(int32_t ppm = kDefaultPpm) : bucket_(0, 0) { SetPpm(ppm); }
  void SetPpm(int32_t ppm);
  int32_t ppm() const { return ppm_.load(std::memory_order_relaxed); }
  // Whether a hit may do its work now.
  bool Allows(int64_t now_ns) { return bucket_.Available(now_ns); }
  // The work a hit did, in nanoseconds.
  void Charge(int64_t cost_ns, int64_t now_ns) { bucket_.Charge(static_cast<double>(cost_ns), now_ns); }

 private:
  std::atomic<int32_t> ppm_{kDefaultPpm};
  TokenBucket bucket_;
};

inline int64_t MonotonicNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace jdwpx::backend::probes
