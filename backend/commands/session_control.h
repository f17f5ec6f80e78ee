// What the VirtualMachine command set asks of the agent that hosts the session,
// beyond the Context every handler shares: the two commands whose effect comes
// after their reply. Agent implements it; the handlers get it by reference and
// never see the Agent.
#pragma once

namespace jdwpx::backend {

class SessionControl {
 public:
  virtual ~SessionControl() = default;
  // VirtualMachine.Dispose: end the session once the reply is out.
  virtual void RequestDispose() = 0;
  // VirtualMachine.Exit: exit the process with `code` once the reply is out.
  virtual void RequestExit(int code) = 0;
};

}  // namespace jdwpx::backend
