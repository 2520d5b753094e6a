// spsc_ring on one thread: capacity rules, full and empty, wrap-around,
// chunks, in-place construction, move-only payloads and destruction of
// what is left in the ring.
#include <lanes/react/spsc_ring.hpp>
#include <lanes/react/wait_strategy.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

namespace {

using lanes::config_error;
using lanes::react::ring_options;
using lanes::react::spsc_ring;

// Counts live instances, to prove every item constructed is destroyed once.
struct counted {
  static inline std::atomic<int> live{0};
  int value = 0;
  explicit counted(int v) noexcept : value(v) { ++live; }
  counted(counted&& other) noexcept : value(other.value) { ++live; }
  counted& operator=(counted&& other) noexcept = default;
  ~counted() { --live; }
};

TEST(SpscRing, RejectsCapacitiesThatAreNotPowersOfTwo) {
  EXPECT_THROW(spsc_ring<int>::make(0), config_error);
  EXPECT_THROW(spsc_ring<int>::make(3), config_error);
  EXPECT_THROW(spsc_ring<int>::make(1000), config_error);
  EXPECT_THROW(spsc_ring<int>::make(std::size_t{1} << 33), config_error);
  EXPECT_NO_THROW(spsc_ring<int>::make(1));
  try {
    (void)spsc_ring<int>::make(1000);
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("1000 is not a power of two"), std::string::npos) << e.what();
  }
}

TEST(SpscRing, FillsToCapacityThenRefuses) {
  auto [tx, rx] = spsc_ring<int>::make(8);
  EXPECT_TRUE(rx.empty());
  EXPECT_FALSE(rx.try_pop().has_value());
  for (int i = 0; i < 8; ++i) EXPECT_TRUE(tx.try_push(i)) << i;
  EXPECT_FALSE(tx.try_push(8));
  EXPECT_EQ(tx.free_slots(), 0u);
  EXPECT_EQ(rx.size(), 8u);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(rx.try_pop(), i);
  EXPECT_FALSE(rx.try_pop().has_value());
  EXPECT_EQ(tx.free_slots(), 8u);
  EXPECT_EQ(rx.high_water(), 8u);
}

TEST(SpscRing, KeepsOrderAcrossManyWrapArounds) {
  auto [tx, rx] = spsc_ring<std::uint64_t>::make(4);
  std::uint64_t next_in = 0, next_out = 0;
  for (int round = 0; round < 1000; ++round) {
    const int burst = 1 + round % 4;
    for (int i = 0; i < burst; ++i) ASSERT_TRUE(tx.try_push(next_in++));
    for (int i = 0; i < burst; ++i) ASSERT_EQ(rx.try_pop(), next_out++);
  }
}

TEST(SpscRing, ChunksSpanTheWrapAsTwoSlices) {
  auto [tx, rx] = spsc_ring<int>::make(8);
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(tx.try_push(i));
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(rx.try_pop().has_value());
  // head = tail = 6: the next 5 free slots are 6, 7, then 0, 1, 2.
  auto w = tx.write(5);
  ASSERT_EQ(w.size(), 5u);
  EXPECT_EQ(w.first.size(), 2u);
  EXPECT_EQ(w.second.size(), 3u);
  for (std::size_t i = 0; i < w.size(); ++i) w[i] = 100 + static_cast<int>(i);
  EXPECT_EQ(rx.size(), 0u) << "nothing is visible before commit";
  tx.commit(4);
  auto r = rx.read(10);
  ASSERT_EQ(r.size(), 4u);
  for (std::size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i], 100 + static_cast<int>(i));
  rx.consume(3);
  EXPECT_EQ(rx.try_pop(), 103);
  EXPECT_TRUE(rx.empty());
}

// generate_streaming makes the items it has room for (across the wrap,
// calling the generator once per item), publishes them with one store,
// and takes types of 8-byte words: here a u64 and a 16-byte struct.
TEST(SpscRing, GenerateStreamingFillsWhatFitsAcrossTheWrap) {
  auto [tx, rx] = spsc_ring<std::uint64_t>::make(8);
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(tx.try_push(0));
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(rx.try_pop().has_value());
  int calls = 0;
  const auto made = tx.generate_streaming(20, [&calls](std::size_t i) {
    ++calls;
    return std::uint64_t{1000} + i;
  });
  EXPECT_EQ(made, 8u) << "only what fits";
  EXPECT_EQ(calls, 8);
  EXPECT_EQ(tx.generate_streaming(3, [](std::size_t) { return std::uint64_t{7}; }), 0u) << "full";
  auto r = rx.read(100);
  ASSERT_EQ(r.size(), 8u);
  EXPECT_EQ(r.first.size(), 2u);  // slots 6 and 7, then 0..5
  for (std::size_t i = 0; i < r.size(); ++i) EXPECT_EQ(r[i], 1000 + i);
  rx.consume(r.size());

  struct pair_of_words {
    std::uint64_t a;
    std::uint64_t b;
  };
  auto [ptx, prx] = spsc_ring<pair_of_words>::make(4);
  EXPECT_EQ(ptx.generate_streaming(3, [](std::size_t i) { return pair_of_words{i, ~i}; }), 3u);
  for (std::uint64_t i = 0; i < 3; ++i) {
    const auto p = prx.try_pop();
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->a, i);
    EXPECT_EQ(p->b, ~i);
  }
  EXPECT_TRUE(prx.empty());
}

TEST(SpscRing, PushNAndPopNMoveBatches) {
  auto [tx, rx] = spsc_ring<std::string>::make(16);
  std::vector<std::string> in;
  for (int i = 0; i < 20; ++i) in.push_back("item-" + std::to_string(i) + std::string(40, 'x'));
  EXPECT_EQ(tx.push_n(std::make_move_iterator(in.begin()), in.size()), 16u) << "takes only what fits";
  std::vector<std::string> out;
  EXPECT_EQ(rx.pop_n(std::back_inserter(out), 10), 10u);
  EXPECT_EQ(tx.push_n(std::make_move_iterator(in.begin() + 16), 4), 4u);
  EXPECT_EQ(rx.pop_n(std::back_inserter(out), 100), 10u);
  ASSERT_EQ(out.size(), 20u);
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(out[static_cast<std::size_t>(i)], "item-" + std::to_string(i) + std::string(40, 'x'));
}

TEST(SpscRing, EmplacesInPlaceAndCarriesMoveOnlyPayloads) {
  auto [tx, rx] = spsc_ring<std::unique_ptr<int>>::make(4);
  EXPECT_TRUE(tx.try_emplace(new int(7)));
  EXPECT_TRUE(tx.try_push(std::make_unique<int>(8)));
  auto a = rx.try_pop();
  ASSERT_TRUE(a && *a);
  EXPECT_EQ(**a, 7);
  std::unique_ptr<int> b;
  ASSERT_TRUE(rx.try_pop(b));
  EXPECT_EQ(*b, 8);
}

TEST(SpscRing, AThrowingConstructorLeavesTheRingUnchanged) {
  struct throws_on_negative {
    int v;
    explicit throws_on_negative(int x) : v(x) {
      if (x < 0) throw std::runtime_error("negative");
    }
  };
  auto [tx, rx] = spsc_ring<throws_on_negative>::make(4);
  EXPECT_TRUE(tx.try_emplace(1));
  EXPECT_THROW((void)tx.try_emplace(-1), std::runtime_error);
  EXPECT_TRUE(tx.try_emplace(2));
  EXPECT_EQ(rx.size(), 2u);
  EXPECT_EQ(rx.try_pop()->v, 1);
  EXPECT_EQ(rx.try_pop()->v, 2);
}

TEST(SpscRing, DestroysEveryItemExactlyOnceIncludingLeftovers) {
  counted::live = 0;
  {
    auto [tx, rx] = spsc_ring<counted>::make(8);
    for (int i = 0; i < 8; ++i) ASSERT_TRUE(tx.try_emplace(i));
    EXPECT_EQ(counted::live.load(), 8);
    {
      auto one = rx.try_pop();
      ASSERT_TRUE(one.has_value());
      EXPECT_EQ(one->value, 0);
    }
    auto chunk = rx.read(3);
    ASSERT_EQ(chunk.size(), 3u);
    rx.consume(3);
    EXPECT_EQ(counted::live.load(), 4);
  }  // four items left in the ring when both handles go
  EXPECT_EQ(counted::live.load(), 0);
}

TEST(SpscRing, HandlesKeepTheRingAliveAndSayWhenTheOtherSideIsGone) {
  auto made = spsc_ring<int>::make(4);
  auto rx = std::move(made.consumer);
  {
    auto tx = std::move(made.producer);
    EXPECT_FALSE(made.producer);
    EXPECT_TRUE(tx.try_push(5));
    EXPECT_FALSE(rx.producer_gone());
  }
  EXPECT_TRUE(rx.producer_gone());
  EXPECT_EQ(rx.try_pop(), 5) << "items pushed before the producer left are still read";
}

// An empty handle (default-constructed, or moved from) is full and empty
// and has no other side: every call answers so, none dereferences the
// ring it does not have (try_push must not construct into a null slot).
TEST(SpscRing, AnEmptyHandleIsFullAndEmptyNotACrash) {
  auto made = spsc_ring<std::string>::make(4);
  auto kept_tx = std::move(made.producer);
  auto kept_rx = std::move(made.consumer);
  lanes::react::ring_producer<std::string> never_made_tx;
  lanes::react::ring_consumer<std::string> never_made_rx;
  for (auto* tx : {&made.producer, &never_made_tx}) {
    EXPECT_FALSE(*tx);
    EXPECT_EQ(tx->capacity(), 0U);
    EXPECT_EQ(tx->free_slots(), 0U);
    EXPECT_TRUE(tx->consumer_gone());
    std::string item = "kept";
    EXPECT_FALSE(tx->try_push(std::move(item)));
    EXPECT_EQ(item, "kept") << "a refused push leaves the item alone";
    EXPECT_FALSE(tx->try_emplace("x"));
    const std::string batch[2] = {"a", "b"};
    EXPECT_EQ(tx->push_n(batch, 2), 0U);
    lanes::react::detail::wake_target none{[](void*) noexcept {}, nullptr};
    EXPECT_FALSE(tx->arm_wait_for_space(none)) << "nobody would wake it: do not sleep";
    EXPECT_FALSE(lanes::react::push_wait(*tx, std::string("y"), lanes::react::busy_spin{}));
  }
  for (auto* rx : {&made.consumer, &never_made_rx}) {
    EXPECT_FALSE(*rx);
    EXPECT_EQ(rx->capacity(), 0U);
    EXPECT_EQ(rx->front(), nullptr);
    EXPECT_FALSE(rx->try_pop().has_value());
    EXPECT_EQ(rx->read(8).size(), 0U);
    EXPECT_EQ(rx->size(), 0U);
    EXPECT_TRUE(rx->empty());
    EXPECT_TRUE(rx->producer_gone());
    lanes::react::detail::wake_target none{[](void*) noexcept {}, nullptr};
    EXPECT_FALSE(rx->arm_wait_for_items(none));
  }
  lanes::react::ring_producer<int> ints;
  EXPECT_EQ(ints.write(8).size(), 0U);
  EXPECT_TRUE(kept_tx.try_push("the ring itself still works"));
  EXPECT_EQ(kept_rx.try_pop(), "the ring itself still works");
}

TEST(SpscRing, ParkingASideTheRingWasNotMadeForIsAClearError) {
  auto [tx, rx] = spsc_ring<int>::make(4);
  lanes::react::detail::wake_target none{[](void*) noexcept {}, nullptr};
  EXPECT_THROW((void)rx.arm_wait_for_items(none), config_error);
  EXPECT_THROW((void)tx.arm_wait_for_space(none), config_error);
  try {
    (void)rx.arm_wait_for_items(none);
  } catch (const config_error& e) {
    EXPECT_NE(std::string(e.what()).find("consumer_may_park"), std::string::npos) << e.what();
  }
}

TEST(SpscRing, AnArmedConsumerIsWokenOnceByThePublish) {
  auto [tx, rx] = spsc_ring<int>::make(4, ring_options{.consumer_may_park = true});
  int wakes = 0;
  lanes::react::detail::wake_target count{[](void* n) noexcept { ++*static_cast<int*>(n); }, &wakes};
  ASSERT_TRUE(rx.arm_wait_for_items(count)) << "empty ring: the consumer may sleep";
  EXPECT_TRUE(tx.try_push(1));
  EXPECT_TRUE(tx.try_push(2));
  EXPECT_EQ(wakes, 1) << "the slot is disarmed by the wake-up";
  EXPECT_FALSE(rx.disarm_wait()) << "a notifier took the slot";
  EXPECT_FALSE(rx.arm_wait_for_items(count)) << "items are there: no sleeping";
  EXPECT_EQ(wakes, 1);
}

TEST(SpscRing, AnArmedProducerIsWokenWhenSpaceFrees) {
  auto [tx, rx] = spsc_ring<int>::make(2, ring_options{.producer_may_park = true});
  int wakes = 0;
  lanes::react::detail::wake_target count{[](void* n) noexcept { ++*static_cast<int*>(n); }, &wakes};
  EXPECT_FALSE(tx.arm_wait_for_space(count)) << "not full";
  ASSERT_TRUE(tx.try_push(1));
  ASSERT_TRUE(tx.try_push(2));
  ASSERT_TRUE(tx.arm_wait_for_space(count));
  EXPECT_EQ(rx.try_pop(), 1);
  EXPECT_EQ(wakes, 1);
  EXPECT_TRUE(tx.try_push(3));
}

TEST(SpscRing, AnEmptyWatchSeesTheNextItemAndTheProducerLeaving) {
  auto made = spsc_ring<int>::make(64);  // slots go back every 4 items
  auto rx = std::move(made.consumer);
  auto tx = std::make_unique<lanes::react::ring_producer<int>>(std::move(made.producer));
  ASSERT_TRUE(tx->try_push(1));
  ASSERT_TRUE(tx->try_push(2));
  EXPECT_EQ(rx.try_pop(), 1);
  EXPECT_EQ(rx.try_pop(), 2);
  EXPECT_EQ(tx->free_slots(), 62u) << "freed slots are handed back in batches, not yet";
  const auto watch = rx.watch();
  EXPECT_EQ(tx->free_slots(), 64u) << "watch() hands freed slots back: the producer may be waiting for them";
  EXPECT_FALSE(watch.ready()) << "nothing new since the watch was taken";
  EXPECT_FALSE(watch.ready());
  ASSERT_TRUE(tx->try_push(3));
  EXPECT_TRUE(watch.ready()) << "the producer's index moved past the consumer";
  EXPECT_EQ(rx.try_pop(), 3);
  const auto after = rx.watch();
  EXPECT_FALSE(after.ready());
  tx.reset();
  EXPECT_TRUE(after.ready()) << "a producer that left ends the wait too";
  EXPECT_TRUE(rx.empty());
}

}  // namespace
