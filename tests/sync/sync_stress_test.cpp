// Randomized stress with cancellation at random points. Checked:
// - oneshot: a received value was sent; `closed` is seen exactly when the
//   sender went away without sending; send() is refused only after the
//   receiver gave up; never a hang.
// - notify: every notify_one is delivered to a waiter that ran, or forwarded,
//   or kept as the permit; aborted waiters never swallow one.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <random>
#include <thread>
#include <vector>

#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/timeout.hpp>
#include <lanes/io/yield.hpp>
#include <lanes/sync/mpsc.hpp>
#include <lanes/sync/mutex.hpp>
#include <lanes/sync/notify.hpp>
#include <lanes/sync/oneshot.hpp>
#include <lanes/sync/semaphore.hpp>
#include <lanes/sync/watch.hpp>

#include "sanitized_build.hpp"

namespace lanes {
namespace {

using namespace std::chrono_literals;

constexpr int scale = detail::stress_divisor;

enum class fate : int { none = 0, sent_ok, sent_refused, dropped };

TEST(SyncStress, OneshotSendersOnThreadsAndTasksReceiversCancelledAtRandom) {
  const int pairs = 20'000 / scale;
  auto rt = runtime::multi_thread().worker_threads(2).build();
  std::vector<std::atomic<int>> sender_fate(static_cast<std::size_t>(pairs));
  std::vector<std::atomic<int>> received(static_cast<std::size_t>(pairs));  // 1 value, 2 closed, 3 gave up
  std::vector<oneshot_sender<int>> for_threads;
  rt.block_on([](int pairs, std::vector<std::atomic<int>>& sender_fate, std::vector<std::atomic<int>>& received,
                 std::vector<oneshot_sender<int>>& for_threads) -> task<void> {
    std::mt19937 rng(11);
    std::vector<join_handle<void>> tasks;
    for (int i = 0; i < pairs; ++i) {
      auto [tx, rx] = oneshot<int>();
      const bool send = rng() % 4 != 0;
      if (rng() % 2 == 0) {
        tasks.push_back(spawn([](oneshot_sender<int> tx, bool send, int i, std::atomic<int>& f) -> task<void> {
          co_await yield_now();
          if (send) {
            f.store(std::move(tx).send(i) ? int(fate::sent_refused) : int(fate::sent_ok));
          } else {
            f.store(int(fate::dropped));
            auto gone = std::move(tx);
          }
        }(std::move(tx), send, i, sender_fate[static_cast<std::size_t>(i)])));
      } else {
        sender_fate[static_cast<std::size_t>(i)].store(send ? -1 : int(fate::dropped));
        if (send) for_threads.push_back(std::move(tx));
      }
      const int patience = static_cast<int>(rng() % 4);  // tries before giving up
      tasks.push_back(spawn([](oneshot_receiver<int> rx, int i, int patience, std::atomic<int>& r) -> task<void> {
        for (int t = 0;; ++t) {
          auto got = co_await timeout(
              std::chrono::microseconds(50 + 100 * t),
              [](oneshot_receiver<int>& rx) -> task<result<int, closed>> { co_return co_await rx; }(rx));
          if (got.has_value()) {
            if (got.value().has_value()) {
              EXPECT_EQ(got.value().value(), i);
              r.store(1);
            } else {
              r.store(2);
            }
            co_return;
          }
          if (t >= patience) {
            r.store(3);  // drop the receiver: the sender must get its value back
            co_return;
          }
        }
      }(std::move(rx), i, patience, received[static_cast<std::size_t>(i)])));
    }
    for (auto& t : tasks) co_await t;
  }(pairs, sender_fate, received, for_threads));

  // Some senders were left for plain threads; their receivers may be gone
  // (refused) or still... not: every receiver task has finished by now.
  std::vector<int> thread_ids;
  for (int i = 0; i < pairs; ++i) {
    if (sender_fate[static_cast<std::size_t>(i)].load() == -1) thread_ids.push_back(i);
  }
  ASSERT_EQ(thread_ids.size(), for_threads.size());
  std::thread([&] {
    for (std::size_t k = 0; k < for_threads.size(); ++k) {
      const int i = thread_ids[k];
      auto back = std::move(for_threads[k]).send(i);
      sender_fate[static_cast<std::size_t>(i)].store(back ? int(fate::sent_refused) : int(fate::sent_ok));
    }
  }).join();

  for (int i = 0; i < pairs; ++i) {
    const auto f = fate(sender_fate[static_cast<std::size_t>(i)].load());
    const int r = received[static_cast<std::size_t>(i)].load();
    ASSERT_NE(r, 0) << "receiver " << i << " never finished";
    if (r == 1) {
      EXPECT_EQ(f, fate::sent_ok) << "pair " << i << " received a value that was not sent";
    }
    if (r == 2) {
      EXPECT_EQ(f, fate::dropped) << "pair " << i << " saw closed but the sender did not drop";
    }
    if (f == fate::sent_ok) {
      // Delivered into the channel: received, unless the receiver gave up
      // and was dropped with the value still inside (as in Tokio).
      EXPECT_NE(r, 2) << "pair " << i << " saw closed although send() delivered";
    }
    if (f == fate::sent_refused) {
      EXPECT_EQ(r, 3) << "pair " << i << " was refused while the receiver lived";
    }
  }
}

TEST(SyncStress, NotifyOneIsNeverSwallowedByCancelledWaiters) {
  const int rounds = 100 / scale;
  auto rt = runtime::multi_thread().worker_threads(2).build();
  std::mt19937 rng(5);
  for (int round = 0; round < rounds; ++round) {
    notify n;
    const int waiters = 20;
    const int aborted = static_cast<int>(rng() % 10);
    std::atomic<int> completed{0};
    const bool permit_left =
        rt.block_on([](notify& n, int waiters, int aborted, std::atomic<int>& completed, unsigned seed) -> task<bool> {
          std::vector<join_handle<void>> hs;
          for (int i = 0; i < waiters; ++i) {
            hs.push_back(spawn([](notify& n, std::atomic<int>& c) -> task<void> {
              co_await n.notified();
              c.fetch_add(1);
            }(n, completed)));
          }
          co_await sleep(200us);  // all waiting
          // Notify from a plain thread while this task aborts waiters at random.
          std::thread notifier([&n, count = waiters - aborted] {
            for (int i = 0; i < count; ++i) {
              n.notify_one();
              std::this_thread::yield();
            }
          });
          std::mt19937 r(seed);
          for (int k = 0; k < aborted; ++k) {
            hs[static_cast<std::size_t>(r() % hs.size())].abort();
            co_await yield_now();
          }
          notifier.join();
          co_await sleep(2ms);
          for (auto& h : hs) h.abort();
          for (auto& h : hs) {
            try {
              co_await h;
            } catch (const task_cancelled&) {
            }
          }
          auto extra = co_await timeout(100us, n.notified());
          co_return extra.has_value();
        }(n, waiters, aborted, completed, static_cast<unsigned>(rng())));
    // Every notification reached a waiter that ran, or is the stored permit.
    // (An index drawn twice aborts fewer waiters than `aborted`; the equality
    // still holds, since there are then more waiters than notifications.)
    EXPECT_EQ(completed.load() + (permit_left ? 1 : 0), waiters - aborted) << "round " << round;
  }
}

TEST(SyncStress, SemaphorePermitsAreConservedUnderRandomCancellation) {
  constexpr std::size_t capacity = 5;
  const int tasks = 4000 / scale;
  auto rt = runtime::multi_thread().worker_threads(3).build();
  semaphore sem(capacity);
  std::atomic<long> in_use{0};
  std::atomic<long> worst{0};
  std::atomic<int> acquired{0};
  rt.block_on([](semaphore& sem, int tasks, std::atomic<long>& in_use, std::atomic<long>& worst,
                 std::atomic<int>& acquired) -> task<void> {
    std::mt19937 rng(3);
    std::vector<join_handle<void>> hs;
    for (int i = 0; i < tasks; ++i) {
      const auto n = static_cast<std::size_t>(1 + rng() % 3);
      const auto patience = std::chrono::microseconds(rng() % 300);
      hs.push_back(
          spawn([](semaphore& sem, std::size_t n, std::chrono::microseconds patience, std::atomic<long>& in_use,
                   std::atomic<long>& worst, std::atomic<int>& acquired) -> task<void> {
            auto got = co_await timeout(patience, sem.acquire(n));
            if (!got.has_value() || !got.value().has_value()) co_return;  // gave up: must have lost nothing
            auto permit = std::move(got.value().value());
            acquired.fetch_add(1);
            // Counted while held, uncounted before the permit goes back, even
            // when this task is aborted at the yield (the frame is destroyed:
            // `held` is destroyed before `permit`, declared earlier).
            struct holding {
              std::atomic<long>& in_use;
              long n;
              ~holding() { in_use.fetch_sub(n); }
            } held{in_use, static_cast<long>(n)};
            const long now = in_use.fetch_add(static_cast<long>(n)) + static_cast<long>(n);
            long seen = worst.load();
            while (now > seen && !worst.compare_exchange_weak(seen, now)) {
            }
            co_await yield_now();
          }(sem, n, patience, in_use, worst, acquired)));
      if (rng() % 5 == 0) hs[rng() % hs.size()].abort();  // cancel at a random point
      if (i % 50 == 0) co_await yield_now();
    }
    for (auto& h : hs) {
      try {
        co_await h;
      } catch (const task_cancelled&) {
      }
    }
  }(sem, tasks, in_use, worst, acquired));
  EXPECT_LE(worst.load(), static_cast<long>(capacity));
  EXPECT_GT(acquired.load(), 0);
  EXPECT_EQ(sem.available(), capacity);  // every permit came back
}

TEST(SyncStress, MpscMessagesAreConservedUnderRandomCancellation) {
  // Producers send numbered messages through a small bounded channel, each
  // send under a random deadline; the consumer receives under random
  // deadlines too. A send that timed out must never arrive; one that
  // completed must arrive exactly once.
  const int producers = 4;
  const int per_producer = 3000 / scale;
  auto rt = runtime::multi_thread().worker_threads(3).build();
  std::vector<std::atomic<int>> sent(static_cast<std::size_t>(producers * per_producer));
  std::vector<std::atomic<int>> arrived(static_cast<std::size_t>(producers * per_producer));
  rt.block_on([](int producers, int per_producer, std::vector<std::atomic<int>>& sent,
                 std::vector<std::atomic<int>>& arrived) -> task<void> {
    auto [tx, rx] = mpsc_bounded<int>(4);
    std::vector<join_handle<void>> hs;
    for (int p = 0; p < producers; ++p) {
      hs.push_back(spawn([](mpsc_sender<int> tx, int p, int n, std::vector<std::atomic<int>>& sent) -> task<void> {
        std::mt19937 rng(static_cast<unsigned>(p));
        for (int i = 0; i < n; ++i) {
          const int id = p * n + i;
          auto r =
              co_await timeout(std::chrono::microseconds(rng() % 100), [](mpsc_sender<int>& tx, int id) -> task<bool> {
                co_return !(co_await tx.send(id)).has_value();
              }(tx, id));
          if (r.has_value() && r.value()) sent[static_cast<std::size_t>(id)].store(1);
        }
      }(tx, p, per_producer, sent)));
    }
    { auto mine = std::move(tx); }  // only the producers' copies remain
    std::mt19937 rng(99);
    for (;;) {
      auto r = co_await timeout(
          std::chrono::microseconds(rng() % 200),
          [](mpsc_receiver<int>& rx) -> task<result<int, closed>> { co_return co_await rx.recv(); }(rx));
      if (!r.has_value()) continue;       // this receive timed out: nothing may have been taken
      if (!r.value().has_value()) break;  // closed and drained
      arrived[static_cast<std::size_t>(r.value().value())].fetch_add(1);
    }
    for (auto& h : hs) co_await h;
  }(producers, per_producer, sent, arrived));
  int delivered = 0;
  for (std::size_t i = 0; i < sent.size(); ++i) {
    EXPECT_EQ(arrived[i].load(), sent[i].load()) << "message " << i;
    delivered += arrived[i].load();
  }
  EXPECT_GT(delivered, 0);
}

TEST(SyncStress, WatchReceiversSeeOnlyNewerValuesAndTheLastOneDespiteCancellation) {
  const int values = 5000 / scale;
  constexpr int receivers = 6;
  auto rt = runtime::multi_thread().worker_threads(2).build();
  auto [tx, rx] = watch<int>(0);
  std::atomic<int> saw_last{0};
  std::thread sender([tx = std::move(tx), count = values]() mutable {
    for (int v = 1; v <= count; ++v) {
      tx.send(v);
      if (v % 100 == 0) std::this_thread::yield();
    }
  });  // the sender is dropped when the thread ends: receivers then see closed
  rt.block_on([](watch_receiver<int> rx, int values, std::atomic<int>& saw_last) -> task<void> {
    std::vector<join_handle<void>> hs;
    for (int r = 0; r < receivers; ++r) {
      hs.push_back(
          spawn([](watch_receiver<int> rx, int values, unsigned seed, std::atomic<int>& saw_last) -> task<void> {
            std::mt19937 rng(seed);
            int last = -1;
            for (;;) {
              auto changed = co_await timeout(
                  std::chrono::microseconds(rng() % 50),
                  [](watch_receiver<int>& rx) -> task<result<void, closed>> { co_return co_await rx.changed(); }(rx));
              if (!changed.has_value()) continue;       // cancelled wait: the change is still pending
              if (!changed.value().has_value()) break;  // closed
              const int v = rx.borrow_and_update();
              EXPECT_GT(v, last);
              last = v;
            }
            if (last == values) saw_last.fetch_add(1);
          }(rx, values, static_cast<unsigned>(r), saw_last)));
    }
    for (auto& h : hs) co_await h;
  }(std::move(rx), values, saw_last));
  sender.join();
  EXPECT_EQ(saw_last.load(), receivers);
}

TEST(SyncStress, MutexStaysExclusiveWhenLockersAreCancelled) {
  const int tasks = 2000 / scale;
  auto rt = runtime::multi_thread().worker_threads(3).build();
  mutex m;
  std::atomic<int> inside{0};
  std::atomic<int> violations{0};
  std::atomic<int> entered{0};
  rt.block_on([](mutex& m, int tasks, std::atomic<int>& inside, std::atomic<int>& violations,
                 std::atomic<int>& entered) -> task<void> {
    std::mt19937 rng(17);
    std::vector<join_handle<void>> hs;
    for (int i = 0; i < tasks; ++i) {
      hs.push_back(spawn([](mutex& m, std::chrono::microseconds patience, std::atomic<int>& inside,
                            std::atomic<int>& violations, std::atomic<int>& entered) -> task<void> {
        auto g = co_await timeout(patience, m.lock());
        if (!g.has_value()) co_return;
        if (inside.fetch_add(1) != 0) violations.fetch_add(1);
        struct leaving {  // runs before the guard unlocks, even if aborted at the yield
          std::atomic<int>& inside;
          ~leaving() { inside.fetch_sub(1); }
        } leave{inside};
        entered.fetch_add(1);
        co_await yield_now();  // hold it across a suspension
      }(m, std::chrono::microseconds(rng() % 200), inside, violations, entered)));
      if (rng() % 6 == 0) hs[rng() % hs.size()].abort();
    }
    for (auto& h : hs) {
      try {
        co_await h;
      } catch (const task_cancelled&) {
      }
    }
  }(m, tasks, inside, violations, entered));
  EXPECT_EQ(violations.load(), 0);
  EXPECT_GT(entered.load(), 0);
  EXPECT_TRUE(m.try_lock().has_value());  // nothing left holding it
}

}  // namespace
}  // namespace lanes
