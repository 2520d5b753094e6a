#include "budget/system_files.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

namespace lanes::detail {

std::filesystem::path system_files::host_path(std::string_view path) const {
  while (!path.empty() && path.front() == '/') path.remove_prefix(1);
  return root_ / std::filesystem::path(path);
}

std::optional<std::string> system_files::read(std::string_view path) const {
  // /proc and cgroupfs files report size 0, so read until EOF rather than by size.
  const int fd = ::open(host_path(path).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string contents;
  char chunk[4096];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n > 0) {
      contents.append(chunk, static_cast<std::size_t>(n));
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      ::close(fd);
      return std::nullopt;  // e.g. EISDIR: not a file we can use
    }
  }
  ::close(fd);
  return contents;
}

}  // namespace lanes::detail
