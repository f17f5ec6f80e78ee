#include "backend/id_slots.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>

namespace jdwpx::backend {
namespace {

using Slots = IdSlots<uintptr_t>;  // any non-zero value stands for a reference

TEST(IdSlots, FindsWhatWasInsertedAndNothingElse) {
  Slots t;
  t.Insert(1, 11).refs = 1;
  t.Insert(2, 12).refs = 5;
  t.Insert(Slots::kChunkSize * 3 + 7, 13);
  ASSERT_NE(t.Find(1), nullptr);
  EXPECT_EQ(t.Find(1)->ref, 11u);
  EXPECT_EQ(t.Find(1)->refs, 1);
  EXPECT_EQ(t.Find(2)->refs, 5);
  EXPECT_EQ(t.Find(Slots::kChunkSize * 3 + 7)->ref, 13u);
  EXPECT_EQ(t.Find(3), nullptr);
  EXPECT_EQ(t.Find(0), nullptr);
  EXPECT_EQ(t.Find(Slots::kChunkSize * 2), nullptr);
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.chunks(), 2u);
}

TEST(IdSlots, AChunkIsFreedWithItsLastId) {
  Slots t;
  for (uint64_t id = 1; id <= 2 * Slots::kChunkSize; ++id) t.Insert(id, id);
  EXPECT_EQ(t.chunks(), 3u);  // IDs 1..2048 span chunks 0, 1 and 2
  for (uint64_t id = 1; id < Slots::kChunkSize; ++id) t.Erase(id);
  EXPECT_EQ(t.chunks(), 2u);
  t.Erase(1);  // twice: nothing
  t.Erase(5 * Slots::kChunkSize);  // never there: nothing
  EXPECT_EQ(t.size(), Slots::kChunkSize + 1);
  EXPECT_EQ(t.Find(Slots::kChunkSize)->ref, Slots::kChunkSize);
}

TEST(IdSlots, ForEachVisitsEveryLiveIdOnce) {
  Slots t;
  for (uint64_t id = 1; id <= 3000; id += 7) t.Insert(id, id * 2);
  t.Erase(8);
  std::map<uint64_t, uintptr_t> seen;
  t.ForEach([&](uint64_t id, Slots::Slot& s) { EXPECT_TRUE(seen.emplace(id, s.ref).second); });
  EXPECT_EQ(seen.size(), t.size());
  EXPECT_FALSE(seen.contains(8));
  for (auto [id, ref] : seen) EXPECT_EQ(ref, id * 2);
  t.Clear();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.chunks(), 0u);
  EXPECT_EQ(t.Find(1), nullptr);
}

}  // namespace
}  // namespace jdwpx::backend
