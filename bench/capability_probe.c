/* A JVMTI agent that only adds capabilities and enables no event: which capability makes an
 * agent-loaded JVM slower (README, "What a loaded agent costs").
 *
 *   gcc -shared -fPIC -O2 -I$JDK/include -I$JDK/include/linux -o libcapprobe.so bench/capability_probe.c
 *   java -agentpath:./libcapprobe.so=<set> -cp <DormantWork's classes> DormantWork exceptions 20000
 *
 * <set>: all (every potential capability), exceptions (can_generate_exception_events only),
 * all-but-exceptions (all but the three that make can_post_on_exceptions: exception, frame-pop
 * and method-exit events), none. */
#include <jvmti.h>
#include <string.h>

JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM* vm, char* options, void* reserved) {
  (void)reserved;
  jvmtiEnv* env;
  jvmtiCapabilities potential, caps;
  if ((*vm)->GetEnv(vm, (void**)&env, JVMTI_VERSION_1_2) != JNI_OK) return 1;
  if ((*env)->GetPotentialCapabilities(env, &potential) != JVMTI_ERROR_NONE) return 1;
  memset(&caps, 0, sizeof caps);
  const char* set = options ? options : "none";
  if (strcmp(set, "all") == 0 || strcmp(set, "all-but-exceptions") == 0) caps = potential;
  if (strcmp(set, "all-but-exceptions") == 0) {
    caps.can_generate_exception_events = 0;
    caps.can_generate_frame_pop_events = 0;
    caps.can_generate_method_exit_events = 0;
  }
  if (strcmp(set, "exceptions") == 0) caps.can_generate_exception_events = 1;
  return (*env)->AddCapabilities(env, &caps) == JVMTI_ERROR_NONE ? 0 : 1;
}
