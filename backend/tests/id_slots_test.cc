#include "backend/ids/id_slots.h"

#include <gtest/gtest.h>

#include <climits>
#include <cstdint>
#include <functional>
#include <iterator>
#include <map>
#include <optional>

namespace jdwpx::backend {
namespace {

// Any non-zero value stands for a reference; its object's hash is looked up
// in `hashes` (set by each test), and is gone if not there.
struct TestHash {
  std::function<std::optional<uint32_t>(uintptr_t)> of;
  std::optional<uint32_t> operator()(uintptr_t ref) const { return of(ref); }
};
using Slots = IdSlots<uintptr_t, TestHash>;

// A table whose objects' hashes are given as they are inserted.
struct Table {
  std::map<uintptr_t, uint32_t> hashes;
  size_t hash_calls = 0;
  Slots slots{TestHash{[this](uintptr_t ref) -> std::optional<uint32_t> {
    ++hash_calls;
    auto it = hashes.find(ref);
    if (it == hashes.end()) return std::nullopt;
    return it->second;
  }}};
  void Insert(uint64_t id, uintptr_t ref, uint32_t hash, int32_t count) {
    hashes[ref] = hash;
    slots.Insert(id, ref, hash, count);
  }
};

TEST(IdSlots, FindsWhatWasInsertedAndNothingElse) {
  Table table;
  Slots& t = table.slots;
  table.Insert(1, 11, 7, 1);
  table.Insert(2, 12, 7, 5);
  table.Insert(Slots::kChunkSize * 3 + 7, 13, 9, 0);
  ASSERT_TRUE(t.Contains(1));
  EXPECT_EQ(t.RefOf(1), 11u);
  EXPECT_EQ(t.Count(1), 1);
  EXPECT_EQ(t.Count(2), 5);
  EXPECT_EQ(t.RefOf(Slots::kChunkSize * 3 + 7), 13u);
  EXPECT_EQ(t.Count(Slots::kChunkSize * 3 + 7), 0);
  EXPECT_FALSE(t.Contains(3));
  EXPECT_FALSE(t.Contains(0));
  EXPECT_FALSE(t.Contains(Slots::kChunkSize * 2));
  EXPECT_EQ(t.size(), 3u);
  EXPECT_EQ(t.chunks(), 2u);
}

// References near their chunk's first (in 8-byte steps, as the VM's handles
// are) take 4 bytes; the others, and those too far, are kept whole aside.
TEST(IdSlots, KeepsEveryReferenceNearOrFar) {
  Table table;
  Slots& t = table.slots;
  const uintptr_t base = uintptr_t{0x7f12'3456'7000} | 1;  // a tagged handle
  const uintptr_t refs[] = {
      base,
      base + 8,
      base - 8 * 1000,
      base + uintptr_t{8} * INT32_MAX,        // the farthest coded
      base + uintptr_t{8} * INT32_MAX + 8,    // too far up
      base - uintptr_t{8} * (uint64_t{1} << 31) + 16,  // the farthest coded down
      base - uintptr_t{8} * (uint64_t{1} << 31),       // too far down
      base + 3,                               // not in 8-byte steps
      1,                                      // another end of memory
  };
  uint64_t id = 1;
  for (uintptr_t ref : refs) {
    table.Insert(id, ref, static_cast<uint32_t>(id), 1);
    ++id;
  }
  for (uint64_t listed = 1; listed < id; ++listed) EXPECT_EQ(t.RefOf(listed), refs[listed - 1]) << listed;
  EXPECT_EQ(t.far_refs(), 4u);
  EXPECT_EQ(t.wide_chunks(), 1u);
  std::map<uint64_t, uintptr_t> seen;
  t.ForEach([&](uint64_t listed, uintptr_t ref) { seen.emplace(listed, ref); });
  EXPECT_EQ(seen.size(), std::size(refs));
  for (uint64_t listed = 1; listed < id; ++listed) t.Erase(listed);
  EXPECT_EQ(t.far_refs(), 0u);
  EXPECT_EQ(t.size(), 0u);
}

// A chunk's distances take 16 bits until one does not fit; then all of the
// chunk's take 32, and every reference is still what was inserted.
TEST(IdSlots, AChunkWidensForAFarReference) {
  Table table;
  Slots& t = table.slots;
  const uintptr_t base = uintptr_t{0x5555'0000'0000} | 1;
  const uint64_t first = Slots::kChunkSize * 7;
  std::map<uint64_t, uintptr_t> refs;
  uint64_t id = first;
  for (int64_t steps : {0, 1, -1, 32767, -32766, 5, 1000, -1000}) refs[id++] = base + 8 * steps;
  for (auto [listed, ref] : refs) table.Insert(listed, ref, static_cast<uint32_t>(listed), 1);
  EXPECT_EQ(t.wide_chunks(), 0u);
  t.Erase(first + 2);
  refs.erase(first + 2);
  for (int64_t steps : {-32767, 32768, -5}) {
    refs[id] = base + 8 * steps;
    table.Insert(id, refs[id], static_cast<uint32_t>(id), 1);
    ++id;
  }
  EXPECT_EQ(t.wide_chunks(), 1u);
  EXPECT_EQ(t.far_refs(), 0u);
  for (auto [listed, ref] : refs) {
    ASSERT_TRUE(t.Contains(listed)) << listed;
    EXPECT_EQ(t.RefOf(listed), ref) << listed;
    EXPECT_EQ(t.FindObject(static_cast<uint32_t>(listed), [&](uintptr_t r) { return r == ref; }), listed);
  }
  EXPECT_FALSE(t.Contains(first + 2));
  // The next chunk starts narrow again.
  table.Insert(first + Slots::kChunkSize, base + 8 * 40000, 1, 1);
  EXPECT_EQ(t.wide_chunks(), 1u);
  EXPECT_EQ(t.RefOf(first + Slots::kChunkSize), base + 8 * 40000);
}

// Counts take 16 bits; larger ones (and negative ones) are kept whole aside,
// up to the 32-bit count the debugger sees.
TEST(IdSlots, KeepsEveryCount) {
  Table table;
  Slots& t = table.slots;
  table.Insert(1, 8, 1, 0);
  table.Insert(2, 16, 2, 1);
  for (int32_t count : {65534, 65535, 65536, INT32_MAX, -1, 0, 7, INT32_MIN}) {
    t.SetCount(1, count);
    EXPECT_EQ(t.Count(1), count);
    EXPECT_EQ(t.Count(2), 1);
  }
  t.SetCount(2, 100000);
  EXPECT_EQ(t.big_counts(), 2u);
  t.SetCount(1, 3);
  EXPECT_EQ(t.big_counts(), 1u);
  t.Erase(2);
  EXPECT_EQ(t.big_counts(), 0u);
  table.Insert(3, 24, 3, INT32_MAX);
  EXPECT_EQ(t.Count(3), INT32_MAX);
  t.Clear();
  EXPECT_EQ(t.big_counts(), 0u);
}

TEST(IdSlots, AChunkIsFreedWithItsLastId) {
  Table table;
  Slots& t = table.slots;
  for (uint64_t id = 1; id <= 2 * Slots::kChunkSize; ++id) table.Insert(id, id * 8, static_cast<uint32_t>(id), 1);
  EXPECT_EQ(t.chunks(), 3u);  // IDs 1..2048 span chunks 0, 1 and 2
  for (uint64_t id = 1; id < Slots::kChunkSize; ++id) t.Erase(id);
  EXPECT_EQ(t.chunks(), 2u);
  t.Erase(1);  // twice: nothing
  t.Erase(5 * Slots::kChunkSize);  // never there: nothing
  EXPECT_EQ(t.size(), Slots::kChunkSize + 1);
  EXPECT_EQ(t.RefOf(Slots::kChunkSize), Slots::kChunkSize * 8);
}

TEST(IdSlots, ForEachVisitsEveryLiveIdOnce) {
  Table table;
  Slots& t = table.slots;
  for (uint64_t id = 1; id <= 3000; id += 7) table.Insert(id, id * 2, static_cast<uint32_t>(id % 5), 1);
  t.Erase(8);
  std::map<uint64_t, uintptr_t> seen;
  t.ForEach([&](uint64_t id, uintptr_t ref) { EXPECT_TRUE(seen.emplace(id, ref).second); });
  EXPECT_EQ(seen.size(), t.size());
  EXPECT_FALSE(seen.contains(8));
  for (auto [id, ref] : seen) EXPECT_EQ(ref, id * 2);
  t.Clear();
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.chunks(), 0u);
  EXPECT_FALSE(t.Contains(1));
  EXPECT_EQ(t.index().capacity(), 0u);
  EXPECT_EQ(t.far_refs(), 0u);
}

// Objects stand for themselves: ref r is the object r, its hash is given.
TEST(IdSlots, FindsAnObjectByHashAndIdentity) {
  Table table;
  Slots& t = table.slots;
  table.Insert(1, 100, 42, 1);
  table.Insert(2, 200, 42, 1);  // same hash, another object
  table.Insert(3, 300, 43, 1);
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
  EXPECT_FALSE(t.Contains(1));
}

TEST(IdSlots, TheIndexFollowsAMillionIdsAndTheirRelease) {
  constexpr uint64_t kIds = 1'000'000;
  // A thousand IDs share one hash (identity hashes are 31 random bits: a
  // million objects share a few dozen); the rest spread.
  auto hash = [](uint64_t id) { return id % 1000 == 0 ? 5u : static_cast<uint32_t>(id * 2654435761u); };
  Slots t{TestHash{[&](uintptr_t ref) -> std::optional<uint32_t> { return hash(ref); }}};
  for (uint64_t id = 1; id <= kIds; ++id) t.Insert(id, id, hash(id), 1);
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

// IDs 1 to `ids`, the object of ID n being n * 8 with hash n % 50: long runs
// of equal hashes in the index.
void InsertRuns(Table& table, uint64_t ids) {
  for (uint64_t id = 1; id <= ids; ++id) table.Insert(id, id * 8, static_cast<uint32_t>(id % 50), 1);
}
std::optional<uint64_t> FindInRuns(Slots& t, uint64_t id) {
  return t.FindObject(static_cast<uint32_t>(id % 50), [&](uintptr_t ref) { return ref == id * 8; });
}

// A collected object's hash is no longer known: its entry stays where it is
// until the index is relisted, and the objects listed after it in its run
// are still found.
TEST(IdSlots, EntriesOfCollectedObjectsAreDroppedOnRebuild) {
  Table table;
  Slots& t = table.slots;
  auto find = [&](uint64_t id) { return FindInRuns(t, id); };
  constexpr uint64_t kIds = 30000;
  InsertRuns(table, kIds);
  // Every third object collected (its ID still held), every fifth ID released.
  for (uint64_t id = 3; id <= kIds; id += 3) table.hashes.erase(id * 8);
  for (uint64_t id = 5; id <= kIds; id += 5) t.Erase(id);
  for (uint64_t id = 1; id <= kIds; ++id) {
    if (id % 5 == 0) {
      EXPECT_EQ(find(id), std::nullopt) << id;
    } else if (id % 3 != 0) {
      EXPECT_EQ(find(id), id) << id;
    }
    EXPECT_EQ(t.Contains(id), id % 5 != 0) << id;
  }
  // Released IDs stay listed until the index is relisted.
  EXPECT_EQ(t.index().size(), kIds);
  // All collected IDs released, then the live ones of odd number: the
  // entries left behind come to outnumber the live IDs, and the index drops
  // every gone entry.
  for (uint64_t id = 3; id <= kIds; id += 3) t.Erase(id);
  for (uint64_t id = 1; id <= kIds; id += 2) t.Erase(id);
  EXPECT_LT(t.index().size(), kIds / 2);
  EXPECT_LE(t.index().size(), 2 * t.size() + IdIndex::kMinCapacity);
  for (uint64_t id = 2; id <= kIds; id += 2) {
    if (id % 3 != 0 && id % 5 != 0) {
      EXPECT_EQ(find(id), id) << id;
    }
  }
  for (uint64_t id = 2; id <= kIds; id += 2) t.Erase(id);
  EXPECT_EQ(t.size(), 0u);
  EXPECT_EQ(t.chunks(), 0u);
  EXPECT_EQ(t.index().capacity(), 0u);
}

// A release asks for no hash (each would read a random object in the VM);
// the index drops the released entries once they outnumber the live IDs
// twice, asking for the live ones' hashes then, in ID order.
TEST(IdSlots, ReleasesAskNoHashUntilTheIndexIsRelisted) {
  Table table;
  Slots& t = table.slots;
  constexpr uint64_t kIds = 30000;
  InsertRuns(table, kIds);
  auto find = [&](uint64_t id) { return FindInRuns(t, id); };
  table.hash_calls = 0;
  for (uint64_t id = 1; id <= 10000; ++id) t.Erase(id);
  EXPECT_EQ(table.hash_calls, 0u);
  EXPECT_EQ(t.index().size(), kIds);
  EXPECT_EQ(find(5), std::nullopt);
  EXPECT_EQ(find(10001), 10001u);
  // Relisted when the entries exceed twice the live IDs and the minimum
  // capacity: at 14,487 live IDs, each asked once.
  uint64_t id = 10001;
  while (table.hash_calls == 0 && id <= kIds) t.Erase(id++);
  const size_t live = t.size();
  EXPECT_EQ(live, (kIds - IdIndex::kMinCapacity - 1) / 2);
  EXPECT_EQ(table.hash_calls, live);
  EXPECT_EQ(t.index().size(), live);
  EXPECT_LE(t.index().capacity(), 8 * live);
  for (uint64_t listed = 1; listed <= kIds; listed += 7) {
    EXPECT_EQ(find(listed), listed < id ? std::nullopt : std::optional<uint64_t>(listed)) << listed;
  }
}

TEST(IdSlots, IdsFourBillionApartMoveTheIndexBase) {
  Table table;
  Slots& t = table.slots;
  auto find = [&](uintptr_t object, uint32_t hash) {
    return t.FindObject(hash, [&](uintptr_t ref) { return ref == object; });
  };
  const uint64_t old = (uint64_t{1} << 31) + 10;
  table.Insert(1, 1, 7, 1);
  table.Insert(old, 2, 8, 1);
  t.Erase(1);
  // Four billion IDs after the first (released meanwhile): the index's base
  // moves up to the oldest live ID, which is still found.
  const uint64_t late = (uint64_t{1} << 32) + 3;
  table.Insert(late, 3, 7, 1);
  EXPECT_EQ(find(2, 8), old);
  EXPECT_EQ(find(3, 7), late);
  // Four billion past `old`: the base moves to 2^31 IDs below the new one;
  // older IDs still resolve, but are no longer found from their objects.
  const uint64_t later = old + (uint64_t{1} << 32);
  table.Insert(later, 4, 9, 1);
  EXPECT_EQ(find(4, 9), later);
  EXPECT_EQ(find(2, 8), std::nullopt);
  EXPECT_EQ(find(3, 7), std::nullopt);
  ASSERT_TRUE(t.Contains(old));
  EXPECT_EQ(t.RefOf(old), 2u);
  ASSERT_TRUE(t.Contains(late));
  t.Erase(old);  // not listed: nothing to unlist
  t.Erase(late);
  EXPECT_EQ(find(4, 9), later);
  EXPECT_EQ(t.size(), 1u);
  EXPECT_EQ(t.index().size(), 1u);
}

}  // namespace
}  // namespace jdwpx::backend
