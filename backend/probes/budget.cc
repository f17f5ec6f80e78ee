#include "backend/probes/budget.h"

#include <algorithm>

namespace jdwpx::backend::probes {

void TokenBucket::Reset(double rate, double burst) {
  rate_ = rate;
  burst_ = burst;
  level_ = burst;
  refilled_ns_ = 0;
}

void TokenBucket::Refill(int64_t now_ns) {
  int64_t last = refilled_ns_.load(std::memory_order_relaxed);
  if (last == 0) {
    // The first use starts the clock with a full bucket.
    refilled_ns_.compare_exchange_strong(last, now_ns, std::memory_order_relaxed);
    return;
  }
  if (now_ns <= last) return;
  if (!refilled_ns_.compare_exchange_strong(last, now_ns, std::memory_order_relaxed)) return;  // another thread refills
  const double add = static_cast<double>(now_ns - last) * 1e-9 * rate_.load(std::memory_order_relaxed);
  const double burst = burst_.load(std::memory_order_relaxed);
  double level = level_.load(std::memory_order_relaxed);
  while (!level_.compare_exchange_weak(level, std::min(burst, level + add), std::memory_order_relaxed)) {
  }
}

bool TokenBucket::TrySpend(double tokens, int64_t now_ns) {
  Refill(now_ns);
  double level = level_.load(std::memory_order_relaxed);
  do {
    if (level <= 0) return false;
  } while (!level_.compare_exchange_weak(level, level - tokens, std::memory_order_relaxed));
  return true;
}

void TokenBucket::Charge(double tokens, int64_t now_ns) {
  Refill(now_ns);
  double level = level_.load(std::memory_order_relaxed);
  while (!level_.compare_exchange_weak(level, level - tokens, std::memory_order_relaxed)) {
  }
}

bool TokenBucket::Available(int64_t now_ns) {
  Refill(now_ns);
  return level_.load(std::memory_order_relaxed) > 0;
}

void CpuBudget::SetPpm(int32_t ppm) {
  ppm = std::max<int32_t>(ppm, 1);
  ppm_ = ppm;
  const double ns_per_second = 1e9 * static_cast<double>(ppm) / 1e6;
  bucket_.Reset(ns_per_second, std::max(50e6, ns_per_second / 2));
}

}  // namespace jdwpx::backend::probes
