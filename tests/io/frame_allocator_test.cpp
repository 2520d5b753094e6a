// The per-thread frame cache: blocks are reused within a size class, never
// across classes, and blocks freed on another thread are safe to reuse.
#include <lanes/io/detail/frame_allocator.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
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

}  // namespace
}  // namespace lanes::detail
