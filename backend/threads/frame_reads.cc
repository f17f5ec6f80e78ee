#include "backend/threads/frame_reads.h"

namespace jdwpx::backend {

FrameReads::Suspension* FrameReads::FindLocked(uint64_t generation) {
  for (auto& s : held_)
    if (s.generation == generation) return &s;
  return nullptr;
}

FrameReads::Suspension& FrameReads::TakeLocked(uint64_t generation) {
  if (Suspension* s = FindLocked(generation)) return *s;
  if (held_.size() >= kThreads) held_.erase(held_.begin());
  Suspension& fresh = held_.emplace_back();
  fresh.generation = generation;
  return fresh;
}

std::optional<jdwp::Value> FrameReads::ReadLocked(uint64_t generation, int32_t depth, int32_t slot, jdwp::Tag tag) {
  Suspension* s = FindLocked(generation);
  if (!s) return std::nullopt;
  for (const Read& r : s->reads)
    if (r.depth == depth && r.slot == slot && r.tag == tag) return r.value;
  return std::nullopt;
}

void FrameReads::PutLocked(uint64_t generation, const Read& read) {
  Suspension& s = TakeLocked(generation);
  for (Read& r : s.reads) {
    if (r.depth == read.depth && r.slot == read.slot && r.tag == read.tag) {
      r.value = read.value;  // an object ID read again after the old one was disposed of
      return;
    }
  }
  if (s.reads.size() < kEntries) s.reads.push_back(read);
}

std::optional<jdwp::Value> FrameReads::Local(uint64_t generation, int32_t depth, int32_t slot, jdwp::Tag tag) {
  std::lock_guard lock(mu_);
  return ReadLocked(generation, depth, slot, tag);
}

void FrameReads::PutLocal(uint64_t generation, int32_t depth, int32_t slot, jdwp::Tag tag, const jdwp::Value& value) {
  std::lock_guard lock(mu_);
  PutLocked(generation, Read{depth, slot, tag, value});
}

std::optional<jdwp::TaggedObjectId> FrameReads::This(uint64_t generation, int32_t depth) {
  std::lock_guard lock(mu_);
  auto v = ReadLocked(generation, depth, -1, jdwp::Tag::kObject);
  if (!v) return std::nullopt;
  return jdwp::TaggedObjectId{v->tag, v->object()};
}

void FrameReads::PutThis(uint64_t generation, int32_t depth, const jdwp::TaggedObjectId& self) {
  std::lock_guard lock(mu_);
  PutLocked(generation, Read{depth, -1, jdwp::Tag::kObject, jdwp::Value::Object(self.tag, self.id)});
}

void FrameReads::Clear() {
  std::lock_guard lock(mu_);
  held_.clear();
}

size_t FrameReads::threads() {
  std::lock_guard lock(mu_);
  return held_.size();
}

}  // namespace jdwpx::backend
