// ReferenceType command set (2): wire layouts only, one struct per command.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::ReferenceType {

struct Signature {
  static constexpr CommandId kId{CommandSet::kReferenceType, 1};
  static constexpr std::string_view kName = "ReferenceType.Signature";
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { std::string signature; JDWP_FIELDS(signature) };
};

struct ClassLoader {
  static constexpr CommandId kId{CommandSet::kReferenceType, 2};
  static constexpr std::string_view kName = "ReferenceType.ClassLoader";
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { ClassLoaderId class_loader; JDWP_FIELDS(class_loader) };
};

struct Modifiers {
  static constexpr CommandId kId{CommandSet::kReferenceType, 3};
  static constexpr std::string_view kName = "ReferenceType.Modifiers";
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { int32_t mod_bits{}; JDWP_FIELDS(mod_bits) };
};

struct Fields {
  static constexpr CommandId kId{CommandSet::kReferenceType, 4};
  static constexpr std::string_view kName = "ReferenceType.Fields";
  struct Field {
    FieldId field_id;
    std::string name;
    std::string signature;
    int32_t mod_bits{};
    JDWP_FIELDS(field_id, name, signature, mod_bits)
  };
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { std::vector<Field> declared; JDWP_FIELDS(declared) };
};

struct Methods {
  static constexpr CommandId kId{CommandSet::kReferenceType, 5};
  static constexpr std::string_view kName = "ReferenceType.Methods";
  struct Method {
    MethodId method_id;
    std::string name;
    std::string signature;
    int32_t mod_bits{};
    JDWP_FIELDS(method_id, name, signature, mod_bits)
  };
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { std::vector<Method> declared; JDWP_FIELDS(declared) };
};

struct GetValues {
  static constexpr CommandId kId{CommandSet::kReferenceType, 6};
  static constexpr std::string_view kName = "ReferenceType.GetValues";
  struct Request { ReferenceTypeId ref_type; std::vector<FieldId> fields; JDWP_FIELDS(ref_type, fields) };
  struct Reply { std::vector<Value> values; JDWP_FIELDS(values) };
};

struct SourceFile {
  static constexpr CommandId kId{CommandSet::kReferenceType, 7};
  static constexpr std::string_view kName = "ReferenceType.SourceFile";
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { std::string source_file; JDWP_FIELDS(source_file) };
};

struct NestedTypes {
  static constexpr CommandId kId{CommandSet::kReferenceType, 8};
  static constexpr std::string_view kName = "ReferenceType.NestedTypes";
  struct Class { TypeTag ref_type_tag{}; ReferenceTypeId type_id; JDWP_FIELDS(ref_type_tag, type_id) };
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { std::vector<Class> classes; JDWP_FIELDS(classes) };
};

struct Status {
  static constexpr CommandId kId{CommandSet::kReferenceType, 9};
  static constexpr std::string_view kName = "ReferenceType.Status";
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { int32_t status{}; JDWP_FIELDS(status) };
};

struct Interfaces {
  static constexpr CommandId kId{CommandSet::kReferenceType, 10};
  static constexpr std::string_view kName = "ReferenceType.Interfaces";
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { std::vector<InterfaceId> interfaces; JDWP_FIELDS(interfaces) };
};

struct ClassObject {
  static constexpr CommandId kId{CommandSet::kReferenceType, 11};
  static constexpr std::string_view kName = "ReferenceType.ClassObject";
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { ClassObjectId class_object; JDWP_FIELDS(class_object) };
};

struct SourceDebugExtension {
  static constexpr CommandId kId{CommandSet::kReferenceType, 12};
  static constexpr std::string_view kName = "ReferenceType.SourceDebugExtension";
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { std::string extension; JDWP_FIELDS(extension) };
};

struct SignatureWithGeneric {
  static constexpr CommandId kId{CommandSet::kReferenceType, 13};
  static constexpr std::string_view kName = "ReferenceType.SignatureWithGeneric";
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { std::string signature; std::string generic_signature; JDWP_FIELDS(signature, generic_signature) };
};

struct FieldsWithGeneric {
  static constexpr CommandId kId{CommandSet::kReferenceType, 14};
  static constexpr std::string_view kName = "ReferenceType.FieldsWithGeneric";
  struct Field {
    FieldId field_id;
    std::string name;
    std::string signature;
    std::string generic_signature;
    int32_t mod_bits{};
    JDWP_FIELDS(field_id, name, signature, generic_signature, mod_bits)
  };
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { std::vector<Field> declared; JDWP_FIELDS(declared) };
};

struct MethodsWithGeneric {
  static constexpr CommandId kId{CommandSet::kReferenceType, 15};
  static constexpr std::string_view kName = "ReferenceType.MethodsWithGeneric";
  struct Method {
    MethodId method_id;
    std::string name;
    std::string signature;
    std::string generic_signature;
    int32_t mod_bits{};
    JDWP_FIELDS(method_id, name, signature, generic_signature, mod_bits)
  };
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { std::vector<Method> declared; JDWP_FIELDS(declared) };
};

struct Instances {
  static constexpr CommandId kId{CommandSet::kReferenceType, 16};
  static constexpr std::string_view kName = "ReferenceType.Instances";
  struct Request { ReferenceTypeId ref_type; int32_t max_instances{}; JDWP_FIELDS(ref_type, max_instances) };
  struct Reply { std::vector<TaggedObjectId> instances; JDWP_FIELDS(instances) };
};

struct ClassFileVersion {
  static constexpr CommandId kId{CommandSet::kReferenceType, 17};
  static constexpr std::string_view kName = "ReferenceType.ClassFileVersion";
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { int32_t major_version{}; int32_t minor_version{}; JDWP_FIELDS(major_version, minor_version) };
};

struct ConstantPool {
  static constexpr CommandId kId{CommandSet::kReferenceType, 18};
  static constexpr std::string_view kName = "ReferenceType.ConstantPool";
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { int32_t count{}; std::vector<uint8_t> bytes; JDWP_FIELDS(count, bytes) };
};

struct Module {
  static constexpr CommandId kId{CommandSet::kReferenceType, 19};
  static constexpr std::string_view kName = "ReferenceType.Module";
  struct Request { ReferenceTypeId ref_type; JDWP_FIELDS(ref_type) };
  struct Reply { ModuleId module; JDWP_FIELDS(module) };
};

}  // namespace jdwpx::jdwp::ReferenceType
