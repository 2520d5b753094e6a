// sort and stable_sort of a contiguous range, in parallel. Inputs under
// `sequential_below_elements` are sorted on the caller.
//
// sort: a parallel quicksort in place, as oneTBB's parallel_sort - the
// range is partitioned around a ninther pivot and both sides are sorted
// in parallel, down to leaves that std::sort finishes. In place matters:
// a buffer the size of the input costs its page faults, which can take
// longer than the whole parallel sort.
// A side that recursion has split too unevenly (depth past 2 log2 n) is
// handed to std::sort, whose introsort bounds the worst case.
//
// stable_sort: a merge sort whose leaves are std::stable_sort and whose
// merges are split in parallel (the longer run is halved, its middle
// element found in the other by binary search). Runs ping-pong between the
// range and one buffer of the same size (std::stable_sort allocates one
// too), so each level moves every element once. The element type must be
// default-constructible and move-assignable.
//
// An exception from the comparison propagates, and the range then holds
// its elements in an unspecified order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iterator>
#include <ranges>
#include <type_traits>
#include <utility>
#include <vector>

#include <lanes/compute/detail/entry.hpp>
#include <lanes/compute/join.hpp>

namespace lanes::compute {

struct sort_options {
  // Sorted on the caller below this many elements: where std::sort of u64
  // takes about ten times a hand-off to the pool from outside it
  // (measured: docs/benchmarks.md, S9).
  std::size_t sequential_below_elements = 16'384;
  // Leaves and merges no smaller than this (and leaves no smaller than
  // n / (32 x threads) for sort, n / (8 x threads) for stable_sort).
  std::size_t grain = 4'096;
};

namespace detail {

template <class T, class Less>
void parallel_merge(T* a, std::size_t na, T* b, std::size_t nb, T* out, Less& less, std::size_t grain) {
  if (na + nb <= grain) {
    std::merge(std::make_move_iterator(a), std::make_move_iterator(a + na), std::make_move_iterator(b),
               std::make_move_iterator(b + nb), out, less);
    return;
  }
  // Split at the middle of the longer run. Stability: equal elements of a
  // come before those of b, so a splits with lower_bound into b (b's equals
  // go right), and b splits with upper_bound into a (a's equals go left).
  std::size_t ma, mb;
  if (na >= nb) {
    ma = na / 2;
    mb = static_cast<std::size_t>(std::lower_bound(b, b + nb, a[ma], less) - b);
  } else {
    mb = nb / 2;
    ma = static_cast<std::size_t>(std::upper_bound(a, a + na, b[mb], less) - a);
  }
  join([&] { parallel_merge(a, ma, b, mb, out, less, grain); },
       [&] { parallel_merge(a + ma, na - ma, b + mb, nb - mb, out + ma + mb, less, grain); });
}

// Sorts data[0, n); the result lands in `data` when in_data, else in `buf`.
template <bool Stable, class T, class Less>
void merge_sort(T* data, T* buf, std::size_t n, bool in_data, Less& less, std::size_t leaf, std::size_t grain) {
  if (n <= leaf) {
    if constexpr (Stable) {
      std::stable_sort(data, data + n, less);
    } else {
      std::sort(data, data + n, less);
    }
    if (!in_data) std::move(data, data + n, buf);
    return;
  }
  const std::size_t half = n / 2;
  // Sort both halves into the other array, then merge them back into ours.
  join([&] { merge_sort<Stable>(data, buf, half, !in_data, less, leaf, grain); },
       [&] { merge_sort<Stable>(data + half, buf + half, n - half, !in_data, less, leaf, grain); });
  T* from = in_data ? buf : data;
  T* to = in_data ? data : buf;
  parallel_merge(from, half, from + half, n - half, to, less, grain);
}

// The median of a, b, c under less.
template <class T, class Less>
const T& median_of_three(const T& a, const T& b, const T& c, Less& less) {
  if (less(a, b)) {
    if (less(b, c)) return b;
    return less(a, c) ? c : a;
  }
  if (less(a, c)) return a;
  return less(b, c) ? c : b;
}

template <class T, class Less>
void quick_sort(T* first, std::size_t n, Less& less, std::size_t leaf, int depth_left) {
  if (n <= leaf || depth_left <= 0) {
    std::sort(first, first + n, less);
    return;
  }
  // Ninther: the median of three medians of three, spread over the range.
  const std::size_t step = n / 8;
  const T* p = first;
  const T pivot = median_of_three(median_of_three(p[0], p[step], p[2 * step], less),
                                  median_of_three(p[3 * step], p[4 * step], p[5 * step], less),
                                  median_of_three(p[6 * step], p[7 * step], p[n - 1], less), less);
  T* mid = std::partition(first, first + n, [&](const T& x) { return less(x, pivot); });
  T* right = mid;
  if (mid == first) {
    // Nothing is below the pivot, which is then the smallest value: peel
    // off its copies (they are in place) so that the rest shrinks.
    right = std::partition(first, first + n, [&](const T& x) { return !less(pivot, x); });
  }
  const auto left_n = static_cast<std::size_t>(mid - first);
  const auto right_n = static_cast<std::size_t>(first + n - right);
  join([&] { quick_sort(first, left_n, less, leaf, depth_left - 1); },
       [&] { quick_sort(right, right_n, less, leaf, depth_left - 1); });
}

template <bool Stable, class R, class Less>
void sort_range(R&& range, Less less, const sort_options& options) {
  using T = std::ranges::range_value_t<R>;
  static_assert(std::is_default_constructible_v<T> && std::is_move_assignable_v<T>,
                "lanes::compute::sort needs a default-constructible, move-assignable element type (its buffer)");
  const auto n = static_cast<std::size_t>(std::ranges::size(range));
  auto first = std::ranges::begin(range);
  if (n < std::max<std::size_t>(2, options.sequential_below_elements)) {
    if constexpr (Stable) {
      std::stable_sort(first, first + static_cast<std::ranges::range_difference_t<R>>(n), less);
    } else {
      std::sort(first, first + static_cast<std::ranges::range_difference_t<R>>(n), less);
    }
    return;
  }
  T* data = std::to_address(first);
  const std::size_t grain = std::max<std::size_t>(options.grain, 2);
  auto in_pool = [&] {
    const std::size_t threads = pool_size(current_worker()->owner());
    // Leaves: merge sort wants few (each level of merging moves all n
    // elements); quicksort's partitions are its own levels, so smaller
    // leaves cost nothing extra and balance better (measured:
    // docs/benchmarks.md, S9).
    const std::size_t pieces = (Stable ? 8 : 32) * threads;
    const std::size_t leaf = std::max(grain, (n + pieces - 1) / pieces);
    if constexpr (Stable) {
      std::vector<T> buffer(n);
      merge_sort<Stable>(data, buffer.data(), n, true, less, leaf, grain);
    } else {
      int depth = 0;
      for (std::size_t m = n; m > 1; m /= 2) ++depth;
      quick_sort(data, n, less, leaf, 2 * depth);
    }
  };
  if (current_worker() != nullptr) {
    in_pool();
  } else {
    install(default_pool_state(), in_pool);
  }
}

}  // namespace detail

// Over contiguous ranges (vectors, arrays, spans): the merges work on raw
// pointers.
template <std::ranges::contiguous_range R, class Less = std::less<>>
requires std::ranges::sized_range<R>
void sort(R&& range, Less less = {}, const sort_options& options = {}) {
  detail::sort_range<false>(std::forward<R>(range), std::move(less), options);
}

template <std::ranges::contiguous_range R, class Less = std::less<>>
requires std::ranges::sized_range<R>
void stable_sort(R&& range, Less less = {}, const sort_options& options = {}) {
  detail::sort_range<true>(std::forward<R>(range), std::move(less), options);
}

}  // namespace lanes::compute
