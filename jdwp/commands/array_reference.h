// ArrayReference command set (13): wire layouts only, one struct per command.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::ArrayReference {

struct Length {
  static constexpr CommandId kId{CommandSet::kArrayReference, 1};
  static constexpr std::string_view kName = "ArrayReference.Length";
  struct Request { ArrayId array_object; JDWP_FIELDS(array_object) };
  struct Reply { int32_t array_length{}; JDWP_FIELDS(array_length) };
};

struct GetValues {
  static constexpr CommandId kId{CommandSet::kArrayReference, 2};
  static constexpr std::string_view kName = "ArrayReference.GetValues";
  struct Request {
    ArrayId array_object;
    int32_t first_index{};
    int32_t length{};
    JDWP_FIELDS(array_object, first_index, length)
  };
  struct Reply { ArrayRegion values; JDWP_FIELDS(values) };
};

// rest = repeat int values { untagged-value value }, all of the array's component type;
// read it with DecodeUntaggedValues (jdwp/codec.h).
struct SetValues {
  static constexpr CommandId kId{CommandSet::kArrayReference, 3};
  static constexpr std::string_view kName = "ArrayReference.SetValues";
  struct Request {
    ArrayId array_object;
    int32_t first_index{};
    RawTail rest;
    JDWP_FIELDS(array_object, first_index, rest)
  };
  struct Reply { JDWP_FIELDS() };
};

}  // namespace jdwpx::jdwp::ArrayReference
