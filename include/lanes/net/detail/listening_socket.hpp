// listening_socket: what tcp_listener and unix_listener share - a bound,
// listening socket and its accept operation, which hands the new
// connection to `Stream`'s adopting constructor.
//
// accept is cancellation-safe: accept4 runs only while the task runs
// (fd_operation), so a cancelled accept leaves the connection queued in
// the kernel for the next one. Errors accept4 reports for a connection
// that died in the queue (ECONNABORTED and the network errors Linux passes
// on, see accept(2)) are skipped: the next queued connection is taken.
#pragma once

#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include <lanes/net/detail/checked_operation.hpp>
#include <lanes/net/detail/socket_descriptor.hpp>
#include <lanes/net/listen_options.hpp>
#include <lanes/net/socket_address.hpp>

namespace lanes::net::detail {

// accept4 into its own storage (on the io_uring backend: a take from what
// the ring accepted, and getpeername). The new fd is owned here until
// taken, so an operation destroyed after its call but before its result
// was used closes it rather than leaking it.
struct accept_call {
  lanes::detail::fd_registration listening;
  sockaddr_storage peer{};
  socklen_t peer_size = 0;
  int accepted = -1;

  explicit accept_call(const lanes::detail::fd_registration& r) noexcept : listening(r) {}
  accept_call(accept_call&& other) noexcept
      : listening(other.listening),
        peer(other.peer),
        peer_size(other.peer_size),
        accepted(std::exchange(other.accepted, -1)) {}
  accept_call(const accept_call&) = delete;
  accept_call& operator=(const accept_call&) = delete;
  accept_call& operator=(accept_call&&) = delete;
  ~accept_call() {
    if (accepted >= 0) ::close(accepted);
  }
  ssize_t operator()() noexcept;
  int take() noexcept { return std::exchange(accepted, -1); }

 private:
  int accept_one() noexcept;  // accept4, or the ring's next; fills `peer`
};

class listening_socket {
 public:
  listening_socket() noexcept = default;
  // socket, options, bind, listen. Failures name "bind ADDRESS" / "listen ADDRESS".
  listening_socket(const socket_address& address, const listen_options& options);

  template <class Stream>
  class accept_operation : public checked_operation<accept_call> {
   public:
    using checked_operation<accept_call>::checked_operation;
    accepted<Stream> await_resume() {
      checked_operation<accept_call>::await_resume();
      accept_call& call = this->attempt();
      const socket_address peer = socket_address::from_native(reinterpret_cast<sockaddr*>(&call.peer), call.peer_size);
      return {Stream(socket_descriptor(call.take()), peer), peer};
    }
  };

  template <class Stream>
  accept_operation<Stream> accept() {
    async_fd& fd = socket_.registered();
    return {fd.async_io(lanes::detail::fd_readable, accept_call(fd.registration()), "lanes::net accept"), "accept",
            &local_};
  }

  const socket_address& local_address() const noexcept { return local_; }
  int native_handle() const noexcept { return socket_.fd(); }
  bool is_open() const noexcept { return socket_.is_open(); }
  void close() noexcept { socket_.close(); }

 private:
  socket_descriptor socket_;
  socket_address local_;  // as bound (the port the kernel chose for port 0)
};

}  // namespace lanes::net::detail
