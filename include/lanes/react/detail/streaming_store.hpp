// streaming_store: writing a ring slot without first reading its line
// (x86-64 `movnti`), for ring_producer::generate_streaming.
//
// A plain store to a line that another core holds (the consumer read the
// slot on the ring's last lap) first fetches the line back: a read for
// ownership per line, one cross-core round trip each. A non-temporal store
// writes the whole line through the write-combining buffers instead. Such
// stores are weakly ordered, so publishing needs streaming_fence() (sfence)
// before the release store of the tail. Under ThreadSanitizer, and off
// x86-64, they are plain stores: TSan does not see non-temporal stores, and
// the ring's orderings must stay checked.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include <lanes/detail/sanitizers.hpp>

#if defined(__x86_64__) && !LANES_TSAN
#include <immintrin.h>
#define LANES_STREAMING_STORES 1
#else
#define LANES_STREAMING_STORES 0
#endif

namespace lanes::react::detail {

// `slot` is 8-byte aligned and sizeof(T) a multiple of 8 (the caller's
// requirements say so).
template <class T>
inline void streaming_store(T* slot, const T& value) noexcept {
#if LANES_STREAMING_STORES
  std::uint64_t words[sizeof(T) / 8];
  std::memcpy(words, &value, sizeof(T));
  auto* out = reinterpret_cast<long long*>(slot);
  for (std::size_t k = 0; k < sizeof(T) / 8; ++k) _mm_stream_si64(out + k, static_cast<long long>(words[k]));
#else
  std::memcpy(static_cast<void*>(slot), &value, sizeof(T));
#endif
}

// Orders every streaming store before the stores that follow it.
inline void streaming_fence() noexcept {
#if LANES_STREAMING_STORES
  _mm_sfence();
#endif
}

}  // namespace lanes::react::detail
