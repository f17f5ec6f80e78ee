// StackFrame command set (16).
#include <functional>
#include <memory>

#include "backend/commands/handlers.h"
#include "backend/errors.h"
#include "backend/commands/frame_pop.h"
#include "backend/values/values.h"
#include "jdwp/commands/stack_frame.h"

namespace jdwpx::backend {

namespace SF = jdwp::StackFrame;
using jdwp::ErrorCode;

namespace {

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

class StackFrameHandlers : public HandlerBase {
 public:
  using HandlerBase::HandlerBase;

  jdwp::Result<SF::GetValues::Reply> GetValues(const SF::GetValues::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread, ThreadNeeds::kSuspended));
    ASSIGN_OR_RETURN(int32_t depth, ctx_.FrameDepth(env(), t, req.frame));
    const uint64_t cached = ctx_.FrameReadsGeneration(env(), t, req.frame);
    SF::GetValues::Reply r;
    r.values.reserve(req.slots.size());
    for (const auto& slot : req.slots) {
      if (cached) {
        auto known = ctx_.frame_reads.Local(cached, depth, slot.slot, slot.sigbyte);
        if (known && ctx_.Reusable(env(), *known)) {
          r.values.push_back(*known);
          continue;
        }
      }
      ASSIGN_OR_RETURN(auto value, ReadLocal(ctx_, env(), t, depth, slot.slot, slot.sigbyte));
      if (cached) ctx_.frame_reads.PutLocal(cached, depth, slot.slot, slot.sigbyte, value);
      r.values.push_back(value);
    }
    return r;
  }

  jdwp::Result<SF::SetValues::Reply> SetValues(const SF::SetValues::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread, ThreadNeeds::kSuspended));
    ASSIGN_OR_RETURN(int32_t depth, ctx_.FrameDepth(env(), t, req.frame));
    ctx_.frame_reads.Clear();  // before the first write: a failed one may have stored null (WriteLocal)
    for (const auto& sv : req.slot_values) RETURN_IF_ERROR(WriteLocal(ctx_, env(), t, depth, sv.slot, sv.slot_value));
    return SF::SetValues::Reply{};
  }

  jdwp::Result<SF::ThisObject::Reply> ThisObject(const SF::ThisObject::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread, ThreadNeeds::kSuspended));
    ASSIGN_OR_RETURN(int32_t depth, ctx_.FrameDepth(env(), t, req.frame));
    const uint64_t cached = ctx_.FrameReadsGeneration(env(), t, req.frame);
    if (cached) {
      auto known = ctx_.frame_reads.This(cached, depth);
      if (known && ctx_.Reusable(env(), jdwp::Value::Object(known->tag, known->id))) return SF::ThisObject::Reply{*known};
    }
    VM_ASSIGN_OR_RETURN(auto loc, ctx_.jvmti.GetFrameLocation(t, depth));
    VM_ASSIGN_OR_RETURN(jint mods, ctx_.jvmti.GetMethodModifiers(loc.first));
    jdwp::TaggedObjectId self{jdwp::Tag::kObject, jdwp::ObjectId{}};
    // Static or native: no `this` to read (stock answers null for both).
    if (!(mods & (0x0008 | 0x0100))) {
      VM_ASSIGN_OR_RETURN(jobject instance, ctx_.jvmti.GetLocalInstance(t, depth));
      self = ctx_.TaggedId(env(), instance);
      if (instance) env()->DeleteLocalRef(instance);
    }
    if (cached) ctx_.frame_reads.PutThis(cached, depth, self);
    return SF::ThisObject::Reply{self};
  }

  jdwp::Result<SF::PopFrames::Reply> PopFrames(const SF::PopFrames::Request& req) {
    ASSIGN_OR_RETURN(jthread t, ctx_.Thread(env(), req.thread, ThreadNeeds::kSuspended));
    ASSIGN_OR_RETURN(int32_t depth, ctx_.FrameDepth(env(), t, req.frame));
    // The thread resumes to pop (a new generation), but a failed pop may have changed frames without.
    ctx_.frame_reads.Clear();
    RETURN_IF_ERROR(FramePops().PopFrames(ctx_, events_, env(), t, depth, session()));
    return SF::PopFrames::Reply{};
  }
};

}  // namespace

void BindStackFrame(Dispatcher& d, const CommandEnv& env) {
  using H = StackFrameHandlers;
  auto h = std::make_shared<H>(env);
  d.Bind<SF::GetValues>(std::bind_front(&H::GetValues, h));
  d.Bind<SF::SetValues>(std::bind_front(&H::SetValues, h));
  d.Bind<SF::ThisObject>(std::bind_front(&H::ThisObject, h));
  d.Bind<SF::PopFrames>(std::bind_front(&H::PopFrames, h));
}

}  // namespace jdwpx::backend
