// react_thread: handlers run on every item in order, on the pinned core,
// errors are contained, stop and close end it, settings are checked.
#include <gtest/gtest.h>

#include <sched.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <lanes/budget.hpp>
#include <lanes/config_error.hpp>
#include <lanes/react/react_thread.hpp>

#include "budget/affinity.hpp"
#include "budget/core_reservations.hpp"

namespace {

using lanes::react::react_thread;
using lanes::react::ring_options;
using lanes::react::spsc_ring;

constexpr ring_options parkable{.consumer_may_park = true, .producer_may_park = true};

// Pushes 0..n-1 from this thread, waiting for space politely.
void push_sequence(lanes::react::ring_producer<std::uint64_t>& tx, std::uint64_t n) {
  for (std::uint64_t i = 0; i < n; ++i) ASSERT_TRUE(lanes::react::push_wait(tx, i, lanes::react::blocking{}));
}

TEST(ReactThread, HandlesEveryItemInOrderAndEndsWhenTheProducerIsGone) {
  auto ring = spsc_ring<std::uint64_t>::make(256, parkable);
  std::uint64_t expected = 0;
  std::uint64_t out_of_order = 0;
  auto thread = react_thread::builder()
                    .unpinned()
                    .wait(lanes::react::blocking{})
                    .input(std::move(ring.consumer),
                           [&](std::uint64_t& v) {
                             if (v != expected) ++out_of_order;
                             expected = v + 1;
                           })
                    .start();
  EXPECT_TRUE(thread.running());
  push_sequence(ring.producer, 100'000);
  ring.producer = {};  // the input closes: the thread drains it and ends
  thread.join();
  EXPECT_FALSE(thread.running());
  EXPECT_EQ(expected, 100'000U);
  EXPECT_EQ(out_of_order, 0U);
  const auto m = thread.metrics();
  EXPECT_EQ(m.items_handled, 100'000U);
  EXPECT_EQ(m.handler_errors, 0U);
  EXPECT_GE(m.batches, 100'000U / 64);
  ASSERT_EQ(m.ring_high_water.size(), 1U);
  EXPECT_GE(m.ring_high_water[0], 1U);
  EXPECT_LE(m.ring_high_water[0], 256U);
  EXPECT_FALSE(m.core.has_value());
  EXPECT_EQ(m.wait_strategy, "blocking");
  EXPECT_FALSE(m.running);
}

TEST(ReactThread, PinsItselfToItsReservedCoreAndGivesItBack) {
  const auto mask = lanes::detail::affinity_cpus();
  if (mask.size() < 2) GTEST_SKIP() << "needs 2 CPUs";
  auto ring = spsc_ring<std::uint64_t>::make(16, parkable);
  std::vector<unsigned> seen_mask;
  int seen_cpu = -1;
  auto thread = react_thread::builder()
                    .wait(lanes::react::blocking{})
                    .input(std::move(ring.consumer),
                           [&](std::uint64_t&) {
                             seen_mask = lanes::detail::affinity_cpus();
                             seen_cpu = sched_getcpu();
                           })
                    .start();
  const auto core = thread.metrics().core;
  ASSERT_TRUE(core.has_value());
  EXPECT_EQ(*core, mask.back()) << "the default is the highest free CPU";
  EXPECT_EQ(lanes::detail::reserved_cores(), std::vector<unsigned>{*core});
  EXPECT_EQ(thread.name(), "lanes-react-" + std::to_string(*core));
  EXPECT_EQ(lanes::probe_cpu_limits().affinity_cpus, mask.size() - 1) << "the budget no longer counts it";
  push_sequence(ring.producer, 1);
  ring.producer = {};
  thread.join();
  EXPECT_EQ(seen_mask, std::vector<unsigned>{*core});
  EXPECT_EQ(seen_cpu, static_cast<int>(*core));
  EXPECT_TRUE(lanes::detail::reserved_cores().empty()) << "join gives the core back";
}

TEST(ReactThread, ServesSeveralInputsOfDifferentTypes) {
  auto numbers = spsc_ring<int>::make(64, parkable);
  auto words = spsc_ring<std::string>::make(64, parkable);
  long sum = 0;
  std::string text;
  auto thread = react_thread::builder()
                    .unpinned()
                    .wait(lanes::react::spin_then_park(std::chrono::microseconds(5)))
                    .batch(3)
                    .input(std::move(numbers.consumer), [&](int& v) { sum += v; })
                    .input(std::move(words.consumer), [&](std::string& w) { text += std::move(w); })
                    .start();
  for (int i = 1; i <= 1000; ++i) {
    ASSERT_TRUE(lanes::react::push_wait(numbers.producer, i, lanes::react::spin_then_yield(100)));
    if (i % 100 == 0) {
      ASSERT_TRUE(lanes::react::push_wait(words.producer, std::to_string(i / 100), lanes::react::spin_then_yield(100)));
    }
  }
  numbers.producer = {};
  words.producer = {};
  thread.join();
  EXPECT_EQ(sum, 500'500);
  EXPECT_EQ(text, "12345678910");
  const auto m = thread.metrics();
  EXPECT_EQ(m.items_handled, 1010U);
  EXPECT_EQ(m.ring_high_water.size(), 2U);
}

// spin_then_park(nanoseconds::max()) spins through every idle spell: its
// spin deadline is pinned at "never" (an overflow into the past would
// park the thread after its first 64 spins).
TEST(ReactThread, ASpinForBeyondTheClocksRangeNeverParks) {
  auto numbers = spsc_ring<int>::make(64, parkable);
  long sum = 0;
  auto thread = react_thread::builder()
                    .unpinned()
                    .wait(lanes::react::spin_then_park(std::chrono::nanoseconds::max()))
                    .input(std::move(numbers.consumer), [&](int& v) { sum += v; })
                    .start();
  for (int i = 1; i <= 5; ++i) {
    ASSERT_TRUE(lanes::react::push_wait(numbers.producer, i, lanes::react::spin_then_yield(100)));
    std::this_thread::sleep_for(std::chrono::milliseconds(2));  // an idle spell
  }
  numbers.producer = {};
  thread.join();
  EXPECT_EQ(sum, 15);
  EXPECT_EQ(thread.metrics().parks, 0U);
}

TEST(ReactThread, ASpinningThreadKeepsServingOneInputAfterAnotherCloses) {
  auto first = spsc_ring<int>::make(8);
  auto second = spsc_ring<int>::make(8);
  std::atomic<int> from_first{0};
  std::atomic<int> from_second{0};
  auto thread = react_thread::builder()
                    .unpinned()
                    .wait(lanes::react::busy_spin{})
                    .input(std::move(first.consumer), [&](int&) { from_first.fetch_add(1); })
                    .input(std::move(second.consumer), [&](int&) { from_second.fetch_add(1); })
                    .start();
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(lanes::react::push_wait(first.producer, i, lanes::react::spin_then_yield(100)));
  first.producer = {};  // closes while the thread spins on both
  for (int i = 0; i < 100; ++i)
    ASSERT_TRUE(lanes::react::push_wait(second.producer, i, lanes::react::spin_then_yield(100)));
  while (from_second.load() != 100) std::this_thread::yield();
  EXPECT_TRUE(thread.running()) << "one input is still open";
  EXPECT_EQ(from_first.load(), 100);
  second.producer = {};
  thread.join();
  EXPECT_EQ(thread.metrics().items_handled, 200U);
}

TEST(ReactThread, AThrowingHandlerLosesOnlyThatItem) {
  auto ring = spsc_ring<std::uint64_t>::make(64, parkable);
  std::uint64_t handled_even = 0;
  std::vector<std::string> reported;
  auto thread = react_thread::builder()
                    .unpinned()
                    .wait(lanes::react::blocking{})
                    .input(std::move(ring.consumer),
                           [&](std::uint64_t& v) {
                             if (v % 2 == 1) throw std::runtime_error("odd " + std::to_string(v));
                             ++handled_even;
                           })
                    .on_error([&](std::exception_ptr e) {
                      try {
                        std::rethrow_exception(e);
                      } catch (const std::exception& x) {
                        reported.emplace_back(x.what());
                      }
                      if (reported.size() == 3) throw std::logic_error("a hook that throws is contained too");
                    })
                    .start();
  push_sequence(ring.producer, 1000);
  ring.producer = {};
  thread.join();
  EXPECT_EQ(handled_even, 500U);
  ASSERT_EQ(reported.size(), 500U);
  EXPECT_EQ(reported[0], "odd 1");
  EXPECT_EQ(reported[499], "odd 999");
  const auto m = thread.metrics();
  EXPECT_EQ(m.items_handled, 1000U);
  EXPECT_EQ(m.handler_errors, 501U) << "500 handler throws and one hook throw";
}

TEST(ReactThread, StopEndsASpinningAndAParkedThreadAndTheProducerSeesItGone) {
  for (int parked = 0; parked < 2; ++parked) {
    auto ring = spsc_ring<std::uint64_t>::make(8, parkable);
    auto builder = react_thread::builder();
    builder.unpinned().input(std::move(ring.consumer), [](std::uint64_t&) {});
    if (parked) {
      builder.wait(lanes::react::blocking{});
    } else {
      builder.wait(lanes::react::spin_then_yield(10));
    }
    auto thread = builder.start();
    push_sequence(ring.producer, 10);
    EXPECT_FALSE(ring.producer.consumer_gone());
    thread.stop();
    thread.join();
    EXPECT_FALSE(thread.running());
    EXPECT_TRUE(ring.producer.consumer_gone()) << "a stopped thread drops its inputs";
    EXPECT_FALSE(lanes::react::push_wait(ring.producer, std::uint64_t{1}, lanes::react::blocking{}));
  }
}

TEST(ReactThread, ParkingIsCounted) {
  auto ring = spsc_ring<std::uint64_t>::make(8, parkable);
  std::atomic<std::uint64_t> seen{0};
  auto thread = react_thread::builder()
                    .unpinned()
                    .wait(lanes::react::blocking{})
                    .input(std::move(ring.consumer), [&](std::uint64_t&) { seen.fetch_add(1); })
                    .start();
  for (std::uint64_t i = 0; i < 20; ++i) {
    ASSERT_TRUE(ring.producer.try_push(i));
    while (seen.load() != i + 1) std::this_thread::yield();
    // Give it time to go back to sleep so the next push has to wake it.
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  thread.stop();
  thread.join();
  const auto m = thread.metrics();
  EXPECT_EQ(m.items_handled, 20U);
  EXPECT_GE(m.parks, 1U);
  EXPECT_GE(m.idle_spells, m.parks);
  EXPECT_GT(m.waiting.count(), 0);
}

TEST(ReactThread, EmptyAndMovedHandlesAreHarmless) {
  react_thread empty;
  EXPECT_FALSE(empty.running());
  empty.stop();
  empty.join();
  EXPECT_EQ(empty.metrics().items_handled, 0U);
  auto ring = spsc_ring<int>::make(8, parkable);
  auto a = react_thread::builder()
               .unpinned()
               .wait(lanes::react::blocking{})
               .input(std::move(ring.consumer), [](int&) {})
               .start();
  react_thread b = std::move(a);
  EXPECT_TRUE(b.running());
  EXPECT_FALSE(a.running());
  b = react_thread();  // stops and joins
  EXPECT_TRUE(ring.producer.consumer_gone());
}

// --- settings ---

template <class F>
std::string config_error_of(F&& f) {
  try {
    f();
  } catch (const lanes::config_error& e) {
    return e.what();
  }
  return "";
}

TEST(ReactThreadSettings, MistakesAreConfigErrorsThatSayWhatToDo) {
  EXPECT_NE(config_error_of([] { (void)react_thread::builder().unpinned().start(); }).find("no input()"),
            std::string::npos);
  {
    auto ring = spsc_ring<int>::make(8);  // not made to park
    const auto what = config_error_of([&] {
      (void)react_thread::builder()
          .unpinned()
          .wait(lanes::react::blocking{})
          .input(std::move(ring.consumer), [](int&) {})
          .start();
    });
    EXPECT_NE(what.find("consumer_may_park"), std::string::npos) << what;
  }
  EXPECT_NE(config_error_of([] { react_thread::builder().name("a-name-that-is-too-long"); }).find("15"),
            std::string::npos);
  EXPECT_NE(config_error_of([] { react_thread::builder().name(""); }), "");
  EXPECT_NE(config_error_of([] { react_thread::builder().batch(0); }), "");
  EXPECT_NE(config_error_of([] { react_thread::builder().realtime(0); }).find("range"), std::string::npos);
  EXPECT_NE(config_error_of([] { react_thread::builder().realtime_if_permitted(100); }).find("range"),
            std::string::npos);
  EXPECT_NE(config_error_of([] { react_thread::builder().input(lanes::react::ring_consumer<int>{}, [](int&) {}); }),
            "");
  {
    auto ring = spsc_ring<int>::make(8);
    const unsigned absent = lanes::detail::affinity_cpus().back() + 1000;
    const auto what = config_error_of(
        [&] { (void)react_thread::builder().core(absent).input(std::move(ring.consumer), [](int&) {}).start(); });
    EXPECT_NE(what.find("affinity mask"), std::string::npos) << what;
    EXPECT_TRUE(lanes::detail::reserved_cores().empty());
  }
}

// realtime() either runs under SCHED_FIFO (privileged) or refuses with a
// message naming how to grant it; realtime_if_permitted() runs either way.
TEST(ReactThreadSettings, RealtimeIsGrantedOrExplained) {
  {
    auto ring = spsc_ring<int>::make(8, parkable);
    std::string what;
    try {
      auto thread = react_thread::builder()
                        .unpinned()
                        .realtime(10)
                        .wait(lanes::react::blocking{})
                        .input(std::move(ring.consumer), [](int&) {})
                        .start();
      EXPECT_TRUE(thread.metrics().realtime);
    } catch (const lanes::config_error& e) {
      what = e.what();
      EXPECT_NE(what.find("CAP_SYS_NICE"), std::string::npos) << what;
      EXPECT_NE(what.find("realtime_if_permitted"), std::string::npos) << what;
    }
  }
  auto ring = spsc_ring<int>::make(8, parkable);
  int handled = 0;
  auto thread = react_thread::builder()
                    .unpinned()
                    .realtime_if_permitted(10)
                    .wait(lanes::react::blocking{})
                    .input(std::move(ring.consumer), [&](int&) { ++handled; })
                    .start();
  EXPECT_TRUE(thread.running());
  ASSERT_TRUE(ring.producer.try_push(1));
  ring.producer = {};
  thread.join();
  EXPECT_EQ(handled, 1);
}

}  // namespace
