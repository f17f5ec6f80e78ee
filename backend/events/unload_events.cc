#include "backend/events/unload_events.h"

#include <string>
#include <utility>
#include <vector>

#include "backend/ids/class_names.h"
#include "backend/events/event_request.h"
#include "backend/ids/wire_string.h"

namespace jdwpx::backend {

using jdwp::EventKind;
using jdwp::SuspendPolicy;
namespace ev = jdwp::events;
namespace mod = jdwp::modifiers;

void UnloadEvents::ReportPending(JNIEnv* jni, jthread thread) {
  ClassTracker& unloads = requests_.unloads();
  if (!unloads.HasUnloaded() || !thread || ThreadControl::CurrentIsAgent()) return;
  for (const std::string& signature : unloads.TakeUnloaded()) {
    std::vector<ev::EventData> events;
    Answers answers;
    {
      std::lock_guard lock(requests_.mu());
      std::string name = DottedName(ToWireString(signature));
      for (Request* r : NewestFirst(requests_.table().OfKind(EventKind::kClassUnload))) {
        if (r->expired) continue;
        // As stock: only Count, ClassMatch and ClassExclude apply to an unloaded class.
        bool ok = true;
        for (size_t i = 0; ok && i < r->modifiers.size(); ++i) {
          if (auto* match = std::get_if<mod::ClassMatch>(&r->modifiers[i])) {
            ok = PatternMatches(match->class_pattern, name);
          } else if (auto* exclude = std::get_if<mod::ClassExclude>(&r->modifiers[i])) {
            ok = !PatternMatches(exclude->class_pattern, name);
          } else if (std::holds_alternative<mod::Count>(r->modifiers[i])) {
            if (--r->counts[i] > 0) {
              ok = false;
            } else {
              r->expired = true;
              requests_.NoteExpired();
            }
          }
        }
        if (!ok) continue;
        events.push_back(ev::ClassUnload{r->id, ToWireString(signature)});
        answers.Add(*r);
      }
    }
    // Whatever the policy suspends (all threads: the set names none), the thread
    // reporting included: it waits like an event thread.
    ReportComposite(requests_, reporter_, jni, thread, std::move(events), answers);
  }
}

}  // namespace jdwpx::backend
