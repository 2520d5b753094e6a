// ordering: how lanes' lock-free protocols (the compute deque, the event
// count every lane's threads sleep on, the react ring's wait slot) order a
// store before a later load of another variable.
//
// Two correct forms: a store, a seq_cst fence and a load (Lê et al.'s
// Chase-Lev, PPoPP 2013), or seq_cst operations throughout (one total
// order). The fence form is the faster one on the fork path (`lock or` on
// the stack beats `xchg` on the deque's index; measured: docs/benchmarks.md,
// S9). ThreadSanitizer does not
// model standalone fences (g++ refuses them under -fsanitize=thread), so
// TSan builds use the seq_cst form, which it checks. Both forms are
// written side by side where they are used, with the proof that covers
// both (event_count.hpp, work_stealing_deque.hpp).
#pragma once

#include <lanes/detail/sanitizers.hpp>

#define LANES_SEQ_CST_FORM LANES_TSAN

#include <atomic>

namespace lanes::detail {

// The store-then-load-of-another-variable pattern (Dekker: "I published,
// are you asleep?" against "I am going to sleep, did you publish?"), for
// protocols that want it spelled once: `dekker_store` the variable you
// publish, `dekker_fence()`, then `dekker_load` the other side's variable.
// Fence form: release store, seq_cst fence, acquire load. Seq_cst form:
// seq_cst store and load, no fence.
inline constexpr std::memory_order dekker_store =
    LANES_SEQ_CST_FORM ? std::memory_order_seq_cst : std::memory_order_release;
inline constexpr std::memory_order dekker_load =
    LANES_SEQ_CST_FORM ? std::memory_order_seq_cst : std::memory_order_acquire;
// The atomics the lock-free templates (event_count, the compute deque) are
// written against: std::atomic and the real fence. tests/model swaps in
// atomics that run the same code under every interleaving.
struct std_atomics {
  template <class T>
  using atomic = std::atomic<T>;
  static void seq_cst_fence() noexcept { std::atomic_thread_fence(std::memory_order_seq_cst); }
};

inline void dekker_fence() noexcept {
#if !LANES_SEQ_CST_FORM
  std::atomic_thread_fence(std::memory_order_seq_cst);
#endif
}

}  // namespace lanes::detail
