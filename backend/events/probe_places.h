// Where probes (backend/probes/) hold a JVMTI breakpoint: the event path's
// seam for them. A probe is not an event request: it reports nothing to the
// debugger's event stream and never suspends. Its breakpoint is shared with
// breakpoint requests and method hooks at the same place (the VM has one per
// place), so EventRequests keeps the places of both and sets or clears the
// VM's breakpoint only when the first arrives or the last leaves.
//
// The breakpoint callback runs the hooks at its place before anything else
// (EventManager::OnBreakpoint), outside the request table's lock.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <map>
#include <memory>
#include <utility>
#include <vector>

namespace jdwpx::backend {

// One probe at one place; called in the hitting thread.
class ProbeHook {
 public:
  virtual ~ProbeHook() = default;
  virtual void OnHit(JNIEnv* jni, jthread thread, jmethodID method, jlocation location) = 0;
};

// Told of every class prepared while probes wait for classes (deferred probes),
// after the event path's own work on it; called in the preparing thread.
class ClassPrepareListener {
 public:
  virtual ~ClassPrepareListener() = default;
  virtual void OnClassPrepared(JNIEnv* jni, jclass klass) = 0;
};

// The probes' places; guarded by EventRequests::mu().
class ProbePlaces {
 public:
  using Hooks = std::vector<std::shared_ptr<ProbeHook>>;
  void Add(jmethodID method, jlocation location, std::shared_ptr<ProbeHook> hook) {
    places_[{method, location}].push_back(std::move(hook));
  }
  // Answers whether no probe is left at the place.
  bool Remove(jmethodID method, jlocation location, const ProbeHook* hook) {
    auto it = places_.find({method, location});
    if (it == places_.end()) return true;
    std::erase_if(it->second, [&](const std::shared_ptr<ProbeHook>& h) { return h.get() == hook; });
    if (!it->second.empty()) return false;
    places_.erase(it);
    return true;
  }
  bool Has(jmethodID method, jlocation location) const { return places_.contains({method, location}); }
  const Hooks* At(jmethodID method, jlocation location) const {
    auto it = places_.find({method, location});
    return it == places_.end() ? nullptr : &it->second;
  }
  bool empty() const { return places_.empty(); }

 private:
  std::map<std::pair<jmethodID, jlocation>, Hooks> places_;
};

}  // namespace jdwpx::backend
