// Finding a program a lanes tool runs (program_path.hpp).
#include "program_path.hpp"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace lanes::tool {

bool is_executable(const std::string& path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

program_location locate_program(const char* env_var, const std::string& relative_to_self) {
  if (const char* env = std::getenv(env_var); env != nullptr && *env != '\0') {
    return {is_executable(env) ? env : "", std::string(env_var) + "=" + env, true};
  }
  std::error_code error;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) return {"", "/proc/self/exe (unreadable: " + error.message() + ")", false};
  const auto candidate = (self.parent_path() / relative_to_self).lexically_normal().string();
  return {is_executable(candidate) ? candidate : "", candidate, false};
}

}  // namespace lanes::tool
