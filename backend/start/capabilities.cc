#include "backend/start/capabilities.h"

namespace jdwpx::backend {

jvmtiCapabilities DebuggerCapabilities(const jvmtiCapabilities& potential) {
  jvmtiCapabilities caps{};
  caps.can_tag_objects = potential.can_tag_objects;
  caps.can_get_owned_monitor_info = potential.can_get_owned_monitor_info;
  caps.can_get_current_contended_monitor = potential.can_get_current_contended_monitor;
  caps.can_get_monitor_info = potential.can_get_monitor_info;
  caps.can_pop_frame = potential.can_pop_frame;
  caps.can_redefine_classes = potential.can_redefine_classes;
  caps.can_signal_thread = potential.can_signal_thread;
  caps.can_get_source_file_name = potential.can_get_source_file_name;
  caps.can_get_line_numbers = potential.can_get_line_numbers;
  caps.can_get_source_debug_extension = potential.can_get_source_debug_extension;
  caps.can_access_local_variables = potential.can_access_local_variables;
  caps.can_maintain_original_method_order = potential.can_maintain_original_method_order;
  caps.can_generate_single_step_events = potential.can_generate_single_step_events;
  caps.can_generate_exception_events = potential.can_generate_exception_events;
  caps.can_generate_frame_pop_events = potential.can_generate_frame_pop_events;
  caps.can_generate_breakpoint_events = potential.can_generate_breakpoint_events;
  caps.can_suspend = potential.can_suspend;
  caps.can_get_bytecodes = potential.can_get_bytecodes;
  caps.can_get_synthetic_attribute = potential.can_get_synthetic_attribute;
  caps.can_generate_field_modification_events = potential.can_generate_field_modification_events;
  caps.can_generate_field_access_events = potential.can_generate_field_access_events;
  caps.can_generate_method_entry_events = potential.can_generate_method_entry_events;
  caps.can_generate_method_exit_events = potential.can_generate_method_exit_events;
  caps.can_generate_monitor_events = potential.can_generate_monitor_events;
  caps.can_get_constant_pool = potential.can_get_constant_pool;
  caps.can_force_early_return = potential.can_force_early_return;
  caps.can_get_owned_monitor_stack_depth_info = potential.can_get_owned_monitor_stack_depth_info;
  caps.can_generate_all_class_hook_events = potential.can_generate_all_class_hook_events;
  return caps;
}

}  // namespace jdwpx::backend
