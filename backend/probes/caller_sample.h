// The methods seen calling a probed method. While a probe's breakpoint is set,
// HotSpot compiles no call site that would inline the probed method (a method
// with a breakpoint cannot be parsed), and that code outlives the breakpoint:
// a hot loop around a 1 ns call ran 4 ns an iteration after its probe had
// been paused (docs/performance.md). Whoever takes the probe out has these
// callers' compiled code discarded (EventRequests::DiscardCompiledCode), so
// that the loop is compiled again as if no probe had been there.
//
// A hit samples its caller at hit 1, 2, 4, 8... of the probe (a JVMTI
// GetFrameLocation of its own thread each), so the cost stays out of the
// steady state and callers that become hot later are still seen.
#pragma once

#include <jni.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

namespace jdwpx::backend::probes {

class CallerSample {
 public:
  static constexpr size_t kMaxCallers = 8;

  // Whether hit number `n` (1-based) of the probe samples its caller.
  static bool Due(int64_t n) { return n > 0 && (n & (n - 1)) == 0; }

  // Keeps `caller` unless it is kept already or the sample is full (any thread).
  void Add(jmethodID caller) {
    if (!caller) return;
    for (auto& slot : callers_) {
      jmethodID seen = slot.load(std::memory_order_relaxed);
      if (seen == caller) return;
      if (!seen && slot.compare_exchange_strong(seen, caller, std::memory_order_relaxed)) return;
      if (seen == caller) return;  // another hit stored it meanwhile
    }
  }

  std::vector<jmethodID> Callers() const {
    std::vector<jmethodID> out;
    for (const auto& slot : callers_)
      if (jmethodID m = slot.load(std::memory_order_relaxed)) out.push_back(m);
    return out;
  }

 private:
  std::array<std::atomic<jmethodID>, kMaxCallers> callers_{};
};

}  // namespace jdwpx::backend::probes
