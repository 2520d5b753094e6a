// The socket types' errors (include/lanes/net/errors.hpp).
#include <lanes/net/errors.hpp>

#include <netdb.h>

#include <lanes/net/socket_address.hpp>

namespace lanes::net {

namespace {

class net_error_category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "lanes::net"; }
  std::string message(int code) const override {
    return code == static_cast<int>(errc::end_of_stream) ? "the stream ended before the read was complete"
                                                         : "unknown lanes::net error";
  }
};

class resolve_error_category final : public std::error_category {
 public:
  const char* name() const noexcept override { return "getaddrinfo"; }
  std::string message(int code) const override { return ::gai_strerror(code); }
};

}  // namespace

const std::error_category& net_category() noexcept {
  static const net_error_category category;
  return category;
}

const std::error_category& resolve_category() noexcept {
  static const resolve_error_category category;
  return category;
}

namespace detail {

void throw_net_error(std::error_code error, const char* operation, const socket_address* address) {
  std::string what = operation;
  if (address != nullptr && address->type() != socket_address::kind::none) what += " " + address->to_string();
  throw std::system_error(error, what);
}

}  // namespace detail
}  // namespace lanes::net
