// Every layout of the protocol, and the list of commands a debugger may send.
#pragma once

#include <string_view>
#include <tuple>
#include <type_traits>

#include "jdwp/commands/virtual_machine.h"
#include "jdwp/commands/reference_type.h"
#include "jdwp/commands/class_type.h"
#include "jdwp/commands/array_type.h"
#include "jdwp/commands/interface_type.h"
#include "jdwp/commands/method.h"
#include "jdwp/commands/object_reference.h"
#include "jdwp/commands/string_reference.h"
#include "jdwp/commands/thread_reference.h"
#include "jdwp/commands/thread_group_reference.h"
#include "jdwp/commands/array_reference.h"
#include "jdwp/commands/class_loader_reference.h"
#include "jdwp/commands/event_request.h"
#include "jdwp/commands/stack_frame.h"
#include "jdwp/commands/class_object_reference.h"
#include "jdwp/commands/module_reference.h"
#include "jdwp/commands/event.h"
#include "jdwp/commands/modifiers.h"
#include "jdwp/commands/probe.h"

namespace jdwpx::jdwp {

// Every command a debugger sends (all but Event.Composite, which the VM sends).
using AllCommands = std::tuple<
    VirtualMachine::Version,
    VirtualMachine::ClassesBySignature,
    VirtualMachine::AllClasses,
    VirtualMachine::AllThreads,
    VirtualMachine::TopLevelThreadGroups,
    VirtualMachine::Dispose,
    VirtualMachine::IDSizes,
    VirtualMachine::Suspend,
    VirtualMachine::Resume,
    VirtualMachine::Exit,
    VirtualMachine::CreateString,
    VirtualMachine::Capabilities,
    VirtualMachine::ClassPaths,
    VirtualMachine::DisposeObjects,
    VirtualMachine::HoldEvents,
    VirtualMachine::ReleaseEvents,
    VirtualMachine::CapabilitiesNew,
    VirtualMachine::RedefineClasses,
    VirtualMachine::SetDefaultStratum,
    VirtualMachine::AllClassesWithGeneric,
    VirtualMachine::InstanceCounts,
    VirtualMachine::AllModules,
    ReferenceType::Signature,
    ReferenceType::ClassLoader,
    ReferenceType::Modifiers,
    ReferenceType::Fields,
    ReferenceType::Methods,
    ReferenceType::GetValues,
    ReferenceType::SourceFile,
    ReferenceType::NestedTypes,
    ReferenceType::Status,
    ReferenceType::Interfaces,
    ReferenceType::ClassObject,
    ReferenceType::SourceDebugExtension,
    ReferenceType::SignatureWithGeneric,
    ReferenceType::FieldsWithGeneric,
    ReferenceType::MethodsWithGeneric,
    ReferenceType::Instances,
    ReferenceType::ClassFileVersion,
    ReferenceType::ConstantPool,
    ReferenceType::Module,
    ClassType::Superclass,
    ClassType::SetValues,
    ClassType::InvokeMethod,
    ClassType::NewInstance,
    ArrayType::NewInstance,
    InterfaceType::InvokeMethod,
    Method::LineTable,
    Method::VariableTable,
    Method::Bytecodes,
    Method::IsObsolete,
    Method::VariableTableWithGeneric,
    ObjectReference::ReferenceType,
    ObjectReference::GetValues,
    ObjectReference::SetValues,
    ObjectReference::MonitorInfo,
    ObjectReference::InvokeMethod,
    ObjectReference::DisableCollection,
    ObjectReference::EnableCollection,
    ObjectReference::IsCollected,
    ObjectReference::ReferringObjects,
    StringReference::Value,
    ThreadReference::Name,
    ThreadReference::Suspend,
    ThreadReference::Resume,
    ThreadReference::Status,
    ThreadReference::ThreadGroup,
    ThreadReference::Frames,
    ThreadReference::FrameCount,
    ThreadReference::OwnedMonitors,
    ThreadReference::CurrentContendedMonitor,
    ThreadReference::Stop,
    ThreadReference::Interrupt,
    ThreadReference::SuspendCount,
    ThreadReference::OwnedMonitorsStackDepthInfo,
    ThreadReference::ForceEarlyReturn,
    ThreadReference::IsVirtual,
    ThreadGroupReference::Name,
    ThreadGroupReference::Parent,
    ThreadGroupReference::Children,
    ArrayReference::Length,
    ArrayReference::GetValues,
    ArrayReference::SetValues,
    ClassLoaderReference::VisibleClasses,
    EventRequest::Set,
    EventRequest::Clear,
    EventRequest::ClearAllBreakpoints,
    StackFrame::GetValues,
    StackFrame::SetValues,
    StackFrame::ThisObject,
    StackFrame::PopFrames,
    ClassObjectReference::ReflectedType,
    ModuleReference::Name,
    ModuleReference::ClassLoader>;

// jdwpx's own commands that a client may send (the stock agent answers NOT_IMPLEMENTED).
using VendorCommands = std::tuple<Probe::Set, Probe::Clear, Probe::List>;

// Commands the VM sends: events, and probe output to the connection that set the probe.
using VmCommands = std::tuple<Event::Composite, Probe::Log, Probe::Snapshot, Probe::Notice>;

// Calls f(std::type_identity<Command>{}) for every command of AllCommands, in order.
template <class F>
void ForEachCommand(F&& f) {
  [&]<class... Cs>(std::type_identity<std::tuple<Cs...>>) { (f(std::type_identity<Cs>{}), ...); }(
      std::type_identity<AllCommands>{});
}

// Calls f(std::type_identity<Command>{}) for the command with this set and number
// (AllCommands, VendorCommands and VmCommands); false when there is none.
template <class F>
bool VisitCommand(uint8_t set, uint8_t command, F&& f) {
  auto matches = [&]<class C>(std::type_identity<C>) {
    return static_cast<uint8_t>(C::kId.set) == set && C::kId.command == command;
  };
  bool found = false;
  auto visit = [&]<class... Cs>(std::type_identity<std::tuple<Cs...>>) {
    ((!found && matches(std::type_identity<Cs>{}) ? (found = true, f(std::type_identity<Cs>{}), 0) : 0), ...);
  };
  visit(std::type_identity<AllCommands>{});
  if (!found) visit(std::type_identity<VendorCommands>{});
  if (!found) visit(std::type_identity<VmCommands>{});
  return found;
}

// "ThreadReference.Frames" for (11, 6), also the vendor and VM-sent commands; "" when the spec defines no such command.
std::string_view CommandName(uint8_t set, uint8_t command);
// "ThreadReference" for 11; "" when unknown.
std::string_view CommandSetName(uint8_t set);

}  // namespace jdwpx::jdwp
