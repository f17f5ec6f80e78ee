// The command thread's doorbell (doorbell.h) with real threads, on an eventfd
// and on its fallback, a condition variable: a ring wakes a sleeping waiter, a
// ring in the moment before it blocks is not lost, and a ring that is not
// enough (or left over) does not end the wait.
#include "backend/session/doorbell.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

namespace jdwpx::backend {
namespace {

using namespace std::chrono_literals;
using Kind = Doorbell::Kind;

struct Shared {
  explicit Shared(Kind kind) : bell(kind) {}
  std::mutex mu;
  Doorbell bell;
  int posted = 0;  // under mu

  void Post() {
    {
      std::lock_guard lock(mu);
      ++posted;
    }
    bell.Ring();
  }
};

// Waits for `count` posts on a thread of its own. A lost ring leaves that thread
// asleep for good: the test fails and the process ends (a future of std::async
// would wait for it in its destructor, and hang the run instead).
class Waiter {
 public:
  Waiter(std::shared_ptr<Shared> s, int count) {
    auto done = std::make_shared<std::promise<void>>();
    done_ = done->get_future();
    std::thread([s, count, done] {
      std::unique_lock lock(s->mu);
      s->bell.Wait(lock, [&] { return s->posted >= count; });
      done->set_value();
    }).detach();
  }
  bool DoneWithin(std::chrono::milliseconds limit) { return done_.wait_for(limit) == std::future_status::ready; }
  void ExpectDone() {
    if (DoneWithin(10s)) return;
    ADD_FAILURE() << "the waiter was not woken";
    std::_Exit(1);
  }

 private:
  std::future<void> done_;
};

class DoorbellTest : public testing::TestWithParam<Kind> {
 protected:
  std::shared_ptr<Shared> s = std::make_shared<Shared>(GetParam());
};

TEST_P(DoorbellTest, ReturnsAtOnceWhenAlreadyDone) {
  s->Post();
  Waiter(s, 1).ExpectDone();
}

TEST_P(DoorbellTest, WakesASleepingWaiter) {
  Waiter waiter(s, 1);
  ASSERT_FALSE(waiter.DoneWithin(20ms));  // asleep by now, most likely
  s->Post();
  waiter.ExpectDone();
}

TEST_P(DoorbellTest, SleepsAgainWhenARingIsNotEnough) {
  Waiter waiter(s, 2);
  ASSERT_FALSE(waiter.DoneWithin(20ms));
  s->Post();  // wakes it; one is not enough
  EXPECT_FALSE(waiter.DoneWithin(50ms));
  s->Post();
  waiter.ExpectDone();
}

// A producer posting as fast as it can while the waiter waits for each post in
// turn, from the moment the waiter holds the mutex.
TEST_P(DoorbellTest, EveryPostIsSeenUnderARace) {
  constexpr int kPosts = 100000;
  auto started = std::make_shared<std::promise<void>>();
  auto done = std::make_shared<std::promise<void>>();
  auto finished = done->get_future();
  std::thread([s = s, started, done] {
    std::unique_lock lock(s->mu);
    started->set_value();
    for (int seen = 1; seen <= kPosts; ++seen) s->bell.Wait(lock, [&] { return s->posted >= seen; });
    done->set_value();
  }).detach();
  started->get_future().wait();
  for (int i = 0; i < kPosts; ++i) {
    s->Post();
    if (i % 64 == 0) std::this_thread::yield();  // now and then let the waiter fall asleep
  }
  if (finished.wait_for(30s) != std::future_status::ready) {
    ADD_FAILURE() << "a post was not seen";
    std::_Exit(1);
  }
}

INSTANTIATE_TEST_SUITE_P(Both, DoorbellTest, testing::Values(Kind::kEventfd, Kind::kConditionVariable),
                         [](const auto& info) { return info.param == Kind::kEventfd ? "Eventfd" : "ConditionVariable"; });

// The lost wake-up: the state changes and the bell rings after the waiter
// released the mutex but before it blocks.
TEST(DoorbellEventfd, ARingBeforeTheWaiterBlocksWakesIt) {
  auto s = std::make_shared<Shared>(Kind::kEventfd);
  bool once = false;
  s->bell.SetBeforeBlockForTest([&] {
    if (!std::exchange(once, true)) s->Post();
  });
  Waiter(s, 1).ExpectDone();
}

// A ring left over (the counter set while nothing changed) wakes the waiter
// once; it finds nothing done and sleeps again until a real post.
TEST(DoorbellEventfd, ALeftOverRingDoesNotEndTheWait) {
  auto s = std::make_shared<Shared>(Kind::kEventfd);
  bool once = false;
  s->bell.SetBeforeBlockForTest([&] {
    if (!std::exchange(once, true)) s->bell.Ring();
  });
  Waiter waiter(s, 1);
  EXPECT_FALSE(waiter.DoneWithin(50ms));
  s->Post();
  waiter.ExpectDone();
}

}  // namespace
}  // namespace jdwpx::backend
