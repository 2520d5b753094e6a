#include "budget/core_reservations.hpp"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <mutex>
#include <string>
#include <system_error>

#include <lanes/config_error.hpp>

#include "budget/affinity.hpp"

namespace lanes::detail {

namespace {

struct reservations {
  std::mutex mutex;
  std::vector<unsigned> process_mask;  // captured at the first reservation
  std::vector<unsigned> reserved;      // ascending
  std::vector<pid_t> lane_threads;

  std::vector<unsigned> lane_mask() const {
    std::vector<unsigned> out;
    for (unsigned cpu : process_mask)
      if (!std::binary_search(reserved.begin(), reserved.end(), cpu)) out.push_back(cpu);
    return out;
  }
  // Moves one lane thread to the lane mask. A thread that exited between
  // its registration and now (ESRCH) is fine; other failures are ignored
  // too: a thread left on a reserved CPU is slower, not wrong.
  void apply(pid_t tid, const std::vector<unsigned>& mask) const noexcept {
    if (mask.empty()) return;
    try {
      set_affinity(tid, mask);
    } catch (const std::system_error&) {
    }
  }
  void apply_all() const noexcept {
    const auto mask = lane_mask();
    for (pid_t tid : lane_threads) apply(tid, mask);
  }
};

reservations& the_reservations() {
  static reservations* r = new reservations();  // never destroyed: lane threads may outlive static destruction
  return *r;
}

pid_t current_tid() noexcept { return static_cast<pid_t>(::syscall(SYS_gettid)); }

}  // namespace

core_reservation& core_reservation::operator=(core_reservation&& other) noexcept {
  if (this != &other) {
    release();
    cpu_ = other.cpu_;
    held_ = other.held_;
    other.held_ = false;
  }
  return *this;
}

void core_reservation::release() noexcept {
  if (!held_) return;
  held_ = false;
  reservations& r = the_reservations();
  std::lock_guard lock(r.mutex);
  r.reserved.erase(std::remove(r.reserved.begin(), r.reserved.end(), cpu_), r.reserved.end());
  r.apply_all();
}

core_reservation reserve_core(std::optional<unsigned> cpu, bool allow_last) {
  reservations& r = the_reservations();
  std::lock_guard lock(r.mutex);
  if (r.reserved.empty()) r.process_mask = affinity_cpus();
  const std::vector<unsigned> left = r.lane_mask();
  if (!cpu) {
    if (left.empty()) throw config_error("lanes::react: every CPU of this process is already owned by a react thread");
    cpu = left.back();
  } else if (!std::binary_search(r.process_mask.begin(), r.process_mask.end(), *cpu)) {
    std::string allowed;
    for (unsigned c : r.process_mask) allowed += (allowed.empty() ? "" : ",") + std::to_string(c);
    throw config_error("lanes::react: CPU " + std::to_string(*cpu) + " is not in this process's affinity mask (" +
                       allowed + "): pick one of those, or widen the mask (taskset)");
  } else if (std::binary_search(r.reserved.begin(), r.reserved.end(), *cpu)) {
    throw config_error("lanes::react: CPU " + std::to_string(*cpu) +
                       " is already owned by another react thread: one spinning thread per core");
  }
  if (left.size() <= 1 && !allow_last) {
    throw config_error("lanes::react: CPU " + std::to_string(*cpu) +
                       " is the last one left to the other lanes (io, compute, blocking need a CPU): "
                       "give the process more CPUs, or allow it with react_thread builder .allow_last_cpu()");
  }
  r.reserved.insert(std::lower_bound(r.reserved.begin(), r.reserved.end(), *cpu), *cpu);
  r.apply_all();
  return core_reservation(*cpu);
}

std::vector<unsigned> reserved_cores() {
  reservations& r = the_reservations();
  std::lock_guard lock(r.mutex);
  return r.reserved;
}

lane_thread_scope::lane_thread_scope() : tid_(current_tid()) {
  reservations& r = the_reservations();
  std::lock_guard lock(r.mutex);
  r.lane_threads.push_back(tid_);
  if (!r.reserved.empty()) r.apply(tid_, r.lane_mask());
}

lane_thread_scope::~lane_thread_scope() {
  reservations& r = the_reservations();
  std::lock_guard lock(r.mutex);
  r.lane_threads.erase(std::remove(r.lane_threads.begin(), r.lane_threads.end(), tid_), r.lane_threads.end());
}

}  // namespace lanes::detail
