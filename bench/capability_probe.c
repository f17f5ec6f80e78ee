/* A JVMTI agent that only adds capabilities and enables no event: which capability makes an
 * agent-loaded JVM slower (docs/performance.md, "What a loaded agent costs").
 *
 *   gcc -shared -fPIC -O2 -I$JDK/include -I$JDK/include/linux -o libcapprobe.so bench/capability_probe.c
 *   java -agentpath:./libcapprobe.so=<set> -cp <DormantWork's classes> DormantWork exceptions 20000
 *
 * <set>: all (every potential capability), none, only:<names> (those of the potential ones),
 * all-but:<names> (every potential one but those); <names> is a comma-separated list of
 * jvmtiCapabilities fields (can_access_local_variables,can_generate_breakpoint_events), and
 * can_support_virtual_threads on JDK 21+. Shorthands: exceptions (only
 * can_generate_exception_events), all-but-exceptions (all but the three that make
 * can_post_on_exceptions: exception, frame-pop and method-exit events). A name it does not
 * know stops the JVM at start-up. */
#include <jvmti.h>
#include <stdio.h>
#include <string.h>

#define JVMTI_CAPABILITIES(X)                                                                            \
  X(can_tag_objects) X(can_generate_field_modification_events) X(can_generate_field_access_events)      \
  X(can_get_bytecodes) X(can_get_synthetic_attribute) X(can_get_owned_monitor_info)                      \
  X(can_get_current_contended_monitor) X(can_get_monitor_info) X(can_pop_frame) X(can_redefine_classes) \
  X(can_signal_thread) X(can_get_source_file_name) X(can_get_line_numbers)                               \
  X(can_get_source_debug_extension) X(can_access_local_variables) X(can_maintain_original_method_order) \
  X(can_generate_single_step_events) X(can_generate_exception_events) X(can_generate_frame_pop_events)  \
  X(can_generate_breakpoint_events) X(can_suspend) X(can_redefine_any_class)                             \
  X(can_get_current_thread_cpu_time) X(can_get_thread_cpu_time) X(can_generate_method_entry_events)     \
  X(can_generate_method_exit_events) X(can_generate_all_class_hook_events)                               \
  X(can_generate_compiled_method_load_events) X(can_generate_monitor_events)                             \
  X(can_generate_vm_object_alloc_events) X(can_generate_native_method_bind_events)                       \
  X(can_generate_garbage_collection_events) X(can_generate_object_free_events)                           \
  X(can_force_early_return) X(can_get_owned_monitor_stack_depth_info) X(can_get_constant_pool)           \
  X(can_set_native_method_prefix) X(can_retransform_classes) X(can_retransform_any_class)                \
  X(can_generate_resource_exhaustion_heap_events) X(can_generate_resource_exhaustion_threads_events)     \
  X(can_generate_early_vmstart) X(can_generate_early_class_hook_events)                                  \
  X(can_generate_sampled_object_alloc_events)

#define CAPABILITY_SETTER(name) \
  static void set_##name(jvmtiCapabilities* caps, unsigned on) { caps->name = on; }
JVMTI_CAPABILITIES(CAPABILITY_SETTER)

/* can_support_virtual_threads (JVMTI 21) by its position, so that the probe also compiles
 * against JDK 17's jvmti.h: bit 4 of the capabilities' sixth byte (vmcore/jvmti.cc). */
static void set_can_support_virtual_threads(jvmtiCapabilities* caps, unsigned on) {
  unsigned char* bytes = (unsigned char*)caps;
  if (on) {
    bytes[5] |= 0x10;
  } else {
    bytes[5] &= (unsigned char)~0x10;
  }
}

struct capability {
  const char* name;
  void (*set)(jvmtiCapabilities*, unsigned);
};

#define CAPABILITY_ENTRY(name) {#name, set_##name},
static const struct capability capabilities[] = {
    JVMTI_CAPABILITIES(CAPABILITY_ENTRY){"can_support_virtual_threads", set_can_support_virtual_threads}};

/* Sets each named capability in `caps` to `on`; 0 when a name is unknown. */
static int set_named(jvmtiCapabilities* caps, const char* names, unsigned on) {
  while (*names) {
    size_t length = strcspn(names, ",");
    int known = 0;
    for (size_t i = 0; i < sizeof capabilities / sizeof capabilities[0]; ++i) {
      if (strlen(capabilities[i].name) == length && strncmp(capabilities[i].name, names, length) == 0) {
        capabilities[i].set(caps, on);
        known = 1;
      }
    }
    if (!known) {
      fprintf(stderr, "capability_probe: no capability named %.*s\n", (int)length, names);
      return 0;
    }
    names += length;
    if (*names == ',') ++names;
  }
  return 1;
}

/* Keeps in `caps` only what `potential` offers. */
static void mask(jvmtiCapabilities* caps, const jvmtiCapabilities* potential) {
  unsigned char* bytes = (unsigned char*)caps;
  const unsigned char* offered = (const unsigned char*)potential;
  for (size_t i = 0; i < sizeof *caps; ++i) bytes[i] &= offered[i];
}

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void* reserved) {
  (void)reserved;
  jvmtiEnv* env;
  jvmtiCapabilities potential, caps;
  if ((*vm)->GetEnv(vm, (void**)&env, JVMTI_VERSION_1_2) != JNI_OK) return 1;
  if ((*env)->GetPotentialCapabilities(env, &potential) != JVMTI_ERROR_NONE) return 1;
  memset(&caps, 0, sizeof caps);
  const char* set = options ? options : "none";
  if (strcmp(set, "all") == 0) {
    caps = potential;
  } else if (strcmp(set, "exceptions") == 0) {
    caps.can_generate_exception_events = 1;
  } else if (strcmp(set, "all-but-exceptions") == 0) {
    caps = potential;
    caps.can_generate_exception_events = 0;
    caps.can_generate_frame_pop_events = 0;
    caps.can_generate_method_exit_events = 0;
  } else if (strncmp(set, "only:", 5) == 0) {
    if (!set_named(&caps, set + 5, 1)) return 1;
  } else if (strncmp(set, "all-but:", 8) == 0) {
    caps = potential;
    if (!set_named(&caps, set + 8, 0)) return 1;
  } else if (strcmp(set, "none") != 0) {
    fprintf(stderr, "capability_probe: unknown set %s\n", set);
    return 1;
  }
  mask(&caps, &potential);
  return (*env)->AddCapabilities(env, &caps) == JVMTI_ERROR_NONE ? 0 : 1;
}
