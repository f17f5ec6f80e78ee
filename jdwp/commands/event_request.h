// EventRequest command set (15): wire layouts only, one struct per command.
#pragma once

#include "jdwp/commands/common.h"
#include "jdwp/commands/modifiers.h"

namespace jdwpx::jdwp::EventRequest {

struct Set {
  static constexpr CommandId kId{CommandSet::kEventRequest, 1};
  static constexpr std::string_view kName = "EventRequest.Set";
  struct Request {
    EventKind event_kind{};
    SuspendPolicy suspend_policy{};
    std::vector<modifiers::Modifier> modifiers;
    JDWP_FIELDS(event_kind, suspend_policy, modifiers)
  };
  struct Reply { int32_t request_id{}; JDWP_FIELDS(request_id) };
};

struct Clear {
  static constexpr CommandId kId{CommandSet::kEventRequest, 2};
  static constexpr std::string_view kName = "EventRequest.Clear";
  struct Request { EventKind event_kind{}; int32_t request_id{}; JDWP_FIELDS(event_kind, request_id) };
  struct Reply { JDWP_FIELDS() };
};

struct ClearAllBreakpoints {
  static constexpr CommandId kId{CommandSet::kEventRequest, 3};
  static constexpr std::string_view kName = "EventRequest.ClearAllBreakpoints";
  struct Request { JDWP_FIELDS() };
  struct Reply { JDWP_FIELDS() };
};

}  // namespace jdwpx::jdwp::EventRequest
