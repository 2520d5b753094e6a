// timer_wheel: a hierarchical timer wheel with 1 us ticks (Tokio's uses
// 1 ms; lanes wants timers to fire within 100 us of their deadline).
//
// Level 0 has 4096 slots of one tick (a 4 ms window); levels 1..8 have 64
// slots each, level L's slots 2^(12 + 6(L-1)) ticks wide. An entry sits in
// the level of the highest bit group in which its deadline differs from
// the wheel's time; when a higher-level slot comes due its entries cascade
// down. Occupancy bitmaps (with a summary word over level 0's 64 words)
// find the next non-empty slot in O(levels), so time passing costs nothing
// until a slot is due. Insert and cancel are O(1) (intrusive lists).
// 2^60 ticks cover 36 thousand years: no overflow list.
//
// Why level 0 is wide: every cascade walks the slot's list, one cache miss
// per entry (an entry lives in its task's frame), and the walks are
// pointer chases that nothing can prefetch. With 64 one-tick slots a
// 100 ms sleep would be walked three times (two cascades and the firing);
// with 4096 it is walked twice, and a timer under 4 ms is never cascaded
// (measured: docs/benchmarks.md, S3).
//
// The run: a coarse slot whose list is in deadline order (timers of one
// duration, set one after another: the common case) is not cascaded at
// all. When it comes due its whole list moves, in O(1), onto the run, a
// list in deadline order that advance() fires from its head, merged with
// the slots by deadline. So such a timer is walked once, when it fires.
// Each slot of levels 1.. knows whether its list is in order (link()
// compares with the tail it appends after). A run entry keeps the level and
// slot it came from; remove() tells it from one still in that slot because
// its slot's time has passed (slot_passed()).
//
// Not thread-safe: the scheduler guards it with one mutex.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include <lanes/io/detail/timer_entry.hpp>

namespace lanes::detail {

class timer_wheel {
 public:
  static constexpr int levels = 9;
  static constexpr int level0_bits = 12;
  static constexpr int upper_bits = 6;

  // Returns false (and does not link) when the deadline is not after the
  // wheel's current time: the caller fires it at once.
  bool insert(timer_entry& entry) noexcept;
  void remove(timer_entry& entry) noexcept;
  struct due_timer {
    std::uint64_t deadline_tick;
    waker to_wake;
  };
  // Unlinks every entry due at or before `now` and appends their wakers to
  // `due`, in deadline order (ties in the order they were inserted): timers
  // that come due together are woken earliest deadline first, even when
  // some sat in a coarser level's slot (which holds a range of deadlines,
  // in insertion order).
  // At most about `limit` (one slot of one tick may overshoot it): then the
  // wheel's time stops short of `now`, and next_deadline() says what is
  // still due. The scheduler fires in batches that its run queue can hold,
  // so that a task is polled soon after its wake touched it: many timers
  // due at once, all woken, would each go cold again in the queue, and the
  // list of due timers would grow to megabytes of fresh memory.
  void advance(std::uint64_t now, std::vector<due_timer>& due, std::size_t limit = SIZE_MAX);
  // Puts due[from..] in deadline order, ties kept in the order found.
  static void sort_by_deadline(std::vector<due_timer>& due, std::size_t from);
  // Unlinks every entry left and drops its waker; each entry's `linked`
  // is cleared last, as a firing does. For the runtime's shutdown, after
  // its tasks' frames are gone: what is left belongs to sleeps kept outside
  // any task, whose destructors then find their timer fired instead of
  // reaching into a wheel that no longer exists.
  void release_all() noexcept;
  // The earliest tick at which advance() could find something due.
  std::optional<std::uint64_t> next_deadline() const noexcept;
  std::uint64_t now() const noexcept { return elapsed_; }
  std::size_t size() const noexcept { return size_; }

 private:
  // One level's slots (2^Bits of them) and which of them hold entries.
  template <int Bits>
  struct level {
    static constexpr int slots = 1 << Bits;
    static constexpr int words = slots >= 64 ? slots / 64 : 1;
    std::uint64_t summary = 0;  // bit w: occupied[w] != 0
    std::array<std::uint64_t, words> occupied{};
    std::array<timer_entry*, slots> heads{};

    void mark(int slot) noexcept;
    void unmark(int slot) noexcept;
    // The first occupied slot at or after `from`, wrapping around; -1 if none.
    int first_occupied_from(int from) const noexcept;
  };
  struct expiration {
    int level;
    int slot;
    std::uint64_t deadline;  // the start of the slot's range
  };
  std::optional<expiration> next_expiration() const noexcept;
  void link(timer_entry& entry, int level, int slot) noexcept;
  timer_entry*& head(int level, int slot) noexcept;
  void unmark(int level, int slot) noexcept;
  // The entry's coarse slot has come due: it is on the run, not in that slot.
  bool slot_passed(const timer_entry& entry) const noexcept;
  // The entries of one taken slot: fired, or linked again a level down.
  void cascade(timer_entry* entry, std::uint64_t now, std::vector<due_timer>& due, std::size_t first, std::size_t limit,
               bool& in_order);
  // Moves a due entry's waker into `due` (the wheel's own state is the caller's to update).
  static void fire(timer_entry& entry, std::vector<due_timer>& due, std::size_t first, bool& in_order);

  std::uint64_t elapsed_ = 0;
  std::size_t size_ = 0;
  level<level0_bits> level0_;
  std::array<level<upper_bits>, levels - 1> upper_;
  // Entries of coarse slots that came due in deadline order, earliest
  // first (the head's prev is the tail, as in a slot's list).
  timer_entry* run_ = nullptr;
  // Bit s of word L-1: level L's slot s was appended out of deadline order.
  std::array<std::uint64_t, levels - 1> unsorted_{};
};

}  // namespace lanes::detail
