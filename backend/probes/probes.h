// The probes of the debugger session (issue 30): the vendor Probe command
// set's semantics (Set, Clear, List), and what keeps each probe at its places
// while classes come and change: deferred probes armed at their class's
// ClassPrepare, probes set again after RedefineClasses, every probe cleared at
// the session's end. probe.h does a hit's work.
//
// Threads: the command thread (Set, Clear, List, EndSession, AfterRedefine,
// and TakeOut's posted work); any Java thread that prepares a class
// (OnClassPrepared). mu_ ranks above EventRequests::mu(): it is held while
// places are added to and removed from the request table, never by a hit.
#pragma once

#include <jni.h>
#include <jvmti.h>

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "backend/context.h"
#include "backend/session_slot.h"
#include "backend/events/event_requests.h"
#include "backend/events/outbox.h"
#include "backend/events/probe_places.h"
#include "backend/probes/budget.h"
#include "backend/probes/probe.h"
#include "jdwp/commands/probe.h"

namespace jdwpx::backend::probes {

class Probes : public ClassPrepareListener {
 public:
  Probes(Context& ctx, EventRequests& requests, Outbox& outbox);
  ~Probes() override;

  // Commands (command thread) of session `session`: its probes are its own
  // (sessions=N), their output goes to its connection alone.
  jdwp::Probe::Set::Reply Set(JNIEnv* jni, const jdwp::Probe::Set::Request& request, SessionSlot session);
  // `probe_id` 0: all of them. How many were cleared; INVALID_INDEX for an ID
  // that names no probe of the session.
  jdwp::Result<int32_t> Clear(JNIEnv* jni, int32_t probe_id, SessionSlot session);
  jdwp::Probe::List::Reply List(SessionSlot session);
  // The session of transport connection `connection` ended (any way): its probes leave the VM.
  void EndSession(JNIEnv* jni, uint64_t connection);
  // After RedefineClasses of `classes` (JVMTI cleared their breakpoints): the
  // probes there are set again in the new code.
  void AfterRedefine(JNIEnv* jni, const std::vector<jclass>& classes);

  // ClassPrepareListener (the preparing thread): deferred probes, and probes
  // whose location names classes loaded later.
  void OnClassPrepared(JNIEnv* jni, jclass klass) override;

  // For the hits (probe.cc).
  Context& ctx() { return ctx_; }
  CpuBudget& budget() { return budget_; }
  // Probe output and notices; they never wait for the client (Outbox::SendSoonTo).
  void Send(const Probe& probe, jdwp::CommandId command, std::vector<uint8_t> body);
  // A probe whose connection was backlogged: whether it still is (else its mark is cleared).
  bool StillBacklogged(const Probe& probe);
  void Notice(const Probe& probe, jdwp::Probe::NoticeKind kind, const std::string& message);
  // Takes a probe out of the VM (paused or done), on the command thread: a hit
  // cannot clear the breakpoint it stands on.
  void TakeOut(const std::shared_ptr<Probe>& probe, jdwp::Probe::State state);

 private:
  struct Entry {
    std::shared_ptr<Probe> probe;
    std::vector<std::shared_ptr<ProbeAtPlace>> places;
  };
  // The probe's places in `klass` with its expressions compiled there; a
  // problem names what does not fit.
  tl::expected<std::vector<std::shared_ptr<ProbeAtPlace>>, std::string> Prepare(JNIEnv* jni,
                                                                                const std::shared_ptr<Probe>& probe,
                                                                                jclass klass);
  // Sets `at` in the VM, skipping places the entry has already (mu_ held).
  int32_t Arm(Entry& entry, std::vector<std::shared_ptr<ProbeAtPlace>> at);
  void Disarm(Entry& entry);  // mu_ held
  void UpdateListener(JNIEnv* jni);  // mu_ held
  int32_t ClearOf(JNIEnv* jni, int32_t probe_id, uint64_t connection);
  std::string LocationText(jmethodID method, int32_t line);

  Context& ctx_;
  EventRequests& requests_;
  Outbox& outbox_;
  CpuBudget budget_;
  std::mutex mu_;
  std::map<int32_t, Entry> entries_;  // mu_
  int32_t next_id_ = 1;  // mu_
  bool listening_ = false;  // mu_
  // Packet IDs of the probes' own packets: their own range, apart from the
  // event reporter's.
  std::atomic<uint32_t> next_packet_id_{0x40000000};
};

}  // namespace jdwpx::backend::probes
