// Serving a debugger's connection (session.h): what the transport hands over
// (attach, packets, detach) goes into the command thread's inbox, in order; the
// command loop runs each packet through the dispatcher; the session's end gives
// back what the debugger held. The protocol trace (trace=) is written from here.
#include "backend/session/session.h"

#include <sched.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include <fmt/format.h>
#include <spdlog/details/null_mutex.h>
#include <spdlog/sinks/base_sink.h>

#include "backend/commands/bind_all.h"
#include "backend/commands/handlers.h"
#include "backend/session/launch_debugger.h"
#include "backend/log.h"
#include "backend/messages.h"
#include "backend/session/streamed_reply.h"
#include "jdwp/print.h"

namespace jdwpx::backend {
namespace {

// Errors the agent logs go into the protocol trace too (AgentError records).
class TraceErrorSink : public spdlog::sinks::base_sink<spdlog::details::null_mutex> {
 public:
  explicit TraceErrorSink(trace::Writer* writer) : writer_(writer) { set_level(spdlog::level::err); }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override {
    writer_->Error(std::string_view(msg.payload.data(), msg.payload.size()));
  }
  void flush_() override {}

 private:
  trace::Writer* writer_;  // lives as long as the session (never destroyed)
};

std::string SystemProperty(jvmtiEnv* jvmti, const char* name) {
  char* value = nullptr;
  if (jvmti->GetSystemProperty(name, &value) != JVMTI_ERROR_NONE || !value) return {};
  std::string text(value);
  jvmti->Deallocate(reinterpret_cast<unsigned char*>(value));
  return text;
}

}  // namespace

Session::Session(Context& ctx, EventManager& events, EventReporter& reporter, probes::Probes& probes,
                 SessionHost& host)
    : ctx_(ctx), events_(events), reporter_(reporter), probes_(probes), host_(host) {
  BindAllCommands(dispatcher_, CommandEnv{ctx_, events_, reporter_, probes_, &command_jni_, &command_slot_}, *this);
  OpenTrace(ctx_.jvmti.raw());
}

void Session::OpenTrace(jvmtiEnv* jvmti) {
  const Options& o = ctx_.options;
  if (!o.trace) return;
  const auto pid = static_cast<uint32_t>(getpid());
  trace::WriterConfig config;
  config.path = trace::ExpandPath(*o.trace, pid);
  config.bodies = o.trace_bytes;
  config.max_bytes = static_cast<uint64_t>(o.trace_size_mb) << 20;
  config.header.jdwpx_version = JDWPX_VERSION;
  config.header.vm_name = SystemProperty(jvmti, "java.vm.name");
  config.header.vm_version = SystemProperty(jvmti, "java.vm.version");
  config.header.pid = pid;
  config.header.options = o.raw;
  // A full disk mid-run: said once, and the debugger's traffic goes on untouched.
  config.on_error = [](const std::string& why) { Log().warn("{}; the agent runs on without a trace", why); };
  auto writer = trace::Writer::Open(std::move(config));
  if (!writer) {
    std::fprintf(stderr, "jdwpx: %s; the agent runs on without a trace\n", writer.error().c_str());
    std::fflush(stderr);
    return;
  }
  trace_ = std::move(*writer);
  ctx_.trace_thread_names = std::make_unique<TraceThreadNames>(ctx_.jvmti, trace_.get());  // names thread tracks
  auto sink = std::make_shared<TraceErrorSink>(trace_.get());
  for (const char* name : {"jdwpx.backend", "jdwpx.transport", "jdwpx.packets"}) {
    if (auto logger = spdlog::get(name)) logger->sinks().push_back(sink);
  }
}

void Session::FlushTrace(bool close) {
  if (!trace_) return;
  if (close) {
    trace_->Close();
  } else {
    (void)trace_->Flush(std::chrono::seconds(1));
  }
}

void Session::Post(Message message) {
  {
    std::lock_guard lock(mu_);
    inbox_.push_back(std::move(message));
    inbox_size_.store(inbox_.size(), std::memory_order_release);
  }
  // Outside mu_: the command thread, woken, does not find it still held.
  doorbell_.Ring();
}

void Session::OpenCommands() {
  {
    std::lock_guard lock(mu_);
    commands_open_ = true;
  }
  doorbell_.Ring();
}

void Session::StopCommands() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  doorbell_.Ring();
}

void Session::OnAttached(const std::string& peer, uint64_t connection, std::chrono::nanoseconds handshake) {
  if (trace_) trace_->SessionAttached(connection, peer, static_cast<uint64_t>(handshake.count()));
  std::optional<SessionSlot> slot;
  {
    std::lock_guard lock(mu_);
    open_connections_.push_back(connection);
    // A slot free (the previous debugger's teardown is done): events may flow
    // from now on. Otherwise the command thread begins it after that teardown.
    slot = ClaimSlotLocked(connection);
  }
  if (ctx_.options.sessions > 1) {
    Log().info("debugger attached from {} (connection {}{})", peer, connection,
               slot ? fmt::format(", session {}", *slot) : std::string());
  } else {
    Log().info("debugger attached from {}", peer);
  }
  if (slot) BeginSlot(*slot);
  Post({Message::kAttached, {}, connection});
}

std::optional<SessionSlot> Session::ClaimSlotLocked(uint64_t connection) {
  for (int s = 0; s < ctx_.options.sessions; ++s) {
    if (served_[s].load() != 0) continue;
    served_[s].store(connection);
    return static_cast<SessionSlot>(s);
  }
  return std::nullopt;
}

std::optional<SessionSlot> Session::SlotOf(uint64_t connection) const {
  if (connection == 0) return std::nullopt;
  for (int s = 0; s < ctx_.options.sessions; ++s) {
    if (served_[s].load() == connection) return static_cast<SessionSlot>(s);
  }
  return std::nullopt;
}

bool Session::SendUnheld(SessionSlot slot, std::vector<uint8_t> packet) {
  return SendPacket(served_[slot].load(), std::move(packet), false, false);
}

bool Session::Backlogged(SessionSlot slot) { return ConnectionBacklogged(served_[slot].load()); }

bool Session::ConnectionBacklogged(uint64_t connection) {
  transport::Transport* transport = host_.transport();
  return transport && connection != 0 && transport->Backlogged(connection);
}

bool Session::SendPacket(uint64_t connection, std::vector<uint8_t> packet, bool soon, bool hold) {
  if (auto* log = PacketTraceLog()) {
    // With several debuggers, each line names the connection.
    if (ctx_.options.sessions > 1) {
      log->trace("-> [{}] {}", connection, jdwp::DescribePacket(packet));
    } else {
      log->trace("-> {}", jdwp::DescribePacket(packet));
    }
  }
  transport::Transport* transport = host_.transport();
  if (!transport) return false;
  if (soon) {
    return transport->SendSoon(connection, std::move(packet));
  } else if (!hold) {
    return transport->SendUnheld(connection, std::move(packet));
  } else {
    transport->Send(connection, std::move(packet));
  }
  return false;
}

void Session::BeginServing(uint64_t connection) {
  if (SlotOf(connection)) return;  // begun at its attach
  std::optional<SessionSlot> slot;
  {
    std::lock_guard lock(mu_);
    slot = ClaimSlotLocked(connection);
  }
  if (!slot) {
    // The transport attaches no more than sessions= debuggers, and each one's
    // teardown comes before the next attach: not reached.
    Log().error("no session slot free for connection {}: closing it", connection);
    if (transport::Transport* transport = host_.transport()) transport->CloseConnection(connection);
    return;
  }
  BeginSlot(*slot);
}

void Session::BeginSlot(SessionSlot slot) {
  ctx_.objects.BeginSession(slot);
  events_.BeginSession(slot);
}

void Session::OnPacket(uint64_t connection, std::vector<uint8_t> packet) {
  if (trace_) trace_->PacketIn(connection, packet);
  Post({Message::kPacket, std::move(packet), connection});
}

void Session::OnWritten(uint64_t connection, std::span<const uint8_t> bytes, size_t length) {
  if (trace_) trace_->PacketOut(connection, bytes, length);
}

void Session::OnDetached(uint64_t connection, const std::string& reason) {
  if (ctx_.options.sessions > 1) {
    Log().info("debugger detached (connection {}): {}", connection, reason);
  } else {
    Log().info("debugger detached: {}", reason);
  }
  if (trace_) {
    trace_->SessionEnded(connection, reason);
    FlushTrace(/*close=*/false);
  }
  bool none_left = false;
  {
    std::lock_guard lock(mu_);
    std::erase(open_connections_, connection);
    none_left = open_connections_.empty();
  }
  // Dormant once the last debugger has left (onjcmd=y): the port closes then.
  const bool to_dormant = none_left && host_.DormantAfterSession() && !ctx_.vm_dead;
  Post({Message::kDetached, {}, connection, to_dormant});
  detached_cv_.notify_all();
  if (to_dormant) host_.GoDormant();
}

void Session::OnWarning(const std::string& message) {
  if (message.starts_with("Debugger failed to attach")) Log().info("debugger refused: {}", message);
  if (trace_) {
    if (message.starts_with("Debugger failed to attach")) {
      trace_->SessionRefused(message);
    } else {
      trace_->Error(message);
    }
  }
  // Tools and people read these on the console, as with stock.
  std::fprintf(stderr, "%s\n", message.c_str());
  std::fflush(stderr);
}

void Session::RunCommands(JNIEnv* jni) {
  command_jni_ = jni;
  while (true) {
    if (spin_.Armed()) {
      // Yielding: a thread runnable here (the I/O thread with the next packet,
      // the debugger itself) runs first; the core is not held from it.
      spin_.Await([this] { return inbox_size_.load(std::memory_order_acquire) != 0; }, [] { sched_yield(); },
                  [] { return CommandSpin::Clock::now(); });
    }
    Message message;
    bool taken = false;
    std::bitset<kMaxSessions> room;
    {
      std::unique_lock lock(mu_);
      doorbell_.Wait(lock, [&] { return stopping_ || room_.any() || (commands_open_ && !inbox_.empty()); });
      room = std::exchange(room_, {});
      // A message with every round of parked parts: a debugger that reads
      // fast starves no other.
      if (!inbox_.empty() && (commands_open_ || stopping_)) {
        message = std::move(inbox_.front());
        inbox_.pop_front();
        inbox_size_.store(inbox_.size(), std::memory_order_relaxed);
        taken = true;
      } else if (room.none()) {
        lock.unlock();
        // On this thread: a parked reply may hold JNI references.
        for (int s = 0; s < kMaxSessions; ++s) (void)DropParked(static_cast<SessionSlot>(s));
        return;
      }
      command_busy_ = true;
    }
    for (int s = 0; s < kMaxSessions; ++s) {
      if (room.test(s)) ContinueParked(jni, static_cast<SessionSlot>(s));
    }
    if (!taken) {
      // Parts made only.
    } else if (auto slot = ParkedBehind(message); slot && message.kind == Message::kPacket) {
      parked_[*slot].waiting.push_back(std::move(message));
    } else if (slot) {
      // Detached: its reply will never be read. What waited runs now (the
      // replies go nowhere, as with one debugger), the detach last.
      std::deque<Message> waiting = DropParked(*slot);
      waiting.push_back(std::move(message));
      for (Message& m : waiting) Handle(jni, m);
    } else if (message.kind == Message::kPacket) {
      spin_.PacketTaken(CommandSpin::Clock::now());
      Handle(jni, message);
      spin_.PacketDone(CommandSpin::Clock::now());
    } else {
      spin_.OtherTaken();
      Handle(jni, message);
    }
    {
      std::lock_guard lock(mu_);
      command_busy_ = false;
    }
    idle_cv_.notify_all();
  }
}

void Session::Handle(JNIEnv* jni, Message& message) {
  switch (message.kind) {
    case Message::kAttached:
      // Before any of the session's commands (they follow in the inbox).
      if (!host_.EnableSessionEvents(jni)) Log().error("cannot enable the JVMTI events a debugger needs");
      BeginServing(message.connection);
      break;
    case Message::kPacket:
      // A packet of a connection no longer served (sent after Dispose) is not run.
      if (auto slot = SlotOf(message.connection)) {
        HandlePacket(jni, message.bytes, *slot);
      } else {
        Log().debug("dropping a packet of an ended session");
      }
      break;
    case Message::kDetached:
      // Not served any more when Dispose ended it already.
      if (auto slot = SlotOf(message.connection)) EndSession(jni, *slot);
      if (!message.to_dormant) AnnounceListeningAgain();
      break;
    case Message::kTask: {
      vmcore::LocalFrame frame(jni, 64);
      ctx_.threads.ApplyPendingSuspensions();  // as before a command (HandlePacket)
      message.task(jni);
      break;
    }
  }
}

std::optional<SessionSlot> Session::ParkedBehind(const Message& message) const {
  if (message.kind != Message::kPacket && message.kind != Message::kDetached) return std::nullopt;
  auto slot = SlotOf(message.connection);
  if (!slot || !parked_[*slot].reply) return std::nullopt;
  return slot;
}

void Session::SendStreamed(uint64_t connection, SessionSlot slot, uint32_t id, std::unique_ptr<ReplySource> body) {
  transport::Transport* transport = host_.transport();
  if (!transport) return;
  if (ctx_.options.sessions == 1) {
    // One debugger: nothing else to serve while it reads; stock's behaviour.
    // Its first part failed, nothing sent: an error reply instead.
    if (auto error = SendStreamedReply(*transport, connection, id, *body)) {
      SendTo(connection, jdwp::MakeReplyPacketIn(id, *error, {}));
    }
    return;
  }
  auto reply = std::make_unique<StreamedReply>(id, std::move(body));
  // Rung by the transport (I/O thread) once the window has room, or the connection ended.
  auto on_room = [this, slot] {
    {
      std::lock_guard lock(mu_);
      room_.set(slot);
    }
    doorbell_.Ring();
  };
  if (auto error = reply->Start(*transport, connection, std::move(on_room))) {
    SendTo(connection, jdwp::MakeReplyPacketIn(id, *error, {}));
    return;
  }
  if (!reply->Continue()) return;
  parked_[slot].reply = std::move(reply);
  std::lock_guard lock(mu_);
  ++parked_count_;
}

void Session::ContinueParked(JNIEnv* jni, SessionSlot slot) {
  Parked& parked = parked_[slot];
  if (!parked.reply) return;  // a late ring, its reply done or dropped
  {
    vmcore::LocalFrame frame(jni, 64);
    ObjectTable::CreditScope credit(slot);
    if (parked.reply->Continue()) return;
  }
  // Done: its debugger's messages that waited run now, in order, until one
  // parks a reply again.
  std::deque<Message> waiting = DropParked(slot);
  while (!waiting.empty()) {
    Message message = std::move(waiting.front());
    waiting.pop_front();
    Handle(jni, message);
    if (parked_[slot].reply) {
      // Parked again: the rest waits behind the new reply.
      for (Message& m : waiting) parked_[slot].waiting.push_back(std::move(m));
      return;
    }
  }
}

std::deque<Session::Message> Session::DropParked(SessionSlot slot) {
  Parked& parked = parked_[slot];
  if (parked.reply) {
    // Unfinished, its writer ends the connection (streamed_reply.h).
    parked.reply.reset();
    std::lock_guard lock(mu_);
    --parked_count_;
  }
  return std::exchange(parked.waiting, {});
}

void Session::AnnounceListeningAgain() {
  // As stock: listening again prints the line again, or runs launch= again,
  // once the session has ended, in order with the commands the debugger sent
  // before leaving: a VirtualMachine.Exit among them ends the process first
  // (a JIT debugger that exits the VM and closes is not launched again).
  if (!ctx_.options.server || ctx_.vm_dead) return;
  transport::Transport* transport = host_.transport();
  if (ctx_.options.launch) {
    (void)LaunchDebugger(*ctx_.options.launch, ctx_.options.transport, transport->address());
  } else if (!ctx_.options.quiet) {
    std::printf("%s\n", fmt::format(messages::kListeningFor, ctx_.options.transport, transport->address()).c_str());
    std::fflush(stdout);
  }
}

namespace {

// What a debugger stepping on sends at a step's event (single_step_modes.h):
// the next step, the old one's deletion, the resume.
bool GoesOnStepping(const jdwp::Packet& p) {
  using Set = jdwp::CommandSet;
  switch (static_cast<Set>(p.command_set)) {
    case Set::kEventRequest: return p.command == 1 || p.command == 2;  // Set, Clear
    case Set::kVirtualMachine: return p.command == 9;   // Resume
    case Set::kThreadReference: return p.command == 3;  // Resume
    default: return false;
  }
}

bool Invokes(const jdwp::Packet& p) {
  using Set = jdwp::CommandSet;
  switch (static_cast<Set>(p.command_set)) {
    case Set::kClassType: return p.command == 3 || p.command == 4;  // InvokeMethod, NewInstance
    case Set::kInterfaceType: return p.command == 1;    // InvokeMethod
    case Set::kObjectReference: return p.command == 6;  // InvokeMethod
    default: return false;
  }
}

// The resumes and the invokes find their threads by the debugger's count alone
// and make a suspension left pending (an event's, an invoke's end) moot. A
// request's Set and Clear read a parked thread's frames at most (a step's
// start), which hold still while it waits in Park; a step out, whose frame pop
// needs the thread JVMTI-suspended, applies it itself (StepControl::Start). So a step in
// a row (JDI: Clear, Set, Resume) costs no JVMTI suspend and resume. Every other
// command may look at a thread and sees it JVMTI-suspended
// (ThreadControl::ApplyPendingSuspensions).
bool LeavesSuspensionsPending(const jdwp::Packet& p) { return GoesOnStepping(p) || Invokes(p); }

}  // namespace

void Session::HandlePacket(JNIEnv* jni, const std::vector<uint8_t>& bytes, SessionSlot slot) {
  // A reply goes to the connection its command came from, even when it comes later.
  const uint64_t connection = served_[slot].load();
  auto packet = jdwp::ParsePacket(bytes);
  if (!packet) {
    Log().warn("dropping a malformed packet: {}", packet.error().detail);
    return;
  }
  if (packet->is_reply()) {
    // The agent sends no command that expects a reply: a reply from the debugger
    // is a protocol error, and as stock the session ends.
    Log().warn("the debugger sent a reply packet (id {}): closing the connection", packet->id);
    EndSession(jni, slot);
    host_.transport()->CloseConnection(connection);
    return;
  }
  if (auto* plog = PacketTraceLog()) {
    if (ctx_.options.sessions > 1) {
      plog->trace("<- [{}] {}", connection, jdwp::DescribePacket(bytes));
    } else {
      plog->trace("<- {}", jdwp::DescribePacket(bytes));
    }
  }
  vmcore::LocalFrame frame(jni, 64);
  uint32_t id = packet->id;
  command_slot_ = slot;
  ObjectTable::CreditScope credit(slot);  // the IDs of the reply are this session's
  if (!LeavesSuspensionsPending(*packet)) ctx_.threads.ApplyPendingSuspensions();
  if (!GoesOnStepping(*packet)) ctx_.single_steps.DropLingers(jni);
  dispatcher_.Dispatch(*packet, ctx_.vm_dead.load(),
                       Responder(
                           [this, id, connection](jdwp::ErrorCode error, std::vector<uint8_t> body) {
                             SendTo(connection, jdwp::MakeReplyPacketIn(id, error, std::move(body)));
                           },
                           [this, id, connection, slot](std::unique_ptr<ReplySource> body) {
                             SendStreamed(connection, slot, id, std::move(body));
                           }));
  if (exit_code_) {
    CloseConnectionAndWait(connection);
    // exit() posts no VMDeath: the trace is closed here.
    FlushTrace(/*close=*/true);
    std::exit(*exit_code_);
  }
  if (dispose_requested_) {
    dispose_requested_ = false;
    EndSession(jni, slot);
    host_.transport()->CloseConnection(connection);
  }
}

void Session::CloseConnectionAndWait(uint64_t connection) {
  transport::Transport* transport = host_.transport();
  if (!transport) return;
  transport->CloseConnection(connection);
  std::unique_lock lock(mu_);
  detached_cv_.wait_for(lock, std::chrono::seconds(2), [&] {
    return std::find(open_connections_.begin(), open_connections_.end(), connection) == open_connections_.end();
  });
}

void Session::EndSession(JNIEnv* jni, SessionSlot slot) {
  const uint64_t connection = served_[slot].load();
  // A reply still parked goes nowhere now (its connection is closed or closing).
  (void)DropParked(slot);
  probes_.EndSession(jni, connection);  // before the requests: no probe hit is in the way of their end
  events_.EndSession(jni, slot);
  // The reporter may have found an event current just before the new epoch and
  // be applying its suspension now: let it finish, so that ResumeEverything
  // comes after it (later items see the new epoch and suspend nothing).
  reporter_.Drain(2000, slot);
  ctx_.threads.ResumeEverything(jni, slot);
  ctx_.frame_reads.Clear();
  bool last = true;
  for (int s = 0; s < ctx_.options.sessions; ++s) last = last && (s == slot || served_[s].load() == 0);
  if (last) {
    ctx_.objects.Reset(jni, slot);
    host_.DisableSessionEvents(jni);
    // Off the next debugger's path: its first class scan finds the IDs given.
    if (!ctx_.vm_dead) ctx_.classes.ReserveIds(jni);
  } else {
    // The others keep their IDs: what this one alone held and pinned is let go (ids.h).
    ctx_.objects.EndSession(jni, slot);
  }
  std::lock_guard lock(mu_);
  served_[slot].store(0);
}

void Session::EndAtVmDeath() {
  // As stock, the connection stays open until the process exits: a debugger may
  // still send commands after reading VMDeath (Eclipse resumes), and those are
  // answered (VM_DEAD outside the VirtualMachine set) rather than cut off.
  // Commands already received are finished and every reply is written first.
  {
    std::unique_lock lock(mu_);
    idle_cv_.wait_for(lock, std::chrono::seconds(2),
                      [&] { return !commands_open_ || stopping_ || (inbox_.empty() && !command_busy_ && parked_count_ == 0); });
  }
  host_.transport()->Flush(std::chrono::seconds(2));
  if (trace_) {
    std::vector<uint64_t> open;
    {
      std::lock_guard lock(mu_);
      open = open_connections_;
    }
    for (uint64_t connection : open) trace_->SessionEnded(connection, "the VM exited");
  }
  // The process ends after this callback (System.exit, kill -TERM, main's end):
  // the trace is written out, VMDeath's packet included.
  FlushTrace(/*close=*/true);
}

}  // namespace jdwpx::backend
