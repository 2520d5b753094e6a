// net::stream_socket: a connected byte stream, what tcp_stream and
// unix_stream share - reads, writes, shutdown of the write side, the
// addresses, and split() into halves two tasks may use at once.
//
//   std::byte buf[4096];
//   std::size_t n = co_await s.read_some(buf);     // 0: the peer closed its side
//   co_await s.write_all(std::span(buf, n));
//
// Failures are std::system_error naming the operation and the peer
// ("read 127.0.0.1:5000: Connection reset by peer"; errors.hpp).
//
// Cancellation (a select, a timeout, the task aborted):
// - read_some, write_some: cancellation-safe. Cancelled while waiting,
//   they have read (written) nothing; they make their call only while the
//   task runs and returns its result (lanes/io/detail/fd_operation.hpp).
// - read_exact: not cancellation-safe: what it has read before it is
//   cancelled is lost. Use read_some in a select loop.
// - write_all: cancelled, it has written a prefix of the data, of a length
//   it cannot report; the peer may have received any part of it. Close the
//   stream (or shut its write side) rather than write after that.
// - One task reads and one task writes at a time (split() hands out the
//   two directions); a second task waiting in the same direction is a
//   runtime_misuse.
// - Closing or destroying the stream while a task waits on it wakes that
//   task with operation_canceled.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <cstddef>
#include <span>
#include <string_view>
#include <utility>

#include <lanes/io/task.hpp>
#include <lanes/net/detail/checked_operation.hpp>
#include <lanes/net/detail/socket_descriptor.hpp>
#include <lanes/net/socket_address.hpp>

namespace lanes::net {

class stream_socket {
  // recv, or on the io_uring backend a take from what the ring received
  // (lanes/io/io_backend.hpp).
  struct receive_call {
    lanes::detail::fd_registration socket;
    std::span<std::byte> buffer;
    bool ring_drained = false;
    ssize_t operator()() noexcept {
      if (socket.readiness->from_ring()) return lanes::detail::fd_ring_receive(socket, buffer, ring_drained);
      return ::recv(socket.fd, buffer.data(), buffer.size(), 0);
    }
    // A stream's short read emptied its receive queue (or the ring's
    // inbox): the next read waits for the driver's word instead of asking
    // (lanes/io/detail/fd_readiness.hpp).
    bool drained(ssize_t n) const noexcept {
      if (socket.readiness->from_ring()) return ring_drained;
      return n > 0 && static_cast<std::size_t>(n) < buffer.size();
    }
  };
  struct send_call {
    int fd;
    std::span<const std::byte> buffer;
    ssize_t operator()() const noexcept { return ::send(fd, buffer.data(), buffer.size(), MSG_NOSIGNAL); }
    bool drained(ssize_t n) const noexcept { return static_cast<std::size_t>(n) < buffer.size(); }  // send buffer full
  };

 public:
  // Reads what is there, at most buffer.size() bytes, waiting if nothing
  // is: the count (0: end of stream, or an empty buffer).
  detail::checked_operation<receive_call> read_some(std::span<std::byte> buffer) {
    async_fd& fd = socket_.registered();
    return {fd.async_io(lanes::detail::fd_readable, receive_call{fd.registration(), buffer}, "lanes::net read"), "read",
            &peer_};
  }
  // Writes what fits, at least one byte unless the buffer is empty.
  detail::checked_operation<send_call> write_some(std::span<const std::byte> buffer) {
    return {socket_.operation(lanes::detail::fd_writable, "lanes::net write", send_call{socket_.fd(), buffer}), "write",
            &peer_};
  }
  // Readiness alone, taking nothing (lanes/io/async_fd.hpp): a select
  // branch that sees the peer hang up, or data arrive, without reading.
  async_fd::readiness readable() { return socket_.registered().readable(); }
  async_fd::readiness writable() { return socket_.registered().writable(); }
  // Fills the whole buffer; errc::end_of_stream if the peer closes first.
  task<void> read_exact(std::span<std::byte> buffer);
  task<void> write_all(std::span<const std::byte> buffer);
  task<void> write_all(std::string_view text) { return write_all(std::as_bytes(std::span(text))); }
  // Writes the buffers in order, as many per call as the kernel takes (sendmsg).
  task<void> write_all(std::span<const std::span<const std::byte>> buffers);
  // No more writes: the peer reads the end of the stream; reads go on.
  void shutdown_write();

  const socket_address& peer_address() const noexcept { return peer_; }
  socket_address local_address() const { return socket_.local_address(); }
  int native_handle() const noexcept { return socket_.fd(); }
  bool is_open() const noexcept { return socket_.is_open(); }
  void close() noexcept { socket_.close(); }

  // The two directions, for two tasks at once (one reading, one writing).
  // They refer to this stream, which must outlive them.
  class read_half {
   public:
    auto read_some(std::span<std::byte> buffer) { return stream_->read_some(buffer); }
    task<void> read_exact(std::span<std::byte> buffer) { return stream_->read_exact(buffer); }
    const socket_address& peer_address() const noexcept { return stream_->peer_address(); }

   private:
    friend class stream_socket;
    explicit read_half(stream_socket& s) noexcept : stream_(&s) {}
    stream_socket* stream_;
  };
  class write_half {
   public:
    auto write_some(std::span<const std::byte> buffer) { return stream_->write_some(buffer); }
    task<void> write_all(std::span<const std::byte> buffer) { return stream_->write_all(buffer); }
    task<void> write_all(std::string_view text) { return stream_->write_all(text); }
    task<void> write_all(std::span<const std::span<const std::byte>> buffers) { return stream_->write_all(buffers); }
    void shutdown_write() { stream_->shutdown_write(); }
    const socket_address& peer_address() const noexcept { return stream_->peer_address(); }

   private:
    friend class stream_socket;
    explicit write_half(stream_socket& s) noexcept : stream_(&s) {}
    stream_socket* stream_;
  };
  std::pair<read_half, write_half> split();

 protected:
  stream_socket() noexcept = default;
  stream_socket(detail::socket_descriptor socket, socket_address peer) noexcept
      : socket_(std::move(socket)), peer_(peer) {
    socket_.read_through_ring(detail::socket_descriptor::ring_reading::receive);
  }

  detail::socket_descriptor socket_;
  socket_address peer_;
};

}  // namespace lanes::net
