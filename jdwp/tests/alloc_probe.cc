#include "jdwp/tests/alloc_probe.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<size_t> largest_allocation{0};
}  // namespace

// Replacements of the global allocation functions, kept in their own file so the
// compiler never pairs them with inlined standard ones.
void* operator new(size_t n) {
  size_t seen = largest_allocation.load(std::memory_order_relaxed);
  while (n > seen && !largest_allocation.compare_exchange_weak(seen, n, std::memory_order_relaxed)) {
  }
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void* operator new[](size_t n) { return operator new(n); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }

namespace jdwpx::jdwp {
void ResetLargestAllocation() { largest_allocation = 0; }
size_t LargestAllocation() { return largest_allocation.load(); }
}  // namespace jdwpx::jdwp
