// InterfaceType command set (5): wire layouts only, one struct per command.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::InterfaceType {

struct InvokeMethod {
  static constexpr CommandId kId{CommandSet::kInterfaceType, 1};
  static constexpr std::string_view kName = "InterfaceType.InvokeMethod";
  struct Request {
    InterfaceId clazz;
    ThreadId thread;
    MethodId method_id;
    std::vector<Value> arguments;
    int32_t options{};
    JDWP_FIELDS(clazz, thread, method_id, arguments, options)
  };
  struct Reply { Value return_value; TaggedObjectId exception; JDWP_FIELDS(return_value, exception) };
};

}  // namespace jdwpx::jdwp::InterfaceType
