// When the command thread, done with a command, waits for the next one on the CPU
// instead of sleeping, and for how long.
//
// A debugger in conversation sends its next command right after reading a reply
// (an IDE at a stop: frames, then locals, then fields...; at a breakpoint: the
// event, then its resume). When a command came within kWindow of the previous
// one's end, the command thread, once done, looks for the next one, yielding,
// for up to kSpin before it sleeps: the I/O thread's hand-off then needs no
// wake-up, the longest step of a cheap command's round trip. 200 us covers a
// breakpoint's or a step's whole turn (event, the debugger, its resume: 100-150
// us on a 2-core machine), so the resume finds the thread awake too.
//
// On a busy machine spinning backfires: a thread that yields stays runnable, so
// when the next command comes the scheduler owes it nothing and it waits out the
// other task's time slice (yields came back after 0.5-4.5 ms here), where a
// sleeping thread would have been woken, and preferred, at once. A yield that
// kept the thread off the CPU for kPreempted ends the spin; kPreemptionsToBackOff
// such spins in a row show a busy machine, and no spin starts for kBackOff. (A quiet machine takes the CPU
// away now and then too, a JIT or GC thread or the hypervisor: a few times a
// second in a breakpoint loop here, seldom in several spins in a row.)
#pragma once

#include <chrono>

namespace jdwpx::backend {

class CommandSpin {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::microseconds kSpin{200};
  static constexpr std::chrono::microseconds kWindow{500};
  static constexpr std::chrono::microseconds kPreempted{500};
  static constexpr int kPreemptionsToBackOff = 3;
  static constexpr std::chrono::milliseconds kBackOff{100};

  // A packet was taken to run at `now`: whether to spin after it.
  void PacketTaken(Clock::time_point now) { armed_ = now - done_ < kWindow && now >= backed_off_until_; }
  // Anything else taken (attach, detach, a task): no spin after it.
  void OtherTaken() { armed_ = false; }
  void PacketDone(Clock::time_point now) { done_ = now; }
  bool Armed() const { return armed_; }

  // Calls yield() until ready(), kSpin has passed, or a yield came back after
  // kPreempted. `now` is the clock (tests pass a fake one).
  template <typename Ready, typename Yield, typename Now>
  void Await(Ready&& ready, Yield&& yield, Now&& now) {
    // A spin that found the next command at once says nothing of the machine.
    if (ready()) return;
    auto t = now();
    const auto until = t + kSpin;
    do {
      yield();
      const auto after = now();
      if (after - t >= kPreempted) {
        if (++preempted_in_a_row_ == kPreemptionsToBackOff) {
          preempted_in_a_row_ = 0;
          backed_off_until_ = after + kBackOff;
        }
        return;
      }
      t = after;
    } while (!ready() && t < until);
    preempted_in_a_row_ = 0;
  }

 private:
  bool armed_ = false;
  Clock::time_point done_{};              // when the last packet was done
  Clock::time_point backed_off_until_{};  // no spin before this
  int preempted_in_a_row_ = 0;            // spins ended by a preemption
};

}  // namespace jdwpx::backend
