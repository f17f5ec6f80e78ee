// The callers a probe samples (backend/probes/caller_sample.h): which hits
// sample, each method kept once, at most kMaxCallers.
#include "backend/probes/caller_sample.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace jdwpx::backend::probes {
namespace {

jmethodID Method(uintptr_t n) { return reinterpret_cast<jmethodID>(n * 16); }

TEST(CallerSample, HitsOneTwoFourEightAndSoOnSample) {
  int due = 0;
  for (int64_t n = 0; n <= 1024; ++n) due += CallerSample::Due(n) ? 1 : 0;
  EXPECT_EQ(due, 11);  // 1, 2, 4, ... 1024
  EXPECT_TRUE(CallerSample::Due(1));
  EXPECT_TRUE(CallerSample::Due(int64_t{1} << 40));
  EXPECT_FALSE(CallerSample::Due(3));
  EXPECT_FALSE(CallerSample::Due(0));
}

TEST(CallerSample, KeepsEachCallerOnceAndNoNull) {
  CallerSample sample;
  sample.Add(Method(1));
  sample.Add(nullptr);
  sample.Add(Method(2));
  sample.Add(Method(1));
  EXPECT_EQ(sample.Callers(), (std::vector<jmethodID>{Method(1), Method(2)}));
}

TEST(CallerSample, KeepsTheFirstEightCallers) {
  CallerSample sample;
  for (uintptr_t n = 1; n <= 20; ++n) sample.Add(Method(n));
  std::vector<jmethodID> first;
  for (uintptr_t n = 1; n <= CallerSample::kMaxCallers; ++n) first.push_back(Method(n));
  EXPECT_EQ(sample.Callers(), first);
}

}  // namespace
}  // namespace jdwpx::backend::probes
