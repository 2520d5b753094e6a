// The Asio + oneTBB pairing users build by hand, as S4's offload peer:
// a coroutine on an io_context hands a function to a oneTBB arena and is
// resumed on its executor with the result. Built with the other oneTBB
// peers (not under ThreadSanitizer, see s9_peers.hpp).
#pragma once

namespace lanes::bench {

// ns per round trip io -> oneTBB -> io of a trivial function, one at a
// time, from inside an Asio coroutine on one io thread; `threads` oneTBB
// threads.
double asio_tbb_offload_ns(int ops, unsigned threads);

}  // namespace lanes::bench
