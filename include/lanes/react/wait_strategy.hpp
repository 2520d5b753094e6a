// Wait strategies: what a react thread (or any thread reading a ring) does
// while it has nothing to do. Latency bought with CPU, or CPU saved at the
// price of a wake-up:
//
//   strategy          idle cost                 wake-up when work arrives
//   busy_spin         a whole core, always      ~one cache miss (tens of ns)
//   spin_then_yield   a whole core, shared      same while spinning; a
//                     politely with others      scheduler tick when yielded
//   spin_then_park    a core for `spin_for`,    fast within the spell; a futex
//                     then nothing              wake (µs) after it
//   blocking          nothing                   a futex wake (µs), always
//
// When to use which:
//  - busy_spin: the reason the react lane exists - a tick or packet must be
//    handled within a bound, and the core is the price. Pair it with a
//    reserved core (react_thread does that) so nothing else runs there.
//  - spin_then_yield: latency-sensitive, but the core might have to be
//    shared (more spinning threads than cores, a developer laptop).
//  - spin_then_park: bursty input where a burst wants spinning latency and
//    the quiet between bursts should cost nothing (a session that trades
//    for an hour a day).
//  - blocking: background consumers (the logging ring's writer, tests).
// Parking strategies need rings made with ring_options{.consumer_may_park
// = true} (every publish then pays one fence to look for a sleeper);
// react_thread checks that at start and says so if not.
//
// Pluggable: derive from wait_strategy. wait() is called when a poll found
// nothing, and returns when ctx.ready() is true (work, a closed input, or
// stop) - or sooner: the caller polls again and calls it again.
#pragma once

#include <chrono>
#include <cstdint>
#include <string_view>
#include <thread>

#include <lanes/detail/cpu_relax.hpp>
#include <lanes/detail/saturating_time.hpp>
#include <lanes/react/detail/ring_side.hpp>
#include <lanes/react/spsc_ring.hpp>

namespace lanes::react {

// What a waiting thread offers its strategy.
class idle_context {
 public:
  // Work is there (an input has items, an input closed) or stop was asked.
  // Cheap: reads each input's index; no side effects.
  virtual bool ready() = 0;
  // Sleeps until an input's producer publishes (or closes) or stop wakes
  // the thread. May return early (work found while arming, a wake-up meant
  // for an earlier sleep). Only for strategies whose parks() is true.
  virtual void park() = 0;

 protected:
  ~idle_context() = default;
};

class wait_strategy {
 public:
  virtual ~wait_strategy() = default;
  virtual void wait(idle_context& ctx) const = 0;
  // True when wait() may call ctx.park(): the inputs must be parkable.
  virtual bool parks() const noexcept = 0;
  virtual std::string_view name() const noexcept = 0;
};

// Spins on the inputs with the CPU's spin-loop hint (x86 `pause`, arm
// `yield`) between reads, so a hyper-threaded sibling keeps its share and
// the loop exit is not a memory-order mis-speculation.
class busy_spin final : public wait_strategy {
 public:
  void wait(idle_context& ctx) const override {
    while (!ctx.ready()) lanes::detail::cpu_relax();
  }
  bool parks() const noexcept override { return false; }
  std::string_view name() const noexcept override { return "busy_spin"; }
};

// Spins `spins` times, then gives the core to any other runnable thread
// between reads (sched_yield): with nothing else runnable it is still a
// spinning core.
class spin_then_yield final : public wait_strategy {
 public:
  explicit spin_then_yield(std::uint32_t spins = 10'000) noexcept : spins_(spins) {}
  void wait(idle_context& ctx) const override {
    for (std::uint32_t i = 0; i < spins_; ++i) {
      if (ctx.ready()) return;
      lanes::detail::cpu_relax();
    }
    while (!ctx.ready()) std::this_thread::yield();
  }
  bool parks() const noexcept override { return false; }
  std::string_view name() const noexcept override { return "spin_then_yield"; }

 private:
  std::uint32_t spins_;
};

// Spins for `spin_for`, then sleeps on a futex until a producer or stop
// wakes it. The clock is read every 64 spins, not every one.
class spin_then_park final : public wait_strategy {
 public:
  explicit spin_then_park(std::chrono::nanoseconds spin_for = std::chrono::microseconds(50)) noexcept
      : spin_for_(spin_for) {}
  void wait(idle_context& ctx) const override {
    const auto until = lanes::detail::deadline_from_now(spin_for_);
    for (std::uint32_t i = 1;; ++i) {
      if (ctx.ready()) return;
      lanes::detail::cpu_relax();
      if (i % 64 == 0 && std::chrono::steady_clock::now() >= until) break;
    }
    while (!ctx.ready()) ctx.park();
  }
  bool parks() const noexcept override { return true; }
  std::string_view name() const noexcept override { return "spin_then_park"; }

 private:
  std::chrono::nanoseconds spin_for_;
};

// Sleeps at once: no CPU while idle, a futex wake-up per idle spell.
class blocking final : public wait_strategy {
 public:
  void wait(idle_context& ctx) const override {
    while (!ctx.ready()) ctx.park();
  }
  bool parks() const noexcept override { return true; }
  std::string_view name() const noexcept override { return "blocking"; }
};

namespace detail {

// One ring's side, waited on by a plain thread (not a react_thread).
template <class Ready, class Arm, class Disarm>
class one_ring_idle final : public idle_context {
 public:
  one_ring_idle(Ready ready, Arm arm, Disarm disarm) : ready_(ready), arm_(arm), disarm_(disarm) {}
  bool ready() override { return ready_(); }
  void park() override {
    const auto key = wakeups_.prepare_wait();
    if (!arm_(wake_target_of(wakeups_))) {  // the re-check found it ready: taken back, no wake-up coming
      wakeups_.cancel_wait(key);
      return;
    }
    wakeups_.wait(key);  // returns at once if the wake-up came already
    disarm_();           // once it returns, the producer is done with wakeups_
  }

 private:
  Ready ready_;
  Arm arm_;
  Disarm disarm_;
  lanes::detail::event_count wakeups_;
};

// Waits on a plain thread until the side is ready (ring_side.hpp).
template <class Side>
void wait_until_ready(Side& side, const wait_strategy& strategy) {
  using traits = ring_side<Side>;
  if (traits::ready(side)) return;
  one_ring_idle ctx([&] { return traits::ready(side); }, [&](wake_target t) { return traits::arm(side, t); },
                    [&] { side.disarm_wait(); });
  strategy.wait(ctx);
}

}  // namespace detail

// Waits on a plain thread until `rx` has an item (true) or its producer is
// gone and it is empty (false).
template <class T>
bool wait_for_items(ring_consumer<T>& rx, const wait_strategy& strategy) {
  detail::wait_until_ready(rx, strategy);
  return !rx.empty();
}

// Waits on a plain thread until `tx` has a free slot (true) or its
// consumer is gone (false: nothing pushed would be read).
template <class T>
bool wait_for_space(ring_producer<T>& tx, const wait_strategy& strategy) {
  detail::wait_until_ready(tx, strategy);
  return !tx.consumer_gone();
}

// Pushes from a plain thread, waiting for space with `strategy`. False
// (and the item dropped) when the consumer is gone.
template <class T, class U>
bool push_wait(ring_producer<T>& tx, U&& item, const wait_strategy& strategy) {
  while (true) {
    if (tx.consumer_gone()) return false;
    if (tx.try_push(std::forward<U>(item))) return true;  // a failed try_push leaves item untouched
    if (!wait_for_space(tx, strategy)) return false;
  }
}

}  // namespace lanes::react
