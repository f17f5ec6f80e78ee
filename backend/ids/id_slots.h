// The object table's storage: one small slot per object ID, found by the ID,
// and the index (id_index.h) that finds an object's ID from its identity hash.
//
// IDs are handed out in increasing order and never reused, so they are dense:
// slots live in fixed chunks of kChunkSize, a chunk found by id / kChunkSize
// (an index into a deque that starts at the oldest live chunk) and freed when
// its last ID is released. An Object[1,000,000] read by a debugger makes a
// million IDs, so a slot is kept to 5 bytes, in three arrays per chunk:
//  - the reference, as a distance in 8-byte steps from the chunk's first
//    reference: JNI weak references made one after another sit close
//    together in the VM's handle blocks, so the distances take 16 bits; a
//    chunk with one reference farther than 256 KB away has 32-bit distances
//    (4 more bytes a slot), and one farther than 16 GB (a handle block in
//    another malloc arena) is kept whole in a side map;
//  - 8 bits of the object's identity hash, so that a search of the index
//    passes over most other objects without asking the VM; the whole hash
//    (the index's key) is asked of the VM (`hash_of(ref)`, nullopt once the
//    object is collected) when the index is relisted;
//  - the debugger's count, 16 bits; a count of 65,535 or more (an ID sent that
//    often and never disposed) is kept whole in a side map.
// A node of a hash map keyed by ID costs ~80 bytes, the slot before this one
// 16. Worst case, a chunk is kept for one long-lived ID among released ones:
// the table never holds more than 9 bytes per ID issued in the session (plus
// 8 bytes of deque per 1,024 IDs between the oldest live ID and the newest,
// and the side maps' entries).
#pragma once

#include <array>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "backend/ids/id_index.h"

namespace jdwpx::backend {

// HashOf: std::optional<uint32_t>(Ref), the identity hash of the reference's
// object, nullopt if it is gone.
template <class Ref, class HashOf>
class IdSlots {
 public:
  static constexpr uint64_t kChunkSize = 1024;

  explicit IdSlots(HashOf hash_of) : hash_of_(std::move(hash_of)) {}

  bool Contains(uint64_t id) const {
    const Chunk* chunk = ChunkOf(id);
    return chunk && chunk->Code(id % kChunkSize) != kEmpty;
  }
  // The reference of a live ID (Contains(id)).
  Ref RefOf(uint64_t id) const {
    const Chunk& chunk = *ChunkOf(id);
    const uint32_t code = chunk.Code(id % kChunkSize);
    if (code == kFar) return far_.at(id);
    return FromBits(chunk.base + static_cast<uintptr_t>(int64_t{static_cast<int32_t>(code ^ kZero)} * 8));
  }
  // The debugger's count of a live ID (Contains(id)), and its update.
  int32_t Count(uint64_t id) const {
    const uint16_t c = ChunkOf(id)->counts[id % kChunkSize];
    return c == kBigCount ? big_counts_.at(id) : c;
  }
  void SetCount(uint64_t id, int32_t count) {
    uint16_t& c = ChunkOf(id)->counts[id % kChunkSize];
    if (count >= 0 && count < kBigCount) {
      if (c == kBigCount) big_counts_.erase(id);
      c = static_cast<uint16_t>(count);
    } else {
      c = kBigCount;
      big_counts_[id] = count;
    }
  }

  // The ID of the object whose hash is `hash` and for which same(ref) holds.
  template <class Same>
  std::optional<uint64_t> FindObject(uint32_t hash, Same&& same) {
    const uint8_t print = Fingerprint(hash);
    return index_.Find(hash, [&](uint64_t id) {
      const Chunk* chunk = ChunkOf(id);
      if (!chunk) return false;  // released: its entry not yet dropped
      const size_t i = id % kChunkSize;
      return chunk->prints[i] == print && chunk->Code(i) != kEmpty && same(RefOf(id));
    });
  }

  // Ask the CPU for the memory FindObject(hash, ...) reads first: the index
  // entry, then (once that is in) the slot it names. A batch of lookups calls
  // each for all its hashes in turn, so that it waits for its cache misses
  // together rather than one after another.
  void PrefetchIndex(uint32_t hash) const { index_.Prefetch(hash); }
  void PrefetchSlot(uint32_t hash) const {
    if (auto id = index_.AtHome(hash)) {
      if (const Chunk* chunk = ChunkOf(*id)) {
        PrefetchLine(&chunk->prints[*id % kChunkSize]);
        PrefetchLine(chunk->CodeAt(*id % kChunkSize));
      }
    }
  }

  // A new slot for an ID not in the table, greater than every ID inserted
  // since the last Clear; `ref` must not be empty.
  void Insert(uint64_t id, Ref ref, uint32_t hash, int32_t count) {
    const uint64_t number = id / kChunkSize;
    if (chunks_.empty()) first_chunk_ = number;
    if (number - first_chunk_ >= chunks_.size()) chunks_.resize(number - first_chunk_ + 1);
    auto& chunk = chunks_[number - first_chunk_];
    if (!chunk) {
      chunk = std::make_unique<Chunk>();
      chunk->base = Bits(ref);
      ++live_chunks_;
    }
    ++chunk->live;
    const size_t i = id % kChunkSize;
    const auto steps = static_cast<int64_t>(Bits(ref) - chunk->base);
    if (steps % 8 == 0 && steps / 8 >= kNearest && steps / 8 <= INT32_MAX) {
      chunk->SetCode(i, static_cast<uint32_t>(static_cast<int32_t>(steps / 8)) ^ kZero);
    } else {
      chunk->SetCode(i, kFar);
      far_.emplace(id, ref);
    }
    chunk->prints[i] = Fingerprint(hash);
    chunk->counts[i] = 0;
    SetCount(id, count);
    ++size_;
    index_.Insert(id, hash, IndexHashOf(), IndexIds());
  }

  void Erase(uint64_t id) {
    Chunk* chunk = ChunkOf(id);
    if (!chunk) return;
    const size_t i = id % kChunkSize;
    if (chunk->Code(i) == kEmpty) return;
    // Its index entry stays, found by no search (the slot is empty), until
    // the index is relisted.
    if (chunk->Code(i) == kFar) far_.erase(id);
    if (chunk->counts[i] == kBigCount) big_counts_.erase(id);
    chunk->SetCode(i, kEmpty);
    --size_;
    if (--chunk->live == 0) {
      chunks_[id / kChunkSize - first_chunk_].reset();
      --live_chunks_;
      while (!chunks_.empty() && !chunks_.front()) {
        chunks_.pop_front();
        ++first_chunk_;
      }
      while (!chunks_.empty() && !chunks_.back()) chunks_.pop_back();
    }
    // Entries of released IDs outnumber the live ones: relisted without them,
    // in ID order. After at least as many releases as there are live IDs, so
    // it costs each release at most one hash on average.
    if (size_ == 0) {
      index_.Clear();
    } else if (index_.size() > 2 * size_ + IdIndex::kMinCapacity) {
      index_.Repack(size_, IndexHashOf(), IndexIds());
    }
  }

  // f(id, ref) for every live ID.
  template <class F>
  void ForEach(F&& f) {
    for (size_t n = 0; n < chunks_.size(); ++n) {
      if (!chunks_[n]) continue;
      for (uint64_t i = 0; i < kChunkSize; ++i) {
        if (chunks_[n]->Code(i) == kEmpty) continue;
        const uint64_t id = (first_chunk_ + n) * kChunkSize + i;
        f(id, RefOf(id));
      }
    }
  }

  // Frees everything, the chunk deque, the side maps and the index too.
  void Clear() {
    std::deque<std::unique_ptr<Chunk>>().swap(chunks_);
    std::unordered_map<uint64_t, Ref>().swap(far_);
    std::unordered_map<uint64_t, int32_t>().swap(big_counts_);
    index_.Clear();
    first_chunk_ = 0;
    live_chunks_ = 0;
    size_ = 0;
  }

  size_t size() const { return size_; }
  size_t chunks() const { return live_chunks_; }
  // IDs whose reference or count is kept in a side map.
  size_t far_refs() const { return far_.size(); }
  size_t big_counts() const { return big_counts_.size(); }
  // Chunks whose codes are 32 bits.
  size_t wide_chunks() const {
    size_t n = 0;
    for (const auto& chunk : chunks_) n += chunk && chunk->wide;
    return n;
  }
  const IdIndex& index() const { return index_; }

 private:
  // A reference's code: its distance from the chunk's base in 8-byte steps,
  // its top bit flipped, so that a zeroed chunk is empty. Distances that
  // would code as kEmpty or kFar are kept in far_.
  static constexpr uint32_t kZero = 0x80000000u;
  static constexpr uint32_t kEmpty = 0;
  static constexpr uint32_t kFar = 1;
  static constexpr int64_t kNearest = int64_t{INT32_MIN} + 2;
  static constexpr uint16_t kNarrowZero = 0x8000;
  static constexpr uint16_t kBigCount = 0xFFFF;

  // A chunk's codes take 16 bits while every reference in it is within
  // 32,766 steps (256 KB) of the first, as those of a bulk read are; the
  // first that is not makes them all 32 bits (`wide`).
  struct Chunk {
    uintptr_t base = 0;  // the chunk's first reference
    uint32_t live = 0;
    std::unique_ptr<uint32_t[]> wide;
    std::array<uint16_t, kChunkSize> narrow{};  // unused once wide
    std::array<uint8_t, kChunkSize> prints{};
    std::array<uint16_t, kChunkSize> counts{};

    // The 32-bit code of slot i.
    uint32_t Code(size_t i) const {
      if (wide) return wide[i];
      const uint16_t c = narrow[i];
      if (c == kEmpty || c == kFar) return c;
      return static_cast<uint32_t>(int32_t{static_cast<int16_t>(c ^ kNarrowZero)}) ^ kZero;
    }
    void SetCode(size_t i, uint32_t code) {
      if (!wide) {
        const auto steps = static_cast<int32_t>(code ^ kZero);
        if (code == kEmpty || code == kFar) {
          narrow[i] = static_cast<uint16_t>(code);
          return;
        }
        if (steps >= INT16_MIN + 2 && steps <= INT16_MAX) {
          narrow[i] = static_cast<uint16_t>(static_cast<uint16_t>(steps) ^ kNarrowZero);
          return;
        }
        auto all = std::make_unique<uint32_t[]>(kChunkSize);
        for (size_t j = 0; j < kChunkSize; ++j) all[j] = Code(j);
        wide = std::move(all);
      }
      wide[i] = code;
    }
    const void* CodeAt(size_t i) const { return wide ? static_cast<const void*>(&wide[i]) : &narrow[i]; }
  };

  static uintptr_t Bits(Ref ref) {
    if constexpr (std::is_pointer_v<Ref>) {
      return reinterpret_cast<uintptr_t>(ref);
    } else {
      return static_cast<uintptr_t>(ref);
    }
  }
  static Ref FromBits(uintptr_t bits) {
    if constexpr (std::is_pointer_v<Ref>) {
      return reinterpret_cast<Ref>(bits);
    } else {
      return static_cast<Ref>(bits);
    }
  }

  Chunk* ChunkOf(uint64_t id) const {
    const uint64_t number = id / kChunkSize;
    if (number < first_chunk_ || number - first_chunk_ >= chunks_.size()) return nullptr;
    return chunks_[number - first_chunk_].get();
  }
  static uint8_t Fingerprint(uint32_t hash) { return static_cast<uint8_t>(hash); }
  // The index's hash_of: that of a live ID's object.
  auto IndexHashOf() {
    return [this](uint64_t id) -> std::optional<uint32_t> {
      if (!Contains(id)) return std::nullopt;
      return hash_of_(RefOf(id));
    };
  }

  // The index's for_each_id: every live ID, in increasing order.
  auto IndexIds() {
    return [this](auto&& f) { ForEach([&](uint64_t listed, Ref) { f(listed); }); };
  }

  std::deque<std::unique_ptr<Chunk>> chunks_;  // chunks_[0] holds IDs from first_chunk_ * kChunkSize
  std::unordered_map<uint64_t, Ref> far_;            // references too far from their chunk's base
  std::unordered_map<uint64_t, int32_t> big_counts_;  // counts of kBigCount or more (or negative)
  uint64_t first_chunk_ = 0;
  size_t live_chunks_ = 0;
  size_t size_ = 0;
  IdIndex index_;
  HashOf hash_of_;
};

}  // namespace jdwpx::backend
