// What the two-thread benchmarks (S8, S10) share: the moodycamel peer, and
// thread placement on the k-th CPU of the process's affinity mask, so that
// producer and consumer sit on different cores when there are two.
#pragma once

#include <lanes/detail/sanitizers.hpp>

// The moodycamel peer (libreaderwriterqueue-dev), where it is installed.
// It synchronises with standalone fences, which ThreadSanitizer does not
// model: not run under it.
#if __has_include(<readerwriterqueue/readerwriterqueue.h>) && !LANES_TSAN
#include <readerwriterqueue/readerwriterqueue.h>
#define LANES_HAVE_MOODYCAMEL 1
#else
#define LANES_HAVE_MOODYCAMEL 0
#endif

namespace lanes::bench {

// Pins the calling thread to the k-th CPU of the mask captured at the
// first call (wrapping around when the mask is smaller).
void pin_to_nth_cpu(unsigned k);
// Gives the calling thread the whole captured mask back.
void unpin();
// The mask has at least two CPUs.
bool two_cpus();

}  // namespace lanes::bench
