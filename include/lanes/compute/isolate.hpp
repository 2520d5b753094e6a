// isolate(f): runs f so that the calling worker, while it waits inside f
// (a join whose other half was stolen, a scope, an algorithm), runs only
// work that f itself forked - never an unrelated job from outside.
//
// Use it when f holds a lock (or any non-reentrant state) and runs
// parallel work: without it, a waiting worker may steal an outer job that
// takes the same lock, and deadlock on itself (Rayon issue #592; oneTBB's
// this_task_arena::isolate solves the same). Isolation follows the work:
// another worker that steals one of f's jobs is isolated to f's region
// while it runs it.
//
//   std::lock_guard lock(cache_mutex);
//   lanes::compute::isolate([&] { rebuild(cache); });  // parallel inside
//
// The price: a worker waiting inside the region idles rather than help
// elsewhere. Outside a pool, f just runs (a plain thread runs no jobs).
#pragma once

#include <cstdint>
#include <type_traits>

#include <lanes/compute/detail/worker.hpp>

namespace lanes::compute {

template <class F>
decltype(auto) isolate(F&& f) {
  detail::worker* w = detail::current_worker();
  if (w == nullptr) return f();
  const char region_marker = 0;  // its address names the region while f runs
  struct restore {
    detail::worker& w;
    detail::worker::isolation previous;
    ~restore() { w.leave_region(previous); }
  } guard{*w, w->enter_region(reinterpret_cast<std::uintptr_t>(&region_marker))};
  return f();
}

}  // namespace lanes::compute
