// Fuzz of the io <-> react round trip: random ring sizes, wait strategies,
// await kinds and cancellations (timeouts that fire mid-wait). Every item
// must come back once, in order, whatever got cancelled on the way.
#include <lanes/bridge/react_ring.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>

#include <lanes/io/runtime.hpp>
#include <lanes/io/timeout.hpp>
#include <lanes/react/react_thread.hpp>

namespace {

using namespace std::chrono_literals;
using lanes::task;
using lanes::react::ring_consumer;
using lanes::react::ring_producer;
using lanes::react::spsc_ring;

constexpr lanes::react::ring_options both_park{.consumer_may_park = true, .producer_may_park = true};

std::unique_ptr<lanes::react::wait_strategy> random_strategy(std::mt19937& rng) {
  switch (rng() % 3) {
    case 0:
      return std::make_unique<lanes::react::blocking>();
    case 1:
      return std::make_unique<lanes::react::spin_then_park>(std::chrono::nanoseconds(rng() % 20'000));
    default:
      return std::make_unique<lanes::react::spin_then_yield>(static_cast<std::uint32_t>(rng() % 200));
  }
}

// A timeout short enough to fire now and then in the middle of a wait.
std::chrono::microseconds random_patience(std::mt19937& rng) { return std::chrono::microseconds(rng() % 40); }

task<std::uint64_t> send_all(ring_producer<std::uint64_t> tx, std::uint64_t count, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::uint64_t cancelled = 0;
  for (std::uint64_t i = 0; i < count;) {
    if (rng() % 4 == 0) {
      auto sent = co_await lanes::timeout(random_patience(rng), lanes::send(tx, i));
      if (!sent) {
        ++cancelled;  // timed out: nothing was put in; send it again
        continue;
      }
      if (*sent) co_return ~std::uint64_t{0};  // the consumer left early: a failure
    } else if (co_await lanes::send(tx, i)) {
      co_return ~std::uint64_t{0};
    }
    ++i;
  }
  co_return cancelled;
}

struct tally {
  std::uint64_t received = 0;
  std::uint64_t wrong = 0;
  std::uint64_t cancelled = 0;
};

task<tally> receive_all(ring_consumer<std::uint64_t>& rx, std::uint32_t seed) {
  std::mt19937 rng(seed);
  tally t;
  auto check = [&t](std::uint64_t v) {
    if (v != t.received * 3) ++t.wrong;
    ++t.received;
  };
  while (true) {
    const auto kind = rng() % 3;
    if (kind == 0) {
      auto got = co_await lanes::timeout(random_patience(rng), lanes::recv(rx));
      if (!got) {
        ++t.cancelled;
        continue;
      }
      if (!*got) break;  // closed
      check(**got);
    } else if (kind == 1) {
      auto got = co_await lanes::recv(rx);
      if (!got) break;
      check(*got);
    } else {
      if (!co_await lanes::items_ready(rx)) break;
      const auto chunk = rx.read(1 + rng() % 8);
      for (std::size_t i = 0; i < chunk.size(); ++i) check(chunk[i]);
      rx.consume(chunk.size());
    }
  }
  co_return t;
}

TEST(ReactIoBridgeStress, RoundTripsSurviveRandomCancellation) {
  std::mt19937 rng(20261203);
  auto rt = lanes::runtime::multi_thread().worker_threads(2).build();
  for (int round = 0; round < 24; ++round) {
    const std::size_t in_cap = std::size_t{1} << (rng() % 5);
    const std::size_t out_cap = std::size_t{1} << (rng() % 5);
    const std::uint64_t count = 2'000 + rng() % 3'000;
    auto requests = spsc_ring<std::uint64_t>::make(in_cap, both_park);
    auto replies = spsc_ring<std::uint64_t>::make(out_cap, both_park);
    auto builder = lanes::react::react_thread::builder();
    builder.unpinned().batch(1 + rng() % 16).wait(random_strategy(rng));
    std::shared_ptr<lanes::react::wait_strategy> reply_wait = random_strategy(rng);
    builder.input(std::move(requests.consumer),
                  [out = std::move(replies.producer), reply_wait](std::uint64_t& v) mutable {
                    if (!lanes::react::push_wait(out, v * 3, *reply_wait)) throw std::runtime_error("replies closed");
                  });
    auto tripler = builder.start();

    const auto seed = static_cast<std::uint32_t>(rng());
    const auto [got, send_cancelled] =
        rt.block_on([](ring_producer<std::uint64_t> tx, ring_consumer<std::uint64_t>& rx, std::uint64_t count,
                       std::uint32_t seed) -> task<std::pair<tally, std::uint64_t>> {
          auto sender = lanes::spawn(send_all(std::move(tx), count, seed));
          tally t = co_await receive_all(rx, seed + 1);
          co_return std::pair{t, co_await sender};
        }(std::move(requests.producer), replies.consumer, count, seed));
    tripler.join();

    const auto m = tripler.metrics();
    SCOPED_TRACE(::testing::Message() << "round " << round << ": received " << got.received << " of " << count
                                      << ", wrong " << got.wrong << ", recv cancelled " << got.cancelled
                                      << ", send cancelled " << send_cancelled << ", handled " << m.items_handled
                                      << ", handler errors " << m.handler_errors);
    ASSERT_EQ(got.received, count) << "round " << round;
    ASSERT_EQ(got.wrong, 0U) << "round " << round;
    ASSERT_NE(send_cancelled, ~std::uint64_t{0}) << "round " << round;
    ASSERT_EQ(tripler.metrics().items_handled, count);
    ASSERT_EQ(tripler.metrics().handler_errors, 0U);
  }
}

}  // namespace
