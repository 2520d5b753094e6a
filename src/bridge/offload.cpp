// Where offload(f) sends work: the compute lane of the calling task's
// runtime's offload link (lanes::system installs one with its pool), else
// the default pool; offload_blocking and spawn_blocking: the runtime's
// blocking lane.
#include <lanes/bridge/offload.hpp>

#include <memory>

#include "io/scheduler.hpp"

namespace lanes::detail {

offload_link& offload_link_of(scheduler& owner) {
  // The bridge is the one lane that installs a link (lane_link.hpp).
  if (lane_link* link = installed_link(owner)) return static_cast<offload_link&>(*link);
  return static_cast<offload_link&>(install_link(owner, std::make_unique<offload_link>(nullptr)));
}

compute::detail::pool_state& offload_target() {
  if (scheduler* s = current_scheduler()) return offload_link_of(*s).compute();
  return compute::detail::default_pool_state();
}

blocking_pool& current_blocking_pool(const char* call) {
  scheduler* s = current_scheduler();
  if (s == nullptr)
    throw runtime_misuse(std::string(call) + " called outside an io task: use a blocking_pool directly");
  return blocking_pool_of(*s);
}

}  // namespace lanes::detail
