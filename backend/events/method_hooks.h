// Method events without making every thread interpret everything.
//
// JVMTI MethodEntry and MethodExit events, once enabled, make every thread run
// interpreted: an IDE's method breakpoint (MethodEntry and MethodExit filtered
// to a class) slows the whole program a hundredfold or more under the stock
// agent. A method request filtered to classes (ClassOnly, ClassMatch) only
// needs the events of those classes' methods, so it is hooked instead:
//  - Entries: a JVMTI breakpoint at the first instruction of each method with
//    code of the classes it may match (the loaded ones when the request is
//    made, the others at their ClassPrepare). Only those methods stop being
//    compiled. A method whose code branches back to its first instruction (a
//    loop at its start) tells a new entry from the loop by the frames of it the
//    thread is in, listed per thread (the frame count at entry).
//  - Exits: while a thread is in a frame of a method an exit request may match
//    (it met the entry breakpoint, or was in it when the request was made), or
//    of a looping method, MethodExit events are enabled for that thread alone;
//    the exit that leaves none on its stack turns them off again.
// A request whose classes declare a native method (no breakpoint meets its
// entry), or that would hook too many methods, is not hooked: the JVMTI
// events serve it as before. The events reported, their order and their
// composites are the same either way (integration.method_events, events).
//
// Threads: the mutators run under EventManager's lock, and while the hooks
// change no debuggee thread runs Java code (EventManager suspends the VM around
// a method request's Set and Clear and around RedefineClasses): the frames
// threads are in are followed before any of them can loop or return. Callbacks
// read an immutable snapshot of the hooks (atomic shared_ptr) and a thread's
// own record (ThreadControl::HookedFrames) under that record's lock, which is
// taken after ThreadControl's and never while a thread waits for anything else.
// Known limit: a virtual thread the agent does not list (includevirtualthreads
// =n) that is already in a hooked frame when a request is made is not found,
// so that frame's exit goes unreported (and a loop in it would look like an
// entry).
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "backend/context.h"

namespace jdwpx::backend {

class MethodHooks {
 public:
  // The classes a method request may match, from its class filters.
  struct RequestFilter {
    int32_t id = 0;
    bool entry = false;               // MethodEntry; else MethodExit or MethodExitWithReturnValue
    std::vector<jclass> only;         // ClassOnly (global references)
    std::vector<std::string> match;   // ClassMatch
    std::vector<std::string> exclude; // ClassExclude
    bool Hookable() const { return !only.empty() || !match.empty(); }
  };
  // A hooked method: a breakpoint at its first instruction.
  struct Method {
    jlocation start = 0;
    bool entry = false;           // a hooked MethodEntry request may match it
    bool exit = false;            // a hooked exit request may match it
    bool loops_to_start = false;  // its code branches back to `start`
    bool tracked() const { return exit || loops_to_start; }  // its frames are followed to their exit
  };
  struct Hooks {
    std::unordered_map<jmethodID, Method> methods;
    std::vector<RequestFilter> requests;  // the hooked ones (global references owned by MethodHooks)
    bool tracks_any = false;
    // Bumped by every Rebuild: a thread whose record was last checked against
    // an older one checks it again at its next exit.
    uint64_t generation = 0;
    // A class was redefined while hooked: frames of obsolete methods (their old
    // code) are followed too, their class being hooked.
    bool check_obsolete = false;
    const Method* Find(jmethodID method) const {
      auto it = methods.find(method);
      return it == methods.end() ? nullptr : &it->second;
    }
  };

  explicit MethodHooks(Context& ctx);

  // --- EventManager's lock held ---
  // Hooks the requests that can be over the prepared classes; returns their
  // ids. `reset_breakpoints`: set every hook's breakpoint again (after a
  // redefinition cleared some). `user_breakpoint_at`: whether a breakpoint
  // request needs the JVMTI breakpoint at a place a hook gives up.
  std::unordered_set<int32_t> Rebuild(JNIEnv* jni, std::vector<RequestFilter> requests, bool reset_breakpoints,
                                      const std::function<bool(jmethodID, jlocation)>& user_breakpoint_at);
  // A class was prepared: its methods are hooked for the requests that may
  // match it. False when a request can no longer be hooked (Rebuild then).
  bool AddClass(JNIEnv* jni, jclass klass);

  // --- any thread ---
  std::shared_ptr<const Hooks> Current() const { return std::atomic_load(&current_); }
  // Whether an exit of `method` may match a hooked request.
  bool MayMatchExit(jmethodID method) const {
    auto hooks = Current();
    return hooks->Find(method) || (hooks->check_obsolete && Followed(*hooks, method));
  }
  bool Empty() const { return Current()->requests.empty(); }
  bool BreakpointAt(jmethodID method, jlocation location) const {
    auto* m = Current()->Find(method);
    return m && m->start == location;
  }

  // --- callbacks, on the thread itself ---
  // The thread is at `location` of `method` (a breakpoint, or a step ending
  // there), once per arrival: true when that is an entry a hooked MethodEntry
  // request may report. Follows the frame to its exit when it must.
  bool OnStart(JNIEnv* jni, jthread self, jmethodID method, jlocation location);
  // Every MethodExit event of the thread: turns its MethodExit events off once
  // no followed frame is left.
  void OnExit(JNIEnv* jni, jthread self, jmethodID method);

  // --- command thread ---
  // After a request change (the VM suspended): follows the frames of hooked
  // methods threads are already in, and drops what a thread's record says of
  // frames its stack does not have.
  void TrackRunningFrames(JNIEnv* jni);
  // After StackFrame.PopFrames (no event reports the popped frames).
  void FramesPopped(JNIEnv* jni, jthread thread);

 private:
  bool Capable();
  bool Accepts(JNIEnv* jni, const RequestFilter& r, jclass klass, const std::string& name) const;
  // Whether some request filters on class names (ClassMatch, ClassExclude).
  static bool WantsNames(const std::vector<RequestFilter>& requests);
  std::string NameOf(jclass klass) const;
  Method Describe(jmethodID method, bool entry, bool exit) const;
  // Whether a frame of `thread` from depth `start` on is followed (tracked, or
  // obsolete once check_obsolete).
  bool FollowedFrameFrom(jthread thread, const Hooks& hooks, jint start) const;
  bool Followed(const Hooks& hooks, jmethodID method) const;
  // The whole stack of `thread` (suspended, or the current thread).
  std::vector<vmcore::Frame> WholeStack(jthread thread) const;
  // MethodExit events for the thread off, and its record emptied (lock held).
  void StopFollowing(jthread thread, ThreadControl::HookedFrames& frames);
  void Publish(std::shared_ptr<const Hooks> next);

  Context& ctx_;
  std::shared_ptr<const Hooks> current_;
  int capable_ = -1;  // -1 not asked yet
  bool can_read_bytecodes_ = false;
};

}  // namespace jdwpx::backend
