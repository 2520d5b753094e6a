// lanes::source_location: where a task was spawned. std::source_location
// is not usable with clang 14 on libstdc++ 12 (it needs a builtin clang 15
// added), so lanes uses the builtins both compilers have had for years.
#pragma once

#include <cstdint>

namespace lanes {

struct source_location {
  const char* file = "";
  const char* function = "";
  std::uint32_t line_number = 0;

  static constexpr source_location current(const char* file = __builtin_FILE(),
                                           const char* function = __builtin_FUNCTION(),
                                           std::uint32_t line = __builtin_LINE()) noexcept {
    return source_location{file, function, line};
  }
  constexpr const char* file_name() const noexcept { return file; }
  constexpr const char* function_name() const noexcept { return function; }
  constexpr std::uint32_t line() const noexcept { return line_number; }
};

}  // namespace lanes
