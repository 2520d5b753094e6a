// timer_wheel: insert, cancel, and advancing time (see timer_wheel.hpp).
#include "io/timer_wheel.hpp"

#include <algorithm>
#include <bit>
#include <cstddef>

namespace lanes::detail {

namespace {

constexpr int level0_bits = timer_wheel::level0_bits;
constexpr int upper_bits = timer_wheel::upper_bits;

// Where level `lvl`'s slots start in a tick's bits, and how many bits pick one.
constexpr int shift_of(int lvl) noexcept { return lvl == 0 ? 0 : level0_bits + (lvl - 1) * upper_bits; }
constexpr int bits_of(int lvl) noexcept { return lvl == 0 ? level0_bits : upper_bits; }
static_assert(shift_of(timer_wheel::levels - 1) + upper_bits == 60, "the levels cover the scheduler's 2^60 ticks");

// The level whose window separates `elapsed` from `deadline`: the highest
// bit group in which they differ.
int level_for(std::uint64_t elapsed, std::uint64_t deadline) noexcept {
  const std::uint64_t differ = elapsed ^ deadline;
  if (differ < (std::uint64_t{1} << level0_bits)) return 0;
  const int bit = 63 - std::countl_zero(differ);
  const int lvl = 1 + (bit - level0_bits) / upper_bits;
  return lvl < timer_wheel::levels ? lvl : timer_wheel::levels - 1;
}

int slot_for(std::uint64_t deadline, int lvl) noexcept {
  return static_cast<int>((deadline >> shift_of(lvl)) & ((std::uint64_t{1} << bits_of(lvl)) - 1));
}

// Unlinks `entry` from the list headed by `list` (a slot's, or the run):
// in insertion order, the head's prev pointing to the tail.
void unlink(timer_entry*& list, timer_entry& entry) noexcept {
  if (&entry == list) {
    list = entry.next;
    if (list != nullptr) list->prev = entry.prev;  // the tail
  } else {
    entry.prev->next = entry.next;
    // The following entry's prev, or (removing the tail) the head's.
    (entry.next != nullptr ? entry.next : list)->prev = entry.prev;
  }
}

}  // namespace

template <int Bits>
void timer_wheel::level<Bits>::mark(int slot) noexcept {
  const int w = slot / 64;
  occupied[static_cast<std::size_t>(w)] |= std::uint64_t{1} << (slot % 64);
  summary |= std::uint64_t{1} << w;
}

template <int Bits>
void timer_wheel::level<Bits>::unmark(int slot) noexcept {
  const int w = slot / 64;
  auto& word = occupied[static_cast<std::size_t>(w)];
  word &= ~(std::uint64_t{1} << (slot % 64));
  if (word == 0) summary &= ~(std::uint64_t{1} << w);
}

template <int Bits>
int timer_wheel::level<Bits>::first_occupied_from(int from) const noexcept {
  if (summary == 0) return -1;
  const int w = from / 64;
  // The rest of `from`'s word, then the words after it, then wrap around
  // to the first occupied word (which may be `from`'s, below `from`).
  const std::uint64_t here = occupied[static_cast<std::size_t>(w)] & (~std::uint64_t{0} << (from % 64));
  if (here != 0) return w * 64 + std::countr_zero(here);
  const std::uint64_t later = w == 63 ? 0 : summary & (~std::uint64_t{0} << (w + 1));
  const int next_word = std::countr_zero(later != 0 ? later : summary);
  return next_word * 64 + std::countr_zero(occupied[static_cast<std::size_t>(next_word)]);
}

timer_entry*& timer_wheel::head(int lvl, int slot) noexcept {
  return lvl == 0 ? level0_.heads[static_cast<std::size_t>(slot)]
                  : upper_[static_cast<std::size_t>(lvl - 1)].heads[static_cast<std::size_t>(slot)];
}

void timer_wheel::unmark(int lvl, int slot) noexcept {
  if (lvl == 0) {
    level0_.unmark(slot);
  } else {
    upper_[static_cast<std::size_t>(lvl - 1)].unmark(slot);
    unsorted_[static_cast<std::size_t>(lvl - 1)] &= ~(std::uint64_t{1} << slot);  // empty: in order again
  }
}

// An entry of level L sits in a slot whose time is still ahead of the
// wheel's (insert() puts it where its deadline first differs from the
// wheel's time, and above it). Once the wheel's time reaches that slot's
// start, the slot has been taken: an entry still linked with that level
// and slot is on the run.
bool timer_wheel::slot_passed(const timer_entry& entry) const noexcept {
  const std::uint64_t slot_start = entry.deadline_tick & ~((std::uint64_t{1} << shift_of(entry.level)) - 1);
  return slot_start <= elapsed_;
}

// A slot's list is in insertion order: appended at the tail, which the
// head's `prev` points to (the tail's `next` is null). Entries then come
// out of a slot in the order they went in - for timers of one duration,
// deadline order - so advance() rarely has to sort what it found (in
// newest-first order, sorting many sleeps of one duration costs more than
// the rest of the firing).
void timer_wheel::link(timer_entry& entry, int lvl, int slot) noexcept {
  timer_entry*& list = head(lvl, slot);
  entry.next = nullptr;
  if (list == nullptr) {
    entry.prev = &entry;
    list = &entry;
  } else {
    timer_entry* tail = list->prev;
    if (lvl != 0 && tail->deadline_tick > entry.deadline_tick)
      unsorted_[static_cast<std::size_t>(lvl - 1)] |= std::uint64_t{1} << slot;
    tail->next = &entry;
    entry.prev = tail;
    list->prev = &entry;
  }
  entry.level = static_cast<std::uint8_t>(lvl);
  entry.slot = static_cast<std::uint16_t>(slot);
  entry.linked.store(true, std::memory_order_relaxed);
  if (lvl == 0) {
    level0_.mark(slot);
  } else {
    upper_[static_cast<std::size_t>(lvl - 1)].mark(slot);
  }
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
  if (entry.level != 0 && slot_passed(entry)) {
    unlink(run_, entry);
  } else {
    timer_entry*& list = head(entry.level, entry.slot);
    unlink(list, entry);
    if (list == nullptr) unmark(entry.level, entry.slot);
  }
  entry.prev = entry.next = nullptr;
  entry.linked.store(false, std::memory_order_relaxed);  // the caller owns the entry
  --size_;
}

void timer_wheel::release_all() noexcept {
  const auto release_list = [](timer_entry*& list) {
    for (timer_entry* entry = list; entry != nullptr;) {
      timer_entry* following = entry->next;
      entry->prev = entry->next = nullptr;
      waker dropped = static_cast<waker&&>(entry->to_wake);
      entry->linked.store(false, std::memory_order_release);  // the last touch (see timer_entry.hpp)
      entry = following;
    }
    list = nullptr;
  };
  const auto release_level = [&](auto& lvl) {
    for (auto& head : lvl.heads) release_list(head);
    lvl.occupied.fill(0);
    lvl.summary = 0;
  };
  release_level(level0_);
  for (auto& lvl : upper_) release_level(lvl);
  release_list(run_);
  unsorted_ = {};
  size_ = 0;
}

std::optional<timer_wheel::expiration> timer_wheel::next_expiration() const noexcept {
  std::optional<expiration> best;
  for (int lvl = 0; lvl < levels; ++lvl) {
    const int shift = shift_of(lvl);
    const int now_slot = slot_for(elapsed_, lvl);
    const int slot = lvl == 0 ? level0_.first_occupied_from(now_slot)
                              : upper_[static_cast<std::size_t>(lvl - 1)].first_occupied_from(now_slot);
    if (slot < 0) continue;
    const std::uint64_t slot_range = std::uint64_t{1} << shift;
    const std::uint64_t level_range = std::uint64_t{1} << (shift + bits_of(lvl));  // at most 2^60
    const std::uint64_t level_start = elapsed_ & ~(level_range - 1);
    std::uint64_t deadline = level_start + static_cast<std::uint64_t>(slot) * slot_range;
    if (slot < now_slot) deadline += level_range;  // wrapped: the next window
    if (!best || deadline < best->deadline) best = expiration{lvl, slot, deadline};
  }
  return best;
}

std::optional<std::uint64_t> timer_wheel::next_deadline() const noexcept {
  const auto next = next_expiration();
  std::optional<std::uint64_t> best;
  if (next) best = next->deadline;
  if (run_ != nullptr && (!best || run_->deadline_tick < *best)) best = run_->deadline_tick;
  if (!best) return std::nullopt;
  return *best < elapsed_ ? elapsed_ : *best;
}

void timer_wheel::fire(timer_entry& entry, std::vector<due_timer>& due, std::size_t first, bool& in_order) {
  if (due.size() > first && due.back().deadline_tick > entry.deadline_tick) in_order = false;
  due.push_back(due_timer{entry.deadline_tick, static_cast<waker&&>(entry.to_wake)});
  // The last touch of a fired entry (see timer_entry.hpp): from here its
  // owner may find it fired and destroy it.
  entry.linked.store(false, std::memory_order_release);
}

void timer_wheel::cascade(timer_entry* entry, std::uint64_t now, std::vector<due_timer>& due, std::size_t first,
                          std::size_t limit, bool& in_order) {
  while (entry != nullptr) {
    timer_entry* following = entry->next;
    entry->prev = entry->next = nullptr;
    --size_;
    // Past the limit, a due entry of a coarse slot goes down a level like
    // one not yet due; one at the slot's own time cannot (nothing is
    // inserted at or before the wheel's time), so it fires regardless.
    if (entry->deadline_tick <= elapsed_ || (entry->deadline_tick <= now && due.size() - first < limit)) {
      fire(*entry, due, first, in_order);
    } else {
      insert(*entry);  // deadline > elapsed_: lands on a lower level (still linked)
    }
    entry = following;
  }
}

void timer_wheel::advance(std::uint64_t now, std::vector<due_timer>& due, std::size_t limit) {
  const std::size_t first = due.size();
  const auto room = [&] { return due.size() - first < limit; };
  bool in_order = true;
  bool caught_up = true;
  auto next = next_expiration();
  for (;;) {
    // The run's head, while it is due and not after the next slot's time.
    // On a tie the run's entry goes first: it was set before the slot came
    // due that put it on the run, and an entry of a finer slot with the
    // same deadline only after (it would have gone to that coarse slot).
    if (run_ != nullptr && run_->deadline_tick <= now && (!next || run_->deadline_tick <= next->deadline)) {
      if (!room()) {
        caught_up = false;
        break;
      }
      timer_entry& entry = *run_;
      unlink(run_, entry);  // writes the next entry's prev: its line starts coming now
      entry.prev = entry.next = nullptr;
      --size_;
      fire(entry, due, first, in_order);
      continue;
    }
    if (!next || next->deadline > now) break;
    if (!room()) {
      caught_up = false;  // the wheel's time stays at the last slot taken
      break;
    }
    // Take the whole slot: onto the run if it may go there, else fire or
    // cascade each entry from the slot's time.
    timer_entry*& list = head(next->level, next->slot);
    timer_entry* taken = list;
    list = nullptr;
    const bool in_deadline_order = next->level != 0 && (unsorted_[static_cast<std::size_t>(next->level - 1)] &
                                                        (std::uint64_t{1} << next->slot)) == 0;
    unmark(next->level, next->slot);
    if (next->deadline > elapsed_) elapsed_ = next->deadline;
    if (in_deadline_order && (run_ == nullptr || run_->prev->deadline_tick <= taken->deadline_tick)) {
      // Appended whole: the run stays in deadline order. Its entries keep
      // their level and slot (see slot_passed()).
      if (run_ == nullptr) {
        run_ = taken;
      } else {
        timer_entry* run_tail = run_->prev;
        timer_entry* taken_tail = taken->prev;
        run_tail->next = taken;
        taken->prev = run_tail;
        run_->prev = taken_tail;
      }
    } else {
      cascade(taken, now, due, first, limit, in_order);
    }
    next = next_expiration();
  }
  if (caught_up && now > elapsed_) elapsed_ = now;
  // Slots come due in time order, but a coarse slot's list that goes down
  // a level is in insertion order, not deadline order (a 10 ms timer set
  // after a 20 ms one), and a coarse slot can start before a finer one
  // holding earlier deadlines.
  if (!in_order) sort_by_deadline(due, first);
}

void timer_wheel::sort_by_deadline(std::vector<due_timer>& due, std::size_t from) {
  std::stable_sort(due.begin() + static_cast<std::ptrdiff_t>(from), due.end(),
                   [](const due_timer& a, const due_timer& b) { return a.deadline_tick < b.deadline_tick; });
}

}  // namespace lanes::detail
