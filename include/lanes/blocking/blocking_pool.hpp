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
#include <type_traits>
#include <utility>
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

// One job: a target the pool runs by calling `run(target)`, or gives back
// unrun by calling `discard(target)` (shutdown drops the queued jobs).
// Move-only; the target is the job's until one of the two is called.
// Two kinds: an owned callable (allocated here), or a target that manages
// itself (an offload's shared state: no allocation).
class blocking_job {
 public:
  using run_fn = void (*)(void* target);
  using discard_fn = void (*)(void* target) noexcept;

  blocking_job(run_fn run, discard_fn discard, void* target, const char* name, source_location where) noexcept
      : run_(run), discard_(discard), target_(target), name_(name), where_(where) {}
  template <class F>
  requires(!std::is_same_v<std::decay_t<F>, blocking_job>) blocking_job(F&& f, const char* name, source_location where)
      : blocking_job(&run_owned<std::decay_t<F>>, &discard_owned<std::decay_t<F>>,
                     new std::decay_t<F>(std::forward<F>(f)), name, where) {}
  blocking_job(blocking_job&& other) noexcept
      : run_(other.run_),
        discard_(other.discard_),
        target_(std::exchange(other.target_, nullptr)),
        name_(other.name_),
        where_(other.where_) {}
  blocking_job& operator=(blocking_job&& other) noexcept {
    if (this != &other) {
      if (target_ != nullptr) discard_(target_);
      run_ = other.run_;
      discard_ = other.discard_;
      target_ = std::exchange(other.target_, nullptr);
      name_ = other.name_;
      where_ = other.where_;
    }
    return *this;
  }
  blocking_job(const blocking_job&) = delete;
  blocking_job& operator=(const blocking_job&) = delete;
  ~blocking_job() {
    if (target_ != nullptr) discard_(target_);
  }

  // Runs it (once; it may throw what the callable throws).
  void operator()() { run_(std::exchange(target_, nullptr)); }
  // Gives the target back to whoever made the job: neither run nor
  // discarded (submit() threw, and the caller undoes the hand-off).
  void release() noexcept { target_ = nullptr; }
  const char* name() const noexcept { return name_; }
  const source_location& where() const noexcept { return where_; }

 private:
  template <class F>
  static void run_owned(void* target) {
    const std::unique_ptr<F> f(static_cast<F*>(target));  // freed even if it throws
    (*f)();
  }
  template <class F>
  static void discard_owned(void* target) noexcept {
    delete static_cast<F*>(target);
  }

  run_fn run_;
  discard_fn discard_;
  void* target_;
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

  // Queues the job (moved from); false after shutdown (then the job is
  // left as it was, for the caller to drop). If no thread is free for it
  // and a new one cannot start (pthread_create failed: a system_error),
  // or memory runs out (std::bad_alloc), it throws and everything is as
  // it was: the job left with the caller, no thread counted.
  bool submit(detail::blocking_job&& job);

  // Stops taking jobs, drops the queued ones, waits for the running ones up
  // to `timeout` (or the option's, or forever), and returns those still
  // running, after printing them to stderr. Idempotent.
  std::vector<blocking_job_info> shutdown(std::optional<std::chrono::milliseconds> timeout = std::nullopt);

  blocking_pool_metrics metrics() const;

 private:
  std::shared_ptr<detail::blocking_pool_state> state_;
};

}  // namespace lanes
