// The Asio + oneTBB pairing users build by hand, as S4's offload peer:
// a coroutine on an io_context hands a function to a oneTBB arena and is
// resumed on its executor with the result. Built with the other oneTBB
// peers (not under ThreadSanitizer, see s9_peers.hpp).
#pragma once

#include <cstddef>
#include <vector>

namespace lanes::bench {

// ns per round trip io -> oneTBB -> io of a trivial function, one at a
// time, from inside an Asio coroutine on one io thread; `threads` oneTBB
// threads.
double asio_tbb_offload_ns(int ops, unsigned threads);

}  // namespace lanes::bench

namespace lanes::bench {

// S1 on Boost.Asio (one io thread) + oneTBB (an arena of `threads`): the
// same requests, batch, ticker and modes as s1_lanes.hpp. {inline total ms,
// worst lag us, p99 lag us, offloaded total ms, worst lag us, p99 lag us,
// checksum inline, checksum offloaded}.
std::vector<double> asio_tbb_s1(int requests, std::size_t batch, unsigned threads);

}  // namespace lanes::bench

namespace lanes::bench {

// S7 on Boost.Asio (one io thread) + oneTBB: `jobs` jobs of `job_ms` of CPU
// posted to the io thread (inline) or enqueued in an arena (offloaded),
// while a coroutine waits on a 1 ms timer repeatedly. {inline worst lag us,
// p99 us, offloaded worst us, p99 us}.
std::vector<double> asio_tbb_s7(int jobs, int job_ms, unsigned threads);

}  // namespace lanes::bench
