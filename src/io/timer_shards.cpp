// timer_shards: one timer wheel per worker (see timer_shards.hpp).
#include "io/timer_shards.hpp"

#include <cstdint>

namespace lanes::detail {

timer_shards::timer_shards(unsigned count) {
  shards_.reserve(count);
  for (unsigned i = 0; i < count; ++i) shards_.push_back(std::make_unique<shard>());
}

bool timer_shards::insert(unsigned index, timer_entry& entry) noexcept {
  shard& s = *shards_[index];
  entry.shard = static_cast<std::uint16_t>(index);  // < max_lane_threads
  std::lock_guard lock(s.mutex);
  if (!s.wheel.insert(entry)) return false;
  s.pending.store(s.wheel.size(), std::memory_order_release);
  if (entry.deadline_tick < s.earliest.load(std::memory_order_relaxed)) {
    s.earliest.store(entry.deadline_tick, std::memory_order_relaxed);
  }
  return true;
}

bool timer_shards::cancel(timer_entry& entry) noexcept {
  // A timer that fired (most end this way) is not brought here: its owner
  // reads `linked` first (timer_registration::disarm), since after a
  // shutdown this object may be gone. Here it is read again under the lock,
  // for a timer that fires meanwhile.
  shard& s = *shards_[entry.shard];
  waker dropped;  // released after the lock
  {
    std::lock_guard lock(s.mutex);
    if (!entry.linked.load(std::memory_order_relaxed)) return false;  // fired meanwhile
    s.wheel.remove(entry);
    s.pending.store(s.wheel.size(), std::memory_order_release);
    dropped = static_cast<waker&&>(entry.to_wake);
  }
  return true;
}

void timer_shards::advance(std::uint64_t now, unsigned own, bool all, std::vector<timer_wheel::due_timer>& due,
                           std::size_t limit) {
  const std::size_t start = due.size();
  unsigned contributed = 0;
  const auto n = static_cast<unsigned>(shards_.size());
  for (unsigned k = 0; k < n; ++k) {
    // At the limit, the shards left keep their hints: still due, fired next time.
    if (due.size() - start >= limit) break;
    shard& s = *shards_[(own + k) % n];
    std::unique_lock lock(s.mutex, std::defer_lock);
    if (!all && s.earliest.load(std::memory_order_relaxed) > now) continue;  // nothing due there yet
    if (all || k == 0) {
      lock.lock();
    } else if (!lock.try_lock()) {
      continue;
    }
    const std::size_t before = due.size();
    s.wheel.advance(now, due, limit - (before - start));  // also moves an empty shard's time up to now
    s.pending.store(s.wheel.size(), std::memory_order_release);
    const auto next = s.wheel.next_deadline();
    s.earliest.store(next ? *next : UINT64_MAX, std::memory_order_relaxed);
    lock.unlock();
    if (due.size() != before) ++contributed;
  }
  // Each shard's part is in deadline order; merge them when several fired.
  if (contributed > 1) timer_wheel::sort_by_deadline(due, start);
}

void timer_shards::release_all() noexcept {
  for (auto& s : shards_) {
    std::lock_guard lock(s->mutex);
    s->wheel.release_all();
    s->pending.store(0, std::memory_order_release);
    s->earliest.store(UINT64_MAX, std::memory_order_relaxed);
  }
}

std::optional<std::uint64_t> timer_shards::next_deadline() const {
  std::optional<std::uint64_t> earliest;
  for (const auto& s : shards_) {
    // Every shard under its lock, even one that looks empty: the lock is
    // what orders the caller's announcement against a concurrent insert
    // (a skipped shard would be a store-load race, and a lost wake-up).
    std::lock_guard lock(s->mutex);
    const auto next = s->wheel.next_deadline();
    if (next && (!earliest || *next < *earliest)) earliest = next;
  }
  return earliest;
}

std::size_t timer_shards::pending() const noexcept {
  std::size_t total = 0;
  for (const auto& s : shards_) total += s->pending.load(std::memory_order_acquire);
  return total;
}

}  // namespace lanes::detail
