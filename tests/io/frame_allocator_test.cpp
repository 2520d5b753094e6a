// The per-thread frame cache: blocks are reused within a size class, never
// across classes, and blocks freed on another thread are safe to reuse.
#include <lanes/io/detail/frame_allocator.hpp>

#include <gtest/gtest.h>

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
    for (auto* b : blocks) free_frame(b, 96);  // more than the cache keeps: the rest go back to the system
  }).join();
  for (int i = 0; i < n; ++i) {
    void* b = allocate_frame(96);
    std::memset(b, 2, 96);
    free_frame(b, 96);
  }
}

}  // namespace
}  // namespace lanes::detail
