// The object table's storage: one small slot per object ID, found by the ID.
//
// IDs are handed out in increasing order and never reused, so they are dense:
// slots live in fixed chunks of kChunkSize, a chunk found by id / kChunkSize
// and freed when its last ID is released. A slot costs 16 bytes, against the
// ~80 of a node of a hash map keyed by ID (node, cached hash, bucket, malloc
// header): an Object[1,000,000] read by a debugger makes a million IDs.
// Worst case, a chunk is kept for one long-lived ID among released ones: the
// table never holds more than 16 bytes per ID issued in the session.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

namespace jdwpx::backend {

template <class Ref>
class IdSlots {
 public:
  struct Slot {
    Ref ref{};         // empty: no such ID
    int64_t refs = 0;  // times the ID was sent to the debugger
  };
  static constexpr uint64_t kChunkSize = 1024;

  // The live slot of `id`, or nullptr.
  Slot* Find(uint64_t id) {
    auto it = chunks_.find(id / kChunkSize);
    if (it == chunks_.end()) return nullptr;
    Slot& s = it->second->slots[id % kChunkSize];
    return s.ref ? &s : nullptr;
  }

  // A new slot for an ID not in the table; `ref` must not be empty.
  Slot& Insert(uint64_t id, Ref ref) {
    auto& chunk = chunks_[id / kChunkSize];
    if (!chunk) chunk = std::make_unique<Chunk>();
    Slot& s = chunk->slots[id % kChunkSize];
    s = Slot{ref, 0};
    ++chunk->live;
    ++size_;
    return s;
  }

  void Erase(uint64_t id) {
    auto it = chunks_.find(id / kChunkSize);
    if (it == chunks_.end()) return;
    Slot& s = it->second->slots[id % kChunkSize];
    if (!s.ref) return;
    s = Slot{};
    --size_;
    if (--it->second->live == 0) chunks_.erase(it);
  }

  // f(id, slot) for every live slot.
  template <class F>
  void ForEach(F&& f) {
    for (auto& [number, chunk] : chunks_) {
      for (uint64_t i = 0; i < kChunkSize; ++i) {
        if (chunk->slots[i].ref) f(number * kChunkSize + i, chunk->slots[i]);
      }
    }
  }

  // Frees everything, the chunk index too.
  void Clear() {
    std::unordered_map<uint64_t, std::unique_ptr<Chunk>>().swap(chunks_);
    size_ = 0;
  }

  size_t size() const { return size_; }
  size_t chunks() const { return chunks_.size(); }

 private:
  struct Chunk {
    std::array<Slot, kChunkSize> slots{};
    uint32_t live = 0;
  };
  std::unordered_map<uint64_t, std::unique_ptr<Chunk>> chunks_;
  size_t size_ = 0;
};

}  // namespace jdwpx::backend
