// S4 (io part): the cost of spawning and awaiting a trivial task from inside
// a task, one at a time (1,000,000) and as a batch (100,000 spawned, then
// all awaited); and of creating and joining a std::thread. Peer:
// asio::co_spawn(..., use_awaitable) on the same number of threads; and,
// where it was built, tokio::spawn on as many workers (bench/peers/tokio).
// The compute join and the offload round trip join S4 with their lanes.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <iostream>
#include <stdexcept>
#include <thread>
#include <vector>

#include <lanes/bridge/offload.hpp>
#include <lanes/budget.hpp>
#include <lanes/compute/pool.hpp>
#include <lanes/io/runtime.hpp>

#include "asio_peer.hpp"
#include "json_writer.hpp"
#include "offload_peer.hpp"
#include "rust_peer.hpp"
#include "s9_peers.hpp"
#include "scenario.hpp"

namespace lanes::bench {

namespace {

using steady = std::chrono::steady_clock;

double ns_since(steady::time_point start, int ops) {
  return std::chrono::duration<double, std::nano>(steady::now() - start).count() / ops;
}

task<int> trivial() { co_return 1; }

std::vector<double> lanes_side(int sequential, int batch, unsigned workers, int offloads) {
  auto rt = runtime::multi_thread().worker_threads(workers).build();
  auto pool = compute::pool::builder().build();
  return rt.block_on([](int seq_ops, int batch_ops, compute::pool& pool, int offload_ops) -> task<std::vector<double>> {
    long sum = 0;
    for (int i = 0; i < 1000; ++i) sum += co_await spawn(trivial());  // warm up
    auto start = steady::now();
    for (int i = 0; i < seq_ops; ++i) sum += co_await spawn(trivial());
    const double one_at_a_time = ns_since(start, seq_ops);
    start = steady::now();
    std::vector<join_handle<int>> handles;
    handles.reserve(static_cast<std::size_t>(batch_ops));
    for (int i = 0; i < batch_ops; ++i) handles.push_back(spawn(trivial()));
    for (auto& h : handles) sum += co_await h;
    const double batched = ns_since(start, batch_ops);
    if (sum != 1000 + seq_ops + batch_ops) throw std::logic_error("lost a task");
    // The offload round trip io -> compute -> io, one at a time.
    for (int i = 0; i < 1000; ++i) sum += co_await offload(pool, [] { return 1; });
    start = steady::now();
    for (int i = 0; i < offload_ops; ++i) sum += co_await offload(pool, [] { return 1; });
    const double offloaded = ns_since(start, offload_ops);
    co_return std::vector<double>{one_at_a_time, batched, offloaded};
  }(sequential, batch, pool, offloads));
}

asio::awaitable<int> asio_trivial() { co_return 1; }

std::vector<double> asio_side(int sequential, int batch, unsigned threads) {
  return run_on_asio(threads, [&]() -> asio::awaitable<std::vector<double>> {
    auto ex = co_await asio::this_coro::executor;
    long sum = 0;
    for (int i = 0; i < 1000; ++i) sum += co_await asio::co_spawn(ex, asio_trivial(), asio::use_awaitable);
    auto start = steady::now();
    for (int i = 0; i < sequential; ++i) sum += co_await asio::co_spawn(ex, asio_trivial(), asio::use_awaitable);
    const double one_at_a_time = ns_since(start, sequential);
    // Batch: the plain Asio way without parallel_group (not in Boost 1.74):
    // detached coroutines counting down, the last one posting completion.
    start = steady::now();
    std::atomic<int> remaining{batch};
    asio::steady_timer all_done(ex, steady::time_point::max());
    for (int i = 0; i < batch; ++i) {
      asio::co_spawn(ex, asio_trivial(), [&](std::exception_ptr, int) {
        if (remaining.fetch_sub(1) == 1) all_done.cancel();
      });
    }
    try {
      co_await all_done.async_wait(asio::use_awaitable);
    } catch (const boost::system::system_error&) {
    }
    const double batched = ns_since(start, batch);
    if (sum != 1000 + sequential) throw std::logic_error("asio lost a task");
    co_return std::vector<double>{one_at_a_time, batched};
  });
}

double thread_create_join_ns(int n) {
  const auto start = steady::now();
  for (int i = 0; i < n; ++i) std::thread([] {}).join();
  return ns_since(start, n);
}

}  // namespace

int run_s4(const options& opts) {
  const int sequential = opts.quick ? 20'000 : 1'000'000;
  const int batch = opts.quick ? 10'000 : 100'000;
  const int rounds = opts.quick ? 1 : 3;
  const int offloads = opts.quick ? 2'000 : 50'000;
  const unsigned workers = budget::detect().io_threads.value;
  const unsigned compute_threads = budget::detect().compute_threads.value;
  std::vector<double> l_seq, l_batch, a_seq, a_batch, threads, l_off, p_off, t_seq, t_batch;
  rust_peer_side tokio(rust_peer::tokio);
  for (int r = 0; r < rounds; ++r) {
    const auto l = run_isolated([&] { return lanes_side(sequential, batch, workers, offloads); });
    const auto a = run_isolated([&] { return asio_side(sequential, batch, workers); });
    if (const auto t =
            tokio.run({"s4", std::to_string(workers), std::to_string(sequential), std::to_string(batch)}, 2)) {
      t_seq.push_back((*t)[0]);
      t_batch.push_back((*t)[1]);
    }
    p_off.push_back(
        run_isolated([&] { return std::vector<double>{asio_tbb_offload_ns(offloads, compute_threads)}; })[0]);
    l_seq.push_back(l[0]);
    l_batch.push_back(l[1]);
    l_off.push_back(l[2]);
    a_seq.push_back(a[0]);
    a_batch.push_back(a[1]);
    threads.push_back(thread_create_join_ns(opts.quick ? 200 : 2000));
  }
  const double ls = median(l_seq), lb = median(l_batch), as = median(a_seq), ab = median(a_batch);
  const double th = median(threads);
  const double lo = median(l_off), po = median(p_off);
  const double ts = median(t_seq), tb = median(t_batch);
  if (!opts.json) {
    std::printf("S4: spawn + await of a trivial task from inside a task, %u io thread(s), median of %d runs\n", workers,
                rounds);
    std::printf("  %-34s %10s %10s %8s\n", "", "lanes ns", "asio ns", "ratio");
    std::printf("  %-34s %10.1f %10.1f %8.2f\n", "one at a time (spawn, await)", ls, as, ls / as);
    std::printf("  %-34s %10.1f %10.1f %8.2f\n", "batch (spawn all, then await all)", lb, ab, lb / ab);
    if (tokio.present()) {
      const std::string peer = tokio.title() + " ns";
      std::printf("  %-34s %10s %10s %8s\n", "", "lanes ns", peer.c_str(), "ratio");
      std::printf("  %-34s %10.1f %10.1f %8.2f\n", "one at a time (spawn, await)", ls, ts, ls / ts);
      std::printf("  %-34s %10.1f %10.1f %8.2f\n", "batch (spawn all, then await all)", lb, tb, lb / tb);
    }
    std::printf("  %-34s %10.1f\n", "std::thread create + join", th);
    std::printf("  %-34s %10.1f %10.1f %8.2f  (peer: Asio + oneTBB arena)\n", "offload round trip io->compute->io", lo,
                po, lo / po);
  }
  tool::json_writer json;
  json.begin_object()
      .field("scenario", "S4")
      .field("io_threads", workers)
      .field("runs", static_cast<unsigned>(rounds))
      .field("lanes_spawn_await_ns_per_op", ls)
      .field("asio_spawn_await_ns_per_op", as)
      .field("spawn_await_ratio_lanes_over_asio", ls / as)
      .field("lanes_batch_ns_per_op", lb)
      .field("asio_batch_ns_per_op", ab)
      .field("batch_ratio_lanes_over_asio", lb / ab);
  if (tokio.present()) {
    json.field("tokio", tokio.title())
        .field("tokio_spawn_await_ns_per_op", ts)
        .field("spawn_await_ratio_lanes_over_tokio", ls / ts)
        .field("tokio_batch_ns_per_op", tb)
        .field("batch_ratio_lanes_over_tokio", lb / tb);
  } else {
    json.null_field("tokio_spawn_await_ns_per_op");
  }
  json.field("thread_create_join_ns_per_op", th).field("lanes_offload_round_trip_ns", lo);
  json.field("asio_tbb_offload_round_trip_ns", po).field("offload_ratio_lanes_over_asio_tbb", lo / po);
  json.end_object();
  std::cout << json.str() << std::endl;
  return 0;
}

}  // namespace lanes::bench
