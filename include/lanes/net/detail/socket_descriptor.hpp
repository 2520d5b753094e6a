// socket_descriptor: the one owner of a socket's descriptor inside every
// socket type. It closes the descriptor when destroyed (CLOEXEC always:
// sockets are opened with SOCK_CLOEXEC), and registers it with the driver
// of the runtime whose task first uses it (at once when made inside a
// task, so a split stream's two halves never race to register).
//
// close() deregisters before it closes: a task waiting on the socket is
// woken (its operation fails with operation_canceled) and makes no call on
// the descriptor, whose number the process may reuse at once.
//
// On the io_uring backend a stream's reading side and a listener's
// accepting side are driven by the ring (ring_reading): the socket types
// say which at construction, and registration applies it.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <utility>

#include <lanes/io/async_fd.hpp>
#include <lanes/net/socket_address.hpp>

namespace lanes::net::detail {

class socket_descriptor {
 public:
  socket_descriptor() noexcept = default;
  // Takes `fd` (non-blocking, CLOEXEC) over.
  explicit socket_descriptor(int fd);
  // A new socket (SOCK_NONBLOCK | SOCK_CLOEXEC added), registered at its
  // first operation (after bind or connect, so that the driver never
  // reports the state of a socket not yet set up); failure names
  // `operation` and `address`.
  static socket_descriptor open(int family, int type, const char* operation, const socket_address& address);
  socket_descriptor(socket_descriptor&& other) noexcept
      : registration_(std::move(other.registration_)),
        fd_(std::exchange(other.fd_, -1)),
        reading_(std::exchange(other.reading_, ring_reading::none)) {}
  socket_descriptor& operator=(socket_descriptor&& other) noexcept {
    if (this != &other) {
      close();
      registration_ = std::move(other.registration_);
      fd_ = std::exchange(other.fd_, -1);
      reading_ = std::exchange(other.reading_, ring_reading::none);
    }
    return *this;
  }
  socket_descriptor(const socket_descriptor&) = delete;
  socket_descriptor& operator=(const socket_descriptor&) = delete;
  ~socket_descriptor() { close(); }

  int fd() const noexcept { return fd_; }
  bool is_open() const noexcept { return fd_ >= 0; }
  void close() noexcept;

  // One call on the socket, retried on readiness (lanes/io/detail/fd_operation.hpp).
  template <class Attempt>
  lanes::detail::fd_operation<Attempt> operation(unsigned direction, const char* what, Attempt attempt) {
    return registered().async_io(direction, std::move(attempt), what);
  }
  // Registers with the calling task's runtime if that has not happened yet.
  async_fd& registered();
  // What the ring may drive once registered (if already registered: now).
  enum class ring_reading : unsigned char { none, receive, accept };
  void read_through_ring(ring_reading what) noexcept;

  socket_address local_address() const;  // getsockname; std::system_error on failure
  socket_address peer_address() const;   // getpeername
  void set_option(int level, int name, int value, const char* operation) const;
  int option(int level, int name, const char* operation) const;

 private:
  void apply_ring_reading() noexcept;
  async_fd registration_;  // empty until registered
  int fd_ = -1;
  ring_reading reading_ = ring_reading::none;
};

}  // namespace lanes::net::detail
