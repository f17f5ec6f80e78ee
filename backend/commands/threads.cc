// ThreadReference (11), ThreadGroupReference (12), StackFrame (16) commands.
#include "backend/agent.h"
#include "backend/errors.h"
#include "backend/frame_pop.h"
#include "backend/values.h"
#include "backend/wire_string.h"
#include "jdwp/commands/stack_frame.h"
#include "jdwp/commands/thread_group_reference.h"
#include "jdwp/commands/thread_reference.h"

namespace jdwpx::backend {

namespace TR = jdwp::ThreadReference;
namespace TG = jdwp::ThreadGroupReference;
namespace SF = jdwp::StackFrame;
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

// Writes one local as the value's tag says (as stock: the JVMTI function of the
// tag; JVMTI answers TYPE_MISMATCH for a slot of another type).
jdwp::Result<void> WriteLocal(Context& c, JNIEnv* jni, jthread t, jint depth, jint slot, const jdwp::Value& v) {
  using jdwp::Tag;
  auto& j = c.jvmti;
  vmcore::Result<void> r;
  switch (v.tag) {
    case Tag::kBoolean: r = j.SetLocalInt(t, depth, slot, v.bits != 0 ? 1 : 0); break;
    case Tag::kByte: r = j.SetLocalInt(t, depth, slot, static_cast<jbyte>(v.bits)); break;
    case Tag::kChar: r = j.SetLocalInt(t, depth, slot, static_cast<jchar>(v.bits)); break;
    case Tag::kShort: r = j.SetLocalInt(t, depth, slot, static_cast<jshort>(v.bits)); break;
    case Tag::kInt: r = j.SetLocalInt(t, depth, slot, v.as_int()); break;
    case Tag::kLong: r = j.SetLocalLong(t, depth, slot, v.as_long()); break;
    case Tag::kFloat: r = j.SetLocalFloat(t, depth, slot, v.as_float()); break;
    case Tag::kDouble: r = j.SetLocalDouble(t, depth, slot, v.as_double()); break;
    default: {
      if (!jdwp::IsObjectTag(v.tag)) return jdwp::Fail(ErrorCode::kInvalidTag, "bad value tag");
      auto obj = c.Object(jni, v.object());
      // As stock: an unknown object ID stores null in the slot, then fails.
      r = j.SetLocalObject(t, depth, slot, obj ? *obj : nullptr);
      if (!obj) return tl::unexpected(obj.error());
      if (*obj) jni->DeleteLocalRef(*obj);
    }
  }
  VM_RETURN_IF_ERROR(std::move(r));
  return {};
}

}  // namespace

void RegisterThreads(Dispatcher& d, Context& ctx, JNIEnv** jni_slot) {
  Context* c = &ctx;
  auto J = [jni_slot] { return *jni_slot; };

  d.Bind<TR::Name>([c, J](const TR::Name::Request& req) -> jdwp::Result<TR::Name::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread));
    VM_ASSIGN_OR_RETURN(auto info, c->jvmti.GetThreadInfo(t));
    return TR::Name::Reply{ToWireString(info.name)};
  });

  d.Bind<TR::Suspend>([c, J](const TR::Suspend::Request& req) -> jdwp::Result<TR::Suspend::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread));
    RETURN_IF_ERROR(c->threads.Suspend(J(), t));
    return TR::Suspend::Reply{};
  });

  d.Bind<TR::Resume>([c, J](const TR::Resume::Request& req) -> jdwp::Result<TR::Resume::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread));
    // Events after a SUSPEND_ALL one go out now (events.h); unblocked first, so
    // that the resumed thread's next event finds the way clear (the direct path).
    c->events->UnblockAfterResume();
    auto resumed = c->threads.Resume(J(), t);
    RETURN_IF_ERROR(resumed);
    return TR::Resume::Reply{};
  });

  d.Bind<TR::Status>([c, J](const TR::Status::Request& req) -> jdwp::Result<TR::Status::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread));
    VM_ASSIGN_OR_RETURN(jint state, c->jvmti.GetThreadState(t));
    // As stock: a thread that is not alive is never reported suspended, even
    // when the debugger suspended it (and counts that).
    int32_t suspend =
        (state & JVMTI_THREAD_STATE_ALIVE) && c->threads.SuspendCount(J(), t) > 0 ? jdwp::kSuspendStatusSuspended : 0;
    return TR::Status::Reply{static_cast<int32_t>(StatusOf(state)), suspend};
  });

  d.Bind<TR::ThreadGroup>([c, J](const TR::ThreadGroup::Request& req) -> jdwp::Result<TR::ThreadGroup::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread));
    VM_ASSIGN_OR_RETURN(auto info, c->jvmti.GetThreadInfo(t));
    return TR::ThreadGroup::Reply{c->IdOf<jdwp::ThreadGroupId>(J(), info.group)};
  });

  d.Bind<TR::Frames>([c, J](const TR::Frames::Request& req) -> jdwp::Result<TR::Frames::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread, ThreadNeeds::kSuspended));
    VM_ASSIGN_OR_RETURN(jint count, c->jvmti.GetFrameCount(t));
    // Stock's order: an empty range is fine anywhere; then the start, then the length.
    // 64-bit: a start of INT_MIN with length -1 must not overflow.
    int64_t length = req.length == -1 ? int64_t{count} - req.start_frame : req.length;
    TR::Frames::Reply r;
    if (length == 0) return r;
    if (req.start_frame < 0 || req.start_frame >= count) return jdwp::Fail(ErrorCode::kInvalidIndex, "bad start frame");
    if (length < 0 || req.start_frame + length > count) return jdwp::Fail(ErrorCode::kInvalidLength, "bad length");
    VM_ASSIGN_OR_RETURN(auto frames, c->jvmti.GetStackTrace(t, req.start_frame, static_cast<jint>(length)));
    r.frames.reserve(frames.size());
    for (size_t i = 0; i < frames.size(); ++i) {
      int32_t depth = req.start_frame + static_cast<int32_t>(i);
      r.frames.push_back({c->FrameIdOf(J(), t, depth), c->LocationOf(J(), frames[i].method, frames[i].location)});
    }
    return r;
  });

  d.Bind<TR::FrameCount>([c, J](const TR::FrameCount::Request& req) -> jdwp::Result<TR::FrameCount::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread, ThreadNeeds::kSuspended));
    VM_ASSIGN_OR_RETURN(jint count, c->jvmti.GetFrameCount(t));
    return TR::FrameCount::Reply{count};
  });

  d.Bind<TR::SuspendCount>([c, J](const TR::SuspendCount::Request& req) -> jdwp::Result<TR::SuspendCount::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread));
    return TR::SuspendCount::Reply{c->threads.SuspendCount(J(), t)};
  });

  d.Bind<TR::IsVirtual>([c, J](const TR::IsVirtual::Request& req) -> jdwp::Result<TR::IsVirtual::Reply> {
    // The command came with JDK 19: stock's agent of an older JDK does not know it.
    if (c->jdk_feature_version < 19) return jdwp::Fail(ErrorCode::kNotImplemented, "IsVirtual is JDK 19+");
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread));
    // JNI IsVirtualThread (JNI 21); before 21 no thread is virtual. Runs no Java code.
    return TR::IsVirtual::Reply{vmcore::Jvmti::IsVirtualThread(J(), t)};
  });

  d.Bind<TR::OwnedMonitors>([c, J](const TR::OwnedMonitors::Request& req) -> jdwp::Result<TR::OwnedMonitors::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread, ThreadNeeds::kSuspended));
    VM_ASSIGN_OR_RETURN(auto monitors, c->jvmti.GetOwnedMonitorInfo(t));
    TR::OwnedMonitors::Reply r;
    r.owned.reserve(monitors.size());
    for (jobject m : monitors) {
      r.owned.push_back(c->TaggedId(J(), m));
      J()->DeleteLocalRef(m);
    }
    return r;
  });

  d.Bind<TR::CurrentContendedMonitor>([c, J](const TR::CurrentContendedMonitor::Request& req)
                                          -> jdwp::Result<TR::CurrentContendedMonitor::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread, ThreadNeeds::kSuspended));
    VM_ASSIGN_OR_RETURN(jobject monitor, c->jvmti.GetCurrentContendedMonitor(t));
    TR::CurrentContendedMonitor::Reply r{c->TaggedId(J(), monitor)};
    if (monitor) J()->DeleteLocalRef(monitor);
    return r;
  });

  d.Bind<TR::OwnedMonitorsStackDepthInfo>([c, J](const TR::OwnedMonitorsStackDepthInfo::Request& req)
                                              -> jdwp::Result<TR::OwnedMonitorsStackDepthInfo::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread, ThreadNeeds::kSuspended));
    VM_ASSIGN_OR_RETURN(auto monitors, c->jvmti.GetOwnedMonitorStackDepthInfo(t));
    TR::OwnedMonitorsStackDepthInfo::Reply r;
    r.owned.reserve(monitors.size());
    for (const auto& m : monitors) {
      r.owned.push_back({c->TaggedId(J(), m.monitor), m.stack_depth});
      J()->DeleteLocalRef(m.monitor);
    }
    return r;
  });

  d.Bind<TG::Name>([c, J](const TG::Name::Request& req) -> jdwp::Result<TG::Name::Reply> {
    ASSIGN_OR_RETURN(jthreadGroup g, c->ThreadGroup(J(), req.group));
    VM_ASSIGN_OR_RETURN(auto info, c->jvmti.GetThreadGroupInfo(g));
    return TG::Name::Reply{ToWireString(info.name)};
  });

  d.Bind<TG::Parent>([c, J](const TG::Parent::Request& req) -> jdwp::Result<TG::Parent::Reply> {
    ASSIGN_OR_RETURN(jthreadGroup g, c->ThreadGroup(J(), req.group));
    VM_ASSIGN_OR_RETURN(auto info, c->jvmti.GetThreadGroupInfo(g));
    return TG::Parent::Reply{c->IdOf<jdwp::ThreadGroupId>(J(), info.parent)};
  });

  d.Bind<TG::Children>([c, J](const TG::Children::Request& req) -> jdwp::Result<TG::Children::Reply> {
    ASSIGN_OR_RETURN(jthreadGroup g, c->ThreadGroup(J(), req.group));
    VM_ASSIGN_OR_RETURN(auto children, c->jvmti.GetThreadGroupChildren(g));
    TG::Children::Reply r;
    for (jthread t : children.threads) {
      if (!c->threads.IsAgentThread(J(), t)) r.child_threads.push_back(c->IdOf<jdwp::ThreadId>(J(), t));
      J()->DeleteLocalRef(t);
    }
    for (jthreadGroup child : children.groups) {
      r.child_groups.push_back(c->IdOf<jdwp::ThreadGroupId>(J(), child));
      J()->DeleteLocalRef(child);
    }
    return r;
  });

  d.Bind<SF::GetValues>([c, J](const SF::GetValues::Request& req) -> jdwp::Result<SF::GetValues::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread, ThreadNeeds::kSuspended));
    ASSIGN_OR_RETURN(int32_t depth, c->FrameDepth(J(), t, req.frame));
    const uint64_t cached = c->FrameReadsGeneration(J(), t, req.frame);
    SF::GetValues::Reply r;
    r.values.reserve(req.slots.size());
    for (const auto& slot : req.slots) {
      if (cached) {
        auto known = c->frame_reads.Local(cached, depth, slot.slot, slot.sigbyte);
        if (known && c->Reusable(J(), *known)) {
          r.values.push_back(*known);
          continue;
        }
      }
      ASSIGN_OR_RETURN(auto value, ReadLocal(*c, J(), t, depth, slot.slot, slot.sigbyte));
      if (cached) c->frame_reads.PutLocal(cached, depth, slot.slot, slot.sigbyte, value);
      r.values.push_back(value);
    }
    return r;
  });

  d.Bind<SF::ThisObject>([c, J](const SF::ThisObject::Request& req) -> jdwp::Result<SF::ThisObject::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread, ThreadNeeds::kSuspended));
    ASSIGN_OR_RETURN(int32_t depth, c->FrameDepth(J(), t, req.frame));
    const uint64_t cached = c->FrameReadsGeneration(J(), t, req.frame);
    if (cached) {
      auto known = c->frame_reads.This(cached, depth);
      if (known && c->Reusable(J(), jdwp::Value::Object(known->tag, known->id))) return SF::ThisObject::Reply{*known};
    }
    VM_ASSIGN_OR_RETURN(auto loc, c->jvmti.GetFrameLocation(t, depth));
    VM_ASSIGN_OR_RETURN(jint mods, c->jvmti.GetMethodModifiers(loc.first));
    jdwp::TaggedObjectId self{jdwp::Tag::kObject, jdwp::ObjectId{}};
    // Static or native: no `this` to read (stock answers null for both).
    if (!(mods & (0x0008 | 0x0100))) {
      VM_ASSIGN_OR_RETURN(jobject instance, c->jvmti.GetLocalInstance(t, depth));
      self = c->TaggedId(J(), instance);
      if (instance) J()->DeleteLocalRef(instance);
    }
    if (cached) c->frame_reads.PutThis(cached, depth, self);
    return SF::ThisObject::Reply{self};
  });
  d.Bind<SF::SetValues>([c, J](const SF::SetValues::Request& req) -> jdwp::Result<SF::SetValues::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread, ThreadNeeds::kSuspended));
    ASSIGN_OR_RETURN(int32_t depth, c->FrameDepth(J(), t, req.frame));
    c->frame_reads.Clear();  // before the first write: a failed one may have stored null (WriteLocal)
    for (const auto& sv : req.slot_values) RETURN_IF_ERROR(WriteLocal(*c, J(), t, depth, sv.slot, sv.slot_value));
    return SF::SetValues::Reply{};
  });

  d.Bind<SF::PopFrames>([c, J](const SF::PopFrames::Request& req) -> jdwp::Result<SF::PopFrames::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread, ThreadNeeds::kSuspended));
    ASSIGN_OR_RETURN(int32_t depth, c->FrameDepth(J(), t, req.frame));
    // The thread resumes to pop (a new generation), but a failed pop may have changed frames without.
    c->frame_reads.Clear();
    RETURN_IF_ERROR(FramePops().PopFrames(*c, J(), t, depth));
    return SF::PopFrames::Reply{};
  });

  d.Bind<TR::Interrupt>([c, J](const TR::Interrupt::Request& req) -> jdwp::Result<TR::Interrupt::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread, ThreadNeeds::kAlive));
    VM_RETURN_IF_ERROR(c->jvmti.InterruptThread(t));
    return TR::Interrupt::Reply{};
  });

  d.Bind<TR::Stop>([c, J](const TR::Stop::Request& req) -> jdwp::Result<TR::Stop::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread, ThreadNeeds::kAlive));
    ASSIGN_OR_RETURN(jobject throwable, c->Object(J(), req.throwable));
    // The spec wants a Throwable. JVMTI (and so stock) takes any object, and the
    // thread would then be thrown something that is no exception.
    if (throwable && !c->IsInstance(J(), throwable, c->throwable_class))
      return jdwp::Fail(ErrorCode::kInvalidObject, "not a Throwable");
    c->frame_reads.Clear();  // a suspended thread unwinds when resumed; drop its reads now all the same
    VM_RETURN_IF_ERROR(c->jvmti.StopThread(t, throwable));
    return TR::Stop::Reply{};
  });

  d.Bind<TR::ForceEarlyReturn>([c, J](const TR::ForceEarlyReturn::Request& req)
                                   -> jdwp::Result<TR::ForceEarlyReturn::Reply> {
    ASSIGN_OR_RETURN(jthread t, c->Thread(J(), req.thread, ThreadNeeds::kAliveThenSuspended));
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
        ASSIGN_OR_RETURN(value.l, c->Object(J(), v.object()));
      }
    }
    // JVMTI checks suspension, the frame (OPAQUE_FRAME for native) and the return type.
    c->frame_reads.Clear();
    auto r = c->jvmti.ForceEarlyReturn(t, kind, value);
    if (!r) return tl::unexpected(FromVm(r.error()));
    return TR::ForceEarlyReturn::Reply{};
  });
}

void RegisterEventRequests(Dispatcher& d, Context& ctx, JNIEnv** jni_slot) {
  Context* c = &ctx;
  auto J = [jni_slot] { return *jni_slot; };
  namespace ER = jdwp::EventRequest;
  d.Bind<ER::Set>([c, J](const ER::Set::Request& req) -> jdwp::Result<ER::Set::Reply> {
    ASSIGN_OR_RETURN(int32_t id, c->events->Set(J(), req));
    return ER::Set::Reply{id};
  });
  d.Bind<ER::Clear>([c, J](const ER::Clear::Request& req) -> jdwp::Result<ER::Clear::Reply> {
    RETURN_IF_ERROR(c->events->Clear(J(), req.event_kind, req.request_id));
    return ER::Clear::Reply{};
  });
  d.Bind<ER::ClearAllBreakpoints>([c, J](const ER::ClearAllBreakpoints::Request&)
                                      -> jdwp::Result<ER::ClearAllBreakpoints::Reply> {
    c->events->ClearAllBreakpoints(J());
    return ER::ClearAllBreakpoints::Reply{};
  });
}

}  // namespace jdwpx::backend
