// Reading the LANES_* environment variables. A variable that is set must
// hold a sensible value: anything else is a config_error naming the variable
// and the value, never a crash and never a silent default.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace lanes::detail {

// A whole number from 1 to `max`; nullopt when the variable is not set.
std::optional<unsigned> count_from_env(std::string_view name, const std::optional<std::string>& text, unsigned max);

// 1/true/yes/on or 0/false/no/off; nullopt when the variable is not set.
std::optional<bool> flag_from_env(std::string_view name, const std::optional<std::string>& text);

// Rejects 0 and values above `max` given to a builder setter.
unsigned checked_builder_count(std::string_view setter, unsigned value, unsigned max);

}  // namespace lanes::detail
