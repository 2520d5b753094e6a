// S12: TCP echo on loopback (docs/benchmarks.md). Each server runs in its
// own process on one CPU - lanes-echo (examples/echo_server.cpp, one io
// worker) on each io backend, epoll and io_uring, Tokio (lanes-tokio-peer
// echo, one worker) and Boost.Asio
// (lanes-asio-echo-peer, one io_context, C++20 coroutines) - and the
// closed-loop client (echo_load.cpp) on another. Messages of 64 B and
// 4 KiB over 1, 50 and 300 connections; requests/s and p50/p99 round
// trips, the servers taking turns for each row so that drift in the
// machine spreads over all of them; then the accept rate. A client on one
// CPU can be slower than the servers, and then their rates meet; the CPU
// time each server spends per request (its threads' schedstat, over the
// warm-up and the measured window, divided by the requests of both at the
// measured rate) shows what each costs all the same. The ratios compare
// lanes' better backend of each row with each peer, and io_uring with epoll.
#include <sched.h>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "echo_load.hpp"
#include "json_writer.hpp"
#include "program_path.hpp"
#include "rust_peer.hpp"
#include "scenario.hpp"
#include "server_process.hpp"

// Where this lab was built against an installed lanes, CMake says where its
// lanes-echo is, and where the Asio peer was built.
#ifndef LANES_ECHO_INSTALLED
#define LANES_ECHO_INSTALLED ""
#endif
#ifndef LANES_ASIO_ECHO_PEER_BUILT
#define LANES_ASIO_ECHO_PEER_BUILT ""
#endif

namespace lanes::bench {

namespace {

// $VARIABLE, else beside the lab (`relative`), else `built`; empty if none runs.
std::string find_server(const char* variable, const std::string& relative, const char* built) {
  const auto found = tool::locate_program(variable, relative);
  if (found.from_env || !found.path.empty()) return found.path;
  return tool::is_executable(built) ? built : "";
}

struct server_entry {
  std::string key;                          // JSON prefix: lanes_epoll, lanes_uring, tokio, asio
  std::string title;                        // for the table
  std::unique_ptr<server_process> process;  // null: not built, or did not start
};

// The CPUs this process may use, in order.
std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (::sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  return cpus;
}

void pin_calling_thread(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int c : cpus) CPU_SET(c, &set);
  ::sched_setaffinity(0, sizeof set, &set);
}

}  // namespace

int run_s12(const options& opts) {
  const std::vector<int> cpus = allowed_cpus();
  const bool split = cpus.size() >= 2;
  const int server_cpu = split ? cpus[1] : -1;
  const std::chrono::milliseconds warmup(opts.quick ? 50 : 300);
  const std::chrono::milliseconds duration(opts.quick ? 150 : 2000);
  const std::chrono::milliseconds accept_duration(opts.quick ? 100 : 1000);

  std::vector<server_entry> servers;
  const std::string lanes_echo = find_server("LANES_ECHO", "lanes-echo", LANES_ECHO_INSTALLED);
  const std::string asio_echo =
      find_server("LANES_ASIO_ECHO_PEER", "../libexec/lanes/lanes-asio-echo-peer", LANES_ASIO_ECHO_PEER_BUILT);
  const std::string tokio = rust_peer_path(rust_peer::tokio);
  auto add = [&](std::string key, std::string title, const std::string& path, std::vector<std::string> args) {
    server_entry& s = servers.emplace_back(server_entry{std::move(key), std::move(title), nullptr});
    if (path.empty()) {
      std::fprintf(stderr, "(S12: %s is not built here)\n", s.title.c_str());
      return;
    }
    args.insert(args.begin(), path);
    s.process = std::make_unique<server_process>(args, server_cpu);
    if (!s.process->ok()) {
      std::fprintf(stderr, "(S12: %s did not start: %s)\n", s.title.c_str(), s.process->failure().c_str());
      s.process.reset();
    }
  };
  add("lanes_epoll", "lanes epoll", lanes_echo, {"--port", "0", "--workers", "1", "--backend", "epoll"});
  add("lanes_uring", "lanes io_uring", lanes_echo, {"--port", "0", "--workers", "1", "--backend", "uring"});
  constexpr std::size_t lanes_servers = 2;  // the first two; then the peers
  add("tokio", rust_peer_title(rust_peer::tokio), tokio, {"echo", "1"});
  add("asio", "Asio", asio_echo, {});
  if (!servers.front().process) {
    std::fprintf(stderr, "S12: lanes-echo is needed (set LANES_ECHO, or install it beside lanes-bench)\n");
    return 1;
  }
  if (split) pin_calling_thread({cpus[0]});

  struct row {
    std::size_t size;
    int connections;
    std::vector<std::optional<echo_load_result>> by_server;
  };
  std::vector<row> rows;
  for (const std::size_t size : {std::size_t{64}, std::size_t{4096}}) {
    for (const int connections : {1, 50, 300}) {
      row r{size, connections, {}};
      for (auto& s : servers) {
        if (!s.process) {
          r.by_server.emplace_back();
          continue;
        }
        const std::uint64_t cpu_before = s.process->cpu_ns();
        auto result = run_echo_load(s.process->port(), connections, size, warmup, duration);
        // The server's CPU time per request: warm-up and window, over both at the measured rate.
        const double cpu_ns = static_cast<double>(s.process->cpu_ns() - cpu_before);
        const double all_requests = result.requests_per_s * std::chrono::duration<double>(warmup + duration).count();
        result.server_cpu_us_per_request = all_requests > 0 ? cpu_ns / all_requests / 1000.0 : 0;
        if (!result.failure.empty()) {
          std::fprintf(stderr, "S12: %s, %zu B x %d: %s\n", s.title.c_str(), size, connections, result.failure.c_str());
          return 1;
        }
        r.by_server.emplace_back(result);
      }
      rows.push_back(std::move(r));
    }
  }
  std::vector<std::optional<double>> accept_rates;
  for (auto& s : servers) {
    if (!s.process) {
      accept_rates.emplace_back();
      continue;
    }
    std::string failure;
    const double rate = run_accept_rate(s.process->port(), accept_duration, failure);
    if (!failure.empty()) {
      std::fprintf(stderr, "S12: %s accept rate: %s\n", s.title.c_str(), failure.c_str());
      return 1;
    }
    accept_rates.emplace_back(rate);
  }
  if (split) pin_calling_thread(cpus);

  auto rate = [](const row& r, std::size_t i) -> std::optional<double> {
    if (!r.by_server[i] || r.by_server[i]->requests_per_s <= 0) return std::nullopt;
    return r.by_server[i]->requests_per_s;
  };
  auto best_lanes = [&](const row& r) {
    std::optional<double> best;
    for (std::size_t i = 0; i < lanes_servers; ++i) {
      if (auto q = rate(r, i); q && (!best || *q > *best)) best = q;
    }
    return best;
  };
  // lanes' better backend over server `other` (a peer), or io_uring over epoll (other 0).
  auto ratio = [&](const row& r, std::size_t other) -> std::optional<double> {
    const auto mine = other == 0 ? rate(r, 1) : best_lanes(r);
    const auto theirs = rate(r, other);
    if (!mine || !theirs) return std::nullopt;
    return *mine / *theirs;
  };
  auto ratio_name = [&](std::size_t other) {
    return other == 0 ? std::string("uring_over_epoll") : "lanes_over_" + servers[other].key;
  };
  if (!opts.json) {
    std::printf(
        "S12: TCP echo on loopback, closed loop, %s; %lld ms measured per row\n",
        split ? ("server on CPU " + std::to_string(cpus[1]) + ", client on CPU " + std::to_string(cpus[0])).c_str()
              : "one CPU shared by server and client",
        static_cast<long long>(duration.count()));
    std::printf("  %-7s %5s  %-14s %12s %9s %9s %14s\n", "message", "conns", "server", "requests/s", "p50 us", "p99 us",
                "server CPU us");
    for (const auto& r : rows) {
      for (std::size_t i = 0; i < servers.size(); ++i) {
        if (!r.by_server[i]) continue;
        std::printf("  %5zu B %5d  %-14s %12.0f %9.1f %9.1f %14.2f\n", r.size, r.connections, servers[i].title.c_str(),
                    r.by_server[i]->requests_per_s, r.by_server[i]->p50_us, r.by_server[i]->p99_us,
                    r.by_server[i]->server_cpu_us_per_request);
      }
      if (auto q = ratio(r, 0)) std::printf("  %5s   %5s  %-14s %12.2f\n", "", "", "uring / epoll", *q);
      for (std::size_t i = lanes_servers; i < servers.size(); ++i) {
        if (auto q = ratio(r, i)) std::printf("  %5s   %5s  best / %-7s %12.2f\n", "", "", servers[i].key.c_str(), *q);
      }
    }
    std::printf("  accept rate (connect, one byte echoed, close), per second:\n");
    for (std::size_t i = 0; i < servers.size(); ++i) {
      if (accept_rates[i]) std::printf("  %-22s %12.0f\n", servers[i].title.c_str(), *accept_rates[i]);
    }
  }
  tool::json_writer json;
  json.begin_object().field("scenario", "S12").field("server_cpu_apart", split);
  json.field("measured_ms_per_row", static_cast<std::uint64_t>(duration.count()));
  for (std::size_t i = 0; i < servers.size(); ++i) {
    if (servers[i].key == "tokio") json.field("tokio", servers[i].title);
    for (const auto& r : rows) {
      const std::string prefix =
          servers[i].key + "_" + std::to_string(r.size) + "b_" + std::to_string(r.connections) + "c_";
      if (r.by_server[i]) {
        json.field(prefix + "requests_per_s", r.by_server[i]->requests_per_s)
            .field(prefix + "p50_us", r.by_server[i]->p50_us)
            .field(prefix + "p99_us", r.by_server[i]->p99_us)
            .field(prefix + "server_cpu_us_per_request", r.by_server[i]->server_cpu_us_per_request);
      } else {
        json.null_field(prefix + "requests_per_s");
      }
    }
    const std::string key = servers[i].key + "_accepts_per_s";
    if (accept_rates[i]) {
      json.field(key, *accept_rates[i]);
    } else {
      json.null_field(key);
    }
  }
  std::vector<std::size_t> compared = {0};  // io_uring over epoll, then lanes' best over each peer
  for (std::size_t i = lanes_servers; i < servers.size(); ++i) compared.push_back(i);
  for (const std::size_t i : compared) {
    for (const auto& r : rows) {
      const std::string key =
          ratio_name(i) + "_" + std::to_string(r.size) + "b_" + std::to_string(r.connections) + "c_requests_per_s";
      if (auto q = ratio(r, i)) {
        json.field(key, *q);
      } else {
        json.null_field(key);
      }
    }
  }
  json.end_object();
  std::cout << json.str() << std::endl;
  return 0;
}

}  // namespace lanes::bench
