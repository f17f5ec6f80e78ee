// JDWP constant sets, with the spec's names.
#pragma once

#include <cstdint>

namespace jdwpx::jdwp {

enum class EventKind : uint8_t {
  kSingleStep = 1,
  kBreakpoint = 2,
  kFramePop = 3,
  kException = 4,
  kUserDefined = 5,
  kThreadStart = 6,
  kThreadDeath = 7,
  kClassPrepare = 8,
  kClassUnload = 9,
  kClassLoad = 10,
  kFieldAccess = 20,
  kFieldModification = 21,
  kExceptionCatch = 30,
  kMethodEntry = 40,
  kMethodExit = 41,
  kMethodExitWithReturnValue = 42,
  kMonitorContendedEnter = 43,
  kMonitorContendedEntered = 44,
  kMonitorWait = 45,
  kMonitorWaited = 46,
  kVmStart = 90,
  kVmDeath = 99,
  kVmDisconnected = 100,
};
inline constexpr EventKind kThreadEnd = EventKind::kThreadDeath;
inline constexpr EventKind kVmInit = EventKind::kVmStart;

// kNotStarted is no value of the spec's: stock's for a thread not yet started,
// which JDI reads as THREAD_STATUS_NOT_STARTED.
enum class ThreadStatus : int32_t { kNotStarted = -1, kZombie = 0, kRunning = 1, kSleeping = 2, kMonitor = 3, kWait = 4 };

inline constexpr int32_t kSuspendStatusSuspended = 0x1;

namespace ClassStatus {
inline constexpr int32_t kVerified = 1;
inline constexpr int32_t kPrepared = 2;
inline constexpr int32_t kInitialized = 4;
inline constexpr int32_t kError = 8;
}  // namespace ClassStatus

enum class StepDepth : int32_t { kInto = 0, kOver = 1, kOut = 2 };
enum class StepSize : int32_t { kMin = 0, kLine = 1 };
enum class SuspendPolicy : uint8_t { kNone = 0, kEventThread = 1, kAll = 2 };

namespace InvokeOptions {
inline constexpr int32_t kInvokeSingleThreaded = 0x01;
inline constexpr int32_t kInvokeNonvirtual = 0x02;
}  // namespace InvokeOptions

}  // namespace jdwpx::jdwp
