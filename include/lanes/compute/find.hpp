// find_if and any_of over random-access ranges, in parallel with early
// exit: once a match is known at index i, pieces that start after i are
// skipped, and a piece being scanned stops when it passes i. find_if
// returns the first match (the smallest index), as std::find_if does.
#pragma once

#include <atomic>
#include <cstddef>
#include <ranges>

#include <lanes/compute/detail/parallel_range.hpp>

namespace lanes::compute {

template <std::ranges::random_access_range R, class Pred>
requires std::ranges::sized_range<R> std::ranges::iterator_t<R> find_if(R&& range, Pred pred,
                                                                        const par_options& options = {}) {
  auto first = std::ranges::begin(range);
  using diff = std::ranges::range_difference_t<R>;
  const auto n = static_cast<std::size_t>(std::ranges::size(range));
  std::atomic<std::size_t> found{n};  // the smallest matching index known so far
  auto leaf = [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) {
      // Another piece found a match to the left: nothing here can beat it.
      if ((i - lo) % 64 == 0 && found.load(std::memory_order_relaxed) < i) return n;
      if (pred(first[static_cast<diff>(i)])) {
        std::size_t seen = found.load(std::memory_order_relaxed);
        while (i < seen && !found.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
        }
        return i;
      }
    }
    return n;
  };
  auto combine = [](std::size_t a, std::size_t b) { return a < b ? a : b; };
  auto skip = [&](std::size_t lo) { return found.load(std::memory_order_relaxed) < lo; };
  const std::size_t at = detail::drive(n, options, n, leaf, combine, skip);
  return first + static_cast<diff>(at);
}

template <std::ranges::random_access_range R, class Pred>
requires std::ranges::sized_range<R>
bool any_of(R&& range, Pred pred, const par_options& options = {}) {
  return find_if(range, std::move(pred), options) != std::ranges::end(range);
}

template <std::ranges::random_access_range R, class Pred>
requires std::ranges::sized_range<R>
bool all_of(R&& range, Pred pred, const par_options& options = {}) {
  return !any_of(
      range, [&pred](const auto& x) { return !pred(x); }, options);
}

}  // namespace lanes::compute
