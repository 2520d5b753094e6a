// inclusive_scan: out[i] = in[0] op in[1] op ... op in[i], in parallel.
// Two passes over blocks of the input: each block's total (in parallel),
// a running total over the blocks (on the caller: few), then each block
// scanned from its offset (in parallel). `op` must be associative; the
// result equals std::inclusive_scan's for integers. `out` may be
// in.begin() (in place).
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <iterator>
#include <numeric>
#include <optional>
#include <ranges>
#include <utility>
#include <vector>

#include <lanes/compute/detail/parallel_range.hpp>

namespace lanes::compute {

template <std::ranges::random_access_range R, std::random_access_iterator Out, class Op = std::plus<>>
requires std::ranges::sized_range<R> Out inclusive_scan(R&& in, Out out, Op op = {}, const par_options& options = {}) {
  using T = std::ranges::range_value_t<R>;
  using diff = std::ranges::range_difference_t<R>;
  using out_diff = std::iter_difference_t<Out>;
  auto first = std::ranges::begin(in);
  const auto n = static_cast<std::size_t>(std::ranges::size(in));
  const auto end_out = out + static_cast<out_diff>(n);
  if (n == 0) return end_out;
  // Blocks: enough for every thread to get several. (A small input does
  // not need the pool's size, nor to create the default pool to learn it.)
  const std::size_t threads = n < 4096 ? 2 : detail::pool_size(detail::current_pool_state());
  const std::size_t blocks = std::min<std::size_t>(n, std::max<std::size_t>(1, threads * 8));
  const std::size_t per_block = (n + blocks - 1) / blocks;
  const auto block_range = [&](std::size_t k) { return std::pair{k * per_block, std::min(n, (k + 1) * per_block)}; };
  // Pass 1: each block's total.
  std::vector<std::optional<T>> totals(blocks);
  auto total_leaf = [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k) {
      const auto [b, e] = block_range(k);
      if (b >= e) continue;
      T acc = first[static_cast<diff>(b)];
      for (std::size_t i = b + 1; i < e; ++i) acc = op(std::move(acc), first[static_cast<diff>(i)]);
      totals[k] = std::move(acc);
    }
  };
  par_options per_block_options = options;
  per_block_options.grain = 1;
  detail::drive_for(blocks, per_block_options, total_leaf);
  // The offset each block starts from: the total of all blocks before it.
  std::vector<std::optional<T>> offsets(blocks);
  for (std::size_t k = 1; k < blocks; ++k) {
    if (!totals[k - 1]) {
      offsets[k] = offsets[k - 1];
    } else {
      offsets[k] = offsets[k - 1] ? op(*offsets[k - 1], *totals[k - 1]) : *totals[k - 1];
    }
  }
  // Pass 2: each block scanned from its offset.
  auto scan_leaf = [&](std::size_t lo, std::size_t hi) {
    for (std::size_t k = lo; k < hi; ++k) {
      const auto [b, e] = block_range(k);
      if (b >= e) continue;
      T acc = offsets[k] ? op(*offsets[k], first[static_cast<diff>(b)]) : T(first[static_cast<diff>(b)]);
      out[static_cast<out_diff>(b)] = acc;
      for (std::size_t i = b + 1; i < e; ++i) {
        acc = op(std::move(acc), first[static_cast<diff>(i)]);
        out[static_cast<out_diff>(i)] = acc;
      }
    }
  };
  detail::drive_for(blocks, per_block_options, scan_leaf);
  return end_out;
}

}  // namespace lanes::compute
