// task_group: children cannot outlive the group; failures cancel the rest
// (or not); children may spawn siblings; a destroyed group cancels in place.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <stdexcept>
#include <vector>

#include <lanes/compose/task_group.hpp>
#include <lanes/io/errors.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/sync/notify.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

struct count_exit {
  std::atomic<int>& n;
  ~count_exit() { n.fetch_add(1); }
};

TEST(TaskGroup, LeavingTheGroupAwaitsEveryChildAndChildrenMayBorrow) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  const int sum = rt.block_on([]() -> task<int> {
    std::vector<int> slots(20, 0);  // borrowed by the children
    co_await with_task_group([&](task_group& g) -> task<void> {
      for (int i = 0; i < 20; ++i) {
        g.spawn([](std::vector<int>& slots, int i, task_group& g) -> task<void> {
          co_await sleep(std::chrono::microseconds(20 * i));
          slots[static_cast<std::size_t>(i)] = i;
          if (i == 19) {
            g.spawn([](std::vector<int>& slots) -> task<void> {  // a sibling spawned by a child
              co_await sleep(200us);
              slots[0] = 1000;
            }(slots));
          }
        }(slots, i, g));
      }
      co_return;
    });
    int s = 0;
    for (int v : slots) s += v;
    co_return s;
  }());
  EXPECT_EQ(sum, 1000 + 19 * 20 / 2);
}

TEST(TaskGroup, AFailureCancelsTheRestAndAllFailuresAreKept) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  std::atomic<int> exited{0};
  std::atomic<int> started{0};  // the failure waits for all five: one never polled has no count_exit
  EXPECT_THROW(rt.block_on([](std::atomic<int>& exited, std::atomic<int>& started) -> task<void> {
    co_await with_task_group([&](task_group& g) -> task<void> {
      for (int i = 0; i < 5; ++i) {
        g.spawn([](std::atomic<int>& exited, std::atomic<int>& started) -> task<void> {
          count_exit c{exited};
          started.fetch_add(1);
          co_await sleep(1h);
        }(exited, started));
      }
      g.spawn([](std::atomic<int>& started) -> task<void> {
        do {
          co_await sleep(200us);
        } while (started.load() < 5);
        throw std::domain_error("child failed");
      }(started));
      co_return;
    });
  }(exited, started)),
               std::domain_error);
  EXPECT_EQ(exited.load(), 5);
}

// wait_rest: both failures are kept, in the order the children completed,
// and join() rethrows the first of them. The second child fails only after
// the first has begun to unwind. On one thread that makes the order
// certain: the first child's poll ends with its completion before the
// second child runs again. On two workers it does not: the flag is set
// while the first child unwinds, before its completion reaches the group,
// and ThreadSanitizer's slowness can let the second complete first. There
// the test checks what is certain: both kept, and what
// join() threw is the first one kept.
TEST(TaskGroup, WaitRestKeepsEveryFailureInOrder) {
  for (const bool one_thread : {true, false}) {
    auto rt = one_thread ? runtime::current_thread().build() : runtime::multi_thread().worker_threads(2).build();
    rt.block_on([](bool one_thread) -> task<void> {
      task_group g(on_failure::wait_rest);
      std::atomic<int> finished{0};
      std::atomic<bool> first_failed{false};
      g.spawn([](std::atomic<bool>& failed) -> task<void> {
        struct mark {
          std::atomic<bool>& failed;
          ~mark() { failed.store(true); }  // runs as the exception leaves
        } m{failed};
        co_await sleep(100us);
        throw std::domain_error("first");
      }(first_failed));
      g.spawn([](std::atomic<int>& f, std::atomic<bool>& first) -> task<void> {
        while (!first.load()) co_await sleep(50us);
        f.fetch_add(1);
        throw std::length_error("second");
      }(finished, first_failed));
      std::exception_ptr thrown;
      try {
        co_await g.join();
      } catch (...) {
        thrown = std::current_exception();
      }
      EXPECT_EQ(finished.load(), 1);
      const auto& errors = g.errors();
      EXPECT_EQ(errors.size(), 2U);
      if (errors.size() != 2) co_return;
      EXPECT_TRUE(thrown == errors.front()) << "join() rethrows the first failure kept";
      const auto is = [](const std::exception_ptr& e, auto type_tag) {
        try {
          std::rethrow_exception(e);
        } catch (const decltype(type_tag)&) {
          return true;
        } catch (...) {
        }
        return false;
      };
      if (one_thread) {
        EXPECT_TRUE(is(errors[0], std::domain_error("")));
        EXPECT_TRUE(is(errors[1], std::length_error("")));
      } else {
        EXPECT_TRUE(is(errors[0], std::domain_error("")) != is(errors[1], std::domain_error("")))
            << "one of each, in completion order";
        EXPECT_TRUE(is(errors[0], std::length_error("")) || is(errors[1], std::length_error("")));
      }
    }(one_thread));
  }
}

TEST(TaskGroup, AGroupDestroyedUnjoinedCancelsItsChildrenBeforeItIsGone) {
  for (int flavour = 0; flavour < 2; ++flavour) {
    auto rt = flavour == 0 ? runtime::multi_thread().worker_threads(2).build() : runtime::current_thread().build();
    std::atomic<int> exited{0};
    std::atomic<int> seen_at_owner_exit{-1};
    // Children that have entered their body (so their count_exit exists):
    // the owner is aborted only once all eight run. A child cancelled
    // before its first poll has no local to count (CI once aborted the
    // owner before any child had started and saw 0).
    std::atomic<int> started{0};
    auto owner =
        rt.spawn([](std::atomic<int>& exited, std::atomic<int>& seen, std::atomic<int>& started) -> task<void> {
          struct report {
            std::atomic<int>& exited;
            std::atomic<int>& seen;
            ~report() { seen.store(exited.load()); }  // runs after the group's destructor
          } r{exited, seen};
          task_group g;
          for (int i = 0; i < 8; ++i) {
            g.spawn([](std::atomic<int>& exited, std::atomic<int>& started) -> task<void> {
              count_exit c{exited};
              started.fetch_add(1);
              for (;;) co_await sleep(50us);
            }(exited, started));
          }
          co_await sleep(1h);  // the owner is aborted here, the group never joined
        }(exited, seen_at_owner_exit, started));
    while (started.load() < 8) rt.block_on([]() -> task<void> { co_await sleep(100us); }());
    owner.abort();
    rt.block_on([](join_handle<void>& h) -> task<void> {
      try {
        co_await h;
      } catch (const task_cancelled&) {
      }
    }(owner));
    EXPECT_EQ(seen_at_owner_exit.load(), 8) << "flavour " << flavour;
  }
}

TEST(TaskGroup, ASpawnAfterTheGroupWasCancelledNeverRuns) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  std::atomic<int> ran{0};
  rt.block_on([](std::atomic<int>& ran) -> task<void> {
    task_group g;
    g.cancel();
    g.spawn([](std::atomic<int>& ran) -> task<void> {
      ran.fetch_add(1);
      co_return;
    }(ran));
    co_await g.join();
    EXPECT_EQ(g.size(), 0U);
  }(ran));
  EXPECT_EQ(ran.load(), 0);
}

// An empty task is refused at the call, as lanes::spawn refuses it, not
// recorded as the group's failure when join() comes.
TEST(TaskGroup, AnEmptyTaskIsRefusedAtTheCall) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    task_group g;
    EXPECT_THROW(g.spawn(task<void>()), runtime_misuse);
    EXPECT_EQ(g.size(), 0U);
    co_await g.join();  // nothing failed
    EXPECT_TRUE(g.errors().empty());
  }());
}

TEST(TaskGroup, ARuntimeShutdownWithAGroupInsideIsClean) {
  std::atomic<int> exited{0};
  std::atomic<int> started{0};
  {
    auto rt = runtime::multi_thread().worker_threads(2).build();
    rt.spawn([](std::atomic<int>& exited, std::atomic<int>& started) -> task<void> {
      task_group g;
      for (int i = 0; i < 4; ++i) {
        g.spawn([](std::atomic<int>& exited, std::atomic<int>& started) -> task<void> {
          count_exit c{exited};
          started.fetch_add(1);
          co_await sleep(1h);
        }(exited, started));
      }
      co_await g.join();
    }(exited, started));
    while (started.load() < 4) rt.block_on([]() -> task<void> { co_await sleep(100us); }());
  }
  EXPECT_EQ(exited.load(), 4);
}

}  // namespace
}  // namespace lanes
