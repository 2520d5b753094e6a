// detail::event_count (include/lanes/detail/event_count.hpp) under every
// interleaving: a waiter never sleeps past work published before a notify,
// whether it sleeps on the futex or elsewhere, one waiter or two; and the
// checker itself finds the lost wake-up of a waiter that skips its look.
#include <lanes/detail/event_count.hpp>

#include <gtest/gtest.h>

#include "checker.hpp"  // tests/model

namespace lanes {
namespace {

using model_event_count = detail::basic_event_count<model::atomics>;

// Takes one of `jobs` if there is one.
bool take(model::atomic<int>& jobs) {
  int n = jobs.load();
  while (n > 0) {
    if (jobs.compare_exchange_strong(n, n - 1)) return true;
  }
  return false;
}

// The waiter's side of the protocol, as the lanes pools write it.
void wait_for_a_job(model_event_count& ec, model::atomic<int>& jobs) {
  for (;;) {
    if (take(jobs)) return;
    const auto k = ec.prepare_wait();
    if (take(jobs)) {
      ec.cancel_wait(k);
      return;
    }
    ec.wait(k);
  }
}

TEST(EventCountModel, OneWaiterNeverSleepsPastAPublishedJob) {
  struct state {
    model_event_count ec;
    model::atomic<int> jobs{0};
  };
  const auto r = model::explore([] {
    auto s = std::make_shared<state>();
    return model::execution{{[s] { wait_for_a_job(s->ec, s->jobs); },
                             [s] {
                               s->jobs.fetch_add(1);
                               s->ec.notify_one();
                             }},
                            [s] { model::require(s->jobs.load() == 0, "the job was taken"); }};
  });
  EXPECT_TRUE(r.complete) << r.executions;
  EXPECT_EQ(r.failure, "");
  EXPECT_GT(r.executions, 10u);
}

// Two sleepers, two jobs published one at a time with notify_one: each
// notify wakes one sleeper (which one is every choice), and both jobs are
// taken. Three threads: at most two preemptions (every interleaving would
// be tens of billions).
TEST(EventCountModel, TwoWaitersTwoJobsNotifyOne) {
  struct state {
    model_event_count ec;
    model::atomic<int> jobs{0};
  };
  const auto r = model::explore(
      [] {
        auto s = std::make_shared<state>();
        return model::execution{{[s] { wait_for_a_job(s->ec, s->jobs); }, [s] { wait_for_a_job(s->ec, s->jobs); },
                                 [s] {
                                   for (int i = 0; i < 2; ++i) {
                                     s->jobs.fetch_add(1);
                                     s->ec.notify_one();
                                   }
                                 }},
                                [s] { model::require(s->jobs.load() == 0, "both jobs were taken"); }};
      },
      {.preemption_bound = 2});
  EXPECT_TRUE(r.complete) << r.executions;
  EXPECT_EQ(r.failure, "");
}

// A waiter that blocks elsewhere (an io worker in epoll_wait, here a model
// eventfd): the notify says so, and the notifier wakes it there.
TEST(EventCountModel, AWaiterBlockedElsewhereIsWokenThere) {
  struct state {
    model_event_count ec;
    model::atomic<int> jobs{0};
    model::atomic<int> eventfd{0};
  };
  const auto r = model::explore([] {
    auto s = std::make_shared<state>();
    return model::execution{{[s] {
                               for (;;) {
                                 if (take(s->jobs)) return;
                                 const auto k = s->ec.prepare_wait(model_event_count::wait_site::elsewhere);
                                 if (take(s->jobs)) {
                                   s->ec.cancel_wait(k);
                                   return;
                                 }
                                 if (!s->ec.ready(k)) {
                                   s->eventfd.wait(0);  // epoll_wait until the eventfd is written
                                   s->eventfd.store(0);
                                 }
                                 s->ec.finish_wait(k);
                               }
                             },
                             [s] {
                               s->jobs.fetch_add(1);
                               if (s->ec.notify_one().elsewhere) {
                                 s->eventfd.store(1);
                                 s->eventfd.notify_all();
                               }
                             }},
                            [s] { model::require(s->jobs.load() == 0, "the job was taken"); }};
  });
  EXPECT_TRUE(r.complete) << r.executions;
  EXPECT_EQ(r.failure, "");
}

// The checker finds a lost wake-up: a waiter that looks only before
// prepare_wait sleeps for good when the notify comes between the two.
TEST(EventCountModel, TheCheckerFindsTheLostWakeUpOfAWaiterThatSkipsItsLook) {
  struct state {
    model_event_count ec;
    model::atomic<int> jobs{0};
  };
  const auto r = model::explore([] {
    auto s = std::make_shared<state>();
    return model::execution{{[s] {
                               for (;;) {
                                 if (take(s->jobs)) return;
                                 s->ec.wait(s->ec.prepare_wait());  // no look after announcing
                               }
                             },
                             [s] {
                               s->jobs.fetch_add(1);
                               s->ec.notify_one();
                             }},
                            {}};
  });
  EXPECT_NE(r.failure.find("blocked for good"), std::string::npos) << r.failure;
}

}  // namespace
}  // namespace lanes
