// checked_operation: an fd_operation whose failure is thrown as the socket
// types report it (lanes/net/errors.hpp), naming the operation and the
// address; co_await gives the call's non-negative result.
#pragma once

#include <cerrno>
#include <cstddef>
#include <utility>

#include <lanes/io/detail/fd_operation.hpp>
#include <lanes/net/errors.hpp>

namespace lanes::net::detail {

template <class Attempt>
class [[nodiscard]] checked_operation : public lanes::detail::fd_operation<Attempt> {
  using base = lanes::detail::fd_operation<Attempt>;

 public:
  // `address` is read only to report a failure, never after the socket it
  // belongs to was closed (operation_canceled names no address).
  checked_operation(base&& op, const char* operation, const socket_address* address)
      : base(std::move(op)), operation_(operation), address_(address) {}

  std::size_t await_resume() {
    const lanes::detail::fd_result r = base::await_resume();
    if (!r) throw_errno(r.error, operation_, r.error == ECANCELED ? nullptr : address_);
    return static_cast<std::size_t>(r.value);
  }

 protected:
  const char* operation_;
  const socket_address* address_;
};

}  // namespace lanes::net::detail
