// Reductions over random-access ranges, in parallel on the current pool:
// reduce, transform_reduce (map-reduce), sum, min, max, count_if.
//
//   u64 s = lanes::compute::transform_reduce(xs, u64{0}, std::plus<>{}, [](u64 x) { return x * x; });
//
// `op` must be associative; it need not be commutative (pieces are
// combined in index order). `identity` must be op's identity: it seeds
// every piece. Results equal std::reduce's for associative operations
// (bit for bit for integers; floating-point sums may round differently,
// as with std::reduce).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <ranges>
#include <utility>

#include <lanes/compute/detail/parallel_range.hpp>

namespace lanes::compute {

template <std::ranges::random_access_range R, class T, class Reduce, class Map>
requires std::ranges::sized_range<R> T transform_reduce(R&& range, T identity, Reduce reduce_op, Map map,
                                                        const par_options& options = {}) {
  auto first = std::ranges::begin(range);
  using diff = std::ranges::range_difference_t<R>;
  auto leaf = [&](std::size_t lo, std::size_t hi) {
    T acc = identity;
    for (std::size_t i = lo; i < hi; ++i) acc = reduce_op(std::move(acc), map(first[static_cast<diff>(i)]));
    return acc;
  };
  auto combine = [&](T a, T b) { return reduce_op(std::move(a), std::move(b)); };
  // A copy, not a move: every leaf copies `identity` while drive runs (a
  // moved-from identity, such as an empty vector of counters, would seed
  // the pieces with something that is not the identity).
  return detail::drive(static_cast<std::size_t>(std::ranges::size(range)), options, identity, leaf, combine,
                       detail::never_skip);
}

template <std::ranges::random_access_range R, class T, class Reduce = std::plus<>>
requires std::ranges::sized_range<R> T reduce(R&& range, T identity, Reduce reduce_op = {},
                                              const par_options& options = {}) {
  return transform_reduce(
      std::forward<R>(range), std::move(identity), std::move(reduce_op),
      [](const auto& x) -> decltype(auto) { return x; }, options);
}

template <std::ranges::random_access_range R>
requires std::ranges::sized_range<R> std::ranges::range_value_t<R> sum(R&& range, const par_options& options = {}) {
  return reduce(std::forward<R>(range), std::ranges::range_value_t<R>{}, std::plus<>{}, options);
}

template <std::ranges::random_access_range R, class Pred>
requires std::ranges::sized_range<R> std::size_t count_if(R&& range, Pred pred, const par_options& options = {}) {
  return transform_reduce(
      std::forward<R>(range), std::size_t{0}, std::plus<>{},
      [&pred](const auto& x) -> std::size_t { return pred(x) ? 1 : 0; }, options);
}

namespace detail {

// The first of the smallest (or largest) elements, as std::min_element
// (std::max_element returns the first largest too).
template <bool Largest, class R, class Less>
std::optional<std::ranges::range_value_t<R>> extreme(R&& range, Less less, const par_options& options) {
  using value = std::ranges::range_value_t<R>;
  using best = std::optional<value>;
  auto first = std::ranges::begin(range);
  using diff = std::ranges::range_difference_t<R>;
  const auto better = [&](const value& candidate, const value& current) {
    return Largest ? less(current, candidate) : less(candidate, current);
  };
  auto leaf = [&](std::size_t lo, std::size_t hi) {
    best b;
    for (std::size_t i = lo; i < hi; ++i) {
      const auto& x = first[static_cast<diff>(i)];
      if (!b || better(x, *b)) b = x;
    }
    return b;
  };
  auto combine = [&](best a, best b) {  // a is to the left: it wins ties
    if (!a) return b;
    if (b && better(*b, *a)) return b;
    return a;
  };
  return drive(static_cast<std::size_t>(std::ranges::size(range)), options, best{}, leaf, combine, never_skip);
}

}  // namespace detail

// The smallest element (the first of equals), or nullopt for an empty range.
template <std::ranges::random_access_range R, class Less = std::less<>>
requires std::ranges::sized_range<R> std::optional<std::ranges::range_value_t<R>> min(R&& range, Less less = {},
                                                                                      const par_options& options = {}) {
  return detail::extreme<false>(std::forward<R>(range), std::move(less), options);
}

// The largest element (the first of equals), or nullopt for an empty range.
template <std::ranges::random_access_range R, class Less = std::less<>>
requires std::ranges::sized_range<R> std::optional<std::ranges::range_value_t<R>> max(R&& range, Less less = {},
                                                                                      const par_options& options = {}) {
  return detail::extreme<true>(std::forward<R>(range), std::move(less), options);
}

}  // namespace lanes::compute
