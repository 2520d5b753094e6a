// Strict decimal parsing shared by the cgroup readers and the environment
// overrides: the whole text must be the number, nothing before or after.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string_view>

namespace lanes::detail {

template <class Int>
std::optional<Int> parse_decimal(std::string_view text) {
  Int value{};
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc{} || ptr != end) return std::nullopt;
  return value;
}

// Text without surrounding spaces, tabs and newlines (file contents end in '\n').
inline std::string_view trim(std::string_view text) {
  constexpr std::string_view blanks = " \t\r\n";
  const auto first = text.find_first_not_of(blanks);
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(blanks) - first + 1);
}

}  // namespace lanes::detail
