// The per-thread frame cache: blocks are reused within a size class, never
// across classes, and blocks freed on another thread are safe to reuse.
#include <lanes/io/detail/frame_allocator.hpp>
#include <lanes/io/metrics.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <random>
#include <set>
#include <thread>
#include <vector>

namespace lanes::detail {
namespace {

TEST(FrameAllocator, BlocksAreWritableAndDistinct) {
  std::vector<void*> blocks;
  std::set<void*> seen;
  for (std::size_t size : {1, 40, 64, 65, 200, 1024, 1025, 5000}) {
    void* b = allocate_frame(size);
    std::memset(b, 0xab, size);
    EXPECT_TRUE(seen.insert(b).second);
    blocks.push_back(b);
  }
  std::size_t i = 0;
  for (std::size_t size : {1, 40, 64, 65, 200, 1024, 1025, 5000}) free_frame(blocks[i++], size);
}

// Every block handed out came from memory the allocator mapped, which it
// keeps: what it reports mapped is at least what is alive at once.
TEST(FrameAllocator, ReportsTheMemoryItMapped) {
  constexpr std::size_t count = 20'000;
  constexpr std::size_t size = 320;
  std::vector<void*> blocks;
  blocks.reserve(count);
  for (std::size_t i = 0; i < count; ++i) blocks.push_back(allocate_frame(size));
  const auto memory = frame_memory();
  for (void* b : blocks) free_frame(b, size);
  if (frame_cache_enabled()) {
    EXPECT_GE(memory.mapped_bytes, count * size);
    EXPECT_GT(memory.chunks, 0U);
    EXPECT_LE(memory.huge_page_bytes, memory.mapped_bytes);
  } else {
    EXPECT_EQ(memory.mapped_bytes, 0U);  // the system allocator's blocks
  }
}

TEST(FrameAllocator, ReusesAFreedBlockOfTheSameClass) {
  void* a = allocate_frame(100);
  free_frame(a, 100);
  void* b = allocate_frame(120);  // same 128-byte class
  if (frame_cache_enabled()) {
    EXPECT_EQ(a, b);
  }
  void* c = allocate_frame(300);  // another class: not that block
  EXPECT_NE(b, c);
  free_frame(b, 120);
  free_frame(c, 300);
}

TEST(FrameAllocator, BlocksFreedOnAnotherThread) {
  constexpr int n = 2000;
  std::vector<void*> blocks(n);
  for (auto& b : blocks) {
    b = allocate_frame(96);
    std::memset(b, 1, 96);
  }
  std::thread([&] {
    for (auto* b : blocks) free_frame(b, 96);  // more than the cache keeps: the rest go to the shared pool
  }).join();
  for (int i = 0; i < n; ++i) {
    void* b = allocate_frame(96);
    std::memset(b, 2, 96);
    free_frame(b, 96);
  }
}

// Blocks a thread frees and then leaves behind when it exits are what the
// next thread that needs that class gets, before any new memory.
TEST(FrameAllocator, AnExitingThreadsBlocksAreReusedByTheNext) {
  constexpr int n = 1000;
  constexpr std::size_t size = 700;  // a class the runtime's own frames rarely use
  std::vector<void*> blocks(n);
  std::thread([&] {
    for (auto& b : blocks) {
      b = allocate_frame(size);
      std::memset(b, 3, size);
    }
  }).join();
  std::thread([&] {
    for (auto* b : blocks) free_frame(b, size);
  }).join();
  // Twice as many: the pool may hold older blocks of this class as well.
  std::vector<void*> again(2 * n);
  std::thread([&] {
    for (auto& b : again) {
      b = allocate_frame(size);
      std::memset(b, 4, size);
    }
    for (void* b : again) free_frame(b, size);
  }).join();
  const std::set<void*> got(again.begin(), again.end());
  EXPECT_EQ(got.size(), again.size());  // all distinct
  if (frame_cache_enabled()) {
    for (void* b : blocks) EXPECT_EQ(got.count(b), 1U);
  }
}

// 8 MiB of 1 KiB blocks on a fresh thread: past the small chunks into the
// 2 MiB ones, which are trimmed to a huge-page boundary after mapping. Every
// block is writable to its end, 64-byte aligned, and overlaps no other.
TEST(FrameAllocator, BlocksFromHugePageChunksAreWholeAndApart) {
  constexpr std::size_t size = 1024;
  constexpr int n = 8192;
  std::vector<char*> blocks(n);
  std::thread([&] {
    for (auto& b : blocks) {
      b = static_cast<char*>(allocate_frame(size));
      std::memset(b, 5, size);
    }
  }).join();
  std::vector<char*> sorted = blocks;
  std::sort(sorted.begin(), sorted.end());
  for (std::size_t i = 0; i < sorted.size(); ++i) {
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(sorted[i]) % 64, 0U);
    if (i > 0) {
      ASSERT_GE(sorted[i] - sorted[i - 1], static_cast<std::ptrdiff_t>(size));
    }
  }
  for (char* b : blocks) EXPECT_EQ(b[size - 1], 5);
  for (char* b : blocks) free_frame(b, size);
}

// Four threads allocate, hand blocks to each other, and free them, in
// batches of random size that overflow their caches into the shared pool's
// chains and take chains back: no block is handed out while it is live,
// and what one thread wrote in a block is intact when another frees it.
TEST(FrameAllocatorStress, BlocksCrossThreadsAndThePoolWithoutBeingHandedOutTwice) {
  constexpr int threads = 4;
  constexpr int rounds = 60;
  constexpr std::size_t sizes[] = {96, 200, 640};
  std::mutex mutex;  // guards live and exchange
  std::set<void*> live;
  struct handed {
    void* block;
    std::size_t size;
    std::uint64_t tag;
  };
  std::vector<handed> exchange;
  std::atomic<int> doubles{0}, torn{0};
  const auto worker = [&](unsigned seed) {
    std::mt19937 rng(seed);
    for (int r = 0; r < rounds; ++r) {
      const std::size_t size = sizes[rng() % 3];
      const std::size_t n = 1 + rng() % 1500;
      std::vector<handed> mine;
      for (std::size_t i = 0; i < n; ++i) {
        void* b = allocate_frame(size);
        const std::uint64_t tag = (std::uint64_t{seed} << 32) | (static_cast<std::uint64_t>(r) << 16) | (i & 0xffff);
        std::memset(b, static_cast<int>(tag & 0xff), size);
        std::memcpy(b, &tag, sizeof tag);
        mine.push_back({b, size, tag});
      }
      std::vector<handed> theirs;
      {
        std::lock_guard lock(mutex);
        for (const auto& h : mine)
          if (!live.insert(h.block).second) doubles.fetch_add(1);
        // Keep a random half to free here; hand the rest over, and take what others handed over.
        theirs.swap(exchange);
        for (std::size_t i = 0; i < mine.size(); ++i) {
          if (rng() % 2 == 0)
            exchange.push_back(mine[i]);
          else
            theirs.push_back(mine[i]);
        }
      }
      for (const auto& h : theirs) {
        std::uint64_t tag;
        std::memcpy(&tag, h.block, sizeof tag);
        const auto* bytes = static_cast<const unsigned char*>(h.block);
        if (tag != h.tag || bytes[h.size - 1] != static_cast<unsigned char>(h.tag & 0xff)) torn.fetch_add(1);
        {
          std::lock_guard lock(mutex);
          live.erase(h.block);
        }
        free_frame(h.block, h.size);
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker, t + 1);
  for (auto& t : pool) t.join();
  for (const auto& h : exchange) {
    live.erase(h.block);
    free_frame(h.block, h.size);
  }
  EXPECT_EQ(doubles.load(), 0) << "a block was handed out while live";
  EXPECT_EQ(torn.load(), 0) << "a block changed while its owner held it";
  EXPECT_TRUE(live.empty());
}

}  // namespace
}  // namespace lanes::detail
