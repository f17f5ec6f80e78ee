// The probes' limits (backend/probes/budget.h): token buckets refilled by the
// clock, the CPU budget's rate and burst. Times are given, not read.
#include "backend/probes/budget.h"

#include <gtest/gtest.h>

namespace jdwpx::backend::probes {
namespace {

constexpr int64_t kSecond = 1'000'000'000;

TEST(TokenBucket, StartsFullAndRefusesOnceSpent) {
  TokenBucket lines(100, 100);  // 100 a second, a burst of 100
  const int64_t t0 = kSecond;
  int sent = 0;
  while (lines.TrySpend(1, t0)) ++sent;
  EXPECT_EQ(sent, 100);
  EXPECT_FALSE(lines.TrySpend(1, t0));
}

TEST(TokenBucket, RefillsAtItsRateUpToTheBurst) {
  TokenBucket lines(100, 100);
  int64_t t = kSecond;
  while (lines.TrySpend(1, t)) {
  }
  t += kSecond / 10;  // 10 more
  int sent = 0;
  while (lines.TrySpend(1, t)) ++sent;
  EXPECT_EQ(sent, 10);
  t += 10 * kSecond;  // never more than the burst
  sent = 0;
  while (lines.TrySpend(1, t)) ++sent;
  EXPECT_EQ(sent, 100);
}

TEST(TokenBucket, ChargeMayGoBelowZeroAndThenWaitsForTheRefill) {
  TokenBucket ns(1000, 1000);
  const int64_t t0 = kSecond;
  ns.Charge(3000, t0);  // a hit that cost more than was left
  EXPECT_FALSE(ns.Available(t0));
  EXPECT_FALSE(ns.Available(t0 + kSecond));      // -2000 + 1000
  EXPECT_FALSE(ns.Available(t0 + 2 * kSecond));  // 0 is not above zero
  EXPECT_TRUE(ns.Available(t0 + 3 * kSecond));
}

TEST(CpuBudget, DefaultIsOnePercentOfACoreWithA50msBurst) {
  CpuBudget budget;
  EXPECT_EQ(budget.ppm(), 10000);
  const int64_t t0 = kSecond;
  budget.Charge(49'000'000, t0);  // 49 ms of work at once: within the burst
  EXPECT_TRUE(budget.Allows(t0));
  budget.Charge(2'000'000, t0);
  EXPECT_FALSE(budget.Allows(t0));
  // 1% of a second is 10 ms of work: after a second the level is above zero again.
  EXPECT_TRUE(budget.Allows(t0 + kSecond));
}

TEST(CpuBudget, ALargerBudgetRefillsFaster) {
  CpuBudget budget(500'000);  // half a core: 500 ms a second, a 250 ms burst... at least 50 ms
  const int64_t t0 = kSecond;
  budget.Charge(300'000'000, t0);
  EXPECT_FALSE(budget.Allows(t0));
  EXPECT_TRUE(budget.Allows(t0 + kSecond / 4));
}

}  // namespace
}  // namespace jdwpx::backend::probes
