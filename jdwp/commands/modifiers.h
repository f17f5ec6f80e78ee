// EventRequest.Set modifiers, selected by their leading byte modKind (= kSelect).
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::modifiers {

struct Count {
  static constexpr uint8_t kSelect = 1;
  static constexpr std::string_view kName = "Count";
  int32_t count{};
  JDWP_FIELDS(count)
};

struct Conditional {
  static constexpr uint8_t kSelect = 2;
  static constexpr std::string_view kName = "Conditional";
  int32_t expr_id{};
  JDWP_FIELDS(expr_id)
};

struct ThreadOnly {
  static constexpr uint8_t kSelect = 3;
  static constexpr std::string_view kName = "ThreadOnly";
  ThreadId thread;
  JDWP_FIELDS(thread)
};

struct ClassOnly {
  static constexpr uint8_t kSelect = 4;
  static constexpr std::string_view kName = "ClassOnly";
  ReferenceTypeId clazz;
  JDWP_FIELDS(clazz)
};

struct ClassMatch {
  static constexpr uint8_t kSelect = 5;
  static constexpr std::string_view kName = "ClassMatch";
  std::string class_pattern;
  JDWP_FIELDS(class_pattern)
};

struct ClassExclude {
  static constexpr uint8_t kSelect = 6;
  static constexpr std::string_view kName = "ClassExclude";
  std::string class_pattern;
  JDWP_FIELDS(class_pattern)
};

struct LocationOnly {
  static constexpr uint8_t kSelect = 7;
  static constexpr std::string_view kName = "LocationOnly";
  Location loc;
  JDWP_FIELDS(loc)
};

struct ExceptionOnly {
  static constexpr uint8_t kSelect = 8;
  static constexpr std::string_view kName = "ExceptionOnly";
  ReferenceTypeId exception_or_null;
  bool caught{};
  bool uncaught{};
  JDWP_FIELDS(exception_or_null, caught, uncaught)
};

struct FieldOnly {
  static constexpr uint8_t kSelect = 9;
  static constexpr std::string_view kName = "FieldOnly";
  ReferenceTypeId declaring;
  FieldId field_id;
  JDWP_FIELDS(declaring, field_id)
};

struct Step {
  static constexpr uint8_t kSelect = 10;
  static constexpr std::string_view kName = "Step";
  ThreadId thread;
  StepSize size{};
  StepDepth depth{};
  JDWP_FIELDS(thread, size, depth)
};

struct InstanceOnly {
  static constexpr uint8_t kSelect = 11;
  static constexpr std::string_view kName = "InstanceOnly";
  ObjectId instance;
  JDWP_FIELDS(instance)
};

struct SourceNameMatch {
  static constexpr uint8_t kSelect = 12;
  static constexpr std::string_view kName = "SourceNameMatch";
  std::string source_name_pattern;
  JDWP_FIELDS(source_name_pattern)
};

struct PlatformThreadsOnly {
  static constexpr uint8_t kSelect = 13;
  static constexpr std::string_view kName = "PlatformThreadsOnly";
  JDWP_FIELDS()
};

using Modifier = std::variant<
    Count, Conditional, ThreadOnly, ClassOnly, ClassMatch, ClassExclude, LocationOnly, ExceptionOnly, FieldOnly,
    Step, InstanceOnly, SourceNameMatch, PlatformThreadsOnly>;

}  // namespace jdwpx::jdwp::modifiers
