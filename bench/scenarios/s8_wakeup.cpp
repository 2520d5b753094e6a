// S8: one-way wake-up latency. One message at a time, ~100 us of idle
// between messages (the consumer has gone quiet: parked, or spinning), the
// sender timestamps just before sending and the consumer just after it
// has the message; both read steady_clock. p50 / p99 / p99.9 / max for:
//   - a thread parked on a condition variable;
//   - a thread in std::atomic::wait;
//   - an io task woken through a lanes channel (mpsc, try_send from a thread);
//   - a react thread on the ring: busy_spin, and spin_then_park (which has
//     parked by the time the message comes: the futex path);
//   - spinning consumers on boost::lockfree::spsc_queue and moodycamel.
// The spinning consumers are measured twice: with the sender sleeping
// through the idle, and with it spinning (see sender_idle).
// Sender and consumer sit on different CPUs when the mask has two. Then the
// run also measures the floor: half the round trip of one bare cache line
// between those CPUs. No consumer that spins on memory sees a message
// sooner; what a row has above it is its own cost (and the clock reads).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <boost/lockfree/spsc_queue.hpp>
#include <lanes/detail/cpu_relax.hpp>
#include <lanes/detail/sanitizers.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/react/react_thread.hpp>
#include <lanes/sync/mpsc.hpp>

#include "json_writer.hpp"
#include "scenario.hpp"
#include "spsc_bench_support.hpp"

namespace lanes::bench {

namespace {

constexpr bool sanitized = LANES_TSAN || LANES_ASAN;

std::int64_t now_ns() noexcept {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct percentiles {
  double p50 = 0, p99 = 0, p999 = 0, max = 0;
};

percentiles summarize(std::vector<std::int64_t> samples) {
  percentiles p;
  if (samples.empty()) return p;
  std::sort(samples.begin(), samples.end());
  const auto at = [&](double q) {
    return static_cast<double>(
        samples[std::min(samples.size() - 1, static_cast<std::size_t>(q * static_cast<double>(samples.size())))]);
  };
  p.p50 = at(0.50);
  p.p99 = at(0.99);
  p.p999 = at(0.999);
  p.max = static_cast<double>(samples.back());
  return p;
}

// How the sender spends the ~100 us between messages. The consumer sees
// the same quiet either way; what differs is the state the sender sends
// from. Back from nanosleep, it sends with what the kernel's sleep path
// and whatever ran meanwhile left of its caches, which adds to the p50 of
// the spinning rows (docs/benchmarks.md, S8). A sender that spins through the idle is the react
// lane's own case (a feed handler polling its NIC), so the spinning rows
// are measured both ways; the parking rows only with the sleeping sender.
enum class sender_idle { sleeps, spins };

// The shared shape: `send(t0)` hands over a timestamp; the consumer, once
// it has the message, stores now - t0 in samples[i] and bumps `done`. The
// sender waits for `done` before the next idle spell, so there is one
// message in flight at a time.
struct harness {
  explicit harness(int n, sender_idle idle = sender_idle::sleeps) : samples(static_cast<std::size_t>(n)), idle(idle) {}
  std::vector<std::int64_t> samples;
  std::atomic<int> done{0};
  sender_idle idle;
  void record(std::int64_t sent) noexcept {
    const int i = done.load(std::memory_order_relaxed);
    samples[static_cast<std::size_t>(i)] = now_ns() - sent;
    done.store(i + 1, std::memory_order_release);
  }
  void drive(int n, const std::function<void(std::int64_t)>& send) {
    pin_to_nth_cpu(0);
    for (int i = 0; i < n; ++i) {
      if (idle == sender_idle::sleeps) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      } else {
        spin_for(std::chrono::microseconds(100));
      }
      send(now_ns());
      while (done.load(std::memory_order_acquire) != i + 1) lanes::detail::cpu_relax();
    }
    unpin();
  }
};

percentiles condition_variable_latency(int n) {
  harness h(n);
  std::mutex m;
  std::condition_variable cv;
  std::int64_t slot = -1;
  bool stop = false;
  std::thread consumer([&] {
    pin_to_nth_cpu(1);
    std::unique_lock lock(m);
    for (;;) {
      cv.wait(lock, [&] { return slot >= 0 || stop; });
      if (stop) return;
      h.record(slot);
      slot = -1;
    }
  });
  h.drive(n, [&](std::int64_t t) {
    {
      std::lock_guard lock(m);
      slot = t;
    }
    cv.notify_one();
  });
  {
    std::lock_guard lock(m);
    stop = true;
  }
  cv.notify_one();
  consumer.join();
  return summarize(std::move(h.samples));
}

percentiles atomic_wait_latency(int n) {
  harness h(n);
  std::atomic<std::int64_t> slot{-1};
  std::thread consumer([&] {
    pin_to_nth_cpu(1);
    for (int i = 0; i < n; ++i) {
      slot.wait(-1, std::memory_order_acquire);
      const std::int64_t t = slot.exchange(-1, std::memory_order_acq_rel);
      h.record(t);
    }
  });
  h.drive(n, [&](std::int64_t t) {
    slot.store(t, std::memory_order_release);
    slot.notify_one();
  });
  consumer.join();
  return summarize(std::move(h.samples));
}

percentiles io_task_latency(int n) {
  harness h(n);
  auto rt = runtime::multi_thread().worker_threads(1).build();
  auto channel = mpsc_bounded<std::int64_t>(16);  // not a structured binding: clang 14 cannot capture those
  auto& tx = channel.first;
  auto consumer = rt.spawn([](mpsc_receiver<std::int64_t> rx, harness& h) -> task<void> {
    while (auto t = co_await rx.recv()) h.record(*t);
  }(std::move(channel.second), h));
  h.drive(n, [&](std::int64_t t) { (void)tx.try_send(t); });
  { auto gone = std::move(tx); }
  rt.block_on([](join_handle<void>& c) -> task<void> { co_await c; }(consumer));
  return summarize(std::move(h.samples));
}

template <class Strategy>
percentiles react_latency(int n, sender_idle idle, Strategy strategy, react::ring_options options) {
  harness h(n, idle);
  auto ring = react::spsc_ring<std::int64_t>::make(1024, options);
  auto builder = react::react_thread::builder();
  // Its own core when one can be spared (the sender keeps the other);
  // unpinned on a one-CPU mask.
  if (two_cpus()) {
    builder.allow_last_cpu();
  } else {
    builder.unpinned();
  }
  auto thread = builder.wait(strategy).input(std::move(ring.consumer), [&h](std::int64_t& t) { h.record(t); }).start();
  h.drive(n, [&](std::int64_t t) {
    while (!ring.producer.try_push(t)) lanes::detail::cpu_relax();
  });
  thread.stop();
  thread.join();
  return summarize(std::move(h.samples));
}

template <class TryPop>
percentiles spinning_peer_latency(int n, sender_idle idle, const std::function<void(std::int64_t)>& push,
                                  TryPop try_pop) {
  harness h(n, idle);
  std::thread consumer([&] {
    pin_to_nth_cpu(1);
    for (int i = 0; i < n; ++i) {
      std::int64_t t;
      while (!try_pop(t)) lanes::detail::cpu_relax();
      h.record(t);
    }
  });
  h.drive(n, push);
  consumer.join();
  return summarize(std::move(h.samples));
}

percentiles boost_latency(int n, sender_idle idle) {
  auto q = std::make_unique<boost::lockfree::spsc_queue<std::int64_t, boost::lockfree::capacity<1024>>>();
  return spinning_peer_latency(
      n, idle,
      [&](std::int64_t t) {
        while (!q->push(t)) lanes::detail::cpu_relax();
      },
      [&](std::int64_t& t) { return q->pop(t); });
}

percentiles moodycamel_latency(int n, sender_idle idle) {
#if LANES_HAVE_MOODYCAMEL
  moodycamel::ReaderWriterQueue<std::int64_t> q(1024);
  return spinning_peer_latency(
      n, idle,
      [&](std::int64_t t) {
        while (!q.try_enqueue(t)) lanes::detail::cpu_relax();
      },
      [&](std::int64_t& t) { return q.try_dequeue(t); });
#else
  (void)n;
  (void)idle;
  return {};
#endif
}

struct row {
  const char* key;
  const char* label;
  percentiles p;
};

// The consumers that spin on memory, measured with one way of idling the
// sender. rows[0] is react's, then the peers.
std::vector<row> spinning_rows(int n, sender_idle idle) {
  std::vector<row> rows;
  rows.push_back({"react_busy_spin", "react thread, busy_spin, on the ring",
                  react_latency(n, idle, react::busy_spin{}, react::ring_options{})});
  rows.push_back({"boost_spinning", "boost::lockfree::spsc_queue, spinning thread", boost_latency(n, idle)});
  if (LANES_HAVE_MOODYCAMEL)
    rows.push_back({"moodycamel_spinning", "moodycamel::ReaderWriterQueue, spinning", moodycamel_latency(n, idle)});
  return rows;
}

// React's busy_spin p50 over the best spinning peer's, from spinning_rows.
double react_over_best_peer(std::span<const row> spinning) {
  double best_peer = spinning[1].p.p50;
  if (LANES_HAVE_MOODYCAMEL) best_peer = std::min(best_peer, spinning[2].p.p50);
  return spinning[0].p.p50 / best_peer;
}

void print_rows(const std::vector<row>& rows) {
  for (const auto& r : rows)
    std::printf("  %-46s %9.0f %9.0f %9.0f %10.0f\n", r.label, r.p.p50, r.p.p99, r.p.p999, r.p.max);
}

void print_ratio(double ratio) {
  std::printf("  react busy_spin p50 / best spinning peer p50: %.2f (target: react p50 < 200 ns)\n", ratio);
}

void json_rows(tool::json_writer& json, const std::vector<row>& rows) {
  for (const auto& r : rows) {
    json.begin_object(r.key)
        .field("p50_ns", r.p.p50)
        .field("p99_ns", r.p.p99)
        .field("p999_ns", r.p.p999)
        .field("max_ns", r.p.max)
        .end_object();
  }
}

}  // namespace

int run_s8(const options& opts) {
  const int n = opts.quick ? (sanitized ? 200 : 2'000) : 20'000;  // sanitizers: end to end only
  std::vector<row> rows = spinning_rows(n, sender_idle::sleeps);
  rows.push_back({"react_spin_then_park", "react thread, spin_then_park(50us) (parked)",
                  react_latency(n, sender_idle::sleeps, react::spin_then_park(std::chrono::microseconds(50)),
                                react::ring_options{.consumer_may_park = true})});
  rows.push_back({"atomic_wait", "thread in std::atomic::wait", atomic_wait_latency(n)});
  rows.push_back({"condition_variable", "thread on a condition variable", condition_variable_latency(n)});
  rows.push_back({"io_task_mpsc", "io task woken through lanes mpsc", io_task_latency(n)});
  const std::vector<row> hot = spinning_rows(n, sender_idle::spins);
  const std::size_t spinning_count = hot.size();
  const double sleeping_ratio = react_over_best_peer(std::span<const row>(rows.data(), spinning_count));
  const double hot_ratio = react_over_best_peer(hot);

  // The median of three runs of 100,000 trips (a few tens of ms each).
  const auto one_way = [] { return cache_line_round_trip_ns(sanitized ? 10'000 : 100'000) / 2; };
  const double floor_ns = two_cpus() ? median({one_way(), one_way(), one_way()}) : 0;
  if (!opts.json) {
    std::printf("S8: one-way wake-up latency, %d messages, ~100 us idle between them, %s\n", n,
                two_cpus() ? "sender and consumer on different CPUs" : "one CPU");
    std::printf("  the sender sleeps through the idle (nanosleep)\n");
    std::printf("  %-46s %9s %9s %9s %10s\n", "", "p50 ns", "p99 ns", "p99.9 ns", "max ns");
    print_rows(rows);
    print_ratio(sleeping_ratio);
    std::printf("  the spinning consumers again, the sender spinning through the idle (a hot sender)\n");
    print_rows(hot);
    print_ratio(hot_ratio);
    if (two_cpus()) {
      std::printf("  floor: one cache line from one CPU to the other, half a ping-pong round trip: %.0f ns\n",
                  floor_ns);
      std::printf("  react busy_spin p50 above the floor: %.0f ns (sleeping sender), %.0f ns (hot sender)\n",
                  rows[0].p.p50 - floor_ns, hot[0].p.p50 - floor_ns);
    }
  }
  tool::json_writer json;
  json.begin_object().field("scenario", "S8").field("messages", static_cast<unsigned>(n));
  json_rows(json, rows);
  json.field("react_p50_ratio_over_best_spinning_peer", sleeping_ratio);
  json.begin_object("hot_sender");
  json_rows(json, hot);
  json.field("react_p50_ratio_over_best_spinning_peer", hot_ratio);
  json.end_object();
  if (two_cpus()) {
    json.field("cache_line_one_way_ns", floor_ns);
  } else {
    json.null_field("cache_line_one_way_ns");
  }
  json.end_object();
  std::cout << json.str() << std::endl;
  return 0;
}

}  // namespace lanes::bench
