// watch: latest value, change notification to every receiver, closing.
#include <lanes/sync/watch.hpp>

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <vector>

#include <lanes/io/errors.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/timeout.hpp>
#include <lanes/io/yield.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

TEST(Watch, EveryReceiverSeesTheLatestValueThenClosed) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  auto [tx, rx] = watch<int>(0);
  std::atomic<int> finals{0};
  rt.block_on([](watch_sender<int> tx, watch_receiver<int> rx, std::atomic<int>& finals) -> task<void> {
    std::vector<join_handle<void>> hs;
    for (int i = 0; i < 4; ++i) {
      hs.push_back(spawn([](watch_receiver<int> rx, std::atomic<int>& finals) -> task<void> {
        int last = -1;
        while (co_await rx.changed()) {
          const int v = rx.borrow_and_update();
          EXPECT_GT(v, last);  // only ever newer values
          last = v;
        }
        finals.fetch_add(last == 100 ? 1 : 0);  // saw the final value before closed
      }(rx, finals)));
    }
    co_await yield_now();
    for (int v = 1; v <= 100; ++v) {
      EXPECT_TRUE(tx.send(v));
      if (v % 10 == 0) co_await sleep(100us);
    }
    { auto gone = std::move(tx); }
    for (auto& h : hs) co_await h;
  }(std::move(tx), std::move(rx), finals));
  EXPECT_EQ(finals.load(), 4);
}

TEST(Watch, BorrowAndUpdateMarksSeen) {
  auto [tx, rx] = watch<std::string>("a");
  EXPECT_FALSE(rx.has_changed());
  EXPECT_TRUE(tx.send("b"));
  EXPECT_TRUE(rx.has_changed());
  EXPECT_EQ(rx.borrow_and_update(), "b");
  EXPECT_FALSE(rx.has_changed());
  EXPECT_TRUE(tx.modify([](std::string& s) { s += "c"; }));
  EXPECT_EQ(rx.borrow(), "bc");
}

TEST(Watch, SendWithoutReceiversReportsIt) {
  auto [tx, rx] = watch<int>(1);
  { auto gone = std::move(rx); }
  EXPECT_FALSE(tx.send(2));
  EXPECT_EQ(tx.borrow(), 2);
}

TEST(Watch, CancelledChangedStillReportsTheChangeLater) {
  auto rt = runtime::current_thread().build();
  auto [tx, rx] = watch<int>(0);
  rt.block_on([](watch_sender<int>& tx, watch_receiver<int>& rx) -> task<void> {
    auto r = co_await timeout(
        1ms, [](watch_receiver<int>& rx) -> task<result<void, closed>> { co_return co_await rx.changed(); }(rx));
    EXPECT_FALSE(r.has_value());  // nothing changed: timed out
    tx.send(5);
    EXPECT_TRUE((co_await rx.changed()).has_value());
    EXPECT_EQ(rx.borrow(), 5);
  }(tx, rx));
}

// A moved-from handle is empty: using it is a runtime_misuse that names
// the call (it was a null dereference); copying or dropping it is fine.
TEST(Watch, AnEmptyHandleIsAClearError) {
  auto [tx, rx] = watch<int>(1);
  auto live_tx = std::move(tx);
  auto live_rx = std::move(rx);
  EXPECT_THROW((void)tx.send(2), runtime_misuse);  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_THROW((void)tx.modify([](int& v) { ++v; }), runtime_misuse);
  EXPECT_THROW((void)tx.borrow(), runtime_misuse);
  EXPECT_THROW((void)rx.borrow(), runtime_misuse);  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_THROW((void)rx.borrow_and_update(), runtime_misuse);
  EXPECT_THROW((void)rx.has_changed(), runtime_misuse);
  EXPECT_THROW((void)rx.changed(), runtime_misuse);
  auto copy = rx;  // an empty copy, and its drop, touch no state
  EXPECT_THROW((void)copy.borrow(), runtime_misuse);
  EXPECT_TRUE(live_tx.send(4));
  EXPECT_EQ(live_rx.borrow(), 4);
}

}  // namespace
}  // namespace lanes
