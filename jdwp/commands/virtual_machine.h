// VirtualMachine command set (1): wire layouts only, one struct per command.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::VirtualMachine {

struct Version {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 1};
  static constexpr std::string_view kName = "VirtualMachine.Version";
  struct Request { JDWP_FIELDS() };
  struct Reply {
    std::string description;
    int32_t jdwp_major{};
    int32_t jdwp_minor{};
    std::string vm_version;
    std::string vm_name;
    JDWP_FIELDS(description, jdwp_major, jdwp_minor, vm_version, vm_name)
  };
};

struct ClassesBySignature {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 2};
  static constexpr std::string_view kName = "VirtualMachine.ClassesBySignature";
  struct Class {
    TypeTag ref_type_tag{};
    ReferenceTypeId type_id;
    int32_t status{};
    JDWP_FIELDS(ref_type_tag, type_id, status)
  };
  struct Request { std::string signature; JDWP_FIELDS(signature) };
  struct Reply { std::vector<Class> classes; JDWP_FIELDS(classes) };
};

struct AllClasses {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 3};
  static constexpr std::string_view kName = "VirtualMachine.AllClasses";
  struct Class {
    TypeTag ref_type_tag{};
    ReferenceTypeId type_id;
    std::string signature;
    int32_t status{};
    JDWP_FIELDS(ref_type_tag, type_id, signature, status)
  };
  struct Request { JDWP_FIELDS() };
  // WireList: the agent builds it in wire form from its class table (10,000s of classes).
  struct Reply { WireList<Class> classes; JDWP_FIELDS(classes) };
};

struct AllThreads {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 4};
  static constexpr std::string_view kName = "VirtualMachine.AllThreads";
  struct Request { JDWP_FIELDS() };
  struct Reply { std::vector<ThreadId> threads; JDWP_FIELDS(threads) };
};

struct TopLevelThreadGroups {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 5};
  static constexpr std::string_view kName = "VirtualMachine.TopLevelThreadGroups";
  struct Request { JDWP_FIELDS() };
  struct Reply { std::vector<ThreadGroupId> groups; JDWP_FIELDS(groups) };
};

struct Dispose {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 6};
  static constexpr std::string_view kName = "VirtualMachine.Dispose";
  struct Request { JDWP_FIELDS() };
  struct Reply { JDWP_FIELDS() };
};

struct IDSizes {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 7};
  static constexpr std::string_view kName = "VirtualMachine.IDSizes";
  struct Request { JDWP_FIELDS() };
  struct Reply {
    int32_t field_id_size{};
    int32_t method_id_size{};
    int32_t object_id_size{};
    int32_t reference_type_id_size{};
    int32_t frame_id_size{};
    JDWP_FIELDS(field_id_size, method_id_size, object_id_size, reference_type_id_size, frame_id_size)
  };
};

struct Suspend {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 8};
  static constexpr std::string_view kName = "VirtualMachine.Suspend";
  struct Request { JDWP_FIELDS() };
  struct Reply { JDWP_FIELDS() };
};

struct Resume {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 9};
  static constexpr std::string_view kName = "VirtualMachine.Resume";
  struct Request { JDWP_FIELDS() };
  struct Reply { JDWP_FIELDS() };
};

struct Exit {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 10};
  static constexpr std::string_view kName = "VirtualMachine.Exit";
  struct Request { int32_t exit_code{}; JDWP_FIELDS(exit_code) };
  struct Reply { JDWP_FIELDS() };
};

struct CreateString {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 11};
  static constexpr std::string_view kName = "VirtualMachine.CreateString";
  struct Request { std::string utf; JDWP_FIELDS(utf) };
  struct Reply { StringId string_object; JDWP_FIELDS(string_object) };
};

struct Capabilities {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 12};
  static constexpr std::string_view kName = "VirtualMachine.Capabilities";
  struct Request { JDWP_FIELDS() };
  struct Reply {
    bool can_watch_field_modification{};
    bool can_watch_field_access{};
    bool can_get_bytecodes{};
    bool can_get_synthetic_attribute{};
    bool can_get_owned_monitor_info{};
    bool can_get_current_contended_monitor{};
    bool can_get_monitor_info{};
    JDWP_FIELDS(
        can_watch_field_modification, can_watch_field_access, can_get_bytecodes, can_get_synthetic_attribute,
        can_get_owned_monitor_info, can_get_current_contended_monitor, can_get_monitor_info)
  };
};

struct ClassPaths {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 13};
  static constexpr std::string_view kName = "VirtualMachine.ClassPaths";
  struct Request { JDWP_FIELDS() };
  struct Reply {
    std::string base_dir;
    std::vector<std::string> classpaths;
    std::vector<std::string> bootclasspaths;
    JDWP_FIELDS(base_dir, classpaths, bootclasspaths)
  };
};

// The spec calls each item a "request"; Entry avoids a clash with Request.
struct DisposeObjects {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 14};
  static constexpr std::string_view kName = "VirtualMachine.DisposeObjects";
  struct Entry { ObjectId object; int32_t ref_cnt{}; JDWP_FIELDS(object, ref_cnt) };
  struct Request { std::vector<Entry> requests; JDWP_FIELDS(requests) };
  struct Reply { JDWP_FIELDS() };
};

struct HoldEvents {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 15};
  static constexpr std::string_view kName = "VirtualMachine.HoldEvents";
  struct Request { JDWP_FIELDS() };
  struct Reply { JDWP_FIELDS() };
};

struct ReleaseEvents {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 16};
  static constexpr std::string_view kName = "VirtualMachine.ReleaseEvents";
  struct Request { JDWP_FIELDS() };
  struct Reply { JDWP_FIELDS() };
};

struct CapabilitiesNew {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 17};
  static constexpr std::string_view kName = "VirtualMachine.CapabilitiesNew";
  struct Request { JDWP_FIELDS() };
  struct Reply {
    bool can_watch_field_modification{};
    bool can_watch_field_access{};
    bool can_get_bytecodes{};
    bool can_get_synthetic_attribute{};
    bool can_get_owned_monitor_info{};
    bool can_get_current_contended_monitor{};
    bool can_get_monitor_info{};
    bool can_redefine_classes{};
    bool can_add_method{};
    bool can_unrestrictedly_redefine_classes{};
    bool can_pop_frames{};
    bool can_use_instance_filters{};
    bool can_get_source_debug_extension{};
    bool can_request_vm_death_event{};
    bool can_set_default_stratum{};
    bool can_get_instance_info{};
    bool can_request_monitor_events{};
    bool can_get_monitor_frame_info{};
    bool can_use_source_name_filters{};
    bool can_get_constant_pool{};
    bool can_force_early_return{};
    bool reserved22{};
    bool reserved23{};
    bool reserved24{};
    bool reserved25{};
    bool reserved26{};
    bool reserved27{};
    bool reserved28{};
    bool reserved29{};
    bool reserved30{};
    bool reserved31{};
    bool reserved32{};
    JDWP_FIELDS(
        can_watch_field_modification, can_watch_field_access, can_get_bytecodes, can_get_synthetic_attribute,
        can_get_owned_monitor_info, can_get_current_contended_monitor, can_get_monitor_info, can_redefine_classes,
        can_add_method, can_unrestrictedly_redefine_classes, can_pop_frames, can_use_instance_filters,
        can_get_source_debug_extension, can_request_vm_death_event, can_set_default_stratum, can_get_instance_info,
        can_request_monitor_events, can_get_monitor_frame_info, can_use_source_name_filters, can_get_constant_pool,
        can_force_early_return, reserved22, reserved23, reserved24, reserved25, reserved26, reserved27, reserved28,
        reserved29, reserved30, reserved31, reserved32)
  };
};

struct RedefineClasses {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 18};
  static constexpr std::string_view kName = "VirtualMachine.RedefineClasses";
  struct Class { ReferenceTypeId ref_type; std::vector<uint8_t> classfile; JDWP_FIELDS(ref_type, classfile) };
  struct Request { std::vector<Class> classes; JDWP_FIELDS(classes) };
  struct Reply { JDWP_FIELDS() };
};

struct SetDefaultStratum {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 19};
  static constexpr std::string_view kName = "VirtualMachine.SetDefaultStratum";
  struct Request { std::string stratum_id; JDWP_FIELDS(stratum_id) };
  struct Reply { JDWP_FIELDS() };
};

struct AllClassesWithGeneric {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 20};
  static constexpr std::string_view kName = "VirtualMachine.AllClassesWithGeneric";
  struct Class {
    TypeTag ref_type_tag{};
    ReferenceTypeId type_id;
    std::string signature;
    std::string generic_signature;
    int32_t status{};
    JDWP_FIELDS(ref_type_tag, type_id, signature, generic_signature, status)
  };
  struct Request { JDWP_FIELDS() };
  struct Reply { WireList<Class> classes; JDWP_FIELDS(classes) };  // as AllClasses'
};

struct InstanceCounts {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 21};
  static constexpr std::string_view kName = "VirtualMachine.InstanceCounts";
  static constexpr bool kNegativeCountIsIllegal = true;  // spec: ILLEGAL_ARGUMENT if refTypesCount < 0
  struct Request { std::vector<ReferenceTypeId> ref_types_count; JDWP_FIELDS(ref_types_count) };
  struct Reply { std::vector<int64_t> counts; JDWP_FIELDS(counts) };
};

struct AllModules {
  static constexpr CommandId kId{CommandSet::kVirtualMachine, 22};
  static constexpr std::string_view kName = "VirtualMachine.AllModules";
  struct Request { JDWP_FIELDS() };
  struct Reply { std::vector<ModuleId> modules; JDWP_FIELDS(modules) };
};

}  // namespace jdwpx::jdwp::VirtualMachine
