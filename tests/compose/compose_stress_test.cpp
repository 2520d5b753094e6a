// Randomized: every cancellable lanes awaitable raced against cancellation
// at random moments (a token cancelled before the call, by another task
// after a random delay, by a foreign thread, or never; through
// with_cancellation, select, or an abort of the whole task). Checked:
// - nothing is lost: every byte written to a socket is read once, in
//   order; every message sent is received exactly once and in
//   each sender's order; semaphore permits and mutex ownership are
//   conserved; every notify_one reaches a waiter;
// - nothing runs after it was reported cancelled;
// - every task ends exactly once (frames destroyed once, outcomes counted once);
// - task groups: no child outlives its group, each child ends once.
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <deque>
#include <mutex>
#include <random>
#include <stdexcept>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <lanes/bridge/offload.hpp>
#include <lanes/compose/select.hpp>
#include <lanes/compose/task_group.hpp>
#include <lanes/compose/when_all.hpp>
#include <lanes/compose/with_cancellation.hpp>
#include <lanes/detail/cpu_relax.hpp>
#include <lanes/io/async_fd.hpp>
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

// Cancels tokens from a plain thread, at random moments.
unsigned rnd(std::mt19937& rng);

class foreign_canceller {
 public:
  foreign_canceller() : thread_([this] { run(); }) {}
  ~foreign_canceller() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    thread_.join();
  }
  void add(cancellation_token t) {
    std::lock_guard lock(mutex_);
    pending_.push_back(std::move(t));
  }

 private:
  void run() {
    std::mt19937 rng(99);
    for (;;) {
      std::deque<cancellation_token> batch;
      {
        std::lock_guard lock(mutex_);
        if (stop_ && pending_.empty()) return;
        batch.swap(pending_);
      }
      for (auto& t : batch) {
        for (unsigned spin = rnd(rng) % 2000; spin > 0; --spin) std::atomic_signal_fence(std::memory_order_seq_cst);
        t.cancel();
      }
      std::this_thread::yield();
    }
  }
  std::mutex mutex_;
  std::deque<cancellation_token> pending_;
  bool stop_ = false;
  std::thread thread_;
};

unsigned rnd(std::mt19937& rng) { return static_cast<unsigned>(rng()); }

// A token with a random fate.
cancellation_token random_token(std::mt19937& rng, foreign_canceller& foreign) {
  cancellation_token t;
  switch (rnd(rng) % 5) {
    case 0:
      t.cancel();
      break;
    case 1:
      break;  // never
    case 2:
      foreign.add(t);
      break;
    default:
      (void)spawn([](cancellation_token t, std::chrono::microseconds d) -> task<void> {
        co_await sleep(d);
        t.cancel();
      }(t, std::chrono::microseconds(rnd(rng) % 150)));
  }
  return t;
}

// Awaits `op` under a random token, through with_cancellation or select;
// true when it completed (its result is then in `out`).
// (An rvalue `op` lives in the caller's co_await expression, which lasts
// until this task has finished.)
template <class Op, class Out>
task<bool> attempt(Op&& op, Out& out, std::mt19937& rng, foreign_canceller& foreign) {
  auto t = random_token(rng, foreign);
  if (rnd(rng) % 2 == 0) {
    auto r = co_await with_cancellation(t, std::forward<Op>(op));
    if (!r) co_return false;
    if constexpr (std::is_void_v<decltype(r.value())>) {
      out.emplace();
    } else {
      out.emplace(std::move(r.value()));
    }
    co_return true;
  }
  auto r = co_await select(t.cancelled(), std::forward<Op>(op));
  if (r.index() == 0) co_return false;
  out.emplace(std::move(std::get<1>(r)));
  co_return true;
}

TEST(ComposeStress, BoundedChannelSendsAndReceivesCancelledAtRandomLoseNothing) {
  const int per_producer = 10000 / scale;
  constexpr int producers = 3;
  auto rt = runtime::multi_thread().worker_threads(2).build();
  foreign_canceller foreign;
  std::vector<int> received;
  rt.block_on([](int per_producer, foreign_canceller& foreign, std::vector<int>& received) -> task<void> {
    auto [tx, rx] = mpsc_bounded<int>(4);
    std::vector<join_handle<void>> senders;
    for (int p = 0; p < producers; ++p) {
      senders.push_back(spawn([](mpsc_sender<int> tx, int p, int n, foreign_canceller& foreign) -> task<void> {
        std::mt19937 rng(static_cast<unsigned>(p) + 1);
        for (int i = 0; i < n; ++i) {
          for (;;) {  // a cancelled send delivered nothing: send the same value again
            std::optional<std::optional<int>> back;
            if (co_await attempt(tx.send(p * 1'000'000 + i), back, rng, foreign)) {
              EXPECT_FALSE(back->has_value());  // the receiver is alive
              break;
            }
          }
        }
      }(tx, p, per_producer, foreign)));
    }
    { auto drop = std::move(tx); }
    std::mt19937 rng(7);
    for (;;) {
      std::optional<result<int, closed>> got;
      if (!co_await attempt(rx.recv(), got, rng, foreign)) continue;
      if (!got->has_value()) break;  // every sender gone and drained
      received.push_back(got->value());
    }
    for (auto& s : senders) co_await s;
  }(per_producer, foreign, received));
  ASSERT_EQ(received.size(), static_cast<std::size_t>(producers * per_producer));
  std::vector<int> next(producers, 0);
  for (int v : received) {
    const int p = v / 1'000'000;
    EXPECT_EQ(v % 1'000'000, next[static_cast<std::size_t>(p)]) << "producer " << p;  // once each, in order
    ++next[static_cast<std::size_t>(p)];
  }
}

TEST(ComposeStress, SocketReadsCancelledAtRandomLoseNoBytes) {
  const std::size_t total = 400'000 / static_cast<std::size_t>(scale);
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  auto rt = runtime::multi_thread().worker_threads(2).build();
  foreign_canceller foreign;
  // A plain thread writes byte i = i % 251, in random chunks, at random pace.
  std::thread writer([fd = fds[1], n_total = total] {
    std::mt19937 rng(3);
    std::vector<unsigned char> chunk;
    for (std::size_t sent = 0; sent < n_total;) {
      const std::size_t n = std::min<std::size_t>(n_total - sent, 1 + rnd(rng) % 3000);
      chunk.resize(n);
      for (std::size_t k = 0; k < n; ++k) chunk[k] = static_cast<unsigned char>((sent + k) % 251);
      for (std::size_t off = 0; off < n;) {
        const auto w = ::write(fd, chunk.data() + off, n - off);
        if (w > 0) off += static_cast<std::size_t>(w);
      }
      sent += n;
      if (rnd(rng) % 8 == 0) std::this_thread::sleep_for(std::chrono::microseconds(rnd(rng) % 100));
    }
    ::shutdown(fd, SHUT_WR);
  });
  const auto [received, mismatches] =
      rt.block_on([](int fd, foreign_canceller& foreign) -> task<std::pair<std::size_t, std::size_t>> {
        async_fd reader(fd);
        std::mt19937 rng(8);
        std::size_t got = 0;
        std::size_t bad = 0;
        std::byte buf[1500];
        for (;;) {
          auto token = random_token(rng, foreign);
          result<std::size_t, std::error_code> n = std::size_t{0};
          if (rnd(rng) % 2 == 0) {
            auto r = co_await with_cancellation(token, reader.read_some(buf));
            if (!r) continue;  // cancelled: nothing was read
            n = std::move(r.value());
          } else {
            auto r = co_await select(token.cancelled(), reader.readable());
            if (r.index() == 0) continue;
            n = co_await reader.read_some(buf);
          }
          if (!n || n.value() == 0) break;
          for (std::size_t k = 0; k < n.value(); ++k) {
            if (static_cast<unsigned char>(buf[k]) != (got + k) % 251) ++bad;
          }
          got += n.value();
        }
        co_return std::pair{got, bad};
      }(fds[0], foreign));
  writer.join();
  ::close(fds[0]);
  ::close(fds[1]);
  EXPECT_EQ(received, total);  // every byte once...
  EXPECT_EQ(mismatches, 0U);   // ...and in order
}

TEST(ComposeStress, PermitsAndMutexOwnershipAreConservedUnderRandomCancellation) {
  const int rounds = 5000 / scale;
  auto rt = runtime::multi_thread().worker_threads(2).build();
  foreign_canceller foreign;
  semaphore sem(5);
  lanes::mutex m;
  std::atomic<int> inside{0};
  std::atomic<int> overlaps{0};
  std::atomic<int> held_permits{0};
  std::atomic<int> over_limit{0};
  rt.block_on([](int rounds, foreign_canceller& foreign, semaphore& sem, lanes::mutex& m, std::atomic<int>& inside,
                 std::atomic<int>& overlaps, std::atomic<int>& held, std::atomic<int>& over) -> task<void> {
    std::vector<task<void>> workers;
    for (int w = 0; w < 6; ++w) {
      workers.push_back([](int w, int rounds, foreign_canceller& foreign, semaphore& sem, lanes::mutex& m,
                           std::atomic<int>& inside, std::atomic<int>& overlaps, std::atomic<int>& held,
                           std::atomic<int>& over) -> task<void> {
        std::mt19937 rng(static_cast<unsigned>(w) * 31 + 5);
        for (int i = 0; i < rounds; ++i) {
          if (rnd(rng) % 2 == 0) {
            const std::size_t n = 1 + rnd(rng) % 3;
            std::optional<result<semaphore_permit, closed>> permit;
            if (co_await attempt(sem.acquire(n), permit, rng, foreign)) {
              if (held.fetch_add(static_cast<int>(n)) + static_cast<int>(n) > 5) over.fetch_add(1);
              if (rnd(rng) % 2 == 0) co_await yield_now();
              held.fetch_sub(static_cast<int>(n));
            }
          } else {
            std::optional<decltype(m.lock().await_resume())> guard;
            if (co_await attempt(m.lock(), guard, rng, foreign)) {
              if (inside.fetch_add(1) != 0) overlaps.fetch_add(1);
              if (rnd(rng) % 2 == 0) co_await yield_now();
              inside.fetch_sub(1);
            }
          }
        }
      }(w, rounds, foreign, sem, m, inside, overlaps, held, over));
    }
    co_await when_all(std::move(workers));
  }(rounds, foreign, sem, m, inside, overlaps, held_permits, over_limit));
  EXPECT_EQ(sem.available(), 5U);
  EXPECT_EQ(overlaps.load(), 0);
  EXPECT_EQ(over_limit.load(), 0);
  EXPECT_TRUE(m.try_lock().has_value());
}

TEST(ComposeStress, EveryNotifyOneReachesAWaiterDespiteCancelledWaiters) {
  const int notifications = 5000 / scale;
  auto rt = runtime::multi_thread().worker_threads(2).build();
  foreign_canceller foreign;
  rt.block_on([](int notifications, foreign_canceller& foreign) -> task<void> {
    notify n;
    std::atomic<int> delivered{0};
    // Three waiters, each cancelled at random while it waits; the notifier
    // sends the next notification only after the previous one arrived.
    task_group waiters;
    for (int w = 0; w < 3; ++w) {
      waiters.spawn(
          [](int w, notify& n, std::atomic<int>& delivered, int total, foreign_canceller& foreign) -> task<void> {
            std::mt19937 rng(static_cast<unsigned>(w) + 77);
            while (delivered.load() < total) {
              std::optional<std::monostate> got;
              if (co_await attempt(n.notified(), got, rng, foreign)) delivered.fetch_add(1);
            }
          }(w, n, delivered, notifications, foreign));
    }
    for (int i = 0; i < notifications; ++i) {
      n.notify_one();
      while (delivered.load() <= i) co_await yield_now();
    }
    for (int w = 0; w < 3; ++w) n.notify_one();  // release waiters still waiting
    co_await waiters.join();
    EXPECT_GE(delivered.load(), notifications);
  }(notifications, foreign));
}

TEST(ComposeStress, EveryTaskEndsOnceAndNothingRunsAfterItWasReportedCancelled) {
  const int tasks = 10000 / scale;
  auto rt = runtime::multi_thread().worker_threads(2).build();
  foreign_canceller foreign;
  std::atomic<int> completed{0};
  std::atomic<int> cancelled_count{0};
  std::atomic<int> frames_gone{0};
  std::atomic<int> ran_after_cancel{0};
  rt.block_on([](int tasks, foreign_canceller& foreign, std::atomic<int>& completed, std::atomic<int>& cancelled_count,
                 std::atomic<int>& frames_gone, std::atomic<int>& ran_after) -> task<void> {
    std::vector<join_handle<void>> all;
    std::mt19937 rng(4242);
    for (int i = 0; i < tasks; ++i) {
      const unsigned kind = rnd(rng) % 6;
      const unsigned seed = rnd(rng);
      all.push_back(spawn([](unsigned kind, unsigned seed, foreign_canceller& foreign, std::atomic<int>& completed,
                             std::atomic<int>& cancelled_count, std::atomic<int>& frames_gone,
                             std::atomic<int>& ran_after) -> task<void> {
        std::mt19937 rng(seed);
        struct frame_end {
          std::atomic<int>& n;
          ~frame_end() { n.fetch_add(1); }
        } end{frames_gone};
        bool done = false;
        switch (kind) {
          case 0: {  // sleep
            std::optional<std::monostate> out;
            done = co_await attempt(sleep(std::chrono::microseconds(rnd(rng) % 200)), out, rng, foreign);
            break;
          }
          case 1: {  // a oneshot whose sender answers after a while
            auto [tx, rx] = oneshot<int>();
            (void)spawn([](oneshot_sender<int> tx, std::chrono::microseconds d) -> task<void> {
              co_await sleep(d);
              (void)std::move(tx).send(1);
            }(std::move(tx), std::chrono::microseconds(rnd(rng) % 200)));
            std::optional<result<int, closed>> out;
            done = co_await attempt(std::move(rx), out, rng, foreign);
            break;
          }
          case 2: {  // a watch change
            auto [tx, rx] = watch<int>(0);
            (void)spawn([](watch_sender<int> tx, std::chrono::microseconds d) -> task<void> {
              co_await sleep(d);
              tx.send(1);
            }(std::move(tx), std::chrono::microseconds(rnd(rng) % 200)));
            std::optional<result<void, closed>> out;
            done = co_await attempt(rx.changed(), out, rng, foreign);
            break;
          }
          case 3: {  // a join_handle
            auto child = spawn([](std::chrono::microseconds d) -> task<int> {
              co_await sleep(d);
              co_return 3;
            }(std::chrono::microseconds(rnd(rng) % 200)));
            std::optional<int> out;
            done = co_await attempt(child, out, rng, foreign);
            break;
          }
          case 4: {  // work offloaded to the compute lane: its result, or dropped / discarded
            const auto work = [] {
              int x = 0;
              for (int k = 0; k < 2000; ++k) x += k % 7;
              return x;
            };
            std::optional<int> out;
            done = co_await attempt(offload(work), out, rng, foreign);
            if (done && *out != work())
              throw std::logic_error("an offload returned a wrong result");  // fails co_await h
            break;
          }
          default: {  // a whole task: nothing of it may run once cancelled is reported
            auto token = random_token(rng, foreign);
            auto steps = std::make_shared<std::atomic<int>>(0);
            auto r = co_await with_cancellation(token, [](std::shared_ptr<std::atomic<int>> steps, int n) -> task<int> {
              for (int k = 0; k < n; ++k) {
                steps->fetch_add(1);
                co_await sleep(std::chrono::microseconds(20));
              }
              co_return n;
            }(steps, static_cast<int>(rnd(rng) % 8)));
            done = r.has_value();
            if (!done) {
              const int seen = steps->load();
              co_await sleep(std::chrono::microseconds(100));
              if (steps->load() != seen) ran_after.fetch_add(1);
            }
          }
        }
        (done ? completed : cancelled_count).fetch_add(1);
      }(kind, seed, foreign, completed, cancelled_count, frames_gone, ran_after)));
    }
    for (auto& h : all) co_await h;
  }(tasks, foreign, completed, cancelled_count, frames_gone, ran_after_cancel));
  EXPECT_EQ(completed.load() + cancelled_count.load(), tasks);
  EXPECT_EQ(frames_gone.load(), tasks);
  EXPECT_EQ(ran_after_cancel.load(), 0);
  EXPECT_GT(completed.load(), 0);
  EXPECT_GT(cancelled_count.load(), 0);
}

TEST(ComposeStress, RandomGroupTreesNeverLeaveAChildBehind) {
  const int trees = 1000 / scale;
  auto rt = runtime::multi_thread().worker_threads(2).build();
  std::atomic<int> started{0};
  std::atomic<int> ended{0};
  std::atomic<int> outlived{0};
  rt.block_on([](int trees, std::atomic<int>& started, std::atomic<int>& ended,
                 std::atomic<int>& outlived) -> task<void> {
    struct node {
      static task<void> run(unsigned seed, int depth, std::atomic<int>& started, std::atomic<int>& ended,
                            std::atomic<int>& outlived, std::shared_ptr<std::atomic<bool>> parent_gone) {
        started.fetch_add(1);
        struct end {
          std::atomic<int>& ended;
          std::atomic<int>& outlived;
          std::shared_ptr<std::atomic<bool>> parent_gone;
          ~end() {
            if (parent_gone->load()) outlived.fetch_add(1);
            ended.fetch_add(1);
          }
        } e{ended, outlived, parent_gone};
        std::mt19937 rng(seed);
        auto gone = std::make_shared<std::atomic<bool>>(false);
        struct mark_gone {  // declared before the group: runs after its destructor
          std::shared_ptr<std::atomic<bool>> gone;
          ~mark_gone() { gone->store(true); }
        } mark{gone};
        {
          task_group g(rnd(rng) % 2 == 0 ? on_failure::cancel_rest : on_failure::wait_rest);
          const int kids = depth < 3 ? static_cast<int>(rnd(rng) % 4) : 0;
          for (int k = 0; k < kids; ++k) g.spawn(run(rnd(rng), depth + 1, started, ended, outlived, gone));
          co_await sleep(std::chrono::microseconds(rnd(rng) % 100));
          if (rnd(rng) % 6 == 0) throw std::runtime_error("node failed");
          if (rnd(rng) % 4 != 0) {
            try {
              co_await g.join();
            } catch (const std::runtime_error&) {
            }
          }
          // else: leave the group unjoined; its destructor cancels the children in place
        }
      }
    };
    std::vector<task<void>> roots;
    std::mt19937 rng(1);
    for (int t = 0; t < trees; ++t) {
      roots.push_back([](unsigned seed, std::atomic<int>& s, std::atomic<int>& e, std::atomic<int>& o) -> task<void> {
        try {
          co_await node::run(seed, 0, s, e, o, std::make_shared<std::atomic<bool>>(false));
        } catch (const std::runtime_error&) {
        }
      }(rnd(rng), started, ended, outlived));
    }
    co_await when_all(std::move(roots), on_failure::wait_rest);
  }(trees, started, ended, outlived));
  EXPECT_EQ(started.load(), ended.load());
  EXPECT_EQ(outlived.load(), 0);
  EXPECT_GT(started.load(), trees);
}

// Counts its frame's end: a coroutine parameter lives in the frame from
// the call, so a task aborted before it first ran counts too.
struct counts_frame_end {
  std::atomic<int>* ended;
  explicit counts_frame_end(std::atomic<int>& n) : ended(&n) {}
  counts_frame_end(counts_frame_end&& other) noexcept : ended(std::exchange(other.ended, nullptr)) {}
  counts_frame_end(const counts_frame_end&) = delete;
  counts_frame_end& operator=(const counts_frame_end&) = delete;
  ~counts_frame_end() {
    if (ended != nullptr) ended->fetch_add(1);
  }
};

// Sleeps kept as deadlines across select loops, re-armed on whichever
// worker polls their task, among plain sleeps due in the same slots, with
// a quarter of the loops aborted at random: no timer is lost (every plain
// sleeper wakes, every loop that was not aborted ends at its deadline), and
// every loop ends exactly once. A kept sleep re-armed while its timer is
// still linked must not cut its slot's list (tests/compose/select_test.cpp).
task<int> loop_until_kept_deadline(clock::time_point deadline, unsigned seed, counts_frame_end) {
  std::mt19937 rng(seed);
  auto kept = sleep_until(deadline);
  int rounds = 0;
  for (;;) {
    auto r = co_await select(sleep(std::chrono::microseconds(20 + rnd(rng) % 400)), kept);
    if (r.index() == 1) break;
    ++rounds;
  }
  if (clock::now() < deadline) throw std::logic_error("a kept deadline won before its time");
  co_return rounds;
}

task<void> sleep_to(clock::time_point at) { co_await sleep_until(at); }

TEST(ComposeStress, KeptDeadlinesAmongPlainSleepsAndRandomAbortsLoseNoTimer) {
  const int loops = 400 / scale;
  auto rt = runtime::multi_thread().worker_threads(2).build();
  std::atomic<int> ended{0};
  const auto [finished, aborted, woke] =
      rt.block_on([](int loops, std::atomic<int>& ended) -> task<std::tuple<int, int, int>> {
        std::mt19937 rng(777);
        const auto start = clock::now();
        std::vector<join_handle<int>> looping;
        std::vector<join_handle<void>> plain;
        for (int i = 0; i < loops; ++i) {
          const auto deadline = start + 2ms + std::chrono::microseconds(rnd(rng) % 20000);
          looping.push_back(spawn(loop_until_kept_deadline(deadline, rnd(rng), counts_frame_end(ended))));
          plain.push_back(spawn(sleep_to(deadline + std::chrono::microseconds(rnd(rng) % 50))));
        }
        for (int i = 0; i < loops / 4; ++i) {
          co_await sleep(std::chrono::microseconds(rnd(rng) % 100));
          looping[rnd(rng) % looping.size()].abort();
        }
        int finished = 0;
        int aborted = 0;
        for (auto& h : looping) {
          try {
            auto r = co_await timeout_until(start + 10s, h);
            finished += r.has_value() ? 1 : 0;
          } catch (const task_cancelled&) {
            ++aborted;
          }
        }
        int woke = 0;
        for (auto& h : plain) woke += (co_await timeout_until(start + 10s, h)).has_value() ? 1 : 0;
        co_return std::tuple{finished, aborted, woke};
      }(loops, ended));
  EXPECT_EQ(finished + aborted, loops);
  EXPECT_GT(finished, 0);
  EXPECT_EQ(woke, loops);
  EXPECT_EQ(ended.load(), loops);
}

// A permit released from another thread while a task races for it (the
// acquire behind a branch that never fires, or in with_cancellation) and
// is aborted at a random moment: every permit ends up received by a task
// or back in the semaphore: one the acquire took in await_suspend goes
// back when the aborted race destroys it.
TEST(ComposeStress, APermitReleasedFromAnotherThreadWhileTheRaceIsAbortedIsNotLost) {
  auto rt = runtime::multi_thread().worker_threads(2).build();
  constexpr int rounds = 5'000;
  semaphore sem(0);
  std::atomic<int> received{0};
  std::atomic<int> started{0};  // rounds the releaser may release for
  std::thread releaser([&sem, &started] {
    std::mt19937 rng(11);
    for (int r = 0; r < rounds; ++r) {
      while (started.load(std::memory_order_acquire) <= r) std::this_thread::yield();
      for (auto spins = rng() % 2'000; spins > 0; --spins) detail::cpu_relax();
      sem.release(1);
    }
  });
  rt.block_on([](semaphore& sem, std::atomic<int>& received, std::atomic<int>& started) -> task<void> {
    std::mt19937 rng(7);
    for (int i = 0; i < rounds; ++i) {
      auto h = spawn([](semaphore& sem, std::atomic<int>& received, bool guarded) -> task<void> {
        notify quiet;
        cancellation_token token;
        if (guarded) {
          auto r = co_await with_cancellation(token, sem.acquire());
          if (r.has_value() && r.value().has_value()) {
            r.value().value().forget();
            received.fetch_add(1);
          }
        } else {
          auto r = co_await select(quiet.notified(), sem.acquire());
          if (r.index() == 1 && std::get<1>(r).has_value()) {
            std::get<1>(r).value().forget();
            received.fetch_add(1);
          }
        }
      }(sem, received, (i % 2) != 0));
      started.store(i + 1, std::memory_order_release);
      for (auto spins = rng() % 3; spins > 0; --spins) co_await yield_now();
      h.abort();
      try {
        co_await h;
      } catch (const task_cancelled&) {
      }
    }
  }(sem, received, started));
  releaser.join();
  EXPECT_EQ(static_cast<int>(sem.available()) + received.load(), rounds);
}

}  // namespace
}  // namespace lanes
