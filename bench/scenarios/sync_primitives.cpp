// The sync issue's benchmarks, lanes against the nearest plain Asio (Boost
// 1.74) construction, in the same run:
//   handoff   - a plain thread wakes an io task through a oneshot, vs asio::post
//               to an idle io_context: round trip until the thread sees the ack;
//   mpsc      - messages/s through a bounded channel from 1 and 4 producer
//               tasks, vs producers posting to a consumer strand;
//   semaphore - acquire + release, uncontended and with 8 tasks on 2 permits,
//               vs a strand-guarded counter with a queue of waiting timers;
//   blocking  - spawn_blocking round trip from a task, vs posting to a
//               thread_pool and back; and the thread count under a burst of
//               10,000 blocking jobs (it must stay within the cap).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <iostream>
#include <thread>
#include <vector>

#include <boost/asio/thread_pool.hpp>
#include <lanes/blocking/spawn_blocking.hpp>
#include <lanes/budget.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/sync/mpsc.hpp>
#include <lanes/sync/oneshot.hpp>
#include <lanes/sync/semaphore.hpp>

#include "asio_peer.hpp"
#include "json_writer.hpp"
#include "scenario.hpp"

namespace lanes::bench {

namespace {

using steady = std::chrono::steady_clock;

double ns_per(steady::time_point start, long ops) {
  return std::chrono::duration<double, std::nano>(steady::now() - start).count() / static_cast<double>(ops);
}

// --- thread -> io task handoff -------------------------------------------

double lanes_handoff_ns(int n) {
  auto rt = runtime::multi_thread().worker_threads(1).build();
  std::vector<oneshot_sender<int>> senders;
  std::vector<oneshot_receiver<int>> receivers;
  for (int i = 0; i < n; ++i) {
    auto [tx, rx] = oneshot<int>();
    senders.push_back(std::move(tx));
    receivers.push_back(std::move(rx));
  }
  std::atomic<int> ack{0};
  auto consumer = rt.spawn([](std::vector<oneshot_receiver<int>>& rxs, std::atomic<int>& ack) -> task<void> {
    for (auto& rx : rxs) ack.store((co_await rx).value() + 1, std::memory_order_release);
  }(receivers, ack));
  std::vector<double> samples;
  for (int i = 0; i < n; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(20));  // let the io worker go idle
    const auto start = steady::now();
    (void)std::move(senders[static_cast<std::size_t>(i)]).send(i);
    while (ack.load(std::memory_order_acquire) != i + 1) {
    }
    samples.push_back(ns_per(start, 1));
  }
  rt.block_on([](join_handle<void>& h) -> task<void> { co_await h; }(consumer));
  return median(samples);
}

double asio_handoff_ns(int n) {
  asio::io_context ctx(1);
  auto guard = asio::make_work_guard(ctx);
  std::thread io([&] { ctx.run(); });
  std::atomic<int> ack{0};
  std::vector<double> samples;
  for (int i = 0; i < n; ++i) {
    std::this_thread::sleep_for(std::chrono::microseconds(20));
    const auto start = steady::now();
    asio::post(ctx, [&ack, i] { ack.store(i + 1, std::memory_order_release); });
    while (ack.load(std::memory_order_acquire) != i + 1) {
    }
    samples.push_back(ns_per(start, 1));
  }
  guard.reset();
  io.join();
  return median(samples);
}

// --- mpsc throughput ---------------------------------------------------------

double lanes_mpsc_msgs_per_s(int producers, long messages) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  return rt.block_on([](int producers, long messages) -> task<double> {
    auto [tx, rx] = mpsc_bounded<long>(1024);
    const long per = messages / producers;
    const auto start = steady::now();
    std::vector<join_handle<void>> hs;
    for (int p = 0; p < producers; ++p) {
      hs.push_back(spawn([](mpsc_sender<long> tx, long per) -> task<void> {
        for (long i = 0; i < per; ++i) (void)co_await tx.send(i);
      }(tx, per)));
    }
    { auto mine = std::move(tx); }
    long received = 0;
    while (auto m = co_await rx.recv()) received += 1;
    for (auto& h : hs) co_await h;
    const double secs = std::chrono::duration<double>(steady::now() - start).count();
    co_return static_cast<double>(received) / secs;
  }(producers, messages));
}

double asio_mpsc_msgs_per_s(int producers, long messages) {
  asio::io_context ctx(2);
  auto consumer = asio::make_strand(ctx);
  const long per = messages / producers;
  long received = 0;
  const auto start = steady::now();
  for (int p = 0; p < producers; ++p) {
    asio::co_spawn(
        ctx,
        [&, per]() -> asio::awaitable<void> {
          for (long i = 0; i < per; ++i) {
            asio::post(consumer, [&received] { ++received; });
            if (i % 64 == 0) co_await asio::post(co_await asio::this_coro::executor, asio::use_awaitable);
          }
        },
        asio::detached);
  }
  std::thread second([&] { ctx.run(); });
  ctx.run();
  second.join();
  const double secs = std::chrono::duration<double>(steady::now() - start).count();
  return static_cast<double>(received) / secs;
}

// --- semaphore -----------------------------------------------------------------

double lanes_semaphore_ns(int tasks, std::size_t permits, long ops) {
  auto rt = runtime::multi_thread().worker_threads(tasks > 1 ? 2 : 1).build();
  return rt.block_on([](int tasks, std::size_t permits, long ops) -> task<double> {
    semaphore sem(permits);
    const long per = ops / tasks;
    const auto start = steady::now();
    std::vector<join_handle<void>> hs;
    for (int t = 0; t < tasks; ++t) {
      hs.push_back(spawn([](semaphore& sem, long per) -> task<void> {
        for (long i = 0; i < per; ++i) {
          auto p = co_await sem.acquire();
        }
      }(sem, per)));
    }
    for (auto& h : hs) co_await h;
    co_return ns_per(start, per * tasks);
  }(tasks, permits, ops));
}

// The plain Asio way: a counter behind a strand, waiters parked on timers
// set to expire never and cancelled to wake them.
class asio_semaphore {
 public:
  asio_semaphore(asio::io_context& ctx, std::size_t permits) : strand_(asio::make_strand(ctx)), available_(permits) {}
  asio::awaitable<void> acquire() {
    co_await asio::post(strand_, asio::use_awaitable);
    if (available_ > 0) {
      --available_;
      co_return;
    }
    asio::steady_timer wait(strand_, steady::time_point::max());
    waiting_.push_back(&wait);
    boost::system::error_code ec;
    co_await wait.async_wait(asio::redirect_error(asio::use_awaitable, ec));  // cancelled: our turn
    // Back through the strand before `wait` is destroyed: the release that
    // cancelled it may still be inside cancel() on another thread.
    co_await asio::post(strand_, asio::use_awaitable);
  }
  void release() {
    asio::post(strand_, [this] {
      if (waiting_.empty()) {
        ++available_;
        return;
      }
      waiting_.front()->cancel();  // the permit passes straight to the first waiter
      waiting_.pop_front();
    });
  }

 private:
  asio::strand<asio::io_context::executor_type> strand_;
  std::size_t available_;
  std::deque<asio::steady_timer*> waiting_;
};

double asio_semaphore_ns(int tasks, std::size_t permits, long ops) {
  asio::io_context ctx(tasks > 1 ? 2 : 1);
  asio_semaphore sem(ctx, permits);
  const long per = ops / tasks;
  const auto start = steady::now();
  for (int t = 0; t < tasks; ++t) {
    asio::co_spawn(
        ctx,
        [&sem, per]() -> asio::awaitable<void> {
          for (long i = 0; i < per; ++i) {
            co_await sem.acquire();
            sem.release();
          }
        },
        asio::detached);
  }
  std::thread second;
  if (tasks > 1) second = std::thread([&] { ctx.run(); });
  ctx.run();
  if (second.joinable()) second.join();
  return ns_per(start, per * tasks);
}

// --- blocking lane ---------------------------------------------------------------

double lanes_blocking_round_trip_ns(long ops) {
  auto rt = runtime::multi_thread().worker_threads(1).build();
  return rt.block_on([](long ops) -> task<double> {
    for (int i = 0; i < 100; ++i) co_await spawn_blocking([] {});
    const auto start = steady::now();
    for (long i = 0; i < ops; ++i) co_await spawn_blocking([] {});
    co_return ns_per(start, ops);
  }(ops));
}

double asio_blocking_round_trip_ns(long ops) {
  asio::io_context ctx(1);
  asio::thread_pool pool(4);
  double result = 0;
  asio::co_spawn(
      ctx,
      [&]() -> asio::awaitable<void> {
        auto io = co_await asio::this_coro::executor;
        const auto start = steady::now();
        for (long i = 0; i < ops; ++i) {
          co_await asio::post(pool.get_executor(), asio::use_awaitable);  // now on the pool
          co_await asio::post(io, asio::use_awaitable);                   // and back
        }
        result = ns_per(start, ops);
      },
      asio::detached);
  ctx.run();
  pool.join();
  return result;
}

std::vector<double> lanes_blocking_burst(int jobs) {
  auto rt = runtime::multi_thread().worker_threads(1).build();
  const auto start = steady::now();
  rt.block_on([](int jobs) -> task<void> {
    std::vector<blocking_handle<void>> hs;
    hs.reserve(static_cast<std::size_t>(jobs));
    for (int i = 0; i < jobs; ++i) {
      hs.push_back(spawn_blocking([] { std::this_thread::sleep_for(std::chrono::milliseconds(1)); }));
    }
    for (auto& h : hs) co_await h;
  }(jobs));
  const double ms = std::chrono::duration<double, std::milli>(steady::now() - start).count();
  const auto m = rt.metrics().blocking;
  return {ms, static_cast<double>(m.threads_peak)};
}

}  // namespace

int run_sync(const options& opts) {
  const int handoffs = opts.quick ? 200 : 5'000;
  const long messages = opts.quick ? 20'000 : 1'000'000;
  const long sem_ops = opts.quick ? 20'000 : 1'000'000;
  const long blocking_ops = opts.quick ? 2'000 : 50'000;
  const int burst = opts.quick ? 1'000 : 10'000;
  const unsigned cap = budget::detect().blocking_max.value;

  const int rounds = opts.quick ? 1 : 3;
  // Each figure: the median of `rounds` runs, each in its own process.
  const auto iso = [rounds](auto f) {
    std::vector<double> runs;
    for (int r = 0; r < rounds; ++r) runs.push_back(run_isolated([&] { return std::vector<double>{f()}; })[0]);
    return median(runs);
  };
  const double lh = iso([&] { return lanes_handoff_ns(handoffs); });
  const double ah = iso([&] { return asio_handoff_ns(handoffs); });
  const double lm1 = iso([&] { return lanes_mpsc_msgs_per_s(1, messages); });
  const double am1 = iso([&] { return asio_mpsc_msgs_per_s(1, messages); });
  const double lm4 = iso([&] { return lanes_mpsc_msgs_per_s(4, messages); });
  const double am4 = iso([&] { return asio_mpsc_msgs_per_s(4, messages); });
  const double ls1 = iso([&] { return lanes_semaphore_ns(1, 1, sem_ops); });
  const double as1 = iso([&] { return asio_semaphore_ns(1, 1, sem_ops); });
  const double ls8 = iso([&] { return lanes_semaphore_ns(8, 2, sem_ops); });
  const double as8 = iso([&] { return asio_semaphore_ns(8, 2, sem_ops); });
  const double lb = iso([&] { return lanes_blocking_round_trip_ns(blocking_ops); });
  const double ab = iso([&] { return asio_blocking_round_trip_ns(blocking_ops); });
  const auto burst_result = run_isolated([&] { return lanes_blocking_burst(burst); });

  if (!opts.json) {
    std::printf("sync: lanes against the nearest plain Asio construction, median of %d runs\n", rounds);
    std::printf("  %-44s %12s %12s %8s\n", "", "lanes", "asio", "ratio");
    std::printf("  %-44s %12.0f %12.0f %8.2f\n", "thread -> io task handoff, median ns", lh, ah, lh / ah);
    std::printf("  %-44s %12.0f %12.0f %8.2f\n", "mpsc, 1 producer, msgs/s", lm1, am1, lm1 / am1);
    std::printf("  %-44s %12.0f %12.0f %8.2f\n", "mpsc, 4 producers, msgs/s", lm4, am4, lm4 / am4);
    std::printf("  %-44s %12.1f %12.1f %8.2f\n", "semaphore acquire+release, uncontended, ns", ls1, as1, ls1 / as1);
    std::printf("  %-44s %12.1f %12.1f %8.2f\n", "semaphore, 8 tasks on 2 permits, ns", ls8, as8, ls8 / as8);
    std::printf("  %-44s %12.0f %12.0f %8.2f\n", "blocking round trip from a task, ns", lb, ab, lb / ab);
    std::printf("  burst of %d blocking jobs of 1 ms: %.0f ms, peak %0.f threads (cap %u)\n", burst, burst_result[0],
                burst_result[1], cap);
  }
  tool::json_writer json;
  json.begin_object()
      .field("scenario", "sync")
      .field("runs", static_cast<unsigned>(rounds))
      .field("lanes_handoff_ns", lh)
      .field("asio_handoff_ns", ah)
      .field("lanes_mpsc_1p_msgs_per_s", lm1)
      .field("asio_mpsc_1p_msgs_per_s", am1)
      .field("lanes_mpsc_4p_msgs_per_s", lm4)
      .field("asio_mpsc_4p_msgs_per_s", am4)
      .field("lanes_semaphore_uncontended_ns_per_op", ls1)
      .field("asio_semaphore_uncontended_ns_per_op", as1)
      .field("lanes_semaphore_contended_ns_per_op", ls8)
      .field("asio_semaphore_contended_ns_per_op", as8)
      .field("lanes_blocking_round_trip_ns", lb)
      .field("asio_blocking_round_trip_ns", ab)
      .field("blocking_burst_jobs", static_cast<unsigned>(burst))
      .field("blocking_burst_ms", burst_result[0])
      .field("blocking_burst_peak_threads", burst_result[1])
      .field("blocking_cap", cap)
      .end_object();
  std::cout << json.str() << std::endl;
  return burst_result[1] <= cap ? 0 : 1;
}

}  // namespace lanes::bench
