// How the command thread sleeps until a message is posted, and is woken.
//
// Not a condition variable. On Linux 6.16 and later a process's futexes hash
// into a private table sized by the CPUs (16 slots on 2), and a wake-up walks
// its slot's waiters: in a process whose 4,000 parked threads each wait on a
// futex of their own, one FUTEX_WAKE costs 5.1 us against 0.6 us with 100
// (bench/futex_wake_cost.c). An eventfd wakes its own waiters only: what it
// costs does not grow with the debuggee's threads.
//
// The state a waiter waits for is changed and checked under the caller's
// mutex; Ring() comes after the change, with or without that mutex held. It
// makes a system call only while the waiter is asleep (from its decision to
// sleep until it wakes).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>

namespace jdwpx::backend {

class Doorbell {
 public:
  enum class Kind { kEventfd, kConditionVariable };
  // kEventfd falls back to kConditionVariable when no eventfd can be made.
  explicit Doorbell(Kind kind = Kind::kEventfd);
  ~Doorbell();
  Doorbell(const Doorbell&) = delete;
  Doorbell& operator=(const Doorbell&) = delete;

  // Wakes the waiter, if one sleeps (or has decided to) since done() was false.
  void Ring();

  // Returns once done() (called with `lock` held) is true; `lock` is released
  // while asleep. One waiter at a time.
  template <typename Done>
  void Wait(std::unique_lock<std::mutex>& lock, Done&& done) {
    while (!done()) Sleep(lock);
  }

  // Tests: runs in every sleep on the eventfd with the caller's mutex released,
  // just before the waiter blocks, where a ring is easiest to lose. (The
  // condition variable's wait releases the mutex as it blocks: no such place.)
  void SetBeforeBlockForTest(std::function<void()> hook) { before_block_ = std::move(hook); }

 private:
  // Releases `lock`, sleeps until a ring (or a ring that came before), takes
  // `lock` again.
  void Sleep(std::unique_lock<std::mutex>& lock);

  int fd_ = -1;  // < 0: the condition variable
  // Set under the caller's mutex when the waiter decides to sleep, cleared
  // once it is awake: a Ring() that finds it false is not needed.
  std::atomic<bool> sleeping_{false};
  std::condition_variable fallback_;
  std::function<void()> before_block_;
};

}  // namespace jdwpx::backend
