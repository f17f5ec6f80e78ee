// StringReference command set (10): wire layouts only, one struct per command.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::StringReference {

// Named as in the spec; within this namespace `Value` is this command, jdwp::Value the tagged value.
struct Value {
  static constexpr CommandId kId{CommandSet::kStringReference, 1};
  static constexpr std::string_view kName = "StringReference.Value";
  struct Request { ObjectId string_object; JDWP_FIELDS(string_object) };
  struct Reply { WireString string_value; JDWP_FIELDS(string_value) };
};

}  // namespace jdwpx::jdwp::StringReference
