// The requests a callback's events answer: for each, its ID, the session that
// set it and its suspend policy. With several debuggers attached (sessions=N)
// one hit may answer requests of two sessions: each gets a composite of its
// own events, with its own policy (ReportComposite splits them).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "backend/events/event_request.h"
#include "backend/session_slot.h"
#include "jdwp/constants.h"

namespace jdwpx::backend {

class Answers {
 public:
  struct Answer {
    int32_t request = 0;
    SessionSlot session = 0;
    jdwp::SuspendPolicy policy = jdwp::SuspendPolicy::kNone;
  };

  void Add(const Request& r) { answers_.push_back({r.id, r.session, r.policy}); }
  void Add(const Answers& more) { answers_.insert(answers_.end(), more.answers_.begin(), more.answers_.end()); }
  void Clear() { answers_.clear(); }

  // Whether every event answers the same session (always so with one): then
  // the composite goes whole, with policy().
  bool OneSession() const {
    return std::all_of(answers_.begin(), answers_.end(),
                       [&](const Answer& a) { return a.session == answers_.front().session; });
  }
  SessionSlot session() const { return answers_.empty() ? SessionSlot{0} : answers_.front().session; }
  // The strongest policy of all (of one session's, with OneSession).
  jdwp::SuspendPolicy policy() const {
    jdwp::SuspendPolicy strongest = jdwp::SuspendPolicy::kNone;
    for (const Answer& a : answers_) strongest = std::max(strongest, a.policy);
    return strongest;
  }
  // The answer to request `id` (IDs are unique across sessions); null if none.
  const Answer* Find(int32_t id) const {
    for (const Answer& a : answers_)
      if (a.request == id) return &a;
    return nullptr;
  }

 private:
  std::vector<Answer> answers_;
};

}  // namespace jdwpx::backend
