// The debugger sessions: what the transport hands over (attach, packets,
// detach) goes into the command thread's inbox, in order; the command loop
// runs each packet through the dispatcher; a session's end gives back what
// its debugger held. The Agent (agent.h) creates the one Session, sets up the
// transport that feeds it and runs its threads.
//
// sessions=N: up to N debuggers attached at once, each in a slot of its own
// (session_slot.h) that its requests, suspensions, probes and pinned objects
// are counted in; the command thread runs the commands of all of them, one at
// a time in arrival order, each in its own slot (CommandEnv), and each reply
// goes to the connection its command came from.
// A streamed reply (streamed_reply.h) that its debugger does not read on is
// parked (sessions > 1): the command thread serves the other debuggers, and
// that debugger's later messages wait behind the reply, in order, until the
// transport has room for its next parts (or the connection ends). So a
// debugger that stops reading holds back nobody's commands but its own, as
// if it were alone.
//
// Threading:
//   I/O thread      the transport::Listener callbacks (OnAttached, OnPacket,
//                   OnDetached, OnWarning, OnWritten, OnAcceptFailed): they post
//                   to the inbox and feed the trace, and never wait on a command
//   command thread  RunCommands, and with it everything the inbox holds: each
//                   packet (HandlePacket, the dispatcher, the handlers), the
//                   session's begin (BeginServing) and end (EndSession,
//                   AnnounceListeningAgain), the event path's tasks (PostTask)
//   any thread      Send/SendTo: the reporter and the Java threads of the direct
//                   path send events, the command thread replies; the transport
//                   writes when the socket is free (transport.h)
//   Agent           OpenCommands (once VMStart's suspension is in force),
//                   StopCommands (VM death, nobody attached), EndAtVmDeath
//                   (VMDeath's thread, a debugger attached)
// mu_ is a leaf: nothing is called under it but the doorbell and the condition
// variables.
#pragma once

#include <jni.h>

#include <array>
#include <atomic>
#include <bitset>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "backend/session/command_spin.h"
#include "backend/commands/session_control.h"
#include "backend/context.h"
#include "backend/commands/dispatcher.h"
#include "backend/session/doorbell.h"
#include "backend/session/streamed_reply.h"
#include "backend/events/events.h"
#include "backend/events/outbox.h"
#include "backend/probes/probes.h"
#include "backend/session_slot.h"
#include "trace/writer.h"
#include "transport/transport.h"

namespace jdwpx::backend {

// What a session asks of the agent that hosts it (Agent implements it): the
// transport it set up, the JVMTI events only a debugger needs, and what the
// agent does when a debugger leaves or cannot be accepted.
class SessionHost {
 public:
  virtual ~SessionHost() = default;
  // The transport the agent set up; null before, or when none started.
  virtual transport::Transport* transport() = 0;
  // Agent::EnableSessionEvents / DisableSessionEvents (agent.h).
  virtual bool EnableSessionEvents(JNIEnv* jni) = 0;
  virtual void DisableSessionEvents(JNIEnv* jni) = 0;
  // Whether the agent goes dormant when the debugger leaves (started by jcmd and
  // so configured), and going there (I/O thread, at the detach).
  virtual bool DormantAfterSession() = 0;
  virtual void GoDormant() = 0;
  // As stock: timeout= ran out with nobody attached, or accepting failed: exits.
  [[noreturn]] virtual void ExitWithTransportError(const transport::TransportError& error) = 0;
};

class Session : public transport::Listener, public Outbox, public SessionControl {
 public:
  // Binds every command handler and opens the trace (trace=). `events` and
  // `reporter` are built after the session (they write to it): it and the
  // handlers only keep the references here.
  Session(Context& ctx, EventManager& events, EventReporter& reporter, probes::Probes& probes, SessionHost& host);

  // transport::Listener (I/O thread)
  void OnAttached(const std::string& peer, uint64_t session, std::chrono::nanoseconds handshake) override;
  void OnPacket(uint64_t connection, std::vector<uint8_t> packet) override;
  void OnDetached(uint64_t connection, const std::string& reason) override;
  void OnWarning(const std::string& message) override;
  void OnWritten(uint64_t connection, std::span<const uint8_t> bytes, size_t length) override;
  void OnAcceptFailed(const transport::TransportError& error) override {
    if (!ctx_.vm_dead) host_.ExitWithTransportError(error);
  }

  // SessionControl (the VirtualMachine handlers): Dispose ends the session once
  // the reply is out, Exit the process.
  void RequestDispose() override { dispose_requested_ = true; }
  void RequestExit(int code) override { exit_code_ = code; }
  // Outbox (the event path's way up): to the connection a slot serves now, and to the command thread.
  void Send(SessionSlot slot, std::vector<uint8_t> packet) override { SendTo(served_[slot].load(), std::move(packet)); }
  uint64_t connection(SessionSlot slot) const override { return served_[slot].load(); }
  bool SendUnheld(SessionSlot slot, std::vector<uint8_t> packet) override;
  bool Backlogged(SessionSlot slot) override;
  // Sends one packet to connection `connection` (dropped unless it is still attached).
  void SendTo(uint64_t connection, std::vector<uint8_t> packet) override { SendPacket(connection, std::move(packet), false); }
  bool SendSoonTo(uint64_t connection, std::vector<uint8_t> packet) override {
    return SendPacket(connection, std::move(packet), true, false);
  }
  bool ConnectionBacklogged(uint64_t connection) override;
  void PostTask(std::function<void(JNIEnv*)> task) override { Post({Message::kTask, {}, 0, false, std::move(task)}); }

  // The command thread's loop: returns once StopCommands was called and the
  // inbox is empty.
  void RunCommands(JNIEnv* jni);
  // Commands wait until VMStart's suspension is in force: a debugger may send
  // VirtualMachine.Resume before it has read VMStart, and that resume must
  // find the VM suspended, not run before the suspension.
  void OpenCommands();
  // VM death, no debugger attached: the command loop ends once its inbox is empty.
  void StopCommands();
  // VM death, a debugger attached: waits (bounded) until the commands already
  // received are finished and every reply written, then closes the trace.
  void EndAtVmDeath();

  // Whether the protocol trace (trace=) is being written.
  bool tracing() const { return trace_ != nullptr; }
  // Everything recorded so far reaches the file (detach, VM exit); `close` ends the trace.
  void FlushTrace(bool close);

 private:
  // Send and SendSoon to one connection (dropped unless it is still attached), with the packet log.
  // `soon`: Transport::SendSoon; `hold` false: Transport::SendUnheld. Either one answers whether the connection is backlogged.
  bool SendPacket(uint64_t connection, std::vector<uint8_t> packet, bool soon, bool hold = true);
  struct Message {
    enum Kind { kPacket, kAttached, kDetached, kTask } kind;
    std::vector<uint8_t> bytes;
    uint64_t connection = 0;  // the transport connection it came from
    bool to_dormant = false;  // kDetached: the agent goes dormant (no listening again)
    std::function<void(JNIEnv*)> task{};  // kTask: work of the agent's own (Outbox::PostTask)
  };
  // trace=: opens the protocol trace, or says once why not (the agent runs on).
  void OpenTrace(jvmtiEnv* jvmti);
  // Serves the transport connection `connection` from now on, in a free slot;
  // opens the event manager's new session there.
  void BeginServing(uint64_t connection);
  // A free slot takes `connection` (mu_ held); nullopt when none is free.
  std::optional<SessionSlot> ClaimSlotLocked(uint64_t connection);
  // The slot serving `connection`, if one does.
  std::optional<SessionSlot> SlotOf(uint64_t connection) const;
  // Session end: clear its requests and probes, resume what its debugger
  // suspended, forget its IDs (all of them once no other debugger is
  // attached); then the slot is free for the next attach.
  // A debugger begins in `slot`: its IDs and events.
  void BeginSlot(SessionSlot slot);
  void EndSession(JNIEnv* jni, SessionSlot slot);
  // Flushes and closes one debugger connection, waiting (bounded) for its detach.
  void CloseConnectionAndWait(uint64_t connection);
  void Post(Message message);
  // One message from the inbox (or from behind a parked reply).
  void Handle(JNIEnv* jni, Message& message);
  void HandlePacket(JNIEnv* jni, const std::vector<uint8_t>& bytes, SessionSlot slot);
  // The streamed reply `id` to `connection`, served in `slot`: given whole
  // (sessions=1), or parked there when its window fills.
  void SendStreamed(uint64_t connection, SessionSlot slot, uint32_t id, std::unique_ptr<ReplySource> body);
  // The slot whose parked reply holds `message` back, if any.
  std::optional<SessionSlot> ParkedBehind(const Message& message) const;
  // `slot`'s parked reply goes on (its transport has room, or its connection
  // ended); once it is done, the messages that waited behind it are handled.
  void ContinueParked(JNIEnv* jni, SessionSlot slot);
  // Drops `slot`'s parked reply, if any, and hands back what waited behind it.
  std::deque<Message> DropParked(SessionSlot slot);
  // Server mode, after a session ended: the Listening line or launch= again.
  void AnnounceListeningAgain();

  Context& ctx_;
  EventManager& events_;
  EventReporter& reporter_;
  probes::Probes& probes_;
  SessionHost& host_;
  // The protocol trace (trace=), or null. Fed from the I/O thread (packets in
  // as read, out as written, sessions) and from error logs; it never blocks them.
  std::unique_ptr<trace::Writer> trace_;
  Dispatcher dispatcher_;
  bool dispose_requested_ = false;
  std::optional<int> exit_code_;
  JNIEnv* command_jni_ = nullptr;
  SessionSlot command_slot_ = 0;  // the session of the command being handled (CommandEnv)

  // Sessions. Each message carries its connection; each slot serves one
  // connection at a time (served_): packets of a connection no slot serves are
  // dropped, replies and events go to their slot's connection alone, and
  // Dispose closes it alone. A connection accepted while no slot is free (the
  // previous debugger's teardown has not finished) is served once that is done
  // (its kAttached comes after the previous kDetached); one accepted while a
  // slot is free, at once.
  std::array<std::atomic<uint64_t>, kMaxSessions> served_{};  // written under mu_
  // Transport connections attached now (I/O thread's view; mu_).
  std::vector<uint64_t> open_connections_;

  std::mutex mu_;
  Doorbell doorbell_;  // wakes the command thread (doorbell.h): a message, commands open, stopping_
  std::deque<Message> inbox_;
  // inbox_.size(), also read without mu_ (while the command thread spins).
  std::atomic<size_t> inbox_size_{0};
  // Whether, and how long, the command thread waits for the next command on
  // the CPU before it sleeps (command_spin.h). The command thread's alone.
  CommandSpin spin_;
  bool stopping_ = false;
  bool commands_open_ = false;  // OpenCommands
  std::condition_variable detached_cv_;  // a connection left open_connections_
  // The command thread is handling a message (VM death waits for it to finish
  // what the debugger sent before, as stock does, so no reply is lost).
  bool command_busy_ = false;
  std::condition_variable idle_cv_;

  // Parked streamed replies, one slot at most each (sessions > 1).
  struct Parked {
    std::unique_ptr<StreamedReply> reply;  // null: none parked
    std::deque<Message> waiting;           // its connection's messages since, in order
  };
  std::array<Parked, kMaxSessions> parked_;  // the command thread's alone
  // Slots whose parked reply may go on (the transport's on_room; mu_).
  std::bitset<kMaxSessions> room_;
  // Replies parked now (mu_): VM death waits for them as for the inbox.
  size_t parked_count_ = 0;
};

}  // namespace jdwpx::backend
