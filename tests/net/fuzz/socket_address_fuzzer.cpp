// libFuzzer target over net::socket_address's parser (clang, with the
// AddressSanitizer + UBSan build; CTest runs it briefly). Any text either
// parses into an address that prints as text parsing back to the same
// address, or fails with the parser's message - and never crashes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include <lanes/net/socket_address.hpp>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using lanes::net::socket_address;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = socket_address::try_parse(text);
  if (!parsed) {
    if (parsed.error().rfind("lanes::net: bad address \"", 0) != 0) std::abort();
    return 0;
  }
  const socket_address& address = parsed.value();
  if (address.type() == socket_address::kind::none) std::abort();
  const std::string printed = address.to_string();
  auto again = socket_address::try_parse(printed);
  if (!again || !(again.value() == address)) std::abort();
  return 0;
}
