// JDWP error codes and the protocol layer's result type.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include <tl/expected.hpp>

namespace jdwpx::jdwp {

enum class ErrorCode : uint16_t {
  kNone = 0,
  kInvalidThread = 10,
  kInvalidThreadGroup = 11,
  kInvalidPriority = 12,
  kThreadNotSuspended = 13,
  kThreadSuspended = 14,
  kThreadNotAlive = 15,
  kInvalidObject = 20,
  kInvalidClass = 21,
  kClassNotPrepared = 22,
  kInvalidMethodid = 23,
  kInvalidLocation = 24,
  kInvalidFieldid = 25,
  kInvalidFrameid = 30,
  kNoMoreFrames = 31,
  kOpaqueFrame = 32,
  kNotCurrentFrame = 33,
  kTypeMismatch = 34,
  kInvalidSlot = 35,
  kDuplicate = 40,
  kNotFound = 41,
  kInvalidModule = 42,
  kInvalidMonitor = 50,
  kNotMonitorOwner = 51,
  kInterrupt = 52,
  kInvalidClassFormat = 60,
  kCircularClassDefinition = 61,
  kFailsVerification = 62,
  kAddMethodNotImplemented = 63,
  kSchemaChangeNotImplemented = 64,
  kInvalidTypestate = 65,
  kHierarchyChangeNotImplemented = 66,
  kDeleteMethodNotImplemented = 67,
  kUnsupportedVersion = 68,
  kNamesDontMatch = 69,
  kClassModifiersChangeNotImplemented = 70,
  kMethodModifiersChangeNotImplemented = 71,
  kClassAttributeChangeNotImplemented = 72,
  kNotImplemented = 99,
  kNullPointer = 100,
  kAbsentInformation = 101,
  kInvalidEventType = 102,
  kIllegalArgument = 103,
  kOutOfMemory = 110,
  kAccessDenied = 111,
  kVmDead = 112,
  kInternal = 113,
  kUnattachedThread = 115,
  kInvalidTag = 500,
  kAlreadyInvoking = 502,
  kInvalidIndex = 503,
  kInvalidLength = 504,
  kInvalidString = 506,
  kInvalidClassLoader = 507,
  kInvalidArray = 508,
  kTransportLoad = 509,
  kTransportInit = 510,
  kNativeMethod = 511,
  kInvalidCount = 512,
};

// The spec's name (INVALID_OBJECT), or "UNKNOWN_ERROR" for a value outside the spec.
std::string_view ErrorName(ErrorCode code);
// Every code the spec defines, in spec order (59 entries).
const ErrorCode* AllErrorCodes(size_t* count);

// An error for the wire plus a detail that only ever reaches the log.
struct Error {
  ErrorCode code = ErrorCode::kInternal;
  std::string detail;
};

template <class T>
using Result = tl::expected<T, Error>;

inline tl::unexpected<Error> Fail(ErrorCode code, std::string detail = {}) {
  return tl::unexpected<Error>(Error{code, std::move(detail)});
}

}  // namespace jdwpx::jdwp

// Propagates the error of an expression returning a Result; binds the value otherwise.
#define JDWPX_CONCAT_INNER(a, b) a##b
#define JDWPX_CONCAT(a, b) JDWPX_CONCAT_INNER(a, b)
#define ASSIGN_OR_RETURN(lhs, expr) ASSIGN_OR_RETURN_IMPL(JDWPX_CONCAT(result_, __LINE__), lhs, expr)
#define ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                          \
  if (!tmp) return tl::unexpected(std::move(tmp).error()); \
  lhs = std::move(*tmp)
#define RETURN_IF_ERROR(expr)                                  \
  do {                                                         \
    auto jdwpx_status_ = (expr);                               \
    if (!jdwpx_status_) return tl::unexpected(std::move(jdwpx_status_).error()); \
  } while (0)
