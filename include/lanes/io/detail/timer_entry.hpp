// timer_entry: one pending timer, embedded in the awaiter that waits on it
// (so registering a timer allocates nothing). The timer wheel links it into
// a slot's list. Every field but `fired` is guarded by the wheel's lock;
// the firing thread moves the waker out under the lock and never touches
// the entry again, so the awaiter may be destroyed as soon as it is woken.
//
// `linked` is also read without the lock: firing clears it (release) as its
// very last touch of the entry, so an owner that reads false (acquire)
// knows the timer fired and that no other thread will look at the entry
// again - it skips the lock when it disarms a timer that has fired.
#pragma once

#include <atomic>
#include <cstdint>

#include <lanes/io/detail/task_header.hpp>

namespace lanes::detail {

struct timer_entry {
  timer_entry* prev = nullptr;
  timer_entry* next = nullptr;
  std::uint64_t deadline_tick = 0;  // microseconds since the runtime's epoch, rounded up
  waker to_wake;
  std::uint8_t level = 0;
  std::atomic<bool> linked{false};  // in the wheel
  std::uint16_t slot = 0;           // level 0 has 4096 slots
  std::uint16_t shard = 0;          // which worker's wheel holds it (src/io/timer_shards.hpp)
  // Not the wheel's: timer_registration's "its wake was sent since armed",
  // kept in this padding so that a sleeping frame fits a 128-byte block of
  // the frame allocator rather than a 192-byte one (S3: bytes per task).
  bool fired = false;
};

}  // namespace lanes::detail
