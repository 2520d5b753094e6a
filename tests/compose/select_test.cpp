// select() and with_cancellation(): which branch wins, that the losers are
// cancelled before the call returns, and that a lost recv/acquire gives
// back what it was granted.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <coroutine>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <lanes/bridge/gate.hpp>
#include <lanes/compose/select.hpp>
#include <lanes/compose/with_cancellation.hpp>
#include <lanes/compute/pool.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/timeout.hpp>
#include <lanes/io/yield.hpp>
#include <lanes/sync/mpsc.hpp>
#include <lanes/sync/notify.hpp>
#include <lanes/sync/semaphore.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

runtime two_workers() { return runtime::multi_thread().worker_threads(2).build(); }

TEST(Select, TheBranchThatFiresWinsAndCarriesItsValue) {
  auto rt = two_workers();
  auto [index, value] = rt.block_on([]() -> task<std::pair<std::size_t, int>> {
    auto [tx, rx] = mpsc_unbounded<int>();
    auto sender = spawn([](mpsc_sender<int> tx) -> task<void> {
      co_await sleep(1ms);
      (void)co_await tx.send(42);
    }(tx));
    auto r = co_await select(sleep(1h), rx.recv());
    co_await sender;
    co_return std::pair{r.index(), r.index() == 1 ? std::get<1>(r).value() : -1};
  }());
  EXPECT_EQ(index, 1U);
  EXPECT_EQ(value, 42);
}

TEST(Select, AReadyBranchWinsWithoutWaitingAndTheFirstListedWinsTies) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    auto [tx, rx] = mpsc_unbounded<int>();
    (void)co_await tx.send(1);
    semaphore sem(1);
    auto r = co_await select(sem.acquire(), rx.recv());  // both ready: the first listed
    EXPECT_EQ(r.index(), 0U);
    EXPECT_EQ(sem.available(), 0U);  // the permit is held by r
    auto msg = rx.try_recv();        // the recv never started: the message is still there
    EXPECT_TRUE(msg.has_value());
  }());
}

TEST(Select, VoidBranchesAndLvalueHandles) {
  auto rt = two_workers();
  rt.block_on([]() -> task<void> {
    auto quick = spawn([]() -> task<int> {
      co_await sleep(100us);
      co_return 7;
    }());
    auto r = co_await select(quick, sleep(1h));  // the handle is awaited by reference
    EXPECT_EQ(r.index(), 0U);
    EXPECT_EQ(std::get<0>(r), 7);
    auto slept = co_await select(sleep(50us), sleep(1h));
    EXPECT_EQ(slept.index(), 0U);
    EXPECT_TRUE(std::get_if<0>(&slept) != nullptr);
  }());
}

// Both branches fire before the selecting task runs again (one thread, so
// the order is fixed): the first listed wins, and the loser gives back what
// it was granted.
task<void> fire_both(notify& go, mpsc_sender<int> tx) {
  go.notify_one();
  (void)co_await tx.send(5);
}

TEST(Select, ALosingRecvTakesNoMessage) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    auto [tx, rx] = mpsc_unbounded<int>();
    notify go;
    auto firer = spawn(fire_both(go, tx));  // runs once this task suspends
    auto r = co_await select(go.notified(), rx.recv());
    EXPECT_EQ(r.index(), 0U);
    auto left = rx.try_recv();
    EXPECT_TRUE(left.has_value() && left->value() == 5);
    co_await firer;
  }());
}

TEST(Select, ALosingNotifiedPassesItsNotificationOn) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    auto [tx, rx] = mpsc_unbounded<int>();
    notify go;
    auto firer = spawn(fire_both(go, tx));
    auto r = co_await select(rx.recv(), go.notified());
    EXPECT_EQ(r.index(), 0U);
    EXPECT_EQ(std::get<0>(r).value(), 5);
    // The notification picked the losing waiter; it was stored as the permit.
    auto again = co_await select(go.notified(), sleep(1h));
    EXPECT_EQ(again.index(), 0U);
    co_await firer;
  }());
}

// An awaiter whose await_ready says "not yet" and whose await_suspend then
// completes at once: the race must still suspend (the branch before it is
// registered) and resume with this branch.
struct completes_in_suspend {
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<>) const noexcept { return false; }
  int await_resume() const noexcept { return 9; }
};

TEST(Select, ABranchThatCompletesInSuspendWinsAfterEarlierOnesRegistered) {
  auto rt = two_workers();
  rt.block_on([]() -> task<void> {
    auto [tx, rx] = mpsc_unbounded<int>();
    auto r = co_await select(rx.recv(), completes_in_suspend{});
    EXPECT_EQ(r.index(), 1U);
    EXPECT_EQ(std::get<1>(r), 9);
    (void)co_await tx.send(3);
    // The recv that lost was deregistered: the next one gets the message,
    // and the task is not woken spuriously at a later await.
    co_await sleep(200us);
    auto got = co_await rx.recv();
    EXPECT_EQ(got.value(), 3);
  }());
}

TEST(Select, NestedRacesReportTheRightBranch) {
  auto rt = two_workers();
  rt.block_on([]() -> task<void> {
    auto [tx, rx] = mpsc_unbounded<int>();
    cancellation_token stop;
    auto sender = spawn([](mpsc_sender<int> tx) -> task<void> {
      co_await sleep(500us);
      (void)co_await tx.send(11);
    }(tx));
    // Branch 0 is itself a race (recv vs 1 h); branch 1 is a token that never fires.
    auto r = co_await select(timeout(1h, rx.recv()), stop.cancelled());
    EXPECT_EQ(r.index(), 0U);
    EXPECT_EQ(std::get<0>(r).value().value(), 11);
    // And the inner guard firing is reported as the inner race's result.
    auto r2 = co_await select(timeout(200us, rx.recv()), stop.cancelled());
    EXPECT_EQ(r2.index(), 0U);
    EXPECT_FALSE(std::get<0>(r2).has_value());  // timed out
    co_await sender;
  }());
}

// A sleep kept across the iterations of a select loop is a deadline. When
// it loses, its timer stays armed (it is not destroyed); the next await
// must take that timer out of the wheel before arming it again. Linked a
// second time it cut its slot's list: the timers queued behind it in that
// slot (other tasks' sleeps, due just after) were lost, and the firing
// crashed or those tasks slept for good.
task<int> select_until_deadline(clock::duration deadline_after, clock::duration step) {
  auto deadline = sleep(deadline_after);  // kept: awaited by reference
  int rounds = 0;
  for (;;) {
    auto r = co_await select(sleep(step), deadline);
    if (r.index() == 1) co_return rounds;
    ++rounds;
  }
}

task<void> sleeps_until(clock::time_point at) { co_await sleep_until(at); }

TEST(Select, AKeptSleepIsADeadlineAcrossIterations) {
  auto rt = runtime::current_thread().build();  // one wheel: the sleeps below share its slots
  rt.block_on([]() -> task<void> {
    const auto start = clock::now();
    // Due just after the deadline; they first run (and arm) once this task
    // has armed it, so they queue behind it in its slot.
    std::vector<join_handle<void>> behind;
    for (int i = 1; i <= 20; ++i) {
      behind.push_back(spawn(sleeps_until(start + 30ms + i * 20us)));
    }
    const int rounds = co_await select_until_deadline(30ms, 1ms);
    EXPECT_GE(clock::now() - start, 30ms);
    EXPECT_GT(rounds, 0);
    int woke = 0;
    for (auto& h : behind) woke += (co_await timeout_until(start + 5s, h)).has_value() ? 1 : 0;
    EXPECT_EQ(woke, 20);
  }());
}

TEST(Select, KeptSleepsOnTwoWorkersAllEndAtTheirDeadlines) {
  // Re-armed on whichever worker polls the task: the old timer may sit in
  // another worker's wheel.
  auto rt = two_workers();
  rt.block_on([]() -> task<void> {
    const auto start = clock::now();
    std::vector<join_handle<int>> loops;
    std::vector<join_handle<void>> plain;
    for (int i = 0; i < 16; ++i) {
      loops.push_back(spawn(select_until_deadline(20ms + i * 50us, 100us + i * 10us)));
      plain.push_back(spawn(sleeps_until(start + 20ms + i * 50us + 10us)));
    }
    int ended = 0;
    for (auto& h : loops) ended += (co_await timeout_until(start + 5s, h)).has_value() ? 1 : 0;
    for (auto& h : plain) ended += (co_await timeout_until(start + 5s, h)).has_value() ? 1 : 0;
    EXPECT_EQ(ended, 32);
  }());
}

TEST(Select, AKeptSleepWhoseDeadlinePassedWhileItLingeredWinsAtOnce) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    auto deadline = sleep(2ms);
    auto first = co_await select(sleep(50us), deadline);
    EXPECT_EQ(first.index(), 0U);
    co_await sleep(5ms);  // the kept timer fires meanwhile: a stale wake, ignored
    const auto before = clock::now();
    auto second = co_await select(sleep(1h), deadline);
    EXPECT_EQ(second.index(), 1U);
    EXPECT_LT(clock::now() - before, 1s);
  }());
}

// A kept sleep made before the runtime outlives it. The runtime's shutdown
// lets go of its timer: destroying it afterwards, or awaiting it on another
// runtime, does not reach into the runtime that is gone (it did: a
// use-after-free, which AddressSanitizer reports).
task<std::size_t> race_once(sleep_awaiter& kept) {
  auto r = co_await select(sleep(50us), kept);
  co_return r.index();
}

TEST(Select, AKeptSleepMayOutliveTheRuntimeItWasArmedOn) {
  {
    auto kept = sleep(1h);
    {
      auto rt = runtime::current_thread().build();
      EXPECT_EQ(rt.block_on(race_once(kept)), 0U);
    }
  }  // destroyed after its runtime, its timer still armed there
  const auto made = clock::now();
  auto deadline = sleep(30ms);
  {
    auto rt = runtime::current_thread().build();
    EXPECT_EQ(rt.block_on(race_once(deadline)), 0U);
  }
  auto rt = two_workers();  // awaited again on another runtime
  rt.block_on([](sleep_awaiter& d) -> task<void> { co_await d; }(deadline));
  EXPECT_GE(clock::now() - made, 30ms);
}

// One wait at a time on a receiver or a handle: the same one in two
// branches is refused, and the message says a select can be the cause.
TEST(Select, TheSameReceiverOrHandleInTwoBranchesIsAClearError) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    auto [tx, rx] = mpsc_unbounded<int>();
    auto names_select = [](const runtime_misuse& e) {
      return std::string(e.what()).find("two branches of one select") != std::string::npos;
    };
    bool recv_refused = false;
    try {
      (void)co_await select(rx.recv(), rx.recv());
    } catch (const runtime_misuse& e) {
      recv_refused = names_select(e);
    }
    EXPECT_TRUE(recv_refused);
    auto h = spawn(sleeps_until(clock::now() + 1ms));
    bool handle_refused = false;
    try {
      (void)co_await select(h, h);
    } catch (const runtime_misuse& e) {
      handle_refused = names_select(e);
    }
    EXPECT_TRUE(handle_refused);
    co_await h;  // both branches were cancelled: the handle can be awaited again
    (void)co_await tx.send(4);
    EXPECT_EQ((co_await rx.recv()).value(), 4);
  }());
}

// Only an awaiter made to linger may be kept (an lvalue of one that is its
// own awaiter); the others are refused at compile time (the CTest
// compose.kept_awaiter_is_refused compiles one and expects the message).
static_assert(detail::keepable_awaiter<sleep_awaiter>);
static_assert(!detail::keepable_awaiter<notify::awaiter>);

TEST(Select, TooManyBranchesInOneSuspensionIsAClearError) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    cancellation_token t;
    // 4 levels of 9 = 36 race bits (> 32).
    auto level = [&] {
      return select(t.cancelled(), t.cancelled(), t.cancelled(), t.cancelled(), t.cancelled(), t.cancelled(),
                    t.cancelled(), t.cancelled());
    };
    bool threw = false;
    try {
      (void)co_await select(level(), level(), level(), level(), sleep(1ms));
    } catch (const runtime_misuse& e) {
      threw = std::string(e.what()).find("32") != std::string::npos;
    }
    EXPECT_TRUE(threw);
  }());
}

TEST(WithCancellation, ATokenCancelledWhileWaitingStopsTheOperation) {
  auto rt = two_workers();
  rt.block_on([]() -> task<void> {
    cancellation_token token;
    auto [tx, rx] = mpsc_unbounded<int>();
    auto canceller = spawn([](cancellation_token t) -> task<void> {
      co_await sleep(500us);
      t.cancel();
    }(token));
    auto r = co_await with_cancellation(token, rx.recv());
    EXPECT_FALSE(r.has_value());
    co_await canceller;
    // The recv took nothing and left nothing registered.
    (void)co_await tx.send(1);
    auto got = co_await rx.recv();
    EXPECT_EQ(got.value(), 1);
  }());
}

TEST(WithCancellation, AnAlreadyCancelledTokenStopsEvenAReadyOperation) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    cancellation_token token;
    token.cancel();
    auto [tx, rx] = mpsc_unbounded<int>();
    (void)co_await tx.send(1);
    auto r = co_await with_cancellation(token, rx.recv());
    EXPECT_FALSE(r.has_value());
    EXPECT_TRUE(rx.try_recv().has_value());  // still there
    semaphore sem(2);
    auto p = co_await with_cancellation(token, sem.acquire());
    EXPECT_FALSE(p.has_value());
    EXPECT_EQ(sem.available(), 2U);
  }());
}

TEST(WithCancellation, ACancelledTaskHasStoppedBeforeTheCallReturns) {
  auto rt = two_workers();
  std::atomic<int> steps{0};
  std::atomic<bool> child_destroyed{false};
  rt.block_on([](std::atomic<int>& steps, std::atomic<bool>& destroyed) -> task<void> {
    cancellation_token token;
    auto canceller = spawn([](cancellation_token t) -> task<void> {
      co_await sleep(1ms);
      t.cancel();
    }(token));
    struct on_exit {
      std::atomic<bool>& flag;
      ~on_exit() { flag.store(true); }
    };
    auto r = co_await with_cancellation(token, [](std::atomic<int>& steps, std::atomic<bool>& destroyed) -> task<int> {
      on_exit guard{destroyed};
      for (;;) {
        steps.fetch_add(1);
        co_await sleep(50us);
      }
      co_return 0;
    }(steps, destroyed));
    EXPECT_FALSE(r.has_value());
    EXPECT_TRUE(destroyed.load());  // its cancellation completed first
    const int seen = steps.load();
    co_await sleep(1ms);
    EXPECT_EQ(steps.load(), seen);  // and nothing of it ran afterwards
    co_await canceller;
  }(steps, child_destroyed));
}

TEST(WithCancellation, ATaskThatFinishesFirstKeepsItsResultAndErrorsKeepTheirType) {
  auto rt = two_workers();
  rt.block_on([]() -> task<void> {
    cancellation_token token;
    auto r = co_await with_cancellation(token, []() -> task<std::string> { co_return "done"; }());
    EXPECT_EQ(r.value(), "done");
    bool typed = false;
    try {
      (void)co_await with_cancellation(token, []() -> task<int> {
        throw std::out_of_range("x");
        co_return 1;
      }());
    } catch (const std::out_of_range&) {
      typed = true;
    }
    EXPECT_TRUE(typed);
  }());
}

TEST(WithCancellation, AnOffloadWaitingForAGatePermitLeavesTheQueue) {
  auto rt = two_workers();
  auto pool = compute::pool::builder().threads(1).build();
  gate cpu(pool, 1);
  rt.block_on([](gate& cpu) -> task<void> {
    std::atomic<bool> release{false};
    // The one permit is held by a job that waits for `release`.
    auto holder = spawn(cpu.run([&release] {
      while (!release.load()) std::this_thread::yield();
      return 1;
    }));
    while (cpu.metrics().in_flight == 0) co_await sleep(50us);
    cancellation_token token;
    auto canceller = spawn([](cancellation_token t) -> task<void> {
      co_await sleep(300us);
      t.cancel();
    }(token));
    auto r = co_await with_cancellation(token, cpu.run([] { return 2; }));
    EXPECT_FALSE(r.has_value());
    EXPECT_EQ(cpu.metrics().waiting, 0U);  // it left the queue of permit waiters
    release.store(true);
    EXPECT_EQ(co_await holder, 1);
    EXPECT_EQ(co_await cpu.run([] { return 3; }), 3);  // the permit came back
    co_await canceller;
  }(cpu));
}

}  // namespace
}  // namespace lanes
