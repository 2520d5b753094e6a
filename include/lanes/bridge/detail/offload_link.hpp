// offload_link: the bridge's link on an io runtime (io/detail/lane_link.hpp).
// It says where the runtime's offloads go - the compute pool lanes::system
// gave it, or the default pool - and counts the runtime's tasks suspended
// on an offload right now: while there are any, an idle io worker keeps
// looking for work for `look_ns` before it parks, since a short offload's
// result comes back within microseconds and a parked worker takes longer
// than that to wake (measured: docs/benchmarks.md, S4).
#pragma once

#include <atomic>
#include <cstdint>

#include <lanes/compute/detail/entry.hpp>
#include <lanes/io/detail/lane_link.hpp>

namespace lanes::detail {

class offload_link final : public lane_link {
 public:
  static constexpr std::uint64_t look_ns = 20'000;

  // `compute`: the pool offload() uses; nullptr for the default pool.
  explicit offload_link(compute::detail::pool_state* compute) noexcept : compute_(compute) {}

  std::uint64_t look_before_park_ns() const noexcept override {
    return waiters_.load(std::memory_order_relaxed) != 0 ? look_ns : 0;
  }
  compute::detail::pool_state& compute() const noexcept {
    return compute_ != nullptr ? *compute_ : compute::detail::default_pool_state();
  }
  // A task suspends on an offload / comes back from it. Relaxed: the count
  // only tunes how long idle workers look; no data is published through it.
  void waiter_enter() noexcept { waiters_.fetch_add(1, std::memory_order_relaxed); }
  void waiter_leave() noexcept { waiters_.fetch_sub(1, std::memory_order_relaxed); }

 private:
  compute::detail::pool_state* const compute_;
  std::atomic<std::uint32_t> waiters_{0};
};

// The link of the runtime `owner`, installed on first use (the default
// pool) unless lanes::system installed one with its pool. std::bad_alloc
// the first time only.
offload_link& offload_link_of(scheduler& owner);

}  // namespace lanes::detail
