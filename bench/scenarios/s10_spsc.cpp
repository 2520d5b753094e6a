// S10: SPSC throughput - 100,000,000 u64 from one producer thread to one
// consumer thread (each pinned to its own CPU when the mask has two)
// through a ring of capacity 4096, against boost::lockfree::spsc_queue and
// moodycamel::ReaderWriterQueue in the same run. Per item (try_push /
// try_pop against push / pop and try_enqueue / try_dequeue) and in batches
// (write+commit / read+consume against boost's array push / pop).
// Also the round trip: ping-pong of one u64 through two rings, against
// boost::lockfree. Spinning on both sides; the consumer checks every value.
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <iostream>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <boost/lockfree/spsc_queue.hpp>
#include <lanes/detail/cpu_relax.hpp>
#include <lanes/detail/sanitizers.hpp>
#include <lanes/react/spsc_ring.hpp>

#include "json_writer.hpp"
#include "scenario.hpp"
#include "spsc_bench_support.hpp"

namespace lanes::bench {

namespace {

constexpr bool sanitized = LANES_TSAN || LANES_ASAN;

constexpr std::size_t capacity = 4096;
constexpr std::size_t batch = 256;

// Runs produce() and consume() on two pinned threads, both warmed up;
// messages per second from the producer's first item to the consumer's last.
double messages_per_second(std::uint64_t n, const std::function<void()>& produce,
                           const std::function<bool()>& consume) {
  bool ok = false;
  std::atomic<int> arrived{0};
  std::chrono::steady_clock::time_point start, end;
  std::thread consumer([&] {
    pin_to_nth_cpu(1);
    warm_up_and_meet(arrived);
    ok = consume();
    end = std::chrono::steady_clock::now();
  });
  std::thread producer([&] {
    pin_to_nth_cpu(0);
    warm_up_and_meet(arrived);
    start = std::chrono::steady_clock::now();
    produce();
  });
  producer.join();
  consumer.join();
  const double seconds = std::chrono::duration<double>(end - start).count();
  if (!ok) {
    std::fprintf(stderr, "S10: a consumer saw a wrong value\n");
    return 0;
  }
  return static_cast<double>(n) / seconds;
}

double lanes_per_item(std::uint64_t n) {
  auto ring = react::spsc_ring<std::uint64_t>::make(capacity);
  return messages_per_second(
      n,
      [&] {
        for (std::uint64_t i = 0; i < n; ++i)
          while (!ring.producer.try_push(i)) lanes::detail::cpu_relax();
      },
      [&] {
        for (std::uint64_t i = 0; i < n; ++i) {
          std::uint64_t* v;
          while ((v = ring.consumer.front()) == nullptr) lanes::detail::cpu_relax();
          if (*v != i) return false;
          ring.consumer.pop_front();
        }
        return true;
      });
}

// The consumer of both batched modes: reads 0..n-1 in chunks of up to a
// batch, checking each value.
bool read_batches(react::ring_consumer<std::uint64_t>& rx, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n;) {
    const auto chunk = rx.read(batch);
    if (chunk.size() == 0) {
      lanes::detail::cpu_relax();
      continue;
    }
    if (!is_sequence(chunk.first, i) || !is_sequence(chunk.second, i + chunk.first.size())) return false;
    i += chunk.size();
    rx.consume(chunk.size());
  }
  return true;
}

double lanes_batched(std::uint64_t n) {
  auto ring = react::spsc_ring<std::uint64_t>::make(capacity);
  return messages_per_second(
      n,
      [&] {
        for (std::uint64_t i = 0; i < n;) {
          const auto chunk = ring.producer.write(std::min<std::uint64_t>(batch, n - i));
          if (chunk.size() == 0) {
            lanes::detail::cpu_relax();
            continue;
          }
          for (auto& slot : chunk.first) slot = i++;
          for (auto& slot : chunk.second) slot = i++;
          ring.producer.commit(chunk.size());
        }
      },
      [&] { return read_batches(ring.consumer, n); });
}

// The batched loop with the producer's stores streaming (non-temporal):
// across cores the producer no longer fetches each slot's line back from
// the consumer before writing it.
double lanes_streaming(std::uint64_t n) {
  auto ring = react::spsc_ring<std::uint64_t>::make(capacity);
  return messages_per_second(
      n,
      [&] {
        for (std::uint64_t i = 0; i < n;) {
          const std::size_t made = ring.producer.generate_streaming(
              static_cast<std::size_t>(std::min<std::uint64_t>(batch, n - i)), [i](std::size_t k) { return i + k; });
          if (made == 0) lanes::detail::cpu_relax();
          i += made;
        }
      },
      [&] { return read_batches(ring.consumer, n); });
}

using boost_queue = boost::lockfree::spsc_queue<std::uint64_t, boost::lockfree::capacity<capacity>>;

double boost_per_item(std::uint64_t n) {
  auto q = std::make_unique<boost_queue>();
  return messages_per_second(
      n,
      [&] {
        for (std::uint64_t i = 0; i < n; ++i)
          while (!q->push(i)) lanes::detail::cpu_relax();
      },
      [&] {
        for (std::uint64_t i = 0; i < n; ++i) {
          std::uint64_t v;
          while (!q->pop(v)) lanes::detail::cpu_relax();
          if (v != i) return false;
        }
        return true;
      });
}

double boost_batched(std::uint64_t n) {
  auto q = std::make_unique<boost_queue>();
  return messages_per_second(
      n,
      [&] {
        std::vector<std::uint64_t> buffer(batch);
        for (std::uint64_t i = 0; i < n;) {
          const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(batch, n - i));
          for (std::size_t k = 0; k < want; ++k) buffer[k] = i + k;
          std::size_t sent = 0;
          while (sent < want) {
            const std::size_t pushed = q->push(buffer.data() + sent, want - sent);
            if (pushed == 0) lanes::detail::cpu_relax();
            sent += pushed;
          }
          i += want;
        }
      },
      [&] {
        std::vector<std::uint64_t> buffer(batch);
        for (std::uint64_t i = 0; i < n;) {
          const std::size_t got = q->pop(buffer.data(), batch);
          if (got == 0) {
            lanes::detail::cpu_relax();
            continue;
          }
          if (!is_sequence(std::span(buffer.data(), got), i)) return false;
          i += got;
        }
        return true;
      });
}

double moodycamel_per_item(std::uint64_t n) {
#if LANES_HAVE_MOODYCAMEL
  moodycamel::ReaderWriterQueue<std::uint64_t> q(capacity);
  return messages_per_second(
      n,
      [&] {
        for (std::uint64_t i = 0; i < n; ++i)
          while (!q.try_enqueue(i)) lanes::detail::cpu_relax();
      },
      [&] {
        for (std::uint64_t i = 0; i < n; ++i) {
          std::uint64_t v;
          while (!q.try_dequeue(v)) lanes::detail::cpu_relax();
          if (v != i) return false;
        }
        return true;
      });
#else
  (void)n;
  return 0;
#endif
}

double lanes_round_trip(std::uint64_t trips) {
  auto ab = react::spsc_ring<std::uint64_t>::make(capacity);
  auto ba = react::spsc_ring<std::uint64_t>::make(capacity);
  auto send = [](react::ring_producer<std::uint64_t>& tx) {
    return [&tx](std::uint64_t v) {
      while (!tx.try_push(v)) lanes::detail::cpu_relax();
    };
  };
  auto receive = [](react::ring_consumer<std::uint64_t>& rx) {
    return [&rx]() {
      std::uint64_t* v;
      while ((v = rx.front()) == nullptr) lanes::detail::cpu_relax();
      const std::uint64_t out = *v;
      rx.pop_front();
      return out;
    };
  };
  return round_trip_ns(trips, send(ab.producer), receive(ab.consumer), send(ba.producer), receive(ba.consumer));
}

double boost_round_trip(std::uint64_t trips) {
  auto ab = std::make_unique<boost_queue>();
  auto ba = std::make_unique<boost_queue>();
  auto send = [](boost_queue& q) {
    return [&q](std::uint64_t v) {
      while (!q.push(v)) lanes::detail::cpu_relax();
    };
  };
  auto receive = [](boost_queue& q) {
    return [&q]() {
      std::uint64_t v;
      while (!q.pop(v)) lanes::detail::cpu_relax();
      return v;
    };
  };
  return round_trip_ns(trips, send(*ab), receive(*ab), send(*ba), receive(*ba));
}

double median_of(int runs, const std::function<double()>& f) {
  std::vector<double> v;
  for (int r = 0; r < runs; ++r) v.push_back(f());
  return median(v);
}

}  // namespace

int run_s10(const options& opts) {
  // Under a sanitizer (CI runs every scenario's quick form there) it only
  // has to run end to end.
  const std::uint64_t n = opts.quick ? (sanitized ? 100'000 : 5'000'000) : 100'000'000;
  const std::uint64_t trips = opts.quick ? (sanitized ? 5'000 : 100'000) : 1'000'000;
  const int runs = opts.quick ? 1 : 3;
  // Throughput: the median of `runs` runs of each, interleaved so that a
  // noisy neighbour hurts every contender alike.
  std::vector<double> lp, lb, ls, bp, bb, mp;
  for (int r = 0; r < runs; ++r) {
    lp.push_back(lanes_per_item(n));
    bp.push_back(boost_per_item(n));
    mp.push_back(moodycamel_per_item(n));
    lb.push_back(lanes_batched(n));
    ls.push_back(lanes_streaming(n));
    bb.push_back(boost_batched(n));
  }
  const double l_item = median(lp), l_batch = median(lb), l_stream = median(ls), b_item = median(bp),
               b_batch = median(bb), m_item = median(mp);
  const double best_peer_item = std::max(b_item, m_item);
  const double best_peer = std::max(best_peer_item, b_batch);
  const double best_lanes = std::max({l_item, l_batch, l_stream});
  const double l_rt = median_of(runs, [&] { return lanes_round_trip(trips); });
  const double b_rt = median_of(runs, [&] { return boost_round_trip(trips); });
  // Not on a one-CPU mask: each trip there would wait out a time slice.
  const double line_rt = two_cpus() ? median_of(runs, [&] { return cache_line_round_trip_ns(trips); }) : 0;
  if (!opts.json) {
    std::printf("S10: %llu u64 through a ring of %zu, producer and consumer on %s, median of %d runs\n",
                static_cast<unsigned long long>(n), capacity, two_cpus() ? "two pinned CPUs" : "one CPU (mask has one)",
                runs);
    std::printf("  %-44s %12s %10s\n", "", "M msgs/s", "vs lanes");
    std::printf("  %-44s %12.1f %10s\n", "lanes spsc_ring, per item (try_push/front)", l_item / 1e6, "");
    std::printf("  %-44s %12.1f %10.2f\n", "boost::lockfree::spsc_queue, per item", b_item / 1e6, l_item / b_item);
    if (LANES_HAVE_MOODYCAMEL) {
      std::printf("  %-44s %12.1f %10.2f\n", "moodycamel::ReaderWriterQueue, per item", m_item / 1e6, l_item / m_item);
    } else {
      std::printf("  %-44s %12s  (install libreaderwriterqueue-dev)\n", "moodycamel::ReaderWriterQueue", "-");
    }
    std::printf("  %-44s %12.1f %10s\n", "lanes spsc_ring, batches of 256 (write/read)", l_batch / 1e6, "");
    std::printf("  %-44s %12.1f %10s\n", "lanes, batches of 256, streaming stores", l_stream / 1e6, "");
    std::printf("  %-44s %12.1f %10.2f\n", "boost::lockfree::spsc_queue, batches of 256", b_batch / 1e6,
                std::max(l_batch, l_stream) / b_batch);
    std::printf("  best lanes / best peer: %.2fx (target >= 2x)\n", best_lanes / best_peer);
    std::printf("  round trip (ping-pong through two rings): lanes %.0f ns, boost %.0f ns, ratio %.2f\n", l_rt, b_rt,
                l_rt / b_rt);
    if (two_cpus())
      std::printf("  round trip of one bare cache line between the two CPUs (the floor): %.0f ns\n", line_rt);
  }
  tool::json_writer json;
  json.begin_object()
      .field("scenario", "S10")
      .field("messages", n)
      .field("runs", static_cast<unsigned>(runs))
      .field("lanes_per_item_msgs_per_s", l_item)
      .field("boost_per_item_msgs_per_s", b_item)
      .field("lanes_batched_msgs_per_s", l_batch)
      .field("lanes_streaming_msgs_per_s", l_stream)
      .field("boost_batched_msgs_per_s", b_batch);
  if (LANES_HAVE_MOODYCAMEL) {
    json.field("moodycamel_per_item_msgs_per_s", m_item);
  } else {
    json.null_field("moodycamel_per_item_msgs_per_s");
  }
  json.field("per_item_ratio_lanes_over_best_peer", l_item / best_peer_item)
      .field("best_ratio_lanes_over_best_peer", best_lanes / best_peer)
      .field("lanes_round_trip_ns", l_rt)
      .field("boost_round_trip_ns", b_rt)
      .field("round_trip_ratio_lanes_over_boost", l_rt / b_rt);
  if (two_cpus()) {
    json.field("cache_line_round_trip_ns", line_rt);
  } else {
    json.null_field("cache_line_round_trip_ns");
  }
  json.end_object();
  std::cout << json.str() << std::endl;
  return 0;
}

}  // namespace lanes::bench
