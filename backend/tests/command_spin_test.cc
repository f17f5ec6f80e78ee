// The command thread's spin (command_spin.h) on a fake clock: how long it spins,
// when it does, and that a yield which kept it off the CPU stops it for a while.
#include "backend/session/command_spin.h"

#include <gtest/gtest.h>

#include <vector>

namespace jdwpx::backend {
namespace {

using namespace std::chrono_literals;
using Clock = CommandSpin::Clock;

// A clock that moves only when a yield runs: by the next of `turns` (then by the last one).
struct FakeTurns {
  Clock::time_point t = Clock::time_point{} + 1h;
  std::vector<Clock::duration> turns;
  size_t yields = 0;
  void Yield() {
    t += turns[yields < turns.size() ? yields : turns.size() - 1];
    ++yields;
  }
};

// Armed as after a packet that came within the window of the previous one's end.
CommandSpin InConversation(Clock::time_point now) {
  CommandSpin spin;
  spin.PacketDone(now - 100us);
  spin.PacketTaken(now);
  return spin;
}

void SpinFor(CommandSpin& spin, FakeTurns& clock, size_t ready_after) {
  spin.Await([&] { return clock.yields >= ready_after; }, [&] { clock.Yield(); }, [&] { return clock.t; });
}

TEST(CommandSpin, SpinsUntilTheNextCommandComes) {
  FakeTurns clock{.turns = {5us}};
  CommandSpin spin = InConversation(clock.t);
  ASSERT_TRUE(spin.Armed());
  SpinFor(spin, clock, 3);
  EXPECT_EQ(clock.yields, 3u);
}

TEST(CommandSpin, GivesUpAfterTheSpinTime) {
  FakeTurns clock{.turns = {10us}};
  CommandSpin spin = InConversation(clock.t);
  SpinFor(spin, clock, 1000);
  EXPECT_EQ(clock.yields, 20u);  // 200 us of 10 us turns
}

TEST(CommandSpin, OnlyInAConversation) {
  const auto now = Clock::time_point{} + 1h;
  CommandSpin spin;
  spin.PacketTaken(now);  // the first packet: no previous one
  EXPECT_FALSE(spin.Armed());
  spin.PacketDone(now);
  spin.PacketTaken(now + 499us);
  EXPECT_TRUE(spin.Armed());
  spin.PacketTaken(now + 501us);  // a debugger that paused
  EXPECT_FALSE(spin.Armed());
  spin.PacketTaken(now + 10us);
  spin.OtherTaken();  // attach, detach, a task
  EXPECT_FALSE(spin.Armed());
}

TEST(CommandSpin, ThreeSpinsInARowThatLostTheCpuStopSpinningForAWhile) {
  // A busy machine: each spin's second yield comes back after another task's time slice.
  FakeTurns clock{.turns = {5us, 800us, 5us}};
  CommandSpin spin = InConversation(clock.t);
  for (int i = 0; i < CommandSpin::kPreemptionsToBackOff; ++i) {
    ASSERT_TRUE(spin.Armed()) << "spin " << i;
    clock.yields = 0;
    SpinFor(spin, clock, 1000);
    EXPECT_EQ(clock.yields, 2u);  // each ends at its preemption
    spin.PacketDone(clock.t);
    spin.PacketTaken(clock.t + 50us);
  }
  const auto lost_at = clock.t;
  EXPECT_FALSE(spin.Armed());
  spin.PacketDone(lost_at + 99ms);
  spin.PacketTaken(lost_at + 99ms + 50us);
  EXPECT_FALSE(spin.Armed());
  spin.PacketDone(lost_at + 100ms);
  spin.PacketTaken(lost_at + 100ms + 50us);
  EXPECT_TRUE(spin.Armed());
}

TEST(CommandSpin, APreemptionNowAndThenDoesNotStopSpinning) {
  // A quiet machine: a JIT or GC thread takes the CPU now and then (here, in one spin in two).
  CommandSpin spin = InConversation(Clock::time_point{} + 1h);
  Clock::time_point t = Clock::time_point{} + 1h;
  for (int i = 0; i < 10; ++i) {
    ASSERT_TRUE(spin.Armed()) << "spin " << i;
    FakeTurns clock{.t = t, .turns = {i % 2 ? 800us : 5us}};
    SpinFor(spin, clock, i % 2 ? 1000 : 2);
    t = clock.t;
    spin.PacketDone(t);
    spin.PacketTaken(t + 50us);
  }
  EXPECT_TRUE(spin.Armed());
}

// Two spins, from `t` on, that each lost the CPU at their first yield; `t` ends after them.
void LoseTheCpuTwice(CommandSpin& spin, Clock::time_point& t) {
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(spin.Armed());
    FakeTurns clock{.t = t, .turns = {800us}};
    SpinFor(spin, clock, 1000);
    t = clock.t;
    spin.PacketDone(t);
    spin.PacketTaken(t + 50us);
  }
}

TEST(CommandSpin, ALongTurnBelowThePreemptionMarkEndsTheStreak) {
  // The debugger ran on this core for 300 us (its event handling): the spin ends
  // there, and it counts as a spin that kept the CPU.
  Clock::time_point t = Clock::time_point{} + 1h;
  CommandSpin spin = InConversation(t);
  LoseTheCpuTwice(spin, t);
  FakeTurns clock{.t = t, .turns = {300us}};
  SpinFor(spin, clock, 1000);
  EXPECT_EQ(clock.yields, 1u);
  t = clock.t;
  spin.PacketDone(t);
  spin.PacketTaken(t + 50us);
  LoseTheCpuTwice(spin, t);
  EXPECT_TRUE(spin.Armed());
}

TEST(CommandSpin, ASpinThatFoundTheCommandWaitingLeavesTheStreak) {
  Clock::time_point t = Clock::time_point{} + 1h;
  CommandSpin spin = InConversation(t);
  LoseTheCpuTwice(spin, t);
  FakeTurns waiting{.t = t, .turns = {5us}};
  SpinFor(spin, waiting, 0);  // the next command came while this one ran
  EXPECT_EQ(waiting.yields, 0u);
  spin.PacketDone(t);
  spin.PacketTaken(t + 50us);
  FakeTurns lost{.t = t, .turns = {800us}};
  SpinFor(spin, lost, 1000);  // the third in a row
  spin.PacketDone(lost.t);
  spin.PacketTaken(lost.t + 50us);
  EXPECT_FALSE(spin.Armed());
}

TEST(CommandSpin, AYieldBackJustBelowThePreemptionMarkKeepsTheCpu) {
  Clock::time_point t = Clock::time_point{} + 1h;
  CommandSpin spin = InConversation(t);
  LoseTheCpuTwice(spin, t);
  FakeTurns clock{.t = t, .turns = {CommandSpin::kPreempted - 1us}};
  SpinFor(spin, clock, 1000);
  spin.PacketDone(clock.t);
  spin.PacketTaken(clock.t + 50us);
  EXPECT_TRUE(spin.Armed());
}

}  // namespace
}  // namespace jdwpx::backend
