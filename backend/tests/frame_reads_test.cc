// FrameReads: keys (generation, depth, slot, tag) never mix, Clear drops all,
// and the bounds hold (frame_reads.h).
#include "backend/threads/frame_reads.h"

#include <gtest/gtest.h>

namespace jdwpx::backend {
namespace {

using jdwp::Tag;
using jdwp::Value;

TEST(FrameReads, ServesOnlyTheSameGenerationDepthSlotAndTag) {
  FrameReads reads;
  reads.PutLocal(7, 0, 1, Tag::kInt, Value::Int(42));
  EXPECT_EQ(reads.Local(7, 0, 1, Tag::kInt), Value::Int(42));
  EXPECT_FALSE(reads.Local(8, 0, 1, Tag::kInt));      // another suspension (or thread)
  EXPECT_FALSE(reads.Local(7, 1, 1, Tag::kInt));      // another frame
  EXPECT_FALSE(reads.Local(7, 0, 2, Tag::kInt));      // another slot
  EXPECT_FALSE(reads.Local(7, 0, 1, Tag::kShort));    // read with another tag
  EXPECT_FALSE(reads.This(7, 0));                     // `this` is not slot 1
  reads.PutThis(7, 0, {Tag::kObject, jdwp::ObjectId{5}});
  EXPECT_EQ(reads.This(7, 0), (jdwp::TaggedObjectId{Tag::kObject, jdwp::ObjectId{5}}));
  EXPECT_EQ(reads.Local(7, 0, 1, Tag::kInt), Value::Int(42));
}

TEST(FrameReads, PutAgainReplaces) {
  FrameReads reads;
  reads.PutLocal(3, 0, 2, Tag::kObject, Value::Object(Tag::kString, jdwp::ObjectId{10}));
  reads.PutLocal(3, 0, 2, Tag::kObject, Value::Object(Tag::kString, jdwp::ObjectId{11}));
  EXPECT_EQ(reads.Local(3, 0, 2, Tag::kObject), Value::Object(Tag::kString, jdwp::ObjectId{11}));
}

TEST(FrameReads, ClearDropsEverything) {
  FrameReads reads;
  reads.PutLocal(3, 0, 1, Tag::kInt, Value::Int(1));
  reads.PutThis(4, 0, {Tag::kObject, jdwp::ObjectId{9}});
  reads.Clear();
  EXPECT_FALSE(reads.Local(3, 0, 1, Tag::kInt));
  EXPECT_FALSE(reads.This(4, 0));
  EXPECT_EQ(reads.threads(), 0u);
}

TEST(FrameReads, Bounded) {
  FrameReads reads;
  for (uint64_t g = 1; g <= FrameReads::kThreads + 3; ++g) reads.PutLocal(g, 0, 1, Tag::kInt, Value::Int(1));
  EXPECT_EQ(reads.threads(), FrameReads::kThreads);
  EXPECT_FALSE(reads.Local(1, 0, 1, Tag::kInt));  // the oldest went first
  EXPECT_TRUE(reads.Local(FrameReads::kThreads + 3, 0, 1, Tag::kInt));
  for (int32_t slot = 0; slot < static_cast<int32_t>(FrameReads::kEntries) + 10; ++slot)
    reads.PutLocal(100, 0, slot, Tag::kInt, Value::Int(slot));
  EXPECT_TRUE(reads.Local(100, 0, 0, Tag::kInt));
  EXPECT_FALSE(reads.Local(100, 0, static_cast<int32_t>(FrameReads::kEntries), Tag::kInt));  // not kept
}

}  // namespace
}  // namespace jdwpx::backend
