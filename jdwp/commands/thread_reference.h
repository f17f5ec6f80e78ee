// ThreadReference command set (11): wire layouts only, one struct per command.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::ThreadReference {

struct Name {
  static constexpr CommandId kId{CommandSet::kThreadReference, 1};
  static constexpr std::string_view kName = "ThreadReference.Name";
  struct Request { ThreadId thread; JDWP_FIELDS(thread) };
  struct Reply { std::string thread_name; JDWP_FIELDS(thread_name) };
};

struct Suspend {
  static constexpr CommandId kId{CommandSet::kThreadReference, 2};
  static constexpr std::string_view kName = "ThreadReference.Suspend";
  struct Request { ThreadId thread; JDWP_FIELDS(thread) };
  struct Reply { JDWP_FIELDS() };
};

struct Resume {
  static constexpr CommandId kId{CommandSet::kThreadReference, 3};
  static constexpr std::string_view kName = "ThreadReference.Resume";
  struct Request { ThreadId thread; JDWP_FIELDS(thread) };
  struct Reply { JDWP_FIELDS() };
};

struct Status {
  static constexpr CommandId kId{CommandSet::kThreadReference, 4};
  static constexpr std::string_view kName = "ThreadReference.Status";
  struct Request { ThreadId thread; JDWP_FIELDS(thread) };
  struct Reply { int32_t thread_status{}; int32_t suspend_status{}; JDWP_FIELDS(thread_status, suspend_status) };
};

struct ThreadGroup {
  static constexpr CommandId kId{CommandSet::kThreadReference, 5};
  static constexpr std::string_view kName = "ThreadReference.ThreadGroup";
  struct Request { ThreadId thread; JDWP_FIELDS(thread) };
  struct Reply { ThreadGroupId group; JDWP_FIELDS(group) };
};

struct Frames {
  static constexpr CommandId kId{CommandSet::kThreadReference, 6};
  static constexpr std::string_view kName = "ThreadReference.Frames";
  struct Frame { FrameId frame_id; Location location; JDWP_FIELDS(frame_id, location) };
  struct Request {
    ThreadId thread;
    int32_t start_frame{};
    int32_t length{};
    JDWP_FIELDS(thread, start_frame, length)
  };
  struct Reply { std::vector<Frame> frames; JDWP_FIELDS(frames) };
};

struct FrameCount {
  static constexpr CommandId kId{CommandSet::kThreadReference, 7};
  static constexpr std::string_view kName = "ThreadReference.FrameCount";
  struct Request { ThreadId thread; JDWP_FIELDS(thread) };
  struct Reply { int32_t frame_count{}; JDWP_FIELDS(frame_count) };
};

struct OwnedMonitors {
  static constexpr CommandId kId{CommandSet::kThreadReference, 8};
  static constexpr std::string_view kName = "ThreadReference.OwnedMonitors";
  struct Request { ThreadId thread; JDWP_FIELDS(thread) };
  struct Reply { std::vector<TaggedObjectId> owned; JDWP_FIELDS(owned) };
};

struct CurrentContendedMonitor {
  static constexpr CommandId kId{CommandSet::kThreadReference, 9};
  static constexpr std::string_view kName = "ThreadReference.CurrentContendedMonitor";
  struct Request { ThreadId thread; JDWP_FIELDS(thread) };
  struct Reply { TaggedObjectId monitor; JDWP_FIELDS(monitor) };
};

struct Stop {
  static constexpr CommandId kId{CommandSet::kThreadReference, 10};
  static constexpr std::string_view kName = "ThreadReference.Stop";
  struct Request { ThreadId thread; ObjectId throwable; JDWP_FIELDS(thread, throwable) };
  struct Reply { JDWP_FIELDS() };
};

struct Interrupt {
  static constexpr CommandId kId{CommandSet::kThreadReference, 11};
  static constexpr std::string_view kName = "ThreadReference.Interrupt";
  struct Request { ThreadId thread; JDWP_FIELDS(thread) };
  struct Reply { JDWP_FIELDS() };
};

struct SuspendCount {
  static constexpr CommandId kId{CommandSet::kThreadReference, 12};
  static constexpr std::string_view kName = "ThreadReference.SuspendCount";
  struct Request { ThreadId thread; JDWP_FIELDS(thread) };
  struct Reply { int32_t suspend_count{}; JDWP_FIELDS(suspend_count) };
};

struct OwnedMonitorsStackDepthInfo {
  static constexpr CommandId kId{CommandSet::kThreadReference, 13};
  static constexpr std::string_view kName = "ThreadReference.OwnedMonitorsStackDepthInfo";
  struct Monitor { TaggedObjectId monitor; int32_t stack_depth{}; JDWP_FIELDS(monitor, stack_depth) };
  struct Request { ThreadId thread; JDWP_FIELDS(thread) };
  struct Reply { std::vector<Monitor> owned; JDWP_FIELDS(owned) };
};

struct ForceEarlyReturn {
  static constexpr CommandId kId{CommandSet::kThreadReference, 14};
  static constexpr std::string_view kName = "ThreadReference.ForceEarlyReturn";
  struct Request { ThreadId thread; Value value; JDWP_FIELDS(thread, value) };
  struct Reply { JDWP_FIELDS() };
};

// Since JDWP 21.
struct IsVirtual {
  static constexpr CommandId kId{CommandSet::kThreadReference, 15};
  static constexpr std::string_view kName = "ThreadReference.IsVirtual";
  struct Request { ThreadId thread; JDWP_FIELDS(thread) };
  struct Reply { bool is_virtual{}; JDWP_FIELDS(is_virtual) };
};

}  // namespace jdwpx::jdwp::ThreadReference
