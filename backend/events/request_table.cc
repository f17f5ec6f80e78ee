#include "backend/events/request_table.h"

#include <algorithm>
#include <iterator>
#include <utility>

namespace jdwpx::backend {

namespace {
const RequestTable::View kNone;
}  // namespace

Request& RequestTable::Add(std::unique_ptr<Request> request) {
  Request& r = *request;
  all_.push_back(std::move(request));
  by_kind_[static_cast<uint8_t>(r.kind)].push_back(&r);
  if (r.kind == EventKind::kBreakpoint && r.bp_method) breakpoints_[Place{r.bp_method, r.bp_location}].push_back(&r);
  if (r.step) {
    steps_.push_back(&r);
    step_count_.store(steps_.size(), std::memory_order_release);
  }
  return r;
}

void RequestTable::Erase(View& view, const Request* request) {
  auto it = std::find(view.begin(), view.end(), request);
  if (it != view.end()) view.erase(it);
}

std::unique_ptr<Request> RequestTable::Remove(const Request& request) {
  auto it = std::find_if(all_.begin(), all_.end(), [&](const auto& r) { return r.get() == &request; });
  if (it == all_.end()) return nullptr;
  std::unique_ptr<Request> taken = std::move(*it);
  all_.erase(it);
  Erase(by_kind_[static_cast<uint8_t>(taken->kind)], taken.get());
  if (taken->kind == EventKind::kBreakpoint && taken->bp_method) {
    auto place = breakpoints_.find(Place{taken->bp_method, taken->bp_location});
    if (place != breakpoints_.end()) {
      Erase(place->second, taken.get());
      if (place->second.empty()) breakpoints_.erase(place);
    }
  }
  // By pointer, not by `step`: the request may have let its step go already (DeleteRequest).
  Erase(steps_, taken.get());
  step_count_.store(steps_.size(), std::memory_order_release);
  return taken;
}

std::vector<std::unique_ptr<Request>> RequestTable::RemoveAll() {
  std::vector<std::unique_ptr<Request>> taken = std::move(all_);
  all_.clear();
  for (View& view : by_kind_) view.clear();
  breakpoints_.clear();
  steps_.clear();
  step_count_.store(0, std::memory_order_release);
  return taken;
}

Request* RequestTable::Find(EventKind kind, int32_t id) const {
  for (Request* r : OfKind(kind))
    if (r->id == id) return r;
  return nullptr;
}

bool RequestTable::AnyLive(EventKind kind) const {
  const View& view = OfKind(kind);
  return std::any_of(view.begin(), view.end(), [](const Request* r) { return !r->expired; });
}

const RequestTable::View& RequestTable::BreakpointsAt(jmethodID method, jlocation location) const {
  auto it = breakpoints_.find(Place{method, location});
  return it == breakpoints_.end() ? kNone : it->second;
}

std::vector<Request*> MergedNewestFirst(const RequestTable::View& a, const RequestTable::View& b) {
  std::vector<Request*> merged;
  merged.reserve(a.size() + b.size());
  std::merge(a.rbegin(), a.rend(), b.rbegin(), b.rend(), std::back_inserter(merged),
             [](const Request* x, const Request* y) { return x->id > y->id; });
  return merged;
}

}  // namespace jdwpx::backend
