// EventManager (events.h): the parts of the event path, put together, and the
// session's start and end on it.
#include "backend/events/events.h"

namespace jdwpx::backend {

EventManager::EventManager(Context& ctx, Outbox& outbox, EventReporter& reporter)
    : ctx_(ctx),
      reporter_(reporter),
      step_control_(ctx),
      requests_(ctx, outbox, step_control_),
      unloads_(requests_, reporter),
      method_events_(ctx, requests_, step_control_, unloads_, reporter),
      stepping_(ctx, requests_, step_control_, method_events_, unloads_, reporter) {}

void EventManager::BeginSession(SessionSlot session) {
  if (!reporter_.attached()) requests_.BeginSession();  // the first debugger: unloads before are no one's
  reporter_.BeginSession(session);
}

void EventManager::EndSession(JNIEnv* jni, SessionSlot session) {
  reporter_.EndSession(session);
  requests_.EndSession(jni, session);
  reporter_.LetGo(session);
}

bool EventManager::AfterFramesPopped(JNIEnv* jni, jthread thread) {
  requests_.hooks().FramesPopped(jni, thread);
  return stepping_.AfterFramesPopped(jni, thread);
}

}  // namespace jdwpx::backend
