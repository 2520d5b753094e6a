// Where offload(f) sends work: the compute lane attached to the calling
// task's runtime (lanes::system attaches its pool), else the default pool;
// offload_blocking and spawn_blocking: the runtime's blocking lane.
#include <lanes/bridge/offload.hpp>

#include "io/scheduler.hpp"

namespace lanes::detail {

compute::detail::registry* attached_compute(scheduler& s) noexcept {
  return static_cast<compute::detail::registry*>(s.attached_compute());
}

compute::detail::registry& offload_target() {
  if (scheduler* s = current_scheduler()) {
    if (auto* r = attached_compute(*s)) return *r;
  }
  return compute::detail::default_registry();
}

blocking_pool& current_blocking_pool(const char* call) {
  scheduler* s = current_scheduler();
  if (s == nullptr)
    throw runtime_misuse(std::string(call) + " called outside an io task: use a blocking_pool directly");
  return blocking_pool_of(*s);
}

}  // namespace lanes::detail
