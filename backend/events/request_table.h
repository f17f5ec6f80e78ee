// The event requests a debugger session holds, indexed for the event path: a
// callback looks only at the requests that can match its event — those of its
// event kind, and for a breakpoint those at its location — never at all of
// them. With hundreds of requests set (an IDE's breakpoints, class prepares,
// exception filters) a hit costs the same as with one.
//
// Order: within every view, requests are kept in the order they were set
// (IDs increase); a composite lists the newest first, as stock does, so the
// callbacks walk the views backwards (NewestFirst).
//
// Not synchronized: the owner (EventRequests) guards the table with its lock.
// Pointers into it stay valid until the request is removed.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <ranges>
#include <unordered_map>
#include <vector>

#include "backend/events/event_request.h"

namespace jdwpx::backend {

class RequestTable {
 public:
  using EventKind = jdwp::EventKind;
  using View = std::vector<Request*>;

  // Adds `request` (its ID set by the caller) as the newest one.
  Request& Add(std::unique_ptr<Request> request);
  // Takes `request` out of the table and hands it back (null if not there).
  std::unique_ptr<Request> Remove(const Request& request);
  // Takes every request out, oldest first.
  std::vector<std::unique_ptr<Request>> RemoveAll();

  // The request of `kind` with `id`, or null.
  Request* Find(EventKind kind, int32_t id) const;

  // Every request, oldest first.
  const std::vector<std::unique_ptr<Request>>& All() const { return all_; }
  bool Empty() const { return all_.empty(); }
  // The requests of one kind, oldest first.
  const View& OfKind(EventKind kind) const { return by_kind_[static_cast<uint8_t>(kind)]; }
  // Whether a request of `kind` exists that has not expired.
  bool AnyLive(EventKind kind) const;
  // The breakpoint requests at one location, oldest first.
  const View& BreakpointsAt(jmethodID method, jlocation location) const;
  bool HasBreakpointAt(jmethodID method, jlocation location) const {
    return !BreakpointsAt(method, location).empty();
  }
  // The requests that hold a step (SINGLE_STEP with a Step modifier: one per
  // thread at most), oldest first.
  const View& Steps() const { return steps_; }
  // Whether any step request exists, readable without the owner's lock: a
  // breakpoint hit looks for a step that ended at its place only then, and
  // saves a lock otherwise. A step request set while the hit is being handled
  // may or may not be seen, as with the lock (it is set from where the thread is).
  bool MayHaveSteps() const { return step_count_.load(std::memory_order_acquire) != 0; }

 private:
  struct Place {
    jmethodID method;
    jlocation location;
    bool operator==(const Place&) const = default;
  };
  struct PlaceHash {
    size_t operator()(const Place& p) const {
      return std::hash<const void*>()(p.method) ^ (std::hash<int64_t>()(p.location) * 0x9e3779b97f4a7c15ULL);
    }
  };
  static void Erase(View& view, const Request* request);

  std::vector<std::unique_ptr<Request>> all_;
  std::array<View, 256> by_kind_;  // by jdwp::EventKind's value
  std::unordered_map<Place, View, PlaceHash> breakpoints_;
  View steps_;
  std::atomic<size_t> step_count_{0};  // steps_.size()
};

// A view walked newest request first, the order of events in a composite.
inline auto NewestFirst(const RequestTable::View& view) { return view | std::views::reverse; }
// Two kinds' views as one list, newest first (IDs grow with each request set).
std::vector<Request*> MergedNewestFirst(const RequestTable::View& a, const RequestTable::View& b);

}  // namespace jdwpx::backend
