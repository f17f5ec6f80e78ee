// Which event kinds EventRequest.Set takes and which modifiers each kind
// takes, as the stock agent decides (EventRequestImpl.c setCommand, the
// eventFilter_set*Filter checks): a request stock refuses is refused with its
// error, one it takes is taken. Pure functions, table-tested
// (backend/tests/request_rules_test.cc) and checked against stock
// (integration.event_requests).
#pragma once

#include "jdwp/commands/modifiers.h"
#include "jdwp/constants.h"

namespace jdwpx::backend {

enum class KindSupport {
  kRequest,  // a request is made and its events reported
  kVmStart,  // VM_START: accepted with an ID and nothing else (the VM has started; filters are not read)
  kInvalid,  // INVALID_EVENT_TYPE: not a kind, or one stock has no handler for (FRAME_POP,
             // EXCEPTION_CATCH, CLASS_LOAD, USER_DEFINED, VM_DISCONNECTED)
};
KindSupport SupportOf(jdwp::EventKind kind);

// Whether `modifier` may be used in a request of `kind` (ILLEGAL_ARGUMENT when
// not). `jdk_feature_version`: PlatformThreadsOnly exists from JDWP 21 on.
bool ModifierAllowed(jdwp::EventKind kind, const jdwp::modifiers::Modifier& modifier, int jdk_feature_version);

}  // namespace jdwpx::backend
