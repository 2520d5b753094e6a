// oneshot: values from tasks and plain threads, closed senders, receivers
// gone first, and cancellation that keeps the value.
#include <lanes/sync/oneshot.hpp>

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <thread>

#include <lanes/io/errors.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/timeout.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

TEST(Oneshot, ValueFromAPlainThread) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  auto [tx, rx] = oneshot<std::string>();
  std::thread sender([tx = std::move(tx)]() mutable {
    std::this_thread::sleep_for(2ms);
    EXPECT_FALSE(std::move(tx).send("from a thread").has_value());
  });
  auto r = rt.block_on([](oneshot_receiver<std::string> rx) -> task<result<std::string, closed>> {
    co_return co_await rx;
  }(std::move(rx)));
  sender.join();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(*r, "from a thread");
}

TEST(Oneshot, SentBeforeAwaitingIsReadyAtOnce) {
  auto rt = runtime::current_thread().build();
  auto [tx, rx] = oneshot<std::unique_ptr<int>>();
  EXPECT_FALSE(std::move(tx).send(std::make_unique<int>(5)).has_value());
  auto r = rt.block_on([](oneshot_receiver<std::unique_ptr<int>> rx) -> task<result<std::unique_ptr<int>, closed>> {
    co_return co_await rx;
  }(std::move(rx)));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(**r, 5);
}

TEST(Oneshot, SenderDroppedWithoutSendingIsClosed) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  auto [tx, rx] = oneshot<int>();
  std::thread dropper([tx = std::move(tx)]() mutable {
    std::this_thread::sleep_for(2ms);
    auto gone = std::move(tx);
  });
  auto r =
      rt.block_on([](oneshot_receiver<int> rx) -> task<result<int, closed>> { co_return co_await rx; }(std::move(rx)));
  dropper.join();
  EXPECT_FALSE(r.has_value());
}

TEST(Oneshot, ReceiverGoneFirstHandsTheValueBack) {
  auto [tx, rx] = oneshot<std::string>();
  { auto gone = std::move(rx); }
  EXPECT_TRUE(tx.is_closed());
  auto back = std::move(tx).send("kept");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, "kept");
}

// A receiver assigned over is gone, as a destroyed one is: the send hands
// the value back (a defaulted assignment reported it sent, to no one).
TEST(Oneshot, AReceiverAssignedOverIsGone) {
  auto [tx, rx] = oneshot<std::string>();
  auto [other_tx, other_rx] = oneshot<std::string>();
  rx = std::move(other_rx);
  EXPECT_TRUE(tx.is_closed());
  auto back = std::move(tx).send("kept");
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, "kept");
  EXPECT_FALSE(std::move(other_tx).send("read").has_value());
  EXPECT_EQ(rx.try_recv()->value(), "read");
  // The moved-from receiver is empty: a clear error, not a null dereference.
  EXPECT_THROW((void)other_rx.try_recv(), runtime_misuse);  // NOLINT(bugprone-use-after-move): the point
  EXPECT_THROW((void)other_rx.operator co_await(), runtime_misuse);
}

// One task at a time may await a receiver (shared by reference): the
// second gets runtime_misuse, and the first its value (a second that
// replaced the first one's waker in silence would leave it waiting for
// good).
TEST(Oneshot, TwoTasksAwaitingOneReceiverIsAClearError) {
  auto rt = runtime::current_thread().build();
  rt.block_on([]() -> task<void> {
    auto [tx, rx] = oneshot<int>();
    auto wait = [](oneshot_receiver<int>& r) -> task<int> { co_return (co_await r).value(); };
    auto first = spawn(wait(rx));
    co_await sleep(2ms);  // the first waits now
    auto second = spawn(wait(rx));
    EXPECT_THROW(co_await second, runtime_misuse);
    EXPECT_FALSE(std::move(tx).send(7).has_value());
    EXPECT_EQ(co_await first, 7);
  }());
}

TEST(Oneshot, TryRecv) {
  auto [tx, rx] = oneshot<int>();
  EXPECT_FALSE(rx.try_recv().has_value());
  EXPECT_FALSE(std::move(tx).send(3).has_value());
  auto r = rx.try_recv();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->value(), 3);
}

TEST(Oneshot, CancelledReceiveKeepsTheValue) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  const int got = rt.block_on([]() -> task<int> {
    auto [tx, rx] = oneshot<int>();
    // The first wait times out (and is cancelled); the value sent after it
    // is still there for the second wait.
    auto first =
        co_await timeout(1ms, [](oneshot_receiver<int>& r) -> task<result<int, closed>> { co_return co_await r; }(rx));
    EXPECT_FALSE(first.has_value());
    EXPECT_FALSE(std::move(tx).send(9).has_value());
    auto second = co_await rx;
    co_return second.value();
  }());
  EXPECT_EQ(got, 9);
}

}  // namespace
}  // namespace lanes
