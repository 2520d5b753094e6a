// work_stealing_deque: each compute worker's deque of jobs. The owner
// pushes and pops at the bottom (LIFO: the job it just forked is the one
// whose data is still in its cache); thieves take from the top (FIFO: the
// oldest job, the biggest piece of a recursive split).
//
// The algorithm is Chase and Lev's (SPAA 2005) with the C11 orderings that
// Lê, Pop, Cohen and Zappa Nardelli proved correct (PPoPP 2013):
//
// - push publishes the slot with a release store of `bottom_`; a thief's
//   acquire load of `bottom_` pairs with it, so the thief sees the job's
//   contents.
// - pop and steal race for the last job. pop announces its claim by
//   storing `bottom_ - 1` and then reads `top_`; steal reads `top_` and then
//   `bottom_`. Each side puts a seq_cst fence between the two (store-load
//   ordering, the one reordering x86 allows), so at least one of them sees
//   the other; when both see a single job left, the seq_cst CAS on `top_`
//   picks exactly one winner.
// - Under ThreadSanitizer (ordering.hpp) the same is written as seq_cst
//   operations - an exchange for pop's claim, seq_cst loads in steal, and
//   a seq_cst publish when the pool's idle protocol needs one - which fall
//   in one total order and give the same two guarantees.
// - The ring grows (doubling) when full. Only the owner grows it; the old
//   rings stay allocated until the deque is destroyed because a thief may
//   still be reading a slot through one (they are few: capacity doubles).
//
// - Each slot carries a tag beside the pointer (the job's isolation region),
//   so that a thief may decline a job by its tag before it claims it,
//   without dereferencing a pointer that the owner may have popped and
//   destroyed meanwhile.
//
// Each index lives on its own cache line: thieves hammer `top_`, the owner
// writes `bottom_` on every push and pop.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include <lanes/detail/ordering.hpp>

namespace lanes::compute::detail {

// `Atomics`: std::atomic in the library; model atomics in tests/compute's
// interleaving check, which runs this same code.
template <class T, class Atomics = lanes::detail::std_atomics>
class work_stealing_deque {
  static_assert(std::is_pointer_v<T>, "the deque holds pointers: slots are read racily, as atomics");
  template <class U>
  using atomic = typename Atomics::template atomic<U>;

 public:
  explicit work_stealing_deque(std::int64_t initial_capacity = 256) {
    std::int64_t capacity = 1;
    while (capacity < initial_capacity) capacity <<= 1;
    rings_.push_back(std::make_unique<ring>(capacity));
    ring_.store(rings_.back().get(), std::memory_order_relaxed);
  }
  work_stealing_deque(const work_stealing_deque&) = delete;
  work_stealing_deque& operator=(const work_stealing_deque&) = delete;

  static constexpr std::uintptr_t any_tag = ~std::uintptr_t{0};

  // Owner only. `announce`: the caller orders this publication before a
  // later load (the event count's, lanes/detail/event_count.hpp); in the seq_cst
  // form it must be seq_cst.
  void push(T item, std::uintptr_t tag = 0, [[maybe_unused]] bool announce = false) {
    const std::int64_t b = bottom_.load(std::memory_order_relaxed);
    const std::int64_t t = top_.load(std::memory_order_acquire);
    ring* r = ring_.load(std::memory_order_relaxed);
    if (b - t > r->mask) r = grow(r, t, b);
    r->put(b, item, tag);
#if LANES_SEQ_CST_FORM
    bottom_.store(b + 1, announce ? std::memory_order_seq_cst : std::memory_order_release);
#else
    bottom_.store(b + 1, std::memory_order_release);
#endif
  }

  // Owner only: the newest job, or nullptr if the deque is empty (or a
  // thief took the last one).
  T pop() {
    const std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    ring* r = ring_.load(std::memory_order_relaxed);
#if LANES_SEQ_CST_FORM
    bottom_.exchange(b, std::memory_order_seq_cst);  // the claim, before the read of top_
    std::int64_t t = top_.load(std::memory_order_seq_cst);
#else
    bottom_.store(b, std::memory_order_relaxed);
    Atomics::seq_cst_fence();  // the claim, before the read of top_
    std::int64_t t = top_.load(std::memory_order_relaxed);
#endif
    if (t > b) {  // empty
      bottom_.store(b + 1, std::memory_order_relaxed);
      return nullptr;
    }
    T item = r->get(b);
    if (t == b) {  // the last job: race the thieves for it
      if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed)) {
        item = nullptr;
      }
      bottom_.store(b + 1, std::memory_order_relaxed);
    }
    return item;
  }

  // Owner only, and only where no thief can exist (the one worker of a
  // pool: steal_for has no one to steal for). With no race for the last
  // job there is no claim to order before the read of top_: no fence, no CAS.
  T pop_unshared() noexcept {
    const std::int64_t b = bottom_.load(std::memory_order_relaxed) - 1;
    if (top_.load(std::memory_order_relaxed) > b) return nullptr;
    bottom_.store(b, std::memory_order_relaxed);
    return ring_.load(std::memory_order_relaxed)->get(b);
  }

  // Any thread: the oldest job, or nullptr if empty, if its tag is not
  // `only` (unless `only` is any_tag), or if another thread won the race
  // for it (the caller may try again).
  T steal(std::uintptr_t only = any_tag) {
#if LANES_SEQ_CST_FORM
    std::int64_t t = top_.load(std::memory_order_seq_cst);
    const std::int64_t b = bottom_.load(std::memory_order_seq_cst);
#else
    std::int64_t t = top_.load(std::memory_order_acquire);
    Atomics::seq_cst_fence();
    const std::int64_t b = bottom_.load(std::memory_order_acquire);
#endif
    if (t >= b) return nullptr;
    ring* r = ring_.load(std::memory_order_acquire);
    if (only != any_tag && r->tag(t) != only) return nullptr;
    T item = r->get(t);
    if (!top_.compare_exchange_strong(t, t + 1, std::memory_order_seq_cst, std::memory_order_relaxed)) return nullptr;
    return item;
  }

  // A snapshot, exact only when no one else touches the deque. seq_cst:
  // an idle worker's last look before it sleeps must see a job announced
  // before its announcement (lanes/detail/event_count.hpp); plain loads on x86.
  std::int64_t size() const noexcept {
    const std::int64_t b = bottom_.load(std::memory_order_seq_cst);
    const std::int64_t t = top_.load(std::memory_order_seq_cst);
    return b > t ? b - t : 0;
  }
  bool empty() const noexcept { return size() == 0; }
  // Owner only: the index the next push will use (isolation floors compare with it).
  std::int64_t bottom_index() const noexcept { return bottom_.load(std::memory_order_relaxed); }

 private:
  struct ring {
    explicit ring(std::int64_t capacity)
        : mask(capacity - 1),
          slots(new atomic<T>[static_cast<std::size_t>(capacity)]),
          tags(new atomic<std::uintptr_t>[static_cast<std::size_t>(capacity)]) {}
    void put(std::int64_t i, T item, std::uintptr_t t) noexcept {
      slots[index(i)].store(item, std::memory_order_relaxed);
      tags[index(i)].store(t, std::memory_order_relaxed);
    }
    T get(std::int64_t i) const noexcept { return slots[index(i)].load(std::memory_order_relaxed); }
    std::uintptr_t tag(std::int64_t i) const noexcept { return tags[index(i)].load(std::memory_order_relaxed); }
    std::size_t index(std::int64_t i) const noexcept { return static_cast<std::size_t>(i & mask); }
    std::int64_t mask;
    std::unique_ptr<atomic<T>[]> slots;
    std::unique_ptr<atomic<std::uintptr_t>[]> tags;
  };

  ring* grow(ring* old, std::int64_t t, std::int64_t b) {
    auto bigger = std::make_unique<ring>((old->mask + 1) * 2);
    for (std::int64_t i = t; i < b; ++i) bigger->put(i, old->get(i), old->tag(i));
    ring* r = bigger.get();
    rings_.push_back(std::move(bigger));
    ring_.store(r, std::memory_order_release);  // a thief's acquire load sees the copied slots
    return r;
  }

  alignas(64) atomic<std::int64_t> top_{0};
  alignas(64) atomic<std::int64_t> bottom_{0};
  alignas(64) atomic<ring*> ring_{nullptr};
  std::vector<std::unique_ptr<ring>> rings_;  // owner only; every ring ever used
};

}  // namespace lanes::compute::detail
