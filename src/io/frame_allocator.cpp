// Task frames and spawned-task headers (frame_allocator.hpp): per-thread
// free lists by size class, refilled from a shared pool and, when that is
// empty too, carved from chunks mapped already populated.
//
// Why chunks: a first-touch page fault costs microseconds in a virtual
// machine, and a page per few frames adds up to a large share of S3's wall
// time. Mapping a chunk with MAP_POPULATE fills its pages in one system
// call, at a fraction of the cost (measured: docs/benchmarks.md, S3). Chunks
// grow from 64 KiB to 2 MiB per thread; a 2 MiB chunk is populated as a
// transparent huge page when those are cheap here, and in 4 KiB pages when
// they are not (chunk_mapper.cpp says when, and why it varies).
//
// Ownership: a block belongs to whichever list holds it. A thread's list
// keeps at most `max_cached` blocks per class; past that, half of it moves
// to the shared pool (under its mutex), and a thread whose list is empty
// takes a batch from there before it carves new blocks. A thread's lists go
// to the shared pool when it exits. Chunks are never unmapped: the memory
// held is the peak of frames alive at once, which is what a runtime that
// saw that peak will likely see again.
//
// The pool keeps what it is given as whole chains (a stack of them per
// class), so that taking a batch is one pop: moving 256 blocks one by one
// off a single list read each block's link, 256 dependent cache misses
// under the mutex, since blocks wait in the pool long enough to go cold
// (many tasks spawned, then all awaited, round after round). The walk
// that splits a batch off a thread's list happens on the freeing side,
// before the lock, over blocks that were just freed there.
#include <lanes/io/detail/frame_allocator.hpp>

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <new>

#include "io/chunk_mapper.hpp"
#include "sanitized_build.hpp"

namespace lanes::detail {

namespace {

constexpr std::size_t step = 64;         // size classes of a cache line; blocks are 16-byte aligned
constexpr std::size_t classes = 16;      // up to 1 KiB
constexpr std::size_t max_cached = 512;  // per class and thread: bounds what an idle thread holds
constexpr std::size_t batch = max_cached / 2;
// A thread's first chunk is small (any thread that creates a task gets
// one: a blocking-pool thread that spawns a task must not pin 2 MiB); each
// next one doubles, up to 2 MiB.
constexpr std::size_t first_chunk_bytes = std::size_t{64} << 10;
constexpr std::size_t max_chunk_bytes = std::size_t{2} << 20;

struct free_block {
  free_block* next;
};

// A chain in the shared pool: its first block also holds the link to the
// next chain and the chain's length (a block has 64 bytes at least).
struct free_chain : free_block {
  free_chain* next_chain;
  std::size_t count;
};
static_assert(sizeof(free_chain) <= step, "a chain's head fits the smallest block");

// A singly linked list of blocks of one class, with its length.
struct block_list {
  free_block* head = nullptr;
  std::size_t count = 0;

  void push(free_block* b) noexcept {
    b->next = head;
    head = b;
    ++count;
  }
  free_block* pop() noexcept {
    free_block* b = head;
    if (b != nullptr) {
      head = b->next;
      --count;
    }
    return b;
  }
  // Splits the first n (1 <= n <= count) blocks off as a chain.
  free_chain* split_front(std::size_t n) noexcept {
    free_block* last = head;
    for (std::size_t i = 1; i < n; ++i) last = last->next;
    auto* chain = static_cast<free_chain*>(head);
    head = last->next;
    last->next = nullptr;
    count -= n;
    chain->count = n;
    return chain;
  }
  // Makes the whole list (not empty) a chain.
  free_chain* take_all() noexcept { return split_front(count); }
  // Adopts a chain as the list (which must be empty).
  void adopt(free_chain* chain) noexcept {
    head = chain;
    count = chain->count;
  }
};

// Chains that threads' lists overflowed or left behind. Never destroyed:
// threads may return blocks to it during static destruction.
//
// `stocked` has a bit per class whose list is not empty, written under the
// mutex. pop() looks at it first and skips the mutex for an empty class: a
// thread that spawns faster than its tasks finish carves every block, and
// each carve would lock and unlock it. The look is
// relaxed: a bit read stale only makes one carve of new memory where a
// chain had just come back; a set bit is checked again under the mutex.
struct shared_pool {
  std::mutex mutex;
  std::array<free_chain*, classes> chains{};
  std::atomic<std::uint32_t> stocked{0};

  void push(std::size_t c, free_chain* chain) noexcept {
    std::lock_guard lock(mutex);
    chain->next_chain = chains[c];
    chains[c] = chain;
    stocked.store(stocked.load(std::memory_order_relaxed) | bit(c), std::memory_order_relaxed);
  }
  free_chain* pop(std::size_t c) noexcept {
    if ((stocked.load(std::memory_order_relaxed) & bit(c)) == 0) return nullptr;
    std::lock_guard lock(mutex);
    free_chain* chain = chains[c];
    if (chain == nullptr) return nullptr;
    chains[c] = chain->next_chain;
    if (chains[c] == nullptr)
      stocked.store(stocked.load(std::memory_order_relaxed) & ~bit(c), std::memory_order_relaxed);
    return chain;
  }

 private:
  static std::uint32_t bit(std::size_t c) noexcept { return std::uint32_t{1} << c; }
};
static_assert(classes <= 32, "a bit per class in shared_pool::stocked");
shared_pool& shared() {
  static auto* pool = new shared_pool;
  return *pool;
}

static_assert(max_chunk_bytes % huge_page_bytes == 0, "the largest chunks are whole huge pages");

chunk_mapper& mapper() {
  static auto* m = new chunk_mapper;  // never destroyed: threads carve during static destruction too
  return *m;
}

// The unused rest of this thread's current chunk.
class chunk_carver {
 public:
  void* carve(std::size_t bytes) {
    if (static_cast<std::size_t>(end_ - next_) < bytes) {
      next_ = mapper().map(chunk_bytes_);  // page-aligned: every block is 64-byte aligned
      end_ = next_ + chunk_bytes_;
      if (chunk_bytes_ < max_chunk_bytes) chunk_bytes_ *= 2;
    }
    void* block = next_;
    next_ += bytes;
    return block;
  }

 private:
  char* next_ = nullptr;
  char* end_ = nullptr;
  std::size_t chunk_bytes_ = first_chunk_bytes;
};

class thread_cache;

// The calling thread's cache once a slow path has made it (null before,
// and again once it is destroyed). A plain pointer: reading it needs no
// lazy-initialisation check, so the fast paths below make no call and save
// no registers (measured with callgrind: docs/benchmarks.md, S4).
thread_local constinit thread_cache* current_cache = nullptr;
thread_local constinit bool cache_gone = false;  // this thread's cache was destroyed (thread exit)

class thread_cache {
 public:
  thread_cache() = default;
  thread_cache(const thread_cache&) = delete;
  thread_cache& operator=(const thread_cache&) = delete;
  ~thread_cache() {
    current_cache = nullptr;
    cache_gone = true;
    for (std::size_t c = 0; c < classes; ++c)
      if (lists_[c].count != 0) pool_.push(c, lists_[c].take_all());
  }

  // The fast paths: a list pop and push, or null / false for the slow path.
  free_block* try_pop(std::size_t c) noexcept { return lists_[c].pop(); }
  bool try_push(std::size_t c, void* block) noexcept {
    if (lists_[c].count >= max_cached) return false;
    lists_[c].push(static_cast<free_block*>(block));
    return true;
  }

  void* allocate(std::size_t c) {
    if (free_block* b = try_pop(c)) return b;
    return refill(c);
  }
  // The list of class c is empty: a chain from the shared pool, else a new
  // block. Out of line, so that allocate_frame's fast path stays a leaf and
  // reaches this by a tail call, without the first-use checks of
  // allocate_slow (a thread that spawns faster than its tasks finish
  // comes here for every frame and header, as in S3).
  [[gnu::noinline]] void* refill(std::size_t c) {
    if (free_chain* chain = pool_.pop(c)) {
      lists_[c].adopt(chain);
      return lists_[c].pop();
    }
    return carver_.carve((c + 1) * step);
  }
  void release(std::size_t c, void* block) noexcept {
    if (try_push(c, block)) return;
    pool_.push(c, lists_[c].split_front(batch));
    lists_[c].push(static_cast<free_block*>(block));
  }

 private:
  std::array<block_list, classes> lists_{};
  chunk_carver carver_;
  shared_pool& pool_ = shared();  // looked up once: shared() checks a static guard on every call
};

// Made on a thread's first slow path; its destructor (thread exit) hands
// its blocks to the shared pool.
thread_local thread_cache cache;

std::size_t class_of(std::size_t size) noexcept { return (size + step - 1) / step - 1; }

[[gnu::noinline]] void* allocate_slow(std::size_t size) {
  const std::size_t c = class_of(size);
  if (!sanitized_build && c < classes && !cache_gone) {
    current_cache = &cache;
    return cache.allocate(c);
  }
  return ::operator new((c + 1) * step);
}

[[gnu::noinline]] void free_slow(void* block, std::size_t size) noexcept {
  const std::size_t c = class_of(size);
  if (!sanitized_build && c < classes) {
    if (!cache_gone) {
      current_cache = &cache;
      cache.release(c, block);
      return;
    }
    // A frame freed while this thread exits, after its cache went: a
    // chain of one.
    block_list single;
    single.push(static_cast<free_block*>(block));
    shared().push(c, single.take_all());
    return;
  }
  ::operator delete(block);
}

}  // namespace

bool frame_cache_enabled() noexcept { return !sanitized_build; }

frame_memory_metrics frame_memory() noexcept { return mapper().totals(); }

void* allocate_frame(std::size_t size) {
  if constexpr (!sanitized_build) {
    const std::size_t c = class_of(size);
    if (thread_cache* tc = current_cache; tc != nullptr && c < classes) {
      if (void* block = tc->try_pop(c)) return block;
      return tc->refill(c);
    }
  }
  return allocate_slow(size);
}

void free_frame(void* block, std::size_t size) noexcept {
  if constexpr (!sanitized_build) {
    const std::size_t c = class_of(size);
    if (thread_cache* tc = current_cache; tc != nullptr && c < classes && tc->try_push(c, block)) return;
  }
  free_slow(block, size);
}

}  // namespace lanes::detail
