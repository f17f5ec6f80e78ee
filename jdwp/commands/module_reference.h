// ModuleReference command set (18): wire layouts only, one struct per command.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::ModuleReference {

struct Name {
  static constexpr CommandId kId{CommandSet::kModuleReference, 1};
  static constexpr std::string_view kName = "ModuleReference.Name";
  struct Request { ModuleId module; JDWP_FIELDS(module) };
  struct Reply { std::string name; JDWP_FIELDS(name) };
};

struct ClassLoader {
  static constexpr CommandId kId{CommandSet::kModuleReference, 2};
  static constexpr std::string_view kName = "ModuleReference.ClassLoader";
  struct Request { ModuleId module; JDWP_FIELDS(module) };
  struct Reply { ClassLoaderId class_loader; JDWP_FIELDS(class_loader) };
};

}  // namespace jdwpx::jdwp::ModuleReference
