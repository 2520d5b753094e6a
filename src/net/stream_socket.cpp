// net::stream_socket (include/lanes/net/stream_socket.hpp): the loops
// over read_some / write_some, and the vectored write.
#include <lanes/net/stream_socket.hpp>

#include <limits.h>
#include <sys/uio.h>

#include <algorithm>
#include <cerrno>
#include <vector>

namespace lanes::net {

task<void> stream_socket::read_exact(std::span<std::byte> buffer) {
  while (!buffer.empty()) {
    const std::size_t n = co_await read_some(buffer);
    if (n == 0) detail::throw_net_error(errc::end_of_stream, "read", &peer_);
    buffer = buffer.subspan(n);
  }
}

task<void> stream_socket::write_all(std::span<const std::byte> buffer) {
  while (!buffer.empty()) buffer = buffer.subspan(co_await write_some(buffer));
}

namespace {

// sendmsg over what is left of `buffers`, from byte `offset` of the first one.
struct send_vectored_call {
  int fd;
  std::span<const std::span<const std::byte>> buffers;
  std::size_t offset;
  ssize_t operator()() const noexcept {
    iovec parts[64];
    std::size_t count = 0;
    for (std::size_t i = 0; i < buffers.size() && count < std::size(parts); ++i) {
      const std::size_t skip = i == 0 ? offset : 0;
      if (buffers[i].size() == skip) continue;
      parts[count].iov_base = const_cast<std::byte*>(buffers[i].data() + skip);  // sendmsg does not write
      parts[count].iov_len = buffers[i].size() - skip;
      ++count;
    }
    msghdr message{};
    message.msg_iov = parts;
    message.msg_iovlen = count;
    return ::sendmsg(fd, &message, MSG_NOSIGNAL);
  }
};

}  // namespace

task<void> stream_socket::write_all(std::span<const std::span<const std::byte>> buffers) {
  std::size_t offset = 0;  // into buffers.front()
  for (;;) {
    while (!buffers.empty() && offset == buffers.front().size()) {
      buffers = buffers.subspan(1);
      offset = 0;
    }
    if (buffers.empty()) co_return;
    std::size_t n = co_await detail::checked_operation<send_vectored_call>(
        socket_.operation(lanes::detail::fd_writable, "lanes::net write",
                          send_vectored_call{socket_.fd(), buffers, offset}),
        "write", &peer_);
    while (n > 0) {  // advance past what was sent
      const std::size_t step = std::min(n, buffers.front().size() - offset);
      offset += step;
      n -= step;
      if (offset == buffers.front().size() && n > 0) {
        buffers = buffers.subspan(1);
        offset = 0;
      }
    }
  }
}

void stream_socket::shutdown_write() {
  if (::shutdown(socket_.fd(), SHUT_WR) < 0) detail::throw_errno(errno, "shutdown", &peer_);
}

std::pair<stream_socket::read_half, stream_socket::write_half> stream_socket::split() {
  socket_.registered();  // now, not by whichever half runs first
  return {read_half(*this), write_half(*this)};
}

}  // namespace lanes::net
