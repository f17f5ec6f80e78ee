// Helpers more than one command set uses: SetFieldValues (ObjectReference and
// ClassType SetValues), TaggedIds (ReferenceType.Instances, ObjectReference.ReferringObjects).
#pragma once

#include <jni.h>

#include <vector>

#include "backend/context.h"
#include "jdwp/codec.h"

namespace jdwpx::backend {

// Stores `rest` (fieldID + untagged value pairs) into `obj`'s fields (null:
// statics of `klass`). Each field must belong to `klass` or a supertype.
// As stock, pair by pair: the pairs before a bad one stay written, and a pair
// whose object ID is unknown writes null into its field before INVALID_OBJECT.
// A body cut short ends like any malformed body (INTERNAL), after the whole pairs.
jdwp::Result<void> SetFieldValues(Context& c, JNIEnv* jni, jobject obj, jclass klass, const jdwp::RawTail& rest);

// Tagged IDs for a list of local references, each deleted once converted (a
// reply may name a million objects). `same_class`: all share one class, so the
// tag is worked out once.
std::vector<jdwp::TaggedObjectId> TaggedIds(Context& c, JNIEnv* jni, const std::vector<jobject>& objects,
                                           bool same_class);

}  // namespace jdwpx::backend
