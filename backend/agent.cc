#include <jni.h>
#include <jvmti.h>

extern "C" JNIEXPORT jint JNICALL Agent_OnLoad(JavaVM*, char*, void*) { return JNI_OK; }
extern "C" JNIEXPORT void JNICALL Agent_OnUnload(JavaVM*) {}
