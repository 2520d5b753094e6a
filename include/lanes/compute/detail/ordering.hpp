// ordering: how the compute lane's lock-free protocols (the deque and the
// idle signal) order a store before a later load of another variable.
//
// Two correct forms: a store, a seq_cst fence and a load (Lê et al.'s
// Chase-Lev, PPoPP 2013), or seq_cst operations throughout (one total
// order). Measured on the 2-vCPU EPYC VM, the fence form is faster on the
// fork path (fib(32) on one thread: 7.1 vs 9.3 ns per task: `lock or` on
// the stack beats `xchg` on the deque's index). ThreadSanitizer does not
// model standalone fences (g++ refuses them under -fsanitize=thread), so
// TSan builds use the seq_cst form, which it checks. Both forms are
// written side by side where they are used, with the proof that covers
// both (idle_signal.hpp, work_stealing_deque.hpp).
#pragma once

#include <lanes/detail/sanitizers.hpp>

#define LANES_COMPUTE_SEQ_CST_FORM LANES_TSAN
