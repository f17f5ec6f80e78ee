#include "jdwp/error.h"

#include <iterator>

namespace jdwpx::jdwp {

namespace {

constexpr ErrorCode kAllErrorCodes[] = {
    ErrorCode::kNone,
    ErrorCode::kInvalidThread,
    ErrorCode::kInvalidThreadGroup,
    ErrorCode::kInvalidPriority,
    ErrorCode::kThreadNotSuspended,
    ErrorCode::kThreadSuspended,
    ErrorCode::kThreadNotAlive,
    ErrorCode::kInvalidObject,
    ErrorCode::kInvalidClass,
    ErrorCode::kClassNotPrepared,
    ErrorCode::kInvalidMethodid,
    ErrorCode::kInvalidLocation,
    ErrorCode::kInvalidFieldid,
    ErrorCode::kInvalidFrameid,
    ErrorCode::kNoMoreFrames,
    ErrorCode::kOpaqueFrame,
    ErrorCode::kNotCurrentFrame,
    ErrorCode::kTypeMismatch,
    ErrorCode::kInvalidSlot,
    ErrorCode::kDuplicate,
    ErrorCode::kNotFound,
    ErrorCode::kInvalidModule,
    ErrorCode::kInvalidMonitor,
    ErrorCode::kNotMonitorOwner,
    ErrorCode::kInterrupt,
    ErrorCode::kInvalidClassFormat,
    ErrorCode::kCircularClassDefinition,
    ErrorCode::kFailsVerification,
    ErrorCode::kAddMethodNotImplemented,
    ErrorCode::kSchemaChangeNotImplemented,
    ErrorCode::kInvalidTypestate,
    ErrorCode::kHierarchyChangeNotImplemented,
    ErrorCode::kDeleteMethodNotImplemented,
    ErrorCode::kUnsupportedVersion,
    ErrorCode::kNamesDontMatch,
    ErrorCode::kClassModifiersChangeNotImplemented,
    ErrorCode::kMethodModifiersChangeNotImplemented,
    ErrorCode::kClassAttributeChangeNotImplemented,
    ErrorCode::kNotImplemented,
    ErrorCode::kNullPointer,
    ErrorCode::kAbsentInformation,
    ErrorCode::kInvalidEventType,
    ErrorCode::kIllegalArgument,
    ErrorCode::kOutOfMemory,
    ErrorCode::kAccessDenied,
    ErrorCode::kVmDead,
    ErrorCode::kInternal,
    ErrorCode::kUnattachedThread,
    ErrorCode::kInvalidTag,
    ErrorCode::kAlreadyInvoking,
    ErrorCode::kInvalidIndex,
    ErrorCode::kInvalidLength,
    ErrorCode::kInvalidString,
    ErrorCode::kInvalidClassLoader,
    ErrorCode::kInvalidArray,
    ErrorCode::kTransportLoad,
    ErrorCode::kTransportInit,
    ErrorCode::kNativeMethod,
    ErrorCode::kInvalidCount,
};
static_assert(std::size(kAllErrorCodes) == 59);

}  // namespace

std::string_view ErrorName(ErrorCode code) {
  switch (code) {
    case ErrorCode::kNone: return "NONE";
    case ErrorCode::kInvalidThread: return "INVALID_THREAD";
    case ErrorCode::kInvalidThreadGroup: return "INVALID_THREAD_GROUP";
    case ErrorCode::kInvalidPriority: return "INVALID_PRIORITY";
    case ErrorCode::kThreadNotSuspended: return "THREAD_NOT_SUSPENDED";
    case ErrorCode::kThreadSuspended: return "THREAD_SUSPENDED";
    case ErrorCode::kThreadNotAlive: return "THREAD_NOT_ALIVE";
    case ErrorCode::kInvalidObject: return "INVALID_OBJECT";
    case ErrorCode::kInvalidClass: return "INVALID_CLASS";
    case ErrorCode::kClassNotPrepared: return "CLASS_NOT_PREPARED";
    case ErrorCode::kInvalidMethodid: return "INVALID_METHODID";
    case ErrorCode::kInvalidLocation: return "INVALID_LOCATION";
    case ErrorCode::kInvalidFieldid: return "INVALID_FIELDID";
    case ErrorCode::kInvalidFrameid: return "INVALID_FRAMEID";
    case ErrorCode::kNoMoreFrames: return "NO_MORE_FRAMES";
    case ErrorCode::kOpaqueFrame: return "OPAQUE_FRAME";
    case ErrorCode::kNotCurrentFrame: return "NOT_CURRENT_FRAME";
    case ErrorCode::kTypeMismatch: return "TYPE_MISMATCH";
    case ErrorCode::kInvalidSlot: return "INVALID_SLOT";
    case ErrorCode::kDuplicate: return "DUPLICATE";
    case ErrorCode::kNotFound: return "NOT_FOUND";
    case ErrorCode::kInvalidModule: return "INVALID_MODULE";
    case ErrorCode::kInvalidMonitor: return "INVALID_MONITOR";
    case ErrorCode::kNotMonitorOwner: return "NOT_MONITOR_OWNER";
    case ErrorCode::kInterrupt: return "INTERRUPT";
    case ErrorCode::kInvalidClassFormat: return "INVALID_CLASS_FORMAT";
    case ErrorCode::kCircularClassDefinition: return "CIRCULAR_CLASS_DEFINITION";
    case ErrorCode::kFailsVerification: return "FAILS_VERIFICATION";
    case ErrorCode::kAddMethodNotImplemented: return "ADD_METHOD_NOT_IMPLEMENTED";
    case ErrorCode::kSchemaChangeNotImplemented: return "SCHEMA_CHANGE_NOT_IMPLEMENTED";
    case ErrorCode::kInvalidTypestate: return "INVALID_TYPESTATE";
    case ErrorCode::kHierarchyChangeNotImplemented: return "HIERARCHY_CHANGE_NOT_IMPLEMENTED";
    case ErrorCode::kDeleteMethodNotImplemented: return "DELETE_METHOD_NOT_IMPLEMENTED";
    case ErrorCode::kUnsupportedVersion: return "UNSUPPORTED_VERSION";
    case ErrorCode::kNamesDontMatch: return "NAMES_DONT_MATCH";
    case ErrorCode::kClassModifiersChangeNotImplemented: return "CLASS_MODIFIERS_CHANGE_NOT_IMPLEMENTED";
    case ErrorCode::kMethodModifiersChangeNotImplemented: return "METHOD_MODIFIERS_CHANGE_NOT_IMPLEMENTED";
    case ErrorCode::kClassAttributeChangeNotImplemented: return "CLASS_ATTRIBUTE_CHANGE_NOT_IMPLEMENTED";
    case ErrorCode::kNotImplemented: return "NOT_IMPLEMENTED";
    case ErrorCode::kNullPointer: return "NULL_POINTER";
    case ErrorCode::kAbsentInformation: return "ABSENT_INFORMATION";
    case ErrorCode::kInvalidEventType: return "INVALID_EVENT_TYPE";
    case ErrorCode::kIllegalArgument: return "ILLEGAL_ARGUMENT";
    case ErrorCode::kOutOfMemory: return "OUT_OF_MEMORY";
    case ErrorCode::kAccessDenied: return "ACCESS_DENIED";
    case ErrorCode::kVmDead: return "VM_DEAD";
    case ErrorCode::kInternal: return "INTERNAL";
    case ErrorCode::kUnattachedThread: return "UNATTACHED_THREAD";
    case ErrorCode::kInvalidTag: return "INVALID_TAG";
    case ErrorCode::kAlreadyInvoking: return "ALREADY_INVOKING";
    case ErrorCode::kInvalidIndex: return "INVALID_INDEX";
    case ErrorCode::kInvalidLength: return "INVALID_LENGTH";
    case ErrorCode::kInvalidString: return "INVALID_STRING";
    case ErrorCode::kInvalidClassLoader: return "INVALID_CLASS_LOADER";
    case ErrorCode::kInvalidArray: return "INVALID_ARRAY";
    case ErrorCode::kTransportLoad: return "TRANSPORT_LOAD";
    case ErrorCode::kTransportInit: return "TRANSPORT_INIT";
    case ErrorCode::kNativeMethod: return "NATIVE_METHOD";
    case ErrorCode::kInvalidCount: return "INVALID_COUNT";
  }
  return "UNKNOWN_ERROR";
}

const ErrorCode* AllErrorCodes(size_t* count) {
  if (count) *count = std::size(kAllErrorCodes);
  return kAllErrorCodes;
}

}  // namespace jdwpx::jdwp
