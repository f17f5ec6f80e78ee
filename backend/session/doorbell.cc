#include "backend/session/doorbell.h"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace jdwpx::backend {

Doorbell::Doorbell(Kind kind) : fd_(kind == Kind::kEventfd ? eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK) : -1) {}

Doorbell::~Doorbell() {
  if (fd_ >= 0) close(fd_);
}

void Doorbell::Ring() {
  // Relaxed: the order comes from the caller's mutex. The waiter set sleeping_
  // under it, and the state it waits for changed under it; false here means the
  // waiter has not decided to sleep since, or is awake and will take the mutex
  // (and see the change) before it decides again.
  if (!sleeping_.load(std::memory_order_relaxed)) return;
  if (fd_ < 0) {
    fallback_.notify_all();
    return;
  }
  const uint64_t one = 1;
  // Only EAGAIN can fail here (the counter full: rung already).
  while (write(fd_, &one, sizeof one) < 0 && errno == EINTR) {
  }
}

void Doorbell::Sleep(std::unique_lock<std::mutex>& lock) {
  sleeping_.store(true, std::memory_order_relaxed);
  if (fd_ < 0) {
    fallback_.wait(lock);
    sleeping_.store(false, std::memory_order_relaxed);
    return;
  }
  lock.unlock();
  if (before_block_) before_block_();
  pollfd p{fd_, POLLIN, 0};
  while (poll(&p, 1, -1) < 0 && errno == EINTR) {
  }
  sleeping_.store(false, std::memory_order_relaxed);
  // Resets the counter: every ring so far is answered by the caller's check.
  uint64_t rings;
  (void)!read(fd_, &rings, sizeof rings);
  lock.lock();
}

}  // namespace jdwpx::backend
