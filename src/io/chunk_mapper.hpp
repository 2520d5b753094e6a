// chunk_mapper: fresh memory for the frame allocator (frame_allocator.cpp),
// mapped already populated and written once per page, so that spawning
// many tasks does not take a page fault per 4 KiB of frames (in a virtual
// machine's guest, or in the host that backs it: chunk_mapper.cpp). A 2 MiB chunk is
// populated either as one transparent huge page or as 512 small pages,
// whichever the last chunks showed to be cheaper here (see
// chunk_mapper.cpp for why that varies).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

#include <lanes/io/metrics.hpp>

namespace lanes::detail {

inline constexpr std::size_t huge_page_bytes = std::size_t{2} << 20;  // x86-64's PMD size

class chunk_mapper {
 public:
  // `bytes` of fresh, populated, page-aligned, zeroed memory, every page of
  // it written once; never unmapped.
  // Throws std::bad_alloc when the system has none.
  char* map(std::size_t bytes);

  // Whether the next huge-page-sized chunk should try a huge page, given
  // what the last chunk of each kind cost per 2 MiB (0: never measured)
  // and how long ago a huge page was last tried. Pure, for the tests.
  static bool prefer_huge(std::uint64_t huge_ns, std::uint64_t small_ns, std::uint64_t since_huge_ns) noexcept;

  // What this mapper has mapped so far, and what that cost.
  frame_memory_metrics totals() const noexcept;

  // What 4 KiB pages are assumed to cost per 2 MiB until measured: a huge
  // page slower than that makes the next chunk use them.
  static constexpr std::uint64_t small_pages_guess_ns = 1'000'000;
  // Once huge pages lost, they are tried again after this long (the host's
  // state changes within seconds), so a slow try costs at most a few ms a
  // second, and a burst of chunks pays for one.
  static constexpr std::uint64_t retry_huge_after_ns = 1'000'000'000;

 private:
  // The cost of the last chunk populated each way (0: not yet), and when a
  // huge page was last tried. Read and written relaxed by any thread that
  // maps a chunk: hints, and a stale one picks the costlier kind for a
  // chunk or two.
  std::atomic<std::uint64_t> huge_ns_{0};
  std::atomic<std::uint64_t> small_ns_{0};
  std::atomic<std::uint64_t> huge_tried_at_ns_{0};
  // Totals for the metrics: counters, relaxed (each one only grows).
  std::atomic<std::uint64_t> mapped_bytes_{0};
  std::atomic<std::uint64_t> huge_bytes_{0};
  std::atomic<std::uint64_t> chunks_{0};
  std::atomic<std::uint64_t> populate_ns_{0};
};

}  // namespace lanes::detail
