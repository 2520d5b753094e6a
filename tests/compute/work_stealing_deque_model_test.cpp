// The compute deque (include/lanes/compute/detail/work_stealing_deque.hpp)
// under the interleaving checker (tests/model): an owner pushing and
// popping while a thief steals, every job is taken exactly once - the race
// for the last job, and a steal across a growth of the ring included.
#include <lanes/compute/detail/work_stealing_deque.hpp>

#include <array>
#include <memory>

#include <gtest/gtest.h>

#include "checker.hpp"  // tests/model

namespace lanes::compute::detail {
namespace {

using model_deque = work_stealing_deque<int*, model::atomics>;

// Jobs are the addresses of these; `taken[i]` counts who took job i.
struct jobs {
  std::array<int, 3> values{0, 1, 2};
  std::array<int, 3> taken{0, 0, 0};
  void record(int* job) {
    if (job == nullptr) return;
    ++taken[static_cast<std::size_t>(*job)];
  }
};

struct state {
  explicit state(std::int64_t capacity) : deque(capacity) {}
  model_deque deque;
  jobs owned;   // the owner's takes
  jobs stolen;  // the thief's
};

// Each of the first `n` jobs was taken once, by the owner or the thief.
void require_each_taken_once(const state& s, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    model::require(s.owned.taken[i] + s.stolen.taken[i] == 1, "a job was lost or taken twice");
  }
}

// Owner: push two, pop two. Thief: one steal. The last job is raced for
// by pop and steal in many of the interleavings.
TEST(WorkStealingDequeModel, PushPopAgainstAStealTakesEveryJobOnce) {
  const auto r = model::explore(
      [] {
        auto s = std::make_shared<state>(4);
        return model::execution{{[s] {
                                   s->deque.push(&s->owned.values[0]);
                                   s->deque.push(&s->owned.values[1]);
                                   s->owned.record(s->deque.pop());
                                   s->owned.record(s->deque.pop());
                                 },
                                 [s] { s->stolen.record(s->deque.steal()); }},
                                [s] { require_each_taken_once(*s, 2); }};
      },
      {.preemption_bound = 3});
  EXPECT_TRUE(r.complete) << r.executions;
  EXPECT_GT(r.executions, 100u);
  EXPECT_EQ(r.failure, "");
}

// A ring of one slot: the second push grows it while the thief steals
// through the old ring or the new one.
TEST(WorkStealingDequeModel, AStealAcrossAGrowthTakesEveryJobOnce) {
  const auto r = model::explore(
      [] {
        auto s = std::make_shared<state>(1);
        return model::execution{
            {[s] {
               s->deque.push(&s->owned.values[0]);
               s->deque.push(&s->owned.values[1]);
               s->owned.record(s->deque.pop());
             },
             [s] {
               s->stolen.record(s->deque.steal());
               s->stolen.record(s->deque.steal());
             }},
            [s] {
              // Two jobs, two takers' worth of tries: the one the owner did
              // not pop and no thief took stays in the deque.
              for (std::size_t i = 0; i < 2; ++i) {
                model::require(s->owned.taken[i] + s->stolen.taken[i] <= 1, "a job taken twice");
              }
              const int left = static_cast<int>(s->deque.size());
              model::require(
                  s->owned.taken[0] + s->stolen.taken[0] + s->owned.taken[1] + s->stolen.taken[1] + left == 2,
                  "a job was lost");
            }};
      },
      {.preemption_bound = 2});
  EXPECT_TRUE(r.complete) << r.executions;
  EXPECT_GT(r.executions, 100u);
  EXPECT_EQ(r.failure, "");
}

// The checker sees a broken deque: a pop that skips the CAS on the last job
// lets the owner and a thief both take it.
TEST(WorkStealingDequeModel, TheCheckerFindsADoubleTakeWithoutTheLastJobsCas) {
  struct racy {
    model::atomic<std::int64_t> top{0}, bottom{0};
    std::array<int*, 2> slots{};
  };
  struct racy_state {
    racy d;
    jobs owned, stolen;
  };
  const auto r = model::explore([] {
    auto s = std::make_shared<racy_state>();
    return model::execution{
        {[s] {
           s->d.slots[0] = &s->owned.values[0];
           s->d.bottom.store(1);
           const std::int64_t b = s->d.bottom.load() - 1;  // pop, without the CAS
           s->d.bottom.store(b);
           if (s->d.top.load() <= b) s->owned.record(s->d.slots[0]);
         },
         [s] {
           std::int64_t t = s->d.top.load();
           if (t < s->d.bottom.load() && s->d.top.compare_exchange_strong(t, t + 1)) {
             s->stolen.record(s->d.slots[0]);
           }
         }},
        [s] { model::require(s->owned.taken[0] + s->stolen.taken[0] <= 1, "the last job was taken twice"); }};
  });
  EXPECT_NE(r.failure.find("taken twice"), std::string::npos) << r.failure;
  EXPECT_GT(r.executions, 1u) << "found only by interleaving the two";
}

}  // namespace
}  // namespace lanes::compute::detail
