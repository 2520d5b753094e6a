// What the two-thread benchmarks (S8, S10) share: the moodycamel peer,
// S10's check of the values its consumers read,
// thread placement on the k-th CPU of the process's affinity mask (so that
// producer and consumer sit on different cores when there are two), the
// ping-pong round trip, and the floor under every handoff: one cache line
// bounced between those two CPUs.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <span>
#include <thread>

#include <lanes/detail/cpu_relax.hpp>
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

// Keeps the calling thread busy for `d` (reading steady_clock, with a
// pause): before a run, because a vCPU that sat idle runs slowly for its
// first tens of milliseconds (the host wakes it, clocks ramp up), which a
// short run would otherwise measure instead of the queue; and as S8's
// hot sender's idle between messages.
void spin_for(std::chrono::nanoseconds d);

// What each of the two threads of a measurement runs before its clock
// starts: 100 ms of spin_for, then it counts itself in `arrived` and waits
// for the other (a thread still starting up would otherwise add its
// start-up to a short run).
void warm_up_and_meet(std::atomic<int>& arrived);

// Ping-pong: a pinger on the first CPU sends i, a ponger on the second
// sends it back; ns per round trip. A template, so that the four callables
// are called directly: through std::function objects (which sit on the
// pinger's stack) a bare cache line's round trip is markedly slower.
template <class SendAB, class ReceiveAB, class SendBA, class ReceiveBA>
double round_trip_ns(std::uint64_t trips, SendAB send_ab, ReceiveAB receive_ab, SendBA send_ba, ReceiveBA receive_ba) {
  std::atomic<int> arrived{0};
  std::thread ponger([&] {
    pin_to_nth_cpu(1);
    warm_up_and_meet(arrived);
    for (std::uint64_t i = 0; i < trips; ++i) send_ba(receive_ab());
  });
  pin_to_nth_cpu(0);
  warm_up_and_meet(arrived);
  const auto start = std::chrono::steady_clock::now();
  for (std::uint64_t i = 0; i < trips; ++i) {
    send_ab(i);
    if (receive_ba() != i) std::fprintf(stderr, "round trip: wrong value\n");
  }
  const double ns = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - start).count();
  ponger.join();
  unpin();
  return ns / static_cast<double>(trips);
}

// The same ping-pong through two bare cache lines (a store one way, a
// spinning load the other): what moving one line from one of
// the two CPUs to the other and back costs on this machine. Half of it is
// the floor under any one-way wake-up between them (S8): a consumer that
// spins on a line cannot see a store sooner than the line can travel.
double cache_line_round_trip_ns(std::uint64_t trips);

// Whether `values` are first, first + 1, ...: the batched consumers' check
// of every value, lanes' and boost's alike. Four values per step and no
// early exit: a loop that returns at the first mismatch is slow enough to
// bound lanes' batched reader, not the ring, and g++ -O2 does not
// vectorise the one-value loop of unknown length.
inline bool is_sequence(std::span<const std::uint64_t> values, std::uint64_t first) {
  std::uint64_t wrong = 0;
  std::size_t k = 0;
  for (; k + 4 <= values.size(); k += 4) {
    wrong |= (values[k] ^ (first + k)) | (values[k + 1] ^ (first + k + 1)) | (values[k + 2] ^ (first + k + 2)) |
             (values[k + 3] ^ (first + k + 3));
  }
  for (; k < values.size(); ++k) wrong |= values[k] ^ (first + k);
  return wrong == 0;
}

}  // namespace lanes::bench
