// uring: the io_uring instance of a driver whose backend is io_uring
// (io_backend.hpp): where multishot receives and multishot accepts run,
// and the provided buffer ring the receives fill. The driver watches the
// ring's descriptor in its epoll set (readable while completions wait)
// and hands each completion to the registry (fd_registry::complete); the
// park path, the timers and the eventfd stay as they are.
//
// Threads: any worker submits (under `submit_lock_`: the submission queue
// has one producer at a time); the driver's holder alone reaps (the
// completion queue has one consumer: the driver lock). A buffer goes back
// to the buffer ring under `buffers_lock_`, from whichever worker's task
// copied it out.
//
// Lifetime: the kernel writes into the provided buffers while a receive
// is armed, so the destructor cancels every operation and waits for each
// one's last completion before it frees them; an accept completing then
// has its descriptor closed, not leaked.
//
// Not used, and why (docs/net.md, "Backends"): a registered ring fd is
// registered per thread, and several workers submit here; SQPOLL spends a
// CPU of the budget polling.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>

#include "io/spin_lock.hpp"

struct io_uring;
struct io_uring_buf_ring;

namespace lanes::detail {

class uring {
 public:
  // A ring with its buffer ring, or null with `why_not` saying what failed
  // (the kernel, the sandbox, the memory lock limit, a build without liburing).
  static std::unique_ptr<uring> open(std::string& why_not);
  // Whether what the backend needs runs here: a ring opens, and a
  // multishot receive from its buffer ring reports a byte written to a
  // socket pair and stays armed. False with `why_not` if not.
  static bool probe(std::string& why_not);
  ~uring();
  uring(const uring&) = delete;
  uring& operator=(const uring&) = delete;

  static constexpr std::size_t buffer_size = 4096;
  static constexpr unsigned buffer_count = 1024;

  int fd() const noexcept;
  // The operation a completion belongs to is in the low two bits of its
  // user_data (the caller's key has them clear): receive_op, accept_op, or
  // 0 for a cancel's own completion.
  static constexpr std::uint64_t op_mask = 3;
  static constexpr std::uint64_t receive_op = 1;
  static constexpr std::uint64_t accept_op = 2;
  // A completion's flags (the kernel's IORING_CQE_F_MORE, IORING_CQE_F_BUFFER).
  static bool more(unsigned flags) noexcept { return (flags & 2U) != 0; }  // the operation goes on
  static int buffer_of(unsigned flags) noexcept { return (flags & 1U) != 0 ? static_cast<int>(flags >> 16) : -1; }
  // Any thread. Each is one submission, sent to the kernel at once; false
  // if the submission queue stayed full (the operation is then not armed).
  bool receive(int fd, std::uint64_t key) noexcept;  // multishot, from the buffer ring: key | receive_op
  bool accept(int fd, std::uint64_t key) noexcept;   // multishot, SOCK_NONBLOCK | SOCK_CLOEXEC: key | accept_op
  void cancel(std::uint64_t user_data) noexcept;     // the operation of that user_data

  // The driver's holder: hands each waiting completion to `on_completion`
  // (user_data, result, flags); returns how many.
  template <class F>
  unsigned reap(F&& on_completion);

  std::span<const std::byte> buffer(unsigned id) const noexcept {
    return {buffers_.get() + std::size_t{id} * buffer_size, buffer_size};
  }
  // Any thread: the buffer's bytes have been copied out; the kernel may fill it again.
  void recycle(unsigned id) noexcept;
  // The ring is set up with COOP_TASKRUN: the kernel finishes a
  // completion on the thread that armed the operation, at that thread's
  // next system call, instead of interrupting it. A worker that has made
  // none for a while (its maintenance tick) calls this: if the kernel
  // says work waits (TASKRUN_FLAG), it enters the kernel to run its own.
  void run_own_work() noexcept;

 private:
  uring() = default;
  // Under submit_lock_: a free submission entry (sending what waits if
  // the queue is full), or null.
  void* entry() noexcept;
  bool arm(void (*prepare)(void* sqe, int fd), int fd, std::uint64_t user_data) noexcept;
  // One completion, or false when none waits.
  bool next(std::uint64_t& user_data, int& result, unsigned& flags) noexcept;

  std::unique_ptr<::io_uring> ring_;
  std::mutex submit_lock_;
  spin_lock buffers_lock_;
  ::io_uring_buf_ring* buffer_ring_ = nullptr;  // mmap'd, registered as group 0
  std::unique_ptr<std::byte[]> buffers_;
  // Operations submitted whose last completion (no IORING_CQE_F_MORE) has
  // not been reaped: what the destructor waits for.
  std::atomic<std::size_t> in_flight_{0};
};

template <class F>
unsigned uring::reap(F&& on_completion) {
  unsigned n = 0;
  std::uint64_t user_data = 0;
  int result = 0;
  unsigned flags = 0;
  while (next(user_data, result, flags)) {
    on_completion(user_data, result, flags);
    ++n;
  }
  return n;
}

}  // namespace lanes::detail
