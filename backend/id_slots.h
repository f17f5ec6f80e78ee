// The object table's storage: one small slot per object ID, found by the ID,
// and the index (id_index.h) that finds an object's ID from its identity hash.
//
// IDs are handed out in increasing order and never reused, so they are dense:
// slots live in fixed chunks of kChunkSize, a chunk found by id / kChunkSize
// (an index into a deque that starts at the oldest live chunk) and freed when
// its last ID is released. A slot costs 16 bytes (the reference, the
// debugger's count, the object's hash), against the ~80 of a node of a hash
// map keyed by ID (node, cached hash, bucket, malloc header): an
// Object[1,000,000] read by a debugger makes a million IDs. Worst case, a
// chunk is kept for one long-lived ID among released ones: the table never
// holds more than 16 bytes per ID issued in the session (plus 8 bytes of
// deque per 1,024 IDs between the oldest live ID and the newest).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>

#include "backend/id_index.h"

namespace jdwpx::backend {

template <class Ref>
class IdSlots {
 public:
  struct Slot {
    Ref ref{};          // empty: no such ID
    int32_t refs = 0;   // times the ID was sent to the debugger (a jint, as stock's count)
    uint32_t hash = 0;  // the object's identity hash (IdIndex's key)
  };
  static constexpr uint64_t kChunkSize = 1024;

  // The live slot of `id`, or nullptr.
  Slot* Find(uint64_t id) {
    Chunk* chunk = ChunkOf(id);
    if (!chunk) return nullptr;
    Slot& s = chunk->slots[id % kChunkSize];
    return s.ref ? &s : nullptr;
  }

  // The ID of the object whose hash is `hash` and for which same(ref) holds.
  template <class Same>
  std::optional<uint64_t> FindObject(uint32_t hash, Same&& same) {
    return index_.Find(hash, HashOf(), [&](uint64_t id) { return same(Find(id)->ref); });
  }

  // Ask the CPU for the memory FindObject(hash, ...) reads first: the index
  // entry, then (once that is in) the slot it names. A batch of lookups calls
  // each for all its hashes in turn, so that it waits for its cache misses
  // together rather than one after another.
  void PrefetchIndex(uint32_t hash) const { index_.Prefetch(hash); }
  void PrefetchSlot(uint32_t hash) const {
    if (auto id = index_.AtHome(hash)) {
      if (Chunk* chunk = ChunkOf(*id)) __builtin_prefetch(&chunk->slots[*id % kChunkSize]);
    }
  }

  // A new slot for an ID not in the table, greater than every ID inserted
  // since the last Clear; `ref` must not be empty.
  Slot& Insert(uint64_t id, Ref ref, uint32_t hash) {
    const uint64_t number = id / kChunkSize;
    if (chunks_.empty()) first_chunk_ = number;
    if (number - first_chunk_ >= chunks_.size()) chunks_.resize(number - first_chunk_ + 1);
    auto& chunk = chunks_[number - first_chunk_];
    if (!chunk) chunk = std::make_unique<Chunk>();
    Slot& s = chunk->slots[id % kChunkSize];
    s = Slot{ref, 0, hash};
    if (chunk->live++ == 0) ++live_chunks_;
    ++size_;
    index_.Insert(id, hash, HashOf(), [this](auto&& f) { ForEach([&](uint64_t listed, Slot&) { f(listed); }); });
    return s;
  }

  void Erase(uint64_t id) {
    Chunk* chunk = ChunkOf(id);
    if (!chunk) return;
    Slot& s = chunk->slots[id % kChunkSize];
    if (!s.ref) return;
    // Unlisted first: the index asks the hashes of the IDs it keeps.
    index_.Erase(id, s.hash, HashOf());
    s = Slot{};
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
  }

  // f(id, slot) for every live slot.
  template <class F>
  void ForEach(F&& f) {
    for (size_t n = 0; n < chunks_.size(); ++n) {
      if (!chunks_[n]) continue;
      for (uint64_t i = 0; i < kChunkSize; ++i) {
        if (chunks_[n]->slots[i].ref) f((first_chunk_ + n) * kChunkSize + i, chunks_[n]->slots[i]);
      }
    }
  }

  // Frees everything, the chunk deque and the index too.
  void Clear() {
    std::deque<std::unique_ptr<Chunk>>().swap(chunks_);
    index_.Clear();
    first_chunk_ = 0;
    live_chunks_ = 0;
    size_ = 0;
  }

  size_t size() const { return size_; }
  size_t chunks() const { return live_chunks_; }
  const IdIndex& index() const { return index_; }

 private:
  struct Chunk {
    std::array<Slot, kChunkSize> slots{};
    uint32_t live = 0;
  };

  Chunk* ChunkOf(uint64_t id) const {
    const uint64_t number = id / kChunkSize;
    if (number < first_chunk_ || number - first_chunk_ >= chunks_.size()) return nullptr;
    return chunks_[number - first_chunk_].get();
  }
  auto HashOf() {
    return [this](uint64_t id) { return ChunkOf(id)->slots[id % kChunkSize].hash; };
  }

  std::deque<std::unique_ptr<Chunk>> chunks_;  // chunks_[0] holds IDs from first_chunk_ * kChunkSize
  uint64_t first_chunk_ = 0;
  size_t live_chunks_ = 0;
  size_t size_ = 0;
  IdIndex index_;
};

}  // namespace jdwpx::backend
