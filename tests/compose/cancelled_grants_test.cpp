// A grant taken by a race branch and never received is given back: the
// branch's await_suspend took a permit, a lock, a stored notification or a
// signal and returned false, the race suspended and woke itself (a branch
// before it had registered), and the task was aborted before it ran again.
// The grant becomes available as the branch before it arms, so the case
// is deterministic; positions: select's branches 1 and 2, and a timeout
// (the operation its branch 0) nested in a select. compose_stress_test.cpp
// races releases from another thread against aborts, with_cancellation
// (the token is branch 0) among them.
#include <gtest/gtest.h>

#include <signal.h>

#include <atomic>
#include <chrono>
#include <coroutine>
#include <functional>
#include <utility>

#include <lanes/compose/select.hpp>
#include <lanes/io/runtime.hpp>
#include <lanes/io/signal_set.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/io/timeout.hpp>
#include <lanes/io/yield.hpp>
#include <lanes/sync/mutex.hpp>
#include <lanes/sync/notify.hpp>
#include <lanes/sync/semaphore.hpp>

namespace lanes {
namespace {

using namespace std::chrono_literals;

enum class position { select_second, select_third, timeout_in_select };
constexpr position all_positions[] = {position::select_second, position::select_third, position::timeout_in_select};

// A race branch that never fires and, as it arms, makes the grant
// available (release, unlock, notify, raise): the branch after it then
// finds it in await_suspend rather than in await_ready.
struct grant_on_arm {
  std::function<void()> make_available;
  detail::waker kept;  // never woken
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) {
    auto& self = detail::require_current_task("grant_on_arm");
    self.set_resume_point(h);
    kept = self.make_waker();
    make_available();
    return true;
  }
  void await_resume() const noexcept {}
};

// Awaits `make_op()` in `where`, behind branches that never fire; sets
// `past` if the race returned.
template <class MakeOp>
task<void> contender(position where, std::function<void()> make_available, MakeOp make_op, bool& past) {
  switch (where) {
    case position::select_second:
      (void)co_await select(grant_on_arm{make_available, {}}, make_op());
      break;
    case position::select_third:
      (void)co_await select(grant_on_arm{make_available, {}}, sleep(1h), make_op());
      break;
    case position::timeout_in_select:
      (void)co_await select(grant_on_arm{make_available, {}}, timeout(1h, make_op()));
      break;
  }
  past = true;
}

// Spawns the contender on the one io worker, lets it run one poll (its
// race takes the grant and wakes itself), aborts it, and awaits the abort.
template <class MakeOp>
task<void> abort_after_first_poll(position where, std::function<void()> make_available, MakeOp make_op) {
  bool past = false;
  auto h = spawn(contender(where, std::move(make_available), make_op, past));
  co_await yield_now();  // the contender's first poll runs now
  EXPECT_FALSE(past) << "the race did not suspend: the case under test did not happen";
  h.abort();
  EXPECT_THROW(co_await h, task_cancelled);
}

TEST(CancelledGrants, ASemaphorePermitGoesBack) {
  auto rt = runtime::multi_thread().worker_threads(1).build();
  for (const position where : all_positions) {
    semaphore sem(0);
    rt.block_on(abort_after_first_poll(
        where, [&sem] { sem.release(1); }, [&sem] { return sem.acquire(); }));
    EXPECT_EQ(sem.available(), 1U) << "position " << static_cast<int>(where);
  }
}

TEST(CancelledGrants, AMutexIsUnlocked) {
  auto rt = runtime::multi_thread().worker_threads(1).build();
  for (const position where : all_positions) {
    mutex m;
    auto held = m.try_lock();
    rt.block_on(abort_after_first_poll(
        where, [&held] { held->unlock(); }, [&m] { return m.lock(); }));
    EXPECT_TRUE(m.try_lock().has_value()) << "position " << static_cast<int>(where);
  }
}

TEST(CancelledGrants, AStoredNotificationStaysStored) {
  auto rt = runtime::multi_thread().worker_threads(1).build();
  for (const position where : all_positions) {
    notify n;
    rt.block_on([](position where, notify& n) -> task<void> {
      // notify_one() with nobody waiting stores a permit: the next
      // notified() takes it in await_suspend.
      co_await abort_after_first_poll(
          where, [&n] { n.notify_one(); }, [&n] { return n.notified(); });
      auto again = co_await timeout(1s, n.notified());
      EXPECT_TRUE(again.has_value()) << "position " << static_cast<int>(where);
    }(where, n));
  }
}

TEST(CancelledGrants, ASignalIsDeliveredAgain) {
  auto rt = runtime::multi_thread().worker_threads(1).build();
  for (const position where : all_positions) {
    rt.block_on([](position where) -> task<void> {
      signal_set set{SIGUSR2};
      co_await abort_after_first_poll(
          where, [] { ::raise(SIGUSR2); }, [&set] { return set.recv(); });
      auto again = co_await timeout(1s, set.recv());
      EXPECT_TRUE(again.has_value()) << "position " << static_cast<int>(where);
      if (again.has_value()) {
        EXPECT_EQ(again.value(), SIGUSR2);
      }
    }(where));
  }
}

}  // namespace
}  // namespace lanes
