// lanes::system: one budget, three lanes, offload wired to the pool.
#include <lanes/system.hpp>

#include <memory>

#include <lanes/bridge/detail/offload_link.hpp>
#include <lanes/config_error.hpp>

namespace lanes {

system_builder system::builder() { return system_builder(); }

system::system(lanes::budget b, compute::pool pool, runtime rt) noexcept
    : budget_(std::move(b)), compute_(std::move(pool)), io_(std::move(rt)) {
  // The runtime is new: no task has offloaded yet, so no link is there and
  // this one is installed before any task runs.
  detail::install_link(detail::scheduler_of(io_),
                       std::make_unique<detail::offload_link>(&compute::detail::pool_state_of(compute_)));
}

system_builder& system_builder::budget(lanes::budget b) {
  budget_ = std::move(b);
  return *this;
}
system_builder& system_builder::io_threads(unsigned n) {
  if (n == 0) throw config_error("lanes::system: io_threads(0): the io lane needs a worker");
  io_threads_ = n;
  return *this;
}
system_builder& system_builder::compute_threads(unsigned n) {
  if (n == 0) throw config_error("lanes::system: compute_threads(0): the compute lane needs a thread");
  compute_threads_ = n;
  return *this;
}
system_builder& system_builder::blocking_threads(unsigned n) {
  if (n == 0) throw config_error("lanes::system: blocking_threads(0): the blocking lane needs a thread");
  blocking_threads_ = n;
  return *this;
}
system_builder& system_builder::compute_priority(compute::thread_priority p) {
  compute_priority_ = p;
  return *this;
}
system_builder& system_builder::compute_low_priority(bool on) {
  return compute_priority(on ? compute::thread_priority::low : compute::thread_priority::normal);
}
system_builder& system_builder::stall_detector(std::chrono::milliseconds threshold) {
  stall_ = threshold;
  return *this;
}

system_builder& system_builder::shutdown_timeout(std::chrono::milliseconds d) {
  if (d.count() < 0) throw config_error("lanes::system: shutdown_timeout must not be negative");
  shutdown_timeout_ = d;
  return *this;
}

system_builder& system_builder::io_backend(lanes::io_backend b) {
  io_backend_ = b;
  return *this;
}

system system_builder::build() {
  lanes::budget b = budget_ ? *budget_ : budget::detect();
  auto rt_builder = runtime::multi_thread();
  rt_builder.budget(b).worker_threads(io_threads_ ? *io_threads_ : b.io_threads.value);
  rt_builder.blocking_threads(blocking_threads_ ? *blocking_threads_ : b.blocking_max.value);
  if (stall_) rt_builder.stall_detector(*stall_);
  if (shutdown_timeout_) rt_builder.shutdown_timeout(*shutdown_timeout_);
  rt_builder.io_backend(io_backend_);
  auto pool = compute::pool::builder()
                  .threads(compute_threads_ ? *compute_threads_ : b.compute_threads.value)
                  .priority(compute_priority_)
                  .build();
  return system(std::move(b), std::move(pool), rt_builder.build());
}

}  // namespace lanes
