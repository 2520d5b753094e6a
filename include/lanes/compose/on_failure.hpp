// on_failure: what a group of tasks does when one of them fails
// (when_all, task_group).
#pragma once

namespace lanes {

enum class on_failure {
  cancel_rest,  // abort the others at once (default), then rethrow the first failure
  wait_rest,    // let the others finish, then rethrow the first failure
};

}  // namespace lanes
