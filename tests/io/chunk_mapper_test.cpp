// The frame allocator's chunks (src/io/chunk_mapper.hpp): populated,
// aligned, zeroed memory, and the choice between huge and small pages that
// follows what each cost last.
#include "io/chunk_mapper.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <thread>
#include <vector>

namespace lanes::detail {
namespace {

constexpr std::uint64_t ms = 1'000'000;

TEST(ChunkMapper, TriesHugePagesFirst) { EXPECT_TRUE(chunk_mapper::prefer_huge(0, 0, 0)); }

TEST(ChunkMapper, KeepsHugePagesWhileTheyAreCheap) {
  EXPECT_TRUE(chunk_mapper::prefer_huge(ms / 5, 0, 0));       // cheaper than the small-page guess
  EXPECT_TRUE(chunk_mapper::prefer_huge(ms / 5, ms, 0));      // cheaper than small pages measured
  EXPECT_TRUE(chunk_mapper::prefer_huge(3 * ms, 4 * ms, 0));  // slow, but small pages are slower here
}

TEST(ChunkMapper, SwitchesToSmallPagesWhenAHugePageCostMore) {
  // A huge page the host did not back: 6 ms, against ~1 ms guessed or measured.
  EXPECT_FALSE(chunk_mapper::prefer_huge(6 * ms, 0, 0));
  EXPECT_FALSE(chunk_mapper::prefer_huge(6 * ms, ms, 5 * ms));
  EXPECT_FALSE(chunk_mapper::prefer_huge(chunk_mapper::small_pages_guess_ns + 1, 0, 0));
}

TEST(ChunkMapper, TriesHugePagesAgainAfterAWhile) {
  EXPECT_FALSE(chunk_mapper::prefer_huge(6 * ms, ms, chunk_mapper::retry_huge_after_ns - 1));
  EXPECT_TRUE(chunk_mapper::prefer_huge(6 * ms, ms, chunk_mapper::retry_huge_after_ns));
}

TEST(ChunkMapper, ChunksAreWritableAlignedZeroedAndDistinct) {
  chunk_mapper mapper;
  // Small chunks, then enough 2 MiB ones that both kinds of pages are likely
  // taken on a host where huge pages are slow (the first one may be).
  char* previous = nullptr;
  for (std::size_t bytes : {std::size_t{64} << 10, std::size_t{1} << 20, huge_page_bytes, huge_page_bytes,
                            huge_page_bytes, 2 * huge_page_bytes}) {
    char* chunk = mapper.map(bytes);
    ASSERT_NE(chunk, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(chunk) % 4096, 0U);
    EXPECT_NE(chunk, previous);
    // Fresh memory reads as zero, after the mapper wrote each page once.
    EXPECT_EQ(std::count(chunk, chunk + bytes, 0), static_cast<std::ptrdiff_t>(bytes));
    std::memset(chunk, 0x5a, bytes);
    EXPECT_EQ(chunk[0], 0x5a);
    EXPECT_EQ(chunk[bytes - 1], 0x5a);
    previous = chunk;
  }
}

TEST(ChunkMapper, CountsWhatItMapped) {
  chunk_mapper mapper;
  EXPECT_EQ(mapper.totals().mapped_bytes, 0U);
  const std::size_t small = std::size_t{64} << 10;
  for (std::size_t bytes : {small, huge_page_bytes, huge_page_bytes}) (void)mapper.map(bytes);
  const auto totals = mapper.totals();
  EXPECT_EQ(totals.mapped_bytes, small + 2 * huge_page_bytes);
  EXPECT_EQ(totals.chunks, 3U);
  // Only whole 2 MiB chunks are ever asked for as huge pages.
  EXPECT_EQ(totals.huge_page_bytes % huge_page_bytes, 0U);
  EXPECT_LE(totals.huge_page_bytes, 2 * huge_page_bytes);
  EXPECT_GT(totals.populate_ns, 0U);
}

// Threads carving at once share one mapper (the frame allocator's): its
// costs are relaxed hints, and every chunk is still its own memory.
TEST(ChunkMapper, ThreadsMappingAtOnceGetDistinctChunks) {
  chunk_mapper mapper;
  constexpr int threads = 4;
  constexpr int chunks_each = 6;
  std::vector<std::vector<char*>> got(threads);
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&mapper, &mine = got[static_cast<std::size_t>(t)], t] {
      for (int i = 0; i < chunks_each; ++i) {
        const std::size_t bytes = i % 2 == 0 ? huge_page_bytes : std::size_t{64} << 10;
        char* chunk = mapper.map(bytes);
        std::memset(chunk, t + 1, bytes);
        EXPECT_EQ(chunk[bytes - 1], t + 1);
        mine.push_back(chunk);
      }
    });
  }
  for (auto& w : workers) w.join();
  std::set<char*> all;
  for (const auto& mine : got) {
    for (char* chunk : mine) EXPECT_TRUE(all.insert(chunk).second);
  }
  EXPECT_EQ(all.size(), static_cast<std::size_t>(threads * chunks_each));
}

}  // namespace
}  // namespace lanes::detail
