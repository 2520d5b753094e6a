// The io lane's side of react rings: send/recv/items_ready/space_ready
// suspend the task (not the worker), wake on the other side's publish,
// report closed, and cancel cleanly.
#include <lanes/bridge/react_ring.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include <lanes/config_error.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/timeout.hpp>
#include <lanes/react/react_thread.hpp>

namespace {

using namespace std::chrono_literals;
using lanes::task;
using lanes::react::react_thread;
using lanes::react::ring_consumer;
using lanes::react::ring_options;
using lanes::react::ring_producer;
using lanes::react::spsc_ring;

constexpr ring_options both_park{.consumer_may_park = true, .producer_may_park = true};

// io -> react thread (doubles) -> io, through small rings so both sides
// fill up and both directions park and wake many times.
TEST(ReactIoBridge, AnIoTaskFeedsAReactThreadAndReadsItsResults) {
  constexpr std::uint64_t count = 20'000;
  auto requests = spsc_ring<std::uint64_t>::make(16, both_park);
  auto replies = spsc_ring<std::uint64_t>::make(8, both_park);
  auto doubler = react_thread::builder()
                     .unpinned()
                     .wait(lanes::react::spin_then_park(2us))
                     .input(std::move(requests.consumer),
                            [out = std::move(replies.producer)](std::uint64_t& v) mutable {
                              if (!lanes::react::push_wait(out, v * 2, lanes::react::blocking{}))
                                throw std::runtime_error("reply ring closed");
                            })
                     .start();
  auto rt = lanes::runtime::multi_thread().worker_threads(1).build();
  const std::uint64_t bad = rt.block_on([](ring_producer<std::uint64_t> tx, ring_consumer<std::uint64_t>& rx,
                                           std::uint64_t count) -> task<std::uint64_t> {
    auto sender = lanes::spawn([](ring_producer<std::uint64_t> tx, std::uint64_t count) -> task<std::uint64_t> {
      std::uint64_t refused = 0;
      for (std::uint64_t i = 0; i < count; ++i)
        if (co_await lanes::send(tx, i)) ++refused;
      co_return refused;  // tx is dropped here: the react thread ends once it has drained
    }(std::move(tx), count));
    std::uint64_t expected = 0;
    std::uint64_t bad = 0;
    while (true) {
      auto reply = co_await lanes::recv(rx);
      if (!reply) break;  // closed: the react thread ended and dropped its reply producer
      if (*reply != expected * 2) ++bad;
      ++expected;
    }
    if (expected != count) bad += 1'000'000;
    bad += co_await sender;
    co_return bad;
  }(std::move(requests.producer), replies.consumer, count));
  EXPECT_EQ(bad, 0U);
  doubler.join();
  EXPECT_EQ(doubler.metrics().items_handled, count);
  EXPECT_EQ(doubler.metrics().handler_errors, 0U);
}

// One wake-up per suspension, however many items arrived meanwhile.
TEST(ReactIoBridge, ItemsReadyBatchesWakeUps) {
  auto ring = spsc_ring<std::uint64_t>::make(1024, both_park);
  auto rt = lanes::runtime::multi_thread().worker_threads(1).build();
  std::thread producer([tx = std::move(ring.producer)]() mutable {
    for (std::uint64_t i = 0; i < 100'000; ++i) ASSERT_TRUE(lanes::react::push_wait(tx, i, lanes::react::blocking{}));
  });
  struct outcome {
    std::uint64_t items = 0, wakeups = 0, out_of_order = 0;
  };
  const outcome got = rt.block_on([](ring_consumer<std::uint64_t>& rx) -> task<outcome> {
    outcome o;
    while (co_await lanes::items_ready(rx)) {
      ++o.wakeups;
      auto chunk = rx.read(rx.capacity());
      for (std::size_t i = 0; i < chunk.size(); ++i)
        if (chunk[i] != o.items++) ++o.out_of_order;
      rx.consume(chunk.size());
    }
    co_return o;
  }(ring.consumer));
  producer.join();
  EXPECT_EQ(got.items, 100'000U);
  EXPECT_EQ(got.out_of_order, 0U);
  EXPECT_LE(got.wakeups, got.items);
  EXPECT_GE(got.wakeups, 1U);
}

TEST(ReactIoBridge, TheOtherSideGoneIsClosedNotAnError) {
  auto rt = lanes::runtime::multi_thread().worker_threads(1).build();
  rt.block_on([]() -> task<void> {
    {
      auto ring = spsc_ring<std::string>::make(4, both_park);
      ring.consumer = {};
      auto back = co_await lanes::send(ring.producer, std::string("kept"));
      EXPECT_TRUE(back.has_value());
      if (back) {
        EXPECT_EQ(*back, "kept");
      }
      EXPECT_FALSE(co_await lanes::space_ready(ring.producer));
    }
    {
      auto ring = spsc_ring<std::string>::make(4, both_park);
      EXPECT_FALSE(co_await lanes::send(ring.producer, "last"));
      ring.producer = {};
      auto first = co_await lanes::recv(ring.consumer);
      EXPECT_TRUE(first.has_value());
      if (first) {
        EXPECT_EQ(*first, "last");
      }
      EXPECT_FALSE(co_await lanes::recv(ring.consumer));
      EXPECT_FALSE(co_await lanes::items_ready(ring.consumer));
    }
  }());
}

// Empty handles (moved from): the other side counts as gone, so send gives
// the item back and recv is closed, at once, instead of a crash or a
// task that sleeps for good.
TEST(ReactIoBridge, AnEmptyHandleIsClosedAtOnce) {
  auto rt = lanes::runtime::multi_thread().worker_threads(1).build();
  rt.block_on([]() -> task<void> {
    auto ring = spsc_ring<std::string>::make(4, both_park);
    auto tx = std::move(ring.producer);
    auto rx = std::move(ring.consumer);
    auto back = co_await lanes::send(ring.producer, std::string("kept"));
    EXPECT_TRUE(back.has_value() && *back == "kept");
    EXPECT_FALSE(co_await lanes::space_ready(ring.producer));
    EXPECT_FALSE(co_await lanes::recv(ring.consumer));
    EXPECT_FALSE(co_await lanes::items_ready(ring.consumer));
  }());
}

// A timed-out await takes nothing and puts nothing; the ring works after.
TEST(ReactIoBridge, CancelledAwaitsLeaveTheRingAsItWas) {
  auto rt = lanes::runtime::multi_thread().worker_threads(1).build();
  rt.block_on([]() -> task<void> {
    auto ring = spsc_ring<int>::make(2, both_park);
    auto empty = co_await lanes::timeout(5ms, lanes::recv(ring.consumer));
    EXPECT_FALSE(empty.has_value());
    EXPECT_TRUE(ring.producer.try_push(1));
    EXPECT_TRUE(ring.producer.try_push(2));
    auto full = co_await lanes::timeout(5ms, lanes::send(ring.producer, 3));
    EXPECT_FALSE(full.has_value());
    EXPECT_EQ(ring.consumer.size(), 2U);
    auto waited = co_await lanes::timeout(5ms, lanes::space_ready(ring.producer));
    EXPECT_FALSE(waited.has_value());

    // Both sides still wake: a plain thread pops two and then pushes back.
    std::thread other([&] {
      std::this_thread::sleep_for(2ms);
      EXPECT_EQ(ring.consumer.try_pop(), 1);
      EXPECT_EQ(ring.consumer.try_pop(), 2);
    });
    EXPECT_FALSE(co_await lanes::send(ring.producer, 3));
    other.join();
    auto three = co_await lanes::recv(ring.consumer);
    EXPECT_TRUE(three.has_value());
    if (three) {
      EXPECT_EQ(*three, 3);
    }
  }());
}

TEST(ReactIoBridge, ARingNotMadeToParkIsAConfigError) {
  auto ring = spsc_ring<int>::make(2);
  EXPECT_THROW((void)lanes::recv(ring.consumer), lanes::config_error);
  EXPECT_THROW((void)lanes::items_ready(ring.consumer), lanes::config_error);
  EXPECT_THROW((void)lanes::send(ring.producer, 1), lanes::config_error);
  EXPECT_THROW((void)lanes::space_ready(ring.producer), lanes::config_error);
}

TEST(ReactIoBridge, OutsideATaskIsAnError) {
  auto ring = spsc_ring<int>::make(2, both_park);
  auto a = lanes::recv(ring.consumer);
  EXPECT_THROW(a.await_suspend(std::noop_coroutine()), lanes::runtime_misuse);
}

}  // namespace
