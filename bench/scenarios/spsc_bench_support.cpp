#include "spsc_bench_support.hpp"

#include <sched.h>

#include <atomic>
#include <vector>

#include <lanes/detail/cpu_relax.hpp>

namespace lanes::bench {

namespace {

const std::vector<unsigned>& process_cpus() {
  static const std::vector<unsigned> cpus = [] {
    std::vector<unsigned> out;
    cpu_set_t set;
    CPU_ZERO(&set);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
      for (unsigned cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &set)) out.push_back(cpu);
    }
    if (out.empty()) out.push_back(0);
    return out;
  }();
  return cpus;
}

void set_mask(const std::vector<unsigned>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (unsigned cpu : cpus) CPU_SET(cpu, &set);
  (void)sched_setaffinity(0, sizeof set, &set);  // best effort: a benchmark still runs unpinned
}

}  // namespace

void pin_to_nth_cpu(unsigned k) {
  const auto& cpus = process_cpus();
  set_mask({cpus[k % cpus.size()]});
}

void unpin() { set_mask(process_cpus()); }

bool two_cpus() { return process_cpus().size() >= 2; }

void spin_for(std::chrono::nanoseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) lanes::detail::cpu_relax();
}

void warm_up_and_meet(std::atomic<int>& arrived) {
  spin_for(std::chrono::milliseconds(100));
  arrived.fetch_add(1);
  while (arrived.load() != 2) lanes::detail::cpu_relax();
}

double cache_line_round_trip_ns(std::uint64_t trips) {
  // Each word on a line of its own, written by one side only: the lines
  // that carry the messages, and each receiver's count of what it has
  // seen (kept out of the callables, which sit on the pinger's stack, by
  // whatever the pinger keeps there). The value sent is i + 1, so the
  // initial 0 is never mistaken for a message.
  struct alignas(64) line {
    std::atomic<std::uint64_t> value{0};
  };
  struct alignas(64) count {
    std::uint64_t seen = 0;
  };
  line ab, ba;
  count ab_seen, ba_seen;
  const auto send = [](line& l) { return [&l](std::uint64_t v) { l.value.store(v + 1, std::memory_order_release); }; };
  // Spins with the pause every consumer in these benches uses: without
  // one the round trip is longer, the spinner's loads contending with the
  // writer's claim on the line.
  const auto receive = [](line& l, count& c) {
    return [&l, &c] {
      const std::uint64_t expected = ++c.seen;
      while (l.value.load(std::memory_order_acquire) != expected) lanes::detail::cpu_relax();
      return expected - 1;
    };
  };
  return round_trip_ns(trips, send(ab), receive(ab, ab_seen), send(ba), receive(ba, ba_seen));
}

}  // namespace lanes::bench
