// A compute worker's life away from the fork fast path: finding work,
// waiting for a stolen job while working on others, and sleeping.
//
// Spinning before sleeping: a worker that finds nothing keeps looking for
// `idle_spin` (the first `spin_for` with a pause between looks, then
// yielding the CPU) before it announces itself asleep. A fork-join program
// produces work in bursts, and waking a sleeping thread is slow where it
// matters: a futex wake-up to running can take hundreds of microseconds
// in a virtual machine, so a pool whose workers slept between two
// parallel calls loses a large share of a short one (measured:
// docs/benchmarks.md, S9). `idle_spin` of looking covers back-to-back
// calls; it costs an idle pool that much yielding after each burst, and compute threads run below the io lane's
// priority (pool.hpp: thread_priority) so that io workers preempt them
// meanwhile.
#include <lanes/compute/detail/worker.hpp>

#include <chrono>
#include <thread>

#include <lanes/detail/cpu_relax.hpp>
#include "compute/pool_state.hpp"

namespace lanes::compute::detail {

namespace {

constexpr std::chrono::microseconds spin_for{20};
constexpr std::chrono::microseconds idle_spin{100};
constexpr unsigned steal_every = 32;

// Counts the rounds of one idle spell; false once it has lasted idle_spin.
// The first `spin_for` only pause between looks: a sched_yield costs a
// microsecond or so even with nothing else to run, and work that lands
// during one waits for it to return (the offload round trip, S4). While
// pausing, a worker tries to steal only every `steal_every` rounds: a
// thief that reads a busy worker's deque indices every few nanoseconds
// takes their cache lines from it on every push and pop (measured: the
// join cost of S9).
class idle_spell {
 public:
  bool keep_looking() noexcept {
    if (round_++ == 0) since_ = std::chrono::steady_clock::now();
    if (round_ % 8 != 0) {
      lanes::detail::cpu_relax();
      return true;
    }
    const auto idle_for = std::chrono::steady_clock::now() - since_;
    if (idle_for >= idle_spin) return false;
    yielding_ = idle_for >= spin_for;
    if (yielding_) {
      std::this_thread::yield();
    } else {
      lanes::detail::cpu_relax();
    }
    return true;
  }
  // Whether this round's look may steal (the injector is always looked at).
  bool may_steal() const noexcept { return yielding_ || round_ % steal_every == 0; }
  void reset() noexcept {
    round_ = 0;
    yielding_ = false;
  }

 private:
  unsigned round_ = 0;
  bool yielding_ = false;
  std::chrono::steady_clock::time_point since_{};
};

}  // namespace

// A latch's setter found its waiter asleep. The waiter sleeps on the idle
// signal (so that new work wakes it too), among other sleepers: wake them
// all; the others look for work once and go back to sleep. Rare: a waiter
// sleeps only after looking for `idle_spin` with nothing to do.
void wake_worker(worker& w) noexcept { w.wakeups_.notify_all(); }

job* worker::steal() noexcept {
  job* j = owner_.steal_for(*this, victim_seed_);
  if (j != nullptr) count(steals);
  return j;
}

job* worker::find_work(bool may_steal) noexcept {
  if (job* j = pop()) return j;
  if (!isolated()) {
    if (job* j = owner_.take_injected()) return j;
  }
  return may_steal ? steal() : nullptr;
}

void worker::wait_until(latch& l) noexcept {
  idle_spell idle;
  while (!l.probe()) {
    if (job* j = find_work(idle.may_steal())) {
      run(j);
      idle.reset();
      continue;
    }
    if (idle.keep_looking()) continue;
    // Nothing to do: sleep until the latch is set or new work comes. The
    // latch is marked after prepare_wait(): a set() that comes later reads
    // the mark (acquire), so its notify sees this worker counted and
    // advances the epoch past the key; one that came earlier makes the
    // mark fail (prepare_sleep is false) and nothing sleeps.
    const auto key = wakeups_.prepare_wait();
    if (!l.prepare_sleep()) {
      wakeups_.cancel_wait(key);
      return;
    }
    if (job* j = find_work()) {
      wakeups_.cancel_wait(key);
      run(j);
      idle.reset();
      continue;
    }
    count(sleeps);
    wakeups_.wait(key);
    idle.reset();
  }
}

void worker::run_until_stopped() noexcept {
  idle_spell idle;
  for (;;) {
    if (job* j = find_work(idle.may_steal())) {
      run(j);
      idle.reset();
      continue;
    }
    if (owner_.stopping()) return;
    if (idle.keep_looking()) continue;
    // The event count's protocol: prepare, look once more, wait.
    const auto key = wakeups_.prepare_wait();
    if (job* j = find_work()) {
      wakeups_.cancel_wait(key);
      run(j);
      idle.reset();
      continue;
    }
    if (owner_.stopping()) {
      wakeups_.cancel_wait(key);
      return;
    }
    count(sleeps);
    wakeups_.wait(key);
    idle.reset();
  }
}

}  // namespace lanes::compute::detail
