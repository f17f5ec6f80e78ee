// StackFrame command set (16): wire layouts only, one struct per command.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::StackFrame {

struct GetValues {
  static constexpr CommandId kId{CommandSet::kStackFrame, 1};
  static constexpr std::string_view kName = "StackFrame.GetValues";
  struct Slot { int32_t slot{}; Tag sigbyte{}; JDWP_FIELDS(slot, sigbyte) };
  struct Request { ThreadId thread; FrameId frame; std::vector<Slot> slots; JDWP_FIELDS(thread, frame, slots) };
  struct Reply { std::vector<Value> values; JDWP_FIELDS(values) };
};

struct SetValues {
  static constexpr CommandId kId{CommandSet::kStackFrame, 2};
  static constexpr std::string_view kName = "StackFrame.SetValues";
  struct SlotValue { int32_t slot{}; Value slot_value; JDWP_FIELDS(slot, slot_value) };
  struct Request {
    ThreadId thread;
    FrameId frame;
    std::vector<SlotValue> slot_values;
    JDWP_FIELDS(thread, frame, slot_values)
  };
  struct Reply { JDWP_FIELDS() };
};

struct ThisObject {
  static constexpr CommandId kId{CommandSet::kStackFrame, 3};
  static constexpr std::string_view kName = "StackFrame.ThisObject";
  struct Request { ThreadId thread; FrameId frame; JDWP_FIELDS(thread, frame) };
  struct Reply { TaggedObjectId object_this; JDWP_FIELDS(object_this) };
};

struct PopFrames {
  static constexpr CommandId kId{CommandSet::kStackFrame, 4};
  static constexpr std::string_view kName = "StackFrame.PopFrames";
  struct Request { ThreadId thread; FrameId frame; JDWP_FIELDS(thread, frame) };
  struct Reply { JDWP_FIELDS() };
};

}  // namespace jdwpx::jdwp::StackFrame
