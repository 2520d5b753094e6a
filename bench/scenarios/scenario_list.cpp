#include <array>

#include "scenario.hpp"

namespace lanes::bench {

std::span<const scenario> all_scenarios() {
  static constexpr std::array<scenario, 14> list{{
      {"s1", "separate lanes: CPU work inline vs offloaded, a 5 ms ticker's lateness, against Asio + oneTBB", run_s1},
      {"s3", "100,000 sleeping io tasks: wall time and memory per task, against Asio", run_s3},
      {"s4", "spawn + await cost, against asio::co_spawn; std::thread create + join", run_s4},
      {"s5", "io worker sweep 1..64, against Asio with as many threads", run_s5},
      {"s6", "a task blocking the runtime: timer lateness and the stall detector", run_s6},
      {"s7", "timers under CPU load: 1 ms timer lateness, jobs inline vs offloaded, against Asio + oneTBB", run_s7},
      {"s8",
       "wake-up latency of a consumer: condition variable, io task, atomic::wait, react thread, against "
       "boost::lockfree and moodycamel spinning consumers",
       run_s8},
      {"s9", "fork-join: fib by join (no cutoff, cutoff), join cost, against oneTBB and OpenMP", run_s9},
      {"s10",
       "SPSC throughput, 100M u64 through a ring of 4096, and the ping-pong round trip, against "
       "boost::lockfree::spsc_queue and moodycamel::ReaderWriterQueue",
       run_s10},
      {"s12",
       "TCP echo on loopback, 64 B and 4 KiB messages over 1, 50 and 300 connections, and the accept rate: "
       "lanes-echo against Tokio and Boost.Asio",
       run_s12},
      {"timers", "timer lateness on an idle runtime (goal: p99 within 100 us), against asio::steady_timer",
       run_timer_latency},
      {"timeouts",
       "tasks looping on timeout(10ms, yield_now()) on one worker and on two: what workers share "
       "when they arm timers, against Asio with as many threads",
       run_timeouts},
      {"sync", "oneshot handoff, mpsc, semaphore, spawn_blocking against the nearest Asio construction", run_sync},
      {"compose",
       "select of two timers, when_all of 10 tasks, cancelling 100,000 sleepers through one token, "
       "against the plain Asio constructions",
       run_compose},
  }};
  return list;
}

}  // namespace lanes::bench
