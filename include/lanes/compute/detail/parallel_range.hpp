// parallel_range: the engine under every parallel algorithm. An index range
// [0, n) is cut into pieces by recursive join; each piece runs a leaf
// function, and the leaves' results are combined in index order (so an
// associative operation need not be commutative).
//
// Adaptive splitting (Rayon's): a range starts with `splits` = the pool's
// thread count and halves it at each cut, so an undisturbed run makes about
// 2 x threads pieces; a piece that was stolen (it runs on another thread
// than the one that cut it: someone was idle) resets `splits` to at least
// the thread count, so that work keeps spreading where it is wanted. A
// piece is never cut below `grain` elements.
//
// Small inputs skip the pool: the caller first runs a growing prefix itself
// (1, 2, 4, ... elements) until that took `probe` time; if the rest is then
// projected to take less than `sequential_below`, the caller finishes it
// too. So a batch that is cheap runs with no hand-off at all, and one with
// few but heavy elements (a few thousand jobs of tens of microseconds)
// still goes parallel - an
// element count alone cannot tell those apart.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <utility>

#include <lanes/compute/detail/entry.hpp>
#include <lanes/compute/join.hpp>

namespace lanes::compute {

// How a parallel algorithm cuts its input. The defaults suit most work.
struct par_options {
  // No piece is cut smaller than this many elements (at least 1).
  std::size_t grain = 1;
  // The whole call runs on the caller when the work is projected to take
  // less than this: a hand-off to the pool from outside it and back costs
  // microseconds while the workers are awake and more when they sleep,
  // with long tails (measured: docs/benchmarks.md, S9). Zero: always go to
  // the pool.
  std::chrono::nanoseconds sequential_below = std::chrono::microseconds(50);
};

namespace detail {

// How long the caller's probe runs before it projects the rest.
inline constexpr std::chrono::nanoseconds probe_time = std::chrono::microseconds(2);

struct splitter {
  std::size_t splits;
  std::size_t threads;
  std::size_t grain;

  bool try_split(std::size_t len, bool stolen) noexcept {
    // len / 2 < grain is len < 2 * grain without the product, which wraps
    // for a grain above SIZE_MAX / 2 (and a wrapped 0 split any piece).
    if (len / 2 < grain || len < 2) return false;
    if (stolen) {
      splits = std::max(threads, splits / 2);
      return true;
    }
    if (splits > 0) {
      splits /= 2;
      return true;
    }
    return false;
  }
};

// leaf(lo, hi) -> T for a piece; combine(T, T) -> T, left then right.
// skip(lo) -> bool: true when a piece starting at lo need not run (early exit).
template <class T, class Leaf, class Combine, class Skip>
T split_reduce(std::size_t lo, std::size_t hi, splitter s, bool stolen, const T& identity, Leaf& leaf, Combine& combine,
               Skip& skip) {
  if (skip(lo)) return identity;
  if (s.try_split(hi - lo, stolen)) {
    const std::size_t mid = lo + (hi - lo) / 2;
    auto left = [&] { return split_reduce<T>(lo, mid, s, false, identity, leaf, combine, skip); };
    auto right = [&](bool right_stolen) {
      return split_reduce<T>(mid, hi, s, right_stolen, identity, leaf, combine, skip);
    };
    auto [a, b] = join_context(left, right);
    return combine(std::move(a), std::move(b));
  }
  return leaf(lo, hi);
}

inline bool never_skip(std::size_t) noexcept { return false; }

// The algorithms' common driver: the probe on the caller, then the rest
// sequentially or split across the current pool (see the file comment).
template <class T, class Leaf, class Combine, class Skip>
T drive(std::size_t n, const par_options& options, T identity, Leaf& leaf, Combine& combine, Skip& skip) {
  std::size_t done = 0;
  T acc = identity;
  if (n == 0) return acc;
  if (options.sequential_below.count() > 0 && current_worker() == nullptr) {
    const auto start = std::chrono::steady_clock::now();
    std::chrono::nanoseconds elapsed{0};
    for (std::size_t chunk = 1; done < n; chunk *= 2) {
      const std::size_t end = std::min(n, done + chunk);
      acc = combine(std::move(acc), leaf(done, end));
      done = end;
      if (skip(done)) return acc;
      elapsed = std::chrono::steady_clock::now() - start;
      if (elapsed >= probe_time) break;
    }
    if (done == n) return acc;
    const double per_element = static_cast<double>(elapsed.count()) / static_cast<double>(done);
    if (per_element * static_cast<double>(n - done) < static_cast<double>(options.sequential_below.count())) {
      return combine(std::move(acc), leaf(done, n));
    }
  }
  auto in_pool = [&] {
    const std::size_t threads = pool_size(current_worker()->owner());
    splitter s{threads, threads, std::max<std::size_t>(1, options.grain)};
    return split_reduce<T>(done, n, s, false, identity, leaf, combine, skip);
  };
  T rest = current_worker() != nullptr ? in_pool() : install(default_pool_state(), in_pool);
  return combine(std::move(acc), std::move(rest));
}

// The same for leaves with no result.
template <class Leaf>
void drive_for(std::size_t n, const par_options& options, Leaf& leaf) {
  struct unit {};
  auto as_unit = [&leaf](std::size_t lo, std::size_t hi) {
    leaf(lo, hi);
    return unit{};
  };
  auto keep = [](unit, unit) { return unit{}; };
  drive(n, options, unit{}, as_unit, keep, never_skip);
}

}  // namespace detail
}  // namespace lanes::compute
