#include "backend/errors.h"

#include <string>

#include "vmcore/jvmti.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;

ErrorCode MapJvmtiError(jvmtiError error) {
  switch (error) {
    case JVMTI_ERROR_NONE: return ErrorCode::kNone;
    case JVMTI_ERROR_INVALID_THREAD: return ErrorCode::kInvalidThread;
    case JVMTI_ERROR_INVALID_THREAD_GROUP: return ErrorCode::kInvalidThreadGroup;
    case JVMTI_ERROR_INVALID_PRIORITY: return ErrorCode::kInvalidPriority;
    case JVMTI_ERROR_THREAD_NOT_SUSPENDED: return ErrorCode::kThreadNotSuspended;
    case JVMTI_ERROR_THREAD_SUSPENDED: return ErrorCode::kThreadSuspended;
    // As stock: a dead thread is an invalid thread to the debugger.
    case JVMTI_ERROR_THREAD_NOT_ALIVE: return ErrorCode::kInvalidThread;
    case JVMTI_ERROR_INVALID_OBJECT: return ErrorCode::kInvalidObject;
    case JVMTI_ERROR_INVALID_CLASS: return ErrorCode::kInvalidClass;
    case JVMTI_ERROR_CLASS_NOT_PREPARED: return ErrorCode::kClassNotPrepared;
    case JVMTI_ERROR_INVALID_METHODID: return ErrorCode::kInvalidMethodid;
    case JVMTI_ERROR_INVALID_LOCATION: return ErrorCode::kInvalidLocation;
    case JVMTI_ERROR_INVALID_FIELDID: return ErrorCode::kInvalidFieldid;
    case JVMTI_ERROR_NO_MORE_FRAMES: return ErrorCode::kNoMoreFrames;
    case JVMTI_ERROR_OPAQUE_FRAME: return ErrorCode::kOpaqueFrame;
    case JVMTI_ERROR_TYPE_MISMATCH: return ErrorCode::kTypeMismatch;
    case JVMTI_ERROR_INVALID_SLOT: return ErrorCode::kInvalidSlot;
    case JVMTI_ERROR_DUPLICATE: return ErrorCode::kDuplicate;
    case JVMTI_ERROR_NOT_FOUND: return ErrorCode::kNotFound;
    case JVMTI_ERROR_INVALID_MONITOR: return ErrorCode::kInvalidMonitor;
    case JVMTI_ERROR_NOT_MONITOR_OWNER: return ErrorCode::kNotMonitorOwner;
    case JVMTI_ERROR_INTERRUPT: return ErrorCode::kInterrupt;
    case JVMTI_ERROR_INVALID_CLASS_FORMAT: return ErrorCode::kInvalidClassFormat;
    case JVMTI_ERROR_CIRCULAR_CLASS_DEFINITION: return ErrorCode::kCircularClassDefinition;
    case JVMTI_ERROR_FAILS_VERIFICATION: return ErrorCode::kFailsVerification;
    case JVMTI_ERROR_UNSUPPORTED_REDEFINITION_METHOD_ADDED: return ErrorCode::kAddMethodNotImplemented;
    case JVMTI_ERROR_UNSUPPORTED_REDEFINITION_SCHEMA_CHANGED: return ErrorCode::kSchemaChangeNotImplemented;
    case JVMTI_ERROR_INVALID_TYPESTATE: return ErrorCode::kInvalidTypestate;
    case JVMTI_ERROR_UNSUPPORTED_REDEFINITION_HIERARCHY_CHANGED: return ErrorCode::kHierarchyChangeNotImplemented;
    case JVMTI_ERROR_UNSUPPORTED_REDEFINITION_METHOD_DELETED: return ErrorCode::kDeleteMethodNotImplemented;
    case JVMTI_ERROR_UNSUPPORTED_VERSION: return ErrorCode::kUnsupportedVersion;
    case JVMTI_ERROR_NAMES_DONT_MATCH: return ErrorCode::kNamesDontMatch;
    case JVMTI_ERROR_UNSUPPORTED_REDEFINITION_CLASS_MODIFIERS_CHANGED:
      return ErrorCode::kClassModifiersChangeNotImplemented;
    case JVMTI_ERROR_UNSUPPORTED_REDEFINITION_METHOD_MODIFIERS_CHANGED:
      return ErrorCode::kMethodModifiersChangeNotImplemented;
    case JVMTI_ERROR_UNSUPPORTED_REDEFINITION_CLASS_ATTRIBUTE_CHANGED:
      return ErrorCode::kClassAttributeChangeNotImplemented;
    case JVMTI_ERROR_NOT_AVAILABLE: return ErrorCode::kNotImplemented;
    case JVMTI_ERROR_MUST_POSSESS_CAPABILITY: return ErrorCode::kNotImplemented;
    case JVMTI_ERROR_NULL_POINTER: return ErrorCode::kNullPointer;
    case JVMTI_ERROR_ABSENT_INFORMATION: return ErrorCode::kAbsentInformation;
    case JVMTI_ERROR_INVALID_EVENT_TYPE: return ErrorCode::kInvalidEventType;
    case JVMTI_ERROR_ILLEGAL_ARGUMENT: return ErrorCode::kIllegalArgument;
    case JVMTI_ERROR_NATIVE_METHOD: return ErrorCode::kNativeMethod;
    case JVMTI_ERROR_OUT_OF_MEMORY: return ErrorCode::kOutOfMemory;
    case JVMTI_ERROR_ACCESS_DENIED: return ErrorCode::kAccessDenied;
    case JVMTI_ERROR_WRONG_PHASE: return ErrorCode::kVmDead;
    case JVMTI_ERROR_UNATTACHED_THREAD: return ErrorCode::kUnattachedThread;
    default: return ErrorCode::kInternal;
  }
}

jdwp::Error FromVm(const vmcore::VmError& error) {
  return jdwp::Error{MapJvmtiError(error.code),
                     std::string(error.function) + " failed: " + vmcore::JvmtiErrorName(error.code)};
}

}  // namespace jdwpx::backend
