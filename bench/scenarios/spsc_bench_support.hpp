// Thread placement for the two-thread benchmarks (S8, S10): the k-th CPU of
// the process's affinity mask, so that producer and consumer sit on
// different cores when there are two.
#pragma once

namespace lanes::bench {

// Pins the calling thread to the k-th CPU of the mask captured at the
// first call (wrapping around when the mask is smaller).
void pin_to_nth_cpu(unsigned k);
// Gives the calling thread the whole captured mask back.
void unpin();
// The mask has at least two CPUs.
bool two_cpus();

}  // namespace lanes::bench
