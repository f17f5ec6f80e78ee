// Method command set (6): wire layouts only, one struct per command.
#pragma once

#include "jdwp/commands/common.h"

namespace jdwpx::jdwp::Method {

struct LineTable {
  static constexpr CommandId kId{CommandSet::kMethod, 1};
  static constexpr std::string_view kName = "Method.LineTable";
  struct Line { int64_t line_code_index{}; int32_t line_number{}; JDWP_FIELDS(line_code_index, line_number) };
  struct Request { ReferenceTypeId ref_type; MethodId method_id; JDWP_FIELDS(ref_type, method_id) };
  struct Reply { int64_t start{}; int64_t end{}; std::vector<Line> lines; JDWP_FIELDS(start, end, lines) };
};

struct VariableTable {
  static constexpr CommandId kId{CommandSet::kMethod, 2};
  static constexpr std::string_view kName = "Method.VariableTable";
  struct Slot {
    int64_t code_index{};
    std::string name;
    std::string signature;
    int32_t length{};
    int32_t slot{};
    JDWP_FIELDS(code_index, name, signature, length, slot)
  };
  struct Request { ReferenceTypeId ref_type; MethodId method_id; JDWP_FIELDS(ref_type, method_id) };
  struct Reply { int32_t arg_cnt{}; std::vector<Slot> slots; JDWP_FIELDS(arg_cnt, slots) };
};

struct Bytecodes {
  static constexpr CommandId kId{CommandSet::kMethod, 3};
  static constexpr std::string_view kName = "Method.Bytecodes";
  struct Request { ReferenceTypeId ref_type; MethodId method_id; JDWP_FIELDS(ref_type, method_id) };
  struct Reply { std::vector<uint8_t> bytes; JDWP_FIELDS(bytes) };
};

struct IsObsolete {
  static constexpr CommandId kId{CommandSet::kMethod, 4};
  static constexpr std::string_view kName = "Method.IsObsolete";
  struct Request { ReferenceTypeId ref_type; MethodId method_id; JDWP_FIELDS(ref_type, method_id) };
  struct Reply { bool is_obsolete{}; JDWP_FIELDS(is_obsolete) };
};

struct VariableTableWithGeneric {
  static constexpr CommandId kId{CommandSet::kMethod, 5};
  static constexpr std::string_view kName = "Method.VariableTableWithGeneric";
  struct Slot {
    int64_t code_index{};
    std::string name;
    std::string signature;
    std::string generic_signature;
    int32_t length{};
    int32_t slot{};
    JDWP_FIELDS(code_index, name, signature, generic_signature, length, slot)
  };
  struct Request { ReferenceTypeId ref_type; MethodId method_id; JDWP_FIELDS(ref_type, method_id) };
  struct Reply { int32_t arg_cnt{}; std::vector<Slot> slots; JDWP_FIELDS(arg_cnt, slots) };
};

}  // namespace jdwpx::jdwp::Method
