// S1: separate lanes, the headline - lanes (inline on the io worker,
// offloaded behind a semaphore, through a gate) against Boost.Asio + oneTBB
// wired the same way, on all CPUs and pinned to one. Each side and each CPU
// setting runs in its own forked child. The kernel f is one function
// compiled once (s1_lanes.cpp) and called by every side.
#include <sched.h>

#include <cstdio>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <lanes/budget.hpp>
#include <lanes/system.hpp>

#include "json_writer.hpp"
#include "offload_peer.hpp"
#include "s1_lanes.hpp"
#include "s9_peers.hpp"
#include "scenario.hpp"
#include "timer_floor.hpp"

namespace lanes::bench {

namespace {

using tool::run_s1_mode;
using tool::s1_config;
using tool::s1_mode;

void pin_to_first_cpu() {
  cpu_set_t current;
  CPU_ZERO(&current);
  sched_getaffinity(0, sizeof current, &current);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &current)) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      sched_setaffinity(0, sizeof one, &one);
      return;
    }
  }
}

// {inline, offloaded, gate} x {total ms, worst lag us, p99 lag us}, then
// the checksums, then the machine's floor {worst lag us, p99 lag us}: the
// same ticker on a bare timerfd while the compute threads' CPUs are busy,
// for as long as the offloaded mode ran (timer_floor.hpp).
std::vector<double> lanes_s1(const s1_config& config, bool one_cpu) {
  if (one_cpu) pin_to_first_cpu();
  auto sys = system::builder().build();
  std::vector<double> out, sums;
  for (auto mode : {s1_mode::inline_on_io, s1_mode::offloaded, s1_mode::gate}) {
    const auto r = run_s1_mode(sys, mode, config);
    out.insert(out.end(), {r.total_ms, r.worst_lag_us, r.p99_lag_us});
    sums.push_back(static_cast<double>(r.checksum % 1000003));
  }
  out.insert(out.end(), sums.begin(), sums.end());
  const auto floor = timer_floor(config.tick, std::chrono::milliseconds(static_cast<long>(out[3]) + 1),
                                 sys.compute().threads(), sys.compute().priority());
  out.insert(out.end(), {floor.worst_us, floor.p99_us});
  return out;
}

}  // namespace

int run_s1(const options& opts) {
  const auto config = s1_config::for_run(opts.quick);
  tool::json_writer json;
  json.begin_object().field("scenario", "S1").field("requests", config.requests);
  json.field("batch", static_cast<std::uint64_t>(config.batch));
  if (!opts.json) {
    std::printf("S1: %d requests, each Σ f(x) over %zu u64; a 5 ms ticker; lanes vs Asio + oneTBB\n", config.requests,
                config.batch);
  }
  for (bool one_cpu : {false, true}) {
    const auto l = run_isolated([&] { return lanes_s1(config, one_cpu); });
    const auto p = run_isolated([&] {
      if (one_cpu) pin_to_first_cpu();
      return asio_tbb_s1(config.requests, config.batch, static_cast<unsigned>(budget::detect().compute_threads.value));
    });
    if (l[9] != l[10] || l[10] != l[11]) throw std::logic_error("S1: the lanes modes disagree on the checksum");
    if (!p.empty() && (p[3] != l[9] || p[7] != l[9])) throw std::logic_error("S1: the peer computed another sum");
    const std::string at = one_cpu ? "one_cpu_" : "all_cpus_";
    if (!opts.json) {
      std::printf(" %s\n  %-30s %10s %14s %12s\n", one_cpu ? "pinned to one CPU" : "all CPUs", "", "total ms",
                  "worst lag ms", "p99 lag ms");
      const char* names[] = {"lanes inline", "lanes offloaded", "lanes gate"};
      for (int m = 0; m < 3; ++m) {
        std::printf("  %-30s %10.1f %14.3f %12.3f\n", names[m], l[3 * m], l[3 * m + 1] / 1000, l[3 * m + 2] / 1000);
      }
      std::printf("  %-30s %10s %14.3f %12.3f\n", "floor: bare timerfd, CPUs busy", "", l[12] / 1000, l[13] / 1000);
      if (!p.empty()) {
        std::printf("  %-30s %10.1f %14.3f %12.3f\n", "Asio + oneTBB inline", p[0], p[1] / 1000, p[2] / 1000);
        std::printf("  %-30s %10.1f %14.3f %12.3f\n", "Asio + oneTBB offloaded", p[4], p[5] / 1000, p[6] / 1000);
        std::printf("  offloaded/inline total: lanes %.3f, Asio + oneTBB %.3f; worst lag lanes/peer %.2f\n",
                    l[3] / l[0], p[4] / p[0], l[4] / p[5]);
      }
    }
    json.field(at + "lanes_inline_total_ms", l[0]).field(at + "lanes_inline_worst_lag_us", l[1]);
    json.field(at + "lanes_offloaded_total_ms", l[3]).field(at + "lanes_offloaded_worst_lag_us", l[4]);
    json.field(at + "lanes_offloaded_p99_lag_us", l[5]);
    json.field(at + "lanes_gate_total_ms", l[6]).field(at + "lanes_gate_worst_lag_us", l[7]);
    json.field(at + "lanes_gate_p99_lag_us", l[8]);
    json.field(at + "lanes_offloaded_over_inline_total", l[3] / l[0]);
    json.field(at + "floor_worst_lag_us", l[12]).field(at + "floor_p99_lag_us", l[13]);
    if (!p.empty()) {
      json.field(at + "peer_inline_total_ms", p[0]).field(at + "peer_inline_worst_lag_us", p[1]);
      json.field(at + "peer_offloaded_total_ms", p[4]).field(at + "peer_offloaded_worst_lag_us", p[5]);
      json.field(at + "peer_offloaded_p99_lag_us", p[6]);
    } else {
      json.null_field(at + "peer_offloaded_worst_lag_us");
    }
  }
  json.end_object();
  std::cout << json.str() << std::endl;
  return 0;
}

}  // namespace lanes::bench
