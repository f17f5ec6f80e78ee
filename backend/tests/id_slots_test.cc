#include "backend/id_slots.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>

namespace jdwpx::backend {
namespace {

using Slots = IdSlots<uintptr_t>;  // any non-zero value stands for a reference

TEST(IdSlots, FindsWhatWasInsertedAndNothingElse) {
  Slots t;
  t.Insert(1, 11, 7).refs = 1;
  t.Insert(2, 12, 7).refs = 5;
  t.Insert(Slots::kChunkSize * 3 + 7, 13, 9);
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
  for (uint64_t id = 1; id <= 2 * Slots::kChunkSize; ++id) t.Insert(id, id, static_cast<uint32_t>(id));
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
  for (uint64_t id = 1; id <= 3000; id += 7) t.Insert(id, id * 2, static_cast<uint32_t>(id % 5));
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
  EXPECT_EQ(t.index().capacity(), 0u);
}

// Objects stand for themselves: ref r is the object r, its hash is given.
TEST(IdSlots, FindsAnObjectByHashAndIdentity) {
  Slots t;
  t.Insert(1, 100, 42);
  t.Insert(2, 200, 42);  // same hash, another object
  t.Insert(3, 300, 43);
  auto find = [&](uintptr_t object, uint32_t hash) {
    return t.FindObject(hash, [&](uintptr_t ref) { return ref == object; });
  };
  EXPECT_EQ(find(100, 42), 1u);
  EXPECT_EQ(find(200, 42), 2u);
  EXPECT_EQ(find(300, 43), 3u);
  EXPECT_EQ(find(300, 42), std::nullopt);  // a hash never matches another object's
  EXPECT_EQ(find(400, 44), std::nullopt);
  t.Erase(1);
  EXPECT_EQ(find(100, 42), std::nullopt);
  EXPECT_EQ(find(200, 42), 2u);
  EXPECT_EQ(t.Find(1), nullptr);
}

TEST(IdSlots, TheIndexFollowsAMillionIdsAndTheirRelease) {
  Slots t;
  constexpr uint64_t kIds = 1'000'000;
  // A thousand IDs share one hash (identity hashes are 31 random bits: a
  // million objects share a few dozen); the rest spread.
  auto hash = [](uint64_t id) { return id % 1000 == 0 ? 5u : static_cast<uint32_t>(id * 2654435761u); };
  for (uint64_t id = 1; id <= kIds; ++id) t.Insert(id, id, hash(id));
  EXPECT_EQ(t.index().size(), kIds);
  EXPECT_LE(t.index().capacity(), 4 * kIds);  // 4 bytes an entry: at most 16 MB for a million
  for (uint64_t id = 1; id <= kIds; id += 997) {
    if (id % 1000 == 0) continue;  // the equal hashes: looked up below
    EXPECT_EQ(t.FindObject(hash(id), [&](uintptr_t ref) { return ref == id; }), id);
  }
  for (uint64_t id : {1000ull, 3000ull, 1'000'000ull}) {
    EXPECT_EQ(t.FindObject(5, [&](uintptr_t ref) { return ref == id; }), id);
  }
  // Every other ID released: the rest are still found, the released are not.
  for (uint64_t id = 1; id <= kIds; id += 2) t.Erase(id);
  for (uint64_t id = 1; id <= kIds; id += 1009) {
    if (id % 1000 == 0) continue;
    auto found = t.FindObject(hash(id), [&](uintptr_t ref) { return ref == id; });
    if (id % 2 == 1) {
      EXPECT_EQ(found, std::nullopt) << id;
    } else {
      EXPECT_EQ(found, id) << id;
    }
  }
  // All released: the index shrinks away, the chunks are freed.
  for (uint64_t id = 2; id <= kIds; id += 2) t.Erase(id);
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.chunks(), 0u);
  EXPECT_EQ(t.index().capacity(), 0u);
}

TEST(IdSlots, IdsFourBillionApartMoveTheIndexBase) {
  Slots t;
  auto find = [&](uintptr_t object, uint32_t hash) {
    return t.FindObject(hash, [&](uintptr_t ref) { return ref == object; });
  };
  const uint64_t old = (uint64_t{1} << 31) + 10;
  t.Insert(1, 1, 7);
  t.Insert(old, 2, 8);
  t.Erase(1);
  // Four billion IDs after the first (released meanwhile): the index's base
  // moves up to the oldest live ID, which is still found.
  const uint64_t late = (uint64_t{1} << 32) + 3;
  t.Insert(late, 3, 7);
  EXPECT_EQ(find(2, 8), old);
  EXPECT_EQ(find(3, 7), late);
  // Four billion past `old`: the base moves to 2^31 IDs below the new one;
  // older IDs still resolve, but are no longer found from their objects.
  const uint64_t later = old + (uint64_t{1} << 32);
  t.Insert(later, 4, 9);
  EXPECT_EQ(find(4, 9), later);
  EXPECT_EQ(find(2, 8), std::nullopt);
  EXPECT_EQ(find(3, 7), std::nullopt);
  ASSERT_NE(t.Find(old), nullptr);
  EXPECT_EQ(t.Find(old)->ref, 2u);
  ASSERT_NE(t.Find(late), nullptr);
  t.Erase(old);  // not listed: nothing to unlist
  t.Erase(late);
  EXPECT_EQ(find(4, 9), later);
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.index().size(), 1u);
}

}  // namespace
}  // namespace jdwpx::backend
