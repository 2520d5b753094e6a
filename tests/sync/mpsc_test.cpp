// mpsc: order, back-pressure, closing from either side, try_send/try_recv.
#include <lanes/sync/mpsc.hpp>

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include <lanes/io/errors.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/timeout.hpp>
#include <lanes/io/yield.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

TEST(Mpsc, DeliversInOrderAndClosesWhenSendersAreGone) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  auto [tx, rx] = mpsc_unbounded<int>();
  const auto got = rt.block_on([](mpsc_sender<int> tx, mpsc_receiver<int> rx) -> task<std::vector<int>> {
    auto producer = spawn([](mpsc_sender<int> tx) -> task<void> {
      for (int i = 0; i < 1000; ++i) EXPECT_FALSE(co_await tx.send(i));
    }(std::move(tx)));
    std::vector<int> got;
    for (;;) {
      auto m = co_await rx.recv();
      if (!m) break;  // closed: the producer's sender is gone
      got.push_back(*m);
    }
    co_await producer;
    co_return got;
  }(std::move(tx), std::move(rx)));
  ASSERT_EQ(got.size(), 1000U);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(got[static_cast<std::size_t>(i)], i);
}

TEST(Mpsc, BoundedSendWaitsForRoom) {
  auto rt = runtime::current_thread().build();
  auto [tx, rx] = mpsc_bounded<int>(2);
  rt.block_on([](mpsc_sender<int>& tx, mpsc_receiver<int>& rx) -> task<void> {
    EXPECT_TRUE(tx.try_send(1).has_value());
    EXPECT_TRUE(tx.try_send(2).has_value());
    auto full = tx.try_send(3);
    EXPECT_FALSE(full.has_value());
    if (!full.has_value()) {
      EXPECT_EQ(full.error().why, try_send_error<int>::reason::full);
      EXPECT_EQ(full.error().value, 3);
    }
    auto blocked = spawn([](mpsc_sender<int>& tx) -> task<void> { EXPECT_FALSE(co_await tx.send(3)); }(tx));
    co_await sleep(1ms);
    EXPECT_FALSE(blocked.is_finished());  // no room
    EXPECT_EQ((co_await rx.recv()).value(), 1);
    co_await blocked;  // room made: it sent
    EXPECT_EQ((co_await rx.recv()).value(), 2);
    EXPECT_EQ((co_await rx.recv()).value(), 3);
  }(tx, rx));
}

TEST(Mpsc, ReceiverGoneHandsValuesBack) {
  auto rt = runtime::current_thread().build();
  auto [tx, rx] = mpsc_bounded<std::string>(1);
  rt.block_on([](mpsc_sender<std::string>& tx, mpsc_receiver<std::string> rx) -> task<void> {
    EXPECT_FALSE(co_await tx.send("queued"));
    auto waiting = spawn([](mpsc_sender<std::string>& tx) -> task<std::optional<std::string>> {
      co_return co_await tx.send("waiting");
    }(tx));
    co_await yield_now();
    { auto gone = std::move(rx); }
    auto back = co_await waiting;
    EXPECT_EQ(back.value_or("nothing"), "waiting");
    auto again = co_await tx.send("late");
    EXPECT_TRUE(again.has_value());
    EXPECT_TRUE(tx.is_closed());
  }(tx, std::move(rx)));
}

TEST(Mpsc, TryRecvAndSendersFromPlainThreads) {
  auto [tx, rx] = mpsc_unbounded<int>();
  EXPECT_FALSE(rx.try_recv().has_value());
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([tx = tx, t]() mutable {
      for (int i = 0; i < 100; ++i) EXPECT_TRUE(tx.try_send(t * 100 + i).has_value());
    });
  }
  for (auto& th : threads) th.join();
  { auto last = std::move(tx); }
  long sum = 0;
  int n = 0;
  for (;;) {
    auto m = rx.try_recv();
    ASSERT_TRUE(m.has_value());
    if (!m->has_value()) break;  // closed and drained
    sum += m->value();
    ++n;
  }
  EXPECT_EQ(n, 400);
  EXPECT_EQ(sum, 399L * 400 / 2);
}

// One task at a time may wait in recv (the receiver shared by reference): a
// second that replaced the first one's waker would leave the first waiting
// for good although messages came.
TEST(Mpsc, TwoTasksInRecvAtOnceIsAClearError) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    auto [tx, rx] = mpsc_unbounded<int>();
    auto recv_one = [](mpsc_receiver<int>& r) -> task<int> { co_return (co_await r.recv()).value(); };
    auto first = spawn(recv_one(rx));
    co_await sleep(2ms);  // the first waits now
    auto second = spawn(recv_one(rx));
    EXPECT_THROW(co_await second, runtime_misuse);
    EXPECT_FALSE(co_await tx.send(9));
    EXPECT_EQ(co_await first, 9);
  }());
}

TEST(Mpsc, ZeroCapacityIsRejected) { EXPECT_THROW(mpsc_bounded<int>(0), std::invalid_argument); }

// A receiver assigned over closes its channel, as a destroyed one does: its
// senders get their values back (a defaulted assignment let it go
// silently, and a bounded sender waited for room for good).
TEST(Mpsc, AReceiverAssignedOverClosesItsChannel) {
  auto [tx, rx] = mpsc_bounded<int>(1);
  auto [other_tx, other_rx] = mpsc_bounded<int>(1);
  EXPECT_TRUE(tx.try_send(1).has_value());
  rx = std::move(other_rx);
  EXPECT_TRUE(tx.is_closed());
  auto refused = tx.try_send(2);
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().why, try_send_error<int>::reason::closed);
  EXPECT_TRUE(other_tx.try_send(3).has_value());
  auto got = rx.try_recv();
  ASSERT_TRUE(got.has_value() && got->has_value());
  EXPECT_EQ(got->value(), 3);
}

// A moved-from handle is empty: using it is a runtime_misuse that names
// the call (it was a null dereference); copying or dropping it is fine.
TEST(Mpsc, AnEmptyHandleIsAClearError) {
  auto [tx, rx] = mpsc_bounded<int>(2);
  auto live_tx = std::move(tx);
  auto live_rx = std::move(rx);
  EXPECT_THROW((void)tx.try_send(1), runtime_misuse);  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_THROW((void)tx.is_closed(), runtime_misuse);
  EXPECT_THROW((void)tx.send(1), runtime_misuse);
  EXPECT_THROW((void)rx.try_recv(), runtime_misuse);  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_THROW((void)rx.size(), runtime_misuse);
  EXPECT_THROW((void)rx.recv(), runtime_misuse);
  EXPECT_THROW(rx.close(), runtime_misuse);
  try {
    (void)tx.try_send(1);
  } catch (const runtime_misuse& e) {
    EXPECT_NE(std::string(e.what()).find("mpsc_sender::try_send"), std::string::npos) << e.what();
  }
  auto copy = tx;  // an empty copy, and its drop, touch no state
  EXPECT_THROW((void)copy.try_send(2), runtime_misuse);
  EXPECT_TRUE(live_tx.try_send(3).has_value());
  auto got = live_rx.try_recv();
  ASSERT_TRUE(got.has_value() && got->has_value());
  EXPECT_EQ(got->value(), 3);
}

}  // namespace
}  // namespace lanes
