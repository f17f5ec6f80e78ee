#include <algorithm>
#include <array>

#include "jdwp/commands/all.h"

namespace jdwpx::jdwp {
namespace {

struct NamedCommand {
  uint8_t set;
  uint8_t command;
  std::string_view name;
};

constexpr auto kCommandNames = [] {
  std::array<NamedCommand, std::tuple_size_v<AllCommands> + std::tuple_size_v<VendorCommands> +
                               std::tuple_size_v<VmCommands>>
      names{};
  size_t i = 0;
  auto add = [&]<class C>(std::type_identity<C>) {
    names[i++] = NamedCommand{static_cast<uint8_t>(C::kId.set), C::kId.command, C::kName};
  };
  auto add_all = [&]<class... Cs>(std::type_identity<std::tuple<Cs...>>) { (add(std::type_identity<Cs>{}), ...); };
  add_all(std::type_identity<AllCommands>{});
  add_all(std::type_identity<VendorCommands>{});
  add_all(std::type_identity<VmCommands>{});
  return names;
}();

}  // namespace

std::string_view CommandName(uint8_t set, uint8_t command) {
  for (const NamedCommand& c : kCommandNames) {
    if (c.set == set && c.command == command) return c.name;
  }
  return {};
}

std::string_view CommandSetName(uint8_t set) {
  switch (static_cast<CommandSet>(set)) {
    case CommandSet::kVirtualMachine: return "VirtualMachine";
    case CommandSet::kReferenceType: return "ReferenceType";
    case CommandSet::kClassType: return "ClassType";
    case CommandSet::kArrayType: return "ArrayType";
    case CommandSet::kInterfaceType: return "InterfaceType";
    case CommandSet::kMethod: return "Method";
    case CommandSet::kField: return "Field";
    case CommandSet::kObjectReference: return "ObjectReference";
    case CommandSet::kStringReference: return "StringReference";
    case CommandSet::kThreadReference: return "ThreadReference";
    case CommandSet::kThreadGroupReference: return "ThreadGroupReference";
    case CommandSet::kArrayReference: return "ArrayReference";
    case CommandSet::kClassLoaderReference: return "ClassLoaderReference";
    case CommandSet::kEventRequest: return "EventRequest";
    case CommandSet::kStackFrame: return "StackFrame";
    case CommandSet::kClassObjectReference: return "ClassObjectReference";
    case CommandSet::kModuleReference: return "ModuleReference";
    case CommandSet::kEvent: return "Event";
    case CommandSet::kProbe: return "Probe";
  }
  return {};
}

}  // namespace jdwpx::jdwp
