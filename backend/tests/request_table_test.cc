// The request table's views (request_table.h): which requests a callback
// looks at, in which order, and what removing one leaves. Pure storage: the
// method IDs are stand-in pointers, no JVM is involved.
#include "backend/events/request_table.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

namespace jdwpx::backend {
namespace {

using jdwp::EventKind;

jmethodID FakeMethod(uintptr_t n) { return reinterpret_cast<jmethodID>(n * 16); }

class RequestTableTest : public ::testing::Test {
 protected:
  Request& Add(EventKind kind, jmethodID method = nullptr, jlocation location = 0, bool step = false) {
    auto r = std::make_unique<Request>();
    r->id = next_id_++;
    r->kind = kind;
    r->bp_method = method;
    r->bp_location = location;
    if (step) r->step = std::make_unique<Step>();
    return table_.Add(std::move(r));
  }
  static std::vector<int32_t> Ids(const RequestTable::View& view) {
    std::vector<int32_t> ids;
    for (const Request* r : view) ids.push_back(r->id);
    return ids;
  }
  template <class Range>
  static std::vector<int32_t> IdsOf(Range&& range) {
    std::vector<int32_t> ids;
    for (const Request* r : range) ids.push_back(r->id);
    return ids;
  }

  RequestTable table_;
  int32_t next_id_ = 1;
};

TEST_F(RequestTableTest, ABreakpointHitSeesOnlyTheRequestsAtItsLocation) {
  Add(EventKind::kBreakpoint, FakeMethod(1), 4);   // 1
  Add(EventKind::kBreakpoint, FakeMethod(1), 8);   // 2
  Add(EventKind::kClassPrepare);                   // 3
  Add(EventKind::kBreakpoint, FakeMethod(2), 4);   // 4
  Add(EventKind::kBreakpoint, FakeMethod(1), 4);   // 5
  for (int i = 0; i < 500; ++i) Add(EventKind::kBreakpoint, FakeMethod(100 + i), 0);

  EXPECT_EQ(Ids(table_.BreakpointsAt(FakeMethod(1), 4)), (std::vector<int32_t>{1, 5}));
  EXPECT_EQ(Ids(table_.BreakpointsAt(FakeMethod(1), 8)), (std::vector<int32_t>{2}));
  EXPECT_EQ(Ids(table_.BreakpointsAt(FakeMethod(2), 4)), (std::vector<int32_t>{4}));
  EXPECT_TRUE(table_.BreakpointsAt(FakeMethod(2), 8).empty());
  EXPECT_FALSE(table_.HasBreakpointAt(FakeMethod(3), 4));
  EXPECT_TRUE(table_.HasBreakpointAt(FakeMethod(1), 8));
  EXPECT_EQ(table_.OfKind(EventKind::kBreakpoint).size(), 504u);
  EXPECT_EQ(table_.All().size(), 505u);
}

TEST_F(RequestTableTest, CompositesListTheNewestRequestFirst) {
  Add(EventKind::kException);  // 1
  Add(EventKind::kThreadStart);  // 2
  Add(EventKind::kException);  // 3
  Add(EventKind::kException);  // 4
  EXPECT_EQ(Ids(table_.OfKind(EventKind::kException)), (std::vector<int32_t>{1, 3, 4}));
  EXPECT_EQ(IdsOf(NewestFirst(table_.OfKind(EventKind::kException))), (std::vector<int32_t>{4, 3, 1}));
  EXPECT_EQ(Ids(table_.OfKind(EventKind::kThreadStart)), (std::vector<int32_t>{2}));
  EXPECT_TRUE(table_.OfKind(EventKind::kThreadDeath).empty());
}

TEST_F(RequestTableTest, MethodExitKindsMergeNewestFirst) {
  Add(EventKind::kMethodExit);                 // 1
  Add(EventKind::kMethodExitWithReturnValue);  // 2
  Add(EventKind::kMethodEntry);                // 3
  Add(EventKind::kMethodExit);                 // 4
  Add(EventKind::kMethodExitWithReturnValue);  // 5
  Add(EventKind::kMethodExitWithReturnValue);  // 6
  auto merged = MergedNewestFirst(table_.OfKind(EventKind::kMethodExit),
                                  table_.OfKind(EventKind::kMethodExitWithReturnValue));
  EXPECT_EQ(IdsOf(merged), (std::vector<int32_t>{6, 5, 4, 2, 1}));
  EXPECT_TRUE(MergedNewestFirst({}, {}).empty());
}

TEST_F(RequestTableTest, RemovingARequestTakesItOutOfEveryView) {
  Request& first = Add(EventKind::kBreakpoint, FakeMethod(1), 4);  // 1
  Add(EventKind::kBreakpoint, FakeMethod(1), 4);                   // 2
  Request& step = Add(EventKind::kSingleStep, nullptr, 0, true);   // 3
  Add(EventKind::kSingleStep);                                     // 4: no Step modifier, no step

  EXPECT_EQ(Ids(table_.Steps()), (std::vector<int32_t>{3}));
  EXPECT_TRUE(table_.MayHaveSteps());
  auto taken = table_.Remove(first);
  ASSERT_NE(taken, nullptr);
  EXPECT_EQ(taken->id, 1);
  EXPECT_EQ(Ids(table_.BreakpointsAt(FakeMethod(1), 4)), (std::vector<int32_t>{2}));
  EXPECT_EQ(Ids(table_.OfKind(EventKind::kBreakpoint)), (std::vector<int32_t>{2}));
  EXPECT_EQ(table_.Remove(*taken), nullptr);  // not in the table any more

  // A step request that let its step go (DeleteRequest) still leaves the steps' view.
  step.step.reset();
  ASSERT_NE(table_.Remove(step), nullptr);
  EXPECT_TRUE(table_.Steps().empty());
  EXPECT_FALSE(table_.MayHaveSteps());
  EXPECT_EQ(Ids(table_.OfKind(EventKind::kSingleStep)), (std::vector<int32_t>{4}));

  ASSERT_NE(table_.Remove(*table_.BreakpointsAt(FakeMethod(1), 4).front()), nullptr);
  EXPECT_FALSE(table_.HasBreakpointAt(FakeMethod(1), 4));
  EXPECT_EQ(table_.All().size(), 1u);
}

TEST_F(RequestTableTest, FindNamesKindAndId) {
  Add(EventKind::kBreakpoint, FakeMethod(1), 0);  // 1
  Add(EventKind::kException);                     // 2
  ASSERT_NE(table_.Find(EventKind::kException, 2), nullptr);
  EXPECT_EQ(table_.Find(EventKind::kException, 2)->id, 2);
  // As Clear is matched: an ID of another kind is not found.
  EXPECT_EQ(table_.Find(EventKind::kException, 1), nullptr);
  EXPECT_EQ(table_.Find(EventKind::kBreakpoint, 3), nullptr);
}

TEST_F(RequestTableTest, AnyLiveSkipsExpiredRequests) {
  Request& wait = Add(EventKind::kMonitorWait);
  EXPECT_TRUE(table_.AnyLive(EventKind::kMonitorWait));
  wait.expired = true;
  EXPECT_FALSE(table_.AnyLive(EventKind::kMonitorWait));
  EXPECT_FALSE(table_.AnyLive(EventKind::kMonitorWaited));
}

TEST_F(RequestTableTest, RemoveAllEmptiesEveryView) {
  Add(EventKind::kBreakpoint, FakeMethod(1), 0);
  Add(EventKind::kSingleStep, nullptr, 0, true);
  Add(EventKind::kClassPrepare);
  auto taken = table_.RemoveAll();
  EXPECT_EQ(taken.size(), 3u);
  EXPECT_EQ(taken[0]->id, 1);
  EXPECT_TRUE(table_.Empty());
  EXPECT_FALSE(table_.HasBreakpointAt(FakeMethod(1), 0));
  EXPECT_TRUE(table_.Steps().empty());
  EXPECT_FALSE(table_.MayHaveSteps());
  EXPECT_TRUE(table_.OfKind(EventKind::kClassPrepare).empty());
}

}  // namespace
}  // namespace jdwpx::backend
