// The errors an io task can see when an operation did not complete.
#pragma once

#include <stdexcept>

namespace lanes {

// The task was aborted (join_handle::abort, runtime shutdown) before it
// finished; thrown when awaiting its join_handle.
class task_cancelled : public std::runtime_error {
 public:
  task_cancelled() : std::runtime_error("lanes: the task was cancelled before it finished") {}
};

// A runtime was used in a way that cannot work (block_on from an io worker,
// spawn outside a runtime). The message says what to do instead.
class runtime_misuse : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

}  // namespace lanes
