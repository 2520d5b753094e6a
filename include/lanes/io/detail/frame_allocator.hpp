// frame_allocator: where task frames and spawned-task headers get their
// memory. Each thread keeps free lists of recently freed blocks by size
// class (64-byte steps up to 1 KiB), so spawning and finishing a task costs
// a list push and pop instead of two trips through malloc. A block freed on
// another thread than the one that allocated it joins that thread's lists;
// each list holds at most `max_cached` blocks, past which half moves to a
// shared pool, as do all of a thread's blocks when it exits. New blocks are
// carved from per-thread chunks (64 KiB growing to 2 MiB, the largest in
// transparent huge pages) mapped already populated: page faults are what
// made spawning 100,000 tasks slow (src/io/frame_allocator.cpp). Memory once used for frames stays with the
// allocator. Blocks over 1 KiB use the system allocator. Sanitizer builds
// bypass all of it so that use-after-free stays visible.
#pragma once

#include <cstddef>

namespace lanes {
struct frame_memory_metrics;
}

namespace lanes::detail {

void* allocate_frame(std::size_t size);
void free_frame(void* block, std::size_t size) noexcept;
// False in sanitizer builds, where every block goes back to the system.
bool frame_cache_enabled() noexcept;
// What the allocator has mapped from the system so far, process-wide
// (runtime_metrics::frame_memory).
frame_memory_metrics frame_memory() noexcept;

}  // namespace lanes::detail
