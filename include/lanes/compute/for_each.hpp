// for_each and transform over random-access ranges, in parallel on the
// current pool (the calling worker's, or the default pool). Small inputs
// run on the caller; see par_options and detail/parallel_range.hpp.
//
//   lanes::compute::for_each(requests, [](request& r) { r.reply = evaluate(r); });
//   lanes::compute::transform(xs, ys.begin(), [](u64 x) { return x * x; });
//
// The callable may run on several threads at once, each element exactly
// once. An exception stops nothing already running; once every started
// piece is done, the first exception is rethrown.
#pragma once

#include <cstddef>
#include <iterator>
#include <ranges>

#include <lanes/compute/detail/parallel_range.hpp>

namespace lanes::compute {

template <std::ranges::random_access_range R, class F>
requires std::ranges::sized_range<R>
void for_each(R&& range, F f, const par_options& options = {}) {
  auto first = std::ranges::begin(range);
  auto leaf = [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) f(first[static_cast<std::ranges::range_difference_t<R>>(i)]);
  };
  detail::drive_for(static_cast<std::size_t>(std::ranges::size(range)), options, leaf);
}

// out[i] = f(in[i]) for every i; `out` is a random-access iterator to at
// least size(in) elements, not overlapping `in` (unless it is in.begin()).
template <std::ranges::random_access_range R, std::random_access_iterator Out, class F>
requires std::ranges::sized_range<R> Out transform(R&& in, Out out, F f, const par_options& options = {}) {
  auto first = std::ranges::begin(in);
  using diff = std::ranges::range_difference_t<R>;
  auto leaf = [&](std::size_t lo, std::size_t hi) {
    for (std::size_t i = lo; i < hi; ++i) {
      out[static_cast<std::iter_difference_t<Out>>(i)] = f(first[static_cast<diff>(i)]);
    }
  };
  const auto n = static_cast<std::size_t>(std::ranges::size(in));
  detail::drive_for(n, options, leaf);
  return out + static_cast<std::iter_difference_t<Out>>(n);
}

}  // namespace lanes::compute
