// frame_allocator: where task frames and spawned-task headers get their
// memory. Each thread keeps free lists of recently freed blocks by size
// class (64-byte steps up to 1 KiB), so spawning and finishing a task costs
// a list push and pop instead of two trips through malloc. A block freed on
// another thread than the one that allocated it joins that thread's lists;
// each list holds at most `max_cached` blocks and the rest go back to the
// system allocator, as do all cached blocks when the thread exits.
// Sanitizer builds bypass the cache so that use-after-free stays visible.
#pragma once

#include <cstddef>

namespace lanes::detail {

void* allocate_frame(std::size_t size);
void free_frame(void* block, std::size_t size) noexcept;
// False in sanitizer builds, where every block goes back to the system.
bool frame_cache_enabled() noexcept;

}  // namespace lanes::detail
