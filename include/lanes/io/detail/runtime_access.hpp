// What the public io templates (spawn, join_handle, sleep) need from the
// scheduler, which lives in src/io. Users never call these.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include <lanes/io/detail/fd_readiness.hpp>
#include <lanes/io/detail/misuse.hpp>
#include <lanes/io/detail/task_header.hpp>
#include <lanes/io/detail/timer_entry.hpp>

namespace lanes::detail {

class scheduler;

// The task running on this thread, or nullptr outside a task.
task_header* current_task() noexcept;
// The same, or a runtime_misuse error naming `what` ("co_await lanes::sleep").
task_header& require_current_task(const char* what);
// The scheduler whose worker this thread is, or nullptr.
scheduler* current_scheduler() noexcept;
bool on_runtime_worker() noexcept;

// Cooperative budget: a ready operation calls this; false means the task
// has run long enough in this poll and must yield before continuing.
bool coop_consume() noexcept;

// A newly created task (state SCHEDULED, three references) enters its queue.
void schedule_spawned(scheduler& owner, task_header& task) noexcept;
// The calling worker's index, for spawn_local; a runtime_misuse error when
// the caller is not running on a worker of `owner`.
int current_worker_index(scheduler& owner, const char* what);
// Waits on this (non-worker) thread until `task` completes.
void wait_blocking(scheduler& owner, task_header& task);
// Cancels `task` and returns only once its frame has been destroyed: an
// idle or queued task is destroyed here, on the calling thread; one that is
// being polled on another worker is left to finish that poll (it then sees
// CANCELLED and destroys its frame) and waited for. Work the task handed
// to another lane and that still runs is asked to stop and waited for
// first, blocking the calling thread (pending_work.hpp). For owners that
// must not outlive what their tasks borrow (task_group). Never call it for
// the calling task itself.
void cancel_now(task_header& task) noexcept;

// Links `entry` into the owner's timer wheel for `deadline_ns`
// (CLOCK_MONOTONIC). False when the deadline has already passed.
bool timer_register(scheduler& owner, timer_entry& entry, std::uint64_t deadline_ns);
// Unlinks it if it has not fired; safe to call after it fired. True when
// it removed a pending timer, false when the timer had fired.
bool timer_cancel(scheduler& owner, timer_entry& entry) noexcept;
std::uint64_t monotonic_now_ns() noexcept;

// File descriptors: readiness through the runtime's epoll driver. The
// table of registrations (src/io/fd_registry.hpp) is shared by the
// runtime and each async_fd, which may outlive the runtime: then its calls
// find the table closed. fd_register throws std::system_error.
std::shared_ptr<fd_registry> fd_table(scheduler& owner);
fd_registration fd_register(fd_registry& fds, int fd);
void fd_deregister(fd_registry& fds, std::uint64_t key) noexcept;
// direction 0: readable, 1: writable (fd_readiness.hpp). A second waiter
// for one direction is a runtime_misuse. If the registration is removed
// while `w` waits, `*removed` is set true before `w` is woken.
fd_arm_result fd_arm(const fd_registration& r, unsigned direction, waker& w, bool* removed);
// Takes back the waker of `direction` if it still wakes `task`.
void fd_disarm(const fd_registration& r, unsigned direction, const task_header* task) noexcept;
// Whether `fd` is ready for `direction` now (or has hung up or failed),
// asking the kernel (poll(2), no wait) and taking nothing.
bool fd_ready_now(int fd, unsigned direction) noexcept;
// The io_uring backend (src/io/fd_registry.hpp, "Completions"): the ring
// drives the reading side of a stream socket (`accepting`: the accepting
// side of a listener) from now on; false on epoll, which goes on.
bool fd_use_ring(const fd_registration& r, bool accepting) noexcept;
// On such a registration: as recv(2) would (`drained`: the next read
// waits), as accept4(2) would (non-blocking, CLOEXEC, no address), and
// whether a read would find something now (if not, a completion will say).
ssize_t fd_ring_receive(const fd_registration& r, std::span<std::byte> into, bool& drained) noexcept;
ssize_t fd_ring_accept(const fd_registration& r) noexcept;
bool fd_ring_ready(const fd_registration& r) noexcept;

}  // namespace lanes::detail
