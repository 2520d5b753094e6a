// S7: timers under CPU load. 4 jobs of 50 ms of CPU per core (8 on 2
// cores) while a task waits on a 1 ms timer over and over: the timer's
// worst and p99 lateness when the jobs run on the io workers, and when they
// are offloaded to the compute lane. Peer: Asio (one io thread) + oneTBB,
// the same two ways. Each side in its own forked child.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

#include <lanes/bridge/offload.hpp>
#include <lanes/budget.hpp>
#include <lanes/io/sleep.hpp>
#include <lanes/system.hpp>

#include "json_writer.hpp"
#include "offload_peer.hpp"
#include "s9_peers.hpp"
#include "scenario.hpp"
#include "timer_floor.hpp"

namespace lanes::bench {

namespace {

using steady = std::chrono::steady_clock;

void burn_for(std::chrono::milliseconds d) {
  const auto until = steady::now() + d;
  while (steady::now() < until) {
  }
}

// {worst lag us, p99 lag us}; offloaded, then the floor's {worst, p99}: a
// bare 1 ms timerfd ticker while this system's compute threads (their
// number and priority) burn CPU, for `floor_for` (timer_floor.hpp).
std::vector<double> lanes_s7_mode(bool offloaded, int jobs, int job_ms, std::chrono::milliseconds floor_for) {
  auto sys = system::builder().build();
  std::vector<double> lags =
      sys.block_on([](system& sys, bool offloaded, int jobs, int job_ms) -> task<std::vector<double>> {
        std::atomic<bool> stop{false};
        auto timer = spawn([](std::atomic<bool>& stop) -> task<std::vector<double>> {
          std::vector<double> lags;
          while (!stop.load()) {
            const auto due = steady::now() + std::chrono::milliseconds(1);
            co_await sleep_until(due);
            lags.push_back(std::chrono::duration<double, std::micro>(steady::now() - due).count());
          }
          co_return lags;
        }(stop));
        std::vector<join_handle<void>> hs;
        for (int i = 0; i < jobs; ++i) {
          hs.push_back(spawn([](system& sys, bool offloaded, int job_ms) -> task<void> {
            if (offloaded) {
              co_await offload(sys.compute(), [job_ms] { burn_for(std::chrono::milliseconds(job_ms)); });
            } else {
              burn_for(std::chrono::milliseconds(job_ms));  // on the io worker
            }
          }(sys, offloaded, job_ms)));
        }
        for (auto& h : hs) co_await h;
        stop = true;
        co_return co_await timer;
      }(sys, offloaded, jobs, job_ms));
  const lag_stats timer = summarize_lags(std::move(lags));
  std::vector<double> out{timer.worst_us, timer.p99_us};
  if (offloaded) {
    const auto floor =
        timer_floor(std::chrono::milliseconds(1), floor_for, sys.compute().threads(), sys.compute().priority());
    out.insert(out.end(), {floor.worst_us, floor.p99_us});
  }
  return out;
}

}  // namespace

int run_s7(const options& opts) {
  const unsigned cpus = budget::detect().cpus.value;
  const int jobs = 4 * static_cast<int>(cpus);
  const int job_ms = opts.quick ? 5 : 50;
  const int rounds = opts.quick ? 1 : 3;
  std::vector<double> li_w, li_p, lo_w, lo_p, pi_w, pi_p, po_w, po_p, f_w, f_p;
  // The floor runs as long as the offloaded jobs take.
  const auto floor_for = std::chrono::milliseconds(std::max(200, jobs * job_ms / static_cast<int>(cpus)));
  for (int r = 0; r < rounds; ++r) {
    auto in = run_isolated([&] { return lanes_s7_mode(false, jobs, job_ms, floor_for); });
    auto off = run_isolated([&] { return lanes_s7_mode(true, jobs, job_ms, floor_for); });
    li_w.push_back(in[0]);
    li_p.push_back(in[1]);
    lo_w.push_back(off[0]);
    lo_p.push_back(off[1]);
    f_w.push_back(off[2]);
    f_p.push_back(off[3]);
    const auto p = run_isolated([&] { return asio_tbb_s7(jobs, job_ms, budget::detect().compute_threads.value); });
    pi_w.push_back(p[0]);
    pi_p.push_back(p[1]);
    po_w.push_back(p[2]);
    po_p.push_back(p[3]);
  }
  if (!opts.json) {
    std::printf("S7: %d jobs of %d ms of CPU while a task waits on 1 ms timers; lateness, median of %d runs\n", jobs,
                job_ms, rounds);
    std::printf("  %-28s %14s %12s\n", "", "worst lag ms", "p99 lag ms");
    std::printf("  %-28s %14.3f %12.3f\n", "lanes, jobs on the io lane", median(li_w) / 1000, median(li_p) / 1000);
    std::printf("  %-28s %14.3f %12.3f\n", "lanes, jobs offloaded", median(lo_w) / 1000, median(lo_p) / 1000);
    std::printf("  %-28s %14.3f %12.3f\n", "floor: bare timerfd, busy", median(f_w) / 1000, median(f_p) / 1000);
    std::printf("  %-28s %14.3f %12.3f\n", "Asio + oneTBB, inline", median(pi_w) / 1000, median(pi_p) / 1000);
    std::printf("  %-28s %14.3f %12.3f\n", "Asio + oneTBB, offloaded", median(po_w) / 1000, median(po_p) / 1000);
  }
  tool::json_writer json;
  json.begin_object().field("scenario", "S7").field("jobs", jobs).field("job_ms", job_ms).field("runs", rounds);
  json.field("lanes_inline_worst_lag_us", median(li_w)).field("lanes_inline_p99_lag_us", median(li_p));
  json.field("lanes_offloaded_worst_lag_us", median(lo_w)).field("lanes_offloaded_p99_lag_us", median(lo_p));
  json.field("floor_worst_lag_us", median(f_w)).field("floor_p99_lag_us", median(f_p));
  json.field("peer_inline_worst_lag_us", median(pi_w)).field("peer_inline_p99_lag_us", median(pi_p));
  json.field("peer_offloaded_worst_lag_us", median(po_w)).field("peer_offloaded_p99_lag_us", median(po_p));
  json.end_object();
  std::cout << json.str() << std::endl;
  return 0;
}

}  // namespace lanes::bench
