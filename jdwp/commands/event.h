// Event command set (64): Event.Composite, the only command the VM sends.
// Each event kind with a Composite layout is one struct selected by its eventKind (= kSelect).
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::events {

struct VMStart {
  static constexpr uint8_t kSelect = 90;
  static constexpr std::string_view kName = "VMStart";
  int32_t request_id{};
  ThreadId thread;
  JDWP_FIELDS(request_id, thread)
};

struct SingleStep {
  static constexpr uint8_t kSelect = 1;
  static constexpr std::string_view kName = "SingleStep";
  int32_t request_id{};
  ThreadId thread;
  Location location;
  JDWP_FIELDS(request_id, thread, location)
};

struct Breakpoint {
  static constexpr uint8_t kSelect = 2;
  static constexpr std::string_view kName = "Breakpoint";
  int32_t request_id{};
  ThreadId thread;
  Location location;
  JDWP_FIELDS(request_id, thread, location)
};

struct MethodEntry {
  static constexpr uint8_t kSelect = 40;
  static constexpr std::string_view kName = "MethodEntry";
  int32_t request_id{};
  ThreadId thread;
  Location location;
  JDWP_FIELDS(request_id, thread, location)
};

struct MethodExit {
  static constexpr uint8_t kSelect = 41;
  static constexpr std::string_view kName = "MethodExit";
  int32_t request_id{};
  ThreadId thread;
  Location location;
  JDWP_FIELDS(request_id, thread, location)
};

struct MethodExitWithReturnValue {
  static constexpr uint8_t kSelect = 42;
  static constexpr std::string_view kName = "MethodExitWithReturnValue";
  int32_t request_id{};
  ThreadId thread;
  Location location;
  Value value;
  JDWP_FIELDS(request_id, thread, location, value)
};

struct MonitorContendedEnter {
  static constexpr uint8_t kSelect = 43;
  static constexpr std::string_view kName = "MonitorContendedEnter";
  int32_t request_id{};
  ThreadId thread;
  TaggedObjectId object;
  Location location;
  JDWP_FIELDS(request_id, thread, object, location)
};

struct MonitorContendedEntered {
  static constexpr uint8_t kSelect = 44;
  static constexpr std::string_view kName = "MonitorContendedEntered";
  int32_t request_id{};
  ThreadId thread;
  TaggedObjectId object;
  Location location;
  JDWP_FIELDS(request_id, thread, object, location)
};

struct MonitorWait {
  static constexpr uint8_t kSelect = 45;
  static constexpr std::string_view kName = "MonitorWait";
  int32_t request_id{};
  ThreadId thread;
  TaggedObjectId object;
  Location location;
  int64_t timeout{};
  JDWP_FIELDS(request_id, thread, object, location, timeout)
};

struct MonitorWaited {
  static constexpr uint8_t kSelect = 46;
  static constexpr std::string_view kName = "MonitorWaited";
  int32_t request_id{};
  ThreadId thread;
  TaggedObjectId object;
  Location location;
  bool timed_out{};
  JDWP_FIELDS(request_id, thread, object, location, timed_out)
};

struct Exception {
  static constexpr uint8_t kSelect = 4;
  static constexpr std::string_view kName = "Exception";
  int32_t request_id{};
  ThreadId thread;
  Location location;
  TaggedObjectId exception;
  Location catch_location;
  JDWP_FIELDS(request_id, thread, location, exception, catch_location)
};

struct ThreadStart {
  static constexpr uint8_t kSelect = 6;
  static constexpr std::string_view kName = "ThreadStart";
  int32_t request_id{};
  ThreadId thread;
  JDWP_FIELDS(request_id, thread)
};

struct ThreadDeath {
  static constexpr uint8_t kSelect = 7;
  static constexpr std::string_view kName = "ThreadDeath";
  int32_t request_id{};
  ThreadId thread;
  JDWP_FIELDS(request_id, thread)
};

struct ClassPrepare {
  static constexpr uint8_t kSelect = 8;
  static constexpr std::string_view kName = "ClassPrepare";
  int32_t request_id{};
  ThreadId thread;
  TypeTag ref_type_tag{};
  ReferenceTypeId type_id;
  std::string signature;
  int32_t status{};
  JDWP_FIELDS(request_id, thread, ref_type_tag, type_id, signature, status)
};

struct ClassUnload {
  static constexpr uint8_t kSelect = 9;
  static constexpr std::string_view kName = "ClassUnload";
  int32_t request_id{};
  std::string signature;
  JDWP_FIELDS(request_id, signature)
};

struct FieldAccess {
  static constexpr uint8_t kSelect = 20;
  static constexpr std::string_view kName = "FieldAccess";
  int32_t request_id{};
  ThreadId thread;
  Location location;
  TypeTag ref_type_tag{};
  ReferenceTypeId type_id;
  FieldId field_id;
  TaggedObjectId object;
  JDWP_FIELDS(request_id, thread, location, ref_type_tag, type_id, field_id, object)
};

struct FieldModification {
  static constexpr uint8_t kSelect = 21;
  static constexpr std::string_view kName = "FieldModification";
  int32_t request_id{};
  ThreadId thread;
  Location location;
  TypeTag ref_type_tag{};
  ReferenceTypeId type_id;
  FieldId field_id;
  TaggedObjectId object;
  Value value_to_be;
  JDWP_FIELDS(request_id, thread, location, ref_type_tag, type_id, field_id, object, value_to_be)
};

struct VMDeath {
  static constexpr uint8_t kSelect = 99;
  static constexpr std::string_view kName = "VMDeath";
  int32_t request_id{};
  JDWP_FIELDS(request_id)
};

using EventData = std::variant<
    VMStart, SingleStep, Breakpoint, MethodEntry, MethodExit, MethodExitWithReturnValue, MonitorContendedEnter,
    MonitorContendedEntered, MonitorWait, MonitorWaited, Exception, ThreadStart, ThreadDeath, ClassPrepare,
    ClassUnload, FieldAccess, FieldModification, VMDeath>;

}  // namespace jdwpx::jdwp::events

namespace jdwpx::jdwp::Event {

// Sent VM -> debugger as a command packet; the debugger never replies (Reply stays empty).
struct Composite {
  static constexpr CommandId kId{CommandSet::kEvent, 100};
  static constexpr std::string_view kName = "Event.Composite";
  struct Request {
    SuspendPolicy suspend_policy{};
    std::vector<events::EventData> events;
    JDWP_FIELDS(suspend_policy, events)
  };
  struct Reply { JDWP_FIELDS() };
};

}  // namespace jdwpx::jdwp::Event
