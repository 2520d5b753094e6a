// How the socket types report failure: a std::system_error whose message
// names the operation and the address ("connect 127.0.0.1:1: Connection
// refused"), with the errno as a std::generic_category code, so callers
// compare it with std::errc. EINTR and EAGAIN are handled inside and never
// reach the caller. Two codes are lanes' own:
// - net::errc::end_of_stream: read_exact met the end of the stream first;
// - resolve failures (getaddrinfo's EAI_* codes), in resolve_category().
// A socket closed while a task waits on it wakes that task with
// std::errc::operation_canceled.
#pragma once

#include <string>
#include <system_error>

namespace lanes::net {

class socket_address;

enum class errc { end_of_stream = 1 };

const std::error_category& net_category() noexcept;
const std::error_category& resolve_category() noexcept;  // getaddrinfo's EAI_* codes

inline std::error_code make_error_code(errc e) noexcept { return {static_cast<int>(e), net_category()}; }

namespace detail {

// Throws std::system_error(`error`, "`operation` `address`"). `address`
// may be null (not known, or not to be read: the socket is gone).
[[noreturn]] void throw_net_error(std::error_code error, const char* operation, const socket_address* address);
[[noreturn]] inline void throw_errno(int error, const char* operation, const socket_address* address) {
  throw_net_error(std::error_code(error, std::generic_category()), operation, address);
}

}  // namespace detail
}  // namespace lanes::net

template <>
struct std::is_error_code_enum<lanes::net::errc> : std::true_type {};
