// spawn(f): runs f on the compute lane, detached. Nothing waits for it; an
// exception it throws goes to the pool's error handler (default: a line on
// stderr, and counted in pool_metrics::detached_errors) - never
// std::terminate. The pool is the calling worker's, or the default pool.
// Destroying a pool first runs every job spawned on it.
#pragma once

#include <utility>

#include <lanes/compute/detail/entry.hpp>

namespace lanes::compute {

template <class F>
void spawn(F&& f) {
  detail::spawn_detached(detail::current_pool_state(), std::forward<F>(f));
}

}  // namespace lanes::compute
