// net::resolve (include/lanes/net/resolve.hpp).
#include <lanes/net/resolve.hpp>

#include <netdb.h>

#include <algorithm>
#include <memory>

#include <lanes/blocking/spawn_blocking.hpp>
#include <lanes/net/errors.hpp>

namespace lanes::net {

namespace {

// A numeric IPv4 or IPv6 host (brackets allowed around IPv6), or nothing.
bool numeric(const std::string& host, std::uint16_t port, socket_address& out) {
  const bool bracketed = host.size() >= 2 && host.front() == '[' && host.back() == ']';
  const std::string text = bracketed || host.find(':') == std::string::npos ? host : "[" + host + "]";
  auto parsed = socket_address::try_parse(text + ":" + std::to_string(port));
  if (!parsed) return false;
  out = parsed.value();
  return true;
}

// Runs on the blocking lane.
std::vector<socket_address> look_up(const std::string& host, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;  // one entry per address, not one per socket type
  hints.ai_flags = AI_ADDRCONFIG;
  addrinfo* found = nullptr;
  const int error = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (error != 0) {
    const int code = error == EAI_SYSTEM ? errno : error;
    throw std::system_error(code, error == EAI_SYSTEM ? std::generic_category() : resolve_category(),
                            "resolve " + host);
  }
  std::unique_ptr<addrinfo, void (*)(addrinfo*)> owned(found, ::freeaddrinfo);
  std::vector<socket_address> addresses;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const auto address = socket_address::from_native(a->ai_addr, a->ai_addrlen);
    if (!address.is_ip()) continue;
    const auto with_port = address.with_port(port);
    if (std::find(addresses.begin(), addresses.end(), with_port) == addresses.end()) addresses.push_back(with_port);
  }
  if (addresses.empty()) throw std::system_error(EAI_NONAME, resolve_category(), "resolve " + host);
  return addresses;
}

}  // namespace

task<std::vector<socket_address>> resolve(std::string host, std::uint16_t port) {
  if (socket_address a; numeric(host, port, a)) co_return std::vector<socket_address>{a};
  // A named job, not a lambda written inside the co_await: g++ 12 copies
  // such a temporary into the frame bit by bit, and a std::string it
  // captured then points at the copy it came from (CONTRIBUTING.md).
  auto job = [host = std::move(host), port] { return look_up(host, port); };
  co_return co_await spawn_blocking(std::move(job), "lanes::net::resolve");
}

}  // namespace lanes::net
