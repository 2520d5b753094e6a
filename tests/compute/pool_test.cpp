// The pool: install, detached spawn and its error handler, naming and
// hooks, priority, shutdown with queued work, many pools, builder errors,
// and the policy for compute work started on an io worker.
#include <lanes/compute/pool.hpp>

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <lanes/compute/join.hpp>
#include <lanes/compute/spawn.hpp>
#include <lanes/config_error.hpp>
#include <lanes/io/errors.hpp>
#include <lanes/io/runtime.hpp>

namespace lanes::compute {
namespace {

using namespace std::chrono_literals;

TEST(ComputePool, InstallReturnsAndRethrows) {
  auto p = pool::builder().threads(2).build();
  EXPECT_EQ(p.threads(), 2U);
  EXPECT_EQ(p.install([] { return 41 + 1; }), 42);
  EXPECT_TRUE(p.install([&] { return p.owns_current_thread(); }));
  EXPECT_FALSE(p.owns_current_thread());
  EXPECT_THROW(p.install([]() -> int { throw std::range_error("x"); }), std::range_error);
  EXPECT_GE(p.metrics().injected, 3U);
}

TEST(ComputePool, ThreadsAreNamedAndHooksRun) {
  std::mutex m;
  std::set<std::string> names;
  std::atomic<int> started{0};
  std::atomic<int> exited{0};
  {
    auto p = pool::builder()
                 .threads(2)
                 .on_thread_start([&](std::size_t) {
                   char name[16] = {};
                   pthread_getname_np(pthread_self(), name, sizeof name);
                   std::lock_guard lock(m);
                   names.insert(name);
                   started.fetch_add(1);
                 })
                 .on_thread_exit([&](std::size_t) { exited.fetch_add(1); })
                 .build();
    p.install([] {});
    while (started.load() < 2) std::this_thread::sleep_for(1ms);
  }
  EXPECT_EQ(exited.load(), 2);
  EXPECT_EQ(names, (std::set<std::string>{"lanes-compute-0", "lanes-compute-1"}));
}

TEST(ComputePool, LongNamesKeepTheIndex) {
  auto p = pool::builder().threads(1).thread_name("a-very-long-pool-name").build();
  const std::string name = p.install([] {
    char buf[16] = {};
    pthread_getname_np(pthread_self(), buf, sizeof buf);
    return std::string(buf);
  });
  EXPECT_EQ(name, "a-very-long-p-0");
}

TEST(ComputePool, LowPriorityByDefaultAndOptional) {
  auto low = pool::builder().threads(1).build();
  EXPECT_EQ(low.install([] { return sched_getscheduler(0); }), SCHED_BATCH);
  auto normal = pool::builder().threads(1).low_priority(false).build();
  EXPECT_EQ(normal.install([] { return sched_getscheduler(0); }), SCHED_OTHER);
  auto idle = pool::builder().threads(1).priority(thread_priority::idle).build();
  EXPECT_EQ(idle.install([] { return sched_getscheduler(0); }), SCHED_IDLE);
  auto set_back = pool::builder().threads(1).priority(thread_priority::idle).low_priority(true).build();
  EXPECT_EQ(set_back.install([] { return sched_getscheduler(0); }), SCHED_BATCH);
}

TEST(ComputePool, DetachedExceptionsGoToTheHandler) {
  std::atomic<int> handled{0};
  std::atomic<int> ran{0};
  {
    auto p = pool::builder()
                 .threads(2)
                 .on_error([&](std::exception_ptr e) {
                   try {
                     std::rethrow_exception(e);
                   } catch (const std::runtime_error&) {
                     handled.fetch_add(1);
                   }
                 })
                 .build();
    for (int i = 0; i < 100; ++i) {
      p.spawn([&ran, i] {
        ran.fetch_add(1);
        if (i % 10 == 0) throw std::runtime_error("bad request");
      });
    }
  }  // destruction runs every spawned job first
  EXPECT_EQ(ran.load(), 100);
  EXPECT_EQ(handled.load(), 10);
}

TEST(ComputePool, TheDefaultHandlerCountsAndTheProcessLives) {
  auto p = pool::builder().threads(1).build();
  testing::internal::CaptureStderr();
  p.spawn([] { throw std::runtime_error("the trap"); });
  while (p.metrics().detached_pending != 0) std::this_thread::sleep_for(1ms);
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(p.metrics().detached_errors, 1U);
  EXPECT_NE(err.find("the trap"), std::string::npos) << err;
}

TEST(ComputePool, DestructionWhileJobsAreQueuedRunsThemAll) {
  std::atomic<int> ran{0};
  {
    auto p = pool::builder().threads(1).build();
    for (int i = 0; i < 200; ++i) {
      p.spawn([&ran, &p] {
        std::this_thread::sleep_for(std::chrono::microseconds(20));
        ran.fetch_add(1);
        spawn([&ran] { ran.fetch_add(1); });  // from a worker: the same pool, also waited for
        (void)p;
      });
    }
  }
  EXPECT_EQ(ran.load(), 400);
}

TEST(ComputePool, DestructionWhileIdle) {
  for (int i = 0; i < 20; ++i) {
    auto p = pool::builder().threads(3).build();
    if (i % 2 == 0) p.install([] {});
  }
}

// A moved-from pool is empty: it says so instead of dereferencing null.
TEST(ComputePool, AMovedFromPoolIsEmpty) {
  pool p = pool::builder().threads(1).build();
  pool taker(std::move(p));
  // NOLINTBEGIN(bugprone-use-after-move): what a moved-from pool does is the test
  EXPECT_EQ(p.threads(), 0U);
  EXPECT_FALSE(p.owns_current_thread());
  EXPECT_THROW(p.install([] { return 1; }), runtime_misuse);
  EXPECT_THROW(p.spawn([] {}), runtime_misuse);
  EXPECT_THROW(p.metrics(), runtime_misuse);
  // NOLINTEND(bugprone-use-after-move)
  EXPECT_EQ(taker.install([] { return 2; }), 2);
}

// A job that drops the last owner of its pool: the pool cannot join the
// worker it is destroyed on. A clear message and abort, not a deadlock.
// The child waits up to 60 s for the job: the worker runs below normal
// priority (SCHED_IDLE), and on a loaded machine (sanitizer runs in
// parallel) it may not get a CPU for seconds; it dies as soon as it does.
TEST(ComputePoolDeathTest, DestroyedOnItsOwnWorkerAbortsWithAClearMessage) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(
      {
        auto p = std::make_shared<pool>(pool::builder().threads(1).build());
        p->spawn([keep = p]() mutable { keep.reset(); });
        p.reset();
        for (int i = 0; i < 600; ++i) std::this_thread::sleep_for(100ms);
      },
      "a compute pool destroyed from one of its own workers cannot join itself");
}

TEST(ComputePool, ManyPoolsAtOnce) {
  std::vector<pool> pools;
  for (int i = 0; i < 6; ++i) pools.push_back(pool::builder().threads(2).build());
  std::vector<std::thread> users;
  std::atomic<int> ok{0};
  for (auto& p : pools) {
    users.emplace_back([&p, &ok] {
      long sum = 0;
      for (int k = 0; k < 50; ++k) {
        auto [a, b] = p.install([] { return join([] { return 1L; }, [] { return 2L; }); });
        sum += a + b;
      }
      if (sum == 150) ok.fetch_add(1);
    });
  }
  for (auto& t : users) t.join();
  EXPECT_EQ(ok.load(), 6);
}

TEST(ComputePool, BuilderRejectsNonsense) {
  EXPECT_THROW(pool::builder().threads(0), config_error);
  EXPECT_THROW(pool::builder().thread_name(""), config_error);
  EXPECT_THROW(pool::builder().stack_size(1), config_error);
  auto p = pool::builder().threads(1).stack_size(1 << 20).build();
  EXPECT_EQ(p.install([] { return 1; }), 1);
}

TEST(ComputePool, FromAnIoWorkerFailsWhenAskedTo) {
  auto p = pool::builder().threads(1).from_io_worker(io_worker_policy::fail).build();
  auto rt = runtime::multi_thread().worker_threads(1).build();
  const std::string what = rt.block_on([](pool& p) -> task<std::string> {
    try {
      p.install([] { return 1; });
    } catch (const runtime_misuse& e) {
      co_return e.what();
    }
    co_return "no error";
  }(p));
  EXPECT_NE(what.find("io worker"), std::string::npos) << what;
  EXPECT_NE(what.find("pool_test.cpp"), std::string::npos) << what;  // the spawn site
}

TEST(ComputePool, FromAnIoWorkerWarnsOncePerSpawnSite) {
  auto p = pool::builder().threads(1).build();
  auto rt = runtime::multi_thread().worker_threads(1).build();
  testing::internal::CaptureStderr();
  const int sum = rt.block_on([](pool& p) -> task<int> {
    int s = 0;
    for (int i = 0; i < 3; ++i) s += p.install([] { return 1; });
    co_return s;
  }(p));
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_EQ(sum, 3);
  const auto first = err.find("compute work started on an io worker");
  EXPECT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("compute work started on an io worker", first + 1), std::string::npos) << err;
}

TEST(ComputePool, FromAnIoWorkerAllowedIsSilent) {
  auto p = pool::builder().threads(1).from_io_worker(io_worker_policy::allow).build();
  auto rt = runtime::multi_thread().worker_threads(1).build();
  testing::internal::CaptureStderr();
  const int v = rt.block_on([](pool& p) -> task<int> { co_return p.install([] { return 5; }); }(p));
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_EQ(v, 5);
}

}  // namespace
}  // namespace lanes::compute
