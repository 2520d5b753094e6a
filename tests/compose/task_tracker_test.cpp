// task_tracker: close, wait, wait with a deadline, abort what is left.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

#include <lanes/compose/task_tracker.hpp>
#include <lanes/io/errors.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/timeout.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

// An empty task is refused at the call, as lanes::spawn refuses it, not
// spawned, counted, and failed inside its wrapper.
TEST(TaskTracker, AnEmptyTaskIsRefusedAtTheCall) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    task_tracker tracker;
    EXPECT_THROW((void)tracker.spawn(task<int>()), runtime_misuse);
    EXPECT_EQ(tracker.size(), 0U);
    co_return;
  }());
}

TEST(TaskTracker, WaitCompletesOnceClosedAndEmpty) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  rt.block_on([]() -> task<void> {
    task_tracker tracker;
    std::atomic<int> done{0};
    for (int i = 0; i < 20; ++i) {
      (void)tracker.spawn([](std::atomic<int>& done, int i) -> task<void> {
        co_await sleep(std::chrono::microseconds(30 * i));
        done.fetch_add(1);
      }(done, i));
    }
    auto early = co_await timeout(100us, tracker.wait());  // not closed: cannot complete
    EXPECT_FALSE(early.has_value());
    tracker.close();
    co_await tracker.wait();
    EXPECT_EQ(done.load(), 20);
    EXPECT_EQ(tracker.size(), 0U);
  }());
}

TEST(TaskTracker, DrainWithADeadlineThenAbortWhatIsLeft) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  rt.block_on([]() -> task<void> {
    task_tracker tracker;
    std::atomic<int> finished{0};
    std::atomic<int> exited{0};
    std::atomic<int> started{0};  // a task aborted before its first poll has no on_exit to count
    for (int i = 0; i < 10; ++i) {
      (void)tracker.spawn([](std::atomic<int>& finished, std::atomic<int>& exited, std::atomic<int>& started,
                             bool stuck) -> task<void> {
        struct on_exit {
          std::atomic<int>& n;
          ~on_exit() { n.fetch_add(1); }
        } e{exited};
        started.fetch_add(1);
        co_await sleep(stuck ? std::chrono::microseconds(3'600'000'000LL) : std::chrono::microseconds(100));
        finished.fetch_add(1);
      }(finished, exited, started, i % 2 == 0));
    }
    tracker.close();
    // However slow the machine, the five quick ones end (no timing assumed);
    // the five stuck ones never do, so the drain with a deadline must fail.
    while (tracker.size() > 5 || started.load() < 10) co_await sleep(50us);
    auto drained = co_await timeout(2ms, tracker.wait());
    EXPECT_FALSE(drained.has_value());
    EXPECT_EQ(tracker.size(), 5U);
    tracker.abort_all();
    co_await tracker.wait();
    EXPECT_EQ(finished.load(), 5);
    EXPECT_EQ(exited.load(), 10);
  }());
}

TEST(TaskTracker, ATaskCancelledBeforeItRanIsUncounted) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    task_tracker tracker;
    auto h = tracker.spawn([]() -> task<int> { co_return 1; }());
    h.abort();  // never polled
    tracker.close();
    co_await tracker.wait();
    EXPECT_EQ(tracker.size(), 0U);
  }());
}

}  // namespace
}  // namespace lanes
