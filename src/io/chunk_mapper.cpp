// chunk_mapper (chunk_mapper.hpp): populated chunks for the frame allocator,
// in huge pages when they are cheap here, else in small ones.
//
// Chunks smaller than a huge page are mapped with MAP_POPULATE. A 2 MiB
// chunk may instead be mapped with a huge page of slack, trimmed to a
// 2 MiB boundary, advised MADV_HUGEPAGE and populated with
// MADV_POPULATE_WRITE (Linux 5.14; on an older kernel its pages fault in
// on first use, as plain memory does; where THP is off the advice is
// refused and the chunk gets small pages).
//
// Why measure: on the VMs lanes is measured on, a huge page costs ~0.2 ms
// when the host still backs the guest memory it comes from, and 3-8 ms
// when it does not: Linux's free page reporting hands free 2 MiB blocks
// back to the host a couple of seconds after they are freed, and every
// 4 KiB of such a block then faults on the host. Small pages mostly come
// from lists it does not report: 0.4-1.3 ms per 2 MiB on the same hosts.
// Populating 32 MiB (2026-12-06, /tmp program): huge pages 3.1-3.4 ms
// right after another process freed memory, 95-134 ms after 4 s idle;
// small pages 12-20 ms either way. So S3's 100,000 spawns took 13 ms or
// 145-226 ms depending on what ran before (docs/benchmarks.md). Each chunk
// is timed, and the next one takes the kind that cost less last time; huge
// pages that lost are tried again a second later.
#include "io/chunk_mapper.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <new>

#include "cycle_clock.hpp"  // monotonic_ns

namespace lanes::detail {

namespace {

char* map_small_pages(std::size_t bytes) {
  void* chunk = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  if (chunk == MAP_FAILED) throw std::bad_alloc();
  return static_cast<char*>(chunk);
}

// Sets `advised` when the kernel took the huge-page advice.
char* map_huge_pages(std::size_t bytes, bool& advised) {
  const std::size_t reserved = bytes + huge_page_bytes;
  void* raw = ::mmap(nullptr, reserved, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(raw) & (huge_page_bytes - 1);
  const std::size_t head = misaligned == 0 ? 0 : huge_page_bytes - misaligned;
  char* chunk = static_cast<char*>(raw) + head;
  if (head != 0) ::munmap(raw, head);
  ::munmap(chunk + bytes, reserved - head - bytes);
  advised = ::madvise(chunk, bytes, MADV_HUGEPAGE) == 0;  // refused (THP off): 4 KiB pages
  (void)::madvise(chunk, bytes, MADV_POPULATE_WRITE);
  return chunk;
}

}  // namespace

bool chunk_mapper::prefer_huge(std::uint64_t huge_ns, std::uint64_t small_ns, std::uint64_t since_huge_ns) noexcept {
  if (huge_ns == 0) return true;  // never tried
  const std::uint64_t small = small_ns != 0 ? small_ns : small_pages_guess_ns;
  return huge_ns <= small || since_huge_ns >= retry_huge_after_ns;
}

char* chunk_mapper::map(std::size_t bytes) {
  const std::uint64_t start = monotonic_ns();
  const bool whole = bytes >= huge_page_bytes;  // a smaller chunk is not worth a huge page
  const bool huge =
      whole && prefer_huge(huge_ns_.load(std::memory_order_relaxed), small_ns_.load(std::memory_order_relaxed),
                           start - huge_tried_at_ns_.load(std::memory_order_relaxed));
  if (huge) huge_tried_at_ns_.store(start, std::memory_order_relaxed);
  bool advised = false;
  char* chunk = huge ? map_huge_pages(bytes, advised) : map_small_pages(bytes);
  const std::uint64_t took = monotonic_ns() - start;
  if (whole) {
    // Per 2 MiB, and never 0 (which means "not measured").
    const std::uint64_t per_huge_page = took / (bytes / huge_page_bytes) + 1;
    (huge ? huge_ns_ : small_ns_).store(per_huge_page, std::memory_order_relaxed);
  }
  mapped_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  if (advised) huge_bytes_.fetch_add(bytes, std::memory_order_relaxed);
  chunks_.fetch_add(1, std::memory_order_relaxed);
  populate_ns_.fetch_add(took, std::memory_order_relaxed);
  return chunk;
}

frame_memory_metrics chunk_mapper::totals() const noexcept {
  frame_memory_metrics m;
  m.mapped_bytes = mapped_bytes_.load(std::memory_order_relaxed);
  m.huge_page_bytes = huge_bytes_.load(std::memory_order_relaxed);
  m.chunks = chunks_.load(std::memory_order_relaxed);
  m.populate_ns = populate_ns_.load(std::memory_order_relaxed);
  return m;
}

}  // namespace lanes::detail
