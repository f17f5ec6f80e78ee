// Definitions that let the agent, linked against glibc 2.31 (cmake/glibc_floor.cmake),
// carry the host g++'s static libstdc++, which was compiled against a newer glibc and
// refers to two symbols 2.31 lacks. Both are hidden: libstdc++'s references bind here
// and the agent's dynamic symbol table gains nothing (backend.glibc_floor checks).
#include <sys/random.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>

extern "C" {

// glibc 2.32: nonzero while the process has one thread. 0 means "maybe threaded", so
// libstdc++ always takes its atomic paths: correct in a JVM, which is never single-threaded.
__attribute__((visibility("hidden"))) char __libc_single_threaded = 0;

// glibc 2.36: std::random_device's default source. Same contract (never fails):
// getrandom(2) (glibc 2.25), retried on EINTR.
__attribute__((visibility("hidden"))) uint32_t arc4random(void) {
  uint32_t value;
  for (;;) {
    ssize_t n = getrandom(&value, sizeof value, 0);
    if (n == static_cast<ssize_t>(sizeof value)) return value;
    if (n < 0 && errno != EINTR) std::abort();
  }
}

}  // extern "C"
