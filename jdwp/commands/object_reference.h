// ObjectReference command set (9): wire layouts only, one struct per command.
// Command 4 is unassigned.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::ObjectReference {

struct ReferenceType {
  static constexpr CommandId kId{CommandSet::kObjectReference, 1};
  static constexpr std::string_view kName = "ObjectReference.ReferenceType";
  struct Request { ObjectId object; JDWP_FIELDS(object) };
  struct Reply { TypeTag ref_type_tag{}; ReferenceTypeId type_id; JDWP_FIELDS(ref_type_tag, type_id) };
};

struct GetValues {
  static constexpr CommandId kId{CommandSet::kObjectReference, 2};
  static constexpr std::string_view kName = "ObjectReference.GetValues";
  struct Request { ObjectId object; std::vector<FieldId> fields; JDWP_FIELDS(object, fields) };
  struct Reply { std::vector<Value> values; JDWP_FIELDS(values) };
};

// rest = repeat int values { fieldID fieldID; untagged-value value }: each value's type is
// its field's; read it with DecodeFieldValues (jdwp/codec.h).
struct SetValues {
  static constexpr CommandId kId{CommandSet::kObjectReference, 3};
  static constexpr std::string_view kName = "ObjectReference.SetValues";
  struct Request { ObjectId object; RawTail rest; JDWP_FIELDS(object, rest) };
  struct Reply { JDWP_FIELDS() };
};

struct MonitorInfo {
  static constexpr CommandId kId{CommandSet::kObjectReference, 5};
  static constexpr std::string_view kName = "ObjectReference.MonitorInfo";
  struct Request { ObjectId object; JDWP_FIELDS(object) };
  struct Reply {
    ThreadId owner;
    int32_t entry_count{};
    std::vector<ThreadId> waiters;
    JDWP_FIELDS(owner, entry_count, waiters)
  };
};

struct InvokeMethod {
  static constexpr CommandId kId{CommandSet::kObjectReference, 6};
  static constexpr std::string_view kName = "ObjectReference.InvokeMethod";
  struct Request {
    ObjectId object;
    ThreadId thread;
    ClassId clazz;
    MethodId method_id;
    std::vector<Value> arguments;
    int32_t options{};
    JDWP_FIELDS(object, thread, clazz, method_id, arguments, options)
  };
  struct Reply { Value return_value; TaggedObjectId exception; JDWP_FIELDS(return_value, exception) };
};

struct DisableCollection {
  static constexpr CommandId kId{CommandSet::kObjectReference, 7};
  static constexpr std::string_view kName = "ObjectReference.DisableCollection";
  struct Request { ObjectId object; JDWP_FIELDS(object) };
  struct Reply { JDWP_FIELDS() };
};

struct EnableCollection {
  static constexpr CommandId kId{CommandSet::kObjectReference, 8};
  static constexpr std::string_view kName = "ObjectReference.EnableCollection";
  struct Request { ObjectId object; JDWP_FIELDS(object) };
  struct Reply { JDWP_FIELDS() };
};

struct IsCollected {
  static constexpr CommandId kId{CommandSet::kObjectReference, 9};
  static constexpr std::string_view kName = "ObjectReference.IsCollected";
  struct Request { ObjectId object; JDWP_FIELDS(object) };
  struct Reply { bool is_collected{}; JDWP_FIELDS(is_collected) };
};

struct ReferringObjects {
  static constexpr CommandId kId{CommandSet::kObjectReference, 10};
  static constexpr std::string_view kName = "ObjectReference.ReferringObjects";
  struct Request { ObjectId object; int32_t max_referrers{}; JDWP_FIELDS(object, max_referrers) };
  struct Reply { std::vector<TaggedObjectId> referring_objects; JDWP_FIELDS(referring_objects) };
};

}  // namespace jdwpx::jdwp::ObjectReference
