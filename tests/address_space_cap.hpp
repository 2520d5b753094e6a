// address_space_cap: caps this process's address space (RLIMIT_AS) a given
// headroom above what it maps now, for as long as it lives, so that tests
// can make thread starts (their stacks) and allocations fail for real.
// Sanitizer builds reserve terabytes of address space: no cap fits there,
// and tests that use this skip them (detail::sanitized_build).
#pragma once

#include <sys/resource.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>

namespace lanes::testing_support {

// What the process maps now (/proc/self/statm, in bytes).
inline std::size_t mapped_bytes() {
  std::FILE* statm = std::fopen("/proc/self/statm", "r");
  unsigned long pages = 0;
  if (statm != nullptr) {
    if (std::fscanf(statm, "%lu", &pages) != 1) pages = 0;
    std::fclose(statm);
  }
  return static_cast<std::size_t>(pages) * static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
}

class address_space_cap {
 public:
  explicit address_space_cap(std::size_t headroom) {
    known_ = getrlimit(RLIMIT_AS, &before_) == 0;
    rlimit capped = before_;
    capped.rlim_cur = mapped_bytes() + headroom;
    applied_ = known_ && setrlimit(RLIMIT_AS, &capped) == 0;
  }
  address_space_cap(const address_space_cap&) = delete;
  address_space_cap& operator=(const address_space_cap&) = delete;
  ~address_space_cap() { lift(); }

  bool applied() const noexcept { return applied_; }
  // Restores the limit before the end of the scope; true if it was restored.
  bool lift() noexcept {
    if (!applied_) return true;
    applied_ = false;
    return setrlimit(RLIMIT_AS, &before_) == 0;
  }

 private:
  rlimit before_{};
  bool known_ = false;
  bool applied_ = false;
};

}  // namespace lanes::testing_support
