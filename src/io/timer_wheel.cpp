// timer_wheel: insert, cancel, and advancing time (see timer_wheel.hpp).
#include "io/timer_wheel.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>

namespace lanes::detail {

namespace {

constexpr int bits_per_level = 6;

// The level whose window separates `elapsed` from `deadline`: the highest
// 6-bit group in which they differ.
int level_for(std::uint64_t elapsed, std::uint64_t deadline) noexcept {
  const std::uint64_t significant = (elapsed ^ deadline) | (timer_wheel::slots_per_level - 1);
  const int bit = 63 - std::countl_zero(significant);
  const int level = bit / bits_per_level;
  return level < timer_wheel::levels ? level : timer_wheel::levels - 1;
}

int slot_for(std::uint64_t deadline, int level) noexcept {
  return static_cast<int>((deadline >> (level * bits_per_level)) & (timer_wheel::slots_per_level - 1));
}

}  // namespace

void timer_wheel::link(timer_entry& entry, int lvl, int slot) noexcept {
  auto& list = levels_[lvl].slots[slot];
  entry.prev = nullptr;
  entry.next = list.head;
  if (list.head != nullptr) list.head->prev = &entry;
  list.head = &entry;
  entry.level = static_cast<std::uint8_t>(lvl);
  entry.slot = static_cast<std::uint8_t>(slot);
  entry.linked.store(true, std::memory_order_relaxed);
  levels_[lvl].occupied |= std::uint64_t{1} << slot;
}

bool timer_wheel::insert(timer_entry& entry) noexcept {
  if (entry.deadline_tick <= elapsed_) return false;
  const int lvl = level_for(elapsed_, entry.deadline_tick);
  link(entry, lvl, slot_for(entry.deadline_tick, lvl));
  ++size_;
  return true;
}

void timer_wheel::remove(timer_entry& entry) noexcept {
  if (!entry.linked.load(std::memory_order_relaxed)) return;
  auto& lvl = levels_[entry.level];
  auto& list = lvl.slots[entry.slot];
  if (entry.prev != nullptr) {
    entry.prev->next = entry.next;
  } else {
    list.head = entry.next;
  }
  if (entry.next != nullptr) entry.next->prev = entry.prev;
  if (list.head == nullptr) lvl.occupied &= ~(std::uint64_t{1} << entry.slot);
  entry.prev = entry.next = nullptr;
  entry.linked.store(false, std::memory_order_relaxed);  // the caller owns the entry
  --size_;
}

std::optional<timer_wheel::expiration> timer_wheel::next_expiration() const noexcept {
  std::optional<expiration> best;
  for (int lvl = 0; lvl < levels; ++lvl) {
    const std::uint64_t occupied = levels_[lvl].occupied;
    if (occupied == 0) continue;
    const int shift = lvl * bits_per_level;
    const std::uint64_t slot_range = std::uint64_t{1} << shift;
    const std::uint64_t level_range = std::uint64_t{1} << (shift + bits_per_level);  // at most 2^60
    const int now_slot = slot_for(elapsed_, lvl);
    // The first occupied slot at or after the current one, wrapping around.
    const std::uint64_t rotated = std::rotr(occupied, now_slot);
    const int slot = (now_slot + std::countr_zero(rotated)) % slots_per_level;
    const std::uint64_t level_start = elapsed_ & ~(level_range - 1);
    std::uint64_t deadline = level_start + static_cast<std::uint64_t>(slot) * slot_range;
    if (slot < now_slot) deadline += level_range;  // wrapped: the next window
    if (!best || deadline < best->deadline) best = expiration{lvl, slot, deadline};
  }
  return best;
}

std::optional<std::uint64_t> timer_wheel::next_deadline() const noexcept {
  const auto next = next_expiration();
  if (!next) return std::nullopt;
  return next->deadline < elapsed_ ? elapsed_ : next->deadline;
}

void timer_wheel::advance(std::uint64_t now, std::vector<due_timer>& due) {
  const std::size_t first = due.size();
  bool in_order = true;
  while (const auto next = next_expiration()) {
    if (next->deadline > now) break;
    // Take the whole slot, then fire or cascade each entry from the slot's time.
    auto& lvl = levels_[next->level];
    timer_entry* entry = lvl.slots[next->slot].head;
    lvl.slots[next->slot].head = nullptr;
    lvl.occupied &= ~(std::uint64_t{1} << next->slot);
    if (next->deadline > elapsed_) elapsed_ = next->deadline;
    while (entry != nullptr) {
      timer_entry* following = entry->next;
      entry->prev = entry->next = nullptr;
      --size_;
      if (entry->deadline_tick <= now) {
        if (due.size() > first && due.back().deadline_tick > entry->deadline_tick) in_order = false;
        due.push_back(due_timer{entry->deadline_tick, static_cast<waker&&>(entry->to_wake)});
        // The last touch of a fired entry (see timer_entry.hpp): from here
        // its owner may find it fired and destroy it.
        entry->linked.store(false, std::memory_order_release);
      } else {
        insert(*entry);  // deadline > now >= elapsed_: lands on a lower level (still linked)
      }
      entry = following;
    }
  }
  if (now > elapsed_) elapsed_ = now;
  // Slots come due in time order, but one slot's list is unordered, and a
  // coarse slot can start before a finer one holding earlier deadlines.
  if (!in_order) {
    std::stable_sort(due.begin() + static_cast<std::ptrdiff_t>(first), due.end(),
                     [](const due_timer& a, const due_timer& b) { return a.deadline_tick < b.deadline_tick; });
  }
}

}  // namespace lanes::detail
