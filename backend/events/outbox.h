// What the event path hands up to the debugger session: packets to send, and
// work for the command thread. The Session (session.h) implements it; the Agent
// passes it down; the event code (EventManager, EventReporter) writes to it and knows
// nothing of the agent, the transport or the command loop above it.
#pragma once

#include <jni.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "backend/session_slot.h"

namespace jdwpx::backend {

class Outbox {
 public:
  virtual ~Outbox() = default;
  // Sends one whole packet to the debugger of `session` (dropped when none is attached there).
  virtual void Send(SessionSlot session, std::vector<uint8_t> packet) = 0;
  // Send that never waits for a debugger that reads nothing (answering whether
  // its connection is backlogged now), and whether Send would wait now
  // (transport.h, SendUnheld and Backlogged): for a sender that serves several
  // sessions and must not be held by one of them.
  virtual bool SendUnheld(SessionSlot session, std::vector<uint8_t> packet) {
    Send(session, std::move(packet));
    return false;
  }
  virtual bool Backlogged(SessionSlot session) { return false; }
  // The transport connection `session` serves now (0: none), and sending to a
  // connection alone: dropped once it is gone, so that what belonged to one
  // debugger never reaches the next (probe output).
  virtual uint64_t connection(SessionSlot session) const = 0;
  virtual void SendTo(uint64_t connection, std::vector<uint8_t> packet) = 0;
  // SendTo for a packet nobody waits on (probe output): it may wait a moment
  // to go out in one write with those that follow (transport.h, SendSoon).
  // Never holds its caller back; answers whether the connection is backlogged
  // now (transport::Transport::SendSoon).
  virtual bool SendSoonTo(uint64_t connection, std::vector<uint8_t> packet) {
    SendTo(connection, std::move(packet));
    return false;
  }
  // Whether a send to `connection` would hold its caller back now.
  virtual bool ConnectionBacklogged(uint64_t connection) { return false; }
  // Runs `task` on the command thread, in order with the commands.
  virtual void PostTask(std::function<void(JNIEnv*)> task) = 0;
};

}  // namespace jdwpx::backend
