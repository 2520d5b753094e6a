// timer_wheel: a hierarchical timing wheel with 1 us ticks (Tokio's uses
// 1 ms; lanes wants timers to fire within 100 us of their deadline).
//
// 10 levels of 64 slots: level L slot s holds entries whose deadline falls
// in the s-th 64^L-tick range of the current 64^(L+1)-tick window. A 64-bit
// occupancy mask per level finds the next non-empty slot in O(levels), so
// time passing costs nothing until a slot is due; when a higher-level slot
// comes due its entries cascade down. Insert and cancel are O(1)
// (intrusive lists). 64^10 us covers 36 thousand years: no overflow list.
//
// Not thread-safe: the scheduler guards it with one mutex.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include <lanes/io/detail/timer_entry.hpp>

namespace lanes::detail {

class timer_wheel {
 public:
  static constexpr int levels = 10;
  static constexpr int slots_per_level = 64;

  // Returns false (and does not link) when the deadline is not after the
  // wheel's current time: the caller fires it at once.
  bool insert(timer_entry& entry) noexcept;
  void remove(timer_entry& entry) noexcept;
  struct due_timer {
    std::uint64_t deadline_tick;
    waker to_wake;
  };
  // Unlinks every entry due at or before `now` and appends their wakers to
  // `due`, in deadline order (ties in the order they were found): timers
  // that come due together are woken earliest deadline first, even when
  // some sat in a coarser level's slot (which holds them unordered).
  void advance(std::uint64_t now, std::vector<due_timer>& due);
  // The earliest tick at which advance() could find something due.
  std::optional<std::uint64_t> next_deadline() const noexcept;
  std::uint64_t now() const noexcept { return elapsed_; }
  std::size_t size() const noexcept { return size_; }

 private:
  struct slot_list {
    timer_entry* head = nullptr;
  };
  struct level {
    std::uint64_t occupied = 0;
    std::array<slot_list, slots_per_level> slots{};
  };
  struct expiration {
    int level;
    int slot;
    std::uint64_t deadline;  // the start of the slot's range
  };
  std::optional<expiration> next_expiration() const noexcept;
  void link(timer_entry& entry, int level, int slot) noexcept;

  std::uint64_t elapsed_ = 0;
  std::size_t size_ = 0;
  std::array<level, levels> levels_{};
};

}  // namespace lanes::detail
