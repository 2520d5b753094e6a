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
// Then every 4 KiB page of the chunk is written once, and that is part of
// what a chunk costs. In some virtual machines a guest page that is
// populated is not yet backed by the host: the guest kernel maps 4 KiB
// pages without writing them (with pvm_no_zero_page=1, for one, the
// zeroing is left to the host), and the host backs each one on its first
// write. Unwritten, that cost would land on the spawns that first write a
// frame there, while the chunk was timed as cheap. A huge page is zeroed
// by the guest as it is populated, so its cost shows at once: small when
// the host still backs it, larger than small pages when it does not
// (Linux's free page reporting hands free blocks back to the host seconds
// after they are freed). Which kind is cheaper therefore depends on what
// ran before (measured: docs/benchmarks.md, S3). Each chunk is timed, and
// the next one takes the kind that cost less last time; huge pages that
// lost are tried again a second later.
#include "io/chunk_mapper.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <new>

#include "cycle_clock.hpp"  // monotonic_ns

namespace lanes::detail {

namespace {

constexpr std::size_t small_page_bytes = 4096;

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

// Writes a zero to the first byte of every 4 KiB page (which reads as zero
// already), so that the host backs the chunk now: see the header comment.
// volatile, so that the stores are made.
void touch_pages(char* chunk, std::size_t bytes) noexcept {
  for (std::size_t offset = 0; offset < bytes; offset += small_page_bytes)
    static_cast<volatile char*>(chunk)[offset] = 0;
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
  touch_pages(chunk, bytes);
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
