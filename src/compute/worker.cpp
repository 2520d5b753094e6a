// A compute worker's life away from the fork fast path: finding work,
// waiting for a stolen job while working on others, and sleeping.
//
// Spinning before sleeping: a worker that finds nothing looks again for
// `spin_rounds` rounds (the first few with a pause, then yielding the CPU)
// before it announces itself asleep. A fork-join program keeps producing
// work in bursts; sleeping at the first empty look would put a futex wake
// (a few microseconds) on the path of nearly every steal. 64 rounds is
// about 10-30 us on the machines measured (docs/benchmarks.md, S9).
#include <lanes/compute/detail/worker.hpp>

#include <thread>

#include "compute/registry.hpp"

namespace lanes::compute::detail {

namespace {

constexpr unsigned pause_rounds = 16;
constexpr unsigned spin_rounds = 64;

void relax(unsigned round) noexcept {
  if (round < pause_rounds) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  } else {
    std::this_thread::yield();
  }
}

}  // namespace

// A latch's setter found its waiter asleep. The waiter sleeps on the idle
// signal (so that new work wakes it too), among other sleepers: wake them
// all; the others look for work once and go back to sleep. Rare: a waiter
// sleeps only after spinning through `spin_rounds` with nothing to do.
void wake_worker(worker& w) noexcept { w.idle_.wake_all(); }

job* worker::steal() noexcept {
  job* j = owner_.steal_for(*this, victim_seed_);
  if (j != nullptr) count(steals);
  return j;
}

job* worker::find_work() noexcept {
  if (job* j = pop()) return j;
  if (!isolated()) {
    if (job* j = owner_.take_injected()) return j;
  }
  return steal();
}

void worker::wait_until(latch& l) noexcept {
  unsigned idle_rounds = 0;
  while (!l.probe()) {
    if (job* j = find_work()) {
      run(j);
      idle_rounds = 0;
      continue;
    }
    if (idle_rounds < spin_rounds) {
      relax(idle_rounds++);
      continue;
    }
    // Nothing to do: sleep until the latch is set or new work comes. The
    // latch is marked after announce(): a set() that comes later sees the
    // mark and bumps the epoch, which the sleep then notices; one that came
    // earlier is seen by the probe below (its exchange happens-before the
    // bump, which announce()'s epoch load read).
    const std::uint32_t epoch = idle_.announce();
    if (!l.prepare_sleep()) {
      idle_.cancel_sleep();
      return;
    }
    if (job* j = find_work()) {
      idle_.cancel_sleep();
      run(j);
      idle_rounds = 0;
      continue;
    }
    count(sleeps);
    idle_.sleep(epoch);
    idle_rounds = 0;
  }
}

void worker::run_until_stopped() noexcept {
  unsigned idle_rounds = 0;
  for (;;) {
    if (job* j = find_work()) {
      run(j);
      idle_rounds = 0;
      continue;
    }
    if (owner_.stopping()) return;
    if (idle_rounds < spin_rounds) {
      relax(idle_rounds++);
      continue;
    }
    // The protocol of idle_signal.hpp: announce, look once more, sleep.
    const std::uint32_t epoch = idle_.announce();
    if (job* j = find_work()) {
      idle_.cancel_sleep();
      run(j);
      idle_rounds = 0;
      continue;
    }
    if (owner_.stopping()) {
      idle_.cancel_sleep();
      return;
    }
    count(sleeps);
    idle_.sleep(epoch);
    idle_rounds = 0;
  }
}

}  // namespace lanes::compute::detail
