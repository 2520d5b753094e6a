#include <lanes/io/detail/frame_allocator.hpp>

#include <array>
#include <new>

#include "sanitized_build.hpp"

namespace lanes::detail {

namespace {

constexpr std::size_t step = 64;         // size classes of a cache line; blocks are 16-byte aligned
constexpr std::size_t classes = 16;      // up to 1 KiB
constexpr std::size_t max_cached = 512;  // per class and thread: bounds what an idle thread holds

struct free_block {
  free_block* next;
};

class thread_cache {
 public:
  thread_cache() = default;
  thread_cache(const thread_cache&) = delete;
  thread_cache& operator=(const thread_cache&) = delete;
  ~thread_cache() {
    for (std::size_t c = 0; c < classes; ++c) {
      while (free_block* b = lists_[c]) {
        lists_[c] = b->next;
        ::operator delete(b);
      }
    }
  }
  void* pop(std::size_t c) noexcept {
    free_block* b = lists_[c];
    if (b == nullptr) return nullptr;
    lists_[c] = b->next;
    --counts_[c];
    return b;
  }
  bool push(std::size_t c, void* block) noexcept {
    if (counts_[c] >= max_cached) return false;
    auto* b = static_cast<free_block*>(block);
    b->next = lists_[c];
    lists_[c] = b;
    ++counts_[c];
    return true;
  }

 private:
  std::array<free_block*, classes> lists_{};
  std::array<std::size_t, classes> counts_{};
};

thread_local thread_cache cache;

std::size_t class_of(std::size_t size) noexcept { return (size + step - 1) / step - 1; }

}  // namespace

bool frame_cache_enabled() noexcept { return !sanitized_build; }

void* allocate_frame(std::size_t size) {
  const std::size_t c = class_of(size);
  if constexpr (!sanitized_build) {
    if (c < classes) {
      if (void* b = cache.pop(c)) return b;
    }
  }
  return ::operator new((c + 1) * step);
}

void free_frame(void* block, std::size_t size) noexcept {
  const std::size_t c = class_of(size);
  if constexpr (!sanitized_build) {
    if (c < classes && cache.push(c, block)) return;
  }
  ::operator delete(block);
}

}  // namespace lanes::detail
