// ClassLoaderReference command set (14): wire layouts only, one struct per command.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::ClassLoaderReference {

struct VisibleClasses {
  static constexpr CommandId kId{CommandSet::kClassLoaderReference, 1};
  static constexpr std::string_view kName = "ClassLoaderReference.VisibleClasses";
  struct Class { TypeTag ref_type_tag{}; ReferenceTypeId type_id; JDWP_FIELDS(ref_type_tag, type_id) };
  struct Request { ClassLoaderId class_loader_object; JDWP_FIELDS(class_loader_object) };
  struct Reply { std::vector<Class> classes; JDWP_FIELDS(classes) };
};

}  // namespace jdwpx::jdwp::ClassLoaderReference
