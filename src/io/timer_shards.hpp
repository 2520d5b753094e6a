// timer_shards: the runtime's timers, one timer wheel per worker, each
// behind its own lock (Tokio shards its wheels the same way since 1.39).
//
// Why: with one wheel and one mutex, two workers registering timers at
// once (every first poll of a sleeper, every request with a timeout) would
// take turns on the lock, its cache line would cross cores on every
// insert, and a contended std::mutex makes futex calls. A worker inserts
// into its own shard, whose lock nobody else wants except to cancel a timer that
// migrated with its task, or to fire.
//
// The lock is a spin_lock: it is taken for a few instructions per insert
// and cancel, almost never contended, and a std::mutex's lock and unlock
// are two atomic read-modify-writes and two calls each time (measured:
// docs/benchmarks.md, "timeouts"). The longest hold is a firing, bounded by
// the run queue's room (plus a coarse slot cascaded out of order).
//
// Who touches what: an entry records its shard, so cancel() locks the
// shard that holds it from any thread. advance() (the worker in the driver,
// or a busy worker's maintenance) visits every shard, its own first, each
// under that shard's lock, and hands back everything due in deadline order.
// next_deadline() is the minimum over the shards, read one lock at a time:
// the scheduler announces "parked, deadline unknown" before calling it, so
// that a timer inserted into a shard already read sees the announcement
// and wakes the driver (scheduler::sleep, scheduler::timer_register).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "io/spin_lock.hpp"
#include "io/timer_wheel.hpp"

namespace lanes::detail {

class timer_shards {
 public:
  explicit timer_shards(unsigned count);

  // Links `entry` (its deadline_tick set) into `shard`; false (not linked)
  // when that shard's time has reached the deadline: fire it at once.
  bool insert(unsigned shard, timer_entry& entry) noexcept;
  // Unlinks `entry` if it is still pending; false when it has fired. The
  // caller skips timers it sees fired (`linked` clear) without calling.
  bool cancel(timer_entry& entry) noexcept;
  // Everything due at `now` in deadline order. `all` (the worker in the
  // driver, which fires for everyone): every shard, waiting for each lock.
  // Otherwise (a busy worker's maintenance) only shards whose `earliest`
  // says something may be due: `own` waiting for its lock, the others only
  // if their lock is free (a shard locked right now is being fired by
  // someone else or written by its owner, who fires it at its own
  // maintenance). So maintenance takes no lock, and touches no other
  // worker's cache line but to read it, until a timer is due. At most
  // about `limit` timers in all (timer_wheel::advance).
  void advance(std::uint64_t now, unsigned own, bool all, std::vector<timer_wheel::due_timer>& due,
               std::size_t limit = SIZE_MAX);
  // Every shard's timer_wheel::release_all(), for the runtime's shutdown.
  void release_all() noexcept;
  // The earliest tick at which advance() could find something due.
  std::optional<std::uint64_t> next_deadline() const;
  // Timers pending in all shards (a hint: each shard's count is read alone).
  std::size_t pending() const noexcept;

 private:
  // Aligned, and so a whole number of cache lines: one worker's lock and
  // count never share a line with another shard's (they did, end to start
  // of two separate allocations, and every insert moved the line).
  struct alignas(64) shard {
    mutable spin_lock mutex;
    std::atomic<std::size_t> pending{0};  // wheel.size(), written under the mutex
    // No timer in the wheel is due before this tick (it may be earlier than
    // the first: a cancel leaves it). Written under the mutex, read as a hint.
    std::atomic<std::uint64_t> earliest{UINT64_MAX};
    timer_wheel wheel;
  };
  std::vector<std::unique_ptr<shard>> shards_;
};

}  // namespace lanes::detail
