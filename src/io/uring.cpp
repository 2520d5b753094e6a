// uring (uring.hpp): ring set-up, submission, completion, buffers, and the
// teardown that waits for the kernel to let go of the buffers.
#include "io/uring.hpp"

#if LANES_HAVE_URING

#include <liburing.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace lanes::detail {

namespace {

constexpr unsigned ring_entries = 256;
constexpr int buffer_group = 0;

static_assert(IORING_CQE_F_MORE == 2U && IORING_CQE_F_BUFFER == 1U && IORING_CQE_BUFFER_SHIFT == 16,
              "uring::more and uring::buffer_of read the kernel's flags");

std::string failure(const char* step, int error) { return std::string(step) + ": " + std::strerror(error); }

}  // namespace

std::unique_ptr<uring> uring::open(std::string& why_not) {
  std::unique_ptr<uring> r(new uring);
  r->ring_ = std::make_unique<::io_uring>();
  if (const int e =
          ::io_uring_queue_init(ring_entries, r->ring_.get(), IORING_SETUP_COOP_TASKRUN | IORING_SETUP_TASKRUN_FLAG);
      e < 0) {
    why_not = failure("io_uring_setup", -e);
    r->ring_.reset();
    return nullptr;
  }
  // The buffer ring: its entries in page-aligned memory the kernel reads.
  const std::size_t ring_bytes = buffer_count * sizeof(::io_uring_buf);
  void* mapped = ::mmap(nullptr, ring_bytes, PROT_READ | PROT_WRITE, MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
  if (mapped == MAP_FAILED) {
    why_not = failure("mmap (buffer ring)", errno);
    return nullptr;
  }
  r->buffer_ring_ = static_cast<::io_uring_buf_ring*>(mapped);
  ::io_uring_buf_reg reg{};
  reg.ring_addr = reinterpret_cast<std::uintptr_t>(mapped);
  reg.ring_entries = buffer_count;
  reg.bgid = buffer_group;
  if (const int e = ::io_uring_register_buf_ring(r->ring_.get(), &reg, 0); e < 0) {
    why_not = failure("io_uring_register_buf_ring", -e);
    ::munmap(mapped, ring_bytes);
    r->buffer_ring_ = nullptr;
    return nullptr;
  }
  r->buffers_ = std::make_unique_for_overwrite<std::byte[]>(std::size_t{buffer_count} * buffer_size);
  ::io_uring_buf_ring_init(r->buffer_ring_);
  const int mask = ::io_uring_buf_ring_mask(buffer_count);
  for (unsigned id = 0; id < buffer_count; ++id) {
    ::io_uring_buf_ring_add(r->buffer_ring_, r->buffers_.get() + std::size_t{id} * buffer_size, buffer_size,
                            static_cast<unsigned short>(id), mask, static_cast<int>(id));
  }
  ::io_uring_buf_ring_advance(r->buffer_ring_, static_cast<int>(buffer_count));
  return r;
}

bool uring::probe(std::string& why_not) {
  auto r = open(why_not);
  if (!r) return false;
  int pair[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, pair) < 0) {
    why_not = failure("socketpair", errno);
    return false;
  }
  bool ok = false;
  const char byte = 1;
  if (!r->receive(pair[0], 4)) {
    why_not = "the submission queue refused a receive";
  } else if (::write(pair[1], &byte, 1) != 1) {
    why_not = failure("write", errno);
  } else {
    ::io_uring_cqe* cqe = nullptr;
    __kernel_timespec wait{1, 0};
    const int e = ::io_uring_wait_cqe_timeout(r->ring_.get(), &cqe, &wait);
    if (e < 0) {
      why_not = failure("waiting for the probe's completion", -e);
    } else {
      r->reap([&](std::uint64_t, int result, unsigned flags) {
        ok = result == 1 && more(flags) && buffer_of(flags) >= 0;
        if (result < 0) {
          why_not = failure("multishot receive", -result);
        } else if (!ok) {
          why_not = "a multishot receive from a buffer ring did not stay armed (kernel before 6.0?)";
        }
        if (buffer_of(flags) >= 0) r->recycle(static_cast<unsigned>(buffer_of(flags)));
      });
    }
  }
  r.reset();  // cancels the receive and waits for it before the sockets close
  ::close(pair[0]);
  ::close(pair[1]);
  return ok;
}

uring::~uring() {
  if (!ring_) return;
  if (buffer_ring_ != nullptr) {
    {
      std::lock_guard lock(submit_lock_);
      if (auto* sqe = static_cast<::io_uring_sqe*>(entry())) {
        ::io_uring_prep_cancel64(sqe, 0, IORING_ASYNC_CANCEL_ANY);
        ::io_uring_sqe_set_data64(sqe, 0);
        ::io_uring_submit(ring_.get());
      }
    }
    // Every armed operation ends with a completion without F_MORE; until
    // then the kernel may write into the buffers. A descriptor accepted
    // meanwhile is closed.
    for (int waits = 0; in_flight_.load(std::memory_order_relaxed) > 0 && waits < 50; ++waits) {
      ::io_uring_cqe* cqe = nullptr;
      __kernel_timespec wait{0, 100'000'000};
      ::io_uring_wait_cqe_timeout(ring_.get(), &cqe, &wait);
      reap([](std::uint64_t user_data, int result, unsigned) {
        if ((user_data & op_mask) == accept_op && result >= 0) ::close(result);
      });
    }
    // The kernel kept an operation past every wait: its buffers are left
    // allocated rather than freed under it.
    if (in_flight_.load(std::memory_order_relaxed) > 0) (void)buffers_.release();
    ::io_uring_unregister_buf_ring(ring_.get(), buffer_group);
    ::munmap(buffer_ring_, buffer_count * sizeof(::io_uring_buf));
  }
  ::io_uring_queue_exit(ring_.get());
}

int uring::fd() const noexcept { return ring_->ring_fd; }

void* uring::entry() noexcept {
  ::io_uring_sqe* sqe = ::io_uring_get_sqe(ring_.get());
  if (sqe == nullptr) {
    ::io_uring_submit(ring_.get());
    sqe = ::io_uring_get_sqe(ring_.get());
  }
  return sqe;
}

bool uring::arm(void (*prepare)(void* sqe, int fd), int fd, std::uint64_t user_data) noexcept {
  std::lock_guard lock(submit_lock_);
  void* sqe = entry();
  if (sqe == nullptr) return false;
  prepare(sqe, fd);
  ::io_uring_sqe_set_data64(static_cast<::io_uring_sqe*>(sqe), user_data);
  in_flight_.fetch_add(1, std::memory_order_relaxed);
  // A submission the kernel cannot take now (EBUSY, EAGAIN) stays in the
  // queue and goes with the next one.
  ::io_uring_submit(ring_.get());
  return true;
}

bool uring::receive(int fd, std::uint64_t key) noexcept {
  return arm(
      [](void* sqe, int socket) {
        auto* s = static_cast<::io_uring_sqe*>(sqe);
        ::io_uring_prep_recv_multishot(s, socket, nullptr, 0, 0);
        s->flags |= IOSQE_BUFFER_SELECT;
        s->buf_group = buffer_group;
      },
      fd, key | receive_op);
}

bool uring::accept(int fd, std::uint64_t key) noexcept {
  return arm(
      [](void* sqe, int socket) {
        ::io_uring_prep_multishot_accept(static_cast<::io_uring_sqe*>(sqe), socket, nullptr, nullptr,
                                         SOCK_NONBLOCK | SOCK_CLOEXEC);
      },
      fd, key | accept_op);
}

void uring::cancel(std::uint64_t user_data) noexcept {
  // The cancel's own completion has user_data 0; the cancelled operation
  // ends with a completion of its own (-ECANCELED, no F_MORE).
  std::lock_guard lock(submit_lock_);
  if (auto* sqe = static_cast<::io_uring_sqe*>(entry())) {
    ::io_uring_prep_cancel64(sqe, user_data, 0);
    ::io_uring_sqe_set_data64(sqe, 0);
    ::io_uring_submit(ring_.get());
  }
}

bool uring::next(std::uint64_t& user_data, int& result, unsigned& flags) noexcept {
  ::io_uring_cqe* cqe = nullptr;
  if (::io_uring_peek_cqe(ring_.get(), &cqe) != 0 || cqe == nullptr) return false;
  user_data = ::io_uring_cqe_get_data64(cqe);
  result = cqe->res;
  flags = cqe->flags;
  ::io_uring_cqe_seen(ring_.get(), cqe);
  if ((user_data & op_mask) != 0 && (flags & IORING_CQE_F_MORE) == 0)
    in_flight_.fetch_sub(1, std::memory_order_relaxed);
  return true;
}

void uring::run_own_work() noexcept {
  if ((IO_URING_READ_ONCE(*ring_->sq.kflags) & IORING_SQ_TASKRUN) != 0) ::io_uring_get_events(ring_.get());
}

void uring::recycle(unsigned id) noexcept {
  std::lock_guard lock(buffers_lock_);
  ::io_uring_buf_ring_add(buffer_ring_, buffers_.get() + std::size_t{id} * buffer_size, buffer_size,
                          static_cast<unsigned short>(id), ::io_uring_buf_ring_mask(buffer_count), 0);
  ::io_uring_buf_ring_advance(buffer_ring_, 1);
}

}  // namespace lanes::detail

#else  // built without liburing

namespace lanes::detail {

// open() never makes one, so nothing else is ever called.
std::unique_ptr<uring> uring::open(std::string& why_not) {
  why_not = "lanes was built without liburing";
  return nullptr;
}
bool uring::probe(std::string& why_not) {
  why_not = "lanes was built without liburing";
  return false;
}
uring::~uring() = default;
int uring::fd() const noexcept { return -1; }
bool uring::receive(int, std::uint64_t) noexcept { return false; }
bool uring::accept(int, std::uint64_t) noexcept { return false; }
void uring::cancel(std::uint64_t) noexcept {}
bool uring::next(std::uint64_t&, int&, unsigned&) noexcept { return false; }
void uring::recycle(unsigned) noexcept {}
void uring::run_own_work() noexcept {}

}  // namespace lanes::detail

#endif
