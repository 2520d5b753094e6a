// What the public io headers (runtime_access.hpp, lane_link.hpp) call:
// the scheduler's entry points for spawn, join_handle, sleep, async_fd and
// the bridge, each a thin call into the owner scheduler.
#include <lanes/io/detail/runtime_access.hpp>

#include <poll.h>

#include <cerrno>
#include <memory>
#include <string>

#include <lanes/io/detail/lane_link.hpp>

#include "cycle_clock.hpp"
#include "io/scheduler.hpp"

namespace lanes::detail {

task_header* current_task() noexcept { return tls_task; }

task_header& require_current_task(const char* what) {
  if (tls_task == nullptr) {
    throw runtime_misuse(std::string("lanes: ") + what +
                         " outside an io task: await it inside a task run by a lanes::runtime");
  }
  return *tls_task;
}

[[gnu::cold, gnu::noinline]] void throw_misuse(const char* what) { throw runtime_misuse(what); }
[[gnu::cold, gnu::noinline]] void throw_empty_task(const char* call) {
  throw runtime_misuse(std::string(call) + " of an empty task (moved from or released)");
}

scheduler* current_scheduler() noexcept { return tls_task != nullptr ? tls_task->owner() : tls_scheduler; }
bool on_runtime_worker() noexcept { return tls_worker != nullptr; }

bool coop_consume() noexcept {
  if (tls_task == nullptr) return true;
  if (tls_coop <= 0) return false;
  --tls_coop;
  return true;
}

void schedule_spawned(scheduler& owner, task_header& task) noexcept { owner.spawn(task); }
int current_worker_index(scheduler& owner, const char* what) { return owner.worker_index_of_caller(what); }
void wait_blocking(scheduler& owner, task_header& task) { owner.wait_blocking(task); }
std::shared_ptr<fd_registry> fd_table(scheduler& owner) { return owner.io_driver().fds(); }
fd_registration fd_register(fd_registry& fds, int fd) { return fds.add(fd); }
void fd_deregister(fd_registry& fds, std::uint64_t key) noexcept { fds.remove(key); }
fd_arm_result fd_arm(const fd_registration& r, unsigned direction, waker& w, bool* removed) {
  return r.table->arm(r.key, direction, w, removed);
}
bool fd_ready_now(int fd, unsigned direction) noexcept {
  pollfd p{fd, static_cast<short>(direction == fd_registry::read ? POLLIN : POLLOUT), 0};
  int n = 0;
  do {
    n = ::poll(&p, 1, 0);
  } while (n < 0 && errno == EINTR);
  return n != 0;  // ready, or an error the next attempt reports
}
bool fd_use_ring(const fd_registration& r, bool accepting) noexcept {
  return r.table != nullptr && r.table->use_ring(r.key, accepting);
}
ssize_t fd_ring_receive(const fd_registration& r, std::span<std::byte> into, bool& drained) noexcept {
  return r.table->ring_receive(r.key, into, drained);
}
ssize_t fd_ring_accept(const fd_registration& r) noexcept { return r.table->ring_accept(r.key); }
bool fd_ring_ready(const fd_registration& r) noexcept { return r.table->ring_ready(r.key); }
void fd_disarm(const fd_registration& r, unsigned direction, const task_header* task) noexcept {
  r.table->disarm(r.key, direction, task);
}
void cancel_now(task_header& task) noexcept {
  if (scheduler* owner = task.owner()) owner->cancel_now(task);
}
bool timer_register(scheduler& owner, timer_entry& entry, std::uint64_t deadline_ns) {
  return owner.timer_register(entry, deadline_ns);
}
bool timer_cancel(scheduler& owner, timer_entry& entry) noexcept { return owner.timer_cancel(entry); }
lane_link* installed_link(scheduler& owner) noexcept { return owner.installed_link(); }
lane_link& install_link(scheduler& owner, std::unique_ptr<lane_link> link) noexcept {
  return owner.install_link(std::move(link));
}
std::uint64_t monotonic_now_ns() noexcept { return monotonic_ns(); }

}  // namespace lanes::detail
