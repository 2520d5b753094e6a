#include "budget/env_values.hpp"

#include <cstdint>

#include <lanes/config_error.hpp>

#include "budget/parse_number.hpp"

namespace lanes::detail {

namespace {

[[noreturn]] void reject(std::string_view name, const std::string& text, const std::string& why) {
  throw config_error(std::string(name) + "=\"" + text + "\": " + why);
}

}  // namespace

std::optional<unsigned> count_from_env(std::string_view name, const std::optional<std::string>& text, unsigned max) {
  if (!text) return std::nullopt;
  const std::string range = "a whole number from 1 to " + std::to_string(max);
  if (text->empty()) {
    throw config_error(std::string(name) + " is set but empty: unset it to use the default, or give " + range);
  }
  const auto body = trim(*text);
  if (!body.empty() && body.front() == '-') reject(name, *text, "negative; expected " + range);
  // Parse wide so that "99999999999" is reported as too large, not as garbage.
  const auto value = parse_decimal<std::uint64_t>(body);
  if (!value) {
    const bool all_digits = !body.empty() && body.find_first_not_of("0123456789") == std::string_view::npos;
    reject(name, *text, all_digits ? "far too large; expected " + range : "not a number; expected " + range);
  }
  if (*value == 0) reject(name, *text, "must be at least 1; unset it to use the default");
  if (*value > max) reject(name, *text, "larger than " + std::to_string(max) + "; expected " + range);
  return static_cast<unsigned>(*value);
}

std::optional<bool> flag_from_env(std::string_view name, const std::optional<std::string>& text) {
  if (!text) return std::nullopt;
  const auto body = trim(*text);
  if (body == "1" || body == "true" || body == "yes" || body == "on") return true;
  if (body == "0" || body == "false" || body == "no" || body == "off") return false;
  reject(name, *text, "expected 1/true/yes/on or 0/false/no/off");
}

unsigned checked_builder_count(std::string_view setter, unsigned value, unsigned max) {
  if (value == 0) {
    throw config_error("budget_builder::" + std::string(setter) + "(0): must be at least 1");
  }
  if (value > max) {
    throw config_error("budget_builder::" + std::string(setter) + "(" + std::to_string(value) + "): larger than " +
                       std::to_string(max));
  }
  return value;
}

}  // namespace lanes::detail
