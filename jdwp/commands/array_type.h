// ArrayType command set (4): wire layouts only, one struct per command.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::ArrayType {

struct NewInstance {
  static constexpr CommandId kId{CommandSet::kArrayType, 1};
  static constexpr std::string_view kName = "ArrayType.NewInstance";
  struct Request { ArrayTypeId arr_type; int32_t length{}; JDWP_FIELDS(arr_type, length) };
  struct Reply { TaggedObjectId new_array; JDWP_FIELDS(new_array) };
};

}  // namespace jdwpx::jdwp::ArrayType
