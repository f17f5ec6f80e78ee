// ThreadReference command set (11).
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/errors.h"
#include "backend/events/event_reporter.h"
#include "backend/ids/wire_string.h"
#include "jdwp/commands/thread_reference.h"

namespace jdwpx::backend {

namespace TR = jdwp::ThreadReference;
using jdwp::ErrorCode;

namespace {

jdwp::ThreadStatus StatusOf(jint state) {
  if (state & JVMTI_THREAD_STATE_TERMINATED) return jdwp::ThreadStatus::kZombie;
  if (!(state & JVMTI_THREAD_STATE_ALIVE)) return jdwp::ThreadStatus::kNotStarted;
  if (state & JVMTI_THREAD_STATE_BLOCKED_ON_MONITOR_ENTER) return jdwp::ThreadStatus::kMonitor;
  if (state & JVMTI_THREAD_STATE_SLEEPING) return jdwp::ThreadStatus::kSleeping;
  if (state & JVMTI_THREAD_STATE_WAITING) return jdwp::ThreadStatus::kWait;
  return jdwp::ThreadStatus::kRunning;
}

class ThreadReferenceHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  jdwp::Result<TR::Name::Reply> Name(const TR::Name::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread));
    VM_ASSIGN_OR_RETURN(auto info, ctx_.jvmti.GetThreadInfo(t));
    return TR::Name::Reply{ToWireString(info.name)};
  }

  jdwp::Result<TR::Suspend::Reply> Suspend(const TR::Suspend::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread));
    RETURN_IF_ERROR(ctx_.threads.Suspend(env(), t, session()));
    return TR::Suspend::Reply{};
  }

  jdwp::Result<TR::Resume::Reply> Resume(const TR::Resume::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread));
    // Events after a SUSPEND_ALL one go out now (events.h); unblocked first, so
    // that the resumed thread's next event finds the way clear (the direct path).
    reporter_.UnblockAfterResume(session());
    auto resumed = ctx_.threads.Resume(env(), t, session());
    RETURN_IF_ERROR(resumed);
    return TR::Resume::Reply{};
  }

  jdwp::Result<TR::Status::Reply> Status(const TR::Status::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread));
    VM_ASSIGN_OR_RETURN(jint state, ctx_.jvmti.GetThreadState(t));
    // As stock: a thread that is not alive is never reported suspended, even
    // when the debugger suspended it (and counts that). Suspended by any session.
    int32_t suspend =
        (state & JVMTI_THREAD_STATE_ALIVE) && ctx_.threads.SuspendedByAny(env(), t) ? jdwp::kSuspendStatusSuspended : 0;
    return TR::Status::Reply{static_cast<int32_t>(StatusOf(state)), suspend};
  }

  jdwp::Result<TR::ThreadGroup::Reply> ThreadGroup(const TR::ThreadGroup::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread));
    VM_ASSIGN_OR_RETURN(auto info, ctx_.jvmti.GetThreadInfo(t));
    return TR::ThreadGroup::Reply{ctx_.IdOf<jdwp::ThreadGroupId>(env(), info.group)};
  }

  jdwp::Result<TR::Frames::Reply> Frames(const TR::Frames::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread, ThreadNeeds::kSuspended));
    VM_ASSIGN_OR_RETURN(jint count, ctx_.jvmti.GetFrameCount(t));
    // Stock's order: an empty range is fine anywhere; then the start, then the length.
    // 64-bit: a start of INT_MIN with length -1 must not overflow.
    int64_t length = req.length == -1 ? int64_t{count} - req.start_frame : req.length;
    TR::Frames::Reply r;
    if (length == 0) return r;
    if (req.start_frame < 0 || req.start_frame >= count) return jdwp::Fail(ErrorCode::kInvalidIndex, "bad start frame");
    if (length < 0 || req.start_frame + length > count) return jdwp::Fail(ErrorCode::kInvalidLength, "bad length");
    VM_ASSIGN_OR_RETURN(auto frames, ctx_.jvmti.GetStackTrace(t, req.start_frame, static_cast<jint>(length)));
    r.frames.reserve(frames.size());
    for (size_t i = 0; i < frames.size(); ++i) {
      int32_t depth = req.start_frame + static_cast<int32_t>(i);
      r.frames.push_back({ctx_.FrameIdOf(env(), t, depth), ctx_.LocationOf(env(), frames[i].method, frames[i].location)});
    }
    return r;
  }

  jdwp::Result<TR::FrameCount::Reply> FrameCount(const TR::FrameCount::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread, ThreadNeeds::kSuspended));
    VM_ASSIGN_OR_RETURN(jint count, ctx_.jvmti.GetFrameCount(t));
    return TR::FrameCount::Reply{count};
  }

  jdwp::Result<TR::OwnedMonitors::Reply> OwnedMonitors(const TR::OwnedMonitors::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread, ThreadNeeds::kSuspended));
    VM_ASSIGN_OR_RETURN(auto monitors, ctx_.jvmti.GetOwnedMonitorInfo(t));
    TR::OwnedMonitors::Reply r;
    r.owned.reserve(monitors.size());
    for (jobject m : monitors) {
      r.owned.push_back(ctx_.TaggedId(env(), m));
      env()->DeleteLocalRef(m);
    }
    return r;
  }

  jdwp::Result<TR::CurrentContendedMonitor::Reply> CurrentContendedMonitor(
      const TR::CurrentContendedMonitor::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread, ThreadNeeds::kSuspended));
    VM_ASSIGN_OR_RETURN(jobject monitor, ctx_.jvmti.GetCurrentContendedMonitor(t));
    TR::CurrentContendedMonitor::Reply r{ctx_.TaggedId(env(), monitor)};
    if (monitor) env()->DeleteLocalRef(monitor);
    return r;
  }

  jdwp::Result<TR::Stop::Reply> Stop(const TR::Stop::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread, ThreadNeeds::kAlive));
    ASSIGN_OR_RETURN(jobject throwable, ctx_.Object(env(), req.throwable));
    // The spec wants a Throwable. JVMTI (and so stock) takes any object, and the
    // thread would then be thrown something that is no exception.
    if (throwable && !ctx_.IsInstance(env(), throwable, ctx_.throwable_class))
      return jdwp::Fail(ErrorCode::kInvalidObject, "not a Throwable");
    ctx_.frame_reads.Clear();  // a suspended thread unwinds when resumed; drop its reads now all the same
    VM_RETURN_IF_ERROR(ctx_.jvmti.StopThread(t, throwable));
    return TR::Stop::Reply{};
  }

  jdwp::Result<TR::Interrupt::Reply> Interrupt(const TR::Interrupt::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread, ThreadNeeds::kAlive));
    VM_RETURN_IF_ERROR(ctx_.jvmti.InterruptThread(t));
    return TR::Interrupt::Reply{};
  }

  jdwp::Result<TR::SuspendCount::Reply> SuspendCount(const TR::SuspendCount::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread));
    return TR::SuspendCount::Reply{ctx_.threads.SuspendCount(env(), t, session())};
  }

  jdwp::Result<TR::OwnedMonitorsStackDepthInfo::Reply> OwnedMonitorsStackDepthInfo(
      const TR::OwnedMonitorsStackDepthInfo::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread, ThreadNeeds::kSuspended));
    VM_ASSIGN_OR_RETURN(auto monitors, ctx_.jvmti.GetOwnedMonitorStackDepthInfo(t));
    TR::OwnedMonitorsStackDepthInfo::Reply r;
    r.owned.reserve(monitors.size());
    for (const auto& m : monitors) {
      r.owned.push_back({ctx_.TaggedId(env(), m.monitor), m.stack_depth});
      env()->DeleteLocalRef(m.monitor);
    }
    return r;
  }

  jdwp::Result<TR::ForceEarlyReturn::Reply> ForceEarlyReturn(const TR::ForceEarlyReturn::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread, ThreadNeeds::kAliveThenSuspended));
    const jdwp::Value& v = req.value;
    jvalue value{};
    char kind = 'I';
    switch (v.tag) {
      case jdwp::Tag::kVoid: kind = 'V'; break;
      case jdwp::Tag::kBoolean: value.i = v.bits != 0 ? 1 : 0; break;
      case jdwp::Tag::kByte: value.i = static_cast<jbyte>(v.bits); break;
      case jdwp::Tag::kChar: value.i = static_cast<jchar>(v.bits); break;
      case jdwp::Tag::kShort: value.i = static_cast<jshort>(v.bits); break;
      case jdwp::Tag::kInt: value.i = v.as_int(); break;
      case jdwp::Tag::kLong: kind = 'J'; value.j = v.as_long(); break;
      case jdwp::Tag::kFloat: kind = 'F'; value.f = v.as_float(); break;
      case jdwp::Tag::kDouble: kind = 'D'; value.d = v.as_double(); break;
      default: {
        if (!jdwp::IsObjectTag(v.tag)) return jdwp::Fail(ErrorCode::kInvalidTag, "bad value tag");
        kind = 'L';
        ASSIGN_OR_RETURN(value.l, ctx_.Object(env(), v.object()));
      }
    }
    // JVMTI checks suspension, the frame (OPAQUE_FRAME for native) and the return type.
    ctx_.frame_reads.Clear();
    auto r = ctx_.jvmti.ForceEarlyReturn(t, kind, value);
    if (!r) return tl::unexpected(FromVm(r.error()));
    return TR::ForceEarlyReturn::Reply{};
  }

  jdwp::Result<TR::IsVirtual::Reply> IsVirtual(const TR::IsVirtual::Request& req) {
    // The command came with JDK 19: stock's agent of an older JDK does not know it.
    if (ctx_.jdk_feature_version < 19) return jdwp::Fail(ErrorCode::kNotImplemented, "IsVirtual is JDK 19+");
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread));
    // JNI IsVirtualThread (JNI 21); before 21 no thread is virtual. Runs no Java code.
    return TR::IsVirtual::Reply{vmcore::Jvmti::IsVirtualThread(env(), t)};
  }
};

}  // namespace

void BindThreadReference(Dispatcher& d, const CommandEnv& env) {
  using H = ThreadReferenceHandlers;
  auto h = std::make_shared<H>(env);
  d.Bind<TR::Name>(std::bind_front(&H::Name, h));
  d.Bind<TR::Suspend>(std::bind_front(&H::Suspend, h));
  d.Bind<TR::Resume>(std::bind_front(&H::Resume, h));
  d.Bind<TR::Status>(std::bind_front(&H::Status, h));
  d.Bind<TR::ThreadGroup>(std::bind_front(&H::ThreadGroup, h));
  d.Bind<TR::Frames>(std::bind_front(&H::Frames, h));
  d.Bind<TR::FrameCount>(std::bind_front(&H::FrameCount, h));
  d.Bind<TR::OwnedMonitors>(std::bind_front(&H::OwnedMonitors, h));
  d.Bind<TR::CurrentContendedMonitor>(std::bind_front(&H::CurrentContendedMonitor, h));
  d.Bind<TR::Stop>(std::bind_front(&H::Stop, h));
  d.Bind<TR::Interrupt>(std::bind_front(&H::Interrupt, h));
  d.Bind<TR::SuspendCount>(std::bind_front(&H::SuspendCount, h));
  d.Bind<TR::OwnedMonitorsStackDepthInfo>(std::bind_front(&H::OwnedMonitorsStackDepthInfo, h));
  d.Bind<TR::ForceEarlyReturn>(std::bind_front(&H::ForceEarlyReturn, h));
  d.Bind<TR::IsVirtual>(std::bind_front(&H::IsVirtual, h));
}

}  // namespace jdwpx::backend
