// The object table's index from an object to its ID, keyed by the object's
// identity hash (JVMTI GetObjectHashCode).
//
// It replaces a JVMTI tag per object: HotSpot's tag map costs ~65 bytes per
// tagged object (a malloc'd hash-table entry, its bucket and a weak handle),
// this index 4 to 8 (a 32-bit entry per ID at a load of 1/4 to 1/2).
//
// Open addressing, linear probing, no deletion. An entry is the ID minus a
// base (0 = empty), so it fits 32 bits; the hashes are not stored here but
// asked of the caller (`hash_of(id)`: the object table asks the VM for the
// hash of the ID's object). An ID whose object is gone (collected, or the ID
// released) has no hash any more (nullopt): its entry stays where it is,
// found by no search, until the index is relisted (when it grows, or when
// its owner repacks it). So releasing an ID costs the index nothing: no
// backward shift, which would ask the VM for the hashes of the entries it
// moves, each a read of a random object. Equal hashes do not make equal
// objects: `match(id)` decides (IsSameObject).
//
// IDs only grow. One that would not fit 32 bits above the base (more than
// four billion IDs after the base within one session) moves the base up to
// the oldest ID still listed, and, if even that does not reach, to 2^31 IDs
// below the new one: older IDs are then no longer found from their object (a
// debugger that still holds one sees the object under a new ID; nothing
// else changes: the slots still resolve them).
#pragma once

#include <sys/mman.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace jdwpx::backend {

// Asks the CPU for the cache line of `p`. A loop of bare __builtin_prefetch
// calls has no effect the compiler must keep, and GCC deletes the whole loop;
// the empty asm that takes `p` keeps it.
inline void PrefetchLine(const void* p) {
  __builtin_prefetch(p);
  asm volatile("" : : "r"(p));
}

class IdIndex {
 public:
  static constexpr size_t kMinCapacity = 1024;

  // The first ID listed where a search for `hash` looks for which match(id)
  // holds (match is asked of IDs with other hashes too, and of gone ones).
  template <class Match>
  std::optional<uint64_t> Find(uint32_t hash, Match&& match) const {
    if (entries_.empty()) return std::nullopt;
    for (size_t i = Home(hash);; i = Next(i)) {
      const uint32_t e = entries_[i];
      if (e == 0) return std::nullopt;
      const uint64_t id = base_ + e;
      if (match(id)) return id;
    }
  }

  // Asks the CPU for the entry where a search for `hash` starts.
  void Prefetch(uint32_t hash) const {
    if (!entries_.empty()) PrefetchLine(&entries_[Home(hash)]);
  }
  // The ID listed where a search for `hash` starts, if any (a search's
  // first candidate).
  std::optional<uint64_t> AtHome(uint32_t hash) const {
    if (entries_.empty() || entries_[Home(hash)] == 0) return std::nullopt;
    return base_ + entries_[Home(hash)];
  }

  // Lists `id` (not listed yet, greater than every ID listed before).
  // `for_each_id(f)` calls f(id), in increasing order, for every ID that
  // is to stay listed (the slots'; the gone among them have no hash); it
  // serves a change of base and a growth.
  template <class HashOf, class ForEachId>
  void Insert(uint64_t id, uint32_t hash, HashOf&& hash_of, ForEachId&& for_each_id) {
    if (entries_.empty()) {
      base_ = id - 1;
      entries_ = Entries(kMinCapacity);
    } else if (id - base_ > kMaxOffset) {
      Rebase(id, hash_of, for_each_id);
    } else if ((size_ + 1) * 2 > entries_.size()) {
      Relist(entries_.size() * 2, id, hash_of, for_each_id);
    }
    Place(static_cast<uint32_t>(id - base_), hash);
    ++size_;
  }

  // Relists the `live` IDs that for_each_id goes through (those gone
  // dropped) at a load of 1/4 or less; empty when none is left.
  template <class HashOf, class ForEachId>
  void Repack(size_t live, HashOf&& hash_of, ForEachId&& for_each_id) {
    if (live == 0) {
      Clear();
      return;
    }
    size_t capacity = kMinCapacity;
    while (capacity < 4 * live) capacity *= 2;
    Relist(capacity, UINT64_MAX, hash_of, for_each_id);
  }

  void Clear() {
    std::vector<uint32_t>().swap(entries_);
    size_ = 0;
  }

  // Entries listed: live IDs, and released or gone ones not yet dropped.
  size_t size() const { return size_; }
  size_t capacity() const { return entries_.size(); }

 private:
  static constexpr uint64_t kMaxOffset = UINT32_MAX;

  size_t Home(uint32_t hash) const {
    // Fibonacci hashing: the product's top bits pick the entry, so hashes
    // that differ only in high or only in low bits still spread.
    const uint32_t mixed = hash * 0x9E3779B1u;
    return static_cast<size_t>(mixed) >> (32 - Bits());
  }
  // `capacity` empty entries. Lookups read them at random: from 4 MB on they
  // ask for transparent huge pages (where the kernel gives them on madvise),
  // so that a lookup is one cache miss rather than a cache and a TLB miss.
  static std::vector<uint32_t> Entries(size_t capacity) {
    constexpr size_t kHugePagesFrom = size_t{4} << 20;
    constexpr uintptr_t kPage = 4096;
    std::vector<uint32_t> entries;
    entries.reserve(capacity);
    const size_t bytes = capacity * sizeof(uint32_t);
    if (bytes >= kHugePagesFrom) {
      const auto base = reinterpret_cast<uintptr_t>(entries.data());
      const uintptr_t start = (base + kPage - 1) & ~(kPage - 1);
      if (base + bytes > start) (void)madvise(reinterpret_cast<void*>(start), base + bytes - start, MADV_HUGEPAGE);
    }
    entries.resize(capacity, 0);
    return entries;
  }
  size_t Next(size_t i) const { return (i + 1) & (entries_.size() - 1); }
  int Bits() const { return __builtin_ctzll(entries_.size()); }

  void Place(uint32_t entry, uint32_t hash) {
    size_t i = Home(hash);
    while (entries_[i] != 0) i = Next(i);
    entries_[i] = entry;
  }

  // Rehashes into `capacity` entries; gone IDs are dropped.
  template <class HashOf>
  void Resize(size_t capacity, HashOf& hash_of) {
    std::vector<uint32_t> old = Entries(capacity);
    old.swap(entries_);
    for (uint32_t e : old) {
      if (e == 0) continue;
      if (const std::optional<uint32_t> h = hash_of(base_ + e)) {
        Place(e, *h);
      } else {
        --size_;
      }
    }
  }

  // Relists, into `capacity` entries (more if they fill past half), the IDs
  // above the base and below `below` that still have a hash, going through
  // them in their own order (for_each_id), not the table's: each hash asked
  // of the VM reads the object, and objects seen one after another (an
  // array's elements) mostly sit one after another, while the table's order
  // visits them at random, a cache miss each. The old table is freed first.
  // Leaves room for one more.
  template <class HashOf, class ForEachId>
  void Relist(size_t capacity, uint64_t below, HashOf& hash_of, ForEachId& for_each_id) {
    entries_ = Entries(capacity);
    size_ = 0;
    for_each_id([&](uint64_t listed) {
      if (listed <= base_ || listed >= below || listed - base_ > kMaxOffset) return;
      const std::optional<uint32_t> h = hash_of(listed);
      if (!h) return;
      if ((size_ + 1) * 2 > entries_.size()) Resize(entries_.size() * 2, hash_of);
      Place(static_cast<uint32_t>(listed - base_), *h);
      ++size_;
    });
    if ((size_ + 1) * 2 > entries_.size()) Resize(entries_.size() * 2, hash_of);
  }

  // Moves the base up for `id`: to the oldest ID listed, or 2^31 IDs below
  // `id` if that does not reach; IDs under the new base are no longer listed.
  template <class HashOf, class ForEachId>
  void Rebase(uint64_t id, HashOf& hash_of, ForEachId& for_each_id) {
    uint64_t oldest = id;
    for (uint32_t e : entries_) {
      if (e != 0 && base_ + e < oldest) oldest = base_ + e;
    }
    const uint64_t floor = id - (uint64_t{1} << 31);
    base_ = (oldest > floor ? oldest : floor) - 1;
    Relist(entries_.size(), id, hash_of, for_each_id);
  }

  std::vector<uint32_t> entries_;  // size: 0 or a power of two >= kMinCapacity
  uint64_t base_ = 0;
  size_t size_ = 0;
};

}  // namespace jdwpx::backend
