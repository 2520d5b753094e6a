// Work handed to another lane never outlives what it reads: a task whose
// offloaded work borrows its locals is cancelled while the work runs - by
// a timeout around the task or around the awaiter in place, by select in
// each branch position, by with_cancellation, by abort(), by runtime
// shutdown - on the compute lane, the blocking lane (offload_blocking and
// spawn_blocking) and through a gate. Each time the frame (or the race's
// next step) must wait until the work has ended; under AddressSanitizer a
// read of a freed frame fails the run. Also: the stop token, the owning
// form, and the shutdown timeout.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <numeric>
#include <stop_token>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <lanes/blocking/spawn_blocking.hpp>
#include <lanes/bridge/gate.hpp>
#include <lanes/bridge/offload.hpp>
#include <lanes/compose/select.hpp>
#include <lanes/compose/task_group.hpp>
#include <lanes/compose/with_cancellation.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/timeout.hpp>
#include <lanes/sync/notify.hpp>

#include <lanes/detail/sanitizers.hpp>
#if LANES_ASAN
#include <sanitizer/lsan_interface.h>
#endif

#include "pool_plug.hpp"

namespace lanes {
namespace {

using namespace std::chrono_literals;

constexpr long elements = 1 << 14;
constexpr auto work_time = 30ms;

// What the work and the frame that lent it its data report.
struct probe {
  std::atomic<bool> started{false};
  std::atomic<bool> ended{false};
  std::atomic<long> sum{0};
  std::atomic<bool> frame_gone_while_running{false};
  std::atomic<bool> race_returned_while_running{false};
  notify on_start;  // notified by the work as it starts
};

// Reads `data` (the awaiting task's) for work_time.
long read_slowly(const std::vector<long>& data, probe& p) {
  p.started = true;
  p.on_start.notify_one();
  std::this_thread::sleep_for(work_time);
  const long s = std::accumulate(data.begin(), data.end(), 0L);
  p.sum = s;
  p.ended = true;
  return s;
}

// Marks the probe if the frame holding it goes while the work still runs.
struct frame_guard {
  probe& p;
  ~frame_guard() {
    if (p.started && !p.ended) p.frame_gone_while_running = true;
  }
};

enum class lane { compute, blocking, spawned_blocking, gate_run, gate_try };

struct lanes_under_test {
  compute::pool pool = compute::pool::builder().threads(2).build();
  gate cpu{pool, 4};
};

// The hand-off of `f` on lane L, as an awaitable.
template <lane L, class F>
auto hand_off(lanes_under_test& l, F f) {
  if constexpr (L == lane::compute) {
    return offload(l.pool, std::move(f));
  } else if constexpr (L == lane::blocking) {
    return offload_blocking(std::move(f));
  } else if constexpr (L == lane::spawned_blocking) {
    return spawn_blocking(std::move(f));
  } else if constexpr (L == lane::gate_run) {
    return l.cpu.run(std::move(f));
  } else {
    return l.cpu.try_run_for(1h, std::move(f));
  }
}

// A task that lends its locals to work on lane L.
template <lane L>
task<void> borrower(lanes_under_test& l, probe& p) {
  std::vector<long> data(elements, 1);
  frame_guard guard{p};
  (void)co_await hand_off<L>(l, [&data, &p] { return read_slowly(data, p); });
}

template <lane L>
void expect_settled(const probe& p, const char* how) {
  EXPECT_TRUE(p.started.load()) << how << ", lane " << static_cast<int>(L) << ": the work never started";
  EXPECT_TRUE(p.ended.load()) << how << ", lane " << static_cast<int>(L) << ": cancelled before the work ended";
  EXPECT_FALSE(p.frame_gone_while_running.load()) << how << ", lane " << static_cast<int>(L);
  EXPECT_FALSE(p.race_returned_while_running.load()) << how << ", lane " << static_cast<int>(L);
  EXPECT_EQ(p.sum.load(), elements) << how << ", lane " << static_cast<int>(L);
}

// For cancellations by a deadline: runs `attempt(p)` with a fresh probe
// until the work had started when the deadline passed (a slow machine, a
// sanitizer build, may pass a short deadline while the work is still
// queued: then it must have been dropped unrun), at most 10 times.
template <lane L, class Attempt>
void until_cancelled_while_running(const char* how, Attempt attempt) {
  for (int i = 0; i < 10; ++i) {
    probe p;
    attempt(p);
    if (p.started.load()) {
      expect_settled<L>(p, how);
      return;
    }
    EXPECT_FALSE(p.ended.load()) << how << ", lane " << static_cast<int>(L) << ": work dropped unrun ran";
  }
  ADD_FAILURE() << how << ", lane " << static_cast<int>(L) << ": the work never started before the deadline";
}
constexpr auto deadline = 10ms;

// Waits (on the io lane) until the work has started.
task<void> until_started(const probe& p) {
  while (!p.started.load()) co_await sleep(100us);
}

// Cancels `token` once the work has started.
task<void> cancel_once_started(cancellation_token token, const probe& p) {
  co_await until_started(p);
  token.cancel();
}

template <class Body>
void for_each_lane(Body body) {
  body.template operator()<lane::compute>();
  body.template operator()<lane::blocking>();
  body.template operator()<lane::spawned_blocking>();
  body.template operator()<lane::gate_run>();
  body.template operator()<lane::gate_try>();
}

runtime make_runtime() { return runtime::multi_thread().worker_threads(1).blocking_threads(4).build(); }

TEST(OffloadCancellation, ATimeoutAroundTheTaskWaitsForTheWork) {
  lanes_under_test l;
  auto rt = make_runtime();
  for_each_lane([&]<lane L>() {
    until_cancelled_while_running<L>("timeout(task)", [&](probe& p) {
      const bool timed_out = rt.block_on([](lanes_under_test& l, probe& p) -> task<bool> {
        auto r = co_await timeout(deadline, borrower<L>(l, p));
        co_return !r.has_value();
      }(l, p));
      EXPECT_TRUE(timed_out);
    });
  });
}

TEST(OffloadCancellation, AbortWaitsForTheWork) {
  lanes_under_test l;
  auto rt = make_runtime();
  for_each_lane([&]<lane L>() {
    probe p;
    rt.block_on([](lanes_under_test& l, probe& p) -> task<void> {
      auto h = spawn(borrower<L>(l, p));
      co_await until_started(p);
      h.abort();
      EXPECT_THROW(co_await h, task_cancelled);
      EXPECT_TRUE(p.ended.load()) << "the abort completed while the work ran";
    }(l, p));
    expect_settled<L>(p, "abort");
  });
}

TEST(OffloadCancellation, WithCancellationOfTheTaskWaitsForTheWork) {
  lanes_under_test l;
  auto rt = make_runtime();
  for_each_lane([&]<lane L>() {
    probe p;
    rt.block_on([](lanes_under_test& l, probe& p) -> task<void> {
      cancellation_token token;
      auto canceller = spawn(cancel_once_started(token, p));
      auto r = co_await with_cancellation(token, borrower<L>(l, p));
      EXPECT_FALSE(r.has_value());
      co_await canceller;
    }(l, p));
    expect_settled<L>(p, "with_cancellation(task)");
  });
}

// The same hand-offs raced in place (no child task): the race returns
// only once the losing work has ended, so the locals it reads are intact.
// The winner fires once the work has started (the work notifies it, or a
// task cancels the token), except for the timeouts.
template <lane L>
void raced_in_place(runtime& rt, lanes_under_test& l, int shape) {
  until_cancelled_while_running<L>("in place", [&](probe& p) {
    rt.block_on([](lanes_under_test& l, probe& p, int shape) -> task<void> {
      std::vector<long> data(elements, 1);
      auto work = [&data, &p] { return read_slowly(data, p); };
      notify never;
      cancellation_token token;
      bool work_lost = true;
      switch (shape) {
        case 0: {
          auto r = co_await timeout(deadline, hand_off<L>(l, work));
          work_lost = !r.has_value();
          break;
        }
        case 1: {
          auto r = co_await select(hand_off<L>(l, work), p.on_start.notified());
          work_lost = r.index() == 1;
          break;
        }
        case 2: {
          auto r = co_await select(p.on_start.notified(), hand_off<L>(l, work));
          work_lost = r.index() == 0;
          break;
        }
        case 3: {
          auto r = co_await select(never.notified(), p.on_start.notified(), hand_off<L>(l, work));
          work_lost = r.index() == 1;
          break;
        }
        case 4: {
          auto canceller = spawn(cancel_once_started(token, p));
          auto r = co_await with_cancellation(token, hand_off<L>(l, work));
          work_lost = !r.has_value();
          co_await canceller;
          break;
        }
        default: {  // nested: a timeout in a select
          auto r = co_await select(never.notified(), timeout(deadline, hand_off<L>(l, work)));
          work_lost = r.index() == 1 && !std::get<1>(r).has_value();
          break;
        }
      }
      EXPECT_TRUE(work_lost) << "shape " << shape;
      if (p.started.load() && !p.ended.load()) p.race_returned_while_running = true;
    }(l, p, shape));
  });
}

TEST(OffloadCancellation, ARaceInPlaceSettlesItsLoserInEveryPosition) {
  lanes_under_test l;
  auto rt = make_runtime();
  for (int shape = 0; shape < 6; ++shape) {
    raced_in_place<lane::compute>(rt, l, shape);
    raced_in_place<lane::blocking>(rt, l, shape);
    raced_in_place<lane::spawned_blocking>(rt, l, shape);
  }
}

// A spawn_blocking job starts when its handle is made, so it may run
// before its race branch arms - or without it ever arming, when a branch
// listed before it is ready at once. Given to the race as a temporary, it
// is still settled before the race returns.
blocking_handle<long> running_job(const std::vector<long>& data, probe& p) {
  auto h = spawn_blocking([&data, &p] { return read_slowly(data, p); });
  while (!p.started.load()) std::this_thread::sleep_for(50us);  // holds the io worker a moment: a test
  return h;
}

TEST(OffloadCancellation, AJobRunningBeforeItsBranchArmsIsSettledToo) {
  auto rt = make_runtime();
  for (int shape = 0; shape < 2; ++shape) {
    probe p;
    rt.block_on([](probe& p, int shape) -> task<void> {
      std::vector<long> data(elements, 1);
      notify never;
      p.on_start.notify_one();  // stored: the branch before the job's is ready at once
      if (shape == 0) {
        auto r = co_await select(p.on_start.notified(), running_job(data, p));
        EXPECT_EQ(r.index(), 0U);
      } else {  // the same race nested in a select that has to wait
        auto r = co_await select(never.notified(), select(p.on_start.notified(), running_job(data, p)));
        EXPECT_EQ(r.index(), 1U);
      }
      if (p.started.load() && !p.ended.load()) p.race_returned_while_running = true;
    }(p, shape));
    expect_settled<lane::spawned_blocking>(p, shape == 0 ? "ready before arming" : "nested, ready before arming");
  }
}

TEST(OffloadCancellation, ShutdownWaitsForTheWork) {
  lanes_under_test l;
  for_each_lane([&]<lane L>() {
    probe p;
    {
      auto rt = make_runtime();
      auto h = rt.spawn(borrower<L>(l, p));
      while (!p.started.load()) std::this_thread::sleep_for(100us);
    }  // shutdown: the task is cancelled while its work runs
    expect_settled<L>(p, "shutdown");
  });
}

TEST(OffloadCancellation, ATaskGroupCancelledWithAChildsWorkRunningWaitsForIt) {
  // The owner is aborted; its group cancels the child, whose offload reads
  // the owner's locals: the group's destructor waits for that work.
  lanes_under_test l;
  auto rt = make_runtime();
  probe p;
  rt.block_on([](lanes_under_test& l, probe& p) -> task<void> {
    auto owner = spawn([](lanes_under_test& l, probe& p) -> task<void> {
      std::vector<long> data(elements, 1);
      frame_guard guard{p};
      co_await with_task_group([&](task_group& g) -> task<void> {
        g.spawn([](lanes_under_test& l, std::vector<long>& data, probe& p) -> task<void> {
          (void)co_await offload(l.pool, [&data, &p] { return read_slowly(data, p); });
        }(l, data, p));
        co_await sleep(1h);
      });
    }(l, p));
    co_await until_started(p);
    owner.abort();
    EXPECT_THROW(co_await owner, task_cancelled);
  }(l, p));
  expect_settled<lane::compute>(p, "task_group");
}

TEST(OffloadCancellation, QueuedWorkIsDroppedAtOnce) {
  // The pool's one thread is busy: the offload waits in its queue, and a
  // timeout drops it unrun without waiting for the busy thread.
  auto pool = compute::pool::builder().threads(1).build();
  testing_support::pool_plug plug;
  plug.hold(pool);
  auto rt = make_runtime();
  std::atomic<bool> ran{false};
  const auto started = std::chrono::steady_clock::now();
  const bool timed_out = rt.block_on([](compute::pool& pool, std::atomic<bool>& ran) -> task<bool> {
    auto r = co_await timeout(5ms, offload(pool, [&ran] { ran = true; }));
    co_return !r.has_value();
  }(pool, ran));
  const auto took = std::chrono::steady_clock::now() - started;
  plug.release = true;
  pool.install([] {});  // the queue has drained past the dropped work
  EXPECT_TRUE(timed_out);
  EXPECT_FALSE(ran.load());
  EXPECT_LT(took, 5s);
}

TEST(OffloadCancellation, TheWorkSeesTheStopRequestThroughItsToken) {
  // The task is cancelled once the work runs: the work, which would run
  // for ten seconds, sees the request and ends early.
  lanes_under_test l;
  auto rt = make_runtime();
  for_each_lane([&]<lane L>() {
    probe p;
    std::atomic<bool> saw_stop{false};
    const auto started = std::chrono::steady_clock::now();
    rt.block_on([](lanes_under_test& l, probe& p, std::atomic<bool>& saw_stop) -> task<void> {
      cancellation_token token;
      auto canceller = spawn(cancel_once_started(token, p));
      auto r = co_await with_cancellation(token,
                                          [](lanes_under_test& l, probe& p, std::atomic<bool>& saw_stop) -> task<void> {
                                            (void)co_await hand_off<L>(l, [&p, &saw_stop](std::stop_token stop) {
                                              p.started = true;
                                              for (int i = 0; i < 10'000 && !stop.stop_requested(); ++i)
                                                std::this_thread::sleep_for(1ms);
                                              saw_stop = stop.stop_requested();
                                              return 1;
                                            });
                                          }(l, p, saw_stop));
      EXPECT_FALSE(r.has_value());
      co_await canceller;
    }(l, p, saw_stop));
    EXPECT_TRUE(saw_stop.load()) << "lane " << static_cast<int>(L);
    EXPECT_LT(std::chrono::steady_clock::now() - started, 5s) << "lane " << static_cast<int>(L);
  });
}

TEST(OffloadCancellation, TheOwningFormKeepsItsArgumentsInTheJob) {
  lanes_under_test l;
  auto rt = make_runtime();
  const auto length = [](const std::string& s, std::size_t extra) { return s.size() + extra; };
  const auto stoppable = [](std::stop_token, std::string s) { return s + "!"; };
  rt.block_on([](lanes_under_test& l, auto length, auto stoppable) -> task<void> {
    EXPECT_EQ(co_await offload(l.pool, length, std::string(100, 'x'), 5U), 105U);
    EXPECT_EQ(co_await offload_blocking(length, std::string(10, 'y'), 1U), 11U);
    EXPECT_EQ(co_await offload(l.pool, stoppable, std::string("stop")), "stop!");
    EXPECT_EQ(co_await l.cpu.run(length, std::string(3, 'z'), 0U), 3U);
    auto tried = co_await l.cpu.try_run_for(1s, stoppable, std::string("gate"));
    EXPECT_TRUE(tried.has_value());
    if (tried.has_value()) {
      EXPECT_EQ(tried.value(), "gate!");
    }
  }(l, length, stoppable));
}

TEST(OffloadCancellation, ShutdownGivesUpAfterItsTimeoutAndLeavesTheFrame) {
  // Work that ignores the stop request outlives the shutdown timeout: the
  // runtime's destructor returns, reports the task, and leaves its frame
  // allocated (the work still reads it: AddressSanitizer would see a free).
#if LANES_ASAN
  __lsan_disable();  // the frame is left on purpose: LeakSanitizer is not to count it
#endif
  auto pool = compute::pool::builder().threads(1).build();
  probe p;
  testing::internal::CaptureStderr();
  const auto started = std::chrono::steady_clock::now();
  {
    auto rt = runtime::multi_thread().worker_threads(1).shutdown_timeout(5ms).build();
    auto h = rt.spawn(
        [](compute::pool& pool, probe& p) -> task<void> {
          std::vector<long> data(elements, 1);
          (void)co_await offload(pool, [&data, &p] {
            p.started = true;
            std::this_thread::sleep_for(200ms);
            p.sum = std::accumulate(data.begin(), data.end(), 0L);
            p.ended = true;
          });
        }(pool, p),
        "stubborn");
    while (!p.started.load()) std::this_thread::sleep_for(100us);
  }
  const auto took = std::chrono::steady_clock::now() - started;
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_LT(took, 150ms) << "shutdown waited past its timeout";
  EXPECT_FALSE(p.ended.load());
  EXPECT_NE(said.find("stubborn"), std::string::npos) << said;
  EXPECT_NE(said.find("still waits for work on another lane"), std::string::npos) << said;
  pool.install([] {});  // the work has ended, reading the frame left for it
  EXPECT_EQ(p.sum.load(), elements);
#if LANES_ASAN
  __lsan_enable();
#endif
}

}  // namespace
}  // namespace lanes
