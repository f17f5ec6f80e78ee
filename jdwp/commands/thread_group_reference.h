// ThreadGroupReference command set (12): wire layouts only, one struct per command.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::ThreadGroupReference {

struct Name {
  static constexpr CommandId kId{CommandSet::kThreadGroupReference, 1};
  static constexpr std::string_view kName = "ThreadGroupReference.Name";
  struct Request { ThreadGroupId group; JDWP_FIELDS(group) };
  struct Reply { std::string group_name; JDWP_FIELDS(group_name) };
};

struct Parent {
  static constexpr CommandId kId{CommandSet::kThreadGroupReference, 2};
  static constexpr std::string_view kName = "ThreadGroupReference.Parent";
  struct Request { ThreadGroupId group; JDWP_FIELDS(group) };
  struct Reply { ThreadGroupId parent_group; JDWP_FIELDS(parent_group) };
};

struct Children {
  static constexpr CommandId kId{CommandSet::kThreadGroupReference, 3};
  static constexpr std::string_view kName = "ThreadGroupReference.Children";
  struct Request { ThreadGroupId group; JDWP_FIELDS(group) };
  struct Reply {
    std::vector<ThreadId> child_threads;
    std::vector<ThreadGroupId> child_groups;
    JDWP_FIELDS(child_threads, child_groups)
  };
};

}  // namespace jdwpx::jdwp::ThreadGroupReference
