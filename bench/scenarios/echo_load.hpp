// echo_load: S12's client - closed-loop load on an echo server over
// loopback, written on plain epoll so that it is the same for every
// server it measures. Each connection sends a message, waits until all of
// it has come back, records the round trip, and sends the next.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace lanes::bench {

struct echo_load_result {
  double requests_per_s = 0;
  double p50_us = 0;
  double p99_us = 0;
  std::uint64_t requests = 0;            // completed in the measured window
  double server_cpu_us_per_request = 0;  // filled in by the caller that knows the server
  std::string failure;                   // empty: it ran
};

// `connections` connections to 127.0.0.1:port, each with one message of
// `message_size` bytes in flight; `warmup` unmeasured, then `duration`
// measured. Runs on the calling thread.
echo_load_result run_echo_load(std::uint16_t port, int connections, std::size_t message_size,
                               std::chrono::milliseconds warmup, std::chrono::milliseconds duration);

// Connections per second for `duration`, one at a time: connect, one byte
// echoed (so the server has accepted and served it), close (with a reset,
// so no port waits in TIME_WAIT).
double run_accept_rate(std::uint16_t port, std::chrono::milliseconds duration, std::string& failure);

}  // namespace lanes::bench
