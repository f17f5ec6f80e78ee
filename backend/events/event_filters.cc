// EventRequests' filters: whether a request's modifiers pass one event (EventRequest.Set's
// modifiers, in order; a Count counts down only when all before it passed).
#include "backend/events/event_requests.h"

#include <string>

#include "backend/ids/class_names.h"
#include "backend/events/event_facts.h"
#include "backend/events/event_request.h"
#include "backend/ids/wire_string.h"

namespace jdwpx::backend {

using jdwp::ErrorCode;
using jdwp::EventKind;
using jdwp::SuspendPolicy;
namespace ev = jdwp::events;
namespace mod = jdwp::modifiers;

// ---- matching ----------------------------------------------------------------

bool EventRequests::Matches(JNIEnv* jni, Request& r, jthread thread, jclass klass, const jdwp::Location* loc,
                           jobject exception, bool caught, jobject instance, jfieldID field, jclass field_klass) {
  if (r.expired) return false;
  for (size_t i = 0; i < r.modifiers.size(); ++i) {
    bool ok = std::visit(
        [&](const auto& x) -> bool {
          using T = std::decay_t<decltype(x)>;
          if constexpr (std::is_same_v<T, mod::Count>) {
            if (--r.counts[i] > 0) return false;
            r.expired = true;
            expired_pending_ = true;
            return true;
          } else if constexpr (std::is_same_v<T, mod::ThreadOnly>) {
            return thread && jni->IsSameObject(thread, r.resolved[i]);
          } else if constexpr (std::is_same_v<T, mod::ClassOnly>) {
            return klass && jni->IsAssignableFrom(klass, static_cast<jclass>(r.resolved[i]));
          } else if constexpr (std::is_same_v<T, mod::ClassMatch>) {
            return klass && PatternMatches(x.class_pattern, ClassNameOf(ctx_, klass));
          } else if constexpr (std::is_same_v<T, mod::ClassExclude>) {
            return klass && !PatternMatches(x.class_pattern, ClassNameOf(ctx_, klass));
          } else if constexpr (std::is_same_v<T, mod::LocationOnly>) {
            return loc && loc->method_id == x.loc.method_id && loc->index == x.loc.index;
          } else if constexpr (std::is_same_v<T, mod::ExceptionOnly>) {
            if (!exception) return false;
            if (r.resolved[i] && !jni->IsInstanceOf(exception, static_cast<jclass>(r.resolved[i]))) return false;
            return caught ? x.caught : x.uncaught;
          } else if constexpr (std::is_same_v<T, mod::InstanceOnly>) {
            // As stock: an event without an instance (static method or field,
            // thread events) passes.
            return !instance || (r.resolved[i] && jni->IsSameObject(instance, r.resolved[i]));
          } else if constexpr (std::is_same_v<T, mod::Step>) {
            return thread && r.step && jni->IsSameObject(thread, r.step->thread);
          } else if constexpr (std::is_same_v<T, mod::PlatformThreadsOnly>) {
            return !thread || !ctx_.threads.IsVirtual(jni, thread);
          } else if constexpr (std::is_same_v<T, mod::FieldOnly>) {
            return field && field == ToField(x.field_id) && field_klass &&
                   jni->IsSameObject(field_klass, r.resolved[i]);
          } else if constexpr (std::is_same_v<T, mod::SourceNameMatch>) {
            if (!klass) return false;
            auto source = ctx_.jvmti.GetSourceFileName(klass);
            if (source && PatternMatches(x.source_name_pattern, ToWireString(*source))) return true;
            // As stock: the source names of the class's strata (JSR-45 source map) match too.
            return ctx_.AnySourceMapName(klass, [&](std::string_view name) {
              return PatternMatches(x.source_name_pattern, std::string(name));
            });
          } else {
            return true;  // Conditional: reserved by the spec, accepted and ignored (as stock)
          }
        },
        r.modifiers[i]);
    if (!ok) {
      // A Count reached its end only if everything before it matched; later
      // modifiers failing does not undo that (as stock).
      return false;
    }
  }
  return true;
}

}  // namespace jdwpx::backend
