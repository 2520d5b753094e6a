#include "io/unobserved_errors.hpp"

#include <cstdio>
#include <mutex>
#include <string>

#include "io/scheduler.hpp"

namespace lanes::detail {

namespace {

std::mutex& registry_mutex() {
  static std::mutex mutex;
  return mutex;
}

}  // namespace

void task_header::unlink_unobserved(task_header& task, task_header*& head) noexcept {
  if (!task.error_listed_) return;
  if (task.error_prev_ != nullptr) {
    task.error_prev_->error_next_ = task.error_next_;
  } else {
    head = task.error_next_;
  }
  if (task.error_next_ != nullptr) task.error_next_->error_prev_ = task.error_prev_;
  task.error_prev_ = task.error_next_ = nullptr;
  task.error_listed_ = false;
}

void list_unobserved_error(task_header& task, scheduler& owner) noexcept {
  std::lock_guard lock(registry_mutex());
  task_header*& head = owner.unobserved_errors();
  task.error_prev_ = nullptr;
  task.error_next_ = head;
  if (head != nullptr) head->error_prev_ = &task;
  head = &task;
  task.error_listed_ = true;
}

void orphan_unobserved_errors(scheduler* owner) noexcept {
  std::lock_guard lock(registry_mutex());
  task_header*& head = owner->unobserved_errors();
  while (head != nullptr) {
    task_header& task = *head;
    task_header::unlink_unobserved(task, head);
    task.orphan();
  }
}

void print_unhandled(const std::exception_ptr& error, const task_info& info) noexcept {
  std::string what = "an exception that is not a std::exception";
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
  }
  std::fprintf(stderr, "lanes: detached task %s%s%s (spawned at %s:%u) failed: %s\n", info.name ? "'" : "",
               info.name ? info.name : "", info.name ? "'" : "", info.spawned_at.file_name(),
               static_cast<unsigned>(info.spawned_at.line()), what.c_str());
}

void task_header::mark_result_taken() noexcept {
  result_taken_ = true;
  if (!error_) return;
  std::lock_guard lock(registry_mutex());
  if (owner_ != nullptr) unlink_unobserved(*this, owner_->unobserved_errors());
}

void task_header::report_unobserved_error() noexcept {
  if (!error_) return;
  std::lock_guard lock(registry_mutex());
  if (owner_ == nullptr) {
    print_unhandled(error_, task_info{name_, spawned_at_});
    return;
  }
  unlink_unobserved(*this, owner_->unobserved_errors());
  owner_->report_unhandled(error_, *this);
}

}  // namespace lanes::detail
