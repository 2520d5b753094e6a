// S6: blocking the runtime. One task waits on a 1 ms timer while another
// calls std::this_thread::sleep_for(100 ms) on an io worker. On a
// current-thread runtime the timer fires ~100 ms late (nothing else can
// run); on two workers the other worker keeps it on time. Either way the
// stall detector reports the blocking task by name and spawn site.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>

#include <lanes/io/runtime.hpp>
#include <lanes/io/sleep.hpp>

#include "json_writer.hpp"
#include "scenario.hpp"

namespace lanes::bench {

namespace {

using namespace std::chrono_literals;

struct s6_result {
  double timer_late_ms = 0;
  bool reported = false;
  std::string named;
  std::string site;
};

task<void> blocking_call() {
  std::this_thread::sleep_for(100ms);
  co_return;
}

s6_result measure(runtime_builder builder) {
  std::mutex m;
  s6_result out;
  auto rt = builder.stall_detector(20ms)
                .on_stall([&](const stall_report& r) {
                  std::lock_guard lock(m);
                  if (out.reported) return;
                  out.reported = true;
                  out.named = r.task_name ? r.task_name : "(unnamed)";
                  out.site = std::string(r.spawned_at.file_name()) + ":" + std::to_string(r.spawned_at.line());
                })
                .build();
  const double late = rt.block_on([]() -> task<double> {
    auto timer = spawn(
        []() -> task<double> {
          const auto deadline = clock::now() + 1ms;
          co_await sleep_until(deadline);
          co_return std::chrono::duration<double, std::milli>(clock::now() - deadline).count();
        }(),
        "timer");
    auto blocker = spawn(blocking_call(), "blocking_call");
    const double l = co_await timer;
    co_await blocker;
    co_return l;
  }());
  std::lock_guard lock(m);
  out.timer_late_ms = late;
  return out;
}

}  // namespace

int run_s6(const options& opts) {
  const auto one = measure(runtime::current_thread());
  const auto two = measure(runtime::multi_thread().worker_threads(2));
  if (!opts.json) {
    std::printf("S6: a task blocks its io worker for 100 ms while another waits on a 1 ms timer\n");
    std::printf("  %-16s %14s  %s\n", "runtime", "timer late ms", "stall detector");
    for (const auto* r : {&one, &two}) {
      std::printf("  %-16s %14.2f  %s\n", r == &one ? "current-thread" : "2 workers", r->timer_late_ms,
                  r->reported ? ("named '" + r->named + "' spawned at " + r->site).c_str() : "no report");
    }
  }
  tool::json_writer json;
  json.begin_object()
      .field("scenario", "S6")
      .field("current_thread_timer_late_ms", one.timer_late_ms)
      .field("current_thread_stall_reported", one.reported)
      .field("current_thread_named_task", one.named)
      .field("two_workers_timer_late_ms", two.timer_late_ms)
      .field("two_workers_stall_reported", two.reported)
      .field("two_workers_named_task", two.named)
      .end_object();
  std::cout << json.str() << std::endl;
  return one.reported && two.reported ? 0 : 1;
}

}  // namespace lanes::bench
