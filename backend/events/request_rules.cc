#include "backend/events/request_rules.h"

#include <type_traits>
#include <variant>

namespace jdwpx::backend {

using jdwp::EventKind;
namespace mod = jdwp::modifiers;

KindSupport SupportOf(EventKind kind) {
  switch (kind) {
    case EventKind::kSingleStep:
    case EventKind::kBreakpoint:
    case EventKind::kException:
    case EventKind::kThreadStart:
    case EventKind::kThreadDeath:
    case EventKind::kClassPrepare:
    case EventKind::kClassUnload:
    case EventKind::kFieldAccess:
    case EventKind::kFieldModification:
    case EventKind::kMethodEntry:
    case EventKind::kMethodExit:
    case EventKind::kMethodExitWithReturnValue:
    case EventKind::kMonitorContendedEnter:
    case EventKind::kMonitorContendedEntered:
    case EventKind::kMonitorWait:
    case EventKind::kMonitorWaited:
    case EventKind::kVmDeath:
      return KindSupport::kRequest;
    case EventKind::kVmStart:
      return KindSupport::kVmStart;
    default:
      return KindSupport::kInvalid;
  }
}

bool ModifierAllowed(EventKind kind, const mod::Modifier& modifier, int jdk_feature_version) {
  const bool thread_event = kind == EventKind::kThreadStart || kind == EventKind::kThreadDeath;
  const bool field_event = kind == EventKind::kFieldAccess || kind == EventKind::kFieldModification;
  return std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, mod::ThreadOnly>) {
          return kind != EventKind::kClassUnload;  // an unload happens in no thread
        } else if constexpr (std::is_same_v<T, mod::ClassOnly>) {
          return !thread_event && kind != EventKind::kClassUnload;
        } else if constexpr (std::is_same_v<T, mod::ClassMatch> || std::is_same_v<T, mod::ClassExclude>) {
          return !thread_event;
        } else if constexpr (std::is_same_v<T, mod::LocationOnly>) {
          return kind == EventKind::kBreakpoint || field_event || kind == EventKind::kSingleStep ||
                 kind == EventKind::kException;
        } else if constexpr (std::is_same_v<T, mod::FieldOnly>) {
          return field_event;
        } else if constexpr (std::is_same_v<T, mod::ExceptionOnly>) {
          return kind == EventKind::kException;
        } else if constexpr (std::is_same_v<T, mod::Step>) {
          return kind == EventKind::kSingleStep;
        } else if constexpr (std::is_same_v<T, mod::SourceNameMatch>) {
          return kind == EventKind::kClassPrepare;
        } else if constexpr (std::is_same_v<T, mod::PlatformThreadsOnly>) {
          return jdk_feature_version >= 21 && thread_event;
        } else {
          return true;  // Count, Conditional, InstanceOnly: any kind
        }
      },
      modifier);
}

}  // namespace jdwpx::backend
