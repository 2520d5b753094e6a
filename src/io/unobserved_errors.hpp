// Failures of tasks whose join_handle outlives their completion.
//
// A task that ends with an exception while its join_handle is alive is
// listed on its runtime before COMPLETE is published. The handle later
// either takes the result (the failure is observed: unlisted) or is dropped
// (the failure is reported to the runtime's handler: unlisted). If the
// runtime is destroyed first, it orphans what it still lists, and a later
// drop prints the failure to stderr. One process-wide mutex guards the
// lists and, for listed or orphaned tasks, task_header::owner_: failures
// are rare, and this keeps a dropped handle from reaching a dead runtime.
#pragma once

#include <exception>

#include <lanes/io/runtime.hpp>

namespace lanes::detail {

void list_unobserved_error(task_header& task, scheduler& owner) noexcept;
void orphan_unobserved_errors(scheduler* owner) noexcept;
void print_unhandled(const std::exception_ptr& error, const task_info& info) noexcept;

}  // namespace lanes::detail
