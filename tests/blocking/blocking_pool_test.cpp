// The blocking pool itself: the cap, idle retirement, thread names, and a
// shutdown that reports what is still running.
#include <lanes/blocking/blocking_pool.hpp>

#include <gtest/gtest.h>
#include <pthread.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include <lanes/blocking/spawn_blocking.hpp>

#include "address_space_cap.hpp"
#include "sanitized_build.hpp"

namespace lanes {
namespace {

using namespace std::chrono_literals;

void wait_until(const std::function<bool()>& done, std::chrono::milliseconds limit = 5000ms) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (!done() && std::chrono::steady_clock::now() < end) std::this_thread::sleep_for(1ms);
}

TEST(BlockingPool, ABurstRespectsTheCapAndQueues) {
  blocking_pool pool(
      {.max_threads = 8, .keep_alive = 10'000ms, .thread_name = "lanes-blocking", .shutdown_timeout = {}});
  std::atomic<int> done{0};
  std::atomic<std::uint64_t> deepest{0};
  for (int i = 0; i < 10'000; ++i) {
    ASSERT_TRUE(pool.submit(detail::blocking_job([&done] { done.fetch_add(1); }, "tiny", source_location::current())));
    const auto depth = pool.metrics().queue_depth;
    if (depth > deepest.load()) deepest.store(depth);
  }
  wait_until([&] { return pool.metrics().jobs_completed == 10'000; });  // counted after each job returns
  EXPECT_EQ(done.load(), 10'000);
  const auto m = pool.metrics();
  EXPECT_LE(m.threads_peak, 8U);
  EXPECT_GE(m.threads_peak, 1U);
  EXPECT_GT(deepest.load(), 0U);  // more jobs than threads: they queued
  EXPECT_EQ(m.jobs_completed, 10'000U);
}

TEST(BlockingPool, IdleThreadsRetire) {
  blocking_pool pool({.max_threads = 4, .keep_alive = 20ms, .thread_name = "lanes-blocking", .shutdown_timeout = {}});
  std::atomic<int> done{0};
  for (int i = 0; i < 4; ++i) {
    pool.submit(detail::blocking_job(
        [&done] {
          std::this_thread::sleep_for(5ms);
          done.fetch_add(1);
        },
        nullptr, source_location::current()));
  }
  wait_until([&] { return done.load() == 4; });
  EXPECT_GE(pool.metrics().threads_peak, 1U);
  wait_until([&] { return pool.metrics().threads == 0; });
  EXPECT_EQ(pool.metrics().threads, 0U);
}

// A keep-alive and a shutdown timeout of milliseconds::max() mean "for
// good": an idle thread stays, and shutdown waits for the running job
// instead of reporting it. (Neither may overflow inside the condition
// variable's wait_for into a deadline already past, which would retire
// the thread at once and make shutdown give up at once.)
TEST(BlockingPool, DurationsBeyondTheClocksRangeMeanForGood) {
  std::atomic<bool> finished{false};
  blocking_pool pool({.max_threads = 1,
                      .keep_alive = std::chrono::milliseconds::max(),
                      .thread_name = "lanes-blocking",
                      .shutdown_timeout = std::chrono::milliseconds::max()});
  pool.submit(detail::blocking_job([] {}, nullptr, source_location::current()));
  wait_until([&] { return pool.metrics().jobs_completed == 1; });
  std::this_thread::sleep_for(20ms);
  EXPECT_EQ(pool.metrics().threads, 1U);  // idle, not retired
  pool.submit(detail::blocking_job(
      [&finished] {
        std::this_thread::sleep_for(30ms);
        finished.store(true);
      },
      "slow_call", source_location::current()));
  wait_until([&] { return pool.metrics().running == 1; });
  EXPECT_TRUE(pool.shutdown().empty());  // waited for it
  EXPECT_TRUE(finished.load());
}

// Idle threads retire at once here (keep-alive 0), so submissions keep
// meeting threads that are just giving up, waking, or gone. Every job must
// run exactly once, none may be left queued with no thread coming for it,
// and the cap holds.
TEST(BlockingPool, JobsFromManyThreadsMeetingRetiringThreadsEachRunOnce) {
  blocking_pool pool({.max_threads = 3, .keep_alive = 0ms, .thread_name = "lanes-blocking", .shutdown_timeout = {}});
  constexpr int submitters = 4;
  constexpr int per_submitter = 1000;
  std::vector<std::atomic<int>> runs(submitters * per_submitter);
  std::vector<std::thread> threads;
  for (int t = 0; t < submitters; ++t) {
    threads.emplace_back([&pool, &runs, t] {
      std::minstd_rand rng(static_cast<unsigned>(t) + 1);
      for (int i = 0; i < per_submitter; ++i) {
        auto& slot = runs[static_cast<std::size_t>(t * per_submitter + i)];
        ASSERT_TRUE(
            pool.submit(detail::blocking_job([&slot] { slot.fetch_add(1); }, nullptr, source_location::current())));
        // Every fourth job a pause, in which the pool's threads retire.
        if (i % 4 == 3) std::this_thread::sleep_for(std::chrono::microseconds(850 + rng() % 300));
      }
    });
  }
  for (auto& t : threads) t.join();
  wait_until([&] { return pool.metrics().jobs_completed == runs.size(); }, 30'000ms);
  EXPECT_EQ(pool.metrics().jobs_completed, runs.size());
  EXPECT_EQ(pool.metrics().queue_depth, 0U);
  for (std::size_t i = 0; i < runs.size(); ++i) ASSERT_EQ(runs[i].load(), 1) << "job " << i;
  EXPECT_LE(pool.metrics().threads_peak, 3U);
}

TEST(BlockingPool, ThreadsAreNamed) {
  blocking_pool pool({.max_threads = 2, .keep_alive = 1000ms, .thread_name = "lanes-blocking", .shutdown_timeout = {}});
  std::string name;
  std::atomic<bool> done{false};
  pool.submit(detail::blocking_job(
      [&] {
        char buffer[32] = {};
        pthread_getname_np(pthread_self(), buffer, sizeof buffer);
        name = buffer;
        done.store(true);
      },
      nullptr, source_location::current()));
  wait_until([&] { return done.load(); });
  EXPECT_EQ(name.rfind("lanes-blocking-", 0), 0U) << name;
}

TEST(BlockingPool, ShutdownReportsJobsStillRunning) {
  std::atomic<bool> finished{false};
  {
    blocking_pool pool(
        {.max_threads = 2, .keep_alive = 1000ms, .thread_name = "lanes-blocking", .shutdown_timeout = 20ms});
    std::atomic<bool> started{false};
    pool.submit(detail::blocking_job(
        [&] {
          started.store(true);
          std::this_thread::sleep_for(200ms);
          finished.store(true);
        },
        "slow_call", source_location::current()));
    wait_until([&] { return started.load(); });
    const auto stuck = pool.shutdown();
    ASSERT_EQ(stuck.size(), 1U);
    EXPECT_STREQ(stuck[0].name, "slow_call");
    EXPECT_NE(std::string(stuck[0].spawned_at.file_name()).find("blocking_pool_test.cpp"), std::string::npos);
    EXPECT_FALSE(pool.submit(detail::blocking_job([] {}, nullptr, source_location::current())));
  }  // the pool is gone; its detached thread still finishes its job
  wait_until([&] { return finished.load(); });
  EXPECT_TRUE(finished.load());
  std::this_thread::sleep_for(5ms);  // let the thread leave the pool's code
}

// The address space capped a few thread stacks above what the process
// maps: a submit that needs a new thread which cannot start throws, its
// job does not run, and nothing is counted for it - the pool's thread
// count is the threads that exist, and shutdown returns.
TEST(BlockingPool, AThreadThatCannotStartFailsOnlyTheCallThatNeededIt) {
  if (detail::sanitized_build) GTEST_SKIP() << "the sanitizers reserve terabytes of address space: no cap fits";
  blocking_pool pool(
      {.max_threads = 64, .keep_alive = 10'000ms, .thread_name = "lanes-blocking", .shutdown_timeout = {}});
  std::atomic<bool> release{false};
  std::atomic<int> ran{0};
  int accepted = 0;
  int refused = 0;
  {
    testing_support::address_space_cap cap(std::size_t{48} << 20);  // ~5 stacks of 8 MiB
    ASSERT_TRUE(cap.applied()) << "cannot cap the address space";
    for (int i = 0; i < 64; ++i) {
      try {
        const bool taken = pool.submit(detail::blocking_job(
            [&release, &ran] {
              ran.fetch_add(1);
              while (!release.load()) std::this_thread::sleep_for(1ms);
            },
            "held", source_location::current()));
        EXPECT_TRUE(taken);
        ++accepted;
      } catch (const std::exception&) {  // std::system_error (EAGAIN), or std::bad_alloc
        ++refused;
      }
    }
  }
  EXPECT_GT(accepted, 0);
  EXPECT_GT(refused, 0) << "the cap never stopped a thread";
  EXPECT_EQ(pool.metrics().threads, static_cast<std::uint32_t>(accepted));
  wait_until([&] { return ran.load() == accepted; });
  EXPECT_EQ(ran.load(), accepted);
  EXPECT_EQ(pool.metrics().queue_depth, 0U);
  release = true;
  EXPECT_TRUE(pool.shutdown(5000ms).empty());
  EXPECT_EQ(ran.load(), accepted) << "a refused job ran";
}

}  // namespace
}  // namespace lanes
