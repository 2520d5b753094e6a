// S1 (and S2) on lanes: CPU work inline on the io lane against the same
// work offloaded. Run by `lanes demo`, and by the benchmark lab's S1, which
// adds its peers (docs/benchmarks.md).
//
// 64 requests are spawned at once; each evaluates the same batch of 2,000
// u64 (evaluate(batch) = Σ f(x), in parallel over the batch on the compute
// pool) while a ticker task ticks every 5 ms against absolute deadlines and
// records how late each tick fires. Modes, one after the other:
// - inline: the request calls evaluate on its io worker (which blocks
//   that worker until the whole parallel evaluation is done);
// - offloaded: the request takes one of 2 permits of a semaphore, hands
//   evaluate to the compute lane with offload() and awaits the result -
//   the rule of docs/bridge.md, by hand;
// - gate: the same in one call, lanes::gate{pool, 2}.run(evaluate).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <lanes/system.hpp>

namespace lanes::tool {

// S1's f: a = a * 6364136223846793005 + i for i in [0, 20000), from a = x
// (wrapping). Compiled once, never inlined, so that every side of S1 calls
// the same machine code.
std::uint64_t s1_f(std::uint64_t x);

enum class s1_mode { inline_on_io, offloaded, gate };
const char* to_string(s1_mode m) noexcept;

struct s1_config {
  int requests = 64;
  std::size_t batch = 2000;
  std::chrono::milliseconds tick{5};
  std::size_t permits = 2;

  // The full experiment, or the short form the tests run: 8 requests of
  // 200 elements.
  static s1_config for_run(bool quick) {
    s1_config config;
    if (quick) {
      config.requests = 8;
      config.batch = 200;
    }
    return config;
  }
};

struct s1_tick {
  double at_ms;   // since the mode started
  double lag_us;  // how late the tick fired
};

struct s1_result {
  s1_mode mode;
  double total_ms = 0;
  double worst_lag_us = 0;
  double p99_lag_us = 0;
  std::uint64_t checksum = 0;  // the wrapping sum over all requests
  std::vector<s1_tick> ticks;
};

// evaluate of the batch 0..2000, and the sum over the 64 requests.
inline constexpr std::uint64_t s1_batch_checksum = 15832960220778340248ULL;
inline constexpr std::uint64_t s1_total_checksum = 17185274149497988608ULL;

s1_result run_s1_mode(system& sys, s1_mode mode, const s1_config& config);

// S2: `requests` offloaded requests, one of whose jobs indexes an empty
// vector with at(0); and one detached compute job that throws.
struct s2_result {
  int completed = 0;
  int failed = 0;
  std::string failed_type;     // "std::out_of_range"
  std::string failed_message;  // its what()
  std::uint64_t detached_errors_counted = 0;
  bool process_alive = true;
};
s2_result run_s2(system& sys, int requests);

}  // namespace lanes::tool
