// ClassType command set (3): wire layouts only, one struct per command.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::ClassType {

struct Superclass {
  static constexpr CommandId kId{CommandSet::kClassType, 1};
  static constexpr std::string_view kName = "ClassType.Superclass";
  struct Request { ClassId clazz; JDWP_FIELDS(clazz) };
  struct Reply { ClassId superclass; JDWP_FIELDS(superclass) };
};

// rest = repeat int values { fieldID fieldID; untagged-value value }: each value's type is
// its field's; read it with DecodeFieldValues (jdwp/codec.h).
struct SetValues {
  static constexpr CommandId kId{CommandSet::kClassType, 2};
  static constexpr std::string_view kName = "ClassType.SetValues";
  struct Request { ClassId clazz; RawTail rest; JDWP_FIELDS(clazz, rest) };
  struct Reply { JDWP_FIELDS() };
};

struct InvokeMethod {
  static constexpr CommandId kId{CommandSet::kClassType, 3};
  static constexpr std::string_view kName = "ClassType.InvokeMethod";
  struct Request {
    ClassId clazz;
    ThreadId thread;
    MethodId method_id;
    std::vector<Value> arguments;
    int32_t options{};
    JDWP_FIELDS(clazz, thread, method_id, arguments, options)
  };
  struct Reply { Value return_value; TaggedObjectId exception; JDWP_FIELDS(return_value, exception) };
};

struct NewInstance {
  static constexpr CommandId kId{CommandSet::kClassType, 4};
  static constexpr std::string_view kName = "ClassType.NewInstance";
  struct Request {
    ClassId clazz;
    ThreadId thread;
    MethodId method_id;
    std::vector<Value> arguments;
    int32_t options{};
    JDWP_FIELDS(clazz, thread, method_id, arguments, options)
  };
  struct Reply { TaggedObjectId new_object; TaggedObjectId exception; JDWP_FIELDS(new_object, exception) };
};

}  // namespace jdwpx::jdwp::ClassType
