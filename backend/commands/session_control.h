// What the VirtualMachine command set asks of the debugger session, beyond the
// Context every handler shares: the two commands whose effect comes after their
// reply, and work for the command thread after the command. Session
// (session.h) implements it; the handlers get it by reference and never see
// the Session.
#pragma once

#include <jni.h>

#include <functional>

namespace jdwpx::backend {

class SessionControl {
 public:
  virtual ~SessionControl() = default;
  // VirtualMachine.Dispose: end the session once the reply is out.
  virtual void RequestDispose() = 0;
  // VirtualMachine.Exit: exit the process with `code` once the reply is out.
  virtual void RequestExit(int code) = 0;
  // Runs `task` on the command thread after the commands already received
  // (the class table's first build, after the scan that found it missing).
  virtual void PostTask(std::function<void(JNIEnv*)> task) = 0;
};

}  // namespace jdwpx::backend
