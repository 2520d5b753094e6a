// blocking_pool: the blocking lane. Calls that block (a file read, a
// synchronous client, a sleep) run here, never on an io worker. Threads are
// created on demand up to a cap (default 512, from the budget or
// LANES_BLOCKING_MAX), retire after an idle keep-alive (default 10 s) and
// are named lanes-blocking-N. When every thread is busy and the cap is
// reached, jobs queue (the depth is a metric).
//
// Shutdown stops taking jobs, drops the ones still queued (whoever awaits
// them sees task_cancelled), and waits for the running ones up to a
// timeout; those still running then are reported by name and spawn site
// and left to finish on their detached threads (a thread cannot be
// killed); the pool's shared state lives until the last of them ends.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <lanes/blocking/metrics.hpp>
#include <lanes/source_location.hpp>

namespace lanes {

// A job still running when shutdown gave up waiting.
struct blocking_job_info {
  const char* name = nullptr;
  source_location spawned_at;
  std::chrono::nanoseconds running_for{0};
};

namespace detail {

// A move-only callable for one job (std::function needs copyable callables).
class blocking_job {
 public:
  template <class F>
  blocking_job(F&& f, const char* name, source_location where)
      : callable_(std::make_unique<holder<std::decay_t<F>>>(std::forward<F>(f))), name_(name), where_(where) {}
  void operator()() { callable_->call(); }
  const char* name() const noexcept { return name_; }
  const source_location& where() const noexcept { return where_; }

 private:
  struct base {
    virtual ~base() = default;
    virtual void call() = 0;
  };
  template <class F>
  struct holder final : base {
    explicit holder(F&& f) : fn(std::move(f)) {}
    void call() override { fn(); }
    F fn;
  };
  std::unique_ptr<base> callable_;
  const char* name_;
  source_location where_;
};

struct blocking_pool_state;

}  // namespace detail

class blocking_pool {
 public:
  struct options {
    unsigned max_threads = 512;                                 // the cap; env LANES_BLOCKING_MAX via the budget
    std::chrono::milliseconds keep_alive{10'000};               // an idle thread retires after this
    std::string thread_name = "lanes-blocking";                 // threads are named <thread_name>-N
    std::optional<std::chrono::milliseconds> shutdown_timeout;  // default: wait for every running job
  };

  explicit blocking_pool(options opts);
  ~blocking_pool();
  blocking_pool(const blocking_pool&) = delete;
  blocking_pool& operator=(const blocking_pool&) = delete;

  // Queues a job; false (and the job is destroyed unrun) after shutdown.
  bool submit(detail::blocking_job job);

  // Stops taking jobs, drops the queued ones, waits for the running ones up
  // to `timeout` (or the option's, or forever), and returns those still
  // running, after printing them to stderr. Idempotent.
  std::vector<blocking_job_info> shutdown(std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  blocking_pool_metrics metrics() const;

 private:
  std::shared_ptr<detail::blocking_pool_state> state_;
};

}  // namespace lanes
