// spsc_ring across two threads, fuzzed: random batch sizes and random mixes
// of single, batched and chunked pushes and pops, with payloads that own
// memory and count their destructions. Every item must arrive once, in
// order, and every item constructed must be destroyed once. A second test
// does the same with both sides parking on futexes instead of spinning, to
// prove no wake-up is lost.
#include <lanes/detail/event_count.hpp>
#include <lanes/react/detail/ring_wake_slot.hpp>
#include <lanes/react/spsc_ring.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <random>
#include <thread>
#include <vector>

namespace {

using lanes::react::ring_options;
using lanes::react::spsc_ring;

struct payload {
  static inline std::atomic<long> live{0};
  std::unique_ptr<std::uint64_t> value;
  explicit payload(std::uint64_t v) : value(std::make_unique<std::uint64_t>(v)) { ++live; }
  payload(payload&& other) noexcept : value(std::move(other.value)) { ++live; }
  payload& operator=(payload&& other) noexcept = default;
  ~payload() { --live; }
};

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
constexpr std::uint64_t items_per_run = 60'000;
#else
constexpr std::uint64_t items_per_run = 400'000;
#endif

// Pushes 0..n-1 with random techniques; `wait()` runs when the ring is full.
template <class Wait>
void produce(lanes::react::ring_producer<payload>& tx, std::uint64_t n, unsigned seed, Wait&& wait) {
  std::mt19937 rng(seed);
  std::uint64_t next = 0;
  std::vector<payload> batch;
  while (next < n) {
    const auto how = rng() % 3;
    const std::uint64_t want = std::min<std::uint64_t>(n - next, 1 + rng() % 37);
    std::size_t pushed = 0;
    if (how == 0) {
      pushed = tx.try_emplace(next) ? 1 : 0;
    } else {
      batch.clear();
      for (std::uint64_t i = 0; i < want; ++i) batch.emplace_back(next + i);
      pushed = tx.push_n(std::make_move_iterator(batch.begin()), batch.size());
    }
    next += pushed;
    if (pushed == 0) wait();
  }
}

// Pops n items with random techniques, checking order.
template <class Wait>
void consume(lanes::react::ring_consumer<payload>& rx, std::uint64_t n, unsigned seed, Wait&& wait,
             std::uint64_t& wrong) {
  std::mt19937 rng(seed);
  std::uint64_t expect = 0;
  std::vector<payload> out;
  while (expect < n) {
    const auto how = rng() % 4;
    std::size_t got = 0;
    if (how == 0) {
      if (auto p = rx.try_pop()) {
        if (*p->value != expect + got) ++wrong;
        got = 1;
      }
    } else if (how == 1) {
      auto chunk = rx.read(1 + rng() % 41);
      const std::size_t take = chunk.size() == 0 ? 0 : 1 + rng() % chunk.size();
      for (std::size_t i = 0; i < take; ++i)
        if (*chunk[i].value != expect + i) ++wrong;
      rx.consume(take);
      got = take;
    } else if (how == 2) {
      if (payload* front = rx.front()) {
        if (*front->value != expect) ++wrong;
        rx.pop_front();
        got = 1;
      }
    } else {
      out.clear();
      got = rx.pop_n(std::back_inserter(out), 1 + rng() % 53);
      for (std::size_t i = 0; i < got; ++i)
        if (*out[i].value != expect + i) ++wrong;
    }
    expect += got;
    if (got == 0) wait();
  }
}

TEST(SpscRingStress, SpinningSidesSeeEveryItemOnceInOrder) {
  for (unsigned run = 0; run < 6; ++run) {
    payload::live = 0;
    std::uint64_t wrong = 0;
    {
      const std::size_t capacity = std::size_t{1} << (run % 6);  // 1 .. 32 slots: full and empty often
      auto ring = spsc_ring<payload>::make(capacity);            // (clang 14 cannot capture structured bindings)
      auto& tx = ring.producer;
      auto& rx = ring.consumer;
      std::thread producer(
          [&, seed = run] { produce(tx, items_per_run, seed * 7 + 1, [] { std::this_thread::yield(); }); });
      consume(
          rx, items_per_run, run * 13 + 5, [] { std::this_thread::yield(); }, wrong);
      producer.join();
      EXPECT_TRUE(rx.empty());
    }
    EXPECT_EQ(wrong, 0u) << "run " << run;
    EXPECT_EQ(payload::live.load(), 0) << "run " << run;
  }
}

// Both sides sleep on a futex whenever they cannot move, so every hand-over
// depends on a wake-up: one lost wake-up hangs the test (ctest's timeout).
TEST(SpscRingStress, ParkingSidesLoseNoWakeUp) {
  for (unsigned run = 0; run < 4; ++run) {
    payload::live = 0;
    std::uint64_t wrong = 0;
    std::atomic<std::uint64_t> producer_parks{0}, consumer_parks{0};
    {
      auto ring = spsc_ring<payload>::make(std::size_t{2} << run,
                                           ring_options{.consumer_may_park = true, .producer_may_park = true});
      auto& tx = ring.producer;
      auto& rx = ring.consumer;
      lanes::detail::event_count producer_wakeups, consumer_wakeups;
      using lanes::react::detail::wake_target_of;
      std::thread producer([&, seed = run] {
        produce(tx, items_per_run / 4, seed + 100, [&] {
          const auto key = producer_wakeups.prepare_wait();
          if (tx.arm_wait_for_space(wake_target_of(producer_wakeups))) {
            producer_wakeups.wait(key);
            ++producer_parks;
          } else {
            producer_wakeups.cancel_wait(key);
          }
          tx.disarm_wait();
        });
      });
      consume(
          rx, items_per_run / 4, run + 200,
          [&] {
            const auto key = consumer_wakeups.prepare_wait();
            if (rx.arm_wait_for_items(wake_target_of(consumer_wakeups))) {
              consumer_wakeups.wait(key);
              ++consumer_parks;
            } else {
              consumer_wakeups.cancel_wait(key);
            }
            rx.disarm_wait();
          },
          wrong);
      producer.join();
    }
    EXPECT_EQ(wrong, 0u) << "run " << run;
    EXPECT_EQ(payload::live.load(), 0) << "run " << run;
  }
}

}  // namespace

// Streaming stores (generate_streaming) against plain ones (write/commit)
// from one producer, in random batch sizes, while the consumer reads in
// random chunks: the sfence before the tail's store must make every item
// visible before it is published - each u64 arrives once, in order.
TEST(SpscRingStress, StreamingBatchesArriveOnceInOrder) {
  for (unsigned run = 0; run < 4; ++run) {
    const std::size_t capacity = std::size_t{8} << (run % 4);  // 8 .. 64 slots
    auto ring = spsc_ring<std::uint64_t>::make(capacity);
    auto& tx = ring.producer;
    auto& rx = ring.consumer;
    constexpr std::uint64_t n = items_per_run;
    std::thread producer([&, seed = run] {
      std::mt19937 rng(seed * 17 + 3);
      for (std::uint64_t next = 0; next < n;) {
        const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(n - next, 1 + rng() % 70));
        std::size_t pushed = 0;
        if (rng() % 2 == 0) {
          pushed = tx.generate_streaming(want, [next](std::size_t i) { return next + i; });
        } else {
          auto chunk = tx.write(want);
          for (std::size_t i = 0; i < chunk.size(); ++i) chunk[i] = next + i;
          tx.commit(chunk.size());
          pushed = chunk.size();
        }
        next += pushed;
        if (pushed == 0) std::this_thread::yield();
      }
    });
    std::mt19937 rng(run * 5 + 1);
    std::uint64_t wrong = 0;
    for (std::uint64_t expect = 0; expect < n;) {
      auto chunk = rx.read(1 + rng() % 90);
      for (std::size_t i = 0; i < chunk.size(); ++i)
        if (chunk[i] != expect + i) ++wrong;
      rx.consume(chunk.size());
      expect += chunk.size();
      if (chunk.size() == 0) std::this_thread::yield();
    }
    producer.join();
    EXPECT_TRUE(rx.empty());
    EXPECT_EQ(wrong, 0u) << "run " << run;
  }
}
