// Helpers more than one command set uses (helpers.h).
#include "backend/commands/helpers.h"

#include "backend/commands/dispatcher.h"
#include "backend/errors.h"
#include "backend/values/values.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;

// Stores `rest` (fieldID + untagged value pairs) into `obj`'s fields (null:
// statics of `klass`). Each field must belong to `klass` or a supertype.
// As stock, pair by pair: the pairs before a bad one stay written, and a pair
// whose object ID is unknown writes null into its field before INVALID_OBJECT.
// A body cut short ends like any malformed body (INTERNAL), after the whole pairs.
jdwp::Result<void> SetFieldValues(Context& c, JNIEnv* jni, jobject obj, jclass klass, const jdwp::RawTail& rest) {
  jdwp::Reader r(rest.bytes);
  uint32_t raw_count = 0;
  if (!r.U32(raw_count)) return jdwp::Fail(kMalformedBody, "field count missing");
  const auto count = static_cast<int32_t>(raw_count);
  if (count < 0) return jdwp::Fail(ErrorCode::kIllegalArgument, "negative field count");
  for (int32_t i = 0; i < count; ++i) {
    jdwp::FieldId id;
    if (!r.U64(id.value)) return jdwp::Fail(kMalformedBody, "field values cut short");
    ASSIGN_OR_RETURN(jfieldID f, c.Field(id));
    vmcore::LocalFrame frame(jni, 8);
    auto decl = c.jvmti.GetFieldDeclaringClass(klass, f);
    if (!decl || !jni->IsAssignableFrom(klass, *decl)) return jdwp::Fail(ErrorCode::kInvalidFieldid, "field not in this type");
    auto name = c.jvmti.GetFieldName(*decl, f);
    auto mods = c.jvmti.GetFieldModifiers(*decl, f);
    if (!name || !mods || name->signature.empty()) return jdwp::Fail(ErrorCode::kInvalidFieldid, "field not readable");
    const bool is_static = (*mods & 0x0008) != 0;
    if (!obj && !is_static) return jdwp::Fail(ErrorCode::kInvalidFieldid, "instance field set as a static");
    jdwp::UntaggedValue value;
    if (!jdwp::DecodeUntagged(r, TagOfSignature(name->signature[0]), value)) {
      return jdwp::Fail(kMalformedBody, "field values cut short");
    }
    jobject target = is_static ? nullptr : obj;
    if (jdwp::IsObjectTag(value.tag) && value.bits != 0) {
      auto known = c.Object(jni, jdwp::ObjectId{value.bits});
      if (!known) {
        (void)WriteField(c, jni, target, *decl, f, name->signature, jdwp::UntaggedValue{value.tag, 0});
        return tl::unexpected(known.error());
      }
    }
    RETURN_IF_ERROR(WriteField(c, jni, target, *decl, f, name->signature, value));
  }
  return {};
}

// Tagged IDs for a list of local references, each deleted once converted (a
// reply may name a million objects). `same_class`: all share one class, so the
// tag is worked out once.
std::vector<jdwp::TaggedObjectId> TaggedIds(Context& c, JNIEnv* jni, const std::vector<jobject>& objects,
                                           bool same_class) {
  std::vector<jdwp::TaggedObjectId> out;
  out.reserve(objects.size());
  jdwp::Tag shared_tag = jdwp::Tag::kObject;
  if (same_class && !objects.empty()) shared_tag = c.ObjectTagOf(jni, objects.front());
  for (jobject obj : objects) {
    jdwp::Tag tag = same_class ? shared_tag : c.ObjectTagOf(jni, obj);
    out.push_back(jdwp::TaggedObjectId{tag, c.objects.IdOf(jni, obj)});
    jni->DeleteLocalRef(obj);
  }
  return out;
}

}  // namespace jdwpx::backend
