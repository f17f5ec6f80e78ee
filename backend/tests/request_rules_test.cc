// Stock's table of event kinds and modifiers per kind (request_rules.h), row by row.
#include "backend/events/request_rules.h"

#include <gtest/gtest.h>

namespace jdwpx::backend {
namespace {

using jdwp::EventKind;
namespace mod = jdwp::modifiers;

TEST(RequestRules, KindsStockReportsAreRequests) {
  for (auto kind : {EventKind::kSingleStep, EventKind::kBreakpoint, EventKind::kException, EventKind::kThreadStart,
                    EventKind::kThreadDeath, EventKind::kClassPrepare, EventKind::kClassUnload,
                    EventKind::kFieldAccess, EventKind::kFieldModification, EventKind::kMethodEntry,
                    EventKind::kMethodExit, EventKind::kMethodExitWithReturnValue,
                    EventKind::kMonitorContendedEnter, EventKind::kMonitorContendedEntered, EventKind::kMonitorWait,
                    EventKind::kMonitorWaited, EventKind::kVmDeath})
    EXPECT_EQ(SupportOf(kind), KindSupport::kRequest) << static_cast<int>(kind);
}

TEST(RequestRules, VmStartIsAcceptedAndNothingElse) {
  EXPECT_EQ(SupportOf(EventKind::kVmStart), KindSupport::kVmStart);
}

TEST(RequestRules, KindsWithoutAHandlerInStockAreInvalid) {
  for (int kind : {0, 3, 5, 10, 11, 30, 47, 89, 100, 255})
    EXPECT_EQ(SupportOf(static_cast<EventKind>(kind)), KindSupport::kInvalid) << kind;
}

TEST(RequestRules, ModifiersPerKind) {
  const mod::Modifier thread_only = mod::ThreadOnly{};
  const mod::Modifier class_only = mod::ClassOnly{};
  const mod::Modifier class_match = mod::ClassMatch{"*"};
  const mod::Modifier location = mod::LocationOnly{};
  const mod::Modifier field = mod::FieldOnly{};
  const mod::Modifier exception = mod::ExceptionOnly{};
  const mod::Modifier step = mod::Step{};
  const mod::Modifier source = mod::SourceNameMatch{"*"};
  const mod::Modifier platform = mod::PlatformThreadsOnly{};
  const mod::Modifier count = mod::Count{1};
  const mod::Modifier instance = mod::InstanceOnly{};

  EXPECT_FALSE(ModifierAllowed(EventKind::kClassUnload, thread_only, 21));
  EXPECT_TRUE(ModifierAllowed(EventKind::kVmDeath, thread_only, 21));
  EXPECT_FALSE(ModifierAllowed(EventKind::kThreadStart, class_only, 21));
  EXPECT_FALSE(ModifierAllowed(EventKind::kThreadDeath, class_match, 21));
  EXPECT_FALSE(ModifierAllowed(EventKind::kClassUnload, class_only, 21));
  EXPECT_TRUE(ModifierAllowed(EventKind::kClassUnload, class_match, 21));
  EXPECT_TRUE(ModifierAllowed(EventKind::kMonitorWait, class_only, 21));
  EXPECT_TRUE(ModifierAllowed(EventKind::kBreakpoint, location, 21));
  EXPECT_TRUE(ModifierAllowed(EventKind::kSingleStep, location, 21));
  EXPECT_TRUE(ModifierAllowed(EventKind::kFieldModification, location, 21));
  EXPECT_TRUE(ModifierAllowed(EventKind::kException, location, 21));
  EXPECT_FALSE(ModifierAllowed(EventKind::kMethodEntry, location, 21));
  EXPECT_FALSE(ModifierAllowed(EventKind::kMonitorWaited, location, 21));
  EXPECT_TRUE(ModifierAllowed(EventKind::kFieldAccess, field, 21));
  EXPECT_FALSE(ModifierAllowed(EventKind::kBreakpoint, field, 21));
  EXPECT_TRUE(ModifierAllowed(EventKind::kException, exception, 21));
  EXPECT_FALSE(ModifierAllowed(EventKind::kBreakpoint, exception, 21));
  EXPECT_TRUE(ModifierAllowed(EventKind::kSingleStep, step, 21));
  EXPECT_FALSE(ModifierAllowed(EventKind::kMethodEntry, step, 21));
  EXPECT_TRUE(ModifierAllowed(EventKind::kClassPrepare, source, 21));
  EXPECT_FALSE(ModifierAllowed(EventKind::kClassUnload, source, 21));
  EXPECT_TRUE(ModifierAllowed(EventKind::kThreadStart, platform, 21));
  EXPECT_FALSE(ModifierAllowed(EventKind::kThreadStart, platform, 17));  // no such modifier before JDWP 21
  EXPECT_FALSE(ModifierAllowed(EventKind::kMethodEntry, platform, 21));
  for (auto kind : {EventKind::kSingleStep, EventKind::kThreadStart, EventKind::kClassUnload, EventKind::kVmDeath}) {
    EXPECT_TRUE(ModifierAllowed(kind, count, 17));
    EXPECT_TRUE(ModifierAllowed(kind, instance, 17));
  }
}

}  // namespace
}  // namespace jdwpx::backend
