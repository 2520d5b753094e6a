// net::socket_address (include/lanes/net/socket_address.hpp): parsing,
// printing and comparing. Parsing takes numeric text only (inet_pton), so
// it never blocks and never reaches the resolver.
#include <lanes/net/socket_address.hpp>

#include <arpa/inet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <cstddef>
#include <cstring>

namespace lanes::net {

namespace {

constexpr std::size_t max_unix_path = sizeof(sockaddr_un::sun_path) - 1;  // room for the terminating NUL
constexpr std::string_view unix_prefix = "unix:";
constexpr std::string_view expected_forms = "expected IPv4:port, [IPv6]:port, unix:path or unix:@name";

// A parse failure: the message, or empty when it succeeded.
using parse_error = std::string;

parse_error failure(std::string_view text, std::string_view why) {
  std::string message = "lanes::net: bad address \"";
  message.append(text);
  message.append("\": ");
  message.append(why);
  return message;
}

// "0".."65535", digits only.
bool parse_port(std::string_view digits, std::uint16_t& port) noexcept {
  if (digits.empty() || digits.size() > 5) return false;
  std::uint32_t value = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<std::uint32_t>(c - '0');
  }
  if (value > 65535) return false;
  port = static_cast<std::uint16_t>(value);
  return true;
}

// A scope: an interface index, or a name if_nametoindex knows.
bool parse_scope(std::string_view scope, std::uint32_t& index) {
  if (scope.empty() || scope.size() >= IF_NAMESIZE) return false;
  bool digits = true;
  std::uint64_t value = 0;
  for (const char c : scope) {
    if (c < '0' || c > '9') {
      digits = false;
      break;
    }
    value = value * 10 + static_cast<std::uint64_t>(c - '0');
    if (value > UINT32_MAX) return false;
  }
  if (digits) {
    index = static_cast<std::uint32_t>(value);
    return true;
  }
  const std::string name(scope);
  index = ::if_nametoindex(name.c_str());
  return index != 0;
}

}  // namespace

socket_address::socket_address() noexcept : storage_{} { storage_.ss_family = AF_UNSPEC; }

socket_address socket_address::parse(std::string_view text) {
  auto parsed = try_parse(text);
  if (!parsed) throw address_error(parsed.error());
  return std::move(parsed).value();
}

result<socket_address, std::string> socket_address::try_parse(std::string_view text) {
  if (text.empty()) return failure(text, std::string("empty (") + std::string(expected_forms) + ")");
  if (text.substr(0, unix_prefix.size()) == unix_prefix) {
    const std::string_view rest = text.substr(unix_prefix.size());
    if (rest.empty()) return failure(text, "no path after unix:");
    const bool abstract = rest.front() == '@';
    const std::string_view name = abstract ? rest.substr(1) : rest;
    if (name.size() > max_unix_path) {
      return failure(text, "a Unix socket " + std::string(abstract ? "name" : "path") + " has at most " +
                               std::to_string(max_unix_path) + " bytes");
    }
    if (!abstract && name.find('\0') != std::string_view::npos) return failure(text, "a path holds no NUL byte");
    return abstract ? unix_abstract(name) : unix_path(name);
  }

  std::string_view host;
  std::string_view port_text;
  const bool bracketed = text.front() == '[';
  if (bracketed) {
    const auto close = text.find(']');
    if (close == std::string_view::npos) return failure(text, "no ']' closing the IPv6 address");
    host = text.substr(1, close - 1);
    const std::string_view after = text.substr(close + 1);
    if (after.empty() || after.front() != ':') return failure(text, "missing :port after the ']'");
    port_text = after.substr(1);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return failure(text, "missing :port (" + std::string(expected_forms) + ")");
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) {
      return failure(text, "an IPv6 address goes in brackets, as in [::1]:443");
    }
  }
  std::uint16_t port = 0;
  if (!parse_port(port_text, port)) return failure(text, "the port is not a number from 0 to 65535");
  if (host.empty()) return failure(text, "no host before the port");

  socket_address a;
  if (bracketed) {
    std::string_view numeric = host;
    std::uint32_t scope = 0;
    if (const auto percent = host.find('%'); percent != std::string_view::npos) {
      numeric = host.substr(0, percent);
      if (!parse_scope(host.substr(percent + 1), scope)) {
        return failure(text, "the scope after '%' is neither an interface index nor a known interface");
      }
    }
    auto& v6 = reinterpret_cast<sockaddr_in6&>(a.storage_);
    const std::string copy(numeric);
    if (::inet_pton(AF_INET6, copy.c_str(), &v6.sin6_addr) != 1) return failure(text, "not a numeric IPv6 address");
    v6.sin6_family = AF_INET6;
    v6.sin6_port = htons(port);
    v6.sin6_scope_id = scope;
    a.size_ = sizeof(sockaddr_in6);
    return a;
  }
  auto& v4 = reinterpret_cast<sockaddr_in&>(a.storage_);
  const std::string copy(host);
  if (::inet_pton(AF_INET, copy.c_str(), &v4.sin_addr) != 1) {
    return failure(text, "not a numeric IPv4 address (host names go through lanes::net::resolve)");
  }
  v4.sin_family = AF_INET;
  v4.sin_port = htons(port);
  a.size_ = sizeof(sockaddr_in);
  return a;
}

socket_address socket_address::ipv4_loopback(std::uint16_t port) noexcept {
  socket_address a = ipv4_any(port);
  reinterpret_cast<sockaddr_in&>(a.storage_).sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

socket_address socket_address::ipv4_any(std::uint16_t port) noexcept {
  socket_address a;
  auto& v4 = reinterpret_cast<sockaddr_in&>(a.storage_);
  v4.sin_family = AF_INET;
  v4.sin_port = htons(port);
  v4.sin_addr.s_addr = htonl(INADDR_ANY);
  a.size_ = sizeof(sockaddr_in);
  return a;
}

socket_address socket_address::ipv6_loopback(std::uint16_t port) noexcept {
  socket_address a;
  auto& v6 = reinterpret_cast<sockaddr_in6&>(a.storage_);
  v6.sin6_family = AF_INET6;
  v6.sin6_port = htons(port);
  v6.sin6_addr = in6addr_loopback;
  a.size_ = sizeof(sockaddr_in6);
  return a;
}

socket_address socket_address::unix_path(std::string_view path) {
  if (path.empty() || path.size() > max_unix_path) {
    throw address_error("lanes::net: bad Unix socket path \"" + std::string(path) + "\": 1 to " +
                        std::to_string(max_unix_path) + " bytes");
  }
  socket_address a;
  auto& un = reinterpret_cast<sockaddr_un&>(a.storage_);
  un.sun_family = AF_UNIX;
  std::memcpy(un.sun_path, path.data(), path.size());  // the rest stays zero: NUL-terminated
  a.size_ = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + path.size() + 1);
  return a;
}

socket_address socket_address::unix_abstract(std::string_view name) {
  if (name.size() > max_unix_path) {
    throw address_error("lanes::net: bad abstract Unix socket name \"" + std::string(name) + "\": at most " +
                        std::to_string(max_unix_path) + " bytes");
  }
  socket_address a;
  auto& un = reinterpret_cast<sockaddr_un&>(a.storage_);
  un.sun_family = AF_UNIX;
  un.sun_path[0] = '\0';  // abstract: a leading NUL, then the name (its length is in the size)
  std::memcpy(un.sun_path + 1, name.data(), name.size());
  a.size_ = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  return a;
}

socket_address socket_address::from_native(const sockaddr* address, socklen_t size) noexcept {
  socket_address a;
  if (address == nullptr || size == 0) return a;
  if (size > sizeof a.storage_) size = sizeof a.storage_;
  std::memcpy(&a.storage_, address, size);
  a.size_ = size;
  return a;
}

socket_address::kind socket_address::type() const noexcept {
  switch (storage_.ss_family) {
    case AF_INET:
      return kind::ipv4;
    case AF_INET6:
      return kind::ipv6;
    case AF_UNIX: {
      const auto path_size = size_ - static_cast<socklen_t>(offsetof(sockaddr_un, sun_path));
      if (size_ <= offsetof(sockaddr_un, sun_path)) return kind::unix_unnamed;
      const auto& un = reinterpret_cast<const sockaddr_un&>(storage_);
      return path_size > 0 && un.sun_path[0] == '\0' ? kind::unix_abstract : kind::unix_path;
    }
    default:
      return kind::none;
  }
}

std::uint16_t socket_address::port() const noexcept {
  switch (type()) {
    case kind::ipv4:
      return ntohs(reinterpret_cast<const sockaddr_in&>(storage_).sin_port);
    case kind::ipv6:
      return ntohs(reinterpret_cast<const sockaddr_in6&>(storage_).sin6_port);
    default:
      return 0;
  }
}

socket_address socket_address::with_port(std::uint16_t port) const {
  socket_address a = *this;
  switch (type()) {
    case kind::ipv4:
      reinterpret_cast<sockaddr_in&>(a.storage_).sin_port = htons(port);
      return a;
    case kind::ipv6:
      reinterpret_cast<sockaddr_in6&>(a.storage_).sin6_port = htons(port);
      return a;
    default:
      throw address_error("lanes::net: " + to_string() + " has no port to set");
  }
}

std::string socket_address::to_string() const {
  char text[INET6_ADDRSTRLEN] = {};
  const auto& un = reinterpret_cast<const sockaddr_un&>(storage_);
  const auto path_size = static_cast<std::size_t>(size_) - offsetof(sockaddr_un, sun_path);
  switch (type()) {
    case kind::ipv4:
      ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(storage_).sin_addr, text, sizeof text);
      return std::string(text) + ":" + std::to_string(port());
    case kind::ipv6: {
      const auto& v6 = reinterpret_cast<const sockaddr_in6&>(storage_);
      ::inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof text);
      std::string s = "[" + std::string(text);
      if (v6.sin6_scope_id != 0) s += "%" + std::to_string(v6.sin6_scope_id);
      return s + "]:" + std::to_string(port());
    }
    case kind::unix_path:
      return "unix:" + std::string(un.sun_path, ::strnlen(un.sun_path, path_size));
    case kind::unix_abstract:
      return "unix:@" + std::string(un.sun_path + 1, path_size - 1);
    case kind::unix_unnamed:
      return "unix:(unnamed)";
    case kind::none:
      break;
  }
  return "(none)";
}

bool operator==(const socket_address& a, const socket_address& b) noexcept {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case socket_address::kind::ipv4: {
      const auto& x = reinterpret_cast<const sockaddr_in&>(a.storage_);
      const auto& y = reinterpret_cast<const sockaddr_in&>(b.storage_);
      return x.sin_port == y.sin_port && x.sin_addr.s_addr == y.sin_addr.s_addr;
    }
    case socket_address::kind::ipv6: {
      const auto& x = reinterpret_cast<const sockaddr_in6&>(a.storage_);
      const auto& y = reinterpret_cast<const sockaddr_in6&>(b.storage_);
      return x.sin6_port == y.sin6_port && x.sin6_scope_id == y.sin6_scope_id &&
             std::memcmp(&x.sin6_addr, &y.sin6_addr, sizeof x.sin6_addr) == 0;
    }
    case socket_address::kind::none:
    case socket_address::kind::unix_unnamed:
      return true;
    default:
      return a.size_ == b.size_ && std::memcmp(&a.storage_, &b.storage_, a.size_) == 0;
  }
}

}  // namespace lanes::net
