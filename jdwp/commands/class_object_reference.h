// ClassObjectReference command set (17): wire layouts only, one struct per command.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::ClassObjectReference {

struct ReflectedType {
  static constexpr CommandId kId{CommandSet::kClassObjectReference, 1};
  static constexpr std::string_view kName = "ClassObjectReference.ReflectedType";
  struct Request { ClassObjectId class_object; JDWP_FIELDS(class_object) };
  struct Reply { TypeTag ref_type_tag{}; ReferenceTypeId type_id; JDWP_FIELDS(ref_type_tag, type_id) };
};

}  // namespace jdwpx::jdwp::ClassObjectReference
