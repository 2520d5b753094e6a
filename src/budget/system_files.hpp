// system_files: the one seam through which the budget reads the system.
// Every path is given as the process would see it ("/proc/self/cgroup") and
// read under a root directory, so tests point the probe at fixture trees of
// real cgroup v1, v2 and hybrid layouts.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace lanes::detail {

class system_files {
 public:
  explicit system_files(std::filesystem::path root) : root_(std::move(root)) {}

  // The whole file, or nullopt when it cannot be opened (missing, no permission).
  std::optional<std::string> read(std::string_view path) const;

 private:
  std::filesystem::path host_path(std::string_view path) const;
  std::filesystem::path root_;
};

}  // namespace lanes::detail
