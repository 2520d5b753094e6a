// core_reservations: the CPUs react threads own, and keeping every other
// lane's threads off them.
//
// A react thread pins itself to one CPU and spins there. reserve_core()
// records that CPU for the whole process; while it is held
//  - budget::detect() counts the affinity mask without it, so lanes built
//    afterwards are sized for the CPUs that are left (affinity.cpp);
//  - every lane thread that registered with lane_thread_scope (io workers,
//    compute threads, blocking threads) runs on the process's mask minus
//    the reserved CPUs, threads already running included.
// Releasing it (the react thread stopped) gives the CPU back to them.
//
// The process's mask is the calling thread's mask at the first
// reservation (the thread that starts a react thread, normally main).
// One mutex guards it all: these are cold paths (thread start and stop).
#pragma once

#include <sys/types.h>

#include <optional>
#include <vector>

namespace lanes::detail {

class core_reservation {
 public:
  core_reservation() noexcept = default;
  explicit core_reservation(unsigned cpu) noexcept : cpu_(cpu), held_(true) {}
  core_reservation(core_reservation&& other) noexcept : cpu_(other.cpu_), held_(other.held_) { other.held_ = false; }
  core_reservation& operator=(core_reservation&& other) noexcept;
  core_reservation(const core_reservation&) = delete;
  core_reservation& operator=(const core_reservation&) = delete;
  ~core_reservation() { release(); }

  unsigned cpu() const noexcept { return cpu_; }
  void release() noexcept;

 private:
  unsigned cpu_ = 0;
  bool held_ = false;
};

// Reserves `cpu`, or (nullopt) the highest CPU of the mask not yet
// reserved. Throws config_error when the CPU is not in the mask, is
// already reserved, or is the last one left to the other lanes (unless
// `allow_last`).
core_reservation reserve_core(std::optional<unsigned> cpu, bool allow_last = false);

// The reserved CPUs, ascending.
std::vector<unsigned> reserved_cores();

// Registers the calling thread as a lane thread for as long as it lives,
// and moves it off the reserved CPUs now if there are any.
class lane_thread_scope {
 public:
  lane_thread_scope();
  ~lane_thread_scope();
  lane_thread_scope(const lane_thread_scope&) = delete;
  lane_thread_scope& operator=(const lane_thread_scope&) = delete;

 private:
  pid_t tid_;
};

}  // namespace lanes::detail
